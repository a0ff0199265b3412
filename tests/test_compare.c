/*
 * test_compare.c - the statistics of core/compare.c against values computed
 * independently, and comparisons of synthetic recordings written through the
 * recording writer and read back.
 *
 * Reference values were computed with Python's mpmath 1.3.0 at 40 digits
 * (mp.dps = 40): betainc(a, b, 0, x, regularized=True) for I_x(a, b); the
 * two-sided tail p2(t, dof) = I_{dof/(dof+t^2)}(dof/2, 1/2); quantiles by
 * findroot(lambda t: p2(t, dof) - alpha, 2); Welch's t and the
 * Welch-Satterthwaite dof from the textbook formulas with exact decimal
 * inputs, and Fieller's interval as the roots of
 * (ma^2 - q^2 va) r^2 - 2 ma mb r + (mb^2 - q^2 vb) = 0.
 * The script is reproduced in the comment at the end of this file.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "report/compare.h"
#include "core/hist.h"
#include "core/recording.h"
#include "core/results.h"

#define assert_near(x, want, tol) assert_true(fabs((x) - (want)) <= (tol))

/* ---- special functions ---------------------------------------------------- */

static void test_betainc(void **state)
{
	(void)state;
	/* Integer a, b: I_0.3(2,3) = sum_{j=2..4} C(4,j) .3^j .7^(4-j) = 0.3483 exactly. */
	assert_near(bt_cmp_betainc(2, 3, 0.3), 0.3483, 1e-14);
	assert_near(bt_cmp_betainc(0.5, 7.25, 0.9), 0.9999999878725331172, 1e-14);
	assert_near(bt_cmp_betainc(3.5, 0.5, 0.01), 2.92164944426018481588e-8, 1e-20);
	assert_true(bt_cmp_betainc(2, 3, 0) == 0);
	assert_true(bt_cmp_betainc(2, 3, 1) == 1);
	/* Symmetry I_x(a,b) = 1 - I_{1-x}(b,a). */
	assert_near(bt_cmp_betainc(2.7, 1.3, 0.42), 1 - bt_cmp_betainc(1.3, 2.7, 0.58), 1e-14);
}

static void test_t_quantile(void **state)
{
	(void)state;
	assert_near(bt_cmp_t_quantile(0.05, 1), 12.706204736174704646, 1e-9);
	assert_near(bt_cmp_t_quantile(0.05, 2), 4.3026527297494638523, 1e-11);
	assert_near(bt_cmp_t_quantile(0.05, 4), 2.7764451051977943578, 1e-11);
	assert_near(bt_cmp_t_quantile(0.05, 7.5), 2.3330396268649746116, 1e-11);
	assert_near(bt_cmp_t_quantile(0.05, 30), 2.0422724563012383100, 1e-11);
	assert_near(bt_cmp_t_quantile(0.05, 1e6), 1.9599663568141070353, 1e-9);
	assert_near(bt_cmp_t_quantile(0.01, 3.3), 5.3443060697210794819, 1e-10);
	assert_true(isnan(bt_cmp_t_quantile(0, 3)));
	assert_true(isnan(bt_cmp_t_quantile(0.05, 0)));
}

static void test_t_p2(void **state)
{
	(void)state;
	assert_near(bt_cmp_t_p2(2.5, 6.7), 0.042465261959485562825, 1e-13);
	assert_near(bt_cmp_t_p2(0.3, 2.2), 0.79018117845787068716, 1e-13);
	assert_near(bt_cmp_t_p2(-0.3, 2.2), 0.79018117845787068716, 1e-13);
	assert_true(bt_cmp_t_p2(0, 5) == 1);
	assert_true(bt_cmp_t_p2(INFINITY, 5) == 0);
	/* The quantile and the tail invert each other. */
	assert_near(bt_cmp_t_p2(bt_cmp_t_quantile(0.05, 6.0538876840283437), 6.0538876840283437),
		    0.05, 1e-13);
}

/* ---- Welch and Fieller ------------------------------------------------------ */

static const double W1_A[] = { 10.1, 10.3, 9.8, 10.0, 10.2 };
static const double W1_B[] = { 11.0, 11.4, 10.9, 11.2 };

