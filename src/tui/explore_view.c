/*
 * explore_view.c - explore mode on the workbench (x): one open-ended run of
 * the form's settings whose knobs the user turns while the chart answers.
 *
 * The explore is driven only through its API (engines/explore.h): the tick
 * takes a snapshot and, under bt_explore_lock for as short as it can,
 * copies the samples and changes it has not seen into this view's model;
 * the keys ask for changes, which the engine applies at its next sample.
 * The screen looks like the live view: a line saying where it is, the
 * throughput chart (scrolling over the last 30 s; z widens it), each
 * segment in its own colour and each change a labelled vertical line, then
 * the running segment's latency histogram, the running workers' ops and the
 * CPU. q or Esc ends it at the next sample and opens the results of the
 * segments; s puts the values visited into the form as a sweep and asks
 * where to save it (the workbench's S).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/recording.h"
#include "core/units.h"
#include "front/front.h"
#include "tui/app.h"
#include "workloads/registry.h"

/* The chart's spans, z cycles them (0: since the start). */
static const double windows[] = { 30, 120, 0 };

void bt_xv_free(struct bt_app *a)
{
	struct bt_xview *v = &a->xv;

	if (v->x != NULL) {
		if (a->res == bt_explore_results(v->x)) {
			bt_resview_free(a);
			a->res = NULL;
		}
		bt_explore_free(v->x);
	}
	bt_live_series_free(v->series, v->nseg);
	free(v->labels);
	free(v->mark_x);
	free(v->mark_labels);
	bt_hist_free(v->hist);
	bt_plan_destroy(&v->plan);
	memset(v, 0, sizeof(*v));
}

void bt_xv_abort(struct bt_app *a)
{
	if (!a->xv.active)
		return;
	bt_explore_stop(a->xv.x);
	bt_explore_wait(a->xv.x);
	a->xv.active = 0;
}

/* The fixed values that stay fixed: the plan's, less the live parameters. */
static void fixed_text(const struct bt_plan *pl, char *buf, size_t n)
{
	char all[512], *save = NULL;
	size_t o = 0;

	bt_plan_fixed(pl, all, sizeof(all));
	buf[0] = '\0';
	for (char *tok = strtok_r(all, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save)) {
		char key[64];
		const char *eq = strchr(tok, '=');
		int pi, k;

		snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - tok) : (int)strlen(tok), tok);
		pi = bt_plan_index(pl, key);
		if (pi >= 0 && (pl->params[pi]->flags & BT_PF_LIVE))
			continue;
		k = snprintf(buf + o, n - o, "%s%s", o ? " " : "", tok);
		if (k < 0 || (size_t)k >= n - o) {
			buf[o] = '\0';
			break;
		}
		o += (size_t)k;
	}
}

