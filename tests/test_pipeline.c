/*
 * test_pipeline.c - the pipeline workload through the real thread engine:
 * every message received exactly once under every lock x notify x wait
 * combination at 1, 2, 8 and 64 threads and with the lock-free queues;
 * latency on (every message timed) and off; odd sizes and blocks larger
 * than the queues; the memory check; and a cancel that ends the run with
 * verify saying so instead of hanging.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engines/engine.h"
#include "workloads/registry.h"

#include "wl_fixture.h"

#define fx_init(f, kv) fx_init_wl((f), "pipeline", (kv))

static int64_t fx_int(struct fx *f, const char *name)
{
	const struct bt_param *p = bt_param_find(f->wl->params, f->wl->nparams, name);

	assert_non_null(p);
	return f->vals[p - f->wl->params].i;
}

struct run {
	int lat_on;
	uint32_t lat_every;	/* 0: every message timed (lat_every=1) */
	_Atomic int *cancel;
	int cancel_after_ops;	/* raise *cancel from on_sample once ops are counted */
	/* results */
	struct bt_engine_out out;
	int verify_rc;
	char msg[BT_ERR_MAX];
	uint64_t timeouts;	/* the rep's timeouts metric, as verify set it */
};

static void cancel_on_progress(void *arg, const struct bt_sample *s, const uint64_t *ops, int n)
{
	struct run *r = arg;
	uint64_t sum = 0;

	for (int i = 0; i < n; i++)
		sum += ops[i];
	if (sum > 0)
		atomic_store(r->cancel, 1);
}

/* check, setup, run to the end, verify, teardown. */
static void run(struct fx *f, struct run *r)
{
	struct bt_err err = { "" };
	int threads = (int)fx_int(f, "threads");

	assert_int_equal(f->wl->check(f->pv, &err), 0);
	f->job.lat_on = r->lat_on;
	if (f->wl->setup(&f->job, &err) != 0)
		fail_msg("setup: %s", err.msg);
	assert_int_equal(f->job.nworkers, 2 * threads + (int)fx_int(f, "transmitters"));
	memset(&r->out, 0, sizeof(r->out));
	if (r->lat_on)
		r->out.hist = bt_hist_new();
	struct bt_engine_cfg cfg = {
		.worker = f->wl->worker, .job = &f->job, .lat_on = r->lat_on,
		.lat_every = r->lat_every ? r->lat_every : 1,
		.clock_cost_ns = 20, .sample_ns = 1000000, .cancel = r->cancel,
		.on_sample = r->cancel_after_ops ? cancel_on_progress : NULL, .arg = r,
	};
	assert_int_equal(bt_engine_run(&cfg, &r->out, &err), 0);
	if (r->out.failed)
		fail_msg("run failed: %s", err.msg);
	err.msg[0] = '\0';
	r->verify_rc = f->wl->verify(&f->job, &err);
	snprintf(r->msg, sizeof(r->msg), "%s", err.msg);
	assert_int_equal(f->wl->nmetrics, 1);
	assert_string_equal(f->wl->metrics[0].name, "timeouts");
	r->timeouts = f->job.metric[0];
	f->wl->teardown(&f->job);
	assert_null(f->job.state);
}

static void run_free(struct run *r)
{
	bt_hist_free(r->out.hist);
	free(r->out.workers);
}

/* A complete run must receive threads x units messages, each once. */
static void expect_exactly_once(struct fx *f, int lat_on)
{
	struct run r = { .lat_on = lat_on };
	uint64_t total = (uint64_t)fx_int(f, "threads") * (uint64_t)fx_int(f, "units");

	run(f, &r);
	if (r.verify_rc != 0)
		fail_msg("verify: %s", r.msg);
	assert_false(r.out.cancelled);
	assert_true(r.out.ops == total);
	assert_true(r.out.bytes == total * (uint64_t)fx_int(f, "msgsize"));
	if (lat_on)
		assert_true(r.out.hist->total == total);
	/* A correct rep says nothing; the timeouts are a metric, 0 without timed waits. */
	assert_string_equal(r.msg, "");
	if (fx_int(f, "queue") != 0 || fx_int(f, "wait") != 1)
		assert_int_equal(r.timeouts, 0);
	run_free(&r);
}

