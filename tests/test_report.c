/*
 * test_report.c - the results table in its four formats, over results built
 * through the results API (so bt_results_* is exercised here too).
 *
 * Fixture: axes threads (1, 2) x lock (mutex, spin), cells in that order,
 * 3 counted reps and 1 warmup per cell. Cell c has ops/s medians
 * (c + 1) * 1e6 with the reps at median -/+ 1e5, wall 1/2/3 s, user
 * 0.5/0.6/0.7 s, sys 0.1/0.2/0.3 s, vcsw 100/200/300, ivcsw 10/20/30, and
 * every counted rep records latencies 1..1000 ns.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "report/csv.h"
#include "report/report.h"
#include "core/results.h"

static const char *const threads_v[] = { "1", "2" };
static const char *const lock_v[] = { "mutex", "spin" };

static void add_rep(struct bt_results *res, int cell, int rep, int warmup, int ok, double ops_s,
		    double wall, uint32_t lat_every, int with_hist)
{
	struct bt_rep r;

	memset(&r, 0, sizeof(r));
	r.cell = cell;
	r.rep = rep;
	r.warmup = warmup;
	r.ok = ok;
	r.verify = ok ? "ok" : "3 items lost";
	r.ops_s = ops_s;
	r.bytes_s = ops_s * 64;
	r.wall_s = wall;
	r.user_s = 0.4 + wall / 10;
	r.sys_s = wall / 10;
	r.vcsw = 100 * wall;
	r.ivcsw = 10 * wall;
	r.lat_every = lat_every;
	if (with_hist) {
		r.hist = bt_hist_new();
		assert_non_null(r.hist);
		for (uint64_t v = 1; v <= 1000; v++)
			bt_hist_record(r.hist, v);
	}
	r.nworkers = 2;
	r.workers = calloc(2, sizeof(*r.workers));
	assert_non_null(r.workers);
	assert_int_equal(bt_results_add_rep(res, &r), 0);
	assert_null(r.hist);
	assert_null(r.workers);
}

/*
 * The fixture; 'full' reps per cell are added for the first cells, and
 * last_reps for the last one (3 = complete session).
 */
static void make(struct bt_results *res, int last_reps)
{
	assert_int_equal(bt_results_init(res, 4), 0);
	snprintf(res->workload, sizeof(res->workload), "pipeline");
	snprintf(res->unit, sizeof(res->unit), "items");
	snprintf(res->lat_what, sizeof(res->lat_what), "end-to-end per message");
	snprintf(res->version, sizeof(res->version), "0.1.0");
	snprintf(res->status, sizeof(res->status), "complete");
	res->plan_json = strdup("{\"benchtop_plan\": 1}");
	res->naxes = 2;
	snprintf(res->axes[0], BT_RES_TEXT, "threads");
	snprintf(res->axes[1], BT_RES_TEXT, "lock");
	res->axis_workers[0] = 1;
	for (int c = 0; c < 4; c++) {
		struct bt_cell *cell = &res->cells[c];
		double base = (c + 1) * 1e6;
		int nreps = c == 3 ? last_reps : 3;

		assert_int_equal(cell->index, c);
		snprintf(cell->values[0], BT_RES_TEXT, "%s", threads_v[c / 2]);
		snprintf(cell->values[1], BT_RES_TEXT, "%s", lock_v[c % 2]);
		snprintf(cell->label, sizeof(cell->label), "threads=%s lock=%s", threads_v[c / 2],
			 lock_v[c % 2]);
		cell->total_reps = 3;
		/* A warmup far off the others: it must not move any statistic. */
		add_rep(res, c, 0, 1, 1, 99e6, 50, 64, 1);
		for (int i = 0; i < nreps; i++) {
			static const double d[3] = { -1e5, 1e5, 0 };	/* median last */

			add_rep(res, c, 1 + i, 0, 1, base + d[i], (double)(i + 1),
				c == 1 ? 8 : 1, 1);
		}
		assert_int_equal(bt_results_summarize_cell(res, c), 0);
	}
}

/* bt_report_write into a string (caller frees). */
static char *report(const struct bt_results *res, enum bt_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(bt_report_write(f, res, fmt), 0);
	fclose(f);
	return buf;
}

/* The line of text that starts with prefix (copied into line), or fail. */
static void line_starting(const char *text, const char *prefix, char *line, size_t n)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, prefix, strlen(prefix)) == 0) {
			size_t k = strcspn(p, "\n");

			assert_true(k < n);
			memcpy(line, p, k);
			line[k] = '\0';
			return;
		}
	}
	fail_msg("no line starting with \"%s\" in:\n%s", prefix, text);
}

/* Column just past the end of needle in line (it must be there). */
static long end_col(const char *line, const char *needle)
{
	const char *p = strstr(line, needle);

	if (p == NULL)
		fail_msg("\"%s\" not in \"%s\"", needle, line);
	return (long)(p - line) + (long)strlen(needle);
}