void bt_xv_start(struct bt_app *a)
{
	const struct bt_workload *wl = bt_workloads[a->wl_sel];
	struct bt_xview *v = &a->xv;
	struct bt_front_base base = { .origin = "plan" };
	struct bt_plan pl, *form = bt_form_plan(a);
	struct bt_explore *x = NULL;
	struct bt_err err = { "" };
	char path[4096], swept[256], *json;
	int rc;

	if (a->running || v->active) {
		bt_app_status(a, ROLE_WARN, "a run is in progress: Esc stops it first");
		return;
	}
	if (form == NULL || (json = bt_plan_to_json(form)) == NULL)
		return;
	base.json = json;
	rc = bt_front_plan(&pl, wl, &base, NULL, 0, NULL, &err);
	free(json);
	if (rc < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		return;
	}
	/* A sweep in the form: explore starts from each swept setting's first value. */
	swept[0] = '\0';
	while (pl.naxes > 0) {
		int pi = pl.axes[0];
		char first[BT_VALUE_TEXT];
		size_t o = strlen(swept);

		snprintf(first, sizeof(first), "%s", pl.vals[pi][0].text);
		snprintf(swept + o, sizeof(swept) - o, "%s%s=%s", o ? " " : "", pl.params[pi]->name,
			 first);
		if (bt_plan_set(&pl, pl.params[pi]->name, first, &err) < 0)
			break;
	}
	if (bt_explore_check(wl, &pl, &err) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		bt_plan_destroy(&pl);
		return;
	}
	if (bt_front_record_path(path, sizeof(path), wl->name, &err) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		bt_plan_destroy(&pl);
		return;
	}
	if (bt_explore_start(&x, wl, &pl, path, &err) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		bt_rec_unreserve(path);
		bt_plan_destroy(&pl);
		return;
	}
	bt_xv_free(a);		/* the last explore's, results included */
	v->x = x;
	v->active = 1;
	v->wl = a->wl_sel;
	v->plan = pl;
	v->hist = bt_hist_new();
	v->hist_seg = -1;
	v->window = windows[0];
	v->workers = -1;
	snprintf(v->record_path, sizeof(v->record_path), "%s", path);
	snprintf(v->unit, sizeof(v->unit), "%s", wl->unit);
	fixed_text(&pl, v->fixed, sizeof(v->fixed));
	/* The live parameters, the workload's first (the order the settings are written in). */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < pl.nparams && v->nlive < BT_XV_LIVE; i++) {
			const struct bt_param *p = pl.params[i];

			if ((i >= (int)bt_common_nparams) != (pass == 0) || !(p->flags & BT_PF_LIVE))
				continue;
			if ((p->flags & BT_PF_WORKERS) && v->workers < 0)
				v->workers = i;
			v->live[v->nlive++] = i;
		}
	a->run_wl = a->wl_sel;
	a->screen = SCR_EXPLORE;
	a->dirty = DIRTY_ALL;
	if (swept[0])
		bt_app_status(a, ROLE_NORMAL, "exploring from %s (the first of each swept value); c changes a setting, q ends",
			      swept);
	else if (v->workers >= 0)
		bt_app_status(a, ROLE_NORMAL, "exploring: + - or a number set %s, c changes a setting, s saves the sweep, q ends",
			      pl.params[v->workers]->name);
	else
		bt_app_status(a, ROLE_NORMAL, "exploring: c changes a setting, s saves the sweep, q ends");
}

/* --- the model ---------------------------------------------------------- */

/* Room for n segments' series and labels. */
static int grow_segments(struct bt_xview *v, int n)
{
	struct bt_live_series *s;
	char (*l)[64];

	if (n <= v->nseg)
		return 0;
	s = realloc(v->series, sizeof(*s) * (size_t)n);
	if (s == NULL)
		return -ENOMEM;
	v->series = s;
	l = realloc(v->labels, sizeof(*l) * (size_t)n);
	if (l == NULL)
		return -ENOMEM;
	v->labels = l;
	memset(v->series + v->nseg, 0, sizeof(*s) * (size_t)(n - v->nseg));
	memset(v->labels + v->nseg, 0, sizeof(*l) * (size_t)(n - v->nseg));
	v->nseg = n;
	return 0;
}

/*
 * Copy what is new: samples become points at their segment's start plus
 * their time in it, changes become markers, and every segment's label is
 * taken again (a key changed for the first time joins every label).
 * Under the explore's lock: copies only.
 */
