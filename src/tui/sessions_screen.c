/*
 * sessions_screen.c - the recorded sessions (the list `benchtop sessions`
 * prints, newest first): filter by workload, mark, delete with a y/n
 * confirmation, open a replay, load a recording's plan into the workbench
 * to run it again, compare the marked ones.
 *
 * The list comes from report/sessions.h. Deleting unlinks only a file of the
 * listing, and only after checking that it is still directly inside the
 * listed directory.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/recording.h"
#include "core/sysinfo.h"
#include "tui/app.h"
#include "workloads/registry.h"

void bt_ss_free(struct bt_app *a)
{
	struct bt_sessview *ss = &a->ss;

	free(ss->list);
	free(ss->marked);
	free(ss->shown);
	ss->list = NULL;
	ss->marked = NULL;
	ss->shown = NULL;
	ss->n = ss->nshown = 0;
}

/* Does haystack hold needle, ignoring case? */
static int has_word(const char *hay, const char *needle, size_t n)
{
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

/*
 * Does session s match the search: every space-separated word in one of its
 * fields (file name, workload, axes and their values, fixed values, host,
 * date and time, status, benchtop version)?
 */
static int search_match(const struct bt_session_info *s, const char *search)
{
	char when[32];
	const char *fields[8];
	const char *p = search;

	bt_format_utc(s->start_unix_ns, when, sizeof(when));
	fields[0] = s->name;
	fields[1] = s->readable ? s->workload : "";
	fields[2] = s->axes;
	fields[3] = s->fixed;
	fields[4] = s->host;
	fields[5] = when;
	fields[6] = s->readable ? s->status : "unreadable";
	fields[7] = s->version;
	while (*p) {
		size_t n;
		int found = 0;

		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (n == 0)
			break;
		for (int f = 0; f < 8 && !found; f++)
			found = has_word(fields[f], p, n);
		if (!found)
			return 0;
		p += n;
	}
	return 1;
}

const char *const bt_ss_sort_names[] = { "time", "workload", "plan", "cells", "status", "host" };

/* The order of two sessions under the sort column (time: newest first; the rest A-Z, then time). */
static int sort_cmp(const struct bt_sessview *ss, const struct bt_session_info *x,
		    const struct bt_session_info *y)
{
	char px[520], py[520];
	int c = 0;

	switch (ss->sort) {
	case 1:
		c = strcmp(x->workload, y->workload);
		break;
	case 2:
		c = strcmp(bt_sessions_plan_text(x, px, sizeof(px)), bt_sessions_plan_text(y, py, sizeof(py)));
		break;
	case 3:
		c = (x->ncells > y->ncells) - (x->ncells < y->ncells);
		break;
	case 4:
		c = strcmp(x->readable ? x->status : "~", y->readable ? y->status : "~");
		break;
	case 5:
		c = strcmp(x->host, y->host);
		break;
	default:
		break;
	}
	if (c == 0)
		c = (x->start_unix_ns < y->start_unix_ns) - (x->start_unix_ns > y->start_unix_ns);
	return c;
}

/* Recompute the rows that pass the filter and the search, in sort order; keep the selection. */
static void apply_filter(struct bt_app *a)
{
	struct bt_sessview *ss = &a->ss;
	char keep[4096];

	snprintf(keep, sizeof(keep), "%s", ss->sel_path);
	ss->nshown = 0;
	for (int i = 0; i < ss->n; i++)
		if ((ss->filter[0] == '\0' ||
		     (ss->list[i].readable && strstr(ss->list[i].workload, ss->filter) != NULL)) &&
		    search_match(&ss->list[i], ss->search))
			ss->shown[ss->nshown++] = i;
	/* Insertion sort: stable, and a listing is hundreds of rows, not millions. */
	for (int i = 1; i < ss->nshown; i++)
		for (int j = i; j > 0 && sort_cmp(ss, &ss->list[ss->shown[j - 1]],
						  &ss->list[ss->shown[j]]) > 0; j--) {
			int t = ss->shown[j];

			ss->shown[j] = ss->shown[j - 1];
			ss->shown[j - 1] = t;
		}
	for (int k = 0; keep[0] && k < ss->nshown; k++)
		if (!strcmp(ss->list[ss->shown[k]].path, keep))
			ss->sel = k;
	if (ss->sel >= ss->nshown)
		ss->sel = ss->nshown > 0 ? ss->nshown - 1 : 0;
	if (ss->sel < 0)
		ss->sel = 0;
	bt_ss_remember_sel(a);
	a->dirty |= DIRTY_TABLE | DIRTY_HEADER;
}

void bt_ss_remember_sel(struct bt_app *a)
{
	struct bt_sessview *ss = &a->ss;

	ss->sel_path[0] = '\0';
	if (ss->nshown > 0 && ss->sel >= 0 && ss->sel < ss->nshown)
		snprintf(ss->sel_path, sizeof(ss->sel_path), "%s", ss->list[ss->shown[ss->sel]].path);
}

void bt_ss_set_search(struct bt_app *a, const char *text)
{
	snprintf(a->ss.search, sizeof(a->ss.search), "%s", text);
	apply_filter(a);
	if (text[0])
		bt_app_status(a, ROLE_NORMAL, "search '%s': %d of %d sessions (/ changes it, F clears)", text,
			      a->ss.nshown, a->ss.n);
	else
		bt_app_status(a, ROLE_NORMAL, "search off: %d sessions", a->ss.nshown);
}

void bt_ss_sort(struct bt_app *a, int col)
{
	a->ss.sort = col;
	apply_filter(a);
	bt_app_status(a, ROLE_NORMAL, "sorted by %s%s (s: the next column)", bt_ss_sort_names[col],
		      col == 0 ? ", newest first" : "");
}

/*
 * A recording that appears (or goes) changes the folder's mtime: the list
 * is read again, the selection and marks kept. Called about once a second
 * while the sessions screen shows; a stat, nothing more, when nothing changed.
 */
void bt_ss_poll(struct bt_app *a)
{
	struct stat st;
	uint64_t m;

	if (a->screen != SCR_SESSIONS || stat(a->ss.dir, &st) < 0)
		return;
	m = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
	if (m != a->ss.dir_mtime && a->ss.confirm < 0 && !a->ss.confirm_cmp)
		bt_ss_reload(a);
}

/* Read the directory again; marks are kept by path. */
void bt_ss_reload(struct bt_app *a)
{
	struct bt_sessview *ss = &a->ss;
	struct bt_session_info *list = NULL;
	struct bt_err err = { "" };
	unsigned char *marked;
	int *shown, n = 0;

	struct stat st;

	if (stat(ss->dir, &st) == 0)
		ss->dir_mtime = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
	if (bt_sessions_list(ss->dir, NULL, &list, &n, &err) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		return;
	}
	marked = calloc((size_t)n + 1, 1);
	shown = calloc((size_t)n + 1, sizeof(int));
	if (marked == NULL || shown == NULL) {
		free(list);
		free(marked);
		free(shown);
		bt_app_status(a, ROLE_ERROR, "out of memory");
		return;
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < ss->n; j++)
			if (ss->marked[j] && !strcmp(ss->list[j].path, list[i].path))
				marked[i] = 1;
	bt_ss_free(a);
	ss->list = list;
	ss->n = n;
	ss->marked = marked;
	ss->shown = shown;
	apply_filter(a);
}

void bt_ss_open(struct bt_app *a)
{
	struct bt_sessview *ss = &a->ss;

	if (a->running) {
		bt_app_status(a, ROLE_WARN, "a run is in progress: Esc stops it");
		return;
	}
	if (a->screen != SCR_SESSIONS && a->screen != SCR_REPLAY && a->screen != SCR_COMPARE)
		ss->back = a->screen;
	if (bt_rec_default_dir(ss->dir, sizeof(ss->dir)) < 0) {
		bt_app_status(a, ROLE_ERROR, "cannot find the sessions directory (set XDG_STATE_HOME or HOME)");
		return;
	}
	ss->confirm = -1;
	bt_ss_reload(a);
	a->screen = SCR_SESSIONS;
	a->dirty = DIRTY_ALL;
	bt_app_status(a, ROLE_DIM, "%d recorded session%s in %s", ss->n, ss->n == 1 ? "" : "s", ss->dir);
}

void bt_ss_set_filter(struct bt_app *a, const char *workload)
{
	snprintf(a->ss.filter, sizeof(a->ss.filter), "%s", workload);
	apply_filter(a);
	if (workload[0])
		bt_app_status(a, ROLE_NORMAL, "filter: workload %s (%d of %d sessions)", workload,
			      a->ss.nshown, a->ss.n);
	else
		bt_app_status(a, ROLE_NORMAL, "filter off: %d sessions", a->ss.n);
}

/* f: the next workload found in the list (sorted by name), then none. */
static void cycle_filter(struct bt_app *a)
{
	struct bt_sessview *ss = &a->ss;
	const char *next = NULL;

	for (int i = 0; i < ss->n; i++) {
		const char *w = ss->list[i].workload;

		if (!ss->list[i].readable || strcmp(w, ss->filter) <= 0)
			continue;
		if (next == NULL || strcmp(w, next) < 0)
			next = w;
	}
	bt_ss_set_filter(a, next ? next : "");
}

static const struct bt_session_info *selected(const struct bt_app *a)
{
	const struct bt_sessview *ss = &a->ss;

	if (ss->nshown == 0)
		return NULL;
	return &ss->list[ss->shown[ss->sel]];
}

/*
 * Is path a file directly inside dir (after resolving links in the
 * directory part)? Deleting never follows a name out of the listing.
 */
static int inside_dir(const char *path, const char *dir)
{
	char rd[PATH_MAX], rp[PATH_MAX], parent[4096];
	const char *slash = strrchr(path, '/');

	if (slash == NULL || slash[1] == '\0' || !strcmp(slash + 1, ".") || !strcmp(slash + 1, ".."))
		return 0;
	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
	if (realpath(dir, rd) == NULL || realpath(parent[0] ? parent : "/", rp) == NULL)
		return 0;
	return strcmp(rd, rp) == 0;
}

static void delete_confirmed(struct bt_app *a, int idx)
{
	struct bt_sessview *ss = &a->ss;
	char name[256];

	if (idx < 0 || idx >= ss->n)
		return;
	snprintf(name, sizeof(name), "%s", ss->list[idx].name);
	if (!inside_dir(ss->list[idx].path, ss->dir)) {
		bt_app_status(a, ROLE_ERROR, "%s is not in %s: not deleted", name, ss->dir);
		return;
	}
	if (a->rp.active && !strcmp(a->rp.path, ss->list[idx].path))
		bt_replay_free(a);
	if (unlink(ss->list[idx].path) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s: %s", ss->list[idx].path, strerror(errno));
		return;
	}
	ss->marked[idx] = 0;
	bt_ss_reload(a);
	bt_app_status(a, ROLE_GOOD, "deleted %s", name);
}

/*
 * R: the recording's plan into the workbench form (as the recording ran
 * it), and how this machine differs from the one that recorded it.
 */
static void rerun(struct bt_app *a, const struct bt_session_info *si)
{
	struct bt_results res;
	struct bt_err err = { "" };
	const struct bt_workload *wl;
	struct bt_sysinfo now;
	struct bt_plan np;
	char diff[2048], line[400];
	int w = -1, nd = 0;
	size_t o = 0;

	if (bt_rec_read(si->path, &res, &err) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		return;
	}
	wl = bt_workload_find(res.workload);
	for (size_t i = 0; wl != NULL && i < bt_nworkloads; i++)
		if (bt_workloads[i] == wl)
			w = (int)i;
	if (res.plan_json == NULL || w < 0) {
		bt_app_status(a, ROLE_ERROR, "%s: %s", si->name,
			      w < 0 ? "its workload is not in this benchtop" : "it carries no plan");
		bt_results_destroy(&res);
		return;
	}
	if (bt_run_plan_init(&np, wl, &err) < 0 ||
	    bt_plan_apply_json(&np, res.plan_json, si->name, &err) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s (the recorded plan)", err.msg);
		bt_plan_destroy(&np);
		bt_results_destroy(&res);
		return;
	}
	memset(&now, 0, sizeof(now));
	diff[0] = '\0';
	if (bt_sysinfo_collect(&now) == 0)
		nd = bt_sysinfo_diff(&res.machine, &now, diff, sizeof(diff));
	if (a->plan_ok[w])
		bt_plan_destroy(&a->plans[w]);
	a->plans[w] = np;
	a->plan_ok[w] = 1;
	bt_wb_select(a, w);
	a->focus = PANE_FORM;
	a->screen = SCR_WORKBENCH;
	a->dirty = DIRTY_ALL;
	if (nd <= 0) {
		bt_app_status(a, ROLE_GOOD, "loaded the plan of %s (%d cells); same machine; r runs it",
			      si->name, np.ncells);
	} else {
		/* The differing fields on one line: "field: recorded -> now; ...". */
		for (const char *p = diff; *p && o < sizeof(line) - 1;) {
			size_t k = strcspn(p, "\n");

			o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%.*s", o ? "; " : "", (int)k, p);
			p += k;
			if (*p == '\n')
				p++;
		}
		bt_app_status(a, ROLE_WARN, "plan loaded, r runs it; machine differs (%d): %s", nd, line);
	}
	bt_results_destroy(&res);
}

/*
 * c: the marked sessions compared, oldest first (A is the base). Recordings
 * of different workloads have no cells in common to speak of: that is asked
 * first (y/n), unless asked already (sure).
 */
static void compare_marked(struct bt_app *a, int sure)
{
	struct bt_sessview *ss = &a->ss;
	const char *paths[BT_CMP_MAX];
	const char *wl[BT_CMP_MAX];
	struct bt_err err = { "" };
	int n = 0, nm = 0, differ = 0;

	for (int i = ss->n - 1; i >= 0; i--) {
		if (!ss->marked[i])
			continue;
		nm++;
		if (n < BT_CMP_MAX) {
			wl[n] = ss->list[i].workload;
			differ |= n > 0 && strcmp(wl[n], wl[0]) != 0;
			paths[n++] = ss->list[i].path;
		}
	}
	if (nm < 2) {
		bt_app_status(a, ROLE_WARN, "mark two or more sessions with Space, then c compares them");
		return;
	}
	if (nm > BT_CMP_MAX) {
		bt_app_status(a, ROLE_WARN, "%d marked: at most %d can be compared", nm, BT_CMP_MAX);
		return;
	}
	if (differ && !sure) {
		char names[256];
		size_t o = 0;

		names[0] = '\0';
		for (int i = 0; i < n && o < sizeof(names); i++) {
			int seen = 0;

			for (int j = 0; j < i; j++)
				seen |= !strcmp(wl[j], wl[i]);
			if (!seen)
				o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", o ? ", " : "",
						      wl[i]);
		}
		ss->confirm_cmp = 1;
		bt_app_status(a, ROLE_WARN, "these are recordings of different workloads (%s): compare them anyway? y/n",
			      names);
		return;
	}
	if (bt_cv_open(a, paths, n, &err) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		return;
	}
}

