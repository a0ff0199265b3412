/*
 * cli.h - the headless front end: `benchtop list | run | show`.
 * Exit status: 0 ok, 1 the run failed, 2 bad usage, 130 interrupted.
 */
#ifndef BT_CLI_CLI_H
#define BT_CLI_CLI_H

#include <stdio.h>

#include "core/results.h"
#include "front/front.h"	/* the exit statuses */
#include "report/report.h"

int bt_cmd_list(int argc, char **argv);
int bt_cmd_run(int argc, char **argv);
int bt_cmd_explore(int argc, char **argv);
int bt_cmd_show(int argc, char **argv);
int bt_cmd_sessions(int argc, char **argv);
int bt_cmd_rerun(int argc, char **argv);
int bt_cmd_compare(int argc, char **argv);
int bt_cmd_export(int argc, char **argv);
int bt_cmd_doctor(int argc, char **argv);

void bt_cli_usage(FILE *f);

/* Print "benchtop: <message>" on stderr (one line). */
void bt_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* When reading path ignored something (res->note), say so on stderr in one line. */
void bt_cli_note(const char *path, const struct bt_results *res);

/*
 * When argv[*i] is "--format FMT" or "--format=FMT", parse it into *fmt
 * (advancing *i past a separate value): 1 consumed, 0 not --format, -1 a
 * bad value (the error is printed).
 */
int bt_cli_format_arg(int argc, char **argv, int *i, enum bt_format *fmt);

/* Parse --format's value; prints the error and returns -1 when bad. */
int bt_cli_format(const char *s, enum bt_format *out);

/*
 * Print results: for text, a context line (workload, machine, time) first;
 * then the table in fmt.
 */
void bt_cli_print_results(FILE *f, const struct bt_results *res, enum bt_format fmt,
			  const char *origin);

struct bt_workload;
struct bt_plan;

/* How bt_cli_run_plan runs and reports (run and rerun share it). */
struct bt_cli_run_opts {
	const char *record;	/* record to this file; NULL: the default place */
	int no_record;		/* 1: do not record */
	int quiet;		/* 1: no progress bar */
	enum bt_format fmt;	/* the results table */
};

/* The command line of run and rerun. */
struct bt_cli_args {
	const char *positional;	/* the workload (run) or the recording (rerun); NULL */
	const char *plan;	/* --plan FILE (run only) */
	const char *save_plan;	/* --save-plan FILE */
	struct bt_cli_run_opts run;
	int nkv;
	char **kv;		/* the key=value settings, in order; free() it */
};

/*
 * Parse cmd's arguments: options anywhere ("--opt VALUE" and "--opt=VALUE"),
 * key=value settings, and one positional argument (what names it: "workload"
 * or "recording"). --plan is accepted only with allow_plan. Prints one line
 * and returns -1 on a usage error.
 */
int bt_cli_parse_args(const char *cmd, const char *what, int allow_plan, int argc, char **argv,
		      struct bt_cli_args *a);

/*
 * Run a finalized, validated plan as `benchtop run` does: choose the
 * recording path, catch SIGINT/SIGTERM/SIGHUP/SIGQUIT through the one signal
 * path (front.h: the first cancels the run, the next one kills), draw the progress bar on a terminal, print the
 * results on stdout and "recorded: PATH" on stderr. Returns the exit status
 * (BT_EXIT_OK, _FAILED, _INTERRUPTED).
 */
int bt_cli_run_plan(const struct bt_workload *wl, const struct bt_plan *pl,
		    const struct bt_cli_run_opts *o);

#endif
