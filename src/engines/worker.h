/*
 * worker.h - what a workload's worker loop sees: its struct bt_worker and the
 * inline helpers to report progress, time operations and check for stop.
 *
 * A worker owns its counters (one cache line, written with relaxed atomic
 * stores, read by the sampler) and its latency recorder. It never prints and
 * never exits: on an error it calls bt_worker_fail, which records the first
 * message and asks every worker to stop.
 */
#ifndef BT_ENGINES_WORKER_H
#define BT_ENGINES_WORKER_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/clock.h"
#include "core/err.h"
#include "engines/recorder.h"

struct bt_job;

/* Most typed metrics a workload may declare (workload.h: struct bt_metric). */
#define BT_METRICS_MAX 16

/*
 * Most extra latency channels a workload may declare (workload.h
 * .lat_channels): channel 0 is the main histogram, 1..BT_LAT_CH_MAX the
 * extra ones (kv's per-operation service times, sql's statement and commit).
 */
#define BT_LAT_CH_MAX 3

struct bt_counters {
	_Alignas(64) _Atomic uint64_t ops;
	_Atomic uint64_t bytes;
	_Atomic uint64_t errors;	/* the sum of the error-kind metrics */
	_Atomic uint64_t metric[BT_METRICS_MAX];	/* by the workload's metric index */
	_Atomic uint32_t lat_every;	/* lat_max_every as the adaptation leaves it (explore reads it live) */
};

struct bt_worker {
	struct bt_counters c;		/* the only fields other threads read while running */

	_Alignas(64) int id;		/* 0..nworkers-1 */
	int nworkers;
	struct bt_job *job;		/* the workload's run: params and its state */
	void *local;			/* free for the workload's per-worker state */
	_Atomic int *stop;		/* set by the engine (duration, cancel) or a failure */
	uint64_t quota;			/* ops this worker does when the stop rule is ops=; 0 = none */
	uint64_t done;			/* ops so far (mirrored into c.ops) */
	uint64_t bytes;			/* bytes so far (mirrored into c.bytes) */
	uint64_t nerrors;

	struct bt_recorder *rec;	/* NULL when latency recording is off */
	struct bt_recorder *ch_rec[BT_LAT_CH_MAX];	/* extra channels 1..; NULL: not declared or off */
	uint32_t lat_every;		/* time 1 in lat_every ops */
	int lat_learn;			/* the last call was timed: learn done per call on the next */
	uint64_t lat_next;		/* done at which the next call is timed (see bt_lat_begin); UINT64_MAX: recording off */
	uint64_t lat_mark;		/* done when the last timed call began */
	int lat_auto;			/* adapt lat_every to the op cost */
	uint32_t lat_max_every;		/* largest lat_every used (for the record) */
	uint64_t lat_timed;		/* timed ops so far */
	uint64_t auto_t0;		/* adaptation window start */
	double lat_cost_ns;		/* cost of timing one op (2 clock reads + record) */

	int cpu_pinned;			/* -1 when not pinned */
	int cpu_first, cpu_last;	/* sched_getcpu() at start and end */
	int pid;			/* getpid() of the process it runs in */
	uint64_t t_end;			/* CLOCK_MONOTONIC ns when the worker returned */
	int failed;
	char err[BT_ERR_MAX];
};

/* True when this worker should leave its loop: stop raised or quota done. */
static inline int bt_worker_stopping(const struct bt_worker *w)
{
	return atomic_load_explicit(w->stop, memory_order_relaxed) ||
	       (w->quota != 0 && w->done >= w->quota);
}

/* True when stop was raised (ignores the quota): for loops whose work is fixed by parameters. */
static inline int bt_worker_stop_raised(const struct bt_worker *w)
{
	return atomic_load_explicit(w->stop, memory_order_relaxed) != 0;
}

/* Count n finished ops. */
static inline void bt_worker_ops(struct bt_worker *w, uint64_t n)
{
	w->done += n;
	atomic_store_explicit(&w->c.ops, w->done, memory_order_relaxed);
}

/* Count n bytes processed. */
static inline void bt_worker_bytes(struct bt_worker *w, uint64_t n)
{
	w->bytes += n;
	atomic_store_explicit(&w->c.bytes, w->bytes, memory_order_relaxed);
}

/*
 * Add n to this worker's counter or time metric m (the index in the
 * workload's metrics table). Only this worker writes its slot, so a relaxed
 * load and store is enough: no read-modify-write, no lock.
 */
static inline void bt_worker_count(struct bt_worker *w, int m, uint64_t n)
{
	uint64_t v = atomic_load_explicit(&w->c.metric[m], memory_order_relaxed);

	atomic_store_explicit(&w->c.metric[m], v + n, memory_order_relaxed);
}