int bt_ss_key(struct bt_app *a, int ch)
{
	struct bt_sessview *ss = &a->ss;
	const struct bt_session_info *si = selected(a);
	struct bt_err err = { "" };
	int page = a->rows - 9 > 1 ? a->rows - 9 : 1;

	if (ss->confirm_cmp) {
		ss->confirm_cmp = 0;
		a->dirty |= DIRTY_TABLE | DIRTY_FOOTER;
		if (ch == 'y' || ch == 'Y')
			compare_marked(a, 1);
		else
			bt_app_status(a, ROLE_NORMAL, "not compared");
		return 1;
	}
	if (ss->confirm >= 0) {
		int idx = ss->confirm;

		ss->confirm = -1;
		if (ch == 'y' || ch == 'Y')
			delete_confirmed(a, idx);
		else
			bt_app_status(a, ROLE_NORMAL, "kept %s", ss->list[idx].name);
		a->dirty |= DIRTY_TABLE;
		return 1;
	}
	switch (ch) {
	case KEY_UP:
	case 'k':
		if (ss->sel > 0)
			ss->sel--;
		break;
	case KEY_DOWN:
	case 'j':
		if (ss->sel < ss->nshown - 1)
			ss->sel++;
		break;
	case KEY_PPAGE:
		ss->sel = ss->sel > page ? ss->sel - page : 0;
		break;
	case KEY_NPAGE:
		ss->sel = ss->sel + page < ss->nshown ? ss->sel + page : (ss->nshown ? ss->nshown - 1 : 0);
		break;
	case KEY_HOME:
	case 'g':
		ss->sel = 0;
		break;
	case KEY_END:
	case 'G':
		ss->sel = ss->nshown ? ss->nshown - 1 : 0;
		break;
	case ' ':
		if (si == NULL)
			return 1;
		ss->marked[ss->shown[ss->sel]] ^= 1;
		if (ss->sel < ss->nshown - 1)
			ss->sel++;
		break;
	case 'f':
		cycle_filter(a);
		break;
	case 'F':
		a->ss.search[0] = '\0';
		bt_ss_set_filter(a, "");
		break;
	case 's':
		bt_ss_sort(a, (ss->sort + 1) % 6);
		break;
	case KEY_F(5):
		bt_ss_reload(a);
		bt_app_status(a, ROLE_DIM, "%d recorded sessions in %s", ss->n, ss->dir);
		break;
	case 'd':
	case KEY_DC:
		if (si == NULL)
			return 1;
		ss->confirm = ss->shown[ss->sel];
		bt_app_status(a, ROLE_WARN, "delete %s? y/n", si->name);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (si == NULL)
			return 1;
		if (bt_replay_open(a, si->path, &err) < 0)
			bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		return 1;
	case 'R':
		if (si != NULL)
			rerun(a, si);
		return 1;
	case 'c':
		compare_marked(a, 0);
		return 1;
	default:
		return 0;
	}
	a->dirty |= DIRTY_TABLE;
	return 1;
}

