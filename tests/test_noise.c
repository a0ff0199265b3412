/*
 * test_noise.c - the noise parsers fed /proc-like text, the interval
 * arithmetic on synthetic snapshots, and one real begin/end.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/noise.h"

#define NEAR(a, b, eps) assert_true(fabs((a) - (b)) < (eps))

static const char stat_a[] =
	"cpu  100 5 50 800 20 3 2 20 7 0\n"
	"cpu0 50 2 25 400 10 1 1 10 3 0\n"
	"cpu1 50 3 25 400 10 2 1 10 4 0\n"
	"intr 12345 0 1 2 3\n"
	"ctxt 99999\n"
	"btime 1700000000\n"
	"processes 4242\n"
	"procs_running 3\n"
	"procs_blocked 0\n";

/* 1000 ticks later: 100 of them steal, 300 idle + iowait. */
static const char stat_b[] =
	"cpu  500 5 250 1090 30 3 2 120 7 0\n"
	"cpu0 250 2 75 545 15 1 1 60 3 0\n"
	"intr 12345 0 1 2 3\n"
	"procs_running 6\n";

static void test_parse_stat(void **state)
{
	struct bt_cpu_ticks t;

	assert_int_equal(bt_noise_parse_stat(stat_a, &t), 0);
	assert_int_equal(t.total, 100 + 5 + 50 + 800 + 20 + 3 + 2 + 20);	/* guest not added */
	assert_int_equal(t.idle, 820);
	assert_int_equal(t.steal, 20);
	assert_int_equal(t.procs_running, 3);

	/* An old kernel: four columns, no steal, no procs_running. */
	assert_int_equal(bt_noise_parse_stat("cpu  1 2 3 4\nintr 0\n", &t), 0);
	assert_int_equal(t.total, 10);
	assert_int_equal(t.idle, 4);
	assert_int_equal(t.steal, 0);
	assert_int_equal(t.procs_running, -1);

	/* "cpu0" alone is not the aggregate line. */
	assert_int_equal(bt_noise_parse_stat("cpu0 1 2 3 4\n", &t), -EINVAL);
	assert_int_equal(bt_noise_parse_stat("", &t), -EINVAL);
	assert_int_equal(bt_noise_parse_stat("cpu  x\n", &t), -EINVAL);
}

static void test_parse_loadavg(void **state)
{
	double l1;
	int run, tot;

	assert_int_equal(bt_noise_parse_loadavg("0.52 0.58 0.59 3/467 12345\n", &l1, &run, &tot), 0);
	NEAR(l1, 0.52, 1e-12);
	assert_int_equal(run, 3);
	assert_int_equal(tot, 467);
	assert_int_equal(bt_noise_parse_loadavg("0.52 0.58\n", &l1, &run, &tot), -EINVAL);
	assert_int_equal(bt_noise_parse_loadavg("", &l1, &run, &tot), -EINVAL);
}

static void snap(struct bt_noise_snap *s, const char *stat, uint64_t ns, int64_t thr, double mhz)
{
	memset(s, 0, sizeof(*s));
	s->ns = ns;
	s->have_stat = bt_noise_parse_stat(stat, &s->stat) == 0;
	s->load1 = 1.5;
	s->throttle = thr;
	s->freq_mhz = mhz;
}

static void test_diff(void **state)
{
	struct bt_noise_snap a, b;
	struct bt_noise_out o;

	snap(&a, stat_a, 1000000000ull, 7, 2400);
	snap(&b, stat_b, 3500000000ull, 9, 2000);
	bt_noise_diff(&a, &b, &o);
	NEAR(o.seconds, 2.5, 1e-12);
	NEAR(o.steal_pct, 10, 1e-12);	/* 100 of 1000 */
	NEAR(o.busy_pct, 70, 1e-12);	/* 1000 - 300 idle */
	assert_int_equal(o.runnable_max, 5);	/* 6 running less the reader */
	NEAR(o.runnable_mean, 3.5, 1e-12);	/* (2 + 5) / 2 */
	NEAR(o.freq_mhz, 2000, 1e-12);
	NEAR(o.freq_begin_mhz, 2400, 1e-12);
	assert_int_equal(o.throttled, 2);

	/* No counters, no time passed on the CPUs: unknown, not zero. */
	snap(&b, stat_a, 2000000000ull, -1, 0);
	a.throttle = -1;
	bt_noise_diff(&a, &b, &o);
	assert_true(o.steal_pct == -1);
	assert_true(o.busy_pct == -1);
	assert_int_equal(o.throttled, -1);
	assert_int_equal(o.runnable_max, 2);

	/* Unreadable /proc/stat. */
	a.have_stat = 0;
	a.stat.procs_running = -1;
	bt_noise_diff(&a, &b, &o);
	assert_true(o.steal_pct == -1);
	assert_int_equal(o.runnable_max, 2);
	NEAR(o.runnable_mean, 2, 1e-12);
}

static void test_slurp(void **state)
{
	char *t = bt_noise_slurp("/proc/self/stat", 1u << 16), *small;

	assert_non_null(t);
	assert_true(strlen(t) > 10);
	small = bt_noise_slurp("/proc/self/stat", 4);
	assert_non_null(small);
	assert_int_equal(strlen(small), 4);
	assert_memory_equal(small, t, 4);
	free(t);
	free(small);
	assert_null(bt_noise_slurp("/nonexistent/file", 64));
}

/* The real thing: figures in range (their values depend on the machine). */
static void test_begin_end(void **state)
{
	struct bt_noise n;
	struct bt_noise_out o;
	volatile double x = 0;

	bt_noise_begin(&n);
	bt_noise_tick(&n, 1);
	for (int i = 0; i < 1000000; i++)
		x += i;
	bt_noise_end(&n, &o);
	assert_true(x > 0);
	assert_true(o.seconds > 0);
	assert_true(o.steal_pct == -1 || (o.steal_pct >= 0 && o.steal_pct <= 100));
	assert_true(o.busy_pct == -1 || (o.busy_pct >= 0 && o.busy_pct <= 100));
	assert_true(o.runnable_max >= 0);	/* /proc/stat is always there on Linux */
	assert_true(o.runnable_mean >= 0 && o.runnable_mean <= o.runnable_max);
	assert_true(o.load1 >= 0);
	assert_true(o.freq_mhz >= 0);
	assert_true(o.throttled >= -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_parse_loadavg),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_slurp),
		cmocka_unit_test(test_begin_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
