/*
 * workbench.c - the workbench screen's workload list and side pane
 * (what the workload is, what the sweep will be, the machine's topology and
 * where each pin policy puts the workers), and plan files.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "core/which.h"
#include "tui/app.h"
#include "tui/doctor_panel.h"
#include "workloads/registry.h"

static const char *const group_order[] = {
	"threads", "crypto", "kv", "files", "events", "harness", NULL
};

/* Is group g one of the known ones (listed above)? */
static int known_group(const char *g)
{
	for (int i = 0; group_order[i]; i++)
		if (!strcmp(group_order[i], g))
			return 1;
	return 0;
}

static void add_group(struct bt_app *a, const char *g)
{
	int first = 1;

	for (size_t w = 0; w < bt_nworkloads && a->nitems < BT_LIST_MAX - 1; w++) {
		if (strcmp(bt_workloads[w]->group ? bt_workloads[w]->group : "other", g))
			continue;
		if (first)
			a->items[a->nitems++] = (struct bt_list_item){ g, -1 };
		first = 0;
		a->items[a->nitems++] = (struct bt_list_item){ NULL, (int)w };
	}
}

/* Build the grouped list, allocate the per-workload plans, select pipeline. */
void bt_wb_init(struct bt_app *a)
{
	const struct bt_workload *pipe = bt_workload_find("pipeline");
	struct bt_err err = { "" };

	a->nitems = 0;
	for (int i = 0; group_order[i]; i++)
		add_group(a, group_order[i]);
	/* Groups this file does not know yet, in registry order. */
	for (size_t w = 0; w < bt_nworkloads; w++) {
		const char *g = bt_workloads[w]->group ? bt_workloads[w]->group : "other";
		int seen = 0;

		for (int i = 0; i < a->nitems; i++)
			if (a->items[i].wl < 0 && !strcmp(a->items[i].group, g))
				seen = 1;
		if (!seen && !known_group(g))
			add_group(a, g);
	}
	a->plans = calloc(bt_nworkloads, sizeof(*a->plans));
	a->plan_ok = calloc(bt_nworkloads, sizeof(*a->plan_ok));
	if (bt_topo_load(&a->topo, &err) == 0) {
		a->have_topo = 1;
		bt_topo_describe(&a->topo, a->topo_desc, sizeof(a->topo_desc));
	} else {
		snprintf(a->topo_desc, sizeof(a->topo_desc), "topology: %s", err.msg);
	}
	(void)bt_doctor_panel_model();	/* read the machine now, not while drawing */
	a->wl_sel = 0;
	for (size_t w = 0; w < bt_nworkloads; w++)
		if (bt_workloads[w] == pipe)
			a->wl_sel = (int)w;
	bt_wb_select(a, a->wl_sel);
	a->focus = PANE_FORM;
}

void bt_wb_destroy(struct bt_app *a)
{
	for (size_t w = 0; a->plans && w < bt_nworkloads; w++)
		if (a->plan_ok[w])
			bt_plan_destroy(&a->plans[w]);
	free(a->plans);
	free(a->plan_ok);
	free(a->form.checked);
	a->form.checked = NULL;
	if (a->have_topo)
		bt_topo_destroy(&a->topo);
	bt_wb_plans_close(a);
}

/*
 * "servers: memcached installed, redis-server missing" for a workload that
 * can spawn servers, looked up once here (PATH, then /usr/sbin, where
 * Debian puts daemons) so that drawing only reads it.
 */
static void servers_line(const struct bt_workload *wl, char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; wl->servers != NULL && wl->servers[i] != NULL && o < n; i++) {
		char sbin[128];
		int have;

		snprintf(sbin, sizeof(sbin), "/usr/sbin/%s", wl->servers[i]);
		have = bt_which(wl->servers[i], NULL, 0) == 0 || access(sbin, X_OK) == 0;
		o += (size_t)snprintf(buf + o, n - o, "%s%s %s", i ? ", " : "servers: ", wl->servers[i],
				      have ? "installed" : "missing");
	}
}