static void test_welch_significant(void **state)
{
	struct bt_cmp_stat st;

	(void)state;
	bt_cmp_samples(W1_A, 5, W1_B, 4, &st);
	assert_int_equal(st.na, 5);
	assert_int_equal(st.nk, 4);
	assert_near(st.mean_a, 10.08, 1e-12);
	assert_near(st.mean_k, 11.125, 1e-12);
	assert_near(st.t, 7.4468919520888367, 1e-10);
	assert_near(st.dof, 6.0538876840283437, 1e-10);
	assert_near(st.p, 0.00028970679247036256, 1e-15);
	assert_near(st.tq, 2.4416418179724821, 1e-10);
	assert_near(st.lo, 1.0687827535618464, 1e-12);
	assert_near(st.hi, 1.1395173264953349, 1e-12);
	/* Headline: medians 11.1 / 10.1. */
	assert_near(st.ratio, 11.1 / 10.1, 1e-15);
	assert_near(st.ratio_means, 11.125 / 10.08, 1e-15);
	assert_int_equal(st.verdict, BT_CMP_FASTER);
}

/* Fieller's set is the same with the roles swapped: the interval is the reciprocal. */
static void test_welch_swapped(void **state)
{
	struct bt_cmp_stat st;

	(void)state;
	bt_cmp_samples(W1_B, 4, W1_A, 5, &st);
	assert_near(st.t, -7.4468919520888367, 1e-10);
	assert_near(st.dof, 6.0538876840283437, 1e-10);
	assert_near(st.lo, 1 / 1.1395173264953349, 1e-12);
	assert_near(st.hi, 1 / 1.0687827535618464, 1e-12);
	assert_int_equal(st.verdict, BT_CMP_SLOWER);
}

static void test_welch_noise(void **state)
{
	static const double a[] = { 100, 102, 98 }, b[] = { 101, 99, 103, 97 };
	struct bt_cmp_stat st;

	(void)state;
	bt_cmp_samples(a, 3, b, 4, &st);
	assert_true(st.t == 0);
	assert_near(st.p, 1.0, 1e-15);
	assert_near(st.dof, 4.9591836734693878, 1e-10);
	assert_near(st.tq, 2.576958449009056, 1e-10);
	assert_near(st.lo, 0.95622341722551405, 1e-12);
	assert_near(st.hi, 1.045549009424594, 1e-12);
	assert_int_equal(st.verdict, BT_CMP_NOISE);
}

static void test_welch_small_samples(void **state)
{
	static const double a[] = { 5, 6, 7 }, one[] = { 9 };
	struct bt_cmp_stat st;

	(void)state;
	bt_cmp_samples(a, 3, one, 1, &st);
	assert_int_equal(st.verdict, BT_CMP_NOTEST);
	assert_near(st.ratio, 9.0 / 6.0, 1e-15);
	assert_true(isnan(st.lo) && isnan(st.hi) && isnan(st.p));
	bt_cmp_samples(a, 3, one, 0, &st);
	assert_int_equal(st.verdict, BT_CMP_NODATA);
	assert_true(isnan(st.ratio));
	bt_cmp_samples(one, 0, a, 3, &st);
	assert_int_equal(st.verdict, BT_CMP_NODATA);
	assert_int_equal(st.na, 0);
}

static void test_welch_no_spread(void **state)
{
	static const double a[] = { 4, 4, 4 }, b[] = { 4, 4 }, c[] = { 5, 5 };
	struct bt_cmp_stat st;

	(void)state;
	bt_cmp_samples(a, 3, b, 2, &st);
	assert_int_equal(st.verdict, BT_CMP_NOISE);
	assert_true(st.lo == 1 && st.hi == 1 && st.p == 1);
	bt_cmp_samples(a, 3, c, 2, &st);
	assert_int_equal(st.verdict, BT_CMP_FASTER);
	assert_true(st.lo == 1.25 && st.hi == 1.25 && st.p == 0);
}

