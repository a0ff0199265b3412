/*
 * runner.h - the run API: the seam between the faces (CLI, TUI) and the
 * engines. A run executes a plan - every cell, warmup + reps times - on its
 * own controller thread, records it as it goes, and is observed by polling
 * snapshots. A run never blocks on the face.
 */
#ifndef BT_ENGINES_RUNNER_H
#define BT_ENGINES_RUNNER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/param.h"
#include "core/plan.h"
#include "core/results.h"
#include "engines/workload.h"

/*
 * The parameters common to every workload (reps, warmup, duration, ops, pin,
 * lat, lat_every, sample, rows, as, order, seed, max_reps, ci).
 *
 * order=sequential runs each cell's reps in a row; interleaved runs rep 1
 * of every cell, then rep 2 ...; shuffled runs each such round in a seeded
 * random order (order_seed=, picked and recorded when 0). A cell's warmups run
 * right before its first counted rep. reps=auto (reps 0 in the value) runs
 * reps until the 95% interval of the mean throughput is within ci= % of the
 * median (at least BT_AUTO_MIN_REPS reps), at most max_reps=.
 */
extern const struct bt_param bt_common_params[];
extern const size_t bt_common_nparams;

/* Initialize a plan for wl with all defaults (common params first). */
int bt_run_plan_init(struct bt_plan *pl, const struct bt_workload *wl, struct bt_err *err);

/*
 * Make the stop rule explicit: when the plan gives neither duration= nor
 * ops=, apply the workload's stop_default, so that what is recorded can be
 * re-run without this build's defaults. Call after all user values are set.
 */
int bt_run_plan_finalize(struct bt_plan *pl, const struct bt_workload *wl, struct bt_err *err);

/*
 * Check a plan before anything starts: the stop rule (duration= and ops=
 * exclusive; refused for fixed-work workloads), the pin policy for each cell,
 * the workload's own check for each cell. 0 or -EINVAL with err set.
 */
int bt_run_validate(const struct bt_workload *wl, const struct bt_plan *pl, struct bt_err *err);

/*
 * The workload's metric declarations as the results keep them (name, unit,
 * kind, num/den ...) in out[BT_RES_METRICS]; returns how many.
 */
int bt_run_metric_infos(const struct bt_workload *wl, struct bt_metric_info *out);

/*
 * The results' header part (version, workload, unit, machine, plan, metric
 * and channel declarations, axes) with ncells empty cells, as a run of pl
 * starts: shared by the runner and explore mode. 0 or -ENOMEM with err set.
 */
int bt_run_results_init(struct bt_results *res, const struct bt_workload *wl,
			const struct bt_plan *pl, int ncells, double clock_cost, struct bt_err *err);

#define BT_SNAP_WORKERS 256

enum bt_run_state { BT_RUN_STARTING, BT_RUN_RUNNING, BT_RUN_DONE };

struct bt_snapshot {
	enum bt_run_state state;
	int cell, ncells;		/* cell running now */
	int rep, reps_per_cell;		/* rep running now (warmups included), of warmup+reps
					 * (reps=auto: of warmup+max_reps, an upper bound) */
	int cells_done;
	int reps_done;			/* reps finished in the whole run, warmups included:
					 * with order=interleaved or shuffled, cell and rep do
					 * not say how far the run is */
	double elapsed_s;		/* since the run started */
	double eta_s;			/* estimate to the end; < 0 unknown */
	uint64_t sample_seq;		/* number of samples so far */
	struct bt_sample last;		/* the latest sample */
	int nworkers;			/* of the running rep */
	int counted_first, counted_n;	/* the workers that count ops (bt_job); n = nworkers when all */
	uint64_t worker_ops[BT_SNAP_WORKERS];	/* per-worker ops of the running rep */
	/*
	 * Progress within the running rep: how long it has run, and what ends
	 * it: a duration, an ops quota, or the fixed work setup announced
	 * (bt_job.total_ops); each 0 when not the case. last.ops is the rep's
	 * ops so far when last.cell and last.rep are this rep's.
	 */
	double rep_elapsed_s;
	double rep_duration_s;
	uint64_t rep_ops_quota, rep_total_ops;
	/*
	 * The typed metrics of rep metrics_rep of cell metrics_cell (-1: none
	 * yet) as of its latest sample: the workers' slots combined (rep-level
	 * values that setup or verify set are not in them), nmetrics of them
	 * in the workload's order, and its errors so far.
	 */
	int metrics_cell, metrics_rep, nmetrics;
	uint64_t metric[BT_METRICS_MAX];
	uint64_t errors;
};

struct bt_run;

/*
 * Start running plan (validated) on a controller thread. record_path: the
 * recording to write (NULL: none). The plan is copied. 0 or negative with err
 * set (e.g. the recording cannot be created: then nothing starts).
 */
int bt_run_start(struct bt_run **out, const struct bt_workload *wl, const struct bt_plan *plan,
		 const char *record_path, struct bt_err *err);

/* Copy the current state. Never blocks the run. Any thread. */
void bt_run_snapshot(struct bt_run *r, struct bt_snapshot *s);

/*
 * Ask the run to stop at once: the rep in progress is abandoned, the
 * recording ends "interrupted". Async-signal-safe (sets an atomic).
 */
void bt_run_cancel(struct bt_run *r);

/*
 * Wait for the run to end. Returns 0 complete, -EINTR interrupted, -EIO
 * failed (a rep failed to run or verify; bt_run_results(r)->error says why).
 */
int bt_run_wait(struct bt_run *r);

/* True once the controller thread has finished (bt_run_wait will not block). */
int bt_run_finished(struct bt_run *r);

/* The results; only after bt_run_wait (or under bt_run_lock for a live look). */
struct bt_results *bt_run_results(struct bt_run *r);
void bt_run_lock(struct bt_run *r);
void bt_run_unlock(struct bt_run *r);

/*
 * Copy the latency histogram of the rep in progress so far (all intervals
 * sampled until now) into dst, and the cell and rep it belongs to. Returns 0,
 * or -ENODATA when latency recording is off or no rep has started. Any
 * thread; holds the results lock only for the copy.
 */
int bt_run_live_hist(struct bt_run *r, struct bt_hist *dst, int *cell, int *rep);

/*
 * The same for latency channel ch: 0 the main histogram (as
 * bt_run_live_hist), 1..nch the workload's extra channels (workload.h
 * .lat_channels). -ENODATA also when ch is not one of them.
 */
int bt_run_live_hist_ch(struct bt_run *r, int ch, struct bt_hist *dst, int *cell, int *rep);

/*
 * After bt_run_wait: the recording's first write error (-ENOSPC, -EIO ...;
 * the recording is incomplete), or 0 when every line reached the file.
 */
int bt_run_record_error(const struct bt_run *r);

void bt_run_free(struct bt_run *r);

#endif
