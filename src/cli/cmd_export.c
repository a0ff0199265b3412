/*
 * cmd_export.c - `benchtop export RECORDING --format FMT [--out PATH]`:
 *   markdown, json, text  the results table (as show prints it);
 *   csv                   one row per cell and rep with every measured field
 *                         (report/sessions.h), not the summary table;
 *   hgrm                  one HdrHistogram .hgrm per cell, in microseconds,
 *                         into the directory --out (required), paths printed;
 *   all                   the file set the TUI's `e` writes (.md .csv .json
 *                         and the .hgrm files, named after the recording) into
 *                         the directory --out (required), paths printed.
 * Without --out the table goes to stdout. Exit 1 for a bad recording or a
 * write error, 2 for bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/file.h"
#include "core/recording.h"
#include "report/sessions.h"

static void print_path(const char *path, void *arg)
{
	(void)arg;
	printf("%s\n", path);
}

int bt_cmd_export(int argc, char **argv)
{
	const char *path = NULL, *out = NULL, *fmtname = NULL;
	enum bt_format fmt = BT_FMT_MARKDOWN;
	struct bt_results res;
	struct bt_err err = { "" };
	char base[256];
	int hgrm = 0, all = 0, status = BT_EXIT_FAILED, rc;
	FILE *f = stdout;
	struct bt_file_out fo;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if ((!strcmp(a, "--format") || !strcmp(a, "--out")) && i + 1 < argc) {
			if (a[2] == 'f')
				fmtname = argv[++i];
			else
				out = argv[++i];
		} else if (!strncmp(a, "--format=", 9)) {
			fmtname = a + 9;
		} else if (!strncmp(a, "--out=", 6)) {
			out = a + 6;
		} else if (a[0] == '-' && a[1] != '\0') {
			bt_cli_error("export: unknown option or missing value: %s (allowed: --format FMT, --out PATH)",
				     a);
			return BT_EXIT_USAGE;
		} else if (path == NULL) {
			path = a;
		} else {
			bt_cli_error("export takes one recording");
			return BT_EXIT_USAGE;
		}
	}
	if (path == NULL) {
		bt_cli_error("export: which recording? (benchtop export RECORDING --format markdown|csv|json|hgrm [--out PATH])");
		return BT_EXIT_USAGE;
	}
	if (fmtname == NULL) {
		bt_cli_error("export: --format is required (markdown, csv, json or hgrm)");
		return BT_EXIT_USAGE;
	}
	if (!strcmp(fmtname, "hgrm")) {
		hgrm = 1;
	} else if (!strcmp(fmtname, "all")) {
		hgrm = all = 1;
	} else if (bt_format_parse(fmtname, &fmt) < 0) {
		bt_cli_error("--format=%s: must be one of markdown, csv, json, hgrm", fmtname);
		return BT_EXIT_USAGE;
	}
	if (hgrm && out == NULL) {
		bt_cli_error(all ? "export --format all writes a set of files: give the directory with --out DIR" :
			     "export --format hgrm writes one file per cell: give the directory with --out DIR");
		return BT_EXIT_USAGE;
	}
	if (out != NULL && out[0] == '\0') {
		bt_cli_error("--out needs a path");
		return BT_EXIT_USAGE;
	}

	if (out != NULL && !hgrm && bt_file_same(path, out)) {
		bt_cli_error("--out %s is the recording itself: choose another file", out);
		return BT_EXIT_USAGE;
	}
	if (bt_rec_read(path, &res, &err) < 0) {
		bt_cli_error("%s", err.msg);
		return BT_EXIT_FAILED;
	}
	bt_cli_note(path, &res);
	if (all) {
		bt_sessions_export_base(path, res.workload, base, sizeof(base));
		if (bt_sessions_export_set(&res, out, base, print_path, NULL, &err) < 0)
			bt_cli_error("%s", err.msg);
		else
			status = BT_EXIT_OK;
		goto out;
	}
	if (hgrm) {
		rc = bt_sessions_export_hgrm(&res, out, print_path, NULL, &err);
		if (rc < 0)
			bt_cli_error("%s", err.msg);
		else if (rc == 0)
			bt_cli_error("%s: no cell has latencies to export (recorded with lat=off, or no rep finished)",
				     path);
		else
			status = BT_EXIT_OK;
		goto out;
	}
	if (out != NULL) {
		/* New files exclusively; an existing regular file through a temporary and rename. */
		if (bt_file_out_open(&fo, out, &err) < 0) {
			bt_cli_error("%s", err.msg);
			goto out;
		}
		f = fo.f;
	}
	if (fmt == BT_FMT_CSV) {
		rc = bt_sessions_export_csv(f, &res);
	} else {
		bt_cli_print_results(f, &res, fmt, fmt == BT_FMT_JSON ? NULL : path);
		rc = ferror(f) ? -EIO : 0;
	}
	if (f != stdout) {
		if (rc < 0) {
			bt_file_out_abort(&fo);
		} else if (bt_file_out_commit(&fo, &err) < 0) {
			bt_cli_error("%s", err.msg);
			goto out;
		}
	} else if (fflush(f) != 0 && rc == 0) {
		rc = -EIO;
	}
	if (rc < 0) {
		bt_cli_error("cannot write %s: %s", out ? out : "the export", strerror(-rc));
		goto out;
	}
	if (out != NULL)
		fprintf(stderr, "wrote %s\n", out);
	status = BT_EXIT_OK;
out:
	bt_results_destroy(&res);
	return status;
}