static void test_results_summary(void **state)
{
	struct bt_results res;
	const struct bt_cell *c1;
	struct bt_rep bad = { .cell = 9 };

	make(&res, 3);
	assert_int_equal(res.nreps, 16);
	assert_int_equal(bt_results_cells_done(&res), 4);
	c1 = &res.cells[1];
	assert_int_equal(c1->nreps, 3);
	assert_int_equal(c1->done, 1);
	assert_int_equal(c1->failed, 0);
	assert_int_equal(c1->ops_s.n, 3);
	assert_true(c1->ops_s.median == 2e6);
	assert_true(c1->ops_s.min == 1.9e6);
	assert_true(c1->ops_s.max == 2.1e6);
	assert_true(fabs(c1->ops_s.stddev - 1e5) < 1e-6);
	assert_true(c1->wall_s.median == 2);
	assert_true(fabs(c1->vcsw.median - 200) < 1e-9);
	assert_int_equal(c1->lat_every, 8);
	assert_int_equal(res.cells[0].lat_every, 1);
	assert_non_null(c1->hist);
	assert_int_equal(c1->hist->total, 3000);	/* counted reps only, not the warmup */
	assert_int_equal(bt_hist_percentile(c1->hist, 50), 500);

	/* Summarizing again gives the same, not doubled, histogram. */
	assert_int_equal(bt_results_summarize_cell(&res, 1), 0);
	assert_int_equal(c1->hist->total, 3000);

	/* A failed rep marks the cell failed and is not counted. */
	add_rep(&res, 2, 4, 0, 0, 123, 9, 1, 1);
	assert_int_equal(bt_results_summarize_cell(&res, 2), 0);
	assert_int_equal(res.cells[2].failed, 1);
	assert_int_equal(res.cells[2].nreps, 3);
	assert_true(res.cells[2].ops_s.median == 3e6);

	/* Out-of-range cells are refused; the rep's memory is taken and freed anyway. */
	bad.hist = bt_hist_new();
	assert_int_equal(bt_results_add_rep(&res, &bad), -EINVAL);
	assert_null(bad.hist);
	assert_int_equal(bt_results_summarize_cell(&res, 4), -EINVAL);
	assert_int_equal(bt_results_summarize_cell(&res, -1), -EINVAL);

	/* Samples grow past the first allocation. */
	for (int i = 0; i < 100; i++) {
		struct bt_sample s = { .cell = i % 4, .t = i * 0.1 };

		assert_int_equal(bt_results_add_sample(&res, &s), 0);
	}
	assert_int_equal(res.nsamples, 100);
	assert_true(res.samples[99].t == 99 * 0.1);
	bt_results_destroy(&res);
	assert_null(res.cells);
}

static void test_no_hist_cell(void **state)
{
	struct bt_results res;
	struct bt_rep r;

	assert_int_equal(bt_results_init(&res, 1), 0);
	res.cells[0].total_reps = 2;
	for (int i = 0; i < 2; i++) {
		memset(&r, 0, sizeof(r));
		r.ok = 1;
		r.ops_s = 10 * (i + 1);
		assert_int_equal(bt_results_add_rep(&res, &r), 0);
	}
	assert_int_equal(bt_results_summarize_cell(&res, 0), 0);
	assert_null(res.cells[0].hist);
	assert_int_equal(res.cells[0].lat_every, 0);
	assert_true(res.cells[0].ops_s.median == 15);
	assert_int_equal(res.cells[0].done, 1);
	bt_results_destroy(&res);
}

static void test_text(void **state)
{
	struct bt_results res;
	char *t, row1[512], row2[512], head[512];
	long line_max = 0;

	make(&res, 3);
	t = report(&res, BT_FMT_TEXT);
	assert_true(strncmp(t, "pipeline - throughput in items/s (median of 3 reps, sd% = stddev in % of it)",
			    strlen("pipeline - throughput in items/s (median of 3 reps, sd% = stddev in % of it)")) == 0);
	line_starting(t, "threads ", head, sizeof(head));
	assert_non_null(strstr(head, "items/s"));
	assert_non_null(strstr(head, "sd%"));
	assert_non_null(strstr(head, "wall"));
	assert_non_null(strstr(head, "csw"));
	assert_non_null(strstr(t, "lock=mutex"));
	assert_true(strstr(t, "lock=mutex") < strstr(t, "lock=spin"));

	line_starting(t, "1 ", row1, sizeof(row1));
	line_starting(t, "2 ", row2, sizeof(row2));
	/* Medians in the right row and column group, right-aligned under each other. */
	assert_true(strstr(row1, "1.00M") < strstr(row1, "2.00M"));
	assert_true(strstr(row2, "3.00M") < strstr(row2, "4.00M"));
	assert_null(strstr(row1, "3.00M"));
	assert_int_equal(end_col(row1, "1.00M"), end_col(row2, "3.00M"));
	assert_int_equal(end_col(row1, "2.00M"), end_col(row2, "4.00M"));
	/* stddev 1e5 of 1e6 and of 2e6; wall 2 s; user 0.6; sys 0.2; csw 200 + 20. */
	assert_non_null(strstr(row1, " 10.0 "));
	assert_non_null(strstr(row1, " 5.0 "));
	assert_non_null(strstr(row1, " 2.00s "));
	assert_non_null(strstr(row1, " 600ms "));
	assert_non_null(strstr(row1, " 200ms "));
	assert_non_null(strstr(row1, " 220"));
	assert_null(strstr(row1, "99.0M"));	/* warmup not shown */

	/* Latency: one line per cell, 1/8 timed on the sampled cell. */
	assert_non_null(strstr(t, "\nlatency: end-to-end per message\n"));
	line_starting(strstr(t, "\nlatency"), "threads=1 lock=spin", row1, sizeof(row1));
	assert_non_null(strstr(row1, "500ns"));
	assert_non_null(strstr(row1, "900ns"));
	assert_non_null(strstr(row1, "990ns"));
	assert_non_null(strstr(row1, "999ns"));
	assert_non_null(strstr(row1, "1.00us"));
	assert_non_null(strstr(row1, "3000"));
	assert_non_null(strstr(row1, "(1/8 timed)"));
	line_starting(strstr(t, "\nlatency"), "threads=1 lock=mutex", row1, sizeof(row1));
	assert_null(strstr(row1, "timed"));
	assert_null(strstr(t, "session "));	/* complete: no status line */

	for (const char *p = t; *p;) {
		size_t k = strcspn(p, "\n");
		long w = 0;

		for (size_t i = 0; i < k; i++)
			w += ((unsigned char)p[i] & 0xC0) != 0x80;
		if (w > line_max && strncmp(p, "pipeline - ", strlen("pipeline - ")) != 0)
			line_max = w;
		p += k + (p[k] != '\0');
	}
	assert_true(line_max <= 120);
	free(t);
	bt_results_destroy(&res);
}

