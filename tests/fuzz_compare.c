/*
 * fuzz_compare.c - fuzz `compare` of two recordings: the input holds two
 * recordings separated by a line "%%" (without one, the input is compared
 * with itself); both go through bt_rec_read, then bt_cmp_build,
 * bt_cmp_plan_diff and bt_cmp_write in every format.
 *
 * Every output goes to a counted stream (fuzz_driver.h) capped at 64 KiB +
 * 1000 bytes per input byte. Properties checked besides "no crash, no
 * sanitizer report" and the cap:
 *   - the rows are A's cells, then cells new in B: at least one row per
 *     distinct label, at most A's plus B's cells; every row's cell index is
 *     in range or -1, and a row names a cell of A or of B;
 *   - a recording's plan differs from itself in nothing;
 *   - a verdict "faster" or "slower" has two counted reps on each side and
 *     agrees with the means (for sane magnitudes);
 *   - the JSON comparison parses.
 * An inconsistency aborts with the reason (the input stays in the file the
 * driver names).
 *
 * Usage: fuzz_compare CORPUS_DIR (seeds: compare-*; see fuzz_driver.h);
 * or clang -fsanitize=fuzzer,address -DBT_LIBFUZZER for libFuzzer.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "core/recording.h"
#include "core/results.h"
#include "report/compare.h"
#include "report/report.h"

#define FUZZ_NAME "fuzz_compare"
#define FUZZ_SEED_PREFIX "compare"

#include "fuzz_driver.h"

static long n_both, n_rejected, n_rows;

static void check_rows(const struct bt_cmp *c, const struct bt_results *a,
		       const struct bt_results *b)
{
	if (c->nrows > a->ncells + b->ncells || (c->nrows == 0 && a->ncells + b->ncells > 0))
		inconsistent("%d rows for %d + %d cells", c->nrows, a->ncells, b->ncells);
	for (int r = 0; r < c->nrows; r++) {
		const struct bt_cmp_row *row = &c->rows[r];
		const struct bt_cmp_stat *st = &row->st[1];
		int sane;

		if (row->cell[0] < -1 || row->cell[0] >= a->ncells ||
		    row->cell[1] < -1 || row->cell[1] >= b->ncells ||
		    (row->cell[0] < 0 && row->cell[1] < 0))
			inconsistent("row %d: cells %d of %d, %d of %d", r, row->cell[0], a->ncells,
				     row->cell[1], b->ncells);
		if (st->verdict != BT_CMP_FASTER && st->verdict != BT_CMP_SLOWER)
			continue;
		if (st->na < 2 || st->nk < 2)
			inconsistent("row %d: a verdict with %d and %d reps", r, st->na, st->nk);
		sane = isfinite(st->mean_a) && isfinite(st->mean_k) && fabs(st->mean_a) < 1e100 &&
		       fabs(st->mean_k) < 1e100 && st->mean_a > 0 && st->mean_k > 0;
		if (sane && ((st->verdict == BT_CMP_FASTER && st->mean_k < st->mean_a) ||
			     (st->verdict == BT_CMP_SLOWER && st->mean_k > st->mean_a)))
			inconsistent("row %d: %s with means %g (A) and %g (B)", r,
				     st->verdict == BT_CMP_FASTER ? "faster" : "slower",
				     st->mean_a, st->mean_k);
	}
	n_rows += c->nrows;
}

static void check_writers(const struct bt_cmp *c, size_t cap)
{
	static const enum bt_format fmts[] = { BT_FMT_TEXT, BT_FMT_MARKDOWN, BT_FMT_CSV,
					       BT_FMT_JSON };
	const char *names[2] = { "a.jsonl", "b.jsonl" };

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct fuzz_out o;
		FILE *f = fuzz_capped_open(&o, cap, "compare");
		int rc = bt_cmp_write(f, c, names, fmts[i]);

		fclose(f);
		if (rc == 0 && fmts[i] == BT_FMT_JSON && o.kept == o.len) {
			json_error_t je;
			json_t *j = json_loads(o.keep, 0, &je);

			if (j == NULL)
				inconsistent("compare json does not parse: %s (line %d)", je.text,
					     je.line);
			json_decref(j);
		}
		free(o.keep);
	}
}

static void fuzz_one(const char *path)
{
	struct bt_results a, b;
	struct bt_err err = { "" };
	const struct bt_results *two[2] = { &a, &b };
	struct bt_cmp c;
	char pa[300], pb[300], *text, *sep, *diff = NULL;
	size_t len, la;
	int ra, rb;

	text = fuzz_slurp(path, &len);

	/* The separator: a line "%%"; none, and the input is both. */
	la = len;
	sep = NULL;
	for (size_t i = 0; i + 3 <= len; i++) {
		if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, "%%\n", 3) == 0) {
			sep = text + i;
			la = i;
			break;
		}
	}
	snprintf(pa, sizeof(pa), "%s.a", path);
	snprintf(pb, sizeof(pb), "%s.b", path);
	fuzz_write(pa, (const uint8_t *)text, la);
	if (sep != NULL)
		fuzz_write(pb, (const uint8_t *)sep + 3, len - la - 3);
	else
		fuzz_write(pb, (const uint8_t *)text, len);

	ra = bt_rec_read(pa, &a, &err);
	if (ra < 0 && err.msg[0] == '\0')
		inconsistent("bt_rec_read failed without a message");
	rb = ra < 0 ? -1 : bt_rec_read(pb, &b, &err);
	if (ra < 0 || rb < 0) {
		if (ra == 0)
			bt_results_destroy(&a);
		n_rejected++;
		goto out;
	}
	n_both++;
	if (bt_cmp_build(&c, two, 2) == 0) {
		check_rows(&c, &a, &b);
		check_writers(&c, (64u << 10) + 1000u * len);
	}
	bt_cmp_destroy(&c);
	if (bt_cmp_plan_diff(&a, &a, &diff) != 0)
		inconsistent("a plan differs from itself: %s", diff ? diff : "(no memory)");
	free(diff);
	diff = NULL;
	if (bt_cmp_plan_diff(&a, &b, &diff) < 0)
		inconsistent("plan diff failed");
	free(diff);
	bt_results_destroy(&a);
	bt_results_destroy(&b);
out:
	unlink(pa);
	unlink(pb);
	free(text);
}

static void fuzz_report(void)
{
	printf("%s: %ld pairs compared (%ld rows), %ld with a side rejected\n", FUZZ_NAME, n_both,
	       n_rows, n_rejected);
}
