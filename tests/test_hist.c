/*
 * test_hist.c - HDR histogram: bucket arithmetic, percentiles, merge, reset,
 * clamping, sparse form and the .hgrm writer.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/hist.h"

static struct bt_hist *new_or_fail(void)
{
	struct bt_hist *h = bt_hist_new();

	assert_non_null(h);
	return h;
}

static void test_empty(void **state)
{
	struct bt_hist *h = new_or_fail();

	assert_int_equal(h->total, 0);
	assert_true(h->min == UINT64_MAX);
	assert_int_equal(h->max, 0);
	assert_int_equal(bt_hist_percentile(h, 50), 0);
	assert_int_equal(bt_hist_percentile(h, 0), 0);
	assert_int_equal(bt_hist_percentile(h, 100), 0);
	assert_true(bt_hist_mean(h) == 0);
	assert_true(bt_hist_stddev(h) == 0);
	bt_hist_free(h);
}

static void test_index_boundaries(void **state)
{
	/* Below 2048 every value has its own bucket. */
	assert_int_equal(bt_hist_index(0), 0);
	assert_int_equal(bt_hist_index(1), 1);
	assert_int_equal(bt_hist_index(2047), 2047);
	assert_int_equal(bt_hist_index_lowest(2047), 2047);
	assert_int_equal(bt_hist_index_highest(2047), 2047);
	/* 2048..4095: buckets of 2. */
	assert_int_equal(bt_hist_index(2048), 2048);
	assert_int_equal(bt_hist_index(2049), 2048);
	assert_int_equal(bt_hist_index(2050), 2049);
	assert_int_equal(bt_hist_index_lowest(2048), 2048);
	assert_int_equal(bt_hist_index_highest(2048), 2049);
	assert_int_equal(bt_hist_index(4095), 3071);
	assert_int_equal(bt_hist_index_lowest(3071), 4094);
	assert_int_equal(bt_hist_index_highest(3071), 4095);
	/* 4096..8191: buckets of 4. */
	assert_int_equal(bt_hist_index(4096), 3072);
	assert_int_equal(bt_hist_index_lowest(3072), 4096);
	assert_int_equal(bt_hist_index_highest(3072), 4099);
	/* 1 h fits in the array, and its bucket contains it. */
	unsigned top = bt_hist_index(BT_HIST_HIGHEST);

	assert_true(top < BT_HIST_LEN);
	assert_true(bt_hist_index_lowest(top) <= BT_HIST_HIGHEST);
	assert_true(bt_hist_index_highest(top) >= BT_HIST_HIGHEST);
}

static void test_index_round_trip(void **state)
{
	unsigned top = bt_hist_index(BT_HIST_HIGHEST);

	for (unsigned i = 0; i <= top; i++) {
		uint64_t lo = bt_hist_index_lowest(i), hi = bt_hist_index_highest(i);

		assert_int_equal(bt_hist_index(lo), i);
		assert_int_equal(bt_hist_index(hi), i);
		if (i > 0)
			assert_int_equal(bt_hist_index_highest(i - 1) + 1, lo);
		/* 3 significant digits: a bucket is at most 1/1024 of its values wide. */
		if (lo >= 1024)
			assert_true((double)(hi - lo + 1) / (double)lo <= 1.0 / 1024 + 1e-12);
	}
}

static void test_percentiles_1_to_1000(void **state)
{
	struct bt_hist *h = new_or_fail();

	for (uint64_t v = 1; v <= 1000; v++)
		bt_hist_record(h, v);
	assert_int_equal(h->total, 1000);
	assert_int_equal(h->min, 1);
	assert_int_equal(h->max, 1000);
	assert_int_equal(bt_hist_percentile(h, 0), 1);
	assert_int_equal(bt_hist_percentile(h, 0.1), 1);
	assert_int_equal(bt_hist_percentile(h, 50), 500);
	assert_int_equal(bt_hist_percentile(h, 90), 900);
	assert_int_equal(bt_hist_percentile(h, 99), 990);
	assert_int_equal(bt_hist_percentile(h, 99.9), 999);
	assert_int_equal(bt_hist_percentile(h, 99.95), 1000);
	assert_int_equal(bt_hist_percentile(h, 100), 1000);
	assert_int_equal(bt_hist_percentile(h, 150), 1000);
	assert_true(fabs(bt_hist_mean(h) - 500.5) < 1e-9);
	/* Exact buckets: population stddev of 1..n is sqrt((n^2 - 1) / 12). */
	assert_true(fabs(bt_hist_stddev(h) - sqrt((1000.0 * 1000.0 - 1) / 12)) < 1e-6);
	bt_hist_free(h);
}

