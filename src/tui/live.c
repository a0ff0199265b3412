/*
 * live.c - starting and stopping a run, and the live view while it runs.
 *
 * The run is driven only through the run API: the tick takes a snapshot
 * (which never blocks the run) and, under bt_run_lock for as short as it
 * can, copies the samples and finished reps it has not seen yet into the
 * live model. The view draws that model; it never touches the run.
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

void bt_live_free(struct bt_app *a)
{
	struct bt_live *l = &a->live;

	bt_live_series_free(l->series, l->ncells);
	free(l->labels);
	free(l->cell_mark);
	free(l->mark_x);
	bt_hist_free(l->hist);
	bt_hist_free(l->cur);
	bt_hist_free(l->shown);
	bt_live_extra_free(&l->x);
	memset(l, 0, sizeof(*l));
}

/*
 * Copy the form's plan (through JSON, so the copy owns its values) and make
 * it runnable the way every face does (bt_front_plan).
 */
static int plan_copy(struct bt_app *a, struct bt_plan *out, struct bt_err *err)
{
	struct bt_front_base base = { .origin = "plan" };
	struct bt_plan *pl = bt_form_plan(a);
	char *json;
	int rc;

	if (pl == NULL)
		return bt_err_set(err, -EINVAL, "no plan");
	json = bt_plan_to_json(pl);
	if (json == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	base.json = json;
	rc = bt_front_plan(out, bt_workloads[a->wl_sel], &base, NULL, 0, NULL, err);
	free(json);
	return rc;
}

/* Allocate the model for ncells cells; labels are left to the caller. */
static int live_alloc(struct bt_live *l, int ncells, int warmup)
{
	memset(l, 0, sizeof(*l));
	l->ncells = ncells;
	l->series = calloc((size_t)(ncells > 0 ? ncells : 1), sizeof(*l->series));
	l->labels = calloc((size_t)(ncells > 0 ? ncells : 1), sizeof(*l->labels));
	l->hist = bt_hist_new();
	l->cur = bt_hist_new();
	l->shown = bt_hist_new();
	if (l->series == NULL || l->labels == NULL || l->hist == NULL || l->cur == NULL ||
	    l->shown == NULL)
		return -ENOMEM;
	l->warmup = warmup;
	bt_live_reset(l);
	return 0;
}

void bt_live_reset(struct bt_live *l)
{
	for (int c = 0; l->series && c < l->ncells; c++)
		l->series[c].n = 0;
	l->nsamples_seen = l->nreps_seen = 0;
	l->offset = l->prev_t = 0;
	l->max_x = 0;
	l->hist_reps = 0;
	l->shown_running = 0;
	l->have_snap = 0;
	memset(&l->snap, 0, sizeof(l->snap));
	if (l->hist)
		bt_hist_reset(l->hist);
	if (l->cur)
		bt_hist_reset(l->cur);
	if (l->shown)
		bt_hist_reset(l->shown);
	bt_live_extra_reset(&l->x);
	l->prev_cell = l->prev_rep = -1;
	l->nmarks = 0;
	l->hist_cell = -1;
	l->done_cell = l->done_rep = -1;
	l->cur_cell = l->cur_rep = -1;
	l->shown_cell = -1;
}

/* A cell no axis names (a plan without a sweep) is called by its fixed values. */
static void live_label_default(struct bt_live *l, int c)
{
	if (l->labels[c][0] != '\0')
		return;
	if (l->ncells == 1 && l->fixed[0])
		snprintf(l->labels[c], sizeof(l->labels[c]), "%.63s", l->fixed);
	else
		snprintf(l->labels[c], sizeof(l->labels[c]), "cell %d", c + 1);
	if (strlen(l->fixed) > 63 && l->ncells == 1)
		memcpy(l->labels[c] + 60, "...", 4);
}

static int live_init(struct bt_live *l, const struct bt_workload *wl, const struct bt_plan *pl)
{
	char *json;

	if (live_alloc(l, pl->ncells, (int)pl->vals[bt_plan_index(pl, "warmup")][0].i) < 0)
		return -ENOMEM;
	json = bt_plan_to_json(pl);
	bt_results_fixed(json, l->fixed, sizeof(l->fixed));
	free(json);
	for (int c = 0; c < pl->ncells; c++) {
		bt_plan_cell_label(pl, c, l->labels[c], sizeof(l->labels[c]));
		live_label_default(l, c);
	}
	snprintf(l->wl_name, sizeof(l->wl_name), "%s", wl->name);
	snprintf(l->unit, sizeof(l->unit), "%s", wl->unit);
	{
		int li = bt_plan_index(pl, "lat");

		l->lat_off = li >= 0;
		for (int v = 0; li >= 0 && v < pl->nvals[li]; v++)
			l->lat_off &= pl->vals[li][v].i == 0;
	}
	return bt_live_extra_init_wl(&l->x, wl, l->lat_off);
}

int bt_live_init_results(struct bt_live *l, const struct bt_results *res, int warmup)
{
	if (live_alloc(l, res->ncells, warmup) < 0)
		return -ENOMEM;
	bt_results_fixed(res->plan_json, l->fixed, sizeof(l->fixed));
	for (int c = 0; c < res->ncells; c++) {
		snprintf(l->labels[c], sizeof(l->labels[c]), "%s", res->cells[c].label);
		live_label_default(l, c);
	}
	snprintf(l->wl_name, sizeof(l->wl_name), "%s", res->workload);
	snprintf(l->unit, sizeof(l->unit), "%s", res->unit[0] ? res->unit : "ops");
	if (res->explore && res->ncells > 0) {
		/* Where a change began a segment, the chart draws a labelled line (as explore did). */
		l->cell_mark = calloc((size_t)res->ncells, sizeof(*l->cell_mark));
		l->mark_x = calloc((size_t)res->ncells, sizeof(*l->mark_x));
		for (int i = 0; l->cell_mark && i < res->nchanges; i++)
			if (res->changes[i].cell >= 0 && res->changes[i].cell < res->ncells)
				snprintf(l->cell_mark[res->changes[i].cell], sizeof(l->cell_mark[0]),
					 "%s=%s", res->changes[i].key, res->changes[i].value);
	}
	/* Off only when reps say so: a recording without finished reps may still have had them on. */
	l->lat_off = res->nreps > 0;
	for (int k = 0; k < res->nreps; k++)
		l->lat_off &= res->reps[k].lat_every == 0;
	return bt_live_extra_init_res(&l->x, res, l->lat_off);
}

void bt_live_start(struct bt_app *a)
{
	const struct bt_workload *wl = bt_workloads[a->wl_sel];
	struct bt_plan pl;
	struct bt_err err = { "" };
	struct bt_run *run = NULL;

	if (a->running) {
		bt_app_status(a, ROLE_WARN, "a run is in progress: Esc stops it");
		return;
	}
	if (plan_copy(a, &pl, &err) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		return;
	}
	if (bt_front_record_path(a->record_path, sizeof(a->record_path), wl->name, &err) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		bt_plan_destroy(&pl);
		return;
	}
	if (bt_run_start(&run, wl, &pl, a->record_path, &err) < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		bt_rec_unreserve(a->record_path);	/* the name reserved above, if still empty */
		bt_plan_destroy(&pl);
		return;
	}
	/* The previous run's results leave the screen now. */
	bt_resview_free(a);
	bt_live_free(a);
	if (a->run != NULL)
		bt_run_free(a->run);
	a->res = NULL;
	a->run = run;
	a->run_wl = a->wl_sel;
	a->running = 1;
	bt_front_signals_watch(run);
	if (live_init(&a->live, wl, &pl) < 0) {
		bt_run_cancel(run);
		bt_app_status(a, ROLE_ERROR, "out of memory");
	} else {
		bt_app_status(a, ROLE_NORMAL, "recording to %s", a->record_path);
	}
	bt_plan_destroy(&pl);
	a->screen = SCR_LIVE;
	a->dirty = DIRTY_ALL;
}

void bt_live_stop(struct bt_app *a)
{
	if (!a->running)
		return;
	bt_run_cancel(a->run);
	bt_app_status(a, ROLE_WARN, "stopping...");
}

void bt_live_abort(struct bt_app *a)
{
	if (!a->running)
		return;
	bt_run_cancel(a->run);
	bt_run_wait(a->run);
	a->running = 0;
	bt_front_signals_watch(NULL);
}

int bt_live_series_push(struct bt_live_series *s, double x, double y)
{
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 64;
		double *nx = realloc(s->x, sizeof(double) * (size_t)cap), *ny;

		if (nx == NULL)
			return -ENOMEM;
		s->x = nx;
		ny = realloc(s->y, sizeof(double) * (size_t)cap);
		if (ny == NULL)
			return -ENOMEM;
		s->y = ny;
		s->cap = cap;
	}
	s->x[s->n] = x;
	s->y[s->n] = y;
	s->n++;
	return 0;
}

