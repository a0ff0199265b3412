/*
 * engine.c - the thread engine (see engine.h).
 *
 * Threads are created for every rep: creation happens before the start
 * barrier, so it is not measured, and a rep can never inherit state (a
 * pinned mask, a warmed TLS) from the previous one.
 */
#include "engines/engine.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/clock.h"
#include "engines/pin.h"

struct engine {
	const struct bt_engine_cfg *cfg;
	int n;
	struct bt_worker *w;		/* [n], cache-line aligned */
	struct bt_recorder *rec;	/* [n] or NULL */
	pthread_t *tid;
	pthread_mutex_t gate_mutex;	/* start gate: all workers begin together */
	pthread_cond_t gate_cond;
	int ready, go;			/* under gate_mutex */
	_Atomic int stop;
	pthread_mutex_t done_mutex;	/* taken once per worker per rep, never in a loop */
	pthread_cond_t done_cond;	/* CLOCK_MONOTONIC */
	int finished;			/* under done_mutex */
	uint64_t *ops;			/* [n] sampler's scratch */
	struct wstart *start;		/* [n] what each thread is started with */
};

/* A worker thread's start argument: its worker and the engine it runs in. */
struct wstart {
	struct engine *e;
	struct bt_worker *w;
};

int bt_worker_fail(struct bt_worker *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->failed) {
		va_start(ap, fmt);
		vsnprintf(w->err, sizeof(w->err), fmt, ap);
		va_end(ap);
		w->failed = 1;
	}
	atomic_store_explicit(w->stop, 1, memory_order_relaxed);
	return -EIO;
}

/*
 * Choose 1-in-N so that timing (two clock reads and a record) costs about 1%
 * of the op: N = cost / (1% of the cycle time seen since the last window),
 * rounded up to a power of two. Runs every 256 timed ops, on the worker.
 * The window is counted in timed calls x N, not in w->done: a workload may
 * count bytes rather than calls as its ops (hash counts bytes).
 */
void bt_worker_lat_adapt(struct bt_worker *w, uint64_t now)
{
	uint64_t ops = 256ull * w->lat_every;
	double cycle, want;
	uint32_t every = 1;

	if (ops == 0 || now <= w->auto_t0)
		return;
	cycle = (double)(now - w->auto_t0) / (double)ops;
	want = w->lat_cost_ns / (0.01 * cycle);
	while (every < 65536 && (double)every < want)
		every <<= 1;
	w->lat_every = every;
	if (w->lat_left > every)
		w->lat_left = every;
	if (every > w->lat_max_every)
		w->lat_max_every = every;
	w->auto_t0 = now;
}

/*
 * Combine the workers' metric slots into one value per metric: counters and
 * times sum; a gauge as its .agg says; a ratio is derived later from two
 * others (results), so its slot stays 0.
 */
void bt_metrics_combine(const struct bt_metric *m, int nm, const struct bt_worker *w, int n,
			uint64_t *out)
{
	for (int k = 0; k < nm && k < BT_METRICS_MAX; k++) {
		uint64_t acc = 0;

		if (m[k].kind == BT_MK_RATIO) {
			out[k] = 0;
			continue;
		}
		for (int i = 0; i < n; i++) {
			uint64_t v = atomic_load_explicit(&w[i].c.metric[k], memory_order_relaxed);

			if (m[k].kind != BT_MK_GAUGE || m[k].agg == BT_MA_SUM || m[k].agg == BT_MA_MEAN)
				acc += v;
			else if (m[k].agg == BT_MA_MAX)
				acc = (i == 0 || v > acc) ? v : acc;
			else
				acc = (i == 0 || v < acc) ? v : acc;
		}
		if (m[k].kind == BT_MK_GAUGE && m[k].agg == BT_MA_MEAN && n > 0)
			acc /= (uint64_t)n;
		out[k] = acc;
	}
}

