/*
 * engine.h - the thread engine: runs one rep of a job on N pthreads.
 *
 * All workers wait on a start barrier and begin together; wall time runs from
 * the barrier's release to the last worker's return. The calling thread is
 * the sampler: every sample_ns it sums the workers' counters, takes each
 * worker's interval histogram (recorder.h) and reports a struct bt_sample.
 * It also stops the workers when the duration ends or cancel is raised.
 * Workers never call back into the caller; on_sample runs on the calling
 * thread.
 */
#ifndef BT_ENGINES_ENGINE_H
#define BT_ENGINES_ENGINE_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/err.h"
#include "core/hist.h"
#include "core/results.h"
#include "engines/workload.h"

struct bt_engine_cfg {
	int (*worker)(struct bt_worker *w);
	struct bt_job *job;		/* job->nworkers threads are started */
	const int *cpus;		/* [nworkers] CPU per worker (-1: none), or NULL */
	int lat_on;
	uint32_t lat_every;		/* 1 in N ops timed; 0 = adapt to the op cost */
	double clock_cost_ns;		/* measured cost of one clock read */
	uint64_t sample_ns;		/* sampler interval (default 100 ms) */
	/*
	 * Called on the calling thread after each interval with the sample and
	 * the per-worker op counts (worker_ops[0..nworkers-1]). May be NULL.
	 */
	void (*on_sample)(void *arg, const struct bt_sample *s, const uint64_t *worker_ops,
			  int nworkers);
	/*
	 * Called on the calling thread before on_sample with the interval's
	 * merged latency histogram (only when lat_on). May be NULL.
	 */
	void (*on_interval_hist)(void *arg, const struct bt_hist *ival);
	void *arg;
	_Atomic int *cancel;		/* raised by the face to stop at once; may be NULL */
	const struct bt_metric *metrics;	/* the workload's typed metrics: how to combine workers */
	int nmetrics;
	int cell, rep;			/* copied into samples */
};

struct bt_engine_out {
	uint64_t ops, bytes, errors;
	uint64_t metric[BT_METRICS_MAX];	/* workers combined per metric kind (gauges by .agg) */
	double wall_s, user_s, sys_s;	/* process CPU over the rep (getrusage) */
	double vcsw, ivcsw;
	struct bt_hist *hist;		/* caller-allocated; latencies of the whole rep merged in */
	uint32_t lat_every;		/* largest 1-in-N used; 0 when latency off */
	int nworkers;
	struct bt_worker_result *workers;	/* malloc'd [nworkers]; caller frees */
	int failed;			/* a worker called bt_worker_fail: err has its message */
	int cancelled;			/* stopped by *cancel */
};

/*
 * Run one rep to completion on the calling thread (blocking). Returns 0 when
 * the workers ran (check out->failed / out->cancelled), or negative with err
 * set when they could not be started (threads, memory, pinning).
 */
int bt_engine_run(const struct bt_engine_cfg *cfg, struct bt_engine_out *out, struct bt_err *err);

/* Combine n workers' metric slots into out[nm] per the metric table (engine.c). */
void bt_metrics_combine(const struct bt_metric *m, int nm, const struct bt_worker *w, int n,
			uint64_t *out);

#endif
