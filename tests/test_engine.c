/*
 * test_engine.c - the engines (threads and processes, the same cases for
 * both) and the interval recorder, driven with the null workload and small
 * test workers.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/topo.h"
#include "engines/engine.h"
#include "engines/sync.h"
#include "workloads/registry.h"

/* Each case runs on both engines: the cmocka state is the engine's ops. */
#define ENGINE(state) ((const struct bt_engine_ops *)*(state))

/* No worker process is left behind: every child was reaped. */
static void assert_no_children(void)
{
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

struct fixture {
	struct bt_value vals[8];
	const struct bt_value *pv[8];
	struct bt_job job;
};

/* A job for the null workload with the given thread count and defaults otherwise. */
static void null_job(struct fixture *f, int threads)
{
	const struct bt_workload *wl = bt_workload_find("null");
	struct bt_err err;
	char buf[16];

	assert_non_null(wl);
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < wl->nparams; i++) {
		assert_int_equal(bt_param_parse(&wl->params[i], wl->params[i].def, &f->vals[i], &err), 0);
		f->pv[i] = &f->vals[i];
	}
	snprintf(buf, sizeof(buf), "%d", threads);
	assert_int_equal(bt_param_parse(&wl->params[0], buf, &f->vals[0], &err), 0);
	f->job.params = f->pv;
	assert_int_equal(wl->setup(&f->job, &err), 0);
	assert_int_equal(f->job.nworkers, threads);
}

struct samples {
	int n;
	uint64_t last_ops;
	uint64_t lat_total;
};

static void count_sample(void *arg, const struct bt_sample *s, const uint64_t *ops, int n)
{
	struct samples *c = arg;
	uint64_t sum = 0;

	for (int i = 0; i < n; i++)
		sum += ops[i];
	assert_true(sum == s->ops);
	assert_true(s->ops >= c->last_ops);	/* monotonic */
	c->n++;
	c->last_ops = s->ops;
	c->lat_total += s->lat_count;
}

/* ops= is split exactly over the workers; every op is timed with lat_every=1. */
static void run_quota(const struct bt_engine_ops *eng, int threads, uint64_t ops)
{
	const struct bt_workload *wl = bt_workload_find("null");
	struct fixture f;
	struct samples smp = { 0 };
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };
	uint64_t sum = 0;

	null_job(&f, threads);
	f.job.ops = ops;
	f.job.lat_on = 1;
	out.hist = bt_hist_new();
	struct bt_engine_cfg cfg = {
		.engine = eng, .worker = wl->worker, .job = &f.job, .lat_on = 1, .lat_every = 1,
		.clock_cost_ns = 20, .sample_ns = 10000000, .on_sample = count_sample, .arg = &smp,
	};
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	assert_false(out.failed);
	assert_false(out.cancelled);
	assert_true(out.ops == ops);
	assert_int_equal(out.nworkers, threads);
	for (int i = 0; i < threads; i++) {
		uint64_t want = ops / (uint64_t)threads + ((uint64_t)i < ops % (uint64_t)threads);

		assert_true(out.workers[i].ops == want);
		sum += out.workers[i].ops;
	}
	assert_true(sum == ops);
	/* Every op was timed once, and the samples saw every latency exactly once. */
	assert_true(out.hist->total == ops);
	assert_true(smp.lat_total == ops);
	assert_true(smp.n >= 1);
	assert_true(smp.last_ops == ops);
	assert_int_equal(out.lat_every, 1);
	assert_true(out.wall_s > 0);
	bt_hist_free(out.hist);
	free(out.workers);
	assert_no_children();
}

static void test_quota_1(void **s) { run_quota(ENGINE(s), 1, 100000); }
static void test_quota_2(void **s) { run_quota(ENGINE(s), 2, 100001); }
static void test_quota_8(void **s) { run_quota(ENGINE(s), 8, 80007); }
static void test_quota_64(void **s) { run_quota(ENGINE(s), 64, 64000 + 63); }
/* Fewer ops than workers: the extra workers do nothing, the total is still exact. */
static void test_quota_tiny(void **s) { run_quota(ENGINE(s), 8, 3); }

/*
 * Latency channels: each op records one value into channel 1 (even ops) or
 * 2 (odd ops), and one into channel 3, which the engine was not given (a
 * no-op). Nothing goes into the main histogram.
 */