static void test_unfinished_and_interrupted(void **state)
{
	struct bt_results res;
	char *t, row[512];

	make(&res, 1);		/* last cell: 1 of 3 reps */
	snprintf(res.status, sizeof(res.status), "interrupted");
	snprintf(res.error, sizeof(res.error), "stopped by the user");
	assert_int_equal(res.cells[3].done, 0);
	t = report(&res, BT_FMT_TEXT);
	line_starting(t, "2 ", row, sizeof(row));
	assert_non_null(strstr(row, "3.00M"));
	assert_null(strstr(row, "4.00M"));
	/* The last group shows just "-", and the line has no trailing blanks. */
	assert_non_null(strrchr(row, '|'));
	assert_string_equal(strrchr(row, '|') + strspn(strrchr(row, '|'), "| "), "-");
	assert_non_null(strstr(t, "\nsession interrupted: 3 of 4 cells finished (stopped by the user)\n"));
	line_starting(t, "threads=2 lock=spin", row, sizeof(row));
	assert_non_null(strstr(row, "-"));
	assert_null(strstr(row, "500ns"));
	free(t);

	/* A failed cell says so. */
	add_rep(&res, 3, 5, 0, 0, 0, 1, 1, 0);
	assert_int_equal(bt_results_summarize_cell(&res, 3), 0);
	snprintf(res.status, sizeof(res.status), "failed");
	t = report(&res, BT_FMT_TEXT);
	line_starting(t, "2 ", row, sizeof(row));
	assert_non_null(strstr(row, "failed"));
	assert_non_null(strstr(t, "\nsession failed: 3 of 4 cells finished"));
	free(t);

	t = report(&res, BT_FMT_CSV);
	assert_non_null(strstr(t, "\npipeline,2,spin,failed,1,,,"));
	free(t);
	bt_results_destroy(&res);
}

static void test_markdown(void **state)
{
	struct bt_results res;
	char *t, row[1024];

	make(&res, 3);
	t = report(&res, BT_FMT_MARKDOWN);
	line_starting(t, "| threads", row, sizeof(row));
	assert_non_null(strstr(row, "lock=mutex items/s"));
	assert_non_null(strstr(row, "lock=spin items/s"));
	line_starting(t, "|:--", row, sizeof(row));
	assert_non_null(strstr(row, "--:|"));
	line_starting(t, "| 1 ", row, sizeof(row));
	assert_true(strstr(row, "1.00M") < strstr(row, "2.00M"));
	line_starting(strstr(t, "\nlatency"), "| threads=1 lock=spin", row, sizeof(row));
	assert_non_null(strstr(row, "(1/8 timed)"));
	free(t);
	bt_results_destroy(&res);
}

/*
 * The one CSV number format every writer uses (csv.h): shortest exact,
 * inf for an infinity, empty for no value; integers or empty.
 */
static void test_csv_fields(void **state)
{
	const double v[] = { 0.1, 1.0 / 3, 0.1 + 0.02, 256000000, -2.5, INFINITY, -INFINITY, NAN };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	bt_csv_str(f, "a,\"b\"", 1);
	bt_csv_nums(f, v, sizeof(v) / sizeof(v[0]));
	bt_csv_u64(f, 18446744073709551615ull, 1);
	bt_csv_u64(f, 7, 0);
	fclose(f);
	assert_string_equal(buf, "\"a,\"\"b\"\"\",0.1,0.3333333333333333,0.12000000000000001,256000000,-2.5,inf,-inf,,"
			    "18446744073709551615,");
	free(buf);
}

static void test_csv(void **state)
{
	struct bt_results res;
	char *t, *line, *save = NULL;
	int n = 0;

	make(&res, 3);
	t = report(&res, BT_FMT_CSV);
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		if (n == 0)
			assert_string_equal(line,
				"workload,threads,lock,state,reps,ops_s_min,ops_s_median,ops_s_max,"
				"ops_s_mean,ops_s_stddev,ops_s_ci95,bytes_s_median,wall_s,user_s,"
				"sys_s,cpu_s,cpu_per_wall,speedup,vcsw,ivcsw,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,mean_ns,"
				"lat_count,lat_every");
		if (n == 2)
			assert_true(strncmp(line, "pipeline,1,spin,done,3,1900000,2000000,2100000,"
					    "2000000,100000,248433.82", strlen("pipeline,1,spin,done,3,"
					    "1900000,2000000,2100000,2000000,100000,248433.82")) == 0);
		if (n == 4) {
			assert_true(strncmp(line, "pipeline,2,spin,done,3,3900000,4000000,",
					    strlen("pipeline,2,spin,done,3,3900000,4000000,")) == 0);
			/* Numbers exact and no longer than that (csv.h): a median of sums keeps its last bit. */
			assert_non_null(strstr(line, ",256000000,2,0.6000000000000001,0.2,0.8,0.4,2,200,20,"
					       "500,900,990,999,1000,500.5,3000,1"));
		}
	}
	assert_int_equal(n, 5);
	free(t);

	/* RFC 4180: a field with a comma or a quote is quoted, quotes doubled. */
	snprintf(res.cells[0].values[1], BT_RES_TEXT, "a,\"b\"");
	t = report(&res, BT_FMT_CSV);
	assert_non_null(strstr(t, "\npipeline,1,\"a,\"\"b\"\"\",done,3,"));
	free(t);
	bt_results_destroy(&res);
}

static void test_json(void **state)
{
	struct bt_results res;
	json_error_t jerr;
	json_t *root, *cells, *c;
	char *t;

	make(&res, 2);
	t = report(&res, BT_FMT_JSON);
	root = json_loads(t, 0, &jerr);
	if (root == NULL)
		fail_msg("JSON does not parse: %s\n%s", jerr.text, t);
	assert_string_equal(json_string_value(json_object_get(root, "workload")), "pipeline");
	assert_string_equal(json_string_value(json_object_get(root, "unit")), "items");
	assert_string_equal(json_string_value(json_object_get(root, "status")), "complete");
	assert_int_equal(json_array_size(json_object_get(root, "axes")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(root, "axes"), 1)),
			    "lock");
	cells = json_object_get(root, "cells");
	assert_int_equal(json_array_size(cells), 4);
	for (int i = 0; i < 3; i++) {
		c = json_array_get(cells, i);
		assert_true(json_real_value(json_object_get(c, "ops_s_median")) == (i + 1) * 1e6);
		assert_string_equal(json_string_value(json_object_get(c, "state")), "done");
		assert_int_equal(json_integer_value(json_object_get(c, "p50_ns")), 500);
		assert_int_equal(json_integer_value(json_object_get(c, "reps")), 3);
	}
	c = json_array_get(cells, 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(c, "values"),
							      "lock")), "spin");
	assert_string_equal(json_string_value(json_object_get(c, "label")),
			    "threads=1 lock=spin");
	assert_int_equal(json_integer_value(json_object_get(c, "lat_every")), 8);
	/* The unfinished cell: known state, no numbers. */
	c = json_array_get(cells, 3);
	assert_string_equal(json_string_value(json_object_get(c, "state")), "partial");
	assert_int_equal(json_integer_value(json_object_get(c, "reps")), 2);
	assert_true(json_is_null(json_object_get(c, "ops_s_median")));
	assert_true(json_is_null(json_object_get(c, "p50_ns")));
	json_decref(root);
	free(t);
	bt_results_destroy(&res);
}

