/*
 * explore.h - explore mode: one open-ended run of one setting of a workload
 * whose settings change while the load runs, the knobs an experimenter turns
 * while watching the curve answer.
 *
 * A face starts it, polls snapshots (as runner.h) and asks for changes,
 * key=value, of the parameters the schema marks BT_PF_LIVE (param.h). A
 * change waits for the next sample boundary, one change per boundary, and
 * then cuts the run into segments:
 *
 *   - the worker count of a workload whose workers are peers (BT_PF_PARK)
 *     changes without a restart: the rep is set up for spare workers
 *     (BT_EXPLORE_SPARE, or the count itself when larger); a lower count
 *     parks the workers above it (they leave the workload's loop and block
 *     on a futex: they count nothing), a higher one wakes them or starts
 *     new threads;
 *   - any other change (the sync model: lock=, notify=, wait=; pin=; a
 *     workload knob; a worker count past the spares, or of a workload
 *     without BT_PF_PARK) drains the workers, runs the rep's verify and
 *     teardown and the cell's teardown, then the cell's and the rep's setup
 *     with the new values, and starts the workers again: all within one
 *     interval, the process never stops.
 *
 * A workload of fixed work (pipeline: units per producer) runs rep after rep
 * with the same settings: a segment then spans reps.
 *
 * Each steady segment between two changes is a cell of the results (one
 * counted rep: its ops, times, CPU, per-worker ops of the workers that ran,
 * its own latency histogram and samples); the changes are kept with their
 * time (results.h struct bt_change), the axes are the keys that changed, and
 * the plan is the values visited as a sweep (what a face saves to run a
 * proper sweep of them). The recording holds the segments and the changes
 * (recording.h), so show, replay, export and compare read it as any other.
 *
 * Workers run as threads (as=processes is refused). reps, warmup, duration
 * and ops do not apply: the run ends when a face stops it.
 */
#ifndef BT_ENGINES_EXPLORE_H
#define BT_ENGINES_EXPLORE_H

#include <stdint.h>

#include "core/err.h"
#include "core/hist.h"
#include "core/plan.h"
#include "core/results.h"
#include "engines/runner.h"
#include "engines/workload.h"

/* Workers a BT_PF_PARK workload is set up for at least (started only when asked for). */
#define BT_EXPLORE_SPARE 64

/* Changes waiting for their boundary, at most. */
#define BT_EXPLORE_QUEUE 64

enum bt_explore_state { BT_EXPLORE_STARTING, BT_EXPLORE_RUNNING, BT_EXPLORE_DONE };

struct bt_explore_snap {
	enum bt_explore_state state;
	double elapsed_s;		/* since the start */
	int segment;			/* the running segment: its cell */
	int segments_done;		/* finished segments (their cells are summarized) */
	double segment_t0;		/* when the running segment began, s since the start */
	int pending;			/* changes waiting for a boundary */
	int setups;			/* reps set up so far: 1 + the restarts */
	uint64_t sample_seq;		/* samples so far */
	struct bt_sample last;		/* the latest (last.cell: its segment) */
	int nworkers;			/* running now */
	int parked;			/* started and parked */
	int counted_first, counted_n;	/* the workers that count ops (bt_job); 0, 0: all running */
	uint64_t worker_ops[BT_SNAP_WORKERS];	/* each running worker's ops in this segment */
	char settings[512];		/* the running segment's live values: "threads=4 lock=spin" */
};

struct bt_explore;

/*
 * Whether plan can be explored: a plan of one cell (no sweep), workers as
 * threads, and what bt_run_validate asks. 0 or -EINVAL with err set
 * ("threads=1,2: explore runs one setting at a time ...").
 */
int bt_explore_check(const struct bt_workload *wl, const struct bt_plan *plan, struct bt_err *err);

/*
 * Start exploring plan (bt_explore_check'ed; copied) on a controller thread.
 * record_path: the recording (NULL: none). 0 or negative with err set.
 */
int bt_explore_start(struct bt_explore **out, const struct bt_workload *wl,
		     const struct bt_plan *plan, const char *record_path, struct bt_err *err);

/*
 * Ask for key=value at the next free boundary. Checked against the settings
 * as they will be after the changes already waiting: the parameter must be
 * BT_PF_LIVE, the value one value that parses and differs, and the whole
 * setting pass the workload's check and the pin check. 0 when queued, or
 * -EINVAL / -EBUSY (the queue is full) with one line in err, naming the
 * parameter ("cs=5: cs does not change while exploring (live: threads,
 * lock, pin)"). Any thread.
 */
int bt_explore_change(struct bt_explore *x, const char *key, const char *value,
		      struct bt_err *err);

/* The same for one "key=value" text (a line a script sends). */
int bt_explore_change_arg(struct bt_explore *x, const char *arg, struct bt_err *err);

/*
 * The value key will have once the waiting changes are applied, into buf;
 * 0, or -ENOENT for an unknown key. Any thread.
 */
int bt_explore_value(struct bt_explore *x, const char *key, char *buf, size_t n);

/* Copy the current state. Never blocks the workers. Any thread. */
void bt_explore_snapshot(struct bt_explore *x, struct bt_explore_snap *s);

/*
 * End at the next boundary: the running segment is finished and recorded,
 * waiting changes are dropped. Async-signal-safe (sets an atomic).
 */
void bt_explore_stop(struct bt_explore *x);

/*
 * End once the waiting changes are applied (each at its boundary), at the
 * boundary after the last one: what the end of a script's input means.
 * Async-signal-safe.
 */
void bt_explore_finish(struct bt_explore *x);

/* Wait for the end. 0 complete, -EIO failed (bt_explore_results(x)->error says why). */
int bt_explore_wait(struct bt_explore *x);

/* True once the controller thread has finished. */
int bt_explore_finished(struct bt_explore *x);

/* The results: only after bt_explore_wait, or under bt_explore_lock. */
struct bt_results *bt_explore_results(struct bt_explore *x);
void bt_explore_lock(struct bt_explore *x);
void bt_explore_unlock(struct bt_explore *x);

/*
 * The running segment's latency histogram so far into dst, and its index.
 * 0, or -ENODATA when latencies are off. Any thread.
 */
int bt_explore_live_hist(struct bt_explore *x, struct bt_hist *dst, int *segment);

/*
 * The values visited so far as a plan (every changed key swept over the
 * values it took): into pl, initialized here (bt_plan_destroy it). 0 or
 * negative with err set. Any thread.
 */
int bt_explore_plan(struct bt_explore *x, struct bt_plan *pl, struct bt_err *err);

/* After bt_explore_wait: the recording's first write error, or 0. */
int bt_explore_record_error(const struct bt_explore *x);

void bt_explore_free(struct bt_explore *x);

#endif
