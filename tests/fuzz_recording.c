/*
 * fuzz_recording.c - fuzz the recording readers: bt_rec_read (the strict
 * one) and bt_sessions_probe (the cheap one for listings), then everything
 * that consumes what they accept (the report writers, compare).
 *
 * Properties checked on every input, besides "no crash, no sanitizer
 * report":
 *   - what bt_rec_read accepts is self-consistent: reps name cells in range,
 *     a cell's counted reps never exceed the rep lines for it, histograms'
 *     totals equal their bucket sums, the status is set;
 *   - bt_sessions_probe agrees with it: a readable recording is listed as
 *     readable, with the same status, cell count and cells done;
 *   - a recording compared with itself is never "faster" or "slower".
 * An inconsistency aborts with the reason (the input stays in the file the
 * driver names).
 *
 * Usage: fuzz_recording CORPUS_DIR (see fuzz_driver.h);
 * or clang -fsanitize=fuzzer,address -DBT_LIBFUZZER for libFuzzer.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report/compare.h"
#include "core/hist.h"
#include "core/recording.h"
#include "report/report.h"
#include "core/results.h"
#include "report/sessions.h"

#define FUZZ_NAME "fuzz_recording"
#define FUZZ_SEED_PREFIX "recording"

#include "fuzz_driver.h"

static long n_ok, n_rejected, n_dup;

static void check_results(const struct bt_results *res)
{
	if (res->ncells < 0 || (res->ncells > 0 && res->cells == NULL))
		inconsistent("ncells %d, cells %p", res->ncells, (void *)res->cells);
	if (res->naxes < 0 || res->naxes > BT_RES_AXES)
		inconsistent("naxes %d", res->naxes);
	if (res->nreps < 0 || res->nreps > res->reps_cap)
		inconsistent("nreps %d cap %d", res->nreps, res->reps_cap);
	if (res->status[0] == '\0')
		inconsistent("no status");
	for (int i = 0; i < res->nreps; i++) {
		const struct bt_rep *r = &res->reps[i];

		if (r->cell < 0 || r->cell >= res->ncells)
			inconsistent("rep %d: cell %d of %d", i, r->cell, res->ncells);
		if (r->nworkers < 0 || (r->nworkers > 0 && r->workers == NULL))
			inconsistent("rep %d: %d workers", i, r->nworkers);
		if (r->hist != NULL)
			inconsistent("rep %d: a dense histogram kept in the results", i);
		if (r->lat.count > 0) {
			uint64_t sum = 0;

			for (uint32_t k = 0; k < r->lat.n; k++)
				sum += r->lat.cnt[k];
			if (sum != r->lat.count || r->lat.n > BT_HIST_LEN)
				inconsistent("rep %d: lat count %llu, buckets sum %llu", i,
					     (unsigned long long)r->lat.count, (unsigned long long)sum);
		}
	}
	for (int c = 0; c < res->ncells; c++) {
		const struct bt_cell *cell = &res->cells[c];
		int lines = 0;

		for (int i = 0; i < res->nreps; i++)
			lines += res->reps[i].cell == c;
		if (cell->index != c)
			inconsistent("cell %d has index %d", c, cell->index);
		if (cell->nreps < 0 || cell->nreps > lines)
			inconsistent("cell %d: %d counted reps, %d rep lines", c, cell->nreps, lines);
		if (strnlen(cell->label, sizeof(cell->label)) == sizeof(cell->label))
			inconsistent("cell %d: label not terminated", c);
		if (cell->hist != NULL && cell->hist->total > 0 &&
		    bt_hist_percentile(cell->hist, 50) > bt_hist_percentile(cell->hist, 99))
			inconsistent("cell %d: p50 above p99", c);
	}
}

/*
 * A line with a duplicate key ({"type":"rep",...,"type":"sample"}): jansson
 * keeps the last value, the listing's fast path reads the first. Such lines
 * come only from hand edits; the listing may count them differently.
 */
static int has_duplicate_keys(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int dup = 0;

	if (f == NULL)
		return 0;
	while (!dup && (len = getline(&line, &cap, f)) >= 0) {
		json_t *a = json_loadb(line, (size_t)len, 0, NULL);
		json_t *b = a ? json_loadb(line, (size_t)len, JSON_REJECT_DUPLICATES, NULL) : NULL;

		dup = a != NULL && b == NULL;
		json_decref(a);
		json_decref(b);
	}
	free(line);
	fclose(f);
	return dup;
}

/* The cheap reader must list what the strict one reads, the same way. */
static void check_probe(const char *path, const struct bt_results *res)
{
	struct bt_session_info info;

	bt_sessions_probe(path, &info);
	if (has_duplicate_keys(path)) {
		n_dup++;
		return;
	}
	if (!info.readable)
		inconsistent("bt_rec_read reads it, bt_sessions_probe says: %s", info.error);
	if (strcmp(info.status, res->status) != 0)
		inconsistent("status: read %s, probe %s", res->status, info.status);
	if (info.ncells != res->ncells)
		inconsistent("cells: read %d, probe %d", res->ncells, info.ncells);
	if (info.cells_done != bt_results_cells_done(res))
		inconsistent("cells done: read %d, probe %d", bt_results_cells_done(res),
			     info.cells_done);
}

/* Compared with itself, nothing may differ beyond noise (for sane magnitudes). */
static void check_self_compare(const struct bt_results *res)
{
	const struct bt_results *two[2] = { res, res };
	struct bt_cmp c;

	if (bt_cmp_build(&c, two, 2) == 0) {
		for (int r = 0; r < c.nrows; r++) {
			const struct bt_cmp_stat *st = &c.rows[r].st[1];
			int sane = isfinite(st->mean_a) && fabs(st->mean_a) < 1e100 &&
				   isfinite(st->sd_a) && st->sd_a < 1e100;

			if (sane && (st->verdict == BT_CMP_FASTER || st->verdict == BT_CMP_SLOWER))
				inconsistent("cell %s differs from itself", c.rows[r].label);
		}
	}
	bt_cmp_destroy(&c);
}

static void fuzz_one(const char *path)
{
	struct bt_results res;
	struct bt_err err = { "" };
	struct bt_session_info info;
	FILE *null;

	if (bt_rec_read(path, &res, &err) < 0) {
		if (err.msg[0] == '\0')
			inconsistent("bt_rec_read failed without a message");
		n_rejected++;
		/* The listing must still cope with whatever this is. */
		bt_sessions_probe(path, &info);
		return;
	}
	n_ok++;
	check_results(&res);
	check_probe(path, &res);
	check_self_compare(&res);
	null = fopen("/dev/null", "w");
	if (null != NULL) {
		bt_report_write(null, &res, BT_FMT_TEXT);
		bt_report_write(null, &res, BT_FMT_CSV);
		bt_report_write(null, &res, BT_FMT_JSON);
		bt_sessions_export_csv(null, &res);
		fclose(null);
	}
	bt_results_destroy(&res);
}

static void fuzz_report(void)
{
	printf("%s: %ld read (%ld with duplicate keys: listing not compared), %ld rejected with a message\n",
	       FUZZ_NAME, n_ok, n_dup, n_rejected);
}

