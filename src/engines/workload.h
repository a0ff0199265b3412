/*
 * workload.h - the interface a workload implements. One file per workload
 * ends with one const struct bt_workload, listed in one registry array
 * (workloads/registry.c). The engine knows this interface, never a workload.
 */
#ifndef BT_ENGINES_WORKLOAD_H
#define BT_ENGINES_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/param.h"
#include "engines/worker.h"

/*
 * A typed metric: a figure of the workload's own beyond ops, bytes and
 * latency (hits, misses, bytes resident after a cold drop, connect time,
 * errors by kind). Declared once in the descriptor like the parameters;
 * workers report it through bt_worker_count / bt_worker_gauge /
 * bt_worker_error (worker.h), setup and verify through bt_job_metric; it is
 * recorded per rep, summarized per cell, shown, exported and compared.
 */
enum bt_metric_kind {
	BT_MK_COUNTER,	/* events: the sum over workers; per rep a total */
	BT_MK_GAUGE,	/* a level (bytes resident): workers combined by .agg */
	BT_MK_RATIO,	/* .num / .den, two other metrics of the same rep (hit ratio) */
	BT_MK_TIME,	/* ns summed over workers; per .den event when .den is set */
};

/* How a gauge combines its workers' values (counters and times always sum). */
enum bt_metric_agg { BT_MA_SUM, BT_MA_MAX, BT_MA_MIN, BT_MA_MEAN };

struct bt_metric {
	const char *name;	/* "hits", "resident", "timeout" */
	const char *unit;	/* "keys", "bytes", "%", "ns" */
	enum bt_metric_kind kind;
	enum bt_metric_agg agg;	/* gauges only */
	int error;		/* 1: an error kind; a rep's errors is the sum of these */
	const char *num, *den;	/* RATIO: names of two metrics; TIME: den = per what (or NULL) */
	const char *help;	/* one line */
};

/*
 * Resources at three levels. A workload may hold resources for the whole run
 * (a spawned server, generated data, a scratch directory), for one cell, and
 * for one rep (setup/teardown). The runner calls
 *
 *   run_setup                               once, before the first cell
 *     cell_setup                            per cell, before its first rep
 *       setup / worker... / verify / teardown   per rep (warmups included)
 *     cell_teardown                         after the cell's last rep
 *   run_teardown                            once, after the last cell
 *
 * With order=interleaved or shuffled the cells take turns, one rep each: a
 * cell's cell_setup then runs before its first rep, its level stays held
 * until the run ends (other cells' reps run in between), and all cells'
 * cell_teardowns run after the last rep, in reverse order of their setups.
 * A workload whose cells cannot all be held at once (one port, one scratch
 * directory) must key them by cell or refuse such orders in check.
 *
 * Every teardown whose setup succeeded runs, in reverse order, whether
 * the run completes, fails (a rep, a cell or the run's own setup), or is
 * cancelled (Ctrl-C, SIGTERM, SIGHUP all become bt_run_cancel in the faces).
 * A failing setup releases what it took itself before it returns.
 *
 * What the run level sees: every cell's values (struct bt_run_ctx), because
 * a run resource often depends on a swept value (backend=memcached,redis
 * needs one memcached and one redis for the whole run, not one per cell):
 * run_setup starts what the union of the cells needs, or leaves it to the
 * cell level to start lazily and keep in the run's state. The cell and rep
 * levels see the run's state as job->run_state, the rep level the cell's as
 * job->cell_state. All hooks run on the runner's controller thread.
 */
struct bt_run_ctx {
	int ncells;
	/* cells[c][i]: cell c's value of workload parameter i (table order) */
	const struct bt_value *const *const *cells;
	void *state;		/* run_setup's, freed by run_teardown */
};

struct bt_job_shm;

/*
 * One rep of one cell, as a workload sees it (for cell_setup/cell_teardown:
 * the cell, with params, run_state and cell_state only).
 */
struct bt_job {
	const struct bt_value *const *params;	/* [wl->nparams]: this cell's values, table order */
	void *run_state;	/* struct bt_run_ctx.state */
	void *cell_state;	/* cell_setup's, freed by cell_teardown */
	/*
	 * 1 when the workers run in processes of their own (as=processes):
	 * whatever they write must come from bt_job_shared_alloc, and locks
	 * they share must be process-shared (sync.h bt_lock_init_pshared).
	 */
	int pshared;
	int engine;		/* the engine the workers run on (engine.h enum bt_engine_kind) */
	struct bt_job_shm *shm;	/* bt_job_shared_alloc's list; the runner frees it */
	int nworkers;		/* setup sets it: how many workers to start */
	uint64_t ops;		/* stop rule: total ops (0 = none); the engine splits it */
	uint64_t duration_ns;	/* stop rule: duration (0 = none) */
	int lat_on;		/* latency recording on */
	/*
	 * Setup may say which workers do the ops the unit counts (pipeline:
	 * the receivers), so that per-thread views compare peers: workers
	 * counted_first .. counted_first + counted_n - 1. 0 and 0 mean all.
	 */
	int counted_first, counted_n;
	/*
	 * Setup may say how many ops a rep of fixed work does in all (pipeline:
	 * producers x units), so that a face shows progress within the rep;
	 * 0: unknown (a duration or an ops quota says it then).
	 */
	uint64_t total_ops;
	void *state;		/* setup's, freed by teardown */
	/*
	 * A workload that starts threads of its own inside its one worker (an
	 * OpenMP team) sets team in setup to how many. The runner then points
	 * team_cpus at team CPUs chosen by the plan's pin policy, entry i for
	 * team thread i (entry 0 is the worker's own CPU), valid until
	 * teardown; NULL when pin=none or team is 0.
	 */
	int team;
	const int *team_cpus;
	/*
	 * Rep-level metric values set by setup or verify (bt_job_metric), added
	 * to what the workers reported: a figure measured once per rep, such as
	 * the bytes still resident after a cache drop.
	 */
	uint64_t metric[BT_METRICS_MAX];
	/*
	 * Raised when the run is cancelled (Ctrl-C, SIGTERM, the TUI's Esc). A
	 * setup that takes long (filling gigabytes, generating files) checks
	 * bt_job_cancelled between chunks and returns an error: the runner then
	 * ends the rep as interrupted, not failed. NULL outside a run.
	 */
	const _Atomic int *cancel;
};