static void test_percentiles_large(void **state)
{
	struct bt_hist *h = new_or_fail();
	static const double ps[] = { 10, 50, 90, 99, 99.9 };

	/* 1 000 values 1.000 ms .. 1.999 ms, 1 us apart. */
	for (uint64_t k = 0; k < 1000; k++)
		bt_hist_record(h, 1000000 + k * 1000);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		uint64_t rank = (uint64_t)(ps[i] * 10 + 0.5);	/* nearest rank of 1000 */
		uint64_t exact = 1000000 + (rank - 1) * 1000;
		uint64_t got = bt_hist_percentile(h, ps[i]);

		assert_int_equal(got, bt_hist_index_highest(bt_hist_index(exact)));
		assert_true(got >= exact);
		assert_true((double)(got - exact) <= exact * 0.001);
	}
	assert_int_equal(bt_hist_percentile(h, 0), 1000000);
	assert_int_equal(bt_hist_percentile(h, 100), 1999000);
	/* The top bucket's upper edge is above max: clamped to the exact max. */
	assert_true(bt_hist_index_highest(bt_hist_index(1999000)) > 1999000);
	assert_int_equal(bt_hist_percentile(h, 99.99), 1999000);
	assert_true(fabs(bt_hist_mean(h) - 1499500.0) < 1e-6);
	/* Midpoints are within half a bucket (<= 1024 ns here) of the values. */
	assert_true(fabs(bt_hist_stddev(h) - sqrt((1000.0 * 1000.0 - 1) / 12) * 1000) < 1024);
	bt_hist_free(h);
}

static void test_merge(void **state)
{
	struct bt_hist *a = new_or_fail(), *b = new_or_fail(), *both = new_or_fail();
	uint64_t x = 88172645463325252ull;

	for (int i = 0; i < 5000; i++) {
		uint64_t v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = x % 50000000;
		bt_hist_record(i % 3 ? a : b, v);
		bt_hist_record(both, v);
	}
	bt_hist_record(b, 7);		/* b's min is below a's */
	bt_hist_record(both, 7);
	bt_hist_add(a, b);
	assert_int_equal(a->total, both->total);
	assert_int_equal(a->min, 7);
	assert_int_equal(a->min, both->min);
	assert_int_equal(a->max, both->max);
	assert_true(fabs(a->sum - both->sum) <= 1e-9 * both->sum);
	assert_memory_equal(a->counts, both->counts, sizeof(a->counts));
	assert_int_equal(bt_hist_percentile(a, 99), bt_hist_percentile(both, 99));

	/* Adding an empty histogram changes nothing. */
	bt_hist_reset(b);
	bt_hist_add(a, b);
	assert_int_equal(a->total, both->total);
	assert_int_equal(a->min, both->min);
	bt_hist_free(a);
	bt_hist_free(b);
	bt_hist_free(both);
}

static void test_reset(void **state)
{
	struct bt_hist *h = new_or_fail();
	struct bt_hist *calloced = calloc(1, sizeof(*calloced));

	assert_non_null(calloced);
	bt_hist_record(h, 3);
	bt_hist_record(h, 123456789);
	bt_hist_record(h, BT_HIST_HIGHEST + 5);
	bt_hist_reset(h);
	assert_int_equal(h->total, 0);
	assert_true(h->min == UINT64_MAX);
	assert_int_equal(h->max, 0);
	assert_int_equal(h->clamped, 0);
	assert_true(h->sum == 0);
	for (size_t i = 0; i < BT_HIST_LEN; i++)
		assert_int_equal(h->counts[i], 0);
	bt_hist_record(h, 42);
	assert_int_equal(bt_hist_percentile(h, 50), 42);
	assert_int_equal(h->min, 42);

	/* A zeroed struct that never recorded is safe to reset. */
	bt_hist_reset(calloced);
	assert_true(calloced->min == UINT64_MAX);
	free(calloced);
	bt_hist_free(h);
}