static void test_no_axes(void **state)
{
	struct bt_results res;
	struct bt_rep r;
	char *t, row[512];

	assert_int_equal(bt_results_init(&res, 1), 0);
	snprintf(res.workload, sizeof(res.workload), "null");
	snprintf(res.unit, sizeof(res.unit), "ops");
	snprintf(res.status, sizeof(res.status), "complete");
	res.cells[0].total_reps = 1;
	memset(&r, 0, sizeof(r));
	r.ok = 1;
	r.ops_s = 5.5e8;
	r.wall_s = 1;
	assert_int_equal(bt_results_add_rep(&res, &r), 0);
	assert_int_equal(bt_results_summarize_cell(&res, 0), 0);
	t = report(&res, BT_FMT_TEXT);
	line_starting(t, "null  ", row, sizeof(row));
	assert_non_null(strstr(row, "550M"));
	assert_null(strstr(t, "latency"));	/* no histogram anywhere */
	free(t);
	t = report(&res, BT_FMT_CSV);
	assert_true(strncmp(t, "workload,state,reps,", strlen("workload,state,reps,")) == 0);
	assert_non_null(strstr(t, "\nnull,done,1,550000000,"));
	free(t);
	bt_results_destroy(&res);
}

/* No cells at all (a plan read back with nothing run): every format still writes. */
static void test_empty_results(void **state)
{
	struct bt_results res;
	char *t;

	assert_int_equal(bt_results_init(&res, 0), 0);
	assert_int_equal(bt_results_cells_done(&res), 0);
	snprintf(res.workload, sizeof(res.workload), "locks");
	res.naxes = 1;
	snprintf(res.axes[0], BT_RES_TEXT, "threads");
	for (int fmt = BT_FMT_TEXT; fmt <= BT_FMT_JSON; fmt++) {
		t = report(&res, (enum bt_format)fmt);
		if (fmt == BT_FMT_TEXT)
			assert_non_null(strstr(t, "\nsession running: 0 of 0 cells finished\n"));
		if (fmt == BT_FMT_CSV)
			assert_string_equal(t, "workload,threads,state,reps,ops_s_min,ops_s_median,"
					    "ops_s_max,ops_s_mean,ops_s_stddev,ops_s_ci95,bytes_s_median,"
					    "wall_s,user_s,sys_s,cpu_s,cpu_per_wall,speedup,vcsw,ivcsw,p50_ns,p90_ns,p99_ns,p999_ns,"
					    "max_ns,mean_ns,lat_count,lat_every\n");
		free(t);
	}
	bt_results_destroy(&res);
}

static void test_format_parse(void **state)
{
	enum bt_format f = BT_FMT_JSON;

	assert_int_equal(bt_format_parse("text", &f), 0);
	assert_int_equal(f, BT_FMT_TEXT);
	assert_int_equal(bt_format_parse("md", &f), 0);
	assert_int_equal(f, BT_FMT_MARKDOWN);
	assert_int_equal(bt_format_parse("markdown", &f), 0);
	assert_int_equal(f, BT_FMT_MARKDOWN);
	assert_int_equal(bt_format_parse("csv", &f), 0);
	assert_int_equal(f, BT_FMT_CSV);
	assert_int_equal(bt_format_parse("json", &f), 0);
	assert_int_equal(f, BT_FMT_JSON);
	assert_int_equal(bt_format_parse("xml", &f), -EINVAL);
	assert_int_equal(bt_format_parse("", &f), -EINVAL);
	assert_int_equal(f, BT_FMT_JSON);
}

/* openssl speed's shape: one table per threads value, rows lock, 1000s of bytes/s. */
static void test_openssl(void **state)
{
	struct bt_results res;
	char *t;

	(void)state;
	make(&res, 3);
	t = report(&res, BT_FMT_OPENSSL);
	assert_true(strncmp(t, "The 'numbers' are in 1000s of items per second processed.\n",
			    strlen("The 'numbers' are in 1000s of items per second processed.\n")) == 0);
	assert_non_null(strstr(t, "\nthreads=1\ntype"));
	assert_non_null(strstr(t, "\nmutex                64000.00k\nspin                128000.00k\n"));
	assert_non_null(strstr(t, "\nthreads=2\ntype"));
	assert_non_null(strstr(t, "\nmutex               192000.00k\nspin                256000.00k\n"));
	assert_true(strstr(t, "threads=1") < strstr(t, "threads=2"));
	free(t);
	bt_results_destroy(&res);
}

/* CPU vs wall and the speedup over the first threads value, per cell. */
static void test_cpu_and_speedup(void **state)
{
	struct bt_results res;
	char *t, row[512];

	(void)state;
	make(&res, 3);
	t = report(&res, BT_FMT_TEXT);
	assert_non_null(strstr(t, "\ntime per cell (medians); cpu/wall = (user + sys) / wall: effective "
				  "parallelism; speedup = throughput / that at threads=1\n"));
	/* walls 1, 2, 3 s; cpu = 0.4 + 0.2 x wall; cpu/wall per rep 0.6, 0.4, 0.33. */
	line_starting(strstr(t, "\ntime per cell"), "threads=2 lock=mutex", row, sizeof(row));
	assert_non_null(strstr(row, " 2.00s "));
	assert_non_null(strstr(row, " 600ms "));	/* user */
	assert_non_null(strstr(row, " 200ms "));	/* sys */
	assert_non_null(strstr(row, " 220"));		/* csw */
	assert_non_null(strstr(row, " 0.40x "));
	assert_non_null(strstr(row, " 3.00x"));		/* 3M / 1M */
	line_starting(strstr(t, "\ntime per cell"), "threads=2 lock=spin", row, sizeof(row));
	assert_non_null(strstr(row, " 2.00x"));		/* 4M / 2M */
	free(t);
	/* A workload's own baseline axis wins over threads. */
	snprintf(res.baseline, sizeof(res.baseline), "lock=spin");
	t = report(&res, BT_FMT_TEXT);
	assert_non_null(strstr(t, "speedup = throughput / that at lock=spin\n"));
	line_starting(strstr(t, "\ntime per cell"), "threads=2 lock=mutex", row, sizeof(row));
	assert_non_null(strstr(row, " 0.75x"));		/* 3M / 4M */
	free(t);
	bt_results_destroy(&res);
}

