/*
 * replay.c - a recording played back through the live view.
 *
 * The recording is read whole (bt_rec_read) and laid out on a replay clock:
 * every rep, in the order the reps finished, is a segment as long as it ran
 * (its wall time, or its last sample when it never finished). Reps shorter
 * than BT_REPLAY_MIN_S are stretched to that length on the clock so that a
 * sweep of short reps can still be watched; the chart's x axis and the
 * "recorded at" time stay the recording's own. A tick advances the clock
 * (x1, x2, x8, or not when paused) and feeds the samples and reps whose time
 * has come into the same struct bt_live a running bt_run feeds, so live.c
 * draws both. A replay never runs anything.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/recording.h"
#include "tui/app.h"

#define BT_REPLAY_MIN_S 1.0

void bt_replay_free(struct bt_app *a)
{
	struct bt_replay *rp = &a->rp;

	if (!rp->active)
		return;
	if (a->res == &rp->res) {
		bt_resview_free(a);
		a->res = NULL;
		a->res_path[0] = '\0';
	}
	bt_results_destroy(&rp->res);
	free(rp->segs);
	free(rp->sample_seg);
	free(rp->rep_seg);
	memset(rp, 0, sizeof(*rp));
}

/* Segment of (cell, rep), searching from the newest; -1 when there is none. */
static int seg_find(const struct bt_replay *rp, int cell, int rep)
{
	for (int i = rp->nsegs - 1; i >= 0; i--)
		if (rp->segs[i].cell == cell && rp->segs[i].rep == rep)
			return i;
	return -1;
}

/*
 * Lay the reps and samples of rp->res out on the clock (see the top). Each
 * sample belongs to the segment of its (cell, rep); a sample of a rep that
 * never finished opens a segment of its own after the finished ones.
 */
static int build_timeline(struct bt_replay *rp)
{
	const struct bt_results *res = &rp->res;
	double start = 0, rstart = 0;

	rp->segs = calloc((size_t)(res->nreps + res->nsamples + 1), sizeof(*rp->segs));
	rp->sample_seg = calloc((size_t)(res->nsamples + 1), sizeof(int));
	rp->rep_seg = calloc((size_t)(res->nreps + 1), sizeof(int));
	if (rp->segs == NULL || rp->sample_seg == NULL || rp->rep_seg == NULL)
		return -ENOMEM;
	for (int k = 0; k < res->nreps; k++) {
		const struct bt_rep *r = &res->reps[k];

		rp->segs[rp->nsegs] = (struct bt_replay_seg){ r->cell, r->rep, k, 0,
							       r->wall_s > 0 ? r->wall_s : 0, 0, 0 };
		rp->rep_seg[k] = rp->nsegs++;
		if (r->warmup && r->rep + 1 > rp->warmup)
			rp->warmup = r->rep + 1;
	}
	for (int i = 0; i < res->nsamples; i++) {
		const struct bt_sample *s = &res->samples[i];
		int g = seg_find(rp, s->cell, s->rep);

		if (g < 0) {
			g = rp->nsegs++;
			rp->segs[g] = (struct bt_replay_seg){ s->cell, s->rep, -1, 0, 0, 0, 0 };
		}
		if (s->t > rp->segs[g].rlen)
			rp->segs[g].rlen = s->t;
		rp->sample_seg[i] = g;
	}
	for (int g = 0; g < rp->nsegs; g++) {
		struct bt_replay_seg *sg = &rp->segs[g];

		sg->rstart = rstart;
		sg->start = start;
		sg->len = sg->rlen < BT_REPLAY_MIN_S ? BT_REPLAY_MIN_S : sg->rlen;
		rstart += sg->rlen;
		start += sg->len;
	}
	rp->total = start;
	return 0;
}

/* Replay-clock time of sample i and of the end of rep k. */
static double sample_time(const struct bt_replay *rp, int i)
{
	const struct bt_replay_seg *sg = &rp->segs[rp->sample_seg[i]];
	double t = rp->res.samples[i].t;

	return sg->start + (sg->rlen > 0 ? t / sg->rlen * sg->len : 0);
}

static double rep_end(const struct bt_replay *rp, int k)
{
	const struct bt_replay_seg *sg = &rp->segs[rp->rep_seg[k]];

	return sg->start + sg->len;
}

/* The segment the clock is in (the last one at the end); -1 when there are none. */
static int seg_at(const struct bt_replay *rp, double t)
{
	for (int g = 0; g < rp->nsegs; g++)
		if (t < rp->segs[g].start + rp->segs[g].len)
			return g;
	return rp->nsegs - 1;
}

/*
 * The workers that count ops, as the live view showed them (runner.h's
 * counted_first/n). A recording keeps every worker's ops but not that
 * range; the workers that do not count (a pipeline's producers and
 * transmitters) record 0 ops, so the range is the span from the first to
 * the last worker with ops. All of them when none has any.
 */