/* A's mean is not clearly above zero: Fieller's set is unbounded, the t-test decides. */
static void test_welch_unbounded(void **state)
{
	static const double a[] = { 1, 10, 0.5 }, b[] = { 2, 11, 1 };
	struct bt_cmp_stat st;

	(void)state;
	bt_cmp_samples(a, 3, b, 3, &st);
	assert_true(isinf(st.lo) && st.lo < 0 && isinf(st.hi) && st.hi > 0);
	assert_int_equal(st.verdict, BT_CMP_NOISE);
}

/* ---- synthetic recordings ---------------------------------------------------- */

struct syn_cell {
	const char *value;	/* threads value */
	int nreps;
	double ops_s[8];
	uint64_t lat;		/* every op's latency, ns; 0: no histogram */
};

struct syn_rec {
	const char *plan;
	const char *kernel;
	const char *status;	/* NULL: no end line */
	int ncells;
	const struct syn_cell *cells;
};

static char tmpdir[64];

static void rec_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

/* Write a recording through core/recording.h: header, reps (+ a warmup), cells, end. */
static void write_syn(const char *path, const struct syn_rec *s)
{
	struct bt_results res;
	struct bt_recw w;
	struct bt_err err = { "" };

	assert_int_equal(bt_results_init(&res, s->ncells), 0);
	snprintf(res.version, sizeof(res.version), "0.1.0");
	snprintf(res.workload, sizeof(res.workload), "null");
	snprintf(res.unit, sizeof(res.unit), "ops");
	snprintf(res.machine.host, sizeof(res.machine.host), "testhost");
	snprintf(res.machine.cpu_model, sizeof(res.machine.cpu_model), "Test CPU");
	snprintf(res.machine.kernel, sizeof(res.machine.kernel), "%s", s->kernel);
	res.machine.logical_cpus = 4;
	res.start_unix_ns = 1796001916000000000ull;
	res.plan_json = strdup(s->plan);
	res.naxes = 1;
	snprintf(res.axes[0], sizeof(res.axes[0]), "threads");
	for (int c = 0; c < s->ncells; c++) {
		snprintf(res.cells[c].label, sizeof(res.cells[c].label), "threads=%s", s->cells[c].value);
		snprintf(res.cells[c].values[0], sizeof(res.cells[c].values[0]), "%s", s->cells[c].value);
		res.cells[c].total_reps = 3;
	}
	unlink(path);	/* the writer never overwrites */
	assert_int_equal(bt_recw_open(&w, path, &err), 0);
	assert_int_equal(bt_recw_header(&w, &res), 0);
	for (int c = 0; c < s->ncells; c++) {
		const struct syn_cell *sc = &s->cells[c];

		for (int i = -1; i < sc->nreps; i++) {
			struct bt_rep r;

			memset(&r, 0, sizeof(r));
			r.cell = c;
			r.rep = i + 1;
			r.warmup = i < 0;
			r.ok = 1;
			r.verify = "ok";
			/* The warmup is wildly off: it must not count. */
			r.ops_s = i < 0 ? 1e12 : sc->ops_s[i];
			r.ops = 1000;
			r.wall_s = 1000 / r.ops_s;
			r.lat_every = sc->lat ? 1 : 0;
			if (sc->lat) {
				r.hist = bt_hist_new();
				assert_non_null(r.hist);
				for (int k = 0; k < 100; k++)
					bt_hist_record(r.hist, k < 99 ? sc->lat : 10 * sc->lat);
			}
			assert_int_equal(bt_recw_rep(&w, &r), 0);
			assert_int_equal(bt_results_add_rep(&res, &r), 0);
		}
		assert_int_equal(bt_results_summarize_cell(&res, c), 0);
		if (res.cells[c].done)
			assert_int_equal(bt_recw_cell(&w, &res.cells[c]), 0);
	}
	if (s->status != NULL)
		assert_int_equal(bt_recw_end(&w, s->status, ""), 0);
	bt_recw_close(&w);
	bt_results_destroy(&res);
}

static void read_syn(const char *path, struct bt_results *res)
{
	struct bt_err err = { "" };
	int rc = bt_rec_read(path, res, &err);

	if (rc < 0)
		fail_msg("%s", err.msg);
}

#define PLAN_A "{\"benchtop_plan\":1,\"workload\":\"null\",\"axes\":[\"threads\"]," \
	       "\"params\":{\"reps\":3,\"threads\":[1,2,4],\"work\":0}}"