/* Set this worker's gauge metric m to v (the engine aggregates workers as the metric says). */
static inline void bt_worker_gauge(struct bt_worker *w, int m, uint64_t v)
{
	atomic_store_explicit(&w->c.metric[m], v, memory_order_relaxed);
}

/*
 * Count a non-fatal error of kind m (a metric declared with .error = 1:
 * timeout, refused, reset, protocol, io ...): the op failed but the run goes
 * on. errors is the sum of the error kinds.
 */
static inline void bt_worker_error(struct bt_worker *w, int m)
{
	bt_worker_count(w, m, 1);
	w->nerrors++;
	atomic_store_explicit(&w->c.errors, w->nerrors, memory_order_relaxed);
}

/* Out of line: re-tune lat_every from the observed op rate. */
void bt_worker_lat_adapt(struct bt_worker *w, uint64_t now);

/* Out of line: the slow path of bt_lat_begin. */
uint64_t bt_lat_due(struct bt_worker *w);

/*
 * Before the worker starts: time its ops into rec (NULL: latency off), 1 in
 * lat_every (0: adapt), given what one clock read costs. Every engine sets
 * its workers up with this (off sets lat_next to UINT64_MAX, so the slow
 * paths below never run without a recorder); the extra channels are the
 * engine's to set.
 */
void bt_worker_lat_setup(struct bt_worker *w, struct bt_recorder *rec, uint32_t lat_every,
			 double clock_cost_ns);

/*
 * Time an op: t = bt_lat_begin(w); ...op...; bt_lat_end(w, t). Only 1 in
 * lat_every ops is timed (t == 0 for the others), so that timing costs no
 * more than about 1% of an op that is shorter than a clock read.
 *
 * The untimed path only loads: it compares the op count the worker keeps
 * anyway (done) with a threshold. A per-call countdown was one more store
 * per op, and a store before a locked instruction is drained with it: that
 * store alone cost 5-7 % of a contended atomic increment at 2 threads
 * (bench/overhead.sh). With latency recording off, lat_next is UINT64_MAX:
 * the loop then runs the very same instructions as with it on (one load, a
 * compare, a branch), so that lat=on adds nothing between timed ops, and a
 * contended lock sees the same gap between a release and the next acquire
 * in both. A workload may count n > 1 per call (bytes, records), so the
 * call after a timed one takes the slow path once and learns n.
 */
static inline uint64_t bt_lat_begin(struct bt_worker *w)
{
	if (w->done < w->lat_next)
		return 0;
	return bt_lat_due(w);
}

static inline void bt_lat_end(struct bt_worker *w, uint64_t t0)
{
	uint64_t t1;

	if (t0 == 0)
		return;
	t1 = bt_now_ns();
	bt_recorder_record(w->rec, t1 - t0);
	if (w->lat_auto && (++w->lat_timed & 255) == 0)
		bt_worker_lat_adapt(w, t1);
}

/* Out of line: the slow path of bt_lat_stamp. */
uint64_t bt_lat_stamp_due(struct bt_worker *w, uint64_t n);

/*
 * Stamp op number n (the caller's own count, from 0) whose end another
 * worker sees, such as a pipeline message that a receiver takes: returns
 * bt_now_ns() for 1 in lat_every values of n and 0 for the others; the
 * worker that sees the end records now - stamp with bt_lat_record. The
 * sampling adapts as bt_lat_begin's does, so that stamping costs about 1 %
 * of the stamping worker's cycle. Only loads when n is not due.
 */
static inline uint64_t bt_lat_stamp(struct bt_worker *w, uint64_t n)
{
	if (n < w->lat_next)
		return 0;
	return bt_lat_stamp_due(w, n);
}

/* Latency recording is on for this run (for latencies measured across threads). */
static inline int bt_lat_on(const struct bt_worker *w)
{
	return w->rec != NULL;
}

/* Record a latency measured elsewhere (e.g. a message's time in a pipeline). */
static inline void bt_lat_record(struct bt_worker *w, uint64_t ns)
{
	if (w->rec != NULL)
		bt_recorder_record(w->rec, ns);
}

/*
 * Record ns into extra latency channel ch (1..BT_LAT_CH_MAX, the workload's
 * .lat_channels[ch - 1]). Every call records (no 1-in-N sampling): extra
 * channels are for ops the workload times anyway. Wait-free, like the main
 * one; a no-op when latency recording is off or ch is not declared.
 */
static inline void bt_lat_record_ch(struct bt_worker *w, int ch, uint64_t ns)
{
	if (ch >= 1 && ch <= BT_LAT_CH_MAX && w->ch_rec[ch - 1] != NULL)
		bt_recorder_record(w->ch_rec[ch - 1], ns);
}

/*
 * Record the first error of this worker and raise stop for all workers; the
 * run ends failed with this message. Returns -EIO for "return bt_worker_fail(...)".
 */
int bt_worker_fail(struct bt_worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