/* A check that says more than "ok" is shown, per cell; plain "ok" everywhere shows nothing. */
static void test_checks(void **state)
{
	struct bt_results res;
	char *t;

	(void)state;
	make(&res, 3);
	t = report(&res, BT_FMT_TEXT);
	assert_null(strstr(t, "checks"));
	free(t);
	snprintf(res.cells[0].verify, sizeof(res.cells[0].verify), "ok (timeouts: 3)");
	t = report(&res, BT_FMT_TEXT);
	assert_non_null(strstr(t, "\nchecks (each cell's last rep)\nthreads=1 lock=mutex: ok (timeouts: 3)\n"
				  "threads=1 lock=spin: ok\n"));
	free(t);
	bt_results_destroy(&res);
}

/* More than two column groups: the table keeps throughput and sd%, the time section the rest. */
static void test_compact(void **state)
{
	static const char *const modes[] = { "serial", "omp-for", "omp-sections" };
	struct bt_results res;
	char *t, head[512], row[512];

	(void)state;
	assert_int_equal(bt_results_init(&res, 3), 0);
	snprintf(res.workload, sizeof(res.workload), "cipher");
	snprintf(res.unit, sizeof(res.unit), "bytes");
	snprintf(res.status, sizeof(res.status), "complete");
	snprintf(res.baseline, sizeof(res.baseline), "mode=serial");
	res.naxes = 2;
	snprintf(res.axes[0], BT_RES_TEXT, "threads");
	snprintf(res.axes[1], BT_RES_TEXT, "mode");
	res.axis_workers[0] = 1;
	for (int c = 0; c < 3; c++) {
		struct bt_cell *cell = &res.cells[c];

		snprintf(cell->values[0], BT_RES_TEXT, "2");
		snprintf(cell->values[1], BT_RES_TEXT, "%s", modes[c]);
		snprintf(cell->label, sizeof(cell->label), "threads=2 mode=%s", modes[c]);
		cell->total_reps = 1;
		add_rep(&res, c, 0, 0, 1, (c + 1) * 1e8, 1.0, 1, 0);
		assert_int_equal(bt_results_summarize_cell(&res, c), 0);
	}
	t = report(&res, BT_FMT_TEXT);
	assert_non_null(strstr(t, "sd% = stddev in % of it); wall, user, sys and csw per cell below\n"));
	line_starting(t, "threads ", head, sizeof(head));
	assert_null(strstr(head, "wall"));
	assert_null(strstr(head, "csw"));
	line_starting(t, "2 ", row, sizeof(row));
	assert_true(strstr(row, "100M") < strstr(row, "200M"));
	assert_true(strstr(row, "200M") < strstr(row, "300M"));
	line_starting(strstr(t, "\ntime per cell"), "threads=2 mode=omp-sections", row, sizeof(row));
	assert_non_null(strstr(row, " 1.00s "));
	assert_non_null(strstr(row, " 3.00x"));		/* 300M / 100M */
	free(t);
	bt_results_destroy(&res);
}

/*
 * Typed metrics: threads 1, 2 with 3 reps each (no latency). timeouts is
 * 1, 2, 3 + 10 x cell per rep; hits 3 x rep of lookups 4 x rep (75%), but
 * cell 1 has no lookups (its ratio does not exist: "-"); connect 1000 ns
 * per rep over 2 connects (500 ns each). With all three the metrics get a
 * section; with timeouts alone they are a column of the table.
 */
static void make_metrics(struct bt_results *res, int nmetrics)
{
	static const struct bt_metric_info mi[] = {
		{ "timeouts", "waits", BT_MI_COUNTER, 0, "", "", "" },
		{ "hit_ratio", "%", BT_MI_RATIO, 0, "hits", "lookups", "" },
		{ "connect", "ns", BT_MI_TIME, 0, "", "connects", "" },
		{ "hits", "keys", BT_MI_COUNTER, 0, "", "", "" },
		{ "lookups", "keys", BT_MI_COUNTER, 0, "", "", "" },
		{ "connects", "", BT_MI_COUNTER, 0, "", "", "" },
	};

	assert_int_equal(bt_results_init(res, 2), 0);
	snprintf(res->workload, sizeof(res->workload), "kv");
	snprintf(res->unit, sizeof(res->unit), "requests");
	snprintf(res->status, sizeof(res->status), "complete");
	res->naxes = 1;
	snprintf(res->axes[0], BT_RES_TEXT, "threads");
	res->nmetrics = nmetrics;
	memcpy(res->metrics, mi, sizeof(mi[0]) * (size_t)nmetrics);
	for (int c = 0; c < 2; c++) {
		snprintf(res->cells[c].values[0], BT_RES_TEXT, "%d", c + 1);
		snprintf(res->cells[c].label, sizeof(res->cells[c].label), "threads=%d", c + 1);
		res->cells[c].total_reps = 3;
		for (int i = 0; i < 3; i++) {
			struct bt_rep r;

			memset(&r, 0, sizeof(r));
			r.cell = c;
			r.rep = i;
			r.ok = 1;
			r.verify = bt_rep_ok;
			r.ops_s = 1000.0 * (c + 1);
			r.wall_s = 1;
			r.metric[0] = 1 + i + 10 * c;
			r.metric[3] = 3.0 * (i + 1);
			r.metric[4] = c == 0 ? 4.0 * (i + 1) : 0;
			r.metric[2] = 1000;
			r.metric[5] = 2;
			assert_int_equal(bt_results_add_rep(res, &r), 0);
		}
		assert_int_equal(bt_results_summarize_cell(res, c), 0);
	}
}