#define PLAN_B "{\"benchtop_plan\":1,\"workload\":\"null\",\"axes\":[\"threads\"]," \
	       "\"params\":{\"reps\":3,\"threads\":[1,2,8],\"work\":200}}"

static const struct syn_cell cells_a[] = {
	{ "1", 3, { 1000, 1010, 990 }, 100 },
	{ "2", 3, { 2000, 2040, 1960 }, 100 },
	{ "4", 3, { 4000, 4100, 3900 }, 100 },
};
static const struct syn_cell cells_b[] = {
	{ "1", 3, { 2000, 2020, 1980 }, 200 },	/* twice as fast: significant */
	{ "2", 3, { 2040, 1960, 2000 }, 100 },	/* the same values, reordered */
	{ "8", 3, { 8000, 8100, 7900 }, 100 },	/* not in A */
};

static void test_compare_recordings(void **state)
{
	static const struct syn_rec ra = { PLAN_A, "Linux 6.1", "complete", 3, cells_a };
	static const struct syn_rec rb = { PLAN_B, "Linux 6.2", "complete", 3, cells_b };
	struct bt_results a, b;
	const struct bt_results *both[2] = { &a, &b };
	struct bt_cmp c;
	char pa[128], pb[128], text[64];

	(void)state;
	rec_path(pa, sizeof(pa), "a.jsonl");
	rec_path(pb, sizeof(pb), "b.jsonl");
	write_syn(pa, &ra);
	write_syn(pb, &rb);
	read_syn(pa, &a);
	read_syn(pb, &b);
	assert_int_equal(bt_cmp_build(&c, both, 2), 0);

	/* Differences first: the plan and the machine. */
	assert_int_equal(c.nplan_diff[1], 2);
	assert_string_equal(c.plan_diff[1], "threads: [1,2,4] -> [1,2,8]\nwork: 0 -> 200");
	assert_int_equal(c.nmachine_diff[1], 1);
	assert_string_equal(c.machine_diff[1], "kernel: Linux 6.1 -> Linux 6.2");

	/* Rows: A's cells in order, then the one new in B. */
	assert_int_equal(c.nrows, 4);
	assert_string_equal(c.rows[0].label, "threads=1");
	assert_string_equal(c.rows[3].label, "threads=8");
	assert_int_equal(c.rows[0].st[1].verdict, BT_CMP_FASTER);
	assert_near(c.rows[0].st[1].ratio, 2.0, 1e-15);
	assert_true(c.rows[0].st[1].lo > 1.9 && c.rows[0].st[1].hi < 2.1);
	assert_int_equal(c.rows[0].st[1].na, 3);	/* the warmup is not counted */
	assert_int_equal(c.rows[1].st[1].verdict, BT_CMP_NOISE);
	assert_true(c.rows[1].st[1].ratio == 1.0);
	assert_int_equal(c.rows[2].st[1].verdict, BT_CMP_ONLY_A);
	assert_int_equal(c.rows[3].st[1].verdict, BT_CMP_ONLY_K);
	assert_int_equal(c.rows[2].cell[1], -1);
	assert_int_equal(c.rows[3].cell[0], -1);
	bt_cmp_verdict_text(&c, &c.rows[2], 1, text, sizeof(text));
	assert_string_equal(text, "only in A");
	bt_cmp_verdict_text(&c, &c.rows[3], 1, text, sizeof(text));
	assert_string_equal(text, "only in B");
	bt_cmp_verdict_text(&c, &c.rows[1], 1, text, sizeof(text));
	assert_string_equal(text, "within noise");

	/* Latency of the merged histograms: p50 100 -> 200 ns; p99 is the 99th of 100 values. */
	assert_true(c.rows[0].has_lat[0] && c.rows[0].has_lat[1]);
	assert_int_equal(c.rows[0].p50[0], 100);
	assert_int_equal(c.rows[0].p50[1], 200);
	assert_int_equal(c.rows[0].p99[0], 100);
	assert_int_equal(c.rows[0].p99[1], 200);

	bt_cmp_destroy(&c);
	bt_results_destroy(&a);
	bt_results_destroy(&b);
}

