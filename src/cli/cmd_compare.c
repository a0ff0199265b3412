/*
 * cmd_compare.c - `benchtop compare A B [C ...]`: each recording against
 * the first, cell by cell (report/compare.h): plan and machine differences
 * first, then per cell the ratio of median throughputs with a 95% interval,
 * "within noise" where the interval contains 1, latency p50/p99 changes, and
 * cells found in only some recordings. Exit 1 when a recording cannot be
 * read (its message names the file and line), 2 for bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/compare.h"
#include "core/recording.h"

int bt_cmd_compare(int argc, char **argv)
{
	enum bt_format fmt = BT_FMT_TEXT;
	const char *paths[BT_CMP_MAX];
	struct bt_results res[BT_CMP_MAX];
	const struct bt_results *rp[BT_CMP_MAX];
	struct bt_cmp cmp;
	struct bt_err err = { "" };
	int n = 0, nread = 0, status = BT_EXIT_FAILED, rc;

	for (int i = 1; i < argc; i++) {
		int f = bt_cli_format_arg(argc, argv, &i, &fmt);

		if (f < 0)
			return BT_EXIT_USAGE;
		if (f > 0)
			continue;
		if (argv[i][0] == '-' && argv[i][1] != '\0') {
			bt_cli_error("compare: unknown option %s (allowed: --format FMT)", argv[i]);
			return BT_EXIT_USAGE;
		} else if (n == BT_CMP_MAX) {
			bt_cli_error("compare takes at most %d recordings", BT_CMP_MAX);
			return BT_EXIT_USAGE;
		} else {
			paths[n++] = argv[i];
		}
	}
	if (n < 2) {
		bt_cli_error("compare: which recordings? (benchtop compare A B [C ...])");
		return BT_EXIT_USAGE;
	}
	for (; nread < n; nread++) {
		if (bt_rec_read(paths[nread], &res[nread], &err) < 0) {
			bt_cli_error("%s", err.msg);
			goto out;
		}
		bt_cli_note(paths[nread], &res[nread]);
		rp[nread] = &res[nread];
	}
	rc = bt_cmp_build(&cmp, rp, n);
	if (rc == 0)
		rc = bt_cmp_write(stdout, &cmp, paths, fmt);
	bt_cmp_destroy(&cmp);
	if (rc < 0) {
		bt_cli_error("compare: cannot write the comparison");
		goto out;
	}
	status = BT_EXIT_OK;
out:
	for (int i = 0; i < nread; i++)
		bt_results_destroy(&res[i]);
	return status;
}
