/*
 * main.c - command line: no arguments -> the TUI (when built); subcommands
 * -> the headless front end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_config.h"
#include "cli/cli.h"
#include "tui/tui.h"
#include "workloads/registry.h"

/*
 * Output that did not reach stdout (a full disk, /dev/full, a closed pipe
 * reader) is a failure: checked once at exit, as coreutils' close_stdout
 * does, so every command gets it. _exit keeps an OK status from winning.
 */
static void close_stdout(void)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		int e = errno > 0 ? errno : EIO;

		bt_cli_error("write error on standard output: %s", strerror(e));
		_exit(BT_EXIT_FAILED);
	}
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	atexit(close_stdout);

	/*
	 * No command, TUI options (--theme, --refresh, ...), a workload name or
	 * key=value settings: the TUI, with its form prefilled from them.
	 */
	if (cmd == NULL || (cmd[0] == '-' && strcmp(cmd, "--help") && strcmp(cmd, "-h") &&
			    strcmp(cmd, "--version") && strcmp(cmd, "-V")) ||
	    strchr(cmd, '=') != NULL || bt_workload_find(cmd) != NULL)
		return bt_tui_main(argc, argv);
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
	if (!strcmp(cmd, "explore"))
		return bt_cmd_explore(argc - 1, argv + 1);
	if (!strcmp(cmd, "show"))
		return bt_cmd_show(argc - 1, argv + 1);
	if (!strcmp(cmd, "sessions"))
		return bt_cmd_sessions(argc - 1, argv + 1);
	if (!strcmp(cmd, "rerun"))
		return bt_cmd_rerun(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return bt_cmd_compare(argc - 1, argv + 1);
	if (!strcmp(cmd, "export"))
		return bt_cmd_export(argc - 1, argv + 1);
	if (!strcmp(cmd, "replay"))
		return bt_tui_replay(argc - 1, argv + 1);
	if (!strcmp(cmd, "doctor"))
		return bt_cmd_doctor(argc - 1, argv + 1);
	bt_cli_error("unknown command '%s' (commands: list, run, explore, show, sessions, rerun, compare, export, replay, doctor; see benchtop --help)", cmd);
	return BT_EXIT_USAGE;
}