/* A recording compared with itself: every ratio exactly 1, every cell within noise. */
static void test_compare_self(void **state)
{
	static const struct syn_rec ra = { PLAN_A, "Linux 6.1", "complete", 3, cells_a };
	struct bt_results a, a2;
	const struct bt_results *both[2] = { &a, &a2 };
	struct bt_cmp c;
	char pa[128];

	(void)state;
	rec_path(pa, sizeof(pa), "self.jsonl");
	write_syn(pa, &ra);
	read_syn(pa, &a);
	read_syn(pa, &a2);
	assert_int_equal(bt_cmp_build(&c, both, 2), 0);
	assert_int_equal(c.nrows, 3);
	assert_int_equal(c.nplan_diff[1], 0);
	assert_string_equal(c.plan_diff[1], "");
	assert_int_equal(c.nmachine_diff[1], 0);
	for (int r = 0; r < c.nrows; r++) {
		assert_true(c.rows[r].st[1].ratio == 1.0);
		assert_true(c.rows[r].st[1].ratio_means == 1.0);
		assert_true(c.rows[r].st[1].t == 0);
		assert_int_equal(c.rows[r].st[1].verdict, BT_CMP_NOISE);
	}
	bt_cmp_destroy(&c);
	bt_results_destroy(&a);
	bt_results_destroy(&a2);
}

/* An interrupted recording: a cell with one rep (no test), one with none. */
static void test_compare_interrupted(void **state)
{
	static const struct syn_cell cut[] = {
		{ "1", 3, { 1000, 1010, 990 }, 0 },
		{ "2", 1, { 2000 }, 0 },
		{ "4", 0, { 0 }, 0 },
	};
	static const struct syn_rec ra = { PLAN_A, "Linux 6.1", "complete", 3, cells_a };
	static const struct syn_rec rc = { PLAN_A, "Linux 6.1", NULL, 3, cut };
	struct bt_results a, b, a3;
	const struct bt_results *three[3] = { &a, &b, &a3 };
	struct bt_cmp c;
	char pa[128], pb[128], text[64];

	(void)state;
	rec_path(pa, sizeof(pa), "full.jsonl");
	rec_path(pb, sizeof(pb), "cut.jsonl");
	write_syn(pa, &ra);
	write_syn(pb, &rc);
	read_syn(pa, &a);
	read_syn(pb, &b);
	read_syn(pa, &a3);
	assert_string_equal(b.status, "interrupted");
	assert_int_equal(bt_cmp_build(&c, three, 3), 0);
	assert_int_equal(c.nrows, 3);
	assert_int_equal(c.rows[0].st[1].verdict, BT_CMP_NOISE);
	assert_int_equal(c.rows[1].st[1].verdict, BT_CMP_NOTEST);
	bt_cmp_verdict_text(&c, &c.rows[1], 1, text, sizeof(text));
	assert_string_equal(text, "n<2: no test");
	assert_int_equal(c.rows[2].st[1].verdict, BT_CMP_NODATA);
	bt_cmp_verdict_text(&c, &c.rows[2], 1, text, sizeof(text));
	assert_string_equal(text, "no reps in B");
	/* C = A again. */
	for (int r = 0; r < 3; r++)
		assert_int_equal(c.rows[r].st[2].verdict, BT_CMP_NOISE);
	assert_false(c.rows[0].has_lat[1]);
	bt_cmp_destroy(&c);
	bt_results_destroy(&a);
	bt_results_destroy(&b);
	bt_results_destroy(&a3);
}

