/*
 * test_ratewin.c - the rate over sample windows (core/ratewin.h) on
 * synthetic sample series: exact figures, no clock.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "core/ratewin.h"

/* Samples of cell 0 rep 0 with these dt and ops increments (cumulative ops as the sampler keeps). */
static int series(struct bt_sample *s, const double *dt, const uint64_t *dops, int n)
{
	uint64_t ops = 0;
	double t = 0;

	for (int i = 0; i < n; i++) {
		ops += dops[i];
		t += dt[i];
		memset(&s[i], 0, sizeof(s[i]));
		s[i].t = t;
		s[i].dt = dt[i];
		s[i].ops = ops;
		s[i].ops_s = (double)dops[i] / dt[i];
	}
	return n;
}

/* Window = the sample interval: one window per sample; the last, partial one is left out. */
static void test_per_sample(void **state)
{
	const double dt[] = { 0.125, 0.125, 0.125, 0.03125 };
	const uint64_t dops[] = { 125, 250, 375, 7 };
	struct bt_sample s[4];
	struct bt_rate_stats r;

	(void)state;
	bt_rate_windows(s, series(s, dt, dops, 4), 0.125, 0.125, &r);
	assert_int_equal(r.n, 3);
	assert_true(r.window_s == 0.125);
	assert_true(r.min == 1000 && r.avg == 2000 && r.max == 3000);
	assert_true(r.sd == 1000);	/* sqrt(((-1000)^2 + 0 + 1000^2) / 2) */
}

/*
 * Three samples per window; jitter in dt neither splits nor merges windows
 * (a window closes at 3 x 0.125 less half a sample); the seventh sample
 * alone is a partial window.
 */
static void test_grouped(void **state)
{
	const double dt[] = { 0.13, 0.12, 0.125, 0.125, 0.126, 0.124, 0.125 };
	const uint64_t dops[] = { 100, 100, 175, 250, 250, 250, 999 };
	struct bt_sample s[7];
	struct bt_rate_stats r;

	(void)state;
	bt_rate_windows(s, series(s, dt, dops, 7), 0.375, 0.125, &r);
	assert_int_equal(r.n, 2);
	assert_true(r.min == 375 / 0.375);
	assert_true(r.max == 750 / 0.375);
	assert_true(r.avg == (375 / 0.375 + 750 / 0.375) / 2);
	assert_float_equal(r.sd, sqrt(2 * 500.0 * 500.0), 1e-9);
}

/* One window: no spread. A sampler that woke late still closes one window per sample. */
static void test_one_and_late(void **state)
{
	const double dt[] = { 0.2, 0.1 };
	const uint64_t dops[] = { 400, 50 };
	struct bt_sample s[2];
	struct bt_rate_stats r;

	(void)state;
	bt_rate_windows(s, series(s, dt, dops, 1), 0.1, 0.1, &r);
	assert_int_equal(r.n, 1);
	assert_true(r.min == 2000 && r.avg == 2000 && r.max == 2000 && r.sd == 0);
	bt_rate_windows(s, series(s, dt, dops, 2), 0.1, 0.1, &r);
	assert_int_equal(r.n, 2);
	assert_true(r.min == 500 && r.max == 2000 && r.avg == 1250);
}

/* Another rep's samples and empty intervals are skipped; nothing to go on gives zeros. */
static void test_edges(void **state)
{
	const double dt[] = { 0.5, 0.5, 0.5, 0.5 };
	const uint64_t dops[] = { 50, 0, 100, 100 };
	struct bt_sample s[4];
	struct bt_rate_stats r;

	(void)state;
	series(s, dt, dops, 4);
	s[1].dt = 0;		/* an empty interval */
	s[2].rep = 1;		/* the next rep's: not this one's */
	bt_rate_windows(s, 4, 0.5, 0.5, &r);
	assert_int_equal(r.n, 2);
	assert_true(r.min == 100 && r.max == 400);	/* 50 / 0.5, then (250 - 50) / 0.5 */
	bt_rate_windows(s, 0, 0.5, 0.5, &r);
	assert_int_equal(r.n, 0);
	assert_true(r.min == 0 && r.avg == 0 && r.max == 0 && r.sd == 0);
	bt_rate_windows(s, 4, 0, 0.5, &r);
	assert_int_equal(r.n, 0);
	/* Shorter than one window: none. */
	bt_rate_windows(s, 1, 5.0, 0.5, &r);
	assert_int_equal(r.n, 0);
	assert_true(r.window_s == 5.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_sample),
		cmocka_unit_test(test_grouped),
		cmocka_unit_test(test_one_and_late),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