static unsigned copy_new(struct bt_xview *v)
{
	const struct bt_results *res;
	unsigned dirty = 0;

	bt_explore_lock(v->x);
	res = bt_explore_results(v->x);
	if (grow_segments(v, res->ncells) == 0) {
		for (int c = 0; c < res->ncells; c++) {
			const char *lab = res->cells[c].label;

			if (lab[0] == '\0' && res->segments != NULL)
				lab = res->segments[c].settings;	/* nothing changed yet */
			if (strncmp(v->labels[c], lab, sizeof(v->labels[c]) - 1) != 0) {
				snprintf(v->labels[c], sizeof(v->labels[c]), "%s", lab);
				/* Only the first setting until one changes: the rest is in the title. */
				if (res->cells[c].label[0] == '\0' && strchr(v->labels[c], ' '))
					*strchr(v->labels[c], ' ') = '\0';
				dirty |= DIRTY_CHART;
			}
		}
		for (; v->nsamples_seen < res->nsamples; v->nsamples_seen++) {
			const struct bt_sample *s = &res->samples[v->nsamples_seen];
			double x;

			if (s->cell < 0 || s->cell >= v->nseg || res->segments == NULL)
				continue;
			x = res->segments[s->cell].t + s->t;
			bt_live_series_push(&v->series[s->cell], x, s->ops_s);
			if (x > v->now_x)
				v->now_x = x;
			dirty |= DIRTY_CHART;
		}
	}
	if (res->nchanges > v->nmarks) {
		double *mx = realloc(v->mark_x, sizeof(*mx) * (size_t)res->nchanges);
		char (*ml)[64] = mx ? realloc(v->mark_labels, sizeof(*ml) * (size_t)res->nchanges) : NULL;

		if (mx != NULL)
			v->mark_x = mx;
		if (ml != NULL) {
			v->mark_labels = ml;
			for (; v->nmarks < res->nchanges; v->nmarks++) {
				const struct bt_change *ch = &res->changes[v->nmarks];

				v->mark_x[v->nmarks] = ch->t;
				snprintf(v->mark_labels[v->nmarks], sizeof(v->mark_labels[0]), "%s=%s",
					 ch->key, ch->value);
			}
			dirty |= DIRTY_CHART;
		}
	}
	bt_explore_unlock(v->x);
	return dirty;
}

/* It ended: its results on the results screen. */
static void ended(struct bt_app *a)
{
	struct bt_xview *v = &a->xv;
	int rc = bt_explore_wait(v->x), rec = bt_explore_record_error(v->x);
	const struct bt_results *res = bt_explore_results(v->x);

	v->active = 0;
	v->ending = 0;
	a->res = res;
	snprintf(a->res_path, sizeof(a->res_path), "%s", v->record_path);
	a->res_back = SCR_WORKBENCH;
	bt_resview_load(a);
	a->screen = SCR_RESULTS;
	a->dirty = DIRTY_ALL;
	if (rc < 0)
		bt_app_status(a, ROLE_ERROR, "explore failed: %s", res->error);
	else if (rec < 0)
		bt_app_status(a, ROLE_ERROR, "explore ended, but the recording %s is incomplete: %s",
			      v->record_path, strerror(-rec));
	else
		bt_app_status(a, ROLE_GOOD, "explore ended: %d segment%s, each a cell below; recorded to %s",
			      res->ncells, res->ncells == 1 ? "" : "s", v->record_path);
}

void bt_xv_tick(struct bt_app *a)
{
	struct bt_xview *v = &a->xv;
	struct bt_explore_snap s;
	int seg;

	if (!v->active)
		return;
	bt_explore_snapshot(v->x, &s);
	a->dirty |= DIRTY_PROGRESS;
	if (!v->have_snap || s.sample_seq != v->snap.sample_seq)
		a->dirty |= DIRTY_BARS | DIRTY_CPU | DIRTY_HISTO;
	v->snap = s;
	v->have_snap = 1;
	a->dirty |= copy_new(v);
	if (v->hist != NULL && bt_explore_live_hist(v->x, v->hist, &seg) == 0)
		v->hist_seg = seg;
	if (bt_explore_finished(v->x))
		ended(a);
}

/* --- changes ------------------------------------------------------------ */

static void change(struct bt_app *a, const char *key, const char *value)
{
	struct bt_err err = { "" };

	if (bt_explore_change(a->xv.x, key, value, &err) < 0)
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
	else
		bt_app_status(a, ROLE_NORMAL, "%s=%s from the next sample on", key, value);
	a->dirty |= DIRTY_PROGRESS;
}

