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

static void test_cv(void **state)
{
	const double x[] = { 9, 2, 4, 4, 5, 7, 4, 5 };
	const double neg[] = { -10, -30, -20 };
	struct bt_summary s;

	bt_stats_summarize(x, 8, &s);
	NEAR(bt_stats_cv(&s), 100 * sqrt(32.0 / 7.0) / 5, 1e-9);	/* 42.7618 % */
	bt_stats_summarize(neg, 3, &s);
	NEAR(bt_stats_cv(&s), 50, 1e-9);
	bt_stats_summarize(x, 1, &s);
	assert_true(bt_stats_cv(&s) == 0);
	bt_stats_summarize(NULL, 0, &s);
	assert_true(bt_stats_cv(&s) == 0);
}

static void test_quantile(void **state)
{
	const double x[] = { 40, 10, 30, 20 };	/* sorted 10 20 30 40 */

	NEAR(bt_stats_quantile(x, 4, 0), 10, 1e-12);
	NEAR(bt_stats_quantile(x, 4, 1), 40, 1e-12);
	NEAR(bt_stats_quantile(x, 4, 0.5), 25, 1e-12);
	NEAR(bt_stats_quantile(x, 4, 0.25), 17.5, 1e-12);	/* h = 0.75 */
	NEAR(bt_stats_quantile(x, 4, 0.75), 32.5, 1e-12);	/* h = 2.25 */
	NEAR(bt_stats_quantile(x, 1, 0.3), 40, 1e-12);
}

static void test_outliers(void **state)
{
	/* sorted 10 10 11 11 12 12 30: q1 = 10.5, q3 = 12, IQR 1.5, fences 8.25 .. 14.25 */
	const double x[] = { 12, 10, 30, 11, 10, 12, 11 };
	const double low[] = { 100, 101, 99, 100, 50, 100 };
	signed char flag[7];
	struct bt_outliers o;

	assert_int_equal(bt_stats_outliers(x, 7, 1.5, &o, flag), 1);
	NEAR(o.q1, 10.5, 1e-12);
	NEAR(o.q3, 12, 1e-12);
	NEAR(o.lo, 8.25, 1e-12);
	NEAR(o.hi, 14.25, 1e-12);
	assert_int_equal(o.nlow, 0);
	assert_int_equal(o.nhigh, 1);
	for (int i = 0; i < 7; i++)
		assert_int_equal(flag[i], i == 2 ? 1 : 0);
	/* 3 x IQR ("far out"): 30 is still outside 6 .. 16.5. */
	assert_int_equal(bt_stats_outliers(x, 7, 3, &o, NULL), 1);
	NEAR(o.hi, 16.5, 1e-12);

	/* sorted 50 99 100 100 100 101: q1 = 99.25, q3 = 100, fences 98.125 .. 101.125 */
	assert_int_equal(bt_stats_outliers(low, 6, 1.5, &o, flag), 1);
	assert_int_equal(o.nlow, 1);
	assert_int_equal(flag[4], -1);
	assert_int_equal(flag[2], 0);

	/* Fewer than 4 reps: nothing marked, flags cleared. */
	flag[0] = 5;
	assert_int_equal(bt_stats_outliers(x, 3, 1.5, &o, flag), 0);
	assert_int_equal(flag[0], 0);
	assert_true(o.q1 == 0 && o.hi == 0);
}

static void test_bimodal(void **state)
{
	const double two[] = { 20.3, 10, 10.2, 20, 10.1, 19.9 };	/* 10 10.1 10.2 | 19.9 20 20.3 */
	const double one_out[] = { 10, 10.1, 10.2, 10.3, 30 };
	const double uniform[] = { 1, 2, 3, 4, 5, 6 };
	const double tight[] = { 100, 100.05, 100.1, 100.5, 100.55, 100.6 };
	const double same[] = { 5, 5, 6, 6 };
	struct bt_bimodal b;

	assert_int_equal(bt_stats_bimodal(two, 6, 0.05, &b), 1);
	assert_int_equal(b.nlow, 3);
	assert_int_equal(b.nhigh, 3);
	NEAR(b.low, 10.1, 1e-12);
	NEAR(b.high, 20, 1e-12);
	NEAR(b.gap, 9.7, 1e-9);

	/* One far rep is an outlier, not a second mode: 2 reps a side needed. */
	assert_int_equal(bt_stats_bimodal(one_out, 5, 0.05, &b), 0);
	assert_int_equal(b.nhigh, 2);
	/* Evenly spread reps have no gap wider than the groups. */
	assert_int_equal(bt_stats_bimodal(uniform, 6, 0.05, &b), 0);
	/* Two groups 0.4 apart at 100: under the 5 % floor. */
	assert_int_equal(bt_stats_bimodal(tight, 6, 0.05, &b), 0);
	NEAR(b.gap, 0.4, 1e-9);
	assert_int_equal(bt_stats_bimodal(tight, 6, 0.001, &b), 1);
	/* Identical values in each group: any gap is wider than a zero spread. */
	assert_int_equal(bt_stats_bimodal(same, 4, 0.05, &b), 1);
	NEAR(b.low, 5, 1e-12);
	NEAR(b.high, 6, 1e-12);
	/* Too few reps. */
	assert_int_equal(bt_stats_bimodal(two, 3, 0.05, &b), 0);
	assert_int_equal(b.nlow, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_set),
		cmocka_unit_test(test_odd_and_small),
		cmocka_unit_test(test_constant_and_large_values),
		cmocka_unit_test(test_t95_table),
		cmocka_unit_test(test_cv),
		cmocka_unit_test(test_quantile),
		cmocka_unit_test(test_outliers),
		cmocka_unit_test(test_bimodal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
