/*
 * cli.c - what the headless commands share: usage, messages, printing
 * results, and running a plan with a progress bar (run and rerun).
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bt_config.h"
#include "core/clock.h"
#include "core/machine.h"
#include "core/plan.h"
#include "core/recording.h"
#include "core/units.h"
#include "engines/runner.h"
#include "report/sessions.h"

void bt_cli_usage(FILE *f)
{
	fprintf(f,
		"benchtop %s - a performance workbench for one Linux server\n"
		"\n"
		"the workbench (a terminal UI: pick a workload, tick a sweep, watch it run):\n"
		"  benchtop [WORKLOAD] [key=value ...] [--theme NAME] [--refresh MS] [--cast FILE]\n"
		"  benchtop replay RECORDING [--theme NAME] [--refresh MS] [--cast FILE]\n"
		"    --theme NAME     colour theme (t cycles them; themes/*.theme, or your own in\n"
		"                     $XDG_CONFIG_HOME/benchtop/themes/); NO_COLOR=1 turns colour off\n"
		"    --refresh MS     screen refresh, 20..10000 ms (default 250)\n"
		"    --cast FILE      also write the session as an asciicast v2 file\n"
		"  The workbench remembers the theme, each workload's form, the plan and export\n"
		"  folders and mouse = on|off in $XDG_CONFIG_HOME/benchtop/settings (plain text).\n"
		"  Keys: F1 help, ? a field's help, r run, o sessions, S/L save/list plans,\n"
		"  e export, q quit; the mouse clicks and scrolls.\n"
		"\n"
		"headless:\n"
		"  benchtop list [WORKLOAD]            workloads, or one workload's parameters\n"
		"  benchtop run WORKLOAD [key=value ...] [options]\n"
		"  benchtop run --plan FILE [key=value ...] [options]\n"
		"  benchtop explore WORKLOAD [key=value ...] [--record FILE] < changes\n"
		"                                      one open-ended run; each key=value line on\n"
		"                                      stdin changes a live setting (threads, lock,\n"
		"                                      pin ...) at the next sample; a line per segment\n"
		"  benchtop show RECORDING [--format FMT]\n"
		"  benchtop sessions [--workload NAME] [--format text|json] [--dir DIR]\n"
		"  benchtop rerun RECORDING [key=value ...] [run options]\n"
		"  benchtop compare A B [C ...] [--format FMT]\n"
		"  benchtop export RECORDING --format markdown|csv|json|hgrm|all [--out PATH]\n"
		"  benchtop doctor                     what on this machine can move figures\n"
		"  benchtop --help | --version\n"
		"\n"
		"A value may be a comma list: each list is a sweep axis, and every\n"
		"combination of the axes is a cell, run warmup + reps times\n"
		"(e.g. benchtop run pipeline threads=1,2,4,8 notify=signal,broadcast reps=3).\n"
		"\n"
		"run options:\n"
		"  --plan FILE        read the plan (JSON) from FILE; key=value overrides it\n"
		"  --save-plan FILE   write the plan to FILE (and run it)\n"
		"  --record FILE      record the session to FILE\n"
		"                     (default: $XDG_STATE_HOME/benchtop/sessions/TIME-WORKLOAD-HOST.jsonl)\n"
		"  --no-record        do not record\n"
		"  --format FMT       results as text (default), markdown, csv, json, or openssl\n"
		"                     (openssl: `openssl speed`'s table, in 1000s of bytes/s)\n"
		"  --quiet            no progress bar\n"
		"\n"
		"exit status: 0 ok, 1 the run failed, 2 bad usage, 3 the run finished but its\n"
		"recording is incomplete (a write failed: disk full?), 130 interrupted (Ctrl-C)\n",
		BT_VERSION);
}

void bt_cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("benchtop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int bt_cli_format_arg(int argc, char **argv, int *i, enum bt_format *fmt)
{
	if (!strcmp(argv[*i], "--format") && *i + 1 < argc)
		return bt_cli_format(argv[++*i], fmt) < 0 ? -1 : 1;
	if (!strncmp(argv[*i], "--format=", 9))
		return bt_cli_format(argv[*i] + 9, fmt) < 0 ? -1 : 1;
	return 0;
}

void bt_cli_note(const char *path, const struct bt_results *res)
{
	if (res->note[0])
		bt_cli_error("note: %s: %s", path, res->note);
}

int bt_cli_format(const char *s, enum bt_format *out)
{
	if (s == NULL || bt_format_parse(s, out) < 0) {
		bt_cli_error("--format=%s: must be one of text, markdown, csv, json, openssl", s ? s : "");
		return -1;
	}
	return 0;
}

void bt_cli_print_results(FILE *f, const struct bt_results *res, enum bt_format fmt,
			  const char *origin)
{
	bt_sessions_write_header(f, res, fmt, origin);
	bt_report_write(f, res, fmt);
}

/* One progress line on stderr, rewritten in place. */
static void progress(struct bt_run *r, const struct bt_results *res, const char *unit)
{
	struct bt_snapshot s;
	char rate[32], eta[32], bar[31];
	int total, done, filled;

	bt_run_snapshot(r, &s);
	total = s.ncells * s.reps_per_cell;
	done = s.reps_done;
	filled = total ? (int)(30.0 * done / total) : 0;
	for (int i = 0; i < 30; i++)
		bar[i] = i < filled ? '#' : '.';
	bar[30] = '\0';
	bt_fmt_si(s.last.ops_s, rate, sizeof(rate));
	if (s.eta_s >= 0)
		snprintf(eta, sizeof(eta), "ETA %.0fs", s.eta_s);
	else
		snprintf(eta, sizeof(eta), "ETA ?");
	fprintf(stderr, "\r\033[K[%s] cell %d/%d rep %d/%d  %.40s  %s %s/s  %s", bar,
		s.cell + 1, s.ncells, s.rep + 1, s.reps_per_cell,
		s.cell < res->ncells ? res->cells[s.cell].label : "", rate, unit, eta);
	fflush(stderr);
}

