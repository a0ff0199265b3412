/*
 * test_pin.c - pin policy syntax, list expansion and wrap-around, the exact
 * compact and scatter orders over hand-built topologies, and pinning the
 * calling thread to every CPU of the real topology.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engines/pin.h"

/*
 * 2 packages x 2 cores x 2 hardware threads, numbered like real machines:
 * OS CPUs 0..3 are the first thread of cores 0..3, 4..7 their siblings.
 */
static const struct bt_topo_cpu cpus_2x2x2[] = {
	{ .os = 0, .core = 0, .package = 0, .node = 0, .smt = 0 },
	{ .os = 1, .core = 1, .package = 0, .node = 0, .smt = 0 },
	{ .os = 2, .core = 2, .package = 1, .node = 1, .smt = 0 },
	{ .os = 3, .core = 3, .package = 1, .node = 1, .smt = 0 },
	{ .os = 4, .core = 0, .package = 0, .node = 0, .smt = 1 },
	{ .os = 5, .core = 1, .package = 0, .node = 0, .smt = 1 },
	{ .os = 6, .core = 2, .package = 1, .node = 1, .smt = 1 },
	{ .os = 7, .core = 3, .package = 1, .node = 1, .smt = 1 },
};

static struct bt_topo topo_2x2x2(void)
{
	struct bt_topo t = {
		.ncpus = 8, .cpus = (struct bt_topo_cpu *)cpus_2x2x2,
		.ncores = 4, .npackages = 2, .nnodes = 2,
	};

	return t;
}

static void expect_check_error(const char *text, const char *msg)
{
	struct bt_err err = { "" };

	assert_int_equal(bt_pin_check(text, &err), -EINVAL);
	assert_string_equal(err.msg, msg);
}

static void test_check_ok(void **state)
{
	const char *ok[] = { "none", "compact", "scatter", "list:0", "list:0,2,4-7", "list:3-3",
			     "list:1,1,1", "list:7,0" };
	struct bt_err err = { "" };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		assert_int_equal(bt_pin_check(ok[i], &err), 0);
	assert_string_equal(err.msg, "");
}

static void test_check_errors(void **state)
{
	const char *bad_list =
		": bad CPU list: expected numbers and ranges like list:0,2,4-7";
	const char *bad[] = { "list:a", "list:1,", "list:,1", "list:1-", "list:1--2",
			      "list:0 ,1", "list:-1", "list:1-2-3", "list:+1" };
	char msg[BT_ERR_MAX];

	expect_check_error("foo", "pin=foo: must be none, compact, scatter or list:CPUS "
				  "(e.g. list:0,2,4-7)");
	expect_check_error("", "pin=: must be none, compact, scatter or list:CPUS "
			       "(e.g. list:0,2,4-7)");
	expect_check_error("Compact", "pin=Compact: must be none, compact, scatter or list:CPUS "
				      "(e.g. list:0,2,4-7)");
	expect_check_error("list", "pin=list: must be none, compact, scatter or list:CPUS "
				   "(e.g. list:0,2,4-7)");
	expect_check_error("list:", "pin=list:: empty CPU list (e.g. list:0,2,4-7)");
	expect_check_error("list:3-1", "pin=list:3-1: range 3-1 is descending");
	expect_check_error("list:0,99999999", "pin=list:0,99999999: CPU numbers must be 0..1048575");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(msg, sizeof(msg), "pin=%s%s", bad[i], bad_list);
		expect_check_error(bad[i], msg);
	}
}