void bt_wb_select(struct bt_app *a, int wl)
{
	a->wl_sel = wl;
	servers_line(bt_workloads[wl], a->wl_servers, sizeof(a->wl_servers));
	free(a->form.checked);
	memset(&a->form, 0, sizeof(a->form));
	a->form.err_field = -1;
	if (bt_form_plan(a) != NULL)
		bt_form_focus_flag(a, BT_PF_WORKERS);
	if (bt_workloads[wl]->unavailable && bt_workloads[wl]->unavailable())
		bt_app_status(a, ROLE_WARN, "%s is unavailable: %s", bt_workloads[wl]->name,
			      bt_workloads[wl]->unavailable());
	a->dirty |= DIRTY_LIST | DIRTY_FORM | DIRTY_SIDE | DIRTY_HEADER | DIRTY_FOOTER;
}

/* Move the list selection by dir workloads, skipping group headings. */
static void list_move(struct bt_app *a, int dir)
{
	int cur = 0;

	for (int i = 0; i < a->nitems; i++)
		if (a->items[i].wl == a->wl_sel)
			cur = i;
	for (int i = cur + dir; i >= 0 && i < a->nitems; i += dir) {
		if (a->items[i].wl >= 0) {
			bt_wb_select(a, a->items[i].wl);
			return;
		}
	}
}

int bt_wb_key(struct bt_app *a, int ch)
{
	if (ch == '\t' || ch == KEY_BTAB) {
		a->focus = a->focus == PANE_LIST ? PANE_FORM : PANE_LIST;
		a->dirty |= DIRTY_LIST | DIRTY_FORM | DIRTY_FOOTER;
		return 1;
	}
	if (a->focus == PANE_FORM) {
		if (bt_form_key(a, ch))
			return 1;
		if (ch == 27 && a->form.err[0]) {
			a->form.err[0] = '\0';
			a->dirty |= DIRTY_FORM;
			return 1;
		}
		return 0;
	}
	switch (ch) {
	case KEY_UP:
	case 'k':
		list_move(a, -1);
		return 1;
	case KEY_DOWN:
	case 'j':
		list_move(a, 1);
		return 1;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case KEY_RIGHT:
	case 'l':
		a->focus = PANE_FORM;
		a->dirty |= DIRTY_LIST | DIRTY_FORM | DIRTY_FOOTER;
		return 1;
	default:
		return 0;
	}
}

int bt_wb_click_list(struct bt_app *a, struct bt_rect r, int y)
{
	struct bt_rect in = { r.y + 1, r.x + 1, r.h - 2, r.w - 2 };
	int sel = 0, first = 0, i;

	if (in.h <= 0 || y < in.y || y >= in.y + in.h)
		return 0;
	/* The rows as bt_wb_draw_list lays them out. */
	for (i = 0; i < a->nitems; i++)
		if (a->items[i].wl == a->wl_sel)
			sel = i;
	if (sel >= in.h)
		first = sel - in.h + 1;
	i = first + y - in.y;
	a->focus = PANE_LIST;
	a->dirty |= DIRTY_LIST | DIRTY_FORM | DIRTY_FOOTER;
	if (i < a->nitems && a->items[i].wl >= 0 && a->items[i].wl != a->wl_sel)
		bt_wb_select(a, a->items[i].wl);
	return 1;
}

void bt_wb_draw_list(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	struct bt_rect in;
	int sel = 0, first = 0;

	bt_app_clear(w, r);
	in = bt_box_draw(w, r, "Workloads", a->focus == PANE_LIST, a->utf8);
	if (in.h <= 0 || in.w <= 0)
		return;
	for (int i = 0; i < a->nitems; i++)
		if (a->items[i].wl == a->wl_sel)
			sel = i;
	if (sel >= in.h)
		first = sel - in.h + 1;
	for (int i = first; i < a->nitems && i - first < in.h; i++) {
		const struct bt_list_item *it = &a->items[i];
		int y = in.y + i - first;

		if (it->wl < 0) {
			bt_app_put(w, y, in.x, in.w, ROLE_TITLE, it->group);
		} else {
			const struct bt_workload *wl = bt_workloads[it->wl];
			const char *why = wl->unavailable ? wl->unavailable() : NULL;
			enum bt_role role = why ? ROLE_DIM : ROLE_NORMAL;

			if (it->wl == a->wl_sel)
				role = ROLE_SELECT;
			bt_app_putf(w, y, in.x, in.w, role, " %-*s", in.w - 1, wl->name);
			if (why && in.w >= 6 + (int)strlen(wl->name))
				bt_app_put(w, y, in.x + in.w - 4, 4, it->wl == a->wl_sel ? ROLE_SELECT : ROLE_DIM,
					   " n/a");
		}
	}
}