/* Ask for the value of live parameter k (index in live[]) on the status line. */
static void prompt_value(struct bt_app *a, int k)
{
	struct bt_xview *v = &a->xv;
	const char *name = v->plan.params[v->live[k]]->name;
	char cur[BT_VALUE_TEXT] = "";

	bt_explore_value(v->x, name, cur, sizeof(cur));
	v->pick = 0;
	v->pick_param = k;
	a->prompt = 'x';
	snprintf(a->prompt_label, sizeof(a->prompt_label), "%s =", name);
	bt_lineed_set(&a->prompt_ed, cur);
	a->dirty |= DIRTY_ALL;
}

void bt_xv_prompt_done(struct bt_app *a, const char *text)
{
	struct bt_xview *v = &a->xv;

	if (!v->active || v->pick_param < 0 || v->pick_param >= v->nlive)
		return;
	change(a, v->plan.params[v->live[v->pick_param]]->name, text);
}

/* The values the picker offers for live parameter k: its choices, or its ticks. 0: type one. */
static int pick_values(struct bt_xview *v, int k)
{
	const struct bt_param *p = v->plan.params[v->live[k]];
	int n = 0;

	if (p->kind == BT_P_ENUM && p->choices != NULL) {
		for (; p->choices[n] != NULL && n < 16; n++)
			snprintf(v->pick_vals[n], sizeof(v->pick_vals[n]), "%s", p->choices[n]);
	} else if (p->kind == BT_P_BOOL) {
		snprintf(v->pick_vals[n++], sizeof(v->pick_vals[0]), "off");
		snprintf(v->pick_vals[n++], sizeof(v->pick_vals[0]), "on");
	} else if (p->ticks != NULL) {
		char ticks[256], *save = NULL;

		snprintf(ticks, sizeof(ticks), "%s", p->ticks);
		for (char *t = strtok_r(ticks, ",", &save); t != NULL && n < 15;
		     t = strtok_r(NULL, ",", &save))
			snprintf(v->pick_vals[n++], sizeof(v->pick_vals[0]), "%s", t);
		if (n > 0)
			snprintf(v->pick_vals[n++], sizeof(v->pick_vals[0]), "type a value...");
	}
	v->npick_vals = n;
	return n;
}

/* Open the picker on live parameter k's values (direct: by its own key). */
static void pick_open_values(struct bt_app *a, int k, int direct)
{
	struct bt_xview *v = &a->xv;
	char cur[BT_VALUE_TEXT] = "";

	if (pick_values(v, k) == 0) {
		prompt_value(a, k);
		return;
	}
	bt_explore_value(v->x, v->plan.params[v->live[k]]->name, cur, sizeof(cur));
	v->pick = 2;
	v->pick_direct = direct;
	v->pick_param = k;
	v->pick_cursor = 0;
	for (int i = 0; i < v->npick_vals; i++)
		if (strcmp(v->pick_vals[i], cur) == 0)
			v->pick_cursor = i;
	a->dirty |= DIRTY_CHART | DIRTY_FOOTER;
}

/* The live parameter called name (its index in live[]), or -1. */
static int live_index(const struct bt_xview *v, const char *name)
{
	for (int k = 0; k < v->nlive; k++)
		if (strcmp(v->plan.params[v->live[k]]->name, name) == 0)
			return k;
	return -1;
}