static int ch_worker(struct bt_worker *w)
{
	while (!bt_worker_stopping(w)) {
		int ch = 1 + (int)(w->done & 1);

		bt_lat_record_ch(w, ch, 1000u * (uint64_t)ch);
		bt_lat_record_ch(w, 3, 7);
		if (ch == 1)
			bt_worker_count(w, 0, 1);
		if (w->done % 3 == 0)
			bt_worker_error(w, 1);
		bt_worker_ops(w, 1);
	}
	return 0;
}

static const struct bt_metric ch_metrics[] = {
	{ .name = "evens", .unit = "ops", .kind = BT_MK_COUNTER },
	{ .name = "oops", .unit = "errors", .kind = BT_MK_COUNTER, .error = 1 },
};

/* What the sampler handed out live: the channels' intervals summed, the latest metrics. */
struct live_seen {
	uint64_t ch_total[BT_LAT_CH_MAX + 1];
	uint64_t ch_min[BT_LAT_CH_MAX + 1];
	int bad_ch, nm, calls;
	uint64_t metric[BT_METRICS_MAX], errors;
};

static void seen_ch(void *arg, int ch, const struct bt_hist *ival)
{
	struct live_seen *v = arg;

	if (ch < 1 || ch > 2) {
		v->bad_ch++;
		return;
	}
	v->ch_total[ch] += ival->total;
	if (ival->total && (v->ch_min[ch] == 0 || ival->min < v->ch_min[ch]))
		v->ch_min[ch] = ival->min;
}

static void seen_metrics(void *arg, const uint64_t *m, int nm, uint64_t errors)
{
	struct live_seen *v = arg;

	/* Counters only grow from one sample to the next. */
	if (v->calls > 0 && (m[0] < v->metric[0] || errors < v->errors))
		v->bad_ch++;
	v->nm = nm;
	memcpy(v->metric, m, sizeof(*m) * (size_t)nm);
	v->errors = errors;
	v->calls++;
}

static void run_channels(const struct bt_engine_ops *eng, int threads, uint64_t ops)
{
	struct fixture f;
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };
	struct live_seen seen = { 0 };
	uint64_t even = 0, thirds = 0;

	null_job(&f, threads);
	f.job.ops = ops;
	f.job.lat_on = 1;
	out.hist = bt_hist_new();
	out.ch_hist[0] = bt_hist_new();
	out.ch_hist[1] = bt_hist_new();
	struct bt_engine_cfg cfg = {
		.engine = eng, .worker = ch_worker, .job = &f.job, .lat_on = 1, .nch = 2,
		.lat_every = 1, .clock_cost_ns = 20, .sample_ns = 10000000,
		.on_interval_ch = seen_ch, .on_metrics = seen_metrics, .arg = &seen,
		.metrics = ch_metrics, .nmetrics = 2,
	};
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	assert_false(out.failed);
	assert_true(out.ops == ops);
	for (int i = 0; i < threads; i++) {
		even += (out.workers[i].ops + 1) / 2;
		thirds += (out.workers[i].ops + 2) / 3;
	}
	assert_true(out.hist->total == 0);
	assert_true(out.ch_hist[0]->total == even);
	assert_true(out.ch_hist[1]->total == ops - even);
	assert_true(out.ch_hist[0]->min == 1000 && out.ch_hist[0]->max == 1000);
	assert_true(out.ch_hist[1]->min == 2000 && out.ch_hist[1]->max == 2000);
	assert_null(out.ch_hist[2]);
	/* The live intervals add up to the rep's histograms; the last metrics are the rep's. */
	assert_int_equal(seen.bad_ch, 0);
	assert_true(seen.ch_total[1] == even && seen.ch_total[2] == ops - even);
	assert_true(seen.ch_min[1] == 1000 && seen.ch_min[2] == 2000);
	assert_int_equal(seen.nm, 2);
	assert_true(seen.calls >= 1);
	assert_true(seen.metric[0] == even && out.metric[0] == even);
	assert_true(seen.metric[1] == thirds && seen.errors == thirds && out.errors == thirds);
	for (int k = 0; k < 2; k++)
		bt_hist_free(out.ch_hist[k]);
	bt_hist_free(out.hist);
	free(out.workers);
	assert_no_children();
}