void bt_live_series_free(struct bt_live_series *s, int n)
{
	for (int c = 0; s != NULL && c < n; c++) {
		free(s[c].x);
		free(s[c].y);
	}
	free(s);
}

unsigned bt_live_add_sample(struct bt_live *l, const struct bt_sample *s, double x)
{
	if (s->cell < 0 || s->cell >= l->ncells)
		return 0;
	bt_live_series_push(&l->series[s->cell], x, s->ops_s);
	if (x > l->max_x)
		l->max_x = x;
	return DIRTY_CHART;
}

unsigned bt_live_add_rep(struct bt_live *l, const struct bt_rep *r)
{
	bt_live_extra_rep(&l->x, r, r->cell != l->hist_cell);
	if (r->cell != l->hist_cell) {
		bt_hist_reset(l->hist);
		l->hist_cell = r->cell;
		l->hist_reps = 0;
	}
	if (r->lat.count > 0) {
		bt_rep_lat_add(l->hist, &r->lat);
		l->hist_reps++;
	}
	l->done_cell = r->cell;
	l->done_rep = r->rep;
	return DIRTY_HISTO;
}

/*
 * A rep that ended before its first sample interval left no sample: its
 * whole-rep rate is its point on the chart, so a sweep of short reps is
 * still drawn.
 */