static void picker_key(struct bt_app *a, int ch)
{
	struct bt_xview *v = &a->xv;
	int n = v->pick == 1 ? v->nlive : v->npick_vals;

	a->dirty |= DIRTY_CHART | DIRTY_FOOTER;
	switch (ch) {
	case KEY_UP:
	case 'k':
		v->pick_cursor = (v->pick_cursor + n - 1) % (n > 0 ? n : 1);
		return;
	case KEY_DOWN:
	case 'j':
		v->pick_cursor = (v->pick_cursor + 1) % (n > 0 ? n : 1);
		return;
	case 27:
	case KEY_LEFT:
	case KEY_BACKSPACE:
	case 127:
		if (v->pick == 2 && !v->pick_direct) {
			v->pick = 1;
			v->pick_cursor = v->pick_param;
		} else {
			v->pick = 0;
			a->dirty |= DIRTY_ALL;
		}
		return;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case ' ':
	case KEY_RIGHT:
		break;
	default:
		return;
	}
	if (v->pick == 1) {
		pick_open_values(a, v->pick_cursor, 0);
		return;
	}
	if (v->pick_cursor == v->npick_vals - 1 && strcmp(v->pick_vals[v->pick_cursor], "type a value...") == 0) {
		prompt_value(a, v->pick_param);
		return;
	}
	v->pick = 0;
	a->dirty |= DIRTY_ALL;
	change(a, v->plan.params[v->live[v->pick_param]]->name, v->pick_vals[v->pick_cursor]);
}

/* + or -: one worker more or fewer. */
static void step_workers(struct bt_app *a, int d)
{
	struct bt_xview *v = &a->xv;
	const struct bt_param *p;
	char cur[BT_VALUE_TEXT], next[32];
	long n;

	if (v->workers < 0) {
		bt_app_status(a, ROLE_WARN, "%s: its worker count does not change while exploring",
			      bt_workloads[v->wl]->name);
		return;
	}
	p = v->plan.params[v->workers];
	if (bt_explore_value(v->x, p->name, cur, sizeof(cur)) < 0)
		return;
	n = strtol(cur, NULL, 10) + d;
	if (n < p->min || n > p->max) {
		bt_app_status(a, ROLE_WARN, "%s=%ld: must be %lld..%lld", p->name, n,
			      (long long)p->min, (long long)p->max);
		return;
	}
	snprintf(next, sizeof(next), "%ld", n);
	change(a, p->name, next);
}

/* s: the values visited into the form as a sweep, then the workbench's S prompt. */
static void save_plan(struct bt_app *a)
{
	struct bt_xview *v = &a->xv;
	struct bt_plan pl, *form;
	struct bt_err err = { "" };
	char dir[4096], path[4200], axes[256] = "";
	size_t o = 0;

	if (a->wl_sel != v->wl || (form = bt_form_plan(a)) == NULL)
		return;
	if (bt_explore_plan(v->x, &pl, &err) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		return;
	}
	for (int k = 0; k < pl.naxes && o < sizeof(axes); k++) {
		int pi = pl.axes[k];

		o += (size_t)snprintf(axes + o, sizeof(axes) - o, "%s%s=", k ? " " : "",
				      pl.params[pi]->name);
		for (int j = 0; j < pl.nvals[pi] && o < sizeof(axes); j++)
			o += (size_t)snprintf(axes + o, sizeof(axes) - o, "%s%s", j ? "," : "",
					      pl.vals[pi][j].text);
	}
	bt_plan_destroy(form);
	*form = pl;
	a->dirty |= DIRTY_FORM;
	bt_wb_plans_dir(a, dir, sizeof(dir));
	a->prompt = 'S';
	snprintf(a->prompt_label, sizeof(a->prompt_label), "Save the sweep to:");
	bt_app_status(a, ROLE_NORMAL, "the form holds the values visited as a sweep: %s",
		      axes[0] ? axes : "nothing changed yet");
	snprintf(path, sizeof(path), "%.3000s/%s-explore.json", dir, bt_workloads[v->wl]->name);
	bt_lineed_set(&a->prompt_ed, path);
	a->dirty |= DIRTY_STATUS | DIRTY_FOOTER;
}