static void test_metrics_text(void **state)
{
	struct bt_results res;
	char *t;

	(void)state;
	make_metrics(&res, 1);
	t = report(&res, BT_FMT_TEXT);
	assert_non_null(strstr(t, "\n"
		"threads | requests/s  sd%   wall  user  sys  csw  timeouts (waits)\n"
		"--------+---------------------------------------------------------\n"
		"1       |      1.00K  0.0  1.00s     0    0    0                 2\n"
		"2       |      2.00K  0.0  1.00s     0    0    0                12\n"
		"\ntime per cell"));
	assert_null(strstr(t, "metrics per cell"));
	free(t);
	t = report(&res, BT_FMT_MARKDOWN);
	assert_non_null(strstr(t, "\n"
		"| threads | requests/s | sd% |  wall | user | sys | csw | timeouts (waits) |\n"
		"|:--------|-----------:|----:|------:|-----:|----:|----:|-----------------:|\n"
		"| 1       |      1.00K | 0.0 | 1.00s |    0 |   0 |   0 |                2 |\n"));
	free(t);
	bt_results_destroy(&res);

	make_metrics(&res, 6);
	t = report(&res, BT_FMT_TEXT);
	line_starting(t, "threads ", (char[512]){ 0 }, 512);
	assert_non_null(strstr(t, "\n\nmetrics per cell (medians over the counted reps)\n"
		"cell       timeouts (waits)  hit_ratio  connect  hits (keys)  lookups (keys)  connects\n"
		"threads=1                 2      75.0%    500ns            6               8         2\n"
		"threads=2                12          -    500ns            6               0         2\n"));
	free(t);
	bt_results_destroy(&res);
}

/*
 * Latency channels: 2 cells, one rep each; the main histogram has one value,
 * channel "incr" 1..100 us (x cell), channel "read" nothing. The text gets
 * one block for incr (read has none to show), JSON each channel by name.
 */
static void test_channels(void **state)
{
	struct bt_results res;
	json_t *root, *ch;
	char *t;

	(void)state;
	assert_int_equal(bt_results_init(&res, 2), 0);
	snprintf(res.workload, sizeof(res.workload), "kv");
	snprintf(res.unit, sizeof(res.unit), "requests");
	snprintf(res.status, sizeof(res.status), "complete");
	res.naxes = 1;
	snprintf(res.axes[0], BT_RES_TEXT, "threads");
	res.nch = 2;
	snprintf(res.ch_names[0], sizeof(res.ch_names[0]), "incr");
	snprintf(res.ch_names[1], sizeof(res.ch_names[1]), "read");
	for (int c = 0; c < 2; c++) {
		struct bt_rep r;

		snprintf(res.cells[c].values[0], BT_RES_TEXT, "%d", c + 1);
		snprintf(res.cells[c].label, sizeof(res.cells[c].label), "threads=%d", c + 1);
		res.cells[c].total_reps = 1;
		memset(&r, 0, sizeof(r));
		r.cell = c;
		r.ok = 1;
		r.verify = bt_rep_ok;
		r.ops_s = 1000;
		r.wall_s = 1;
		r.lat_every = 4;
		r.hist = bt_hist_new();
		r.ch_hist[0] = bt_hist_new();
		bt_hist_record(r.hist, 5000);
		for (uint64_t v = 1; v <= 100; v++)
			bt_hist_record(r.ch_hist[0], 1000 * v * (uint64_t)(c + 1));
		assert_int_equal(bt_results_add_rep(&res, &r), 0);
		assert_int_equal(bt_results_summarize_cell(&res, c), 0);
	}
	t = report(&res, BT_FMT_TEXT);
	assert_non_null(strstr(t, "\nlatency, incr\n"
		"cell          p50     p90     p99  p99.9    max    mean  count\n"
		"threads=1  50.0us  90.0us  99.0us  100us  100us  50.5us    100\n"
		"threads=2   100us   180us   198us  200us  200us   101us    100\n"));
	assert_null(strstr(t, "latency, read"));
	free(t);
	t = report(&res, BT_FMT_MARKDOWN);
	assert_non_null(strstr(t, "\nlatency, incr\n\n| cell "));
	free(t);
	t = report(&res, BT_FMT_JSON);
	root = json_loads(t, 0, NULL);
	assert_non_null(root);
	ch = json_object_get(json_array_get(json_object_get(root, "cells"), 1), "channels");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(ch, "incr"), "count")), 100);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(ch, "incr"), "max_ns")),
			 200000);
	assert_true(json_is_null(json_object_get(ch, "read")));
	json_decref(root);
	free(t);
	bt_results_destroy(&res);
}

static void test_metrics_csv_json(void **state)
{
	struct bt_results res;
	json_t *root, *m;
	char *t;

	(void)state;
	make_metrics(&res, 6);
	t = report(&res, BT_FMT_CSV);
	assert_non_null(strstr(t, ",lat_every,timeouts_waits_n,timeouts_waits_min,timeouts_waits_median,"
				  "timeouts_waits_max,timeouts_waits_mean,timeouts_waits_stddev,"
				  "timeouts_waits_ci95,hit_ratio_pct_n,hit_ratio_pct_min,"
				  "hit_ratio_pct_median,hit_ratio_pct_max,hit_ratio_pct_mean,"
				  "hit_ratio_pct_stddev,hit_ratio_pct_ci95,connect_ns_n,connect_ns_min,"
				  "connect_ns_median,connect_ns_max,connect_ns_mean,connect_ns_stddev,"
				  "connect_ns_ci95,hits_keys_n,"));
	/* timeouts 1, 2, 3 (ci95 = 4.303 / sqrt 3); hit ratio 75% each rep; 500 ns each. */
	assert_non_null(strstr(t, ",0,3,1,2,3,2,1,2.48433820832296,3,75,75,75,75,0,0,3,500,500,500,500,0,0,3,"));
	/* Cell 2 has no lookups: no hit ratio, only its count (0). */
	assert_non_null(strstr(t, ",0,3,11,12,13,12,1,2.48433820832296,0,,,,,,,3,500,500,500,500,0,0,3,"));
	free(t);

	t = report(&res, BT_FMT_JSON);
	root = json_loads(t, 0, NULL);
	assert_non_null(root);
	m = json_object_get(root, "metrics");
	assert_int_equal(json_array_size(m), 6);
	assert_string_equal(json_string_value(json_object_get(json_array_get(m, 1), "kind")), "ratio");
	assert_string_equal(json_string_value(json_object_get(json_array_get(m, 2), "unit")), "ns");
	m = json_object_get(json_array_get(json_object_get(root, "cells"), 1), "metrics");
	assert_true(json_real_value(json_object_get(json_object_get(m, "timeouts"), "median")) == 12.0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "hit_ratio"), "n")), 0);
	assert_true(json_is_null(json_object_get(json_object_get(m, "hit_ratio"), "median")));
	assert_true(json_real_value(json_object_get(json_object_get(m, "connect"), "mean")) == 500.0);
	json_decref(root);
	free(t);
	bt_results_destroy(&res);
}

