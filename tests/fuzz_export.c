/*
 * fuzz_export.c - fuzz every writer that a recording feeds: the report in
 * each format (text, markdown, CSV, JSON, openssl), the per-rep CSV export,
 * one .hgrm per cell, and the recording writer itself, all from what
 * bt_rec_read accepts of a fuzzed recording.
 *
 * Every output goes to a counted stream (fuzz_driver.h) capped at 64 KiB +
 * 1000 bytes per input byte: a writer that loops or blows up aborts with
 * the input saved. Properties checked besides "no crash, no sanitizer
 * report" and the cap:
 *   - the JSON report parses, with one element in "cells" per cell;
 *   - the CSV report has a header and one record per cell, the per-rep CSV
 *     a header and one record per rep, every record as many fields as its
 *     header (RFC 4180 quoting followed);
 *   - a .hgrm file name is "cell-<n>-...hgrm" with only [A-Za-z0-9._-];
 *   - written again with the recording writer (header, samples, reps,
 *     cells, end), the recording reads back with the same cells, reps,
 *     samples, status, labels and per-cell counts.
 * An inconsistency aborts with the reason (the input stays in the file the
 * driver names).
 *
 * Usage: fuzz_export CORPUS_DIR (seeds: recording-*; see fuzz_driver.h);
 * or clang -fsanitize=fuzzer,address -DBT_LIBFUZZER for libFuzzer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "core/hist.h"
#include "core/recording.h"
#include "core/results.h"
#include "report/report.h"
#include "report/sessions.h"

#define FUZZ_NAME "fuzz_export"
#define FUZZ_SEED_PREFIX "recording"

#include "fuzz_driver.h"

static long n_ok, n_rejected, n_hgrm;
static size_t max_out, max_in;

/*
 * Count the records of RFC 4180 text and check that each has as many
 * fields as the first. Returns the number of records.
 */
static int csv_records(const char *what, const char *s)
{
	int records = 0, fields = 1, first = -1, quoted = 0;

	for (; *s; s++) {
		if (quoted) {
			if (*s == '"' && s[1] == '"')
				s++;
			else if (*s == '"')
				quoted = 0;
		} else if (*s == '"') {
			quoted = 1;
		} else if (*s == ',') {
			fields++;
		} else if (*s == '\n') {
			if (first < 0)
				first = fields;
			else if (fields != first)
				inconsistent("%s: record %d has %d fields, the header %d", what,
					     records + 1, fields, first);
			records++;
			fields = 1;
		}
	}
	if (quoted || fields != 1)
		inconsistent("%s: the last record is not terminated", what);
	return records;
}

/* The output of one writer: counted, capped, and kept for the checks. */
struct out {
	struct fuzz_out o;
	FILE *f;
};

static void out_open(struct out *w, size_t cap, const char *what)
{
	w->f = fuzz_capped_open(&w->o, cap, what);
}

/* Close; returns the text (NULL when only part of it was kept). */
static const char *out_close(struct out *w)
{
	fclose(w->f);
	w->f = NULL;
	if (w->o.len > max_out)
		max_out = w->o.len;
	return w->o.kept == w->o.len ? w->o.keep : NULL;
}

static void check_reports(const struct bt_results *res, size_t cap)
{
	static const struct {
		enum bt_format fmt;
		const char *name;
	} fmts[] = {
		{ BT_FMT_TEXT, "report text" }, { BT_FMT_MARKDOWN, "report markdown" },
		{ BT_FMT_CSV, "report csv" }, { BT_FMT_JSON, "report json" },
		{ BT_FMT_OPENSSL, "report openssl" },
	};
	struct out w;
	const char *s;

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		int rc;

		out_open(&w, cap, fmts[i].name);
		rc = bt_report_write(w.f, res, fmts[i].fmt);
		s = out_close(&w);
		if (rc == 0 && s != NULL && fmts[i].fmt == BT_FMT_CSV &&
		    csv_records(fmts[i].name, s) != res->ncells + 1)
			inconsistent("report csv: %d records for %d cells", csv_records("", s),
				     res->ncells);
		if (rc == 0 && s != NULL && fmts[i].fmt == BT_FMT_JSON) {
			json_error_t je;
			json_t *j = json_loads(s, 0, &je), *cells;

			if (j == NULL)
				inconsistent("report json does not parse: %s (line %d)", je.text,
					     je.line);
			cells = json_object_get(j, "cells");
			if (!json_is_array(cells) || (int)json_array_size(cells) != res->ncells)
				inconsistent("report json: cells is not an array of %d", res->ncells);
			json_decref(j);
		}
		free(w.o.keep);
	}

	out_open(&w, cap, "per-rep csv");
	if (bt_sessions_export_csv(w.f, res) == 0 && (s = out_close(&w)) != NULL) {
		if (csv_records("per-rep csv", s) != res->nreps + 1)
			inconsistent("per-rep csv: %d records for %d reps", csv_records("", s),
				     res->nreps);
	} else if (w.f != NULL) {
		out_close(&w);
	}
	free(w.o.keep);

	for (int c = 0; c < res->ncells; c++) {
		char name[512];

		bt_sessions_hgrm_name(res, c, name, sizeof(name));
		if (strncmp(name, "cell-", 5) != 0 || strlen(name) < 10 ||
		    strcmp(name + strlen(name) - 5, ".hgrm") != 0 ||
		    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
			    strlen(name))
			inconsistent("hgrm name '%s'", name);
		if (res->cells[c].hist == NULL || res->cells[c].hist->total == 0)
			continue;
		out_open(&w, cap, "hgrm");
		bt_hist_write_hgrm(res->cells[c].hist, w.f, 1000.0, 5);
		out_close(&w);
		free(w.o.keep);
		n_hgrm++;
	}
}