int bt_xv_key(struct bt_app *a, int ch)
{
	struct bt_xview *v = &a->xv;
	int k;

	if (!v->active)
		return 0;
	if (v->pick) {
		picker_key(a, ch);
		return 1;
	}
	switch (ch) {
	case 'q':
	case 27:
		if (!v->ending) {
			v->ending = 1;
			bt_explore_stop(v->x);
			bt_app_status(a, ROLE_WARN, "ending at the next sample...");
		}
		return 1;
	case '+':
	case '=':
		step_workers(a, 1);
		return 1;
	case '-':
	case '_':
		step_workers(a, -1);
		return 1;
	case 'c':
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (v->nlive == 0) {
			bt_app_status(a, ROLE_WARN, "%s has no setting that changes while it runs",
				      bt_workloads[v->wl]->name);
			return 1;
		}
		v->pick = 1;
		v->pick_cursor = 0;
		a->dirty |= DIRTY_CHART | DIRTY_FOOTER;
		return 1;
	case 'l':
	case 'n':
	case 'w':
	case 'p': {
		static const char *const names[] = { "lock", "notify", "wait", "pin" };
		const char *name = names[ch == 'l' ? 0 : ch == 'n' ? 1 : ch == 'w' ? 2 : 3];

		k = live_index(v, name);
		if (k < 0)
			bt_app_status(a, ROLE_WARN, "%s: %s has no live %s (c lists what changes)", name,
				      bt_workloads[v->wl]->name, name);
		else
			pick_open_values(a, k, 1);
		return 1;
	}
	case 's':
		save_plan(a);
		return 1;
	case 'z':
		for (k = 0; k < 3 && windows[k] != v->window; k++)
			;
		v->window = windows[(k + 1) % 3];
		a->dirty |= DIRTY_CHART;
		if (v->window > 0)
			bt_app_status(a, ROLE_NORMAL, "the chart shows the last %.0f s", v->window);
		else
			bt_app_status(a, ROLE_NORMAL, "the chart shows everything since the start");
		return 1;
	default:
		break;
	}
	if (ch >= '0' && ch <= '9' && v->workers >= 0) {
		char first[2] = { (char)ch, 0 };

		prompt_value(a, live_index(v, v->plan.params[v->workers]->name));
		bt_lineed_set(&a->prompt_ed, first);
		return 1;
	}
	return 0;
}

/* --- drawing ------------------------------------------------------------ */

struct xv_layout {
	struct bt_rect top, chart, histo, bars, cpu;
};

/*
 * As the live view: a line saying where it is, the chart, then latency,
 * threads and CPU side by side. Below 30 rows the line becomes the chart's
 * title, so that the chart keeps rows to show the curve.
 */
static struct xv_layout layout(struct bt_rect area)
{
	struct xv_layout L;
	int top = area.h >= 30 ? 3 : 0;
	int rest = area.h - top, ch = rest * 11 / 20, bh = rest - ch;
	int wh = area.w * 2 / 5, wb = area.w * 7 / 20;

	L.top = (struct bt_rect){ area.y, area.x, top, area.w };
	L.chart = (struct bt_rect){ area.y + top, area.x, ch, area.w };
	L.histo = (struct bt_rect){ area.y + top + ch, area.x, bh, wh };
	L.bars = (struct bt_rect){ area.y + top + ch, area.x + wh, bh, wb };
	L.cpu = (struct bt_rect){ area.y + top + ch, area.x + wh + wb, bh, area.w - wh - wb };
	return L;
}

/* "segment 5  63.1M updates/s  11.6s  threads=4 lock=spin ...": where it is. */
static void where_text(const struct bt_app *a, char *buf, size_t n)
{
	const struct bt_xview *v = &a->xv;
	const struct bt_explore_snap *s = &v->snap;
	char rate[32], more[64] = "";
	int seg = s->segment;

	if (v->ending)
		snprintf(more, sizeof(more), "  ending...");
	else if (s->pending > 0)
		snprintf(more, sizeof(more), "  %d change%s waiting", s->pending,
			 s->pending == 1 ? "" : "s");
	/* What moves first, then the settings: a narrow screen cuts the settings' tail. */
	snprintf(buf, n, "segment %d  %s %s/s  %.1fs%s  %s", seg + 1,
		 bt_fmt_si(s->last.cell == seg ? s->last.ops_s : 0, rate, sizeof(rate)), v->unit,
		 s->elapsed_s, more, s->settings);
}

