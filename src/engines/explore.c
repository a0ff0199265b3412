/*
 * explore.c - explore mode (see explore.h): one controller thread runs the
 * workload rep after rep ("generations"), samples it every interval, and at
 * each sample boundary may apply one waiting change: park or wake workers,
 * or drain and set up again. Every stretch between changes is a segment,
 * kept as a cell of one rep.
 *
 * Exact accounting. A segment's figures are differences of the workers' own
 * counters, read at its two boundaries; a worker that is parked has left the
 * workload's loop (its state says so) before the boundary is read, so its
 * counter no longer moves, and a worker that is woken or started begins after
 * the new segment's base was taken. A generation that ends inside a segment
 * (fixed work, or a drain) hands its final counters to the segment's carry.
 * So every op is counted in exactly one segment, and the sum of the segments
 * is the sum of the workers' counts.
 *
 * Threads: the controller owns everything here except what the workers
 * write (their struct bt_worker, their recorders) and the words they share
 * with it (stop, cmd, state, cpu marks, the generation's returned and failed
 * counters), which are atomics; a worker's plain fields are read only after
 * it published its state with a release store (parked or done) or was
 * joined. Faces take x->lock (results) or x->snap_lock (snapshot) and
 * x->qlock (the change queue); the workers take none.
 */
#include "engines/explore.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/noise.h"
#include "core/recording.h"
#include "core/topo.h"
#include "engines/engine.h"
#include "engines/engine_pick.h"
#include "engines/pin.h"

/* What the controller asks of a worker (its cmd word). */
enum { CMD_RUN, CMD_PARK, CMD_EXIT };
/* Where a worker is (its state word): in the loop, parked, or done with its work. */
enum { W_RUNNING, W_PARKED, W_DONE };

static void futex_wait(_Atomic uint32_t *word, uint32_t seen, uint64_t rel_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(rel_ns / 1000000000u),
			       .tv_nsec = (long)(rel_ns % 1000000000u) };

	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, seen, rel_ns ? &ts : NULL, NULL,
		0);
}

static void futex_wake_all(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* A worker's counts (ops, bytes, errors, metric slots). */
struct acc {
	uint64_t ops, bytes, errors;
	uint64_t metric[BT_METRICS_MAX];
};

struct gen;

/* One worker thread of a generation; 64-aligned because struct bt_worker is. */
struct slot {
	struct bt_worker w;
	_Alignas(64) _Atomic int stop;		/* w.stop points here: this worker's own */
	_Atomic uint32_t cmd;			/* CMD_*, futex word the worker sleeps on */
	_Atomic uint32_t state;			/* W_*, published with release */
	_Atomic int cpu_first, cpu_last;
	struct bt_recorder rec[1 + BT_LAT_CH_MAX];
	struct bt_hist *h[2 * (1 + BT_LAT_CH_MAX)];
	struct gen *g;
	pthread_t tid;
};

/* One rep of the workload: its setup, its workers, its teardown. */
struct gen {
	const struct bt_workload *wl;
	struct bt_job job;
	struct bt_value vals[BT_PLAN_MAX_PARAMS];	/* the workload's values (workers at cap) */
	const struct bt_value *pv[BT_PLAN_MAX_PARAMS];
	int set_up;		/* setup succeeded: teardown is owed */
	int fixed;		/* the workload's work is fixed: the generation ends by itself */
	int cap;		/* workers set up (job.nworkers) */
	int nrun;		/* workers 0..nrun-1 run, the rest of the started ones are parked */
	int nstarted;		/* threads started: 0..nstarted-1 */
	int stopped;		/* joined: the counters are in the segment's carry */
	int drained;		/* stopped by us, not at the end of its work */
	struct slot **slot;	/* [cap] */
	int *cpus;		/* [cap] or NULL (pin=none) */
	int *team_cpus;
	int lat_on, nch;
	uint32_t lat_every;
	double clock_cost;
	_Atomic uint32_t returned;	/* futex word: +1 each time a worker leaves the loop */
	_Atomic int failed;		/* a worker failed (its err says why) */
};

/* The workload's values as hooks see them (a copy that outlives the plan's changes). */
struct level {
	struct bt_value vals[BT_PLAN_MAX_PARAMS];
	const struct bt_value *pv[BT_PLAN_MAX_PARAMS];
	struct bt_job job;
	int held;
};

struct visit {
	char key[64];
	int n;
	char vals[BT_PLAN_MAX_VALUES][BT_RES_TEXT];
};

struct change {
	char key[64];
	char value[BT_VALUE_TEXT];
};

struct bt_explore {
	const struct bt_workload *wl;
	struct bt_plan initial;		/* as started (the visited plan's base) */
	struct bt_plan cur;		/* the running segment's settings (controller) */
	int wpi;			/* plan index of the workers parameter, or -1 */
	int park;			/* it is BT_PF_LIVE | BT_PF_PARK */
	int i_pin, i_lat, i_lat_every, i_sample;
	uint64_t sample_ns;

	pthread_mutex_t qlock;		/* the queue, want, visit keys */
	struct bt_plan want;		/* cur with the waiting changes applied */
	struct change queue[BT_EXPLORE_QUEUE];
	int qhead, qlen;
	char keys[BT_RES_AXES][64];	/* keys changed so far (waiting ones included) */
	int nkeys;

	_Atomic int stop;		/* 1: end at the next boundary; 2: after the queue */
	_Atomic int abort;		/* job.cancel: a long setup gives up */
	_Atomic int finished;
	pthread_t thread;
	int have_thread;
	int status;			/* 0, -EIO */

	pthread_mutex_t lock;		/* res, visited, seg_hist */
	struct bt_results res;
	struct bt_plan visited;
	struct visit visit[BT_RES_AXES];
	int nvisit;

	struct bt_recw rec;
	int recording, rec_error;
	struct bt_topo topo;
	double clock_cost;
	uint64_t t_start;

	struct level run_vals;		/* the run level's values */
	const struct bt_value *const *run_rows[1];
	struct bt_run_ctx run_ctx;
	int run_held;
	struct level cell;		/* the cell level of the running settings */

	struct gen *g;			/* the running generation */
	int setups;

	/* The running segment (controller; seg_hist also under lock). */
	int seg;
	int seg_workers;		/* workers that run in it */
	uint64_t seg_t0, prev_t, prev_ops, prev_bytes;
	double cpu_user0, cpu_sys0, vcsw0, ivcsw0, prev_user, prev_sys;
	int nacc;
	struct acc *base, *carry, *now;	/* [nacc] by worker index */
	struct acc *last;		/* [nacc]: the counters as the latest sample read them */
	double prev_vcsw, prev_ivcsw;
	uint64_t *gauge;		/* [nacc * BT_METRICS_MAX]: the latest gauge values */
	uint64_t job_metric[BT_METRICS_MAX];	/* of generations ended in the segment */
	uint32_t seg_lat_every;
	struct bt_hist *seg_hist, *seg_ch[BT_LAT_CH_MAX], *ival;
	struct bt_noise noise;
	char seg_verify[BT_ERR_MAX];
	int seg_failed;
	char settings[512];

	pthread_mutex_t snap_lock;
	struct bt_explore_snap snap;
};

/* ---- plans ---- */

static int plan_copy(struct bt_plan *dst, const struct bt_workload *wl, const struct bt_plan *src,
		     struct bt_err *err)
{
	char *json = bt_plan_to_json(src);
	int rc;

	memset(dst, 0, sizeof(*dst));
	if (json == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	rc = bt_run_plan_init(dst, wl, err);
	if (rc == 0)
		rc = bt_plan_apply_json(dst, json, "plan", err);
	free(json);
	if (rc < 0)
		bt_plan_destroy(dst);
	return rc;
}

/* "threads=4 lock=spin pin=none": the live values, the workload's first. */
static void live_settings(const struct bt_plan *pl, char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < pl->nparams; i++) {
			int k;

			if ((i >= (int)bt_common_nparams) != (pass == 0) ||
			    !(pl->params[i]->flags & BT_PF_LIVE))
				continue;
			k = snprintf(buf + o, n - o, "%s%s=%s", o ? " " : "", pl->params[i]->name,
				     pl->vals[i][0].text);
			if (k < 0 || (size_t)k >= n - o) {
				buf[o] = '\0';
				return;
			}
			o += (size_t)k;
		}
	}
}