static void test_channels_1(void **s) { run_channels(ENGINE(s), 1, 10001); }
static void test_channels_8(void **s) { run_channels(ENGINE(s), 8, 80007); }

/*
 * lat_every=N times 1 call in N, also when a call counts many ops (hash
 * counts bytes, files count records): a worker counting 64 per call with a
 * quota of 64 x 1000 calls is timed exactly 100 times at lat_every=10, the
 * first call included.
 */
static int bulk_worker(struct bt_worker *w)
{
	while (!bt_worker_stopping(w)) {
		uint64_t t = bt_lat_begin(w);

		bt_lat_end(w, t);
		bt_worker_ops(w, 64);
	}
	return 0;
}

static void run_every(const struct bt_engine_ops *eng, int (*worker)(struct bt_worker *),
		      uint64_t per_call, uint64_t calls, uint32_t every)
{
	struct fixture f;
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };

	null_job(&f, 1);
	f.job.ops = calls * per_call;
	f.job.lat_on = 1;
	out.hist = bt_hist_new();
	struct bt_engine_cfg cfg = {
		.engine = eng, .worker = worker, .job = &f.job, .lat_on = 1, .lat_every = every,
		.clock_cost_ns = 20, .sample_ns = 10000000,
	};
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	assert_true(out.ops == calls * per_call);
	assert_true(out.hist->total == (calls + every - 1) / every);
	assert_int_equal(out.lat_every, every);
	bt_hist_free(out.hist);
	free(out.workers);
}

static void test_every(void **s)
{
	const struct bt_workload *wl = bt_workload_find("null");

	run_every(ENGINE(s), wl->worker, 1, 1000, 10);
	run_every(ENGINE(s), wl->worker, 1, 1001, 7);
	run_every(ENGINE(s), bulk_worker, 64, 1000, 10);
	run_every(ENGINE(s), bulk_worker, 64, 999, 1);
}

/* A duration stop ends every worker; with lat_every=0 the rate adapts and is reported. */
static void test_duration(void **state)
{
	const struct bt_workload *wl = bt_workload_find("null");
	struct fixture f;
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };

	null_job(&f, 8);
	f.job.duration_ns = 50000000;
	out.hist = bt_hist_new();
	struct bt_engine_cfg cfg = {
		.engine = ENGINE(state), .worker = wl->worker, .job = &f.job, .lat_on = 1,
		.lat_every = 0,
		.clock_cost_ns = 20, .sample_ns = 10000000,
	};
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	assert_true(out.ops > 0);
	assert_true(out.lat_every >= 1);
	assert_true(out.hist->total > 0);
	assert_true(out.hist->total <= out.ops);
	bt_hist_free(out.hist);
	free(out.workers);
}

/*
 * With latency off a worker's loop runs the instructions it runs with it on
 * (bt_lat_begin's one compare): lat_next is past any op count, so no call
 * is timed and none takes the slow path.
 */
static int off_worker(struct bt_worker *w)
{
	while (!bt_worker_stopping(w)) {
		if (w->lat_next != UINT64_MAX)
			return bt_worker_fail(w, "latency off, but lat_next is %llu",
					      (unsigned long long)w->lat_next);
		if (bt_lat_begin(w) != 0)
			return bt_worker_fail(w, "latency off, but op %llu was timed",
					      (unsigned long long)w->done);
		bt_worker_ops(w, 1);
	}
	return 0;
}

/* Latency off: no histogram is touched, no call is timed and lat_every reads 0. */
static void test_lat_off(void **state)
{
	int (*workers[])(struct bt_worker *) = { bt_workload_find("null")->worker, off_worker };

	for (size_t k = 0; k < sizeof(workers) / sizeof(workers[0]); k++) {
		struct fixture f;
		struct bt_engine_out out = { 0 };
		struct bt_err err = { "" };

		null_job(&f, 2);
		f.job.ops = 1000;
		struct bt_engine_cfg cfg = { .engine = ENGINE(state), .worker = workers[k],
					     .job = &f.job, .lat_on = 0 };
		if (bt_engine_run(&cfg, &out, &err) != 0)
			fail_msg("%s", err.msg);
		assert_true(out.ops == 1000);
		assert_int_equal(out.lat_every, 0);
		free(out.workers);
	}
}

