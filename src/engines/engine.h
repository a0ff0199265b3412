/*
 * engine.h - how one rep of a job is run: N workers behind one ops table
 * (fio's ioengine_ops), so that the runner never names an engine.
 *
 * bt_engine_run is the same for every engine: it lays out one region that
 * the workers and the sampler share (the stop flag, the start gate, one
 * struct bt_worker per worker with its counters and metric slots, the
 * interval recorders and their histograms), starts the workers through the
 * engine's ops, releases them together from the gate, and is the sampler:
 * every sample_ns it sums the workers' counters, takes each worker's interval
 * histogram (recorder.h) and reports a struct bt_sample. It stops the workers
 * when the duration ends or cancel is raised. Wall time runs from the gate's
 * release to the last worker's return. Workers never call back into the
 * caller; on_sample runs on the calling thread.
 *
 * Latency channels: a workload may name up to BT_LAT_CH_MAX extra
 * histograms (workload.h .lat_channels; kv's "incr" and "read"). Each is
 * one more interval recorder per worker in the same region (so forked
 * workers write them too), recorded with bt_lat_record_ch without 1-in-N
 * sampling, and taken by the sampler into one interval histogram per
 * channel, added to out->ch_hist[k] and handed to on_interval_ch (a face's
 * live percentiles per channel). The samples stay the main channel's, which
 * keeps the sample lines (and so the recording) as they were.
 *
 * Engines:
 *   threads    N pthreads in this process; the region is private memory.
 *   processes  N fork()ed workers; the region is one MAP_SHARED mapping made
 *              before the fork, so every pointer in it is valid in every
 *              worker. Each child's CPU time and context switches come from
 *              wait4 (the live CPU % from /proc/PID/stat). Children die with
 *              the parent (PR_SET_PDEATHSIG) and end on the stop flag, which
 *              Ctrl-C raises through cancel; a child that is killed or exits
 *              non-zero fails its rep ("worker 3: killed by SIGKILL").
 *
 * Hosts (room left for an MPI engine, one more file): each rank would run
 * the workers of its share ([first, first + count) of nworkers) in its own
 * region through the same start/poll/cpu/collect ops; its snapshot is the
 * region's counters and recorders, which is why the sampler reads workers
 * only through struct bt_worker and histograms only through recorders: a
 * hosts engine reduces counters (MPI_Reduce of c.ops, c.bytes, c.metric[])
 * and histogram buckets (sparse, bt_hist_sparse) to rank 0 inside its cpu
 * and collect ops, and rank 0 alone runs the sampler, prints and records.
 * Nothing above this layer may assume one address space: workload state
 * that workers write comes from bt_job_shared_alloc (a hosts engine would
 * refuse workloads that need it), per-worker results are read back from
 * struct bt_worker by the engine, never from the workload's own memory.
 */
#ifndef BT_ENGINES_ENGINE_H
#define BT_ENGINES_ENGINE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/err.h"
#include "core/hist.h"
#include "core/results.h"
#include "engines/workload.h"

/* The engines, by index: workload.h's .engines is a bitmask of 1 << these. */
enum bt_engine_kind { BT_ENGINE_THREADS, BT_ENGINE_PROCESSES, BT_ENGINE_COUNT };

/* NULL-terminated engine names in enum order ("threads", "processes"): the as= choices. */
extern const char *const bt_engine_names[];

struct bt_engine;

/* CPU used by the workers so far (cumulative; the sampler takes differences). */
struct bt_cpu_mark {
	uint64_t t;			/* CLOCK_MONOTONIC ns when taken */
	double user_s, sys_s;
	double vcsw, ivcsw;
};

struct bt_engine_ops {
	const char *name;		/* bt_engine_names[kind] */
	/* Zeroed memory that every worker sees at the same address; NULL on failure. */
	void *(*map)(size_t size);
	void (*unmap)(void *p, size_t size);
	/*
	 * Start worker i: it must call bt_engine_worker_main(e, i) and then end
	 * (a thread returns, a process _exits without atexit handlers or a
	 * stdio flush). 0 or negative errno with err set.
	 */
	int (*start)(struct bt_engine *e, int i, struct bt_err *err);
	/*
	 * Return how many workers have ended for good, noticing those that
	 * ended without returning from bt_engine_worker_main (a killed
	 * process: fail it with bt_engine_worker_lost). Blocks only when every
	 * worker has returned (then the rest are about to end). NULL when
	 * workers cannot end that way (threads): then the finished count is it.
	 */
	int (*poll)(struct bt_engine *e);
	/* Worker i no longer exists (its recorder has no writer left). NULL with poll. */
	int (*gone)(struct bt_engine *e, int i);
	/* The workers' CPU so far. After collect: the exact totals. */
	void (*cpu)(struct bt_engine *e, struct bt_cpu_mark *m);
	/* Wait for the started workers to end (join, reap). Called once. */
	void (*collect)(struct bt_engine *e);
	/* Free what start made (after collect). May be NULL. */
	void (*destroy)(struct bt_engine *e);
};

