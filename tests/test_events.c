/*
 * test_events.c - the events workload through the threads engine: every api
 * (select, poll, epoll, epoll-et) on socket pairs and pipes delivers exactly
 * the events made ready, no more, no fewer, at 1, 100 and 10 000 watched
 * descriptors (10 000 for poll and the epolls: select at that size is slow
 * and is covered at 100); a fixed ops= quota of rounds must end with
 * events == rounds x active and verify passing. The open-file limit message
 * names the descriptors needed and the hard limit.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "engines/engine.h"
#include "workloads/registry.h"

#include "wl_fixture.h"

enum { M_WAITS, M_WAIT, M_WATCHED, M_WAIT_FD, M_EVENTS };

/* One cell of events with the given values, ops rounds; checks the exact event count. */
static void run_cell(const char *api, const char *kind, int fds, int active, int threads,
		     uint64_t ops)
{
	char a[32], k[32], f[32], ac[32], t[32];
	const char *kv[] = { a, k, f, ac, t, NULL };
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };
	struct fx fx;

	snprintf(a, sizeof(a), "api=%s", api);
	snprintf(k, sizeof(k), "kind=%s", kind);
	snprintf(f, sizeof(f), "fds=%d", fds);
	snprintf(ac, sizeof(ac), "active=%d", active);
	snprintf(t, sizeof(t), "threads=%d", threads);
	fx_init_wl(&fx, "events", kv);
	if (fx.wl->check(fx.pv, &err) != 0)
		fail_msg("%s %s fds=%d: %s", api, kind, fds, err.msg);
	if (fx.wl->cell_setup(&fx.job, &err) != 0)
		fail_msg("%s %s fds=%d: cell_setup: %s", api, kind, fds, err.msg);
	/* Two reps on the same descriptors: the second starts clean too. */
	for (int rep = 0; rep < 2; rep++) {
		fx.job.ops = ops;
		fx.job.lat_on = 1;
		assert_int_equal(fx.wl->setup(&fx.job, &err), 0);
		assert_int_equal(fx.job.nworkers, threads);
		out.hist = bt_hist_new();
		struct bt_engine_cfg cfg = {
			.worker = fx.wl->worker, .job = &fx.job, .lat_on = 1, .lat_every = 1,
			.clock_cost_ns = 20, .sample_ns = 10000000,
			.metrics = fx.wl->metrics, .nmetrics = (int)fx.wl->nmetrics,
		};
		assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
		if (out.failed)
			fail_msg("%s %s fds=%d active=%d: %s", api, kind, fds, active, err.msg);
		assert_true(out.ops == ops);
		assert_true(out.hist->total == ops);
		assert_true(out.metric[M_EVENTS] == ops * (uint64_t)active);
		assert_true(out.metric[M_WAITS] >= ops);
		assert_true(out.metric[M_WATCHED] == out.metric[M_WAITS] * (uint64_t)fds);
		if (fx.wl->verify(&fx.job, &err) != 0)
			fail_msg("%s %s fds=%d: verify: %s", api, kind, fds, err.msg);
		fx.wl->teardown(&fx.job);
		bt_hist_free(out.hist);
		free(out.workers);
		memset(&out, 0, sizeof(out));
	}
	fx.wl->cell_teardown(&fx.job);
	assert_null(fx.job.cell_state);
}

static void exact_small(void **st)
{
	static const char *const apis[] = { "select", "poll", "epoll", "epoll-et" };

	(void)st;
	for (int i = 0; i < 4; i++) {
		run_cell(apis[i], "socketpair", 1, 1, 1, 200);
		run_cell(apis[i], "pipe", 1, 1, 1, 200);
		run_cell(apis[i], "socketpair", 100, 10, 2, 300);
		run_cell(apis[i], "pipe", 100, 100, 1, 100);
		run_cell(apis[i], "socketpair", 101, 7, 1, 300);	/* odd: one end unwatched */
	}
}

static void exact_10000(void **st)
{
	static const char *const apis[] = { "poll", "epoll", "epoll-et" };

	(void)st;
	for (int i = 0; i < 3; i++)
		run_cell(apis[i], "socketpair", 10000, 10, 1, 20);
	run_cell("epoll", "socketpair", 10000, 10000, 1, 3);
}

/* active > fds is refused; a limit below what fds needs names both figures. */
static void limits(void **st)
{
	const char *kv[] = { "fds=10", "active=11", NULL };
	const char *kv2[] = { "fds=100000", "kind=pipe", NULL };
	struct rlimit saved, rl;
	struct bt_err err = { "" };
	struct fx f;

	(void)st;
	fx_init_wl(&f, "events", kv);
	assert_int_equal(f.wl->check(f.pv, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "active=11: at most fds=10"));

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
	rl = saved;
	rl.rlim_max = rl.rlim_cur = 1024 < saved.rlim_max ? 1024 : saved.rlim_max;
	/* Lowering the hard limit is permanent for this process: run this test last. */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	fx_init_wl(&f, "events", kv2);
	err.msg[0] = '\0';
	assert_int_equal(f.wl->check(f.pv, &err), -EMFILE);
	assert_non_null(strstr(err.msg, "fds=100000: needs 2000"));
	assert_non_null(strstr(err.msg, "descriptors, the hard limit is"));
	assert_non_null(strstr(err.msg, "(ulimit -Hn)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_small),
		cmocka_unit_test(exact_10000),
		cmocka_unit_test(limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