/* The names of the live parameters, "threads, lock, pin", for messages. */
static void live_names(const struct bt_plan *pl, char *buf, size_t n)
{
	char set[512], *p, *save = NULL;
	size_t o = 0;

	live_settings(pl, set, sizeof(set));
	buf[0] = '\0';
	for (p = strtok_r(set, " ", &save); p != NULL && o < n; p = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(p, '=');
		int k;

		if (eq != NULL)
			*eq = '\0';
		k = snprintf(buf + o, n - o, "%s%s", o ? ", " : "", p);
		if (k < 0)
			break;
		o += (size_t)k;
	}
	if (buf[0] == '\0')
		snprintf(buf, n, "none");
}

int bt_explore_check(const struct bt_workload *wl, const struct bt_plan *plan, struct bt_err *err)
{
	int as = bt_plan_index(plan, "as");

	if (plan->naxes > 0 || plan->ncells != 1) {
		int pi = plan->axes[0];
		char vals[256] = "";
		size_t o = 0;

		for (int k = 0; k < plan->nvals[pi] && o < sizeof(vals); k++) {
			int m = snprintf(vals + o, sizeof(vals) - o, "%s%s", k ? "," : "",
					 plan->vals[pi][k].text);
			if (m < 0)
				break;
			o += (size_t)m;
		}
		return bt_err_set(err, -EINVAL,
				  "%s=%s: explore runs one setting at a time (give one value, then change it while it runs)",
				  plan->params[pi]->name, vals);
	}
	if (as >= 0) {
		const struct bt_value *cv[BT_PLAN_MAX_PARAMS];
		int k;

		bt_plan_cell(plan, 0, cv);
		k = bt_engine_pick(wl, cv[as], cv + bt_common_nparams, err);
		if (k < 0)
			return -EINVAL;
		if (k != BT_ENGINE_THREADS)
			return bt_err_set(err, -EINVAL, "as=%s: explore runs the workers as threads",
					  bt_engine_names[k]);
	}
	return bt_run_validate(wl, plan, err);
}

/* ---- workers ---- */

static void *slot_main(void *arg)
{
	struct slot *s = arg;
	struct gen *g = s->g;
	struct bt_worker *w = &s->w;

	if (w->cpu_pinned >= 0 && bt_pin_self(w->cpu_pinned) < 0)
		bt_worker_fail(w, "cannot pin worker %d to CPU %d", w->id, w->cpu_pinned);
	atomic_store_explicit(&s->cpu_first, sched_getcpu(), memory_order_relaxed);
	for (;;) {
		uint32_t c = atomic_load(&s->cmd);
		int asked;

		if (c == CMD_EXIT)
			break;
		if (c == CMD_PARK) {
			futex_wait(&s->cmd, CMD_PARK, 0);
			continue;
		}
		if (!w->failed) {
			int rc;

			w->auto_t0 = bt_now_ns();
			rc = g->wl->worker(w);
			if (rc < 0 && !w->failed)
				bt_worker_fail(w, "worker %d failed: %s", w->id, strerror(-rc));
		}
		atomic_store_explicit(&s->cpu_last, sched_getcpu(), memory_order_relaxed);
		/* Asked to stop (park or drain), or its work is done. */
		asked = atomic_load(&s->stop) && !w->failed;
		if (w->failed)
			atomic_store(&g->failed, 1);
		atomic_store_explicit(&s->state, asked ? W_PARKED : W_DONE, memory_order_release);
		atomic_fetch_add(&g->returned, 1);
		futex_wake_all(&g->returned);
		if (!asked) {
			/* Done for this generation: only the end is left. */
			while ((c = atomic_load(&s->cmd)) != CMD_EXIT)
				futex_wait(&s->cmd, c, 0);
			break;
		}
	}
	return NULL;
}

static void slot_free(struct slot *s)
{
	if (s == NULL)
		return;
	for (int k = 0; k < 2 * (1 + BT_LAT_CH_MAX); k++)
		bt_hist_free(s->h[k]);
	free(s);
}

