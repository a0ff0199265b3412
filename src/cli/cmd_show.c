/*
 * cmd_show.c - `benchtop show RECORDING`: a recording's results, the same
 * table `run` prints.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/recording.h"

int bt_cmd_show(int argc, char **argv)
{
	enum bt_format fmt = BT_FMT_TEXT;
	const char *path = NULL;
	struct bt_results res;
	struct bt_err err = { "" };

	for (int i = 1; i < argc; i++) {
		int f = bt_cli_format_arg(argc, argv, &i, &fmt);

		if (f < 0)
			return BT_EXIT_USAGE;
		if (f > 0)
			continue;
		if (argv[i][0] == '-' && argv[i][1] != '\0') {
			bt_cli_error("show: unknown option %s (allowed: --format FMT)", argv[i]);
			return BT_EXIT_USAGE;
		} else if (path == NULL) {
			path = argv[i];
		} else {
			bt_cli_error("show takes one recording");
			return BT_EXIT_USAGE;
		}
	}
	if (path == NULL) {
		bt_cli_error("show: which recording? (benchtop show FILE)");
		return BT_EXIT_USAGE;
	}
	if (bt_rec_read(path, &res, &err) < 0) {
		bt_cli_error("%s", err.msg);
		return BT_EXIT_FAILED;
	}
	bt_cli_note(path, &res);
	if (fmt == BT_FMT_OPENSSL && strcmp(res.unit, "bytes") != 0) {
		bt_cli_error("--format openssl: %s counts %s, not bytes (use text, markdown, csv or json)",
			     res.workload, res.unit[0] ? res.unit : "ops");
		bt_results_destroy(&res);
		return BT_EXIT_USAGE;
	}
	bt_cli_print_results(stdout, &res, fmt, path);
	bt_results_destroy(&res);
	return BT_EXIT_OK;
}
