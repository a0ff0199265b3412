/*
 * main.c - command line: no arguments -> the TUI (when built); subcommands
 * -> the headless front end.
 */
#include <stdio.h>
#include <string.h>

#include "bt_config.h"
#include "cli/cli.h"

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (cmd == NULL) {
		bt_cli_usage(stderr);
		return BT_EXIT_USAGE;
	}
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		bt_cli_usage(stdout);
		return BT_EXIT_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("benchtop %s\n", BT_VERSION);
		return BT_EXIT_OK;
	}
	if (!strcmp(cmd, "list"))
		return bt_cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "run"))
		return bt_cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "show"))
		return bt_cmd_show(argc - 1, argv + 1);
	bt_cli_error("unknown command '%s' (commands: list, run, show; see benchtop --help)", cmd);
	return BT_EXIT_USAGE;
}