/* Start worker i of g (the next one) as a thread. 0 or negative with err set. */
static int slot_start(struct gen *g, int i, struct bt_err *err)
{
	size_t size = (sizeof(struct slot) + 63) & ~(size_t)63;
	struct slot *s = aligned_alloc(64, size);
	struct bt_worker *w;
	int rc;

	if (s == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory for worker %d", i);
	memset(s, 0, size);
	w = &s->w;
	s->g = g;
	atomic_init(&s->stop, 0);
	atomic_init(&s->cmd, CMD_RUN);
	atomic_init(&s->state, W_RUNNING);
	atomic_init(&s->cpu_first, -1);
	atomic_init(&s->cpu_last, -1);
	w->id = i;
	w->nworkers = g->cap;
	w->job = &g->job;
	w->stop = &s->stop;
	w->cpu_pinned = g->cpus != NULL ? g->cpus[i] : -1;
	w->cpu_first = w->cpu_last = -1;
	if (g->lat_on) {
		for (int c = 0; c <= g->nch; c++) {
			s->h[2 * c] = bt_hist_new();
			s->h[2 * c + 1] = bt_hist_new();
			if (s->h[2 * c] == NULL || s->h[2 * c + 1] == NULL) {
				slot_free(s);
				return bt_err_set(err, -ENOMEM, "out of memory for worker %d", i);
			}
			bt_recorder_init_with(&s->rec[c], s->h[2 * c], s->h[2 * c + 1]);
		}
		for (int c = 1; c <= g->nch; c++)
			w->ch_rec[c - 1] = &s->rec[c];
	}
	bt_worker_lat_setup(w, g->lat_on ? &s->rec[0] : NULL, g->lat_every, g->clock_cost);
	g->slot[i] = s;
	rc = pthread_create(&s->tid, NULL, slot_main, s);
	if (rc != 0) {
		g->slot[i] = NULL;
		slot_free(s);
		return bt_err_set(err, -rc, "cannot start worker thread %d: %s", i + 1, strerror(rc));
	}
	g->nstarted = i + 1;
	return 0;
}

/* Wake or start workers so that 0..n-1 run (n > g->nrun). */
static int gen_grow(struct gen *g, int n, struct bt_err *err)
{
	for (int i = g->nrun; i < n; i++) {
		if (i < g->nstarted) {
			struct slot *s = g->slot[i];

			atomic_store(&s->state, W_RUNNING);
			atomic_store(&s->stop, 0);
			atomic_store_explicit(&s->cmd, CMD_RUN, memory_order_release);
			futex_wake_all(&s->cmd);
		} else if (slot_start(g, i, err) < 0) {
			g->nrun = i;
			return -EIO;
		}
	}
	g->nrun = n;
	return 0;
}

/* Park workers n..nrun-1 and wait until each has left the workload's loop. */
static void gen_shrink(struct gen *g, int n)
{
	for (int i = n; i < g->nrun; i++) {
		atomic_store(&g->slot[i]->cmd, CMD_PARK);
		atomic_store(&g->slot[i]->stop, 1);
	}
	for (int i = n; i < g->nrun; i++) {
		for (;;) {
			uint32_t seen = atomic_load(&g->returned);

			if (atomic_load_explicit(&g->slot[i]->state, memory_order_acquire) != W_RUNNING)
				break;
			futex_wait(&g->returned, seen, 10000000u);
		}
	}
	g->nrun = n;
}

/* 1 when every running worker of a fixed-work generation is done. */
static int gen_done(const struct gen *g)
{
	if (!g->fixed || g->stopped || g->nrun == 0)
		return 0;
	for (int i = 0; i < g->nrun; i++)
		if (atomic_load_explicit(&g->slot[i]->state, memory_order_acquire) != W_DONE)
			return 0;
	return 1;
}

/* ---- the segment's counts ---- */

static int acc_grow(struct bt_explore *x, int n)
{
	struct acc *b, *c, *nw, *l;
	uint64_t *ga;

	if (n <= x->nacc)
		return 0;
	b = realloc(x->base, sizeof(*b) * (size_t)n);
	if (b != NULL)
		x->base = b;
	c = realloc(x->carry, sizeof(*c) * (size_t)n);
	if (c != NULL)
		x->carry = c;
	nw = realloc(x->now, sizeof(*nw) * (size_t)n);
	if (nw != NULL)
		x->now = nw;
	l = realloc(x->last, sizeof(*l) * (size_t)n);
	if (l != NULL)
		x->last = l;
	ga = realloc(x->gauge, sizeof(*ga) * BT_METRICS_MAX * (size_t)n);
	if (ga != NULL)
		x->gauge = ga;
	if (b == NULL || c == NULL || nw == NULL || l == NULL || ga == NULL)
		return -ENOMEM;
	memset(x->last + x->nacc, 0, sizeof(*l) * (size_t)(n - x->nacc));
	memset(x->base + x->nacc, 0, sizeof(*b) * (size_t)(n - x->nacc));
	memset(x->carry + x->nacc, 0, sizeof(*c) * (size_t)(n - x->nacc));
	memset(x->now + x->nacc, 0, sizeof(*nw) * (size_t)(n - x->nacc));
	memset(x->gauge + (size_t)x->nacc * BT_METRICS_MAX, 0,
	       sizeof(*ga) * BT_METRICS_MAX * (size_t)(n - x->nacc));
	x->nacc = n;
	return 0;
}

/* Worker i's counters now (relaxed loads: the worker writes them as it goes). */
static void acc_read(struct bt_explore *x, const struct slot *s, int i, struct acc *a)
{
	const struct bt_counters *c = &s->w.c;

	a->ops = atomic_load_explicit(&c->ops, memory_order_relaxed);
	a->bytes = atomic_load_explicit(&c->bytes, memory_order_relaxed);
	a->errors = atomic_load_explicit(&c->errors, memory_order_relaxed);
	for (size_t m = 0; m < x->wl->nmetrics && m < BT_METRICS_MAX; m++) {
		a->metric[m] = atomic_load_explicit(&c->metric[m], memory_order_relaxed);
		if (x->wl->metrics[m].kind == BT_MK_GAUGE)
			x->gauge[(size_t)i * BT_METRICS_MAX + m] = a->metric[m];
	}
}

/* x->now[i] = what worker i did in this segment so far. */
static void seg_totals(struct bt_explore *x)
{
	const struct gen *g = x->g;

	for (int i = 0; i < x->nacc; i++) {
		struct acc cur = { 0 }, *n = &x->now[i];
		const struct acc *b = &x->base[i], *c = &x->carry[i];

		if (g != NULL && !g->stopped && i < g->nstarted)
			acc_read(x, g->slot[i], i, &cur);
		else
			memcpy(&cur, b, sizeof(cur));	/* no worker there now: nothing beyond the carry */
		x->last[i] = cur;
		n->ops = c->ops + cur.ops - b->ops;
		n->bytes = c->bytes + cur.bytes - b->bytes;
		n->errors = c->errors + cur.errors - b->errors;
		for (int m = 0; m < BT_METRICS_MAX; m++)
			n->metric[m] = c->metric[m] + cur.metric[m] - b->metric[m];
	}
}

/* ---- generations ---- */

/* The capacity a generation of n workers is set up for. */
static int capacity(struct bt_explore *x, const struct bt_plan *pl, int n)
{
	const struct bt_param *p;
	const struct bt_value *pv[BT_PLAN_MAX_PARAMS];
	struct bt_value v;
	struct bt_err err = { "" };
	int cap = n;

	if (!x->park)
		return n;
	p = pl->params[x->wpi];
	cap = n > BT_EXPLORE_SPARE ? n : BT_EXPLORE_SPARE;
	if (cap > p->max)
		cap = n > p->max ? n : (int)p->max;
	if (x->wl->check == NULL || cap == n)
		return cap;
	/* The workload's own rule may refuse more workers (lock=none: one). */
	for (int i = 0; i < (int)x->wl->nparams; i++)
		pv[i] = &pl->vals[(int)bt_common_nparams + i][0];
	v = pl->vals[x->wpi][0];
	v.i = cap;
	snprintf(v.text, sizeof(v.text), "%d", cap);
	pv[x->wpi - (int)bt_common_nparams] = &v;
	return x->wl->check(pv, &err) == 0 ? cap : n;
}

static void level_fill(struct level *l, const struct bt_workload *wl, const struct bt_plan *pl)
{
	for (int i = 0; i < (int)wl->nparams; i++) {
		l->vals[i] = pl->vals[(int)bt_common_nparams + i][0];
		l->pv[i] = &l->vals[i];
	}
}

/* Set a generation of the current settings up (no worker started). */
static int gen_prepare(struct bt_explore *x, struct bt_err *err)
{
	const struct bt_workload *wl = x->wl;
	const struct bt_plan *pl = &x->cur;
	const char *pin = pl->vals[x->i_pin][0].text;
	struct gen *g = calloc(1, sizeof(*g));
	int want = x->wpi >= 0 ? (int)pl->vals[x->wpi][0].i : 0;

	if (g == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	x->g = g;
	g->wl = wl;
	g->fixed = wl->stop_default == NULL;
	g->lat_on = (int)pl->vals[x->i_lat][0].i;
	g->nch = g->lat_on ? x->res.nch : 0;
	g->lat_every = (uint32_t)pl->vals[x->i_lat_every][0].i;
	g->clock_cost = x->clock_cost;
	atomic_init(&g->returned, 0);
	atomic_init(&g->failed, 0);
	for (int i = 0; i < (int)wl->nparams; i++) {
		g->vals[i] = pl->vals[(int)bt_common_nparams + i][0];
		g->pv[i] = &g->vals[i];
	}
	if (x->park) {
		int cap = capacity(x, pl, want);
		struct bt_value *v = &g->vals[x->wpi - (int)bt_common_nparams];

		v->i = cap;
		snprintf(v->text, sizeof(v->text), "%d", cap);
	}
	g->job = (struct bt_job){
		.params = g->pv,
		.run_state = x->run_ctx.state,
		.cell_state = x->cell.job.cell_state,
		.lat_on = g->lat_on,
		.engine = BT_ENGINE_THREADS,
		.cancel = &x->abort,
	};
	if (wl->setup(&g->job, err) < 0) {
		bt_job_shared_free_all(&g->job);
		return -EIO;
	}
	g->set_up = 1;
	g->cap = g->job.nworkers;
	pthread_mutex_lock(&x->snap_lock);
	x->snap.counted_first = g->job.counted_n > 0 ? g->job.counted_first : 0;
	x->snap.counted_n = g->job.counted_n > 0 ? g->job.counted_n : 0;
	pthread_mutex_unlock(&x->snap_lock);
	if (g->cap < 1)
		return bt_err_set(err, -EINVAL, "workload asked for %d workers", g->cap);
	g->nrun = 0;
	if (acc_grow(x, g->cap) < 0 || (g->slot = calloc((size_t)g->cap, sizeof(*g->slot))) == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory for %d workers", g->cap);
	if (strcmp(pin, "none") != 0) {
		g->cpus = malloc(sizeof(*g->cpus) * (size_t)g->cap);
		if (g->cpus == NULL)
			return bt_err_set(err, -ENOMEM, "out of memory");
		if (bt_pin_plan(&x->topo, pin, g->cap, g->cpus, err) < 0)
			return -EINVAL;
		if (g->job.team > 0) {
			g->team_cpus = malloc(sizeof(*g->team_cpus) * (size_t)g->job.team);
			if (g->team_cpus == NULL)
				return bt_err_set(err, -ENOMEM, "out of memory");
			if (bt_pin_plan(&x->topo, pin, g->job.team, g->team_cpus, err) < 0)
				return -EINVAL;
			g->job.team_cpus = g->team_cpus;
		}
	}
	x->setups++;
	return 0;
}

/* How many workers of the generation should run: the count asked for, or all. */
static int gen_want(const struct bt_explore *x, const struct gen *g)
{
	int n = x->park ? (int)x->cur.vals[x->wpi][0].i : g->cap;

	return n < g->cap ? n : g->cap;
}

/*
 * Stop every started worker of the running generation and join them; their
 * final counts go to the segment's carry, their last latencies to the
 * interval and the segment. drained: we stopped it (not the end of its work).
 */
static void gen_stop(struct bt_explore *x, int drained)
{
	struct gen *g = x->g;

	if (g == NULL || g->stopped)
		return;
	for (int i = 0; i < g->nstarted; i++) {
		atomic_store(&g->slot[i]->cmd, CMD_EXIT);
		atomic_store(&g->slot[i]->stop, 1);
		futex_wake_all(&g->slot[i]->cmd);
	}
	for (int i = 0; i < g->nstarted; i++)
		pthread_join(g->slot[i]->tid, NULL);
	for (int i = 0; i < g->nstarted; i++) {
		struct slot *s = g->slot[i];
		struct acc fin;

		acc_read(x, s, i, &fin);
		x->carry[i].ops += fin.ops - x->base[i].ops;
		x->carry[i].bytes += fin.bytes - x->base[i].bytes;
		x->carry[i].errors += fin.errors - x->base[i].errors;
		for (int m = 0; m < BT_METRICS_MAX; m++)
			x->carry[i].metric[m] += fin.metric[m] - x->base[i].metric[m];
		memset(&x->base[i], 0, sizeof(x->base[i]));
		if (g->lat_on) {
			bt_recorder_take(&s->rec[0], x->ival);
			for (int c = 1; c <= g->nch; c++)
				bt_recorder_take(&s->rec[c], x->seg_ch[c - 1]);
			if (s->w.lat_max_every > x->seg_lat_every)
				x->seg_lat_every = s->w.lat_max_every;
		}
		if (s->w.failed && !x->seg_failed) {
			x->seg_failed = 1;
			snprintf(x->seg_verify, sizeof(x->seg_verify), "%s", s->w.err);
		}
	}
	g->stopped = 1;
	g->drained = drained;
}

/*
 * After gen_stop: verify (unless a fixed-work generation was cut short,
 * which cannot verify), keeping its message for the segment. 0, or -EIO when
 * it failed.
 */
static int gen_verify(struct bt_explore *x)
{
	struct gen *g = x->g;
	struct bt_err err = { "" };

	if (g == NULL || !g->set_up || x->seg_failed)
		return x->seg_failed ? -EIO : 0;
	if (g->fixed && g->drained)
		return 0;
	if (x->wl->verify != NULL && x->wl->verify(&g->job, &err) < 0) {
		x->seg_failed = 1;
		snprintf(x->seg_verify, sizeof(x->seg_verify), "verify: %s", err.msg);
		return -EIO;
	}
	if (err.msg[0])
		snprintf(x->seg_verify, sizeof(x->seg_verify), "%s", err.msg);
	return 0;
}

/* Tear the stopped generation down and free it; its rep-level metrics join the segment's. */
static void gen_free(struct bt_explore *x)
{
	struct gen *g = x->g;

	if (g == NULL)
		return;
	gen_stop(x, 1);
	for (size_t m = 0; m < x->wl->nmetrics && m < BT_METRICS_MAX; m++)
		x->job_metric[m] += g->job.metric[m];
	if (g->set_up && x->wl->teardown != NULL)
		x->wl->teardown(&g->job);
	bt_job_shared_free_all(&g->job);
	for (int i = 0; i < g->cap && g->slot != NULL; i++)
		slot_free(g->slot[i]);
	free(g->slot);
	free(g->cpus);
	free(g->team_cpus);
	free(g);
	x->g = NULL;
}

/* ---- levels ---- */

static int run_open(struct bt_explore *x, struct bt_err *err)
{
	level_fill(&x->run_vals, x->wl, &x->cur);
	x->run_rows[0] = x->run_vals.pv;
	x->run_ctx.ncells = 1;
	x->run_ctx.cells = x->run_rows;
	if (x->wl->run_setup == NULL)
		return 0;
	if (x->wl->run_setup(&x->run_ctx, err) < 0)
		return -EIO;
	x->run_held = 1;
	return 0;
}

static int cell_open(struct bt_explore *x, struct bt_err *err)
{
	level_fill(&x->cell, x->wl, &x->cur);
	x->cell.job = (struct bt_job){ .params = x->cell.pv, .run_state = x->run_ctx.state };
	if (x->wl->cell_setup == NULL)
		return 0;
	if (x->wl->cell_setup(&x->cell.job, err) < 0)
		return -EIO;
	x->cell.held = 1;
	return 0;
}

static void cell_close(struct bt_explore *x)
{
	if (x->cell.held && x->wl->cell_teardown != NULL)
		x->wl->cell_teardown(&x->cell.job);
	x->cell.held = 0;
}

/* ---- segments ---- */

static void cpu_now(double *user, double *sys, double *vcsw, double *ivcsw)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	*vcsw = (double)ru.ru_nvcsw;
	*ivcsw = (double)ru.ru_nivcsw;
}

static double since_start(const struct bt_explore *x, uint64_t t)
{
	return (double)(t - x->t_start) / 1e9;
}

/*
 * A new segment begins after the change ch (NULL for the first): its base
 * counts, its cell and (before it) the change in the results and the
 * recording. The workers that will run in it start after this.
 *
 * continuous: the workers kept running across the boundary (a park or a
 * wake): the segment begins exactly where the last one ended, at the
 * closing sample's time and counters, so that no op falls between them.
 * Otherwise it begins now, with a generation that has no worker started.
 */
static int seg_open(struct bt_explore *x, const struct change *ch, int continuous, int nworkers)
{
	const struct gen *g = x->g;
	uint64_t now = continuous ? x->prev_t : bt_now_ns();
	double t = since_start(x, now);
	double user = x->prev_user, sys = x->prev_sys, vcsw = x->prev_vcsw, ivcsw = x->prev_ivcsw;
	int rc = 0;

	for (int i = 0; i < x->nacc; i++) {
		memset(&x->carry[i], 0, sizeof(x->carry[i]));
		memset(&x->base[i], 0, sizeof(x->base[i]));
		if (continuous && g != NULL && !g->stopped && i < g->nstarted)
			x->base[i] = x->last[i];
		memset(&x->now[i], 0, sizeof(x->now[i]));
	}
	memset(x->job_metric, 0, sizeof(x->job_metric));
	x->seg_workers = nworkers;
	x->seg_lat_every = 0;
	x->seg_failed = 0;
	snprintf(x->seg_verify, sizeof(x->seg_verify), "ok");
	x->seg_t0 = x->prev_t = now;
	x->prev_ops = x->prev_bytes = 0;
	if (!continuous)
		cpu_now(&user, &sys, &vcsw, &ivcsw);
	x->cpu_user0 = x->prev_user = user;
	x->cpu_sys0 = x->prev_sys = sys;
	x->vcsw0 = x->prev_vcsw = vcsw;
	x->ivcsw0 = x->prev_ivcsw = ivcsw;
	bt_noise_begin(&x->noise);
	live_settings(&x->cur, x->settings, sizeof(x->settings));

	pthread_mutex_lock(&x->lock);
	if (x->seg_hist != NULL)
		bt_hist_reset(x->seg_hist);
	x->seg = x->res.ncells;
	if (ch != NULL)
		rc = bt_results_add_change(&x->res, t, x->seg, ch->key, ch->value);
	if (rc == 0)
		rc = bt_results_add_segment(&x->res, t, x->settings);
	if (rc == 0)
		bt_results_segment_axes(&x->res);
	pthread_mutex_unlock(&x->lock);
	if (rc < 0)
		return rc;
	for (int k = 0; k < BT_LAT_CH_MAX; k++)
		if (x->seg_ch[k] != NULL)
			bt_hist_reset(x->seg_ch[k]);
	if (x->recording) {
		if (ch != NULL) {
			char *plan = NULL;

			pthread_mutex_lock(&x->lock);
			plan = x->res.plan_json ? strdup(x->res.plan_json) : NULL;
			pthread_mutex_unlock(&x->lock);
			bt_recw_change(&x->rec, &x->res.changes[x->res.nchanges - 1], plan);
			free(plan);
		}
		bt_recw_segment(&x->rec, &x->res, x->seg);
	}
	pthread_mutex_lock(&x->snap_lock);
	x->snap.segment = x->seg;
	x->snap.segment_t0 = t;
	snprintf(x->snap.settings, sizeof(x->snap.settings), "%s", x->settings);
	pthread_mutex_unlock(&x->snap_lock);
	return 0;
}

/*
 * One sample: the interval since the last one, into the segment. After a
 * gen_stop the stopped workers' counts are in the carry and their last
 * latencies already in x->ival.
 */
static void take_sample(struct bt_explore *x)
{
	struct gen *g = x->g;
	struct bt_sample s = { .cell = x->seg, .rep = 0 };
	uint64_t now = bt_now_ns(), ops = 0, bytes = 0;
	int nrun = g != NULL ? g->nrun : 0;
	double user, sys, vcsw, ivcsw, dt;

	seg_totals(x);
	for (int i = 0; i < x->nacc; i++) {
		ops += x->now[i].ops;
		bytes += x->now[i].bytes;
	}
	if (x->ival != NULL) {
		for (int i = 0; g != NULL && !g->stopped && g->lat_on && i < g->nstarted; i++) {
			bt_recorder_take(&g->slot[i]->rec[0], x->ival);
			for (int c = 1; c <= g->nch; c++)
				bt_recorder_take(&g->slot[i]->rec[c], x->seg_ch[c - 1]);
		}
		pthread_mutex_lock(&x->lock);
		bt_hist_add(x->seg_hist, x->ival);
		pthread_mutex_unlock(&x->lock);
		s.lat_count = x->ival->total;
		if (x->ival->total) {
			s.p50 = bt_hist_percentile(x->ival, 50);
			s.p90 = bt_hist_percentile(x->ival, 90);
			s.p99 = bt_hist_percentile(x->ival, 99);
			s.p999 = bt_hist_percentile(x->ival, 99.9);
			s.max = x->ival->max;
		}
		bt_hist_reset(x->ival);
	}
	cpu_now(&user, &sys, &vcsw, &ivcsw);
	dt = (double)(now - x->prev_t) / 1e9;
	if (dt <= 0)
		dt = 1e-9;
	s.t = (double)(now - x->seg_t0) / 1e9;
	s.dt = dt;
	s.ops = ops;
	s.ops_s = (double)(ops - x->prev_ops) / dt;
	s.bytes_s = (double)(bytes - x->prev_bytes) / dt;
	s.user_pct = user > x->prev_user ? 100.0 * (user - x->prev_user) / dt : 0;
	s.sys_pct = sys > x->prev_sys ? 100.0 * (sys - x->prev_sys) / dt : 0;
	s.cpu_pct = s.user_pct + s.sys_pct;
	x->prev_t = now;
	x->prev_ops = ops;
	x->prev_bytes = bytes;
	x->prev_user = user;
	x->prev_sys = sys;
	x->prev_vcsw = vcsw;
	x->prev_ivcsw = ivcsw;
	bt_noise_tick(&x->noise, nrun + 1);

	pthread_mutex_lock(&x->lock);
	bt_results_add_sample(&x->res, &s);
	pthread_mutex_unlock(&x->lock);
	if (x->recording)
		bt_recw_sample(&x->rec, &s);
	pthread_mutex_lock(&x->snap_lock);
	x->snap.last = s;
	x->snap.sample_seq++;
	x->snap.nworkers = nrun;
	x->snap.parked = g != NULL && !g->stopped ? g->nstarted - nrun : 0;
	for (int i = 0; i < nrun && i < BT_SNAP_WORKERS && i < x->nacc; i++)
		x->snap.worker_ops[i] = x->now[i].ops;
	pthread_mutex_unlock(&x->snap_lock);
}

/*
 * Combine the workers' metric counts of the segment per metric kind:
 * counters and times as differences, gauges from their latest values.
 */
static void seg_metrics(struct bt_explore *x, int n, double *out)
{
	for (size_t m = 0; m < x->wl->nmetrics && m < BT_METRICS_MAX; m++) {
		const struct bt_metric *d = &x->wl->metrics[m];
		uint64_t acc = 0;

		if (d->kind == BT_MK_RATIO) {
			out[m] = 0;
			continue;
		}
		for (int i = 0; i < n && i < x->nacc; i++) {
			uint64_t v = d->kind == BT_MK_GAUGE ? x->gauge[(size_t)i * BT_METRICS_MAX + m]
							    : x->now[i].metric[m];

			if (d->kind != BT_MK_GAUGE || d->agg == BT_MA_SUM || d->agg == BT_MA_MEAN)
				acc += v;
			else if (d->agg == BT_MA_MAX)
				acc = (i == 0 || v > acc) ? v : acc;
			else
				acc = (i == 0 || v < acc) ? v : acc;
		}
		if (d->kind == BT_MK_GAUGE && d->agg == BT_MA_MEAN && n > 0)
			acc /= (uint64_t)n;
		acc += x->job_metric[m] + (x->g != NULL ? x->g->job.metric[m] : 0);
		out[m] = (double)acc;
	}
}

/*
 * The running segment ends at the sample just taken: its rep (one, counted)
 * and its cell go into the results and the recording.
 */
static void seg_close(struct bt_explore *x)
{
	const struct gen *g = x->g;
	struct bt_rep rep;
	struct bt_noise_out nout;
	uint64_t now = x->prev_t;
	double user = x->prev_user, sys = x->prev_sys, vcsw = x->prev_vcsw, ivcsw = x->prev_ivcsw;
	int n = x->seg_workers;

	memset(&rep, 0, sizeof(rep));
	bt_noise_end(&x->noise, &nout);
	rep.cell = x->seg;
	rep.rep = 0;
	rep.ok = !x->seg_failed;
	snprintf(rep.engine, sizeof(rep.engine), "%s", bt_engine_names[BT_ENGINE_THREADS]);
	rep.verify = x->seg_verify;
	for (int i = 0; i < x->nacc; i++) {
		rep.ops += x->now[i].ops;
		rep.bytes += x->now[i].bytes;
		rep.errors += x->now[i].errors;
	}
	rep.wall_s = (double)(now - x->seg_t0) / 1e9;
	rep.user_s = user - x->cpu_user0;
	rep.sys_s = sys - x->cpu_sys0;
	rep.vcsw = vcsw - x->vcsw0;
	rep.ivcsw = ivcsw - x->ivcsw0;
	if (rep.wall_s > 0) {
		rep.ops_s = (double)rep.ops / rep.wall_s;
		rep.bytes_s = (double)rep.bytes / rep.wall_s;
	}
	rep.steal_pct = nout.steal_pct;
	rep.runq = nout.runnable_mean;
	rep.freq_mhz = nout.freq_mhz;
	rep.throttled = (double)nout.throttled;
	if (g != NULL && g->lat_on) {
		uint32_t every = x->seg_lat_every;

		for (int i = 0; !g->stopped && i < g->nstarted; i++) {
			uint32_t e = atomic_load_explicit(&g->slot[i]->w.c.lat_every,
							  memory_order_relaxed);

			if (e > every)
				every = e;
		}
		rep.lat_every = every ? every : 1;
		pthread_mutex_lock(&x->lock);
		rep.hist = bt_hist_new();
		if (rep.hist != NULL)
			bt_hist_add(rep.hist, x->seg_hist);
		pthread_mutex_unlock(&x->lock);
		for (int k = 0; k < g->nch; k++) {
			rep.ch_hist[k] = bt_hist_new();
			if (rep.ch_hist[k] != NULL)
				bt_hist_add(rep.ch_hist[k], x->seg_ch[k]);
		}
	}
	seg_metrics(x, n, rep.metric);
	rep.nworkers = n;
	rep.workers = calloc((size_t)(n > 0 ? n : 1), sizeof(*rep.workers));
	for (int i = 0; rep.workers != NULL && i < n; i++) {
		const struct slot *s = g != NULL && i < g->nstarted ? g->slot[i] : NULL;

		rep.workers[i].ops = i < x->nacc ? x->now[i].ops : 0;
		rep.workers[i].cpu_first = s ? atomic_load_explicit(&s->cpu_first, memory_order_relaxed) : -1;
		rep.workers[i].cpu_last = s ? atomic_load_explicit(&s->cpu_last, memory_order_relaxed) : -1;
		rep.workers[i].pinned = g != NULL && g->cpus != NULL ? g->cpus[i] : -1;
		rep.workers[i].pid = (int)getpid();
	}
	if (rep.workers == NULL)
		rep.nworkers = 0;
	if (x->recording)
		bt_recw_rep(&x->rec, &rep);
	pthread_mutex_lock(&x->lock);
	bt_results_add_rep(&x->res, &rep);
	bt_results_summarize_cell(&x->res, x->seg);
	if (!rep.ok && x->res.error[0] == '\0')
		snprintf(x->res.error, sizeof(x->res.error), "%s: %s",
			 x->res.cells[x->seg].label[0] ? x->res.cells[x->seg].label : "segment 1",
			 x->seg_verify);
	pthread_mutex_unlock(&x->lock);
	if (x->recording)
		bt_recw_cell(&x->rec, &x->res.cells[x->seg]);
	pthread_mutex_lock(&x->snap_lock);
	x->snap.segments_done = x->seg + 1;
	pthread_mutex_unlock(&x->snap_lock);
}

/* ---- changes ---- */

/* Note key's value before and after a change; rebuild the visited plan. Under x->lock. */
static void visit_note(struct bt_explore *x, const char *key, const char *before, const char *after)
{
	struct bt_plan pl;
	struct bt_err err = { "" };
	struct visit *v = NULL;
	const char *add[2] = { before, after };
	char *json;

	for (int k = 0; k < x->nvisit; k++)
		if (strcmp(x->visit[k].key, key) == 0)
			v = &x->visit[k];
	if (v == NULL && x->nvisit < BT_RES_AXES) {
		v = &x->visit[x->nvisit++];
		snprintf(v->key, sizeof(v->key), "%s", key);
		v->n = 0;
	}
	if (v == NULL)
		return;
	for (int j = 0; j < 2; j++) {
		int k;

		for (k = 0; k < v->n; k++)
			if (strcmp(v->vals[k], add[j]) == 0)
				break;
		if (k == v->n && v->n < BT_PLAN_MAX_VALUES)
			snprintf(v->vals[v->n++], sizeof(v->vals[0]), "%s", add[j]);
	}
	if (plan_copy(&pl, x->wl, &x->initial, &err) < 0)
		return;
	for (int k = 0; k < x->nvisit; k++) {
		const struct visit *vk = &x->visit[k];
		int order[BT_PLAN_MAX_VALUES], numeric = 1;
		double num[BT_PLAN_MAX_VALUES];
		char list[BT_PLAN_MAX_VALUES * (BT_RES_TEXT + 1)];
		size_t o = 0;

		for (int j = 0; j < vk->n; j++) {
			order[j] = j;
			numeric &= bt_results_axis_value(vk->vals[j], &num[j]) == 0;
		}
		/* Numbers in ascending order (a sweep reads that way); words as visited. */
		for (int a = 1; numeric && a < vk->n; a++)
			for (int b = a; b > 0 && num[order[b]] < num[order[b - 1]]; b--) {
				int t = order[b];

				order[b] = order[b - 1];
				order[b - 1] = t;
			}
		list[0] = '\0';
		for (int j = 0; j < vk->n; j++)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", j ? "," : "",
					      vk->vals[order[j]]);
		if (bt_plan_set(&pl, vk->key, list, &err) < 0)
			goto out;	/* past a plan's limits: keep the last good one */
	}
	if ((json = bt_plan_to_json(&pl)) == NULL)
		goto out;
	bt_plan_destroy(&x->visited);
	x->visited = pl;
	free(x->res.plan_json);
	x->res.plan_json = json;
	return;
out:
	bt_plan_destroy(&pl);
}

/* Take the next waiting change, if any. 1 taken, 0 none. */
static int queue_pop(struct bt_explore *x, struct change *ch)
{
	int got = 0;

	pthread_mutex_lock(&x->qlock);
	if (x->qlen > 0) {
		*ch = x->queue[x->qhead];
		x->qhead = (x->qhead + 1) % BT_EXPLORE_QUEUE;
		x->qlen--;
		got = 1;
	}
	pthread_mutex_lock(&x->snap_lock);
	x->snap.pending = x->qlen;
	pthread_mutex_unlock(&x->snap_lock);
	pthread_mutex_unlock(&x->qlock);
	return got;
}

static void fail(struct bt_explore *x, const char *what, const char *msg)
{
	pthread_mutex_lock(&x->lock);
	if (x->res.error[0] == '\0')
		snprintf(x->res.error, sizeof(x->res.error), "%s: %s", what, msg);
	pthread_mutex_unlock(&x->lock);
	x->status = -EIO;
}

/*
 * Apply change ch at this boundary. 0 going on, -EIO when the run cannot
 * go on (a failed setup, a failed verify).
 */
static int apply(struct bt_explore *x, const struct change *ch)
{
	struct gen *g = x->g;
	struct bt_err err = { "" };
	char before[BT_VALUE_TEXT] = "", what[BT_VALUE_TEXT + 80];
	int pi = bt_plan_index(&x->cur, ch->key), n;

	if (pi >= 0)
		snprintf(before, sizeof(before), "%s", x->cur.vals[pi][0].text);
	if (pi < 0 || bt_plan_set(&x->cur, ch->key, ch->value, &err) < 0) {
		/* Checked when queued: this does not happen; if it did, nothing changes. */
		take_sample(x);
		return 0;
	}
	snprintf(what, sizeof(what), "%s=%s", ch->key, ch->value);
	n = x->wpi >= 0 ? (int)x->cur.vals[x->wpi][0].i : 0;
	if (pi == x->wpi && x->park && g != NULL && !g->fixed && n <= g->cap) {
		/* Park or wake: no restart. */
		if (n < g->nrun)
			gen_shrink(g, n);
		take_sample(x);
		seg_close(x);
		pthread_mutex_lock(&x->lock);
		visit_note(x, ch->key, before, x->cur.vals[pi][0].text);
		pthread_mutex_unlock(&x->lock);
		if (seg_open(x, ch, 1, n) < 0) {
			fail(x, what, "out of memory");
			return -EIO;
		}
		if (n > g->nrun && gen_grow(g, n, &err) < 0) {
			fail(x, what, err.msg);
			return -EIO;
		}
		return 0;
	}
	/* Drain, verify, tear down; set up with the new values; start again. */
	gen_stop(x, 1);
	gen_verify(x);
	take_sample(x);
	seg_close(x);
	if (x->seg_failed) {
		fail(x, x->res.cells[x->seg].label[0] ? x->res.cells[x->seg].label : "segment 1",
		     x->seg_verify);
		return -EIO;
	}
	gen_free(x);
	cell_close(x);
	pthread_mutex_lock(&x->lock);
	visit_note(x, ch->key, before, x->cur.vals[pi][0].text);
	pthread_mutex_unlock(&x->lock);
	if (cell_open(x, &err) < 0 || gen_prepare(x, &err) < 0) {
		/* A stop that came meanwhile made a long setup give up: that is the end, not a failure. */
		if (!atomic_load(&x->abort))
			fail(x, what, err.msg);
		return -EIO;
	}
	if (seg_open(x, ch, 0, gen_want(x, x->g)) < 0) {
		fail(x, what, "out of memory");
		return -EIO;
	}
	if (gen_grow(x->g, gen_want(x, x->g), &err) < 0) {
		fail(x, what, err.msg);
		return -EIO;
	}
	return 0;
}

/* The end at a boundary: drain, verify, the last sample, the segment closed. */
static void finish(struct bt_explore *x)
{
	gen_stop(x, 1);
	gen_verify(x);
	take_sample(x);
	seg_close(x);
	if (x->seg_failed)
		fail(x, x->res.cells[x->seg].label[0] ? x->res.cells[x->seg].label : "segment 1",
		     x->seg_verify);
}

/* A fixed-work generation ended by itself: verify, and run the next one. -EIO on failure. */
static int next_gen(struct bt_explore *x)
{
	struct bt_err err = { "" };

	gen_stop(x, 0);
	if (gen_verify(x) < 0) {
		take_sample(x);
		seg_close(x);
		fail(x, x->res.cells[x->seg].label[0] ? x->res.cells[x->seg].label : "segment 1",
		     x->seg_verify);
		return -EIO;
	}
	gen_free(x);
	if (gen_prepare(x, &err) < 0 || gen_grow(x->g, gen_want(x, x->g), &err) < 0) {
		take_sample(x);
		seg_close(x);
		if (!atomic_load(&x->abort))	/* a stop made a long setup give up: the end */
			fail(x, "setup", err.msg);
		return -EIO;
	}
	return 0;
}

static void set_state(struct bt_explore *x, enum bt_explore_state st)
{
	pthread_mutex_lock(&x->snap_lock);
	x->snap.state = st;
	x->snap.setups = x->setups;
	pthread_mutex_unlock(&x->snap_lock);
}

static void *explore_main(void *arg)
{
	struct bt_explore *x = arg;
	struct bt_err err = { "" };
	uint64_t next;
	const char *status;

	if (run_open(x, &err) < 0 || cell_open(x, &err) < 0 || gen_prepare(x, &err) < 0) {
		if (!atomic_load(&x->abort))
			fail(x, "setup", err.msg);
		goto out;
	}
	if (seg_open(x, NULL, 0, gen_want(x, x->g)) < 0 || gen_grow(x->g, gen_want(x, x->g), &err) < 0) {
		fail(x, "start", err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	set_state(x, BT_EXPLORE_RUNNING);
	next = x->seg_t0 + x->sample_ns;
	for (;;) {
		struct gen *g = x->g;
		uint32_t seen = atomic_load(&g->returned);
		uint64_t now = bt_now_ns();
		int stop, have;
		struct change ch;

		if (atomic_load(&g->failed)) {
			finish(x);
			break;
		}
		if (gen_done(g)) {
			if (atomic_load(&x->stop) == 1) {
				gen_stop(x, 0);		/* it ended by itself: it verifies */
				finish(x);
				break;
			}
			if (next_gen(x) < 0)
				break;
			set_state(x, BT_EXPLORE_RUNNING);
			continue;
		}
		if (now < next) {
			futex_wait(&g->returned, seen, next - now);
			continue;
		}
		/* A boundary: one waiting change, or the end, or a plain sample. */
		stop = atomic_load(&x->stop);
		have = stop != 1 && queue_pop(x, &ch);
		if (stop == 1 || (!have && stop == 2)) {
			finish(x);
			break;
		}
		if (have) {
			int seg = x->seg;

			if (apply(x, &ch) < 0)
				break;
			set_state(x, BT_EXPLORE_RUNNING);
			if (x->seg != seg) {
				next = x->seg_t0 + x->sample_ns;
				continue;
			}
		} else {
			take_sample(x);
		}
		while (next <= bt_now_ns())
			next += x->sample_ns;
	}
out:
	gen_free(x);
	cell_close(x);
	if (x->run_held && x->wl->run_teardown != NULL)
		x->wl->run_teardown(&x->run_ctx);
	x->run_held = 0;
	status = x->status < 0 ? "failed" : "complete";
	pthread_mutex_lock(&x->lock);
	snprintf(x->res.status, sizeof(x->res.status), "%s", status);
	pthread_mutex_unlock(&x->lock);
	if (x->recording) {
		bt_recw_end(&x->rec, status, x->res.error);
		x->rec_error = bt_recw_close(&x->rec);
		x->recording = 0;
	}
	set_state(x, BT_EXPLORE_DONE);
	atomic_store(&x->finished, 1);
	return NULL;
}

/* ---- the API ---- */

int bt_explore_start(struct bt_explore **out, const struct bt_workload *wl,
		     const struct bt_plan *plan, const char *record_path, struct bt_err *err)
{
	struct bt_explore *x = calloc(1, sizeof(*x));
	int rc;

	*out = NULL;
	if (x == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	x->wl = wl;
	pthread_mutex_init(&x->lock, NULL);
	pthread_mutex_init(&x->qlock, NULL);
	pthread_mutex_init(&x->snap_lock, NULL);
	atomic_init(&x->stop, 0);
	atomic_init(&x->abort, 0);
	atomic_init(&x->finished, 0);
	if ((rc = bt_explore_check(wl, plan, err)) < 0 ||
	    (rc = plan_copy(&x->initial, wl, plan, err)) < 0 ||
	    (rc = plan_copy(&x->cur, wl, plan, err)) < 0 ||
	    (rc = plan_copy(&x->want, wl, plan, err)) < 0 ||
	    (rc = plan_copy(&x->visited, wl, plan, err)) < 0)
		goto fail;
	x->wpi = bt_plan_find_flag(&x->cur, BT_PF_WORKERS);
	if (x->wpi >= 0 && x->wpi < (int)bt_common_nparams)
		x->wpi = -1;
	x->park = x->wpi >= 0 && (x->cur.params[x->wpi]->flags & (BT_PF_LIVE | BT_PF_PARK)) ==
						 (BT_PF_LIVE | BT_PF_PARK);
	x->i_pin = bt_plan_index(&x->cur, "pin");
	x->i_lat = bt_plan_index(&x->cur, "lat");
	x->i_lat_every = bt_plan_index(&x->cur, "lat_every");
	x->i_sample = bt_plan_index(&x->cur, "sample");
	if (x->i_pin < 0 || x->i_lat < 0 || x->i_lat_every < 0 || x->i_sample < 0) {
		rc = bt_err_set(err, -EINVAL, "the common parameters are missing (a bug)");
		goto fail;
	}
	x->sample_ns = (uint64_t)x->cur.vals[x->i_sample][0].i;
	if ((rc = bt_topo_load(&x->topo, err)) < 0)
		goto fail;
	x->clock_cost = bt_clock_read_cost_ns();
	if ((rc = bt_run_results_init(&x->res, wl, &x->cur, 0, x->clock_cost, err)) < 0)
		goto fail;
	x->res.explore = 1;
	if (x->wpi >= 0 && (x->cur.params[x->wpi]->flags & BT_PF_LIVE))
		snprintf(x->res.workers_axis, sizeof(x->res.workers_axis), "%s",
			 x->cur.params[x->wpi]->name);
	if (x->cur.vals[x->i_lat][0].i) {
		if ((x->seg_hist = bt_hist_new()) == NULL || (x->ival = bt_hist_new()) == NULL) {
			rc = bt_err_set(err, -ENOMEM, "out of memory");
			goto fail;
		}
		for (int k = 0; k < x->res.nch; k++)
			if ((x->seg_ch[k] = bt_hist_new()) == NULL) {
				rc = bt_err_set(err, -ENOMEM, "out of memory");
				goto fail;
			}
	}
	if (record_path != NULL && record_path[0]) {
		if ((rc = bt_recw_open(&x->rec, record_path, err)) < 0)
			goto fail;
		x->recording = 1;
		if ((rc = bt_recw_header(&x->rec, &x->res)) < 0) {
			bt_err_set(err, rc, "%s: cannot write: %s", record_path, strerror(-rc));
			goto fail;
		}
	}
	x->snap.state = BT_EXPLORE_STARTING;
	x->t_start = bt_now_ns();
	rc = pthread_create(&x->thread, NULL, explore_main, x);
	if (rc != 0) {
		rc = bt_err_set(err, -rc, "cannot start the explore thread: %s", strerror(rc));
		goto fail;
	}
	x->have_thread = 1;
	*out = x;
	return 0;
fail:
	if (x->recording) {
		bt_recw_end(&x->rec, "failed", err ? err->msg : "");
		bt_recw_close(&x->rec);
		x->recording = 0;
	}
	bt_explore_free(x);
	return rc < 0 ? rc : -EINVAL;
}

int bt_explore_change(struct bt_explore *x, const char *key, const char *value,
		      struct bt_err *err)
{
	struct bt_plan next;
	const struct bt_param *p;
	char live[256];
	int pi, rc = 0, known = 0;

	pthread_mutex_lock(&x->qlock);
	pi = bt_plan_index(&x->want, key);
	if (pi < 0) {
		/* bt_plan_set says it as the CLI does ("bogus: unknown parameter of ..."). */
		rc = bt_plan_set(&x->want, key, value, err);
		if (rc == 0)
			rc = bt_err_set(err, -EINVAL, "%s: unknown parameter", key);
		goto out;
	}
	p = x->want.params[pi];
	if (!(p->flags & BT_PF_LIVE)) {
		live_names(&x->want, live, sizeof(live));
		rc = bt_err_set(err, -EINVAL, "%s=%s: %s does not change while exploring (live: %s)",
				key, value, key, live);
		goto out;
	}
	if (x->qlen >= BT_EXPLORE_QUEUE) {
		rc = bt_err_set(err, -EBUSY, "%s=%s: %d changes are waiting already", key, value,
				BT_EXPLORE_QUEUE);
		goto out;
	}
	for (int k = 0; k < x->nkeys; k++)
		known |= strcmp(x->keys[k], key) == 0;
	if (!known && x->nkeys >= BT_RES_AXES) {
		rc = bt_err_set(err, -EINVAL, "%s=%s: at most %d settings change in one session", key,
				value, BT_RES_AXES);
		goto out;
	}
	if ((rc = plan_copy(&next, x->wl, &x->want, err)) < 0)
		goto out;
	if ((rc = bt_plan_set(&next, key, value, err)) < 0)
		goto out_next;
	if (next.nvals[pi] != 1) {
		rc = bt_err_set(err, -EINVAL,
				"%s=%s: one value at a time while exploring (a sweep is for run)", key,
				value);
		goto out_next;
	}
	if (strcmp(next.vals[pi][0].text, x->want.vals[pi][0].text) == 0) {
		rc = bt_err_set(err, -EINVAL, "%s=%s: that is the value already", key, value);
		goto out_next;
	}
	if ((rc = bt_run_validate(x->wl, &next, err)) < 0)
		goto out_next;
	{
		struct change *ch = &x->queue[(x->qhead + x->qlen) % BT_EXPLORE_QUEUE];

		snprintf(ch->key, sizeof(ch->key), "%s", key);
		snprintf(ch->value, sizeof(ch->value), "%s", next.vals[pi][0].text);
		x->qlen++;
	}
	if (!known)
		snprintf(x->keys[x->nkeys++], sizeof(x->keys[0]), "%s", key);
	bt_plan_destroy(&x->want);
	x->want = next;
	pthread_mutex_lock(&x->snap_lock);
	x->snap.pending = x->qlen;
	pthread_mutex_unlock(&x->snap_lock);
	pthread_mutex_unlock(&x->qlock);
	return 0;
out_next:
	bt_plan_destroy(&next);
out:
	pthread_mutex_unlock(&x->qlock);
	return rc;
}

int bt_explore_change_arg(struct bt_explore *x, const char *arg, struct bt_err *err)
{
	const char *eq = strchr(arg, '=');
	char key[64];

	if (eq == NULL || eq == arg)
		return bt_err_set(err, -EINVAL, "%s: expected key=value", arg);
	if ((size_t)(eq - arg) >= sizeof(key))
		return bt_err_set(err, -EINVAL, "%.40s...: no such parameter", arg);
	snprintf(key, sizeof(key), "%.*s", (int)(eq - arg), arg);
	return bt_explore_change(x, key, eq + 1, err);
}

int bt_explore_value(struct bt_explore *x, const char *key, char *buf, size_t n)
{
	int pi, rc = -ENOENT;

	pthread_mutex_lock(&x->qlock);
	pi = bt_plan_index(&x->want, key);
	if (pi >= 0) {
		snprintf(buf, n, "%s", x->want.vals[pi][0].text);
		rc = 0;
	}
	pthread_mutex_unlock(&x->qlock);
	return rc;
}

void bt_explore_snapshot(struct bt_explore *x, struct bt_explore_snap *s)
{
	pthread_mutex_lock(&x->snap_lock);
	*s = x->snap;
	pthread_mutex_unlock(&x->snap_lock);
	s->elapsed_s = (double)(bt_now_ns() - x->t_start) / 1e9;
}

void bt_explore_stop(struct bt_explore *x)
{
	atomic_store(&x->stop, 1);
	atomic_store(&x->abort, 1);
}

void bt_explore_finish(struct bt_explore *x)
{
	int want = 0;

	atomic_compare_exchange_strong(&x->stop, &want, 2);
}

int bt_explore_wait(struct bt_explore *x)
{
	if (x->have_thread) {
		pthread_join(x->thread, NULL);
		x->have_thread = 0;
	}
	return x->status;
}

int bt_explore_finished(struct bt_explore *x)
{
	return atomic_load(&x->finished);
}

struct bt_results *bt_explore_results(struct bt_explore *x)
{
	return &x->res;
}

void bt_explore_lock(struct bt_explore *x)
{
	pthread_mutex_lock(&x->lock);
}

void bt_explore_unlock(struct bt_explore *x)
{
	pthread_mutex_unlock(&x->lock);
}

int bt_explore_live_hist(struct bt_explore *x, struct bt_hist *dst, int *segment)
{
	int rc = -ENODATA;

	pthread_mutex_lock(&x->lock);
	if (x->seg_hist != NULL) {
		bt_hist_reset(dst);
		bt_hist_add(dst, x->seg_hist);
		*segment = x->seg;
		rc = 0;
	}
	pthread_mutex_unlock(&x->lock);
	return rc;
}

int bt_explore_plan(struct bt_explore *x, struct bt_plan *pl, struct bt_err *err)
{
	int rc;

	pthread_mutex_lock(&x->lock);
	rc = plan_copy(pl, x->wl, &x->visited, err);
	pthread_mutex_unlock(&x->lock);
	return rc;
}

int bt_explore_record_error(const struct bt_explore *x)
{
	return x->rec_error;
}

void bt_explore_free(struct bt_explore *x)
{
	if (x == NULL)
		return;
	bt_explore_stop(x);
	bt_explore_wait(x);
	bt_results_destroy(&x->res);
	bt_plan_destroy(&x->initial);
	bt_plan_destroy(&x->cur);
	bt_plan_destroy(&x->want);
	bt_plan_destroy(&x->visited);
	bt_topo_destroy(&x->topo);
	bt_hist_free(x->seg_hist);
	bt_hist_free(x->ival);
	for (int k = 0; k < BT_LAT_CH_MAX; k++)
		bt_hist_free(x->seg_ch[k]);
	free(x->base);
	free(x->carry);
	free(x->now);
	free(x->last);
	free(x->gauge);
	pthread_mutex_destroy(&x->lock);
	pthread_mutex_destroy(&x->qlock);
	pthread_mutex_destroy(&x->snap_lock);
	free(x);
}