/* Engine bits for struct bt_workload.engines (engine.h enum bt_engine_kind). */
#define BT_ENGINES_THREADS (1u << 0)
#define BT_ENGINES_PROCESSES (1u << 1)

struct bt_workload {
	const char *name;	/* "pipeline" */
	const char *group;	/* "threads", "crypto", "kv", "files", "events", "harness" */
	const char *title;	/* one line */
	const char *unit;	/* what one op is, plural: "items", "bytes", "requests" */
	const char *lat_what;	/* what a recorded latency is: "end-to-end per message" */
	/*
	 * NULL-terminated names of extra latency channels (at most
	 * BT_LAT_CH_MAX; NULL: none): channel k >= 1 is lat_channels[k - 1],
	 * recorded with bt_lat_record_ch and kept per rep and cell beside the
	 * main histogram (channel 0, lat_what).
	 */
	const char *const *lat_channels;
	const struct bt_param *params;
	size_t nparams;
	const struct bt_metric *metrics;	/* typed metrics, at most BT_METRICS_MAX; may be NULL */
	size_t nmetrics;
	/*
	 * The stop rule when the plan gives neither duration= nor ops=:
	 * "duration=1s" or "ops=1000000"; NULL when the work is fixed by the
	 * workload's own parameters (then duration= and ops= are refused).
	 */
	const char *stop_default;
	/*
	 * The cell speedups are reported against when its axis is swept
	 * ("mode=serial"); NULL: against the first threads value when threads
	 * is swept.
	 */
	const char *baseline;
	/*
	 * The server programs server=spawn may start (NULL-terminated;
	 * "memcached", "redis-server"): the faces say which are installed.
	 */
	const char *const *servers;
	/* NULL when usable, else a one-line reason ("memcached is not installed"). */
	const char *(*unavailable)(void);
	/* Cross-parameter validation, for every cell before anything starts. May be NULL. */
	int (*check)(const struct bt_value *const *params, struct bt_err *err);
	/*
	 * The engines it can run on (BT_ENGINES_*), picked by as= (engine_pick.h); 0 means
	 * threads only. A workload that allows processes keeps everything its
	 * workers write in bt_job_shared_alloc memory.
	 */
	unsigned engines;
	/*
	 * The engine a cell's values call for (enum bt_engine_kind), or -1 for
	 * either: grep's how=processes is one forked process per file. as=auto
	 * (the default) takes it; an as= naming another engine is refused. *why
	 * names the value for that message ("how=processes"). May be NULL.
	 */
	int (*engine_for)(const struct bt_value *const *params, const char **why);
	/* Run level (see struct bt_run_ctx). Each may be NULL. */
	int (*run_setup)(struct bt_run_ctx *run, struct bt_err *err);
	void (*run_teardown)(struct bt_run_ctx *run);
	/* Cell level: job has params and run_state; set job->cell_state. Each may be NULL. */
	int (*cell_setup)(struct bt_job *cell, struct bt_err *err);
	void (*cell_teardown)(struct bt_job *cell);
	/* Allocate and prepare one rep; set job->nworkers and job->state. */
	int (*setup)(struct bt_job *job, struct bt_err *err);
	/* The per-thread loop: runs until bt_worker_stopping() (or its fixed work is done). */
	int (*worker)(struct bt_worker *w);
	/* After all workers returned: check correctness (exactly once, digests, ...). May be NULL. */
	int (*verify)(struct bt_job *job, struct bt_err *err);
	/* Free what setup made. Called whenever setup succeeded. */
	void (*teardown)(struct bt_job *job);
};

/* The workload's parameter value by its table index (workloads use an enum for indices). */
static inline const struct bt_value *bt_job_param(const struct bt_job *job, int i)
{
	return job->params[i];
}

/*
 * Zeroed memory that every worker of the job sees and may write, whatever
 * the engine (a MAP_SHARED mapping), valid until the runner frees it after
 * teardown (engine.h bt_job_shared_free_all). NULL when out of memory. For
 * setup, on the controller thread.
 */
void *bt_job_shared_alloc(struct bt_job *job, size_t size);

/* True once the run is cancelled: a long setup stops between chunks. */
static inline int bt_job_cancelled(const struct bt_job *job)
{
	return job->cancel != NULL && atomic_load_explicit(job->cancel, memory_order_relaxed) != 0;
}

/* Set rep-level metric m (from setup or verify, on the controller thread). */
static inline void bt_job_metric(struct bt_job *job, int m, uint64_t v)
{
	job->metric[m] = v;
}

#endif