/* Pinning: each worker runs on the CPU it was given, before and after its loop. */
static void test_pinning(void **state)
{
	const struct bt_workload *wl = bt_workload_find("null");
	struct bt_topo topo;
	struct fixture f;
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };
	int cpus[8];

	assert_int_equal(bt_topo_load(&topo, &err), 0);
	null_job(&f, 8);
	f.job.ops = 8000;
	for (int i = 0; i < 8; i++)
		cpus[i] = topo.cpus[i % topo.ncpus].os;
	struct bt_engine_cfg cfg = { .engine = ENGINE(state), .worker = wl->worker, .job = &f.job,
				     .cpus = cpus };
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(out.workers[i].pinned, cpus[i]);
		assert_int_equal(out.workers[i].cpu_first, cpus[i]);
		assert_int_equal(out.workers[i].cpu_last, cpus[i]);
	}
	free(out.workers);
	bt_topo_destroy(&topo);
}

static int failing_worker(struct bt_worker *w)
{
	if (w->id == 1)
		return bt_worker_fail(w, "worker %d: checksum mismatch", w->id);
	while (!bt_worker_stopping(w))
		bt_worker_ops(w, 1);
	return 0;
}

/* A worker's failure stops all of them and its message comes back. */
static void test_failure(void **state)
{
	struct bt_job job = { .nworkers = 4 };
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };
	struct bt_engine_cfg cfg = { .engine = ENGINE(state), .worker = failing_worker, .job = &job };

	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	assert_true(out.failed);
	assert_string_equal(err.msg, "worker 1: checksum mismatch");
	free(out.workers);
	assert_no_children();
}

/* Worker 2 of 8 dies by a signal; the others run until stopped. */
static int killed_worker(struct bt_worker *w)
{
	if (w->id == 2)
		kill(getpid(), SIGKILL);
	while (!bt_worker_stopping(w))
		bt_worker_ops(w, 1);
	return 0;
}

/* A worker process killed by a signal fails the rep by the signal's name; nothing is left. */
static void test_killed(void **state)
{
	struct bt_job job = { .nworkers = 8, .lat_on = 1 };
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };
	struct bt_engine_cfg cfg = { .engine = &bt_engine_processes, .worker = killed_worker,
				     .job = &job, .lat_on = 1, .sample_ns = 10000000 };

	(void)state;
	out.hist = bt_hist_new();
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	assert_true(out.failed);
	assert_false(out.cancelled);
	assert_string_equal(err.msg, "worker 2: killed by SIGKILL");
	bt_hist_free(out.hist);
	free(out.workers);
	assert_no_children();
}

/*
 * Worker 0 dies holding a process-shared mutex the others wait for: they
 * can never see stop, so the engine must end them. The rep fails with the
 * first loss, and ends.
 */
static int dies_holding(struct bt_worker *w)
{
	struct bt_lock *l = w->job->state;

	if (w->id == 0) {
		bt_lock_acquire(l);
		kill(getpid(), SIGKILL);
	}
	while (!bt_worker_stopping(w)) {
		bt_lock_acquire(l);
		bt_worker_ops(w, 1);
		bt_lock_release(l);
	}
	return 0;
}

static void test_killed_holding_lock(void **state)
{
	struct bt_job job = { .nworkers = 4, .pshared = 1 };
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };
	struct bt_engine_cfg cfg = { .engine = &bt_engine_processes, .worker = dies_holding,
				     .job = &job };
	struct bt_lock *l = bt_job_shared_alloc(&job, sizeof(*l));

	(void)state;
	assert_non_null(l);
	assert_int_equal(bt_lock_init_pshared(l, BT_LOCK_MUTEX, 1), 0);
	job.state = l;
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	assert_true(out.failed);
	assert_string_equal(err.msg, "worker 0: killed by SIGKILL");
	free(out.workers);
	assert_no_children();
	bt_job_shared_free_all(&job);
	assert_null(job.shm);
}

static int exiting_worker(struct bt_worker *w)
{
	if (w->id == 1)
		_exit(3);
	while (!bt_worker_stopping(w))
		bt_worker_ops(w, 1);
	return 0;
}