/* Print text wrapped into the rect starting at line *y; advances *y. */
static void put_wrapped(WINDOW *w, struct bt_rect in, int *y, enum bt_role role, const char *text)
{
	int len = (int)strlen(text);

	while (len > 0 && *y < in.y + in.h) {
		int take = len <= in.w ? len : in.w;

		if (take < len) {
			int sp = take;

			while (sp > in.w / 2 && text[sp] != ' ')
				sp--;
			if (text[sp] == ' ')
				take = sp;
		}
		bt_app_putf(w, (*y)++, in.x, in.w, role, "%.*s", take, text);
		text += take;
		len -= take;
		while (*text == ' ') {
			text++;
			len--;
		}
	}
}

void bt_wb_draw_side(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	const struct bt_workload *wl = bt_workloads[a->wl_sel];
	const char *why = wl->unavailable ? wl->unavailable() : NULL;
	const struct bt_plan *pl = a->plan_ok[a->wl_sel] ? &a->plans[a->wl_sel] : NULL;
	char buf[512], pinl[12][160];
	struct bt_rect in;
	int y, npin;

	bt_app_clear(w, r);
	in = bt_box_draw(w, r, "Sweep and machine", 0, a->utf8);
	if (in.h <= 0 || in.w <= 4)
		return;
	y = in.y;
	snprintf(buf, sizeof(buf), "%s: %s", wl->name, wl->title ? wl->title : "");
	put_wrapped(w, in, &y, ROLE_NORMAL, buf);
	if (why) {
		snprintf(buf, sizeof(buf), "unavailable: %s", why);
		put_wrapped(w, in, &y, ROLE_ERROR, buf);
	}
	snprintf(buf, sizeof(buf), "counted in %s; latency = %s", wl->unit ? wl->unit : "?",
		 wl->lat_what ? wl->lat_what : "per op");
	put_wrapped(w, in, &y, ROLE_DIM, buf);
	if (a->wl_servers[0])
		put_wrapped(w, in, &y, ROLE_DIM, a->wl_servers);
	if (pl != NULL && y < in.y + in.h) {
		int reps = (int)pl->vals[bt_plan_index(pl, "reps")][0].i;
		int warm = (int)pl->vals[bt_plan_index(pl, "warmup")][0].i;

		y++;
		snprintf(buf, sizeof(buf), "%d cell%s x (%d warmup + %d reps) = %d runs", pl->ncells,
			 pl->ncells == 1 ? "" : "s", warm, reps, pl->ncells * (warm + reps));
		put_wrapped(w, in, &y, ROLE_LABEL, buf);
		for (int ax = 0; ax < pl->naxes && y < in.y + in.h; ax++) {
			int pi = pl->axes[ax];
			size_t o = (size_t)snprintf(buf, sizeof(buf), "  %s:", pl->params[pi]->name);

			for (int v = 0; v < pl->nvals[pi] && o < sizeof(buf); v++)
				o += (size_t)snprintf(buf + o, sizeof(buf) - o, " %s", pl->vals[pi][v].text);
			put_wrapped(w, in, &y, ROLE_VALUE, buf);
		}
		if (wl->stop_default == NULL) {
			snprintf(buf, sizeof(buf), "each run does a fixed amount of work");
		} else {
			const struct bt_value *d = &pl->vals[bt_plan_index(pl, "duration")][0];
			const struct bt_value *o = &pl->vals[bt_plan_index(pl, "ops")][0];

			if (d->i)
				snprintf(buf, sizeof(buf), "each run lasts %s", d->text);
			else if (o->i)
				snprintf(buf, sizeof(buf), "each run does %s ops", o->text);
			else
				snprintf(buf, sizeof(buf), "each run: %s (default)", wl->stop_default);
		}
		put_wrapped(w, in, &y, ROLE_DIM, buf);
	}
	if (y + 2 < in.y + in.h) {
		y++;
		bt_app_put(w, y++, in.x, in.w, ROLE_TITLE, "Topology and pinning");
		npin = bt_form_pin_lines(a, pinl, in.y + in.h - y > 12 ? 12 : in.y + in.h - y, in.w);
		for (int i = 0; i < npin && y < in.y + in.h; i++)
			put_wrapped(w, in, &y, i == 0 ? ROLE_LABEL : ROLE_NORMAL, pinl[i]);
	}
	if (y + 2 < in.y + in.h)
		y = bt_doctor_panel_draw(w, in, y + 1, bt_doctor_panel_model());
	if (a->res != NULL && y + 2 < in.y + in.h) {
		y++;
		snprintf(buf, sizeof(buf), "last run: %s %s; v shows its results", a->res->workload,
			 a->res->status);
		put_wrapped(w, in, &y, ROLE_DIM, buf);
	}
}