static void draw_top(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	const struct bt_xview *v = &a->xv;
	char title[512], line[512];
	struct bt_rect in;

	if (r.h <= 0)
		return;
	bt_app_clear(w, r);
	snprintf(title, sizeof(title), "Exploring %s%s%s  (q ends)", bt_workloads[v->wl]->name,
		 v->fixed[0] ? " " : "", v->fixed);
	in = bt_box_draw(w, r, title, 0, a->utf8);
	if (in.h <= 0 || !v->have_snap)
		return;
	where_text(a, line, sizeof(line));
	bt_app_put(w, in.y, in.x, in.w, ROLE_VALUE, line);
}

static void draw_picker(WINDOW *w, struct bt_rect chart, const struct bt_app *a)
{
	const struct bt_xview *v = &a->xv;
	int n = v->pick == 1 ? v->nlive : v->npick_vals;
	int bw = 36 < chart.w - 4 ? 36 : chart.w - 4, bh = n + 2;
	struct bt_rect box, in;
	char title[96];

	if (bh > chart.h)
		bh = chart.h;
	box = (struct bt_rect){ chart.y, chart.x + chart.w - bw - 2, bh, bw };
	if (v->pick == 1)
		snprintf(title, sizeof(title), "Change what");
	else
		snprintf(title, sizeof(title), "%s to",
			 v->plan.params[v->live[v->pick_param]]->name);
	in = bt_box_draw(w, box, title, 1, a->utf8);
	for (int i = 0; i < n && i < in.h; i++) {
		int top = v->pick_cursor >= in.h ? v->pick_cursor - in.h + 1 : 0, k = top + i;
		char row[160], cur[BT_VALUE_TEXT] = "";
		enum bt_role role = k == v->pick_cursor ? ROLE_SELECT : ROLE_NORMAL;

		if (k >= n)
			break;
		if (v->pick == 1) {
			const struct bt_param *p = v->plan.params[v->live[k]];

			bt_explore_value(v->x, p->name, cur, sizeof(cur));
			snprintf(row, sizeof(row), " %-10s %s", p->name, cur);
		} else {
			bt_explore_value(v->x, v->plan.params[v->live[v->pick_param]]->name, cur,
					 sizeof(cur));
			snprintf(row, sizeof(row), " %s%s", v->pick_vals[k],
				 strcmp(v->pick_vals[k], cur) == 0 ? "  (now)" : "");
		}
		bt_rect_fill(w, (struct bt_rect){ in.y + i, in.x, 1, in.w }, bt_role_attr(role));
		bt_app_put(w, in.y + i, in.x, in.w, role, row);
	}
}