static void test_clamp(void **state)
{
	struct bt_hist *h = new_or_fail();

	bt_hist_record(h, 5);
	bt_hist_record(h, BT_HIST_HIGHEST);
	bt_hist_record(h, BT_HIST_HIGHEST + 1);
	bt_hist_record(h, UINT64_MAX);
	assert_int_equal(h->clamped, 2);
	assert_int_equal(h->total, 4);
	assert_int_equal(h->max, BT_HIST_HIGHEST);
	assert_int_equal(h->counts[bt_hist_index(BT_HIST_HIGHEST)], 3);
	assert_int_equal(bt_hist_percentile(h, 100), BT_HIST_HIGHEST);
	assert_int_equal(bt_hist_percentile(h, 50), BT_HIST_HIGHEST);
	assert_int_equal(bt_hist_percentile(h, 25), 5);
	bt_hist_free(h);
}

static void test_sparse_round_trip(void **state)
{
	struct bt_hist *h = new_or_fail(), *back = new_or_fail();
	static const uint64_t vals[] = { 1, 1, 2, 2047, 2048, 4095, 99999, 1000000007, 3600000000000ull };
	uint32_t idx[16];
	uint64_t cnt[16];
	size_t n;

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		bt_hist_record(h, vals[i]);
	n = bt_hist_sparse(h, idx, cnt, 16);
	assert_int_equal(n, 8);		/* 9 values, two of them 1 */
	assert_int_equal(idx[0], 1);
	assert_int_equal(cnt[0], 2);
	assert_int_equal(bt_hist_sparse(h, idx, cnt, 3), 8);	/* count even when cap is short */

	n = bt_hist_sparse(h, idx, cnt, 16);
	bt_hist_record(back, 777);	/* set_sparse replaces what was there */
	assert_int_equal(bt_hist_set_sparse(back, idx, cnt, n, h->min, h->max, h->sum), 0);
	assert_int_equal(back->total, h->total);
	assert_int_equal(back->min, h->min);
	assert_int_equal(back->max, h->max);
	assert_true(back->sum == h->sum);
	assert_memory_equal(back->counts, h->counts, sizeof(h->counts));
	assert_int_equal(bt_hist_percentile(back, 90), bt_hist_percentile(h, 90));

	/* An index out of range is refused and leaves the histogram as it was. */
	idx[1] = BT_HIST_LEN;
	assert_int_equal(bt_hist_set_sparse(back, idx, cnt, n, h->min, h->max, h->sum), -EINVAL);
	assert_int_equal(back->total, h->total);
	assert_memory_equal(back->counts, h->counts, sizeof(h->counts));

	/* min/max that contradict the buckets are taken from the buckets. */
	idx[0] = 3000;
	cnt[0] = 1;
	assert_int_equal(bt_hist_set_sparse(back, idx, cnt, 1, 5, 5, 4500), 0);
	assert_int_equal(back->min, bt_hist_index_lowest(3000));
	assert_int_equal(back->max, bt_hist_index_highest(3000));
	bt_hist_reset(back);
	for (size_t i = 0; i < BT_HIST_LEN; i++)
		assert_int_equal(back->counts[i], 0);

	/* Empty list: empty histogram. */
	assert_int_equal(bt_hist_set_sparse(back, idx, cnt, 0, 0, 0, 0), 0);
	assert_int_equal(back->total, 0);
	assert_true(back->min == UINT64_MAX);
	bt_hist_free(h);
	bt_hist_free(back);
}

/* Write h as .hgrm into a string (caller frees). */
static char *hgrm_of(const struct bt_hist *h, double unit)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(bt_hist_write_hgrm(h, f, unit, 5), 0);
	fclose(f);
	return buf;
}

/*
 * A count near 2^60 makes cum/total round to 1.0 while cum < total: the
 * percentile walk used to stop advancing and write the same row forever.
 * The output goes to a fixed 1 MiB buffer, so the old behaviour fails with
 * -EIO (buffer full) instead of hanging.
 */