/* --- drawing ------------------------------------------------------------- */

/* The column widths (workload, plan, host; 0: no host column) and the heads line for width inw. */
static void columns(const struct bt_sessview *ss, int inw, int *ww_, int *wa_, int *wh_, char *head,
		    size_t n)
{
	int ww = 8, wh = 4, wa;

	for (int k = 0; k < ss->nshown; k++) {
		const struct bt_session_info *s = &ss->list[ss->shown[k]];
		int l1 = s->readable ? (int)strlen(s->workload) : 1;
		int l2 = s->readable ? (int)strlen(s->host) : 1;

		if (l1 > ww)
			ww = l1;
		if (l2 > wh)
			wh = l2;
	}
	if (ww > 12)
		ww = 12;
	if (wh > 12)
		wh = 12;
	/* mark(2) time(20) workload plan cells(5) status(11) host, one blank between */
	wa = inw - 2 - 20 - 1 - ww - 1 - 1 - 5 - 1 - 11 - 1 - wh;
	if (wa < 8) {
		wh = 0;
		wa = inw - 2 - 20 - 1 - ww - 1 - 1 - 5 - 1 - 11;
	}
	snprintf(head, n, "  %-20s %-*s %-*s %5s %-11s %s", "TIME", ww, "WORKLOAD", wa, "PLAN", "CELLS",
		 "STATUS", wh ? "HOST" : "");
	*ww_ = ww;
	*wa_ = wa;
	*wh_ = wh;
}