/* --- plan files ---------------------------------------------------------- */

int bt_wb_plans_dir(const struct bt_app *a, char *buf, size_t n)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int k;

	if (a->plan_dir[0])
		k = snprintf(buf, n, "%s", a->plan_dir);
	else if (xdg && *xdg)
		k = snprintf(buf, n, "%s/benchtop/plans", xdg);
	else if (home && *home)
		k = snprintf(buf, n, "%s/.config/benchtop/plans", home);
	else
		k = snprintf(buf, n, ".");
	return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

/* Remember path's folder as the plans folder (settings: plan_dir). */
static void remember_dir(struct bt_app *a, const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		snprintf(a->plan_dir, sizeof(a->plan_dir), ".");
	else if (slash == path)
		snprintf(a->plan_dir, sizeof(a->plan_dir), "/");
	else
		snprintf(a->plan_dir, sizeof(a->plan_dir), "%.*s", (int)(slash - path), path);
}

/* mkdir -p the folder of path (the plans folder may not exist yet). */
static void make_parent(const char *path)
{
	char tmp[4096];
	char *slash;

	snprintf(tmp, sizeof(tmp), "%s", path);
	slash = strrchr(tmp, '/');
	if (slash == NULL || slash == tmp)
		return;
	*slash = '\0';
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(tmp, 0755);
		*p = '/';
	}
	mkdir(tmp, 0755);
}

/*
 * S, once the prompt gave a path: an existing file is replaced only after
 * y (a->overwrite holds the path meanwhile); bt_plan_save writes through
 * bt_file_out, so a symlink or FIFO in the way is refused, never followed.
 */
void bt_wb_save_plan(struct bt_app *a, const char *path, int sure)
{
	struct bt_plan *pl = bt_form_plan(a);
	struct bt_err err = { "" };
	struct stat st;

	if (pl == NULL)
		return;
	if (!sure && lstat(path, &st) == 0) {
		snprintf(a->overwrite, sizeof(a->overwrite), "%s", path);
		bt_app_status(a, ROLE_WARN, "%s exists: replace it? y/n", path);
		a->dirty |= DIRTY_FOOTER;
		return;
	}
	make_parent(path);
	if (bt_plan_save(pl, path, &err) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		return;
	}
	remember_dir(a, path);
	bt_app_status(a, ROLE_GOOD, "plan saved to %s (benchtop run --plan %s)", path, path);
}

static int by_name(const void *pa, const void *pb)
{
	return strcmp(*(char *const *)pa, *(char *const *)pb);
}

void bt_wb_plans_close(struct bt_app *a)
{
	for (int i = 0; i < a->nplan_files; i++)
		free(a->plan_files[i]);
	free(a->plan_files);
	a->plan_files = NULL;
	a->nplan_files = a->plan_sel = 0;
	a->plan_list = 0;
	a->dirty = DIRTY_ALL;
}

/*
 * L: the *.json files of the plans folder, by name. Returns the count (0:
 * none, or no such folder; the caller then asks for a path).
 */