static void every_model_at(int threads, int units)
{
	const char *locks[] = { "mutex", "adaptive", "spin", "ticket" };
	const char *notifies[] = { "signal", "broadcast" };
	const char *waits[] = { "atomic", "separate" };
	char tbuf[32], ubuf[32];

	snprintf(tbuf, sizeof(tbuf), "threads=%d", threads);
	snprintf(ubuf, sizeof(ubuf), "units=%d", units);
	for (int l = 0; l < 4; l++)
		for (int n = 0; n < 2; n++)
			for (int w = 0; w < 2; w++) {
				char lb[32], nb[32], wb[32];
				const char *kv[] = { tbuf, ubuf, lb, nb, wb, NULL };
				struct fx f;

				snprintf(lb, sizeof(lb), "lock=%s", locks[l]);
				snprintf(nb, sizeof(nb), "notify=%s", notifies[n]);
				snprintf(wb, sizeof(wb), "wait=%s", waits[w]);
				fx_init(&f, kv);
				expect_exactly_once(&f, 0);
			}
}

static void test_models_1(void **state)
{
	every_model_at(1, 200);
}

static void test_models_2(void **state)
{
	every_model_at(2, 200);
}

static void test_models_8(void **state)
{
	every_model_at(8, 200);
}

/* 129 workers on whatever CPUs there are: the ticket lock makes this the slow one. */
static void test_models_64(void **state)
{
	every_model_at(64, 40);
}

static void test_lockfree(void **state)
{
	const int threads[] = { 1, 2, 8, 64 };

	for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		char tbuf[32];
		const char *kv[] = { tbuf, "queue=lockfree", "units=300", "transmitters=2", NULL };
		struct fx f;

		snprintf(tbuf, sizeof(tbuf), "threads=%d", threads[i]);
		fx_init(&f, kv);
		expect_exactly_once(&f, 0);
		/* capacity 1 rounds up to 2 */
		fx_set(&f, "capacity=1");
		expect_exactly_once(&f, 1);
	}
}

static void test_latency_on_off(void **state)
{
	const char *kv[] = { "threads=4", "units=500", NULL };
	const char *kv_sep[] = { "threads=4", "units=500", "wait=separate", "lock=spin", NULL };
	struct fx f;

	fx_init(&f, kv);
	expect_exactly_once(&f, 1);
	expect_exactly_once(&f, 0);
	fx_init(&f, kv_sep);
	expect_exactly_once(&f, 1);
}

/*
 * lat_every=7: each producer stamps messages 0, 7, 14, ... of its own (the
 * receivers record what is stamped), so 4 producers of 500 give exactly
 * 4 x 72 latencies, and every message still arrives once.
 */
static void test_latency_sampled(void **state)
{
	const char *kv[] = { "threads=4", "units=500", NULL };
	struct fx f;
	struct run r = { .lat_on = 1, .lat_every = 7 };

	fx_init(&f, kv);
	run(&f, &r);
	if (r.verify_rc != 0)
		fail_msg("verify: %s", r.msg);
	assert_true(r.out.ops == 2000);
	assert_true(r.out.hist->total == 4 * 72);
	assert_int_equal(r.out.lat_every, 7);
	run_free(&r);
}

