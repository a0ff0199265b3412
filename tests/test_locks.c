/*
 * test_locks.c - the locks workload through the real engines: with ops= the
 * shared counters must end exactly at ops for every lock kind at 1, 2 and 8
 * workers, as threads and as processes (verify checks it; a lost update
 * fails it), latency recording times every op, and lock=none is refused
 * with more than one thread.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engines/engine.h"
#include "workloads/registry.h"

#include "wl_fixture.h"

#define fx_init(f, kv) fx_init_wl((f), "locks", (kv))

/* setup, run with ops= to the end, verify, teardown; returns verify's code. */
static int run_ops_on(const struct bt_engine_ops *eng, struct fx *f, uint64_t ops, int lat_on,
		     int want_workers, char *msg)
{
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };
	int rc;

	assert_int_equal(f->wl->check(f->pv, &err), 0);
	f->job.ops = ops;
	f->job.lat_on = lat_on;
	f->job.pshared = eng == &bt_engine_processes;
	assert_int_equal(f->wl->setup(&f->job, &err), 0);
	assert_int_equal(f->job.nworkers, want_workers);
	if (lat_on)
		out.hist = bt_hist_new();
	struct bt_engine_cfg cfg = {
		.engine = eng, .worker = f->wl->worker, .job = &f->job, .lat_on = lat_on, .lat_every = 1,
		.clock_cost_ns = 20, .sample_ns = 10000000,
	};
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	assert_false(out.failed);
	assert_false(out.cancelled);
	assert_true(out.ops == ops);
	if (lat_on)
		assert_true(out.hist->total == ops);
	err.msg[0] = '\0';
	rc = f->wl->verify(&f->job, &err);
	snprintf(msg, BT_ERR_MAX, "%s", err.msg);
	f->wl->teardown(&f->job);
	assert_null(f->job.state);
	bt_job_shared_free_all(&f->job);
	bt_hist_free(out.hist);
	free(out.workers);
	return rc;
}

static int run_ops(struct fx *f, uint64_t ops, int lat_on, int want_workers, char *msg)
{
	return run_ops_on(&bt_engine_threads, f, ops, lat_on, want_workers, msg);
}

static void exact_count_on(const struct bt_engine_ops *eng, const char *lock, int threads,
			   uint64_t ops, const char *extra)
{
	char tbuf[32], lbuf[32], msg[BT_ERR_MAX];
	const char *kv[] = { tbuf, lbuf, extra, NULL };
	struct fx f;
	int rc;

	snprintf(tbuf, sizeof(tbuf), "threads=%d", threads);
	snprintf(lbuf, sizeof(lbuf), "lock=%s", lock);
	fx_init(&f, kv);
	rc = run_ops_on(eng, &f, ops, 0, threads, msg);
	if (rc != 0)
		fail_msg("lock=%s threads=%d as=%s: %s", lock, threads, eng->name, msg);
}

static void exact_count(const char *lock, int threads, uint64_t ops, const char *extra)
{
	exact_count_on(&bt_engine_threads, lock, threads, ops, extra);
}

static void test_exact_every_lock(void **state)
{
	const char *locks[] = { "mutex", "adaptive", "spin", "ticket", "atomic" };
	const int threads[] = { 1, 2, 8 };

	for (size_t l = 0; l < sizeof(locks) / sizeof(locks[0]); l++)
		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
			exact_count(locks[l], threads[t], 40007, NULL);
	exact_count("none", 1, 40007, NULL);
}

/* The same exact counts with the workers in processes of their own. */
static void test_exact_every_lock_processes(void **state)
{
	const char *locks[] = { "mutex", "adaptive", "spin", "ticket", "atomic" };
	const int threads[] = { 1, 2, 8 };

	for (size_t l = 0; l < sizeof(locks) / sizeof(locks[0]); l++)
		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
			exact_count_on(&bt_engine_processes, locks[l], threads[t], 40007, NULL);
	exact_count_on(&bt_engine_processes, "none", 1, 40007, NULL);
	exact_count_on(&bt_engine_processes, "spin", 4, 10001, "shared=12");
}

/* As processes, latency recording in the shared region still times every op. */
static void test_latency_every_op_processes(void **state)
{
	const char *kv[] = { "threads=2", "lock=mutex", NULL };
	char msg[BT_ERR_MAX];
	struct fx f;

	fx_init(&f, kv);
	assert_int_equal(run_ops_on(&bt_engine_processes, &f, 5000, 1, 2, msg), 0);
}

/* Several counters, work inside and outside the lock. */
static void test_exact_shared_cs(void **state)
{
	const char *kv[] = { "threads=4", "lock=spin", "shared=12", "cs=20", "outside=20", NULL };
	const char *kv2[] = { "threads=3", "lock=atomic", "shared=64", "cs=5", NULL };
	char msg[BT_ERR_MAX];
	struct fx f;

	fx_init(&f, kv);
	assert_int_equal(run_ops(&f, 10001, 0, 4, msg), 0);
	fx_init(&f, kv2);
	assert_int_equal(run_ops(&f, 10001, 0, 3, msg), 0);
	/* fewer ops than threads: idle workers count nothing, the total is still exact */
	fx_init(&f, kv);
	assert_int_equal(run_ops(&f, 3, 0, 4, msg), 0);
}

static void test_latency_every_op(void **state)
{
	const char *kv[] = { "threads=2", "lock=ticket", NULL };
	char msg[BT_ERR_MAX];
	struct fx f;

	fx_init(&f, kv);
	assert_int_equal(run_ops(&f, 5000, 1, 2, msg), 0);
}

static void test_check_none(void **state)
{
	const char *bad[] = { "threads=2", "lock=none", NULL };
	const char *ok[] = { "threads=1", "lock=none", NULL };
	struct bt_err err = { "" };
	struct fx f;

	fx_init(&f, bad);
	assert_int_equal(f.wl->check(f.pv, &err), -EINVAL);
	assert_string_equal(err.msg, "lock=none: only with threads=1 (no lock means lost updates)");
	/* setup refuses it too, without leaving state behind */
	err.msg[0] = '\0';
	assert_int_equal(f.wl->setup(&f.job, &err), -EINVAL);
	assert_null(f.job.state);
	assert_string_equal(err.msg, "lock=none: only with threads=1 (no lock means lost updates)");
	fx_init(&f, ok);
	assert_int_equal(f.wl->check(f.pv, &err), 0);
}

static void test_descriptor(void **state)
{
	const struct bt_workload *wl = bt_workload_find("locks");
	const char *names[] = { "threads", "lock", "cs", "outside", "shared" };
	struct bt_value v;
	struct bt_err err;

	assert_non_null(wl);
	assert_string_equal(wl->group, "threads");
	assert_string_equal(wl->unit, "updates");
	assert_string_equal(wl->stop_default, "duration=1s");
	assert_int_equal(wl->nparams, 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(wl->params[i].name, names[i]);
	assert_int_equal(bt_param_parse(&wl->params[1], "atomic", &v, &err), 0);
	assert_int_equal(v.i, 4);
	assert_int_equal(bt_param_parse(&wl->params[1], "none", &v, &err), 0);
	assert_int_equal(v.i, 5);
	assert_int_equal(bt_param_parse(&wl->params[4], "65", &v, &err), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptor),
		cmocka_unit_test(test_check_none),
		cmocka_unit_test(test_exact_every_lock),
		cmocka_unit_test(test_exact_shared_cs),
		cmocka_unit_test(test_latency_every_op),
		cmocka_unit_test(test_exact_every_lock_processes),
		cmocka_unit_test(test_latency_every_op_processes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
