/*
 * engine.c - what every engine shares (see engine.h): the region the
 * workers and the sampler share, the start gate, the worker body, the
 * sampler, the quota split, the metric combination, and the job's shared
 * allocations. The engines themselves (engine_threads.c,
 * engine_processes.c) only start, watch and collect workers.
 *
 * Workers are started for every rep: starting happens before the gate, so
 * it is not measured, and a rep can never inherit state (a pinned mask, a
 * warmed TLS) from the previous one.
 */
#include "engines/engine.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "engines/pin.h"

const char *const bt_engine_names[] = { "threads", "processes", NULL };

const struct bt_engine_ops *bt_engine_get(int k)
{
	switch (k) {
	case BT_ENGINE_THREADS:
		return &bt_engine_threads;
	case BT_ENGINE_PROCESSES:
		return &bt_engine_processes;
	default:
		return NULL;
	}
}

/* How often the sampler asks an engine with poll whether a worker died. */
#define POLL_NS 20000000u

/*
 * Futex words in the region: shared (not _PRIVATE) operations, so that they
 * work between processes as well as between threads. The atomics carry the
 * ordering; the futex only sleeps.
 */
static void futex_wait(_Atomic uint32_t *word, uint32_t seen, uint64_t rel_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(rel_ns / 1000000000u),
			       .tv_nsec = (long)(rel_ns % 1000000000u) };

	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, seen, rel_ns ? &ts : NULL, NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

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

void bt_worker_lat_setup(struct bt_worker *w, struct bt_recorder *rec, uint32_t lat_every,
			 double clock_cost_ns)
{
	w->rec = rec;
	if (rec == NULL) {
		w->lat_next = UINT64_MAX;	/* bt_lat_begin never takes its slow path */
		return;
	}
	w->lat_every = lat_every ? lat_every : 1;
	w->lat_max_every = w->lat_every;
	w->lat_auto = lat_every == 0;
	w->lat_next = 0;	/* the first call is timed */
	/*
	 * What one timed op costs the loop: two clock reads, each as long as
	 * in a tight loop of reads (clock_cost_ns) and as long again draining
	 * the work in flight before it (the reads are ordered), and the
	 * record. Measured on md5 of 16-byte blocks at lat_every=16..64:
	 * 90-170 ns per timed call where the bare read costs 20 ns; an
	 * estimate of 2 x 20 + 20 made the "about 1 %" 2-3 %.
	 */
	w->lat_cost_ns = 4 * clock_cost_ns + 40;
	atomic_init(&w->c.lat_every, w->lat_every);
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
	w->lat_every = every;	/* the next call (learning) places the next timed one */
	if (every > w->lat_max_every) {
		w->lat_max_every = every;
		atomic_store_explicit(&w->c.lat_every, every, memory_order_relaxed);
	}
	w->auto_t0 = now;
}

/*
 * bt_lat_begin found done at or past lat_next. Right after a timed call, this
 * call learns how much done grows per call (n, at least 1) and places the
 * next timed call lat_every calls after the last one; otherwise it times this
 * call and asks the next to learn.
 */
uint64_t bt_lat_due(struct bt_worker *w)
{
	if (w->lat_learn) {
		uint64_t n = w->done > w->lat_mark ? w->done - w->lat_mark : 1;

		w->lat_learn = 0;
		w->lat_next = w->lat_mark + (uint64_t)w->lat_every * n;
		if (w->done < w->lat_next)
			return 0;
	}
	w->lat_mark = w->done;
	w->lat_next = w->done + 1;
	w->lat_learn = 1;
	return bt_now_ns();
}