static void counted(const struct bt_rep *r, int n, int *first, int *count)
{
	int lo = -1, hi = -1;

	for (int w = 0; w < n && r->workers; w++)
		if (r->workers[w].ops > 0) {
			if (lo < 0)
				lo = w;
			hi = w;
		}
	*first = lo < 0 ? 0 : lo;
	*count = lo < 0 ? n : hi - lo + 1;
}

/*
 * Bring the live model to the clock: feed what is due (from the start again
 * after a seek backwards) and make the snapshot the run would have given
 * at that moment. Sets the dirty bits of what changed.
 */
static void feed(struct bt_app *a)
{
	struct bt_replay *rp = &a->rp;
	struct bt_live *l = &a->live;
	const struct bt_results *res = &rp->res;
	struct bt_snapshot s;
	unsigned dirty = DIRTY_PROGRESS | DIRTY_BARS | DIRTY_CPU;
	int g = seg_at(rp, rp->clock);

	if ((rp->nfed_samples > 0 && sample_time(rp, rp->nfed_samples - 1) > rp->clock) ||
	    (rp->nfed_reps > 0 && rep_end(rp, rp->nfed_reps - 1) > rp->clock)) {
		bt_live_reset(l);
		rp->nfed_samples = rp->nfed_reps = 0;
		dirty |= DIRTY_CHART | DIRTY_HISTO;
	}
	/* What is due, in clock order (a rep's samples before its end), as the run fed them. */
	for (;;) {
		double ts = rp->nfed_samples < res->nsamples ? sample_time(rp, rp->nfed_samples) : INFINITY;
		double tr = rp->nfed_reps < res->nreps ? rep_end(rp, rp->nfed_reps) : INFINITY;

		if (ts <= tr && ts <= rp->clock)
			dirty |= bt_live_feed_sample(l, &res->samples[rp->nfed_samples++]);
		else if (tr < ts && tr <= rp->clock)
			dirty |= bt_live_feed_rep(l, &res->reps[rp->nfed_reps++]);
		else
			break;
	}

	memset(&s, 0, sizeof(s));
	s.state = rp->ended ? BT_RUN_DONE : BT_RUN_RUNNING;
	s.ncells = res->ncells;
	s.reps_per_cell = rp->warmup + (res->ncells > 0 ? res->cells[0].total_reps : 0);
	s.sample_seq = (uint64_t)rp->nfed_samples;
	s.reps_done = rp->nfed_reps;
	if (rp->nfed_samples > 0)
		s.last = res->samples[rp->nfed_samples - 1];
	for (int c = 0; c < res->ncells; c++) {
		int fed = 0;

		for (int k = 0; k < rp->nfed_reps; k++)
			fed += res->reps[k].cell == c && !res->reps[k].warmup;
		s.cells_done += res->cells[c].done && fed >= res->cells[c].total_reps;
	}
	s.eta_s = (rp->total - rp->clock) / (rp->speed > 0 ? rp->speed : 1);
	if (g >= 0) {
		const struct bt_replay_seg *sg = &rp->segs[g];
		double frac = sg->len > 0 ? (rp->clock - sg->start) / sg->len : 1;

		if (frac < 0)
			frac = 0;
		if (frac > 1)
			frac = 1;
		s.cell = sg->cell;
		s.rep = sg->rep;
		s.elapsed_s = sg->rstart + frac * sg->rlen;
		if (sg->repidx >= 0) {
			const struct bt_rep *r = &res->reps[sg->repidx];

			s.nworkers = r->nworkers < BT_SNAP_WORKERS ? r->nworkers : BT_SNAP_WORKERS;
			for (int w = 0; w < s.nworkers && r->workers; w++)
				s.worker_ops[w] = (uint64_t)((double)r->workers[w].ops * frac);
			counted(r, s.nworkers, &s.counted_first, &s.counted_n);
		}
	}
	if (s.rep >= s.reps_per_cell)
		s.reps_per_cell = s.rep + 1;
	/*
	 * The progress bar counts cells x reps per cell in int (live.c). The
	 * reader allows 4096 cells of 1000000 reps and warmups: past INT_MAX,
	 * reps per cell is scaled down (only such a crafted recording shows it).
	 */
	if (s.ncells > 0 && s.reps_per_cell > INT_MAX / s.ncells) {
		s.reps_per_cell = INT_MAX / s.ncells;
		if (s.rep >= s.reps_per_cell)
			s.rep = s.reps_per_cell - 1;
	}
	if (!l->have_snap || s.cell != l->snap.cell)
		dirty |= DIRTY_CHART | DIRTY_HISTO;
	l->snap = s;
	l->have_snap = 1;
	bt_live_compose(l);
	a->dirty |= dirty | DIRTY_HISTO;
}