/* Blocks larger than the queues, several transmitters, odd payload sizes. */
static void test_shapes(void **state)
{
	const char *big_block[] = { "threads=3", "units=333", "block=16", "capacity=3",
				    "transmitters=3", "msgsize=100", NULL };
	const char *tiny[] = { "threads=2", "units=100", "block=1", "capacity=1", "msgsize=8",
			       "notify=broadcast", NULL };
	const char *large[] = { "threads=2", "units=20", "msgsize=64K", "lock=adaptive", NULL };
	const char *many_tx[] = { "threads=2", "units=100", "transmitters=64", "block=7",
				  "lock=ticket", "wait=separate", "timeout=1us", NULL };
	struct fx f;

	fx_init(&f, big_block);
	expect_exactly_once(&f, 1);
	fx_init(&f, tiny);
	expect_exactly_once(&f, 0);
	fx_init(&f, large);
	expect_exactly_once(&f, 0);
	fx_init(&f, many_tx);
	expect_exactly_once(&f, 0);
}

static void test_check_memory(void **state)
{
	const char *kv[] = { "threads=1024", "units=10000000", NULL };
	const char *kv_ok[] = { "threads=64", "units=100000", NULL };
	struct bt_err err = { "" };
	struct fx f;

	fx_init(&f, kv);
	assert_int_equal(f.wl->check(f.pv, &err), -EINVAL);
	assert_string_equal(err.msg, "units=10000000: 10240000000 messages (threads x units) of "
				     "msgsize=64 need 1258.9 GiB (limit 1 GiB): lower units, "
				     "threads or msgsize");
	err.msg[0] = '\0';
	assert_int_equal(f.wl->setup(&f.job, &err), -EINVAL);
	assert_null(f.job.state);
	assert_true(strncmp(err.msg, "units=10000000: ", 16) == 0);
	fx_init(&f, kv_ok);
	assert_int_equal(f.wl->check(f.pv, &err), 0);
}

static void test_descriptor(void **state)
{
	const struct bt_workload *wl = bt_workload_find("pipeline");
	const char *names[] = { "threads", "transmitters", "units", "block", "capacity", "lock",
				"notify", "wait", "timeout", "queue", "msgsize" };

	assert_non_null(wl);
	assert_string_equal(wl->group, "threads");
	assert_string_equal(wl->unit, "items");
	assert_null(wl->stop_default);
	assert_int_equal(wl->nparams, 11);
	for (size_t i = 0; i < 11; i++)
		assert_string_equal(wl->params[i].name, names[i]);
}

/* A cancel must end the run promptly, and verify must say it was cancelled. */
static void expect_cancel(const char *const *kv, int before_start)
{
	_Atomic int cancel = before_start;
	struct run r = { .cancel = &cancel, .cancel_after_ops = !before_start };
	struct fx f;

	fx_init(&f, kv);
	run(&f, &r);
	assert_true(r.out.cancelled);
	assert_int_equal(r.verify_rc, -ECANCELED);
	if (strncmp(r.msg, "cancelled: ", 11) != 0)
		fail_msg("verify said: %s", r.msg);
	assert_true(r.out.ops < (uint64_t)fx_int(&f, "threads") * (uint64_t)fx_int(&f, "units"));
	run_free(&r);
}

static void test_cancel(void **state)
{
	/* 400 000 messages: far more than a few sample intervals of work */
	const char *a[] = { "threads=4", "units=100000", "msgsize=8", NULL };
	const char *b[] = { "threads=4", "units=100000", "msgsize=8", "lock=spin",
			    "notify=broadcast", "wait=separate", NULL };
	const char *c[] = { "threads=4", "units=100000", "msgsize=8", "lock=ticket",
			    "wait=atomic", "capacity=1", NULL };
	const char *d[] = { "threads=4", "units=100000", "msgsize=8", "queue=lockfree", NULL };

	expect_cancel(a, 1);
	expect_cancel(a, 0);
	expect_cancel(b, 0);
	expect_cancel(c, 1);
	expect_cancel(d, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptor),
		cmocka_unit_test(test_check_memory),
		cmocka_unit_test(test_models_1),
		cmocka_unit_test(test_models_2),
		cmocka_unit_test(test_models_8),
		cmocka_unit_test(test_models_64),
		cmocka_unit_test(test_lockfree),
		cmocka_unit_test(test_latency_on_off),
		cmocka_unit_test(test_latency_sampled),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_cancel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
