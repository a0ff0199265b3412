/*
 * test_stats.c - summaries over repetitions and Student's t.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/stats.h"

#define NEAR(a, b, eps) assert_true(fabs((a) - (b)) < (eps))

static void test_known_set(void **state)
{
	const double x[] = { 9, 2, 4, 4, 5, 7, 4, 5 };	/* {2,4,4,4,5,5,7,9}, shuffled */
	const double copy[] = { 9, 2, 4, 4, 5, 7, 4, 5 };
	struct bt_summary s;

	bt_stats_summarize(x, 8, &s);
	assert_int_equal(s.n, 8);
	NEAR(s.min, 2, 1e-12);
	NEAR(s.max, 9, 1e-12);
	NEAR(s.mean, 5, 1e-12);
	NEAR(s.median, 4.5, 1e-12);
	NEAR(s.stddev, sqrt(32.0 / 7.0), 1e-12);	/* 2.13809 */
	NEAR(s.stddev, 2.13809, 1e-5);
	NEAR(s.ci95, 2.365 * sqrt(32.0 / 7.0) / sqrt(8.0), 1e-9);
	NEAR(s.ci95, 1.787772, 1e-6);
	assert_memory_equal(x, copy, sizeof(x));	/* input not reordered */
}

static void test_odd_and_small(void **state)
{
	const double odd[] = { 10, 30, 20 };
	const double one[] = { 42.5 };
	struct bt_summary s;

	bt_stats_summarize(odd, 3, &s);
	NEAR(s.median, 20, 1e-12);
	NEAR(s.mean, 20, 1e-12);
	NEAR(s.stddev, 10, 1e-12);
	NEAR(s.ci95, 4.303 * 10 / sqrt(3.0), 1e-9);

	bt_stats_summarize(one, 1, &s);
	assert_int_equal(s.n, 1);
	NEAR(s.min, 42.5, 1e-12);
	NEAR(s.median, 42.5, 1e-12);
	NEAR(s.max, 42.5, 1e-12);
	NEAR(s.mean, 42.5, 1e-12);
	assert_true(s.stddev == 0);
	assert_true(s.ci95 == 0);

	s.mean = 7;
	bt_stats_summarize(NULL, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(s.mean == 0 && s.median == 0 && s.min == 0 && s.max == 0);
	assert_true(s.stddev == 0 && s.ci95 == 0);
}

static void test_constant_and_large_values(void **state)
{
	double x[100];
	struct bt_summary s;

	/* Two-pass variance: no cancellation on large, nearly equal values. */
	for (int i = 0; i < 100; i++)
		x[i] = 1e9 + (i % 2);
	bt_stats_summarize(x, 100, &s);
	NEAR(s.mean, 1e9 + 0.5, 1e-6);
	NEAR(s.median, 1e9 + 0.5, 1e-6);
	NEAR(s.stddev, sqrt(25.0 / 99.0), 1e-9);

	for (int i = 0; i < 100; i++)
		x[i] = 3.25;
	bt_stats_summarize(x, 100, &s);
	assert_true(s.stddev == 0);
	assert_true(s.ci95 == 0);
}

static void test_t95_table(void **state)
{
	static const double exact[30] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};

	for (int d = 1; d <= 30; d++)
		NEAR(bt_stats_t95(d), exact[d - 1], 1e-12);
	NEAR(bt_stats_t95(40), 2.021, 1e-12);
	NEAR(bt_stats_t95(60), 2.000, 1e-12);
	NEAR(bt_stats_t95(120), 1.980, 1e-12);
	/* Interpolated points against the exact quantiles. */
	NEAR(bt_stats_t95(35), 2.030, 0.002);
	NEAR(bt_stats_t95(50), 2.009, 0.002);
	NEAR(bt_stats_t95(80), 1.990, 0.002);
	NEAR(bt_stats_t95(200), 1.972, 0.002);
	NEAR(bt_stats_t95(1000), 1.962, 0.002);
	NEAR(bt_stats_t95(1000000), 1.960, 1e-4);
	assert_true(bt_stats_t95(1000000) >= 1.960);
	/* Decreasing all the way. */
	for (int d = 1; d < 5000; d++)
		assert_true(bt_stats_t95(d + 1) <= bt_stats_t95(d));
	/* Out of range clamps to one degree of freedom. */
	NEAR(bt_stats_t95(0), 12.706, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_set),
		cmocka_unit_test(test_odd_and_small),
		cmocka_unit_test(test_constant_and_large_values),
		cmocka_unit_test(test_t95_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