static void *worker_main(void *arg)
{
	const struct wstart *ws = arg;
	struct bt_worker *w = ws->w;
	struct engine *e = ws->e;
	int rc;

	if (w->cpu_pinned >= 0 && bt_pin_self(w->cpu_pinned) < 0)
		bt_worker_fail(w, "cannot pin worker %d to CPU %d", w->id, w->cpu_pinned);
	w->cpu_first = sched_getcpu();
	pthread_mutex_lock(&e->gate_mutex);
	e->ready++;
	pthread_cond_broadcast(&e->gate_cond);
	while (!e->go)
		pthread_cond_wait(&e->gate_cond, &e->gate_mutex);
	pthread_mutex_unlock(&e->gate_mutex);

	w->auto_t0 = bt_now_ns();
	/* A worker with no share of a tiny ops= quota has nothing to do. */
	if (w->job->ops && w->quota == 0)
		;
	else if (!atomic_load_explicit(&e->stop, memory_order_relaxed)) {
		rc = e->cfg->worker(w);
		if (rc < 0 && !w->failed)
			bt_worker_fail(w, "worker %d failed: %s", w->id, strerror(-rc));
	}

	w->cpu_last = sched_getcpu();
	w->t_end = bt_now_ns();
	pthread_mutex_lock(&e->done_mutex);
	if (++e->finished == e->n)
		pthread_cond_signal(&e->done_cond);
	pthread_mutex_unlock(&e->done_mutex);
	return NULL;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

struct cpu_mark {
	uint64_t t;
	struct rusage ru;
};

static void cpu_mark(struct cpu_mark *m)
{
	m->t = bt_now_ns();
	getrusage(RUSAGE_SELF, &m->ru);
}

/* Sum counters and histograms over [prev, now] into one sample. */
static void sample(struct engine *e, struct bt_hist *ival, struct bt_engine_out *out,
		   struct cpu_mark *prev, uint64_t t0, uint64_t *prev_ops, uint64_t *prev_bytes)
{
	const struct bt_engine_cfg *cfg = e->cfg;
	struct bt_sample s = { .cell = cfg->cell, .rep = cfg->rep };
	struct cpu_mark now;
	uint64_t ops = 0, bytes = 0;
	double dt, user, sys;

	for (int i = 0; i < e->n; i++) {
		e->ops[i] = atomic_load_explicit(&e->w[i].c.ops, memory_order_relaxed);
		ops += e->ops[i];
		bytes += atomic_load_explicit(&e->w[i].c.bytes, memory_order_relaxed);
	}
	if (e->rec != NULL) {
		bt_hist_reset(ival);
		for (int i = 0; i < e->n; i++)
			bt_recorder_take(&e->rec[i], ival);
		if (out->hist != NULL)
			bt_hist_add(out->hist, ival);
		if (cfg->on_interval_hist != NULL)
			cfg->on_interval_hist(cfg->arg, ival);
		s.lat_count = ival->total;
		if (ival->total) {
			s.p50 = bt_hist_percentile(ival, 50);
			s.p90 = bt_hist_percentile(ival, 90);
			s.p99 = bt_hist_percentile(ival, 99);
			s.p999 = bt_hist_percentile(ival, 99.9);
			s.max = ival->max;
		}
	}
	cpu_mark(&now);
	dt = (double)(now.t - prev->t) / 1e9;
	if (dt <= 0)
		dt = 1e-9;
	user = tv_s(now.ru.ru_utime) - tv_s(prev->ru.ru_utime);
	sys = tv_s(now.ru.ru_stime) - tv_s(prev->ru.ru_stime);
	s.t = (double)(now.t - t0) / 1e9;
	s.dt = dt;
	s.ops = ops;
	s.ops_s = (double)(ops - *prev_ops) / dt;
	s.bytes_s = (double)(bytes - *prev_bytes) / dt;
	s.user_pct = 100.0 * user / dt;
	s.sys_pct = 100.0 * sys / dt;
	s.cpu_pct = s.user_pct + s.sys_pct;
	*prev = now;
	*prev_ops = ops;
	*prev_bytes = bytes;
	if (cfg->on_sample != NULL)
		cfg->on_sample(cfg->arg, &s, e->ops, e->n);
}

static void engine_free(struct engine *e)
{
	if (e->rec != NULL)
		for (int i = 0; i < e->n; i++)
			bt_recorder_destroy(&e->rec[i]);
	free(e->rec);
	free(e->w);
	free(e->tid);
	free(e->ops);
	free(e->start);
}

int bt_engine_run(const struct bt_engine_cfg *cfg, struct bt_engine_out *out, struct bt_err *err)
{
	struct engine e = { .cfg = cfg, .n = cfg->job->nworkers };
	struct bt_hist *ival = NULL;
	struct cpu_mark m0, m1, prev;
	pthread_condattr_t ca;
	uint64_t t0, next, deadline = 0, prev_ops = 0, prev_bytes = 0;
	uint64_t sample_ns = cfg->sample_ns ? cfg->sample_ns : 100000000u;
	int started = 0, rc = 0;

	struct bt_hist *keep = out->hist;	/* the caller's; everything else starts zeroed */

	memset(out, 0, sizeof(*out));
	out->hist = keep;
	if (e.n < 1)
		return bt_err_set(err, -EINVAL, "workload asked for %d worker threads", e.n);

	atomic_init(&e.stop, 0);
	e.w = aligned_alloc(64, sizeof(*e.w) * (size_t)e.n);
	e.tid = calloc((size_t)e.n, sizeof(*e.tid));
	e.ops = calloc((size_t)e.n, sizeof(*e.ops));
	e.start = calloc((size_t)e.n, sizeof(*e.start));
	out->workers = calloc((size_t)e.n, sizeof(*out->workers));
	if (e.w == NULL || e.tid == NULL || e.ops == NULL || e.start == NULL ||
	    out->workers == NULL) {
		rc = bt_err_set(err, -ENOMEM, "out of memory for %d workers", e.n);
		goto out;
	}
	memset(e.w, 0, sizeof(*e.w) * (size_t)e.n);
	if (cfg->lat_on) {
		e.rec = aligned_alloc(64, sizeof(*e.rec) * (size_t)e.n);
		ival = bt_hist_new();
		if (e.rec == NULL || ival == NULL) {
			rc = bt_err_set(err, -ENOMEM, "out of memory for latency histograms");
			goto out;
		}
		for (int i = 0; i < e.n; i++) {
			if (bt_recorder_init(&e.rec[i]) < 0) {
				for (int j = 0; j < i; j++)
					bt_recorder_destroy(&e.rec[j]);
				free(e.rec);
				e.rec = NULL;
				rc = bt_err_set(err, -ENOMEM, "out of memory for latency histograms");
				goto out;
			}
		}
	}

	for (int i = 0; i < e.n; i++) {
		struct bt_worker *w = &e.w[i];

		w->id = i;
		w->nworkers = e.n;
		w->job = cfg->job;
		w->stop = &e.stop;
		e.start[i] = (struct wstart){ .e = &e, .w = w };
		if (cfg->job->ops)
			w->quota = cfg->job->ops / (uint64_t)e.n +
				   ((uint64_t)i < cfg->job->ops % (uint64_t)e.n);
		w->cpu_pinned = cfg->cpus ? cfg->cpus[i] : -1;
		w->cpu_first = w->cpu_last = -1;
		if (e.rec != NULL) {
			w->rec = &e.rec[i];
			w->lat_every = cfg->lat_every ? cfg->lat_every : 1;
			w->lat_max_every = w->lat_every;
			w->lat_auto = cfg->lat_every == 0;
			w->lat_left = 1;
			w->lat_cost_ns = 2 * cfg->clock_cost_ns + 20;
		}
	}
	pthread_mutex_init(&e.done_mutex, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e.done_cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&e.gate_mutex, NULL);
	pthread_cond_init(&e.gate_cond, NULL);

	for (int i = 0; i < e.n; i++) {
		int prc = pthread_create(&e.tid[i], NULL, worker_main, &e.start[i]);

		if (prc != 0) {
			rc = bt_err_set(err, -prc, "cannot start worker thread %d of %d: %s",
					i + 1, e.n, strerror(prc));
			break;
		}
		started++;
	}
	/* Wait until every started worker is at the gate (pinned, CPU noted). */
	pthread_mutex_lock(&e.gate_mutex);
	while (e.ready < started)
		pthread_cond_wait(&e.gate_cond, &e.gate_mutex);
	pthread_mutex_unlock(&e.gate_mutex);
	if (started < e.n) {
		atomic_store(&e.stop, 1);
		pthread_mutex_lock(&e.gate_mutex);
		e.go = 1;
		pthread_cond_broadcast(&e.gate_cond);
		pthread_mutex_unlock(&e.gate_mutex);
		for (int i = 0; i < started; i++)
			pthread_join(e.tid[i], NULL);
		goto out_sync;
	}

	cpu_mark(&m0);
	prev = m0;
	t0 = m0.t;
	pthread_mutex_lock(&e.gate_mutex);
	e.go = 1;
	pthread_cond_broadcast(&e.gate_cond);
	pthread_mutex_unlock(&e.gate_mutex);
	if (cfg->job->duration_ns)
		deadline = t0 + cfg->job->duration_ns;
	next = t0 + sample_ns;

	pthread_mutex_lock(&e.done_mutex);
	while (e.finished < e.n) {
		uint64_t wake = next, now;
		struct timespec ts;

		if (deadline && deadline < wake && !atomic_load(&e.stop))
			wake = deadline;
		ts.tv_sec = (time_t)(wake / 1000000000u);
		ts.tv_nsec = (long)(wake % 1000000000u);
		pthread_cond_timedwait(&e.done_cond, &e.done_mutex, &ts);
		if (e.finished == e.n)
			break;
		pthread_mutex_unlock(&e.done_mutex);

		now = bt_now_ns();
		if (cfg->cancel && atomic_load(cfg->cancel) && !out->cancelled) {
			out->cancelled = 1;
			atomic_store(&e.stop, 1);
		}
		if (deadline && now >= deadline)
			atomic_store(&e.stop, 1);
		if (now >= next) {
			sample(&e, ival, out, &prev, t0, &prev_ops, &prev_bytes);
			while (next <= now)
				next += sample_ns;
		}
		pthread_mutex_lock(&e.done_mutex);
	}
	pthread_mutex_unlock(&e.done_mutex);

	for (int i = 0; i < e.n; i++)
		pthread_join(e.tid[i], NULL);
	cpu_mark(&m1);
	/*
	 * The last, partial interval, however short: every rep has at least one
	 * sample, and the samples account for every op and latency exactly once
	 * (its dt says how long it was).
	 */
	sample(&e, ival, out, &prev, t0, &prev_ops, &prev_bytes);

	{
		uint64_t t_end = t0;

		for (int i = 0; i < e.n; i++) {
			struct bt_worker *w = &e.w[i];

			if (w->t_end > t_end)
				t_end = w->t_end;
			out->ops += w->done;
			out->bytes += w->bytes;
			out->errors += w->nerrors;
			out->workers[i].ops = w->done;
			out->workers[i].cpu_first = w->cpu_first;
			out->workers[i].cpu_last = w->cpu_last;
			out->workers[i].pinned = w->cpu_pinned;
			if (w->lat_max_every > out->lat_every)
				out->lat_every = w->lat_max_every;
			if (w->failed && !out->failed) {
				out->failed = 1;
				bt_err_set(err, -EIO, "%s", w->err);
			}
		}
		out->wall_s = (double)(t_end - t0) / 1e9;
		bt_metrics_combine(cfg->metrics, cfg->nmetrics, e.w, e.n, out->metric);
	}
	out->user_s = tv_s(m1.ru.ru_utime) - tv_s(m0.ru.ru_utime);
	out->sys_s = tv_s(m1.ru.ru_stime) - tv_s(m0.ru.ru_stime);
	out->vcsw = (double)(m1.ru.ru_nvcsw - m0.ru.ru_nvcsw);
	out->ivcsw = (double)(m1.ru.ru_nivcsw - m0.ru.ru_nivcsw);
	out->nworkers = e.n;
	if (!cfg->lat_on)
		out->lat_every = 0;

out_sync:
	pthread_cond_destroy(&e.gate_cond);
	pthread_mutex_destroy(&e.gate_mutex);
	pthread_cond_destroy(&e.done_cond);
	pthread_mutex_destroy(&e.done_mutex);
out:
	bt_hist_free(ival);
	engine_free(&e);
	if (rc < 0) {
		free(out->workers);
		out->workers = NULL;
	}
	return rc;
}