extern const struct bt_engine_ops bt_engine_threads;
extern const struct bt_engine_ops bt_engine_processes;

/* The ops of engine kind k (enum bt_engine_kind), or NULL. */
const struct bt_engine_ops *bt_engine_get(int k);

struct bt_engine_cfg {
	const struct bt_engine_ops *engine;	/* NULL: threads */
	int (*worker)(struct bt_worker *w);
	struct bt_job *job;		/* job->nworkers workers are started */
	const int *cpus;		/* [nworkers] CPU per worker (-1: none), or NULL */
	int lat_on;
	int nch;			/* extra latency channels (<= BT_LAT_CH_MAX), recorded when lat_on */
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
	/*
	 * Called on the calling thread after on_interval_hist, once per extra
	 * channel ch (1..nch), with that channel's interval histogram (only
	 * when lat_on). May be NULL.
	 */
	void (*on_interval_ch)(void *arg, int ch, const struct bt_hist *ival);
	/*
	 * Called on the calling thread before on_sample with the workers'
	 * metric slots so far in this rep, combined per the metric table
	 * (bt_metrics_combine, relaxed loads: no worker waits), and the errors
	 * so far. May be NULL.
	 */
	void (*on_metrics)(void *arg, const uint64_t *metric, int nmetrics, uint64_t errors);
	/*
	 * Called on the calling thread once every worker is started and parked
	 * at the gate, before the gate opens (tests find worker processes here).
	 * May be NULL.
	 */
	void (*on_started)(void *arg, const struct bt_engine *e);
	void *arg;
	_Atomic int *cancel;		/* raised by the face to stop at once; may be NULL */
	const struct bt_metric *metrics;	/* the workload's typed metrics: how to combine workers */
	int nmetrics;
	int cell, rep;			/* copied into samples */
};

struct bt_engine_out {
	uint64_t ops, bytes, errors;
	uint64_t metric[BT_METRICS_MAX];	/* workers combined per metric kind (gauges by .agg) */
	double wall_s, user_s, sys_s;	/* the workers' CPU over the rep */
	double vcsw, ivcsw;
	struct bt_hist *hist;		/* caller-allocated; latencies of the whole rep merged in */
	/*
	 * Caller-allocated, one per extra channel (cfg.nch; NULL to drop one):
	 * the channel's latencies of the whole rep. The samples and the live
	 * interval histogram stay the main channel's.
	 */
	struct bt_hist *ch_hist[BT_LAT_CH_MAX];
	uint32_t lat_every;		/* largest 1-in-N used; 0 when latency off */
	int nworkers;
	struct bt_worker_result *workers;	/* malloc'd [nworkers]; caller frees */
	int failed;			/* a worker failed: err has the first message */
	int cancelled;			/* stopped by *cancel */
};

/*
 * The region the workers and the sampler share (one mapping). The gate and
 * finished words are futex words that work across processes.
 */
struct bt_engine_shared {
	_Alignas(64) _Atomic int stop;
	_Alignas(64) _Atomic uint32_t ready;	/* workers parked at the gate */
	_Atomic uint32_t go;			/* 1: the gate is open */
	_Alignas(64) _Atomic uint32_t finished;	/* workers returned from their loop */
};

/* One rep in progress: what the engine's ops work on. */
struct bt_engine {
	const struct bt_engine_cfg *cfg;
	const struct bt_engine_ops *ops;
	int n;				/* workers */
	struct bt_engine_shared *sh;	/* in the region */
	struct bt_worker *w;		/* [n] in the region */
	struct bt_recorder *rec;	/* [n * (1 + nch)] in the region (channel c of worker i
					 * at c * n + i), or NULL */
	int nch;			/* extra channels with recorders */
	void *region;
	size_t region_size;
	void *priv;			/* the engine's own (thread ids, pids) */
	int lost_first;			/* the first worker lost (bt_engine_worker_lost), or -1 */
};

/*
 * The body of worker i, for the engines' start: pin, note the CPU, wait at
 * the gate, run the workload's loop, note the end, count as finished.
 */
void bt_engine_worker_main(struct bt_engine *e, int i);

/* For poll: worker i ended without finishing; fail it with msg and stop the others. */
void bt_engine_worker_lost(struct bt_engine *e, int i, const char *msg);

/*
 * Run one rep to completion on the calling thread (blocking). Returns 0 when
 * the workers ran (check out->failed / out->cancelled), or negative with err
 * set when they could not be started (threads, processes, memory, pinning).
 */
int bt_engine_run(const struct bt_engine_cfg *cfg, struct bt_engine_out *out, struct bt_err *err);

/* Combine n workers' metric slots into out[nm] per the metric table (engine.c). */
void bt_metrics_combine(const struct bt_metric *m, int nm, const struct bt_worker *w, int n,
			uint64_t *out);

/*
 * Free every bt_job_shared_alloc of job (the runner calls it after the
 * workload's teardown; so do tests that drive a workload directly).
 */
void bt_job_shared_free_all(struct bt_job *job);

#endif