/*
 * Any axis makes the rows: units here, with threads as the column groups. A
 * numeric row axis gives the speedups, relative to its first value.
 */
static void test_units_rows(void **state)
{
	static const char want[] =
		"pipeline - throughput in items/s (median of 1 rep, sd% = stddev in % of it); wall, user, sys times and csw (context switches) are medians\n"
		"\n"
		"      | threads=1                              | threads=2\n"
		"units | items/s  sd%   wall   user    sys  csw | items/s  sd%   wall   user    sys  csw\n"
		"------+----------------------------------------+---------------------------------------\n"
		"100   |   1.00M       1.00s  500ms  100ms  110 |   2.00M       2.00s  600ms  200ms  220\n"
		"1000  |   2.00M       3.00s  700ms  300ms  330 |   4.00M       4.00s  800ms  400ms  440\n"
		"10000 |   3.00M       5.00s  900ms  500ms  550 |   6.00M       6.00s  1.00s  600ms  660\n"
		"\n"
		"time per cell (medians); cpu/wall = (user + sys) / wall: effective parallelism; speedup = throughput / that at units=100\n"
		"cell                    wall   user    sys  cpu/wall  speedup  csw\n"
		"units=100 threads=1    1.00s  500ms  100ms     0.60x    1.00x  110\n"
		"units=100 threads=2    2.00s  600ms  200ms     0.40x    1.00x  220\n"
		"units=1000 threads=1   3.00s  700ms  300ms     0.33x    2.00x  330\n"
		"units=1000 threads=2   4.00s  800ms  400ms     0.30x    2.00x  440\n"
		"units=10000 threads=1  5.00s  900ms  500ms     0.28x    3.00x  550\n"
		"units=10000 threads=2  6.00s  1.00s  600ms     0.27x    3.00x  660\n";
	static const char *const units[] = { "100", "1000", "10000" };
	struct bt_results res;
	char *t;

	(void)state;
	assert_int_equal(bt_results_init(&res, 6), 0);
	snprintf(res.workload, sizeof(res.workload), "pipeline");
	snprintf(res.unit, sizeof(res.unit), "items");
	snprintf(res.status, sizeof(res.status), "complete");
	res.naxes = 2;
	snprintf(res.axes[0], BT_RES_TEXT, "units");
	snprintf(res.axes[1], BT_RES_TEXT, "threads");
	res.axis_workers[1] = 1;
	for (int c = 0; c < 6; c++) {
		struct bt_cell *cell = &res.cells[c];

		snprintf(cell->values[0], BT_RES_TEXT, "%s", units[c / 2]);
		snprintf(cell->values[1], BT_RES_TEXT, "%d", 1 + c % 2);
		snprintf(cell->label, sizeof(cell->label), "units=%s threads=%d", units[c / 2],
			 1 + c % 2);
		cell->total_reps = 1;
		add_rep(&res, c, 0, 0, 1, (c / 2 + 1) * 1e6 * (1 + c % 2), 1.0 + c, 1, 0);
		assert_int_equal(bt_results_summarize_cell(&res, c), 0);
	}
	assert_int_equal(bt_results_axis_numeric(&res, 0), 1);
	t = report(&res, BT_FMT_TEXT);
	assert_string_equal(t, want);
	free(t);
	bt_results_destroy(&res);
}

/* Which texts read as numbers on an axis (the scaling chart's x). */
static void test_axis_value(void **state)
{
	double x = -1;

	(void)state;
	assert_int_equal(bt_results_axis_value("100", &x), 0);
	assert_true(x == 100);
	assert_int_equal(bt_results_axis_value("2.5", &x), 0);
	assert_true(x == 2.5);
	assert_int_equal(bt_results_axis_value("64K", &x), 0);
	assert_true(x == 65536);
	assert_int_equal(bt_results_axis_value("5ms", &x), 0);
	assert_true(x == 5e6);
	assert_int_equal(bt_results_axis_value("mutex", &x), -EINVAL);
	assert_int_equal(bt_results_axis_value("", &x), -EINVAL);
}

/*
 * Noise said where the number is: crafted cells with steal, two modes, a
 * slow first rep, a wide spread, a reps=auto cap, and one clean cell. The
 * text marks each doubtful median with "!" and a footnote saying why, the
 * clean one with nothing; JSON keeps the figures.
 */
