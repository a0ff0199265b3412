/*
 * test_engine.c - the thread engine and the interval recorder, driven with
 * the null workload and small test workers.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/topo.h"
#include "engines/engine.h"
#include "workloads/registry.h"

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
static void run_quota(int threads, uint64_t ops)
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
		.worker = wl->worker, .job = &f.job, .lat_on = 1, .lat_every = 1,
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
}

static void test_quota_1(void **s) { (void)s; run_quota(1, 100000); }
static void test_quota_2(void **s) { (void)s; run_quota(2, 100001); }
static void test_quota_8(void **s) { (void)s; run_quota(8, 80007); }
static void test_quota_64(void **s) { (void)s; run_quota(64, 64000 + 63); }
/* Fewer ops than workers: the extra workers do nothing, the total is still exact. */
static void test_quota_tiny(void **s) { (void)s; run_quota(8, 3); }

/* A duration stop ends every worker; with lat_every=0 the rate adapts and is reported. */
static void test_duration(void **state)
{
	const struct bt_workload *wl = bt_workload_find("null");
	struct fixture f;
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };

	(void)state;
	null_job(&f, 8);
	f.job.duration_ns = 50000000;
	out.hist = bt_hist_new();
	struct bt_engine_cfg cfg = {
		.worker = wl->worker, .job = &f.job, .lat_on = 1, .lat_every = 0,
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

/* Latency off: no histogram is touched and lat_every reads 0. */
static void test_lat_off(void **state)
{
	const struct bt_workload *wl = bt_workload_find("null");
	struct fixture f;
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };

	(void)state;
	null_job(&f, 2);
	f.job.ops = 1000;
	struct bt_engine_cfg cfg = { .worker = wl->worker, .job = &f.job, .lat_on = 0 };
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	assert_true(out.ops == 1000);
	assert_int_equal(out.lat_every, 0);
	free(out.workers);
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

	(void)state;
	assert_int_equal(bt_topo_load(&topo, &err), 0);
	null_job(&f, 8);
	f.job.ops = 8000;
	for (int i = 0; i < 8; i++)
		cpus[i] = topo.cpus[i % topo.ncpus].os;
	struct bt_engine_cfg cfg = { .worker = wl->worker, .job = &f.job, .cpus = cpus };
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
	struct bt_engine_cfg cfg = { .worker = failing_worker, .job = &job };

	(void)state;
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	assert_true(out.failed);
	assert_string_equal(err.msg, "worker 1: checksum mismatch");
	free(out.workers);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quota_1),
		cmocka_unit_test(test_quota_2),
		cmocka_unit_test(test_quota_8),
		cmocka_unit_test(test_quota_64),
		cmocka_unit_test(test_quota_tiny),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_lat_off),
		cmocka_unit_test(test_pinning),
		cmocka_unit_test(test_failure),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_recorder_swap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