/* A worker process that exits non-zero fails the rep with its status. */
static void test_exit_status(void **state)
{
	struct bt_job job = { .nworkers = 2 };
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };
	struct bt_engine_cfg cfg = { .engine = &bt_engine_processes, .worker = exiting_worker,
				     .job = &job };

	(void)state;
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	assert_true(out.failed);
	assert_string_equal(err.msg, "worker 1: exited with status 3");
	free(out.workers);
	assert_no_children();
}

/* Workers of either engine write the job's shared memory; the caller reads it after. */
static int shared_writer(struct bt_worker *w)
{
	uint64_t *slot = w->job->state;

	while (!bt_worker_stopping(w))
		bt_worker_ops(w, 1);
	slot[w->id] = w->done;
	return 0;
}

static void test_shared_alloc(void **state)
{
	struct bt_job job = { .nworkers = 8, .ops = 8008 };
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };
	struct bt_engine_cfg cfg = { .engine = ENGINE(state), .worker = shared_writer, .job = &job };
	uint64_t *slot = bt_job_shared_alloc(&job, 8 * sizeof(*slot)), sum = 0;

	assert_non_null(slot);
	assert_true(((uintptr_t)slot & 63) == 0);
	job.state = slot;
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	assert_false(out.failed);
	for (int i = 0; i < 8; i++) {
		assert_true(slot[i] == out.workers[i].ops);
		sum += slot[i];
	}
	assert_true(sum == 8008);
	free(out.workers);
	bt_job_shared_free_all(&job);
}

/* A raised cancel stops a run that has no other stop rule. */
static void test_cancel(void **state)
{
	const struct bt_workload *wl = bt_workload_find("null");
	struct fixture f;
	_Atomic int cancel = 1;
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };

	(void)state;
	null_job(&f, 4);
	struct bt_engine_cfg cfg = { .worker = wl->worker, .job = &f.job, .cancel = &cancel,
				     .sample_ns = 10000000 };
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	assert_true(out.cancelled);
	free(out.workers);
}

/* The recorder loses no value across interval swaps while its writer runs. */
struct rec_arg {
	struct bt_recorder rec;
	uint64_t n;
	_Atomic int done;
};

static void *rec_writer(void *p)
{
	struct rec_arg *a = p;

	for (uint64_t i = 0; i < a->n; i++)
		bt_recorder_record(&a->rec, i % 5000 + 1);
	atomic_store(&a->done, 1);
	return NULL;
}

static void test_recorder_swap(void **state)
{
	struct rec_arg a = { .n = 2000000 };
	struct bt_hist *total = bt_hist_new();
	pthread_t t;
	int takes = 0;

	(void)state;
	assert_int_equal(bt_recorder_init(&a.rec), 0);
	atomic_init(&a.done, 0);
	assert_int_equal(pthread_create(&t, NULL, rec_writer, &a), 0);
	while (!atomic_load(&a.done)) {
		bt_recorder_take(&a.rec, total);
		takes++;
	}
	pthread_join(t, NULL);
	bt_recorder_take(&a.rec, total);
	bt_recorder_take(&a.rec, total);
	assert_true(total->total == a.n);
	assert_true(total->max == 5000);
	assert_true(total->min == 1);
	assert_true(takes >= 1);
	bt_recorder_destroy(&a.rec);
	bt_hist_free(total);
}

/* One case on each engine, named after it. */
#define BOTH(f)                                                                         \
	{ #f " as=threads", f, NULL, NULL, (void *)&bt_engine_threads },                  \
	{ #f " as=processes", f, NULL, NULL, (void *)&bt_engine_processes }

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_quota_1),
		BOTH(test_quota_2),
		BOTH(test_quota_8),
		BOTH(test_quota_64),
		BOTH(test_quota_tiny),
		BOTH(test_duration),
		BOTH(test_lat_off),
		BOTH(test_every),
		BOTH(test_channels_1),
		BOTH(test_channels_8),
		BOTH(test_pinning),
		BOTH(test_failure),
		BOTH(test_cancel),
		BOTH(test_shared_alloc),
		cmocka_unit_test(test_killed),
		cmocka_unit_test(test_killed_holding_lock),
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_recorder_swap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