/* Run a writer into memory. */
static char *written(const struct bt_cmp *c, enum bt_format fmt)
{
	static const char *const names[] = { "a.jsonl", "b.jsonl", "c.jsonl" };
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(bt_cmp_write(m, c, names, fmt), 0);
	fclose(m);
	return buf;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_compare_formats(void **state)
{
	static const struct syn_rec ra = { PLAN_A, "Linux 6.1", "complete", 3, cells_a };
	static const struct syn_rec rb = { PLAN_B, "Linux 6.2", "complete", 3, cells_b };
	struct bt_results a, b;
	const struct bt_results *both[2] = { &a, &b };
	struct bt_cmp c;
	char pa[128], pb[128], *s;
	json_t *root;
	json_error_t jerr;

	(void)state;
	rec_path(pa, sizeof(pa), "fa.jsonl");
	rec_path(pb, sizeof(pb), "fb.jsonl");
	write_syn(pa, &ra);
	write_syn(pb, &rb);
	read_syn(pa, &a);
	read_syn(pb, &b);
	assert_int_equal(bt_cmp_build(&c, both, 2), 0);

	s = written(&c, BT_FMT_TEXT);
	assert_non_null(strstr(s, "plan differences, A -> B:\n  threads: [1,2,4] -> [1,2,8]\n  work: 0 -> 200\n"));
	assert_non_null(strstr(s, "machine differences, A -> B:\n  kernel: Linux 6.1 -> Linux 6.2\n"));
	assert_non_null(strstr(s, "2.000"));
	assert_non_null(strstr(s, "faster"));
	assert_non_null(strstr(s, "within noise"));
	assert_non_null(strstr(s, "only in A"));
	assert_non_null(strstr(s, "only in B"));
	assert_non_null(strstr(s, "+100%"));
	free(s);

	s = written(&c, BT_FMT_MARKDOWN);
	assert_non_null(strstr(s, "| cell "));
	assert_non_null(strstr(s, "- work: 0 -> 200\n"));
	free(s);

	s = written(&c, BT_FMT_CSV);
	assert_int_equal(count_lines(s), 1 + 4);
	assert_true(strncmp(s, "cell,base,other,n_base,n_other,", 31) == 0);
	assert_non_null(strstr(s, "\nthreads=1,A,B,3,3,1000,2000,1000,2000,10,20,2,2,"));
	assert_non_null(strstr(s, ",faster,100,200,100,200\n"));
	assert_non_null(strstr(s, "\nthreads=4,A,B,3,0,4000,,4000,,100,,,,,,,,,only_in_a,100,,100,\n"));
	free(s);

	s = written(&c, BT_FMT_JSON);
	root = json_loads(s, 0, &jerr);
	assert_non_null(root);
	assert_int_equal(json_array_size(json_object_get(root, "cells")), 4);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
		json_array_get(json_object_get(root, "cells"), 0), "comparisons"), 0), "verdict")),
		"faster");
	json_decref(root);
	free(s);

	bt_cmp_destroy(&c);
	bt_results_destroy(&a);
	bt_results_destroy(&b);
}

/* One cell "threads=1", 3 counted reps: timeouts = t each, hits over lookups 0 (no ratio). */
static void metric_results(struct bt_results *res, double t)
{
	static const struct bt_metric_info mi[] = {
		{ "timeouts", "waits", BT_MI_COUNTER, 0, "", "", "" },
		{ "hit_ratio", "%", BT_MI_RATIO, 0, "hits", "lookups", "" },
		{ "hits", "", BT_MI_COUNTER, 0, "", "", "" },
		{ "lookups", "", BT_MI_COUNTER, 0, "", "", "" },
	};

	assert_int_equal(bt_results_init(res, 1), 0);
	snprintf(res->workload, sizeof(res->workload), "pipeline");
	snprintf(res->status, sizeof(res->status), "complete");
	snprintf(res->cells[0].label, sizeof(res->cells[0].label), "threads=1");
	res->cells[0].total_reps = 3;
	res->nmetrics = 4;
	memcpy(res->metrics, mi, sizeof(mi));
	for (int i = 0; i < 3; i++) {
		struct bt_rep r;

		memset(&r, 0, sizeof(r));
		r.rep = i;
		r.ok = 1;
		r.ops_s = 1000 + i;
		r.metric[0] = t;
		assert_int_equal(bt_results_add_rep(res, &r), 0);
	}
	assert_int_equal(bt_results_summarize_cell(res, 0), 0);
}