int bt_wb_plans_open(struct bt_app *a)
{
	char dir[4096];
	struct dirent *de;
	DIR *d;

	bt_wb_plans_close(a);
	if (bt_wb_plans_dir(a, dir, sizeof(dir)) < 0 || (d = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		char **nf;

		if (de->d_name[0] == '.' || len < 6 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		nf = realloc(a->plan_files, sizeof(*nf) * (size_t)(a->nplan_files + 1));
		if (nf == NULL)
			break;
		a->plan_files = nf;
		if ((nf[a->nplan_files] = strdup(de->d_name)) == NULL)
			break;
		a->nplan_files++;
	}
	closedir(d);
	if (a->nplan_files == 0)
		return 0;
	qsort(a->plan_files, (size_t)a->nplan_files, sizeof(*a->plan_files), by_name);
	a->plan_list = 1;
	a->dirty |= DIRTY_FORM | DIRTY_FOOTER;
	return a->nplan_files;
}

int bt_wb_plans_key(struct bt_app *a, int ch)
{
	char dir[4096], path[8192];

	a->dirty |= DIRTY_FORM;
	switch (ch) {
	case KEY_UP:
	case 'k':
		if (a->plan_sel > 0)
			a->plan_sel--;
		return 1;
	case KEY_DOWN:
	case 'j':
		if (a->plan_sel < a->nplan_files - 1)
			a->plan_sel++;
		return 1;
	case '\n':
	case '\r':
	case KEY_ENTER:
		bt_wb_plans_dir(a, dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/%s", dir, a->plan_files[a->plan_sel]);
		bt_wb_plans_close(a);
		bt_wb_load_plan(a, path);
		return 1;
	case 27:
		bt_wb_plans_close(a);
		return 1;
	default:
		return 0;
	}
}

void bt_wb_draw_plans(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	char dir[4096], title[160];
	struct bt_rect box, in;
	int maxw = 24, first;

	bt_wb_plans_dir(a, dir, sizeof(dir));
	for (int i = 0; i < a->nplan_files; i++)
		if ((int)strlen(a->plan_files[i]) > maxw)
			maxw = (int)strlen(a->plan_files[i]);
	snprintf(title, sizeof(title), "Plans in %s", dir);
	box.w = maxw + 6 > 48 ? maxw + 6 : 48;
	if (box.w > r.w)
		box.w = r.w;
	box.h = a->nplan_files + 3 < r.h - 2 ? a->nplan_files + 3 : r.h - 2;
	box.y = r.y + 2;
	box.x = r.x + (r.w - box.w) / 2;
	bt_app_clear(w, box);
	in = bt_box_draw(w, box, title, 1, a->utf8);
	if (in.h < 2)
		return;
	first = a->plan_sel >= in.h - 1 ? a->plan_sel - (in.h - 2) : 0;
	for (int i = first; i < a->nplan_files && i - first < in.h - 1; i++)
		bt_app_putf(w, in.y + i - first, in.x, in.w, i == a->plan_sel ? ROLE_SELECT : ROLE_NORMAL,
			    " %-*s", in.w - 1, a->plan_files[i]);
	bt_app_put(w, in.y + in.h - 1, in.x, in.w, ROLE_DIM, "Enter loads, p types a path, Esc");
}

void bt_wb_load_plan(struct bt_app *a, const char *path)
{
	char name[64];
	const struct bt_workload *wl;
	struct bt_plan np;
	struct bt_err err = { "" };
	int w = -1;

	if (bt_plan_file_workload(path, name, sizeof(name), &err) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		return;
	}
	wl = bt_workload_find(name);
	for (size_t i = 0; i < bt_nworkloads; i++)
		if (bt_workloads[i] == wl)
			w = (int)i;
	if (w < 0) {
		bt_app_status(a, ROLE_ERROR, "%s: workload %s is not in this benchtop", path, name);
		return;
	}
	if (bt_run_plan_init(&np, wl, &err) < 0 || bt_plan_load(&np, path, &err) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		bt_plan_destroy(&np);	/* bt_plan_init zeroed it first */
		return;
	}
	if (a->plan_ok[w])
		bt_plan_destroy(&a->plans[w]);
	a->plans[w] = np;
	a->plan_ok[w] = 1;
	bt_wb_select(a, w);
	remember_dir(a, path);
	bt_app_status(a, ROLE_GOOD, "plan loaded from %s: %s, %d cell%s", path, name, np.ncells,
		      np.ncells == 1 ? "" : "s");
}