/* Write res again with the recording writer; it must read back the same. */
static void check_rewrite(const char *path, const struct bt_results *res)
{
	char rt[300];
	struct bt_recw w;
	struct bt_results back;
	struct bt_err err = { "" };
	int rc;

	snprintf(rt, sizeof(rt), "%s.rewrite", path);
	unlink(rt);
	if (bt_recw_open(&w, rt, &err) < 0)
		inconsistent("cannot write %s: %s", rt, err.msg);
	bt_recw_header(&w, res);
	for (int i = 0; i < res->nsamples; i++)
		bt_recw_sample(&w, &res->samples[i]);
	for (int i = 0; i < res->nreps; i++)
		bt_recw_rep(&w, &res->reps[i]);
	for (int c = 0; c < res->ncells; c++)
		if (res->cells[c].nreps > 0)
			bt_recw_cell(&w, &res->cells[c]);
	bt_recw_end(&w, res->status, res->error);
	rc = bt_recw_close(&w);
	if (rc < 0)
		inconsistent("writing %s failed: %d", rt, rc);
	if (bt_rec_read(rt, &back, &err) < 0)
		inconsistent("written again, it does not read: %s", err.msg);
	if (back.ncells != res->ncells || back.nreps != res->nreps ||
	    back.nsamples != res->nsamples || strcmp(back.status, res->status) != 0)
		inconsistent("written again: %d cells %d reps %d samples %s, was %d %d %d %s",
			     back.ncells, back.nreps, back.nsamples, back.status, res->ncells,
			     res->nreps, res->nsamples, res->status);
	for (int c = 0; c < res->ncells; c++) {
		const struct bt_cell *a = &res->cells[c], *b = &back.cells[c];

		if (strcmp(a->label, b->label) != 0 || a->nreps != b->nreps || a->done != b->done ||
		    a->failed != b->failed || a->total_reps != b->total_reps)
			inconsistent("written again, cell %d differs", c);
	}
	for (int i = 0; i < res->nreps; i++)
		if (back.reps[i].lat.count != res->reps[i].lat.count ||
		    back.reps[i].ok != res->reps[i].ok || back.reps[i].cell != res->reps[i].cell)
			inconsistent("written again, rep line %d differs", i);
	bt_results_destroy(&back);
	unlink(rt);
}

static void fuzz_one(const char *path)
{
	struct bt_results res;
	struct bt_err err = { "" };
	struct stat st;
	size_t cap;

	if (stat(path, &st) < 0)
		abort();
	if (bt_rec_read(path, &res, &err) < 0) {
		if (err.msg[0] == '\0')
			inconsistent("bt_rec_read failed without a message");
		n_rejected++;
		return;
	}
	n_ok++;
	if ((size_t)st.st_size > max_in)
		max_in = (size_t)st.st_size;
	cap = (64u << 10) + 1000u * (size_t)st.st_size;
	check_reports(&res, cap);
	check_rewrite(path, &res);
	bt_results_destroy(&res);
}

static void fuzz_report(void)
{
	printf("%s: %ld read and written in every format (%ld .hgrm; largest output %zu bytes, largest input %zu), %ld rejected\n",
	       FUZZ_NAME, n_ok, n_hgrm, max_out, max_in, n_rejected);
}