/* Metrics compare per cell like throughput, in the text table, CSV and JSON. */
static void test_compare_metrics(void **state)
{
	struct bt_results a, b;
	const struct bt_results *both[2] = { &a, &b };
	struct bt_cmp c;
	char *s;

	(void)state;
	metric_results(&a, 10);
	metric_results(&b, 20);
	assert_int_equal(bt_cmp_build(&c, both, 2), 0);
	assert_int_equal(c.nmetrics, 4);
	assert_true(c.rows[0].mst[0][1].ratio == 2.0);
	assert_int_equal(c.rows[0].mst[0][1].verdict, BT_CMP_FASTER);
	assert_int_equal(c.rows[0].mst[1][1].verdict, BT_CMP_NODATA);

	s = written(&c, BT_FMT_TEXT);
	assert_non_null(strstr(s, "\n\nmetrics, median of the counted reps; K/A, 95% CI as above; "
				  "higher / lower = beyond noise\n\n"
				  "cell       metric             A   B    B/A        95% CI  B vs A\n"
				  "threads=1  timeouts (waits)  10  20  2.000  2.000..2.000  higher\n"
				  "threads=1  hit_ratio          -   -      -             -  no reps in A\n"
				  "threads=1  hits               0   0      -             -  within noise\n"));
	free(s);
	s = written(&c, BT_FMT_CSV);
	assert_non_null(strstr(s, ",p99_other_ns,timeouts_median_base,timeouts_median_other,"
				  "timeouts_ratio,timeouts_ci_lo,timeouts_ci_hi,timeouts_p,"
				  "timeouts_verdict,hit_ratio_median_base,"));
	assert_non_null(strstr(s, ",10,20,2,2,2,0,faster,,,,,,,no_reps,0,0,"));
	free(s);
	s = written(&c, BT_FMT_JSON);
	assert_non_null(strstr(s, "\"timeouts\": {\n"));
	assert_non_null(strstr(s, "\"verdict_text\": \"higher\""));
	free(s);
	bt_cmp_destroy(&c);
	bt_results_destroy(&a);
	bt_results_destroy(&b);
}

static void test_build_bad_n(void **state)
{
	struct bt_results a;
	const struct bt_results *one[1] = { &a };
	struct bt_cmp c;

	(void)state;
	memset(&a, 0, sizeof(a));
	assert_int_equal(bt_cmp_build(&c, one, 1), -EINVAL);
	bt_cmp_destroy(&c);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/bt-test-compare.XXXXXX");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_betainc),
		cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_t_p2),
		cmocka_unit_test(test_welch_significant),
		cmocka_unit_test(test_welch_swapped),
		cmocka_unit_test(test_welch_noise),
		cmocka_unit_test(test_welch_small_samples),
		cmocka_unit_test(test_welch_no_spread),
		cmocka_unit_test(test_welch_unbounded),
		cmocka_unit_test(test_compare_recordings),
		cmocka_unit_test(test_compare_self),
		cmocka_unit_test(test_compare_interrupted),
		cmocka_unit_test(test_compare_formats),
		cmocka_unit_test(test_compare_metrics),
		cmocka_unit_test(test_build_bad_n),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * The reference script (Python 3, mpmath 1.3.0):
 *
 * from mpmath import mp, mpf, betainc, sqrt, findroot
 * mp.dps = 40
 * def p2(t, dof):
 *     return betainc(dof/2, mpf(1)/2, 0, dof/(dof+t*t), regularized=True)
 * def tq(alpha, dof):
 *     return findroot(lambda t: p2(t, dof) - alpha, mpf(2))
 * def welch(a, b):
 *     a = [mpf(str(x)) for x in a]; b = [mpf(str(x)) for x in b]
 *     na, nb = len(a), len(b); ma, mb = sum(a)/na, sum(b)/nb
 *     va = sum((x-ma)**2 for x in a)/(na-1)/na; vb = sum((x-mb)**2 for x in b)/(nb-1)/nb
 *     t = (mb-ma)/sqrt(va+vb); dof = (va+vb)**2/(va**2/(na-1)+vb**2/(nb-1))
 *     q = tq(mpf('0.05'), dof)
 *     fa = ma*ma-q*q*va; fb = ma*mb; fc = mb*mb-q*q*vb; d = sqrt(fb*fb-fa*fc)
 *     return t, dof, p2(t, dof), q, (fb-d)/fa, (fb+d)/fa
 */