uint64_t bt_lat_stamp_due(struct bt_worker *w, uint64_t n)
{
	uint64_t now = bt_now_ns();

	w->lat_next = n + w->lat_every;
	if (w->lat_auto && (++w->lat_timed & 255) == 0)
		bt_worker_lat_adapt(w, now);	/* the next stamp is lat_every (old) after this one */
	return now;
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

void bt_engine_worker_main(struct bt_engine *e, int i)
{
	struct bt_worker *w = &e->w[i];
	struct bt_engine_shared *sh = e->sh;
	int rc;

	if (w->cpu_pinned >= 0 && bt_pin_self(w->cpu_pinned) < 0)
		bt_worker_fail(w, "cannot pin worker %d to CPU %d", w->id, w->cpu_pinned);
	w->cpu_first = sched_getcpu();
	w->pid = (int)getpid();
	atomic_fetch_add(&sh->ready, 1);
	futex_wake_all(&sh->ready);
	while (!atomic_load(&sh->go))
		futex_wait(&sh->go, 0, 0);

	w->auto_t0 = bt_now_ns();
	/* A worker with no share of a tiny ops= quota has nothing to do. */
	if (w->job->ops && w->quota == 0)
		;
	else if (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
		rc = e->cfg->worker(w);
		if (rc < 0 && !w->failed)
			bt_worker_fail(w, "worker %d failed: %s", w->id, strerror(-rc));
	}

	w->cpu_last = sched_getcpu();
	w->t_end = bt_now_ns();
	atomic_fetch_add(&sh->finished, 1);
	futex_wake_all(&sh->finished);
}

void bt_engine_worker_lost(struct bt_engine *e, int i, const char *msg)
{
	struct bt_worker *w = &e->w[i];

	if (!w->failed) {
		snprintf(w->err, sizeof(w->err), "%s", msg);
		w->failed = 1;
	}
	if (e->lost_first < 0)
		e->lost_first = i;
	atomic_store(&e->sh->stop, 1);
}

/* Workers that have ended for good. */
static int ended(struct bt_engine *e)
{
	if (e->ops->poll != NULL)
		return e->ops->poll(e);
	return (int)atomic_load(&e->sh->finished);
}

struct gone_arg {
	struct bt_engine *e;
	int i;
};

static int worker_gone(void *arg)
{
	struct gone_arg *g = arg;

	return g->e->ops->gone(g->e, g->i);
}

/* Sum counters and histograms over [prev, now] into one sample. */
static void sample(struct bt_engine *e, uint64_t *wops, struct bt_hist *ival,
		   struct bt_engine_out *out, struct bt_cpu_mark *prev, uint64_t t0,
		   uint64_t *prev_ops, uint64_t *prev_bytes)
{
	const struct bt_engine_cfg *cfg = e->cfg;
	struct bt_sample s = { .cell = cfg->cell, .rep = cfg->rep };
	struct bt_cpu_mark now;
	uint64_t ops = 0, bytes = 0;
	double dt, user, sys;

	for (int i = 0; i < e->n; i++) {
		wops[i] = atomic_load_explicit(&e->w[i].c.ops, memory_order_relaxed);
		ops += wops[i];
		bytes += atomic_load_explicit(&e->w[i].c.bytes, memory_order_relaxed);
	}
	if (e->rec != NULL) {
		bt_hist_reset(ival);
		for (int i = 0; i < e->n; i++) {
			struct gone_arg g = { e, i };

			bt_recorder_take_or(&e->rec[i], ival, e->ops->gone ? worker_gone : NULL, &g);
		}
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
		/* Each extra channel's interval: into the rep's histogram and to the face. */
		for (int c = 1; c <= e->nch; c++) {
			bt_hist_reset(ival);
			for (int i = 0; i < e->n; i++) {
				struct gone_arg g = { e, i };

				bt_recorder_take_or(&e->rec[c * e->n + i], ival,
						    e->ops->gone ? worker_gone : NULL, &g);
			}
			if (out->ch_hist[c - 1] != NULL)
				bt_hist_add(out->ch_hist[c - 1], ival);
			if (cfg->on_interval_ch != NULL)
				cfg->on_interval_ch(cfg->arg, c, ival);
		}
	}
	if (cfg->on_metrics != NULL) {
		uint64_t m[BT_METRICS_MAX] = { 0 }, errors = 0;
		int nm = cfg->nmetrics < BT_METRICS_MAX ? cfg->nmetrics : BT_METRICS_MAX;

		bt_metrics_combine(cfg->metrics, nm, e->w, e->n, m);
		for (int i = 0; i < e->n; i++)
			errors += atomic_load_explicit(&e->w[i].c.errors, memory_order_relaxed);
		cfg->on_metrics(cfg->arg, m, nm, errors);
	}
	e->ops->cpu(e, &now);
	dt = (double)(now.t - prev->t) / 1e9;
	if (dt <= 0)
		dt = 1e-9;
	user = now.user_s - prev->user_s;
	sys = now.sys_s - prev->sys_s;
	s.t = (double)(now.t - t0) / 1e9;
	s.dt = dt;
	s.ops = ops;
	s.ops_s = (double)(ops - *prev_ops) / dt;
	s.bytes_s = (double)(bytes - *prev_bytes) / dt;
	s.user_pct = user > 0 ? 100.0 * user / dt : 0;
	s.sys_pct = sys > 0 ? 100.0 * sys / dt : 0;
	s.cpu_pct = s.user_pct + s.sys_pct;
	*prev = now;
	*prev_ops = ops;
	*prev_bytes = bytes;
	if (cfg->on_sample != NULL)
		cfg->on_sample(cfg->arg, &s, wops, e->n);
}

static size_t round64(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

/*
 * Lay out the region: the shared words, the workers, the recorders and
 * their histograms, in one mapping of the engine's kind. 0 or -ENOMEM.
 */
static int region_map(struct bt_engine *e, int lat_on)
{
	size_t off_w = round64(sizeof(struct bt_engine_shared));
	size_t nrec = (size_t)e->n * (size_t)(1 + e->nch);
	size_t off_rec = off_w + round64(sizeof(struct bt_worker) * (size_t)e->n);
	size_t off_h = off_rec + (lat_on ? round64(sizeof(struct bt_recorder) * nrec) : 0);
	size_t size = off_h + (lat_on ? sizeof(struct bt_hist) * 2 * nrec : 0);
	char *p = e->ops->map(size);

	if (p == NULL)
		return -ENOMEM;
	e->region = p;
	e->region_size = size;
	e->sh = (struct bt_engine_shared *)p;
	atomic_init(&e->sh->stop, 0);
	atomic_init(&e->sh->ready, 0);
	atomic_init(&e->sh->go, 0);
	atomic_init(&e->sh->finished, 0);
	e->w = (struct bt_worker *)(p + off_w);
	if (lat_on) {
		struct bt_hist *h = (struct bt_hist *)(p + off_h);

		e->rec = (struct bt_recorder *)(p + off_rec);
		for (size_t i = 0; i < nrec; i++) {
			bt_hist_init_zeroed(&h[2 * i]);
			bt_hist_init_zeroed(&h[2 * i + 1]);
			bt_recorder_init_with(&e->rec[i], &h[2 * i], &h[2 * i + 1]);
		}
	}
	return 0;
}

/* Split the job's ops= quota and set up worker i (before it starts). */
static void worker_init(struct bt_engine *e, int i)
{
	const struct bt_engine_cfg *cfg = e->cfg;
	struct bt_worker *w = &e->w[i];
	uint64_t ops = cfg->job->ops;

	w->id = i;
	w->nworkers = e->n;
	w->job = cfg->job;
	w->stop = &e->sh->stop;
	if (ops)
		w->quota = ops / (uint64_t)e->n + ((uint64_t)i < ops % (uint64_t)e->n);
	w->cpu_pinned = cfg->cpus ? cfg->cpus[i] : -1;
	w->cpu_first = w->cpu_last = -1;
	bt_worker_lat_setup(w, e->rec != NULL ? &e->rec[i] : NULL, cfg->lat_every, cfg->clock_cost_ns);
	if (e->rec != NULL) {
		for (int c = 1; c <= e->nch; c++)
			w->ch_rec[c - 1] = &e->rec[c * e->n + i];
	}
}

/* Open the gate: every parked worker begins now. */
static void gate_open(struct bt_engine *e)
{
	atomic_store(&e->sh->go, 1);
	futex_wake_all(&e->sh->go);
}

/* Wait until each of the started workers is at the gate or has ended. */
static void gate_wait(struct bt_engine *e, int started)
{
	for (;;) {
		uint32_t ready = atomic_load(&e->sh->ready);

		if ((int)ready >= started)
			return;
		if (e->ops->poll != NULL && (int)ready + e->ops->poll(e) >= started)
			return;
		futex_wait(&e->sh->ready, ready, e->ops->poll != NULL ? POLL_NS : 0);
	}
}

/* The per-worker results, failures and totals of a finished rep. */
static void results(struct bt_engine *e, struct bt_engine_out *out, uint64_t t0, struct bt_err *err)
{
	const struct bt_engine_cfg *cfg = e->cfg;
	uint64_t t_end = t0;

	/* A lost worker is why the others stopped: its message comes first. */
	if (e->lost_first >= 0) {
		out->failed = 1;
		bt_err_set(err, -EIO, "%s", e->w[e->lost_first].err);
	}
	for (int i = 0; i < e->n; i++) {
		struct bt_worker *w = &e->w[i];

		if (w->t_end > t_end)
			t_end = w->t_end;
		out->ops += w->done;
		out->bytes += w->bytes;
		out->errors += w->nerrors;
		out->workers[i].ops = w->done;
		out->workers[i].cpu_first = w->cpu_first;
		out->workers[i].cpu_last = w->cpu_last;
		out->workers[i].pinned = w->cpu_pinned;
		out->workers[i].pid = w->pid;
		if (w->lat_max_every > out->lat_every)
			out->lat_every = w->lat_max_every;
		if (w->failed && !out->failed) {
			out->failed = 1;
			bt_err_set(err, -EIO, "%s", w->err);
		}
	}
	out->wall_s = (double)(t_end - t0) / 1e9;
	bt_metrics_combine(cfg->metrics, cfg->nmetrics, e->w, e->n, out->metric);
	out->nworkers = e->n;
	if (!cfg->lat_on)
		out->lat_every = 0;
}

int bt_engine_run(const struct bt_engine_cfg *cfg, struct bt_engine_out *out, struct bt_err *err)
{
	struct bt_engine e = { .cfg = cfg, .ops = cfg->engine ? cfg->engine : &bt_engine_threads,
			       .n = cfg->job->nworkers, .lost_first = -1 };
	struct bt_hist *ival = NULL;
	struct bt_cpu_mark m0, m1, prev;
	uint64_t *wops = NULL;
	uint64_t t0, next, deadline = 0, prev_ops = 0, prev_bytes = 0;
	uint64_t sample_ns = cfg->sample_ns ? cfg->sample_ns : 100000000u;
	int started = 0, rc = 0;
	struct bt_hist *keep = out->hist;	/* the caller's; everything else starts zeroed */

	struct bt_hist *keep_ch[BT_LAT_CH_MAX];

	memcpy(keep_ch, out->ch_hist, sizeof(keep_ch));
	memset(out, 0, sizeof(*out));
	out->hist = keep;
	memcpy(out->ch_hist, keep_ch, sizeof(keep_ch));
	if (cfg->lat_on && cfg->nch > 0)
		e.nch = cfg->nch < BT_LAT_CH_MAX ? cfg->nch : BT_LAT_CH_MAX;
	if (e.n < 1)
		return bt_err_set(err, -EINVAL, "workload asked for %d workers", e.n);

	wops = calloc((size_t)e.n, sizeof(*wops));
	out->workers = calloc((size_t)e.n, sizeof(*out->workers));
	if (wops == NULL || out->workers == NULL ||
	    (cfg->lat_on && (ival = bt_hist_new()) == NULL) || region_map(&e, cfg->lat_on) < 0) {
		rc = bt_err_set(err, -ENOMEM, "out of memory for %d workers", e.n);
		goto out;
	}
	for (int i = 0; i < e.n; i++)
		worker_init(&e, i);

	for (int i = 0; i < e.n; i++) {
		if ((rc = e.ops->start(&e, i, err)) < 0)
			break;
		started++;
	}
	/* Every started worker is at the gate (pinned, CPU noted), or gone. */
	gate_wait(&e, started);
	if (started < e.n) {
		atomic_store(&e.sh->stop, 1);
		gate_open(&e);
		if (started > 0)
			e.ops->collect(&e);
		goto out;
	}
	if (cfg->on_started != NULL)
		cfg->on_started(cfg->arg, &e);

	e.ops->cpu(&e, &m0);
	prev = m0;
	t0 = m0.t;
	gate_open(&e);
	if (cfg->job->duration_ns)
		deadline = t0 + cfg->job->duration_ns;
	next = t0 + sample_ns;

	for (;;) {
		uint32_t fin = atomic_load(&e.sh->finished);
		uint64_t wake = next, now;

		if (ended(&e) >= e.n)
			break;
		if (deadline && deadline < wake && !atomic_load(&e.sh->stop))
			wake = deadline;
		now = bt_now_ns();
		if (wake > now) {
			uint64_t rel = wake - now;

			if (e.ops->poll != NULL && rel > POLL_NS)
				rel = POLL_NS;
			futex_wait(&e.sh->finished, fin, rel);
		}
		now = bt_now_ns();
		if (cfg->cancel && atomic_load(cfg->cancel) && !out->cancelled) {
			out->cancelled = 1;
			atomic_store(&e.sh->stop, 1);
		}
		if (deadline && now >= deadline)
			atomic_store(&e.sh->stop, 1);
		if (now >= next) {
			sample(&e, wops, ival, out, &prev, t0, &prev_ops, &prev_bytes);
			while (next <= now)
				next += sample_ns;
		}
	}

	e.ops->collect(&e);
	e.ops->cpu(&e, &m1);
	/*
	 * The last, partial interval, however short: every rep has at least one
	 * sample, and the samples account for every op and latency exactly once
	 * (its dt says how long it was).
	 */
	sample(&e, wops, ival, out, &prev, t0, &prev_ops, &prev_bytes);
	results(&e, out, t0, err);
	out->user_s = m1.user_s - m0.user_s;
	out->sys_s = m1.sys_s - m0.sys_s;
	out->vcsw = m1.vcsw - m0.vcsw;
	out->ivcsw = m1.ivcsw - m0.ivcsw;
out:
	if (e.ops->destroy != NULL)
		e.ops->destroy(&e);
	if (e.region != NULL)
		e.ops->unmap(e.region, e.region_size);
	bt_hist_free(ival);
	free(wops);
	if (rc < 0) {
		free(out->workers);
		out->workers = NULL;
	}
	return rc;
}

/*
 * A shared allocation: a 64-byte header in front, so that what the
 * workload gets is as aligned as the mapping allows for its own structs.
 */
struct bt_job_shm {
	struct bt_job_shm *next;
	size_t size;			/* of the whole mapping */
};

#define SHM_HEAD 64

void *bt_job_shared_alloc(struct bt_job *job, size_t size)
{
	size_t total = SHM_HEAD + size;
	struct bt_job_shm *h;
	void *p;

	_Static_assert(sizeof(struct bt_job_shm) <= SHM_HEAD, "the header fits");
	if (size > SIZE_MAX - SHM_HEAD)
		return NULL;
	p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	h = p;
	h->size = total;
	h->next = job->shm;
	job->shm = h;
	return (char *)p + SHM_HEAD;
}

void bt_job_shared_free_all(struct bt_job *job)
{
	while (job->shm != NULL) {
		struct bt_job_shm *h = job->shm;

		job->shm = h->next;
		munmap(h, h->size);
	}
}