int bt_replay_open(struct bt_app *a, const char *path, struct bt_err *err)
{
	struct bt_replay nrp;
	int rc;

	if (a->running)
		return bt_err_set(err, -EBUSY, "a run is in progress: Esc stops it");
	memset(&nrp, 0, sizeof(nrp));
	rc = bt_rec_read(path, &nrp.res, err);
	if (rc < 0)
		return rc;
	if (build_timeline(&nrp) < 0) {
		bt_results_destroy(&nrp.res);
		free(nrp.segs);
		free(nrp.sample_seg);
		free(nrp.rep_seg);
		return bt_err_set(err, -ENOMEM, "out of memory");
	}
	bt_replay_free(a);
	bt_live_free(a);
	a->rp = nrp;
	a->rp.active = 1;
	snprintf(a->rp.path, sizeof(a->rp.path), "%s", path);
	a->rp.speed = 1;
	a->rp.last_ns = bt_now_ns();
	if (bt_live_init_results(&a->live, &a->rp.res, a->rp.warmup) < 0) {
		bt_replay_free(a);
		bt_live_free(a);
		return bt_err_set(err, -ENOMEM, "out of memory");
	}
	a->screen = SCR_REPLAY;
	a->dirty = DIRTY_ALL;
	feed(a);
	bt_app_status(a, ROLE_NORMAL, "replaying %s (%s, %d cells, %s)%s",
		      strrchr(path, '/') ? strrchr(path, '/') + 1 : path, a->rp.res.workload,
		      a->rp.res.ncells, a->rp.res.status,
		      a->rp.nsegs == 0 ? ": it has no reps to show" : "");
	return 0;
}

int bt_replay_playing(const struct bt_app *a)
{
	return a->screen == SCR_REPLAY && a->rp.active && !a->rp.paused && !a->rp.ended;
}

/* The end of the replay: the recording's results screen. */
static void finish(struct bt_app *a)
{
	struct bt_replay *rp = &a->rp;
	const char *name = strrchr(rp->path, '/');

	rp->ended = 1;
	rp->clock = rp->total;
	feed(a);
	bt_resview_free(a);
	a->res = &rp->res;
	snprintf(a->res_path, sizeof(a->res_path), "%s", rp->path);
	a->res_back = SCR_SESSIONS;
	bt_resview_load(a);
	a->screen = SCR_RESULTS;
	a->dirty = DIRTY_ALL;
	bt_app_status(a, ROLE_GOOD, "replay of %s ended: its results (%s); Esc: sessions",
		      name ? name + 1 : rp->path, rp->res.status);
}

void bt_replay_tick(struct bt_app *a)
{
	struct bt_replay *rp = &a->rp;
	uint64_t now = bt_now_ns();

	if (!rp->active || a->screen != SCR_REPLAY)
		return;
	if (!rp->paused && !rp->ended)
		rp->clock += (double)(now - rp->last_ns) / 1e9 * rp->speed;
	rp->last_ns = now;
	if (rp->clock >= rp->total) {
		finish(a);
		return;
	}
	feed(a);
}

/* Start of the first segment of cell c on the clock; -1 when the cell has none. */
static double cell_start(const struct bt_replay *rp, int c)
{
	for (int g = 0; g < rp->nsegs; g++)
		if (rp->segs[g].cell == c)
			return rp->segs[g].start;
	return -1;
}

/* Seek to the previous (dir < 0) or next (dir > 0) cell that has reps; past the last: the end. */
static void seek_cell(struct bt_app *a, int dir)
{
	struct bt_replay *rp = &a->rp;
	int g = seg_at(rp, rp->clock), cur = g >= 0 ? rp->segs[g].cell : 0;

	for (int c = cur + dir; c >= 0 && c < rp->res.ncells; c += dir) {
		double t = cell_start(rp, c);

		if (t >= 0) {
			rp->clock = t;
			feed(a);
			return;
		}
	}
	if (dir < 0) {
		rp->clock = 0;
		feed(a);
	} else {
		finish(a);
	}
}

int bt_replay_key(struct bt_app *a, int ch)
{
	struct bt_replay *rp = &a->rp;

	switch (ch) {
	case ' ':
		rp->paused = !rp->paused;
		rp->last_ns = bt_now_ns();
		bt_app_status(a, ROLE_NORMAL, "%s", rp->paused ? "paused: Space plays" : "playing");
		a->dirty |= DIRTY_PROGRESS | DIRTY_FOOTER;
		return 1;
	case '1':
	case '2':
	case '8':
		rp->speed = ch - '0';
		rp->last_ns = bt_now_ns();
		a->dirty |= DIRTY_PROGRESS;
		return 1;
	case KEY_LEFT:
	case '[':
		seek_cell(a, -1);
		return 1;
	case KEY_RIGHT:
	case ']':
		seek_cell(a, 1);
		return 1;
	case KEY_HOME:
	case 'g':
		rp->clock = 0;
		rp->last_ns = bt_now_ns();
		feed(a);
		return 1;
	case KEY_END:
	case 'G':
	case 'v':
		finish(a);
		return 1;
	default:
		return 0;
	}
}