int bt_ss_click(struct bt_app *a, struct bt_rect area, int y, int x)
{
	struct bt_sessview *ss = &a->ss;
	struct bt_rect in = { area.y + 1, area.x + 1, area.h - 2, area.w - 2 };
	int rows = in.h - 3, scroll = ss->sel >= rows ? ss->sel - rows + 1 : 0, k;

	if (in.h < 4 || in.w < 40 || ss->confirm >= 0 || ss->confirm_cmp)
		return 0;
	if (y == in.y) {
		static const char *const heads[] = { "TIME", "WORKLOAD", "PLAN", "CELLS", "STATUS", "HOST" };
		char line[512];
		int col = -1, ww, wa, wh;

		/* Which head word is under x: the last one that starts at or before it. */
		columns(ss, in.w, &ww, &wa, &wh, line, sizeof(line));
		for (int h = 0; h < 6; h++) {
			const char *at = strstr(line, heads[h]);

			if (at != NULL && in.x + (int)(at - line) <= x)
				col = h;
		}
		if (col >= 0)
			bt_ss_sort(a, col);
		return col >= 0;
	}
	k = scroll + y - in.y - 1;
	if (y <= in.y || y - in.y - 1 >= rows || k >= ss->nshown)
		return 0;
	ss->sel = k;
	bt_ss_remember_sel(a);
	a->dirty |= DIRTY_TABLE;
	return 1;
}