/* compact: no room for the line above the chart, so the chart's title says it. */
static void draw_chart(WINDOW *w, struct bt_rect r, const struct bt_app *a, int compact)
{
	const struct bt_xview *v = &a->xv;
	struct bt_series *ser;
	struct bt_chart_marker *mk;
	struct bt_chart_model m = { 0 };
	struct bt_rect in;
	char title[160], unit[48], span[32];

	bt_app_clear(w, r);
	snprintf(unit, sizeof(unit), "%s/s", v->unit);
	if (v->window > 0)
		snprintf(span, sizeof(span), "last %.0f s", v->window);
	else
		snprintf(span, sizeof(span), "since the start");
	if (compact) {
		int room = r.w - 6;

		/* The settings' tail goes at a word's end, not in the middle of one. */
		where_text(a, title, sizeof(title));
		if (room > 20 && (int)strlen(title) > room) {
			title[room] = '\0';
			if (strrchr(title, ' ') != NULL)
				*strrchr(title, ' ') = '\0';
		}
	}
	else
		snprintf(title, sizeof(title), "Throughput, %s, %s  (z: span)", unit, span);
	in = bt_box_draw(w, r, title, 0, a->utf8);
	if (in.h < 3 || in.w < 20)
		return;
	ser = calloc((size_t)(v->nseg ? v->nseg : 1), sizeof(*ser));
	mk = calloc((size_t)(v->nmarks ? v->nmarks : 1), sizeof(*mk));
	if (ser != NULL && mk != NULL) {
		/* The newest segment first in the legend; older ones as "+N more" when they do not fit. */
		for (int c = 0; c < v->nseg; c++) {
			ser[c].x = v->series[c].x;
			ser[c].y = v->series[c].y;
			ser[c].n = v->series[c].n;
			ser[c].role = (enum bt_role)(ROLE_SERIES0 + c % 8);
			ser[c].highlight = c == v->snap.segment;
			ser[c].label = v->labels[c];
		}
		for (int k = 0; k < v->nmarks; k++) {
			mk[k].x = v->mark_x[k];
			mk[k].label = v->mark_labels[k];
		}
		m.yunit = unit;
		m.xunit = "s";
		m.xmax = v->now_x > 1 ? v->now_x : 1;
		if (v->window > 0 && m.xmax < v->window)
			m.xmax = v->window;
		m.xmin = v->window > 0 && m.xmax > v->window ? m.xmax - v->window : 0;
		m.nseries = v->nseg;
		m.series = ser;
		m.glyphs = !a->color;
		m.nmarkers = v->nmarks;
		m.markers = mk;
		bt_chart_draw(w, in, &m, a->utf8);
	}
	free(ser);
	free(mk);
	if (v->pick)
		draw_picker(w, r, a);
}

static void draw_histo(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	const struct bt_xview *v = &a->xv;
	struct bt_rect in;
	char title[160];

	bt_app_clear(w, r);
	snprintf(title, sizeof(title), "Latency, segment %d", v->snap.segment + 1);
	in = bt_box_draw(w, r, title, 0, a->utf8);
	if (in.h < 2 || in.w < 10)
		return;
	if (v->hist_seg < 0 || v->hist == NULL) {
		bt_app_put(w, in.y, in.x, in.w, ROLE_DIM, "lat=off: no latencies recorded");
		return;
	}
	bt_histo_draw(w, in, v->hist, a->utf8);
}

static void draw_bars(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	const struct bt_explore_snap *s = &a->xv.snap;
	int first = s->counted_first, n = s->counted_n > 0 ? s->counted_n : s->nworkers;
	char title[96];

	if (first < 0 || first + n > s->nworkers || first + n > BT_SNAP_WORKERS)
		first = 0, n = s->nworkers < BT_SNAP_WORKERS ? s->nworkers : BT_SNAP_WORKERS;
	if (s->parked > 0)
		snprintf(title, sizeof(title), "Ops per thread (%d, %d parked)", n, s->parked);
	else
		snprintf(title, sizeof(title), "Ops per thread (%d)", n);
	bt_ops_pane_draw(w, r, title, s->worker_ops + first, n, a->utf8);
}

void bt_xv_draw(WINDOW *w, const struct bt_app *a, unsigned dirty, struct bt_rect area)
{
	struct xv_layout L = layout(area);

	if (a->xv.x == NULL)
		return;
	if (dirty & DIRTY_PROGRESS)
		draw_top(w, L.top, a);
	if (dirty & (DIRTY_CHART | DIRTY_OVERLAY) || (L.top.h == 0 && (dirty & DIRTY_PROGRESS)))
		draw_chart(w, L.chart, a, L.top.h == 0);
	if (dirty & DIRTY_HISTO)
		draw_histo(w, L.histo, a);
	if (dirty & DIRTY_BARS)
		draw_bars(w, L.bars, a);
	if (dirty & DIRTY_CPU)
		bt_cpu_pane_draw(w, L.cpu, a, &a->xv.snap.last);
}