static unsigned rep_point(struct bt_live *l, const struct bt_rep *r)
{
	struct bt_sample s = { .cell = r->cell, .rep = r->rep, .t = r->wall_s, .dt = r->wall_s,
			       .ops_s = r->ops_s, .ops = r->ops };

	if (r->cell < 0 || r->cell >= l->ncells || (r->cell == l->prev_cell && r->rep == l->prev_rep) ||
	    r->wall_s <= 0)
		return 0;
	l->offset += l->prev_t;
	l->prev_t = r->wall_s;
	l->prev_cell = r->cell;
	l->prev_rep = r->rep;
	return bt_live_add_sample(l, &s, l->offset + r->wall_s);
}

unsigned bt_live_feed_rep(struct bt_live *l, const struct bt_rep *r)
{
	return rep_point(l, r) | bt_live_add_rep(l, r);
}

unsigned bt_live_feed_sample(struct bt_live *l, const struct bt_sample *s)
{
	if (s->cell < 0 || s->cell >= l->ncells)
		return 0;
	if (s->cell != l->prev_cell || s->rep != l->prev_rep) {
		l->offset += l->prev_t;
		l->prev_t = 0;
		l->prev_cell = s->cell;
		l->prev_rep = s->rep;
		if (l->cell_mark && l->mark_x && l->cell_mark[s->cell][0] && l->nmarks < l->ncells)
			l->mark_x[l->nmarks++] = l->offset;
	}
	l->prev_t = s->t;
	return bt_live_add_sample(l, s, l->offset + s->t);
}

/*
 * Copy what is new in the results: samples become chart points on one time
 * axis (each rep continues where the previous one ended), finished reps of
 * the running cell are merged into the live histogram. Under the run's
 * lock: only copies and a histogram merge, no drawing, no I/O.
 */