static void test_hgrm_huge_count(void **state)
{
	static char buf[1 << 20];
	struct bt_hist *h = new_or_fail();
	uint32_t idx[2] = { 100, 2000 };
	uint64_t cnt[2] = { (uint64_t)1 << 60, 1 };
	FILE *f;
	int rows = 0;

	(void)state;
	assert_int_equal(bt_hist_set_sparse(h, idx, cnt, 2, 100, 2000, 1e20), 0);
	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	assert_int_equal(bt_hist_write_hgrm(h, f, 1.0, 5), 0);
	assert_int_equal(fclose(f), 0);
	for (const char *p = buf; (p = strchr(p, '\n')) != NULL; p++)
		rows++;
	/* Header (2), at most ticks rows per halving down to a double's precision, footer (3). */
	assert_true(rows < 5 * 64 + 10);
	assert_non_null(strstr(buf, " 2000.000 1.000000000000 1152921504606846977\n"));
	bt_hist_free(h);
}

static void test_hgrm(void **state)
{
	struct bt_hist *h = new_or_fail();
	char *text, *line, *save = NULL;
	int rows = 0, saw_footer = 0, saw_max = 0;
	double last_p = -1, prev_p = -1;
	unsigned long long last_count = 0;

	for (uint64_t v = 1; v <= 1000; v++)
		bt_hist_record(h, v);
	text = hgrm_of(h, 1.0);
	assert_true(strncmp(text, "       Value     Percentile TotalCount 1/(1-Percentile)\n\n",
			    strlen("       Value     Percentile TotalCount 1/(1-Percentile)\n\n")) == 0);
	/* Rows exactly as HdrHistogram prints them. */
	assert_non_null(strstr(text, "\n       1.000 0.000000000000          1           1.00\n"));
	assert_non_null(strstr(text, "\n     500.000 0.500000000000        500           2.00\n"));
	assert_non_null(strstr(text, "\n     900.000 0.900000000000        900          10.00\n"));
	assert_non_null(strstr(text, "\n    1000.000 1.000000000000       1000\n"));
	assert_non_null(strstr(text, "#[Mean    =      500.500, StdDeviation   =      288.675]\n"));
	assert_non_null(strstr(text, "#[Max     =     1000.000, Total count    =         1000]\n"));
	assert_non_null(strstr(text, "#[Buckets =           32, SubBuckets     =         2048]\n"));

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		double v, p;
		unsigned long long c, total;

		if (sscanf(line, "%lf %lf %llu", &v, &p, &c) == 3) {
			rows++;
			assert_true(p >= prev_p);
			prev_p = p;
			last_p = p;
			last_count = c;
		} else if (sscanf(line, "#[Max     = %lf, Total count    = %llu]", &v, &total) == 2) {
			assert_true(v == 1000.0);
			assert_int_equal(total, 1000);
			saw_max = 1;
		} else if (line[0] == '#') {
			saw_footer++;
		}
	}
	assert_true(rows > 20);
	assert_true(last_p == 1.0);
	assert_int_equal(last_count, 1000);
	assert_int_equal(saw_max, 1);
	assert_int_equal(saw_footer, 2);
	free(text);

	/* Microseconds: values scaled. */
	bt_hist_reset(h);
	bt_hist_record(h, 2500);
	text = hgrm_of(h, 1000.0);
	assert_non_null(strstr(text, "\n       2.500 1.000000000000          1\n"));
	free(text);

	/* Empty: header and footer only. */
	bt_hist_reset(h);
	text = hgrm_of(h, 1.0);
	assert_null(strstr(text, "1.000000000000"));
	assert_non_null(strstr(text, "Total count    =            0]"));
	free(text);
	bt_hist_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_index_boundaries),
		cmocka_unit_test(test_index_round_trip),
		cmocka_unit_test(test_percentiles_1_to_1000),
		cmocka_unit_test(test_percentiles_large),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_clamp),
		cmocka_unit_test(test_sparse_round_trip),
		cmocka_unit_test(test_hgrm),
		cmocka_unit_test(test_hgrm_huge_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
