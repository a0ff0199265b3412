/*
 * test_units.c - human-readable numbers, especially around unit transitions.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/units.h"

struct cs {
	double v;
	const char *want;
};

#define CHECK(fn, cases)							\
	do {									\
		for (size_t i_ = 0; i_ < sizeof(cases) / sizeof(cases[0]); i_++) { \
			char b_[32];						\
									\
			fn(cases[i_].v, b_, sizeof(b_));			\
			if (strcmp(b_, cases[i_].want) != 0)			\
				fail_msg("%s(%.17g) = \"%s\", want \"%s\"", #fn,	\
					 cases[i_].v, b_, cases[i_].want);	\
		}								\
	} while (0)

static void test_si(void **state)
{
	static const struct cs cases[] = {
		{ 0, "0" },
		{ 1, "1.00" },
		{ 9.994, "9.99" },
		{ 9.996, "10.0" },
		{ 12.34, "12.3" },
		{ 99.94, "99.9" },
		{ 99.96, "100" },
		{ 999, "999" },
		{ 999.4, "999" },
		{ 999.5, "1.00K" },
		{ 1000, "1.00K" },
		{ 1234, "1.23K" },
		{ 9996, "10.0K" },
		{ 999499, "999K" },
		{ 999500, "1.00M" },
		{ 1234567, "1.23M" },
		{ 2.5e9, "2.50G" },
		{ 1e12, "1.00T" },
		{ 1e15, "1.00P" },
		{ 1e18, "1.00E" },
		{ 1e22, "1.00e+22" },
		{ 0.5, "0.500" },
		{ 0.0123, "0.0123" },
		{ 0.09996, "0.100" },
		{ 0.99996, "1.00" },
		{ 0.001, "0.00100" },
		{ 0.0001234, "1.23e-04" },
		{ -1, "-1.00" },
		{ -1500, "-1.50K" },
		{ -999.5, "-1.00K" },
		{ -0.5, "-0.500" },
	};

	CHECK(bt_fmt_si, cases);
}

static void test_ns(void **state)
{
	static const struct cs cases[] = {
		{ 0, "0ns" },
		{ 1, "1ns" },
		{ 5, "5ns" },
		{ 850, "850ns" },
		{ 999, "999ns" },
		{ 12.5, "12.5ns" },
		{ 0.5, "0.500ns" },
		{ 999.4, "999ns" },
		{ 999.6, "1.00us" },
		{ 1000, "1.00us" },
		{ 12400, "12.4us" },
		{ 999500, "1.00ms" },
		{ 3.2e6, "3.20ms" },
		{ 999.5e6, "1.00s" },
		{ 1.5e9, "1.50s" },
		{ 999e9, "999s" },
		{ 3600e9, "3600s" },
		{ -2500, "-2.50us" },
		{ -5, "-5ns" },
	};

	CHECK(bt_fmt_ns, cases);
}

static void test_bytes(void **state)
{
	static const struct cs cases[] = {
		{ 0, "0B" },
		{ 1, "1B" },
		{ 512, "512B" },
		{ 1023, "1023B" },
		{ 1023.6, "1.00KiB" },
		{ 1024, "1.00KiB" },
		{ 1536, "1.50KiB" },
		{ 65536, "64.0KiB" },
		{ 1000 * 1024.0, "1000KiB" },
		{ 1023.9 * 1024.0, "1.00MiB" },
		{ 1048576, "1.00MiB" },
		{ 1.5 * 1073741824.0, "1.50GiB" },
		{ 1099511627776.0, "1.00TiB" },
		{ -2048, "-2.00KiB" },
		{ -100, "-100B" },
	};

	CHECK(bt_fmt_bytes, cases);
}

static void test_edges(void **state)
{
	char b[32], small[4];

	assert_string_equal(bt_fmt_si(NAN, b, sizeof(b)), "nan");
	assert_string_equal(bt_fmt_si(INFINITY, b, sizeof(b)), "inf");
	assert_string_equal(bt_fmt_si(-INFINITY, b, sizeof(b)), "-inf");
	assert_string_equal(bt_fmt_ns(NAN, b, sizeof(b)), "nan");
	assert_string_equal(bt_fmt_bytes(INFINITY, b, sizeof(b)), "inf");
	/* The buffer is returned and always terminated, even when too small. */
	assert_ptr_equal(bt_fmt_si(1234567, small, sizeof(small)), small);
	assert_string_equal(small, "1.2");
	assert_string_equal(bt_fmt_bytes(65536, small, sizeof(small)), "64.");
	assert_string_equal(bt_fmt_ns(12400, small, sizeof(small)), "12.");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_si),
		cmocka_unit_test(test_ns),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