static enum bt_role status_role(const struct bt_session_info *s)
{
	if (!s->readable)
		return ROLE_DIM;
	if (!strcmp(s->status, "complete"))
		return ROLE_GOOD;
	if (!strcmp(s->status, "failed"))
		return ROLE_BAD;
	return ROLE_WARN;
}

void bt_ss_draw(WINDOW *w, const struct bt_app *a, unsigned dirty, struct bt_rect area)
{
	const struct bt_sessview *ss = &a->ss;
	struct bt_rect in;
	char title[256], head[512];
	int ww, wh, wa, rows, scroll;
	int nmarked = 0;

	if (!(dirty & DIRTY_TABLE))
		return;
	for (int i = 0; i < ss->n; i++)
		nmarked += ss->marked[i];
	bt_app_clear(w, area);
	if (ss->filter[0] || ss->search[0])
		snprintf(title, sizeof(title), "Sessions: %d of %d, %s%s%s%s%s%s, %d marked", ss->nshown,
			 ss->n, ss->filter[0] ? "workload " : "", ss->filter,
			 ss->filter[0] && ss->search[0] ? ", " : "", ss->search[0] ? "search '" : "",
			 ss->search, ss->search[0] ? "'" : "", nmarked);
	else
		snprintf(title, sizeof(title), "Sessions: %d, %d marked", ss->n, nmarked);
	if (ss->sort)
		snprintf(title + strlen(title), sizeof(title) - strlen(title), ", by %s",
			 bt_ss_sort_names[ss->sort]);
	in = bt_box_draw(w, area, title, 1, a->utf8);
	if (in.h < 4 || in.w < 40)
		return;
	columns(ss, in.w, &ww, &wa, &wh, head, sizeof(head));
	bt_app_put(w, in.y, in.x, in.w, ROLE_LABEL, head);
	rows = in.h - 3;
	scroll = ss->sel >= rows ? ss->sel - rows + 1 : 0;
	if (ss->nshown == 0)
		bt_app_put(w, in.y + 1, in.x + 2, in.w - 2, ROLE_DIM,
			   ss->n ? "no session of this workload (F clears the filter)" :
			   "no recorded sessions yet: every run is recorded here");
	for (int k = 0; k + scroll < ss->nshown && k < rows; k++) {
		int i = ss->shown[k + scroll], y = in.y + 1 + k;
		const struct bt_session_info *s = &ss->list[i];
		int sel = k + scroll == ss->sel;
		char when[32], cells[16], line[512], plan[520];

		bt_format_utc(s->start_unix_ns, when, sizeof(when));
		if (!s->readable)
			snprintf(cells, sizeof(cells), "-");
		else if (s->cells_done < 0)
			snprintf(cells, sizeof(cells), "?/%d", s->ncells);
		else
			snprintf(cells, sizeof(cells), "%d/%d", s->cells_done, s->ncells);
		snprintf(line, sizeof(line), "%c %-20s %-*.*s %-*.*s %5s ", ss->marked[i] ? '*' : ' ',
			 when, ww, ww, s->readable ? s->workload : "-", wa, wa,
			 bt_sessions_plan_text(s, plan, sizeof(plan)), cells);
		if (sel)
			bt_rect_fill(w, (struct bt_rect){ y, in.x, 1, in.w }, bt_role_attr(ROLE_SELECT));
		bt_app_put(w, y, in.x, in.w, sel ? ROLE_SELECT : ROLE_NORMAL, line);
		{
			int x = in.x + (int)strlen(line);

			bt_app_putf(w, y, x, in.x + in.w - x, sel ? ROLE_SELECT : status_role(s), "%-11.11s",
				    s->readable ? s->status : "unreadable");
			if (wh)
				bt_app_putf(w, y, x + 12, in.x + in.w - x - 12, sel ? ROLE_SELECT : ROLE_DIM,
					    "%.*s", wh, s->readable && s->host[0] ? s->host : "-");
		}
	}
	/* The selected session in full under the list. */
	{
		const struct bt_session_info *s = selected(a);
		int y = in.y + in.h - 2;

		bt_rect_fill(w, (struct bt_rect){ y, in.x, 2, in.w }, bt_role_attr(ROLE_NORMAL));
		if (s == NULL)
			return;
		bt_app_putf(w, y, in.x, in.w, ROLE_VALUE, "%s  %.1f KiB  %s%s", s->name,
			    (double)s->size / 1024.0, s->readable ? "benchtop " : "", s->version);
		if (!s->readable || s->error[0])
			bt_app_putf(w, y + 1, in.x, in.w, s->readable ? ROLE_WARN : ROLE_ERROR, "%s",
				    s->error);
		else
			bt_app_putf(w, y + 1, in.x, in.w, ROLE_DIM, "%s", ss->dir);
	}
}