static void expect_plan(const struct bt_topo *t, const char *text, int n, const int *want)
{
	struct bt_err err = { "" };
	int got[32];

	assert_true(n <= 32);
	assert_int_equal(bt_pin_plan(t, text, n, got, &err), 0);
	for (int i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("%s: worker %d got CPU %d, want %d", text, i, got[i], want[i]);
}

static void test_plan_none(void **state)
{
	struct bt_topo t = topo_2x2x2();
	const int want[] = { -1, -1, -1 };

	expect_plan(&t, "none", 3, want);
}

static void test_plan_list(void **state)
{
	struct bt_topo t = topo_2x2x2();
	const int want[] = { 0, 2, 4, 5, 6, 7, 0, 2, 4, 5, 6 };
	const int want_rev[] = { 7, 0, 7, 0, 7 };
	const int want_one[] = { 3, 3, 3 };

	expect_plan(&t, "list:0,2,4-7", 11, want);
	expect_plan(&t, "list:7,0", 5, want_rev);
	expect_plan(&t, "list:3", 3, want_one);
}

static void test_plan_list_unavailable(void **state)
{
	struct bt_topo t = topo_2x2x2();
	struct bt_topo_cpu holes[] = {
		{ .os = 0, .core = 0 }, { .os = 1, .core = 1 }, { .os = 2, .core = 2 },
		{ .os = 5, .core = 3 },
	};
	struct bt_topo th = { .ncpus = 4, .cpus = holes, .ncores = 4, .npackages = 1,
			      .nnodes = 1 };
	struct bt_err err = { "" };
	int got[4];

	assert_int_equal(bt_pin_plan(&t, "list:9", 4, got, &err), -EINVAL);
	assert_string_equal(err.msg, "pin=list:9: CPU 9 is not available (allowed: 0-7)");
	assert_int_equal(bt_pin_plan(&th, "list:0-3", 4, got, &err), -EINVAL);
	assert_string_equal(err.msg, "pin=list:0-3: CPU 3 is not available (allowed: 0-2,5)");
	assert_int_equal(bt_pin_plan(&th, "list:5,0-2", 4, got, &err), 0);
	assert_int_equal(got[0], 5);
	assert_int_equal(got[3], 2);
	/* syntax errors come through plan too */
	assert_int_equal(bt_pin_plan(&t, "list:2-1", 4, got, &err), -EINVAL);
	assert_string_equal(err.msg, "pin=list:2-1: range 2-1 is descending");
}

static void test_plan_compact(void **state)
{
	struct bt_topo t = topo_2x2x2();
	const int want[] = { 0, 4, 1, 5, 2, 6, 3, 7, 0, 4, 1 };

	expect_plan(&t, "compact", 11, want);
}

static void test_plan_scatter(void **state)
{
	struct bt_topo t = topo_2x2x2();
	const int want[] = { 0, 2, 1, 3, 4, 6, 5, 7, 0, 2 };

	expect_plan(&t, "scatter", 10, want);
}

/*
 * Two packages with two NUMA nodes each (sub-NUMA clustering), two cores per
 * node, no SMT: scatter alternates packages first, then nodes.
 */
static void test_plan_scatter_numa(void **state)
{
	struct bt_topo_cpu c[8];
	struct bt_topo t = { .ncpus = 8, .cpus = c, .ncores = 8, .npackages = 2, .nnodes = 4 };
	const int want_scatter[] = { 0, 4, 2, 6, 1, 5, 3, 7 };
	const int want_compact[] = { 0, 1, 2, 3, 4, 5, 6, 7 };

	for (int i = 0; i < 8; i++)
		c[i] = (struct bt_topo_cpu){ .os = i, .core = i, .package = i / 4, .node = i / 2,
					     .smt = 0 };
	expect_plan(&t, "scatter", 8, want_scatter);
	expect_plan(&t, "compact", 8, want_compact);
}

/* One package, 2 cores x 2 threads with siblings numbered adjacently (0,1 = core 0). */
static void test_plan_adjacent_siblings(void **state)
{
	struct bt_topo_cpu c[4];
	struct bt_topo t = { .ncpus = 4, .cpus = c, .ncores = 2, .npackages = 1, .nnodes = 1 };
	const int want_scatter[] = { 0, 2, 1, 3 };
	const int want_compact[] = { 0, 1, 2, 3 };

	for (int i = 0; i < 4; i++)
		c[i] = (struct bt_topo_cpu){ .os = i, .core = i / 2, .smt = i % 2 };
	expect_plan(&t, "scatter", 4, want_scatter);
	expect_plan(&t, "compact", 4, want_compact);
}

static void test_pin_self_real(void **state)
{
	struct bt_topo t;
	struct bt_err err = { "" };
	cpu_set_t saved;
	int *plan;

	assert_int_equal(bt_topo_load(&t, &err), 0);
	assert_true(t.ncpus >= 1);
	assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved), 0);

	assert_int_equal(bt_pin_self(-1), 0);
	for (int i = 0; i < t.ncpus; i++) {
		assert_int_equal(bt_pin_self(t.cpus[i].os), 0);
		/* the kernel migrates the caller before sched_setaffinity returns */
		assert_int_equal(sched_getcpu(), t.cpus[i].os);
	}
	assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved), 0);

	/* a CPU outside the machine is refused */
	assert_true(bt_pin_self(1048575) < 0);

	/* compact and scatter over the real topology name each allowed CPU once per lap */
	plan = calloc((size_t)t.ncpus * 2, sizeof(*plan));
	assert_non_null(plan);
	for (int p = 0; p < 2; p++) {
		assert_int_equal(bt_pin_plan(&t, p ? "scatter" : "compact", t.ncpus * 2, plan,
					     &err), 0);
		for (int i = 0; i < t.ncpus; i++) {
			int count = 0;

			for (int j = 0; j < t.ncpus; j++)
				count += plan[j] == t.cpus[i].os;
			assert_int_equal(count, 1);
			assert_int_equal(plan[t.ncpus + i], plan[i]);
		}
	}
	free(plan);
	bt_topo_destroy(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_ok),
		cmocka_unit_test(test_check_errors),
		cmocka_unit_test(test_plan_none),
		cmocka_unit_test(test_plan_list),
		cmocka_unit_test(test_plan_list_unavailable),
		cmocka_unit_test(test_plan_compact),
		cmocka_unit_test(test_plan_scatter),
		cmocka_unit_test(test_plan_scatter_numa),
		cmocka_unit_test(test_plan_adjacent_siblings),
		cmocka_unit_test(test_pin_self_real),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