static unsigned copy_new(struct bt_app *a)
{
	struct bt_live *l = &a->live;
	const struct bt_results *res;
	unsigned dirty = 0;

	bt_run_lock(a->run);
	res = bt_run_results(a->run);
	/* In the order they happened: a rep finishes after its samples, before the next rep's. */
	while (l->nsamples_seen < res->nsamples || l->nreps_seen < res->nreps) {
		const struct bt_sample *s = l->nsamples_seen < res->nsamples ?
			&res->samples[l->nsamples_seen] : NULL;
		const struct bt_rep *r = l->nreps_seen < res->nreps ? &res->reps[l->nreps_seen] : NULL;

		if (r != NULL && (s == NULL || r->cell < s->cell ||
				  (r->cell == s->cell && r->rep < s->rep))) {
			dirty |= bt_live_feed_rep(l, r);
			l->nreps_seen++;
			continue;
		}
		l->nsamples_seen++;
		dirty |= bt_live_feed_sample(l, s);
	}
	bt_run_unlock(a->run);
	return dirty;
}

/*
 * The histogram pane shows the running cell: its finished reps merged with
 * the rep in progress so far, so it moves while the first rep still runs.
 * The rep in progress is left out once it has finished (it is then in hist).
 */
void bt_live_compose(struct bt_live *l)
{
	bt_hist_reset(l->shown);
	l->shown_cell = -1;
	l->shown_running = 0;
	if (l->hist_cell >= 0 && l->hist_cell == l->snap.cell) {
		bt_hist_add(l->shown, l->hist);
		l->shown_cell = l->hist_cell;
	}
	if (l->cur_cell >= 0 && l->cur_cell == l->snap.cell &&
	    !(l->cur_cell == l->done_cell && l->cur_rep == l->done_rep)) {
		bt_hist_add(l->shown, l->cur);
		l->shown_cell = l->cur_cell;
		l->shown_running = 1;
	}
	bt_live_extra_compose(l);
}

static void live_hist_update(struct bt_app *a)
{
	struct bt_live *l = &a->live;
	int cell, rep;

	if (bt_run_live_hist(a->run, l->cur, &cell, &rep) == 0) {
		l->cur_cell = cell;
		l->cur_rep = rep;
	}
	bt_live_extra_fetch(&l->x, a->run);
	bt_live_compose(l);
	a->dirty |= DIRTY_HISTO;
}

void bt_live_tick(struct bt_app *a)
{
	struct bt_live *l = &a->live;
	struct bt_snapshot s;

	if (!a->running || a->run == NULL)
		return;
	bt_run_snapshot(a->run, &s);
	a->dirty |= DIRTY_PROGRESS;
	if (!l->have_snap || s.sample_seq != l->snap.sample_seq)
		a->dirty |= DIRTY_BARS | DIRTY_CPU;
	if (!l->have_snap || s.cell != l->snap.cell)
		a->dirty |= DIRTY_CHART | DIRTY_HISTO;
	l->snap = s;
	l->have_snap = 1;
	a->dirty |= copy_new(a);
	if (a->dirty & (DIRTY_BARS | DIRTY_HISTO))
		live_hist_update(a);

	if (bt_run_finished(a->run)) {
		int rc = bt_run_wait(a->run);
		const struct bt_results *res = bt_run_results(a->run);

		a->running = 0;
		a->run_rc = rc;
		bt_front_signals_watch(NULL);
		a->res = res;
		a->res_path[0] = '\0';
		a->res_back = SCR_WORKBENCH;
		bt_resview_load(a);
		a->screen = SCR_RESULTS;
		a->dirty = DIRTY_ALL;
		if (rc == 0)
			bt_app_status(a, ROLE_GOOD, "done: %d cell%s; recorded to %s", res->ncells,
				      res->ncells == 1 ? "" : "s", a->record_path);
		else if (rc == -EINTR)
			bt_app_status(a, ROLE_WARN, "stopped: %d of %d cells finished; recording %s ends interrupted",
				      bt_results_cells_done(res), res->ncells, a->record_path);
		else
			bt_app_status(a, ROLE_ERROR, "run failed: %s", res->error);
	}
}

/* --- drawing ------------------------------------------------------------- */

struct live_layout {
	struct bt_rect progress, chart, extra, histo, bars, cpu;
};

/* The strip of channels and errors (live_extra.c) goes under the chart, out of its rows. */
static struct live_layout layout(struct bt_rect area, const struct bt_live *l)
{
	struct live_layout L;
	int rest = area.h - 3;
	int ch = rest * 11 / 20;
	int bh = rest - ch;
	int wh = area.w * 2 / 5, wb = area.w * 7 / 20;
	int xh = bt_live_extra_rows(l, area.h);