static void test_noise_marks(void **state)
{
	static const double reps[6][7] = {
		{ 100, 101, 100, 99, 100, 101, 100 },	/* steady, but 5% steal */
		{ 100, 101, 100, 200, 201, 200, 100 },	/* two modes */
		{ 50, 100, 101, 100, 99, 100, 100 },	/* the first counted rep slow */
		{ 60, 140, 80, 120, 100, 70, 130 },	/* sd% far past 5 */
		{ 100, 101, 100, 99, 100, 101, 100 },	/* clean */
		{ 100, 104, 97, 103, 99, 100, 96 },	/* reps=auto at the cap */
	};
	static const char *const names[6] = { "steal", "bimodal", "cold", "spread", "clean", "capped" };
	struct bt_results res;
	json_error_t jerr;
	json_t *root, *cells, *n;
	char *t, line[512];

	(void)state;
	assert_int_equal(bt_results_init(&res, 6), 0);
	snprintf(res.workload, sizeof(res.workload), "synthetic");
	snprintf(res.status, sizeof(res.status), "complete");
	res.plan_json = strdup("{\"benchtop_plan\": 1}");
	res.naxes = 1;
	snprintf(res.axes[0], BT_RES_TEXT, "case");
	for (int c = 0; c < 6; c++) {
		struct bt_cell *cell = &res.cells[c];

		snprintf(cell->values[0], BT_RES_TEXT, "%s", names[c]);
		snprintf(cell->label, sizeof(cell->label), "case=%s", names[c]);
		cell->total_reps = 7;
		if (c == 5)
			cell->ci_target = 0.5;
		for (int i = 0; i < 7; i++) {
			struct bt_rep r;

			memset(&r, 0, sizeof(r));
			r.cell = c;
			r.rep = i;
			r.ok = 1;
			r.ops_s = reps[c][i] * 1e3;
			r.wall_s = 1;
			r.steal_pct = c == 0 ? 5 : c == 4 ? -1 : 0.1;
			r.runq = r.throttled = -1;
			assert_int_equal(bt_results_add_rep(&res, &r), 0);
		}
		assert_int_equal(bt_results_summarize_cell(&res, c), 0);
	}
	assert_int_equal(res.cells[0].noise, BT_NOISE_STEAL);
	assert_true(fabs(res.cells[0].steal_pct - 5) < 1e-9);
	assert_int_equal(res.cells[1].noise & BT_NOISE_BIMODAL, BT_NOISE_BIMODAL);
	assert_int_equal(res.cells[2].noise & BT_NOISE_FIRST_SLOW, BT_NOISE_FIRST_SLOW);
	assert_int_equal(res.cells[2].out_slow, 1);
	assert_int_equal(res.cells[3].noise & BT_NOISE_SD, BT_NOISE_SD);
	assert_int_equal(res.cells[4].noise, 0);
	assert_true(res.cells[4].steal_pct < 0);		/* unknown, not 0 */
	assert_int_equal(res.cells[5].stop, BT_STOP_CAP);
	assert_int_equal(res.cells[5].noise, BT_NOISE_CI_WIDE);

	t = report(&res, BT_FMT_TEXT);
	line_starting(t, "steal ", line, sizeof(line));
	assert_non_null(strstr(line, "100K!"));
	line_starting(t, "clean ", line, sizeof(line));
	assert_null(strchr(line, '!'));
	assert_non_null(strstr(t, "\n! case=steal: steal 5.0%\n"));
	assert_non_null(strstr(t, "\n! case=bimodal: "));
	assert_non_null(strstr(strstr(t, "\n! case=bimodal: "), "bimodal"));
	line_starting(t, "! case=cold: ", line, sizeof(line));
	assert_non_null(strstr(line, "first rep slow"));
	assert_non_null(strstr(t, "\n! case=spread: sd "));
	assert_non_null(strstr(t, "\n! case=capped: ci "));
	assert_null(strstr(t, "! case=clean"));
	assert_non_null(strstr(t, "\ncase=capped: cap 7 reached, ci "));
	assert_non_null(strstr(t, "median of up to 7 reps"));
	free(t);

	t = report(&res, BT_FMT_JSON);
	root = json_loads(t, 0, &jerr);
	if (root == NULL)
		fail_msg("JSON does not parse: %s\n%s", jerr.text, t);
	cells = json_object_get(root, "cells");
	n = json_object_get(json_array_get(cells, 0), "noise");
	assert_true(json_is_true(json_object_get(n, "flagged")));
	assert_true(fabs(json_real_value(json_object_get(n, "steal_pct")) - 5) < 1e-9);
	n = json_object_get(json_array_get(cells, 1), "noise");
	assert_true(json_is_true(json_object_get(n, "bimodal")));
	n = json_object_get(json_array_get(cells, 2), "noise");
	assert_true(json_is_true(json_object_get(n, "first_rep_slow")));
	assert_int_equal(json_integer_value(json_object_get(n, "outliers_slow")), 1);
	n = json_object_get(json_array_get(cells, 3), "noise");
	assert_true(json_real_value(json_object_get(n, "cv_pct")) > 5);
	n = json_object_get(json_array_get(cells, 4), "noise");
	assert_true(json_is_false(json_object_get(n, "flagged")));
	assert_true(json_is_null(json_object_get(n, "steal_pct")));
	n = json_object_get(json_array_get(cells, 5), "noise");
	assert_string_equal(json_string_value(json_object_get(n, "stop")), "cap");
	json_decref(root);
	free(t);
	bt_results_destroy(&res);
}

/*
 * reps=auto decides from the reps alone: a steady cell is done at the
 * fewest reps allowed, a spread one not before its cap.
 */
static void test_auto_rule(void **state)
{
	struct bt_results res;

	(void)state;
	assert_int_equal(bt_results_init(&res, 2), 0);
	for (int c = 0; c < 2; c++) {
		res.cells[c].total_reps = 30;
		res.cells[c].ci_target = 2;
	}
	for (int i = 0; i < 5; i++) {
		for (int c = 0; c < 2; c++) {
			struct bt_rep r;

			memset(&r, 0, sizeof(r));
			r.cell = c;
			r.rep = i;
			r.ok = 1;
			r.ops_s = c == 0 ? 1000 + i % 2 : (i % 2 ? 500 : 1500);
			assert_int_equal(bt_results_add_rep(&res, &r), 0);
			assert_int_equal(bt_results_summarize_cell(&res, c), 0);
		}
		assert_int_equal(res.cells[0].done, i + 1 >= BT_AUTO_MIN_REPS);
		assert_false(res.cells[1].done);
	}
	assert_int_equal(res.cells[0].stop, BT_STOP_CI);
	assert_int_equal(res.cells[1].stop, BT_STOP_FIXED);
	bt_results_destroy(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_results_summary),
		cmocka_unit_test(test_no_hist_cell),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_unfinished_and_interrupted),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_csv_fields),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_no_axes),
		cmocka_unit_test(test_empty_results),
		cmocka_unit_test(test_format_parse),
		cmocka_unit_test(test_openssl),
		cmocka_unit_test(test_cpu_and_speedup),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_units_rows),
		cmocka_unit_test(test_axis_value),
		cmocka_unit_test(test_metrics_text),
		cmocka_unit_test(test_channels),
		cmocka_unit_test(test_metrics_csv_json),
		cmocka_unit_test(test_noise_marks),
		cmocka_unit_test(test_auto_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