int bt_cli_run_plan(const struct bt_workload *wl, const struct bt_plan *pl,
		    const struct bt_cli_run_opts *o)
{
	struct bt_run *run = NULL;
	struct bt_err err = { "" };
	char path[4096] = "";
	int rc, rec_rc, status;

	if (o->fmt == BT_FMT_OPENSSL && strcmp(wl->unit, "bytes") != 0) {
		bt_cli_error("--format openssl: %s counts %s, not bytes (use text, markdown, csv or json)",
			     wl->name, wl->unit);
		return BT_EXIT_USAGE;
	}
	if (o->record != NULL) {
		snprintf(path, sizeof(path), "%s", o->record);
	} else if (!o->no_record && bt_front_record_path(path, sizeof(path), wl->name, &err) < 0) {
		bt_cli_error("%s, or use --record FILE or --no-record", err.msg);
		return BT_EXIT_FAILED;
	}

	bt_front_signals_catch();
	if (bt_run_start(&run, wl, pl, path[0] ? path : NULL, &err) < 0) {
		bt_cli_error("%s", err.msg);
		if (o->record == NULL && path[0])	/* the name we reserved, if still empty */
			bt_rec_unreserve(path);
		return BT_EXIT_FAILED;
	}
	bt_front_signals_watch(run);

	if (!o->quiet && isatty(STDERR_FILENO)) {
		uint64_t next = 0;

		while (!bt_run_finished(run)) {
			struct timespec ts = { 0, 20 * 1000000 };

			if (bt_now_ns() >= next) {
				progress(run, bt_run_results(run), wl->unit);
				next = bt_now_ns() + 200000000u;
			}
			nanosleep(&ts, NULL);
		}
		fprintf(stderr, "\r\033[K");
	}
	rc = bt_run_wait(run);
	bt_front_signals_watch(NULL);

	bt_cli_print_results(stdout, bt_run_results(run), o->fmt, NULL);
	fflush(stdout);
	rec_rc = bt_run_record_error(run);
	if (path[0] && rec_rc < 0)
		bt_cli_error("the recording %s is incomplete: %s", path, strerror(-rec_rc));
	else if (path[0])
		fprintf(stderr, "recorded: %s\n", path);
	if (rc == -EINTR) {
		bt_cli_error("interrupted: %d of %d cells finished", bt_results_cells_done(bt_run_results(run)),
			     bt_run_results(run)->ncells);
		status = BT_EXIT_INTERRUPTED;
	} else if (rc < 0) {
		bt_cli_error("run failed: %s", bt_run_results(run)->error);
		status = BT_EXIT_FAILED;
	} else {
		status = rec_rc < 0 ? BT_EXIT_RECORDING : BT_EXIT_OK;
	}
	bt_run_free(run);
	return status;
}

int bt_cli_parse_args(const char *cmd, const char *what, int allow_plan, int argc, char **argv,
		      struct bt_cli_args *a)
{
	const char *format = NULL, *plan = NULL;
	const struct bt_front_opt opts[] = {
		{ "--plan", &plan, NULL },	/* run only: dropped below for rerun */
		{ "--save-plan", &a->save_plan, NULL },
		{ "--record", &a->run.record, NULL },
		{ "--no-record", NULL, &a->run.no_record },
		{ "--format", &format, NULL },
		{ "--quiet", NULL, &a->run.quiet },
	};
	struct bt_front_args fa;
	struct bt_err err = { "" };

	a->run.fmt = BT_FMT_TEXT;
	if (bt_front_parse_args(cmd, what, opts + !allow_plan, (int)(sizeof(opts) / sizeof(opts[0])) - !allow_plan,
				argc, argv, &fa, &err) < 0) {
		bt_cli_error("%s", err.msg);
		return -1;
	}
	a->positional = fa.positional;
	a->plan = plan;
	a->nkv = fa.nkv;
	a->kv = fa.kv;
	if (format != NULL && bt_cli_format(format, &a->run.fmt) < 0)
		return -1;
	if (a->run.record && a->run.record[0] == '\0') {
		bt_cli_error("--record needs a file name (or --no-record)");
		return -1;
	}
	if (a->run.record && a->run.no_record) {
		bt_cli_error("--record and --no-record contradict each other");
		return -1;
	}
	return 0;
}