	L.progress = (struct bt_rect){ area.y, area.x, 3, area.w };
	L.chart = (struct bt_rect){ area.y + 3, area.x, ch - xh, area.w };
	L.extra = (struct bt_rect){ area.y + 3 + ch - xh, area.x, xh, area.w };
	L.histo = (struct bt_rect){ area.y + 3 + ch, area.x, bh, wh };
	L.bars = (struct bt_rect){ area.y + 3 + ch, area.x + wh, bh, wb };
	L.cpu = (struct bt_rect){ area.y + 3 + ch, area.x + wh + wb, bh, area.w - wh - wb };
	return L;
}

static void rep_text(const struct bt_live *l, char *buf, size_t n)
{
	const struct bt_snapshot *s = &l->snap;
	int reps = s->reps_per_cell - l->warmup;

	if (s->rep < l->warmup)
		snprintf(buf, n, "warmup %d/%d", s->rep + 1, l->warmup);
	else
		snprintf(buf, n, "rep %d/%d", s->rep - l->warmup + 1, reps);
}

double bt_live_rep_frac(const struct bt_snapshot *s)
{
	double f = 0;
	int same = s->sample_seq > 0 && s->last.cell == s->cell && s->last.rep == s->rep;

	if (s->state != BT_RUN_RUNNING)
		return 0;
	if (s->rep_duration_s > 0)
		f = s->rep_elapsed_s / s->rep_duration_s;
	else if (s->rep_ops_quota > 0 && same)
		f = (double)s->last.ops / (double)s->rep_ops_quota;
	else if (s->rep_total_ops > 0 && same)
		f = (double)s->last.ops / (double)s->rep_total_ops;
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

void bt_live_progress(const struct bt_snapshot *s, double *frac, double *eta)
{
	int total = s->ncells * s->reps_per_cell;
	int done = s->reps_done;	/* any order: cell and rep need not say how far */
	double rf = bt_live_rep_frac(s);

	*frac = total > 0 ? (done + rf) / total : 0;
	*eta = s->eta_s;
	if (s->state == BT_RUN_DONE) {
		*frac = 1;
		*eta = 0;
	} else if (s->eta_s >= 0 && total > done) {
		/* The runner counts the running rep as not started: take off its done part. */
		*eta = s->eta_s - s->eta_s / (total - done) * rf;
	} else if (rf >= 0.02 && s->rep_elapsed_s > 0) {
		/* The first rep: its pace so far predicts it, and the reps after it. */
		double per_rep = s->rep_elapsed_s / rf;

		*eta = per_rep * (1 - rf) + per_rep * (total - done - 1);
	}
	if (*frac > 1)
		*frac = 1;
}

static void draw_progress(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	const struct bt_live *l = &a->live;
	const struct bt_snapshot *s = &l->snap;
	char text[256], eta[32], reps[32], title[512];
	struct bt_rect in;
	double frac = 0, eta_s = -1;

	bt_app_clear(w, r);
	if (a->screen == SCR_REPLAY) {
		const struct bt_replay *rp = &a->rp;
		const char *name = strrchr(rp->path, '/');

		snprintf(title, sizeof(title), "Replay %s  %s  %.1fs/%.1fs", name ? name + 1 : rp->path,
			 rp->paused ? "paused" : rp->speed >= 8 ? "8x" : rp->speed >= 2 ? "2x" : "1x",
			 rp->clock, rp->total);
	} else {
		snprintf(title, sizeof(title), "Running %s%s%s  (Esc stops)", l->wl_name,
			 l->fixed[0] ? " " : "", l->fixed);
	}
	in = bt_box_draw(w, r, title, 0, a->utf8);
	if (in.h <= 0 || !l->have_snap)
		return;
	bt_live_progress(s, &frac, &eta_s);
	if (a->screen == SCR_REPLAY && a->rp.total > 0)
		frac = a->rp.clock / a->rp.total;
	if (eta_s >= 0)
		snprintf(eta, sizeof(eta), "ETA %.0fs", eta_s + 0.5);
	else
		snprintf(eta, sizeof(eta), "ETA ?");
	rep_text(l, reps, sizeof(reps));
	if (a->screen == SCR_REPLAY) {
		char el[32];

		/* The recording's own time: short reps are shown longer than they ran. */
		snprintf(text, sizeof(text), "cell %d/%d %s  %s  recorded at %s", s->cell + 1,
			 s->ncells, reps, s->cell < l->ncells ? l->labels[s->cell] : "",
			 bt_fmt_ns(s->elapsed_s * 1e9, el, sizeof(el)));
	} else {
		snprintf(text, sizeof(text), "cell %d/%d %s  %s  %s  elapsed %.1fs", s->cell + 1,
			 s->ncells, reps, s->cell < l->ncells ? l->labels[s->cell] : "", eta,
			 s->elapsed_s);
	}
	bt_progress_draw(w, in, frac, text, a->utf8);
}

static void draw_chart(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	const struct bt_live *l = &a->live;
	struct bt_series *ser;
	struct bt_chart_model m = { 0 };
	struct bt_rect in;
	char title[160], unit[48], rate[32], running[80];

	bt_app_clear(w, r);
	snprintf(unit, sizeof(unit), "%s/s", l->unit);
	if (l->have_snap && l->snap.sample_seq > 0)
		snprintf(title, sizeof(title), "Throughput, %s  (now %s, %s)", unit,
			 bt_fmt_si(l->snap.last.ops_s, rate, sizeof(rate)),
			 l->snap.cell < l->ncells ? l->labels[l->snap.cell] : "");
	else
		snprintf(title, sizeof(title), "Throughput, %s  (waiting for the first sample)", unit);
	in = bt_box_draw(w, r, title, 0, a->utf8);
	if (in.h < 3 || in.w < 20)
		return;
	ser = calloc((size_t)(l->ncells ? l->ncells : 1), sizeof(*ser));
	if (ser == NULL)
		return;
	for (int c = 0; c < l->ncells; c++) {
		ser[c].x = l->series[c].x;
		ser[c].y = l->series[c].y;
		ser[c].n = l->series[c].n;
		ser[c].role = (enum bt_role)(ROLE_SERIES0 + c % 8);
		ser[c].highlight = c == l->snap.cell;
		ser[c].label = l->labels[c];
		if (ser[c].highlight && l->snap.state != BT_RUN_DONE) {
			/* The running cell says so in the legend, in words that need no colour. */
			snprintf(running, sizeof(running), "%s %s", a->utf8 ? "\u25b6" : ">", l->labels[c]);
			ser[c].label = running;
		}
	}
	m.yunit = unit;
	m.xunit = "s";
	m.xmin = 0;
	m.xmax = l->xmax_fixed > 0 ? l->xmax_fixed : l->max_x > 1 ? l->max_x : 1;
	m.nseries = l->ncells;
	m.glyphs = !a->color;
	m.series = ser;
	{
		struct bt_chart_marker mk[64];
		int nm = 0;

		/* An explore recording's changes: the k-th marker is the k-th cell with one. */
		for (int c = 0; l->cell_mark && c < l->ncells && nm < l->nmarks && nm < 64; c++)
			if (l->cell_mark[c][0]) {
				mk[nm].x = l->mark_x[nm];
				mk[nm].label = l->cell_mark[c];
				nm++;
			}
		m.nmarkers = nm;
		m.markers = mk;
		bt_chart_draw(w, in, &m, a->utf8);
	}
	free(ser);
}

static void draw_histo(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	const struct bt_live *l = &a->live;
	struct bt_rect in;
	char title[160], what[48];
	int reps = l->shown_cell == l->hist_cell ? l->hist_reps : 0;
	int v = l->x.view > 0 && l->x.view <= l->x.nch ? l->x.view : 0;

	/* c cycles the pane through the extra channels (live_extra.c). */
	if (v > 0)
		snprintf(what, sizeof(what), "Latency %s", l->x.ch_names[v - 1]);
	else
		snprintf(what, sizeof(what), "Latency");
	bt_app_clear(w, r);
	snprintf(title, sizeof(title), "%s", what);
	if (l->shown_cell >= 0 && l->shown_cell < l->ncells) {
		const char *lab = l->labels[l->shown_cell];
		int room = r.w - 6;

		/* The longest title that fits the box: never a cut word. */
		snprintf(title, sizeof(title), "%s, %s (%d rep%s%s)", what, lab, reps,
			 reps == 1 ? "" : "s", l->shown_running ? " + running" : "");
		if ((int)strlen(title) > room && v == 0)
			snprintf(title, sizeof(title), "%s (%d%s)", lab, reps,
				 l->shown_running ? "+run" : reps == 1 ? " rep" : " reps");
		if ((int)strlen(title) > room)
			snprintf(title, sizeof(title), "%s (%d rep%s%s)", what, reps, reps == 1 ? "" : "s",
				 l->shown_running ? " + running" : "");
		if ((int)strlen(title) > room)
			snprintf(title, sizeof(title), "%s", what);
	}
	in = bt_box_draw(w, r, title, 0, a->utf8);
	if (in.h < 2 || in.w < 10)
		return;
	if (l->shown_cell < 0) {
		bt_app_put(w, in.y, in.x, in.w, ROLE_DIM,
			   l->lat_off ? "lat=off: this run records no latencies" :
			   "no latencies yet");
		return;
	}
	bt_histo_draw(w, in, v > 0 ? l->x.shown[v - 1] : l->shown, a->utf8);
}

void bt_ops_pane_draw(WINDOW *w, struct bt_rect r, const char *title, const uint64_t *ops, int n,
		      int utf8)
{
	struct bt_rect in;

	bt_app_clear(w, r);
	in = bt_box_draw(w, r, title, 0, utf8);
	if (in.h < 1 || in.w < 8)
		return;
	if (n <= 0) {
		bt_app_put(w, in.y, in.x, in.w, ROLE_DIM, "starting...");
		return;
	}
	bt_bars_draw(w, in, ops, n, utf8);
}

void bt_cpu_pane_draw(WINDOW *w, struct bt_rect r, const struct bt_app *a, const struct bt_sample *last)
{
	struct bt_rect in;

	bt_app_clear(w, r);
	in = bt_box_draw(w, r, "CPU", 0, a->utf8);
	if (in.h < 1 || in.w < 6)
		return;
	bt_cpu_draw(w, in, last->user_pct, last->sys_pct, a->have_topo ? a->topo.ncpus : 1, a->utf8);
}

static void draw_bars(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	const struct bt_snapshot *s = &a->live.snap;
	char title[64];
	int first = s->counted_first, n = s->counted_n;

	/* Only the workers that count ops: peers, so that fairness means something. */
	if (first < 0 || first >= BT_SNAP_WORKERS || first >= s->nworkers)
		first = 0, n = s->nworkers;
	if (first + n > s->nworkers)
		n = s->nworkers - first;
	if (first + n > BT_SNAP_WORKERS)
		n = BT_SNAP_WORKERS - first;
	if (n < s->nworkers)
		snprintf(title, sizeof(title), "Ops per thread (%d counting of %d)", n, s->nworkers);
	else
		snprintf(title, sizeof(title), "Ops per thread (%d)", n);
	bt_ops_pane_draw(w, r, title, s->worker_ops + first, n, a->utf8);
}

void bt_live_draw(WINDOW *w, const struct bt_app *a, unsigned dirty, struct bt_rect area)
{
	struct live_layout L = layout(area, &a->live);

	if (dirty & DIRTY_PROGRESS)
		draw_progress(w, L.progress, a);
	if (dirty & DIRTY_CHART)
		draw_chart(w, L.chart, a);
	if ((dirty & (DIRTY_HISTO | DIRTY_BARS | DIRTY_CHART)) && L.extra.h > 0)
		bt_live_extra_draw(w, L.extra, &a->live, a->utf8);
	if (dirty & DIRTY_HISTO)
		draw_histo(w, L.histo, a);
	if (dirty & DIRTY_BARS)
		draw_bars(w, L.bars, a);
	if (dirty & DIRTY_CPU)
		bt_cpu_pane_draw(w, L.cpu, a, &a->live.snap.last);
}
