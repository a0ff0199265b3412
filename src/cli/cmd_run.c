/*
 * cmd_run.c - `benchtop run`: build a plan from a workload name, a plan file
 * and key=value arguments, check it, run it with a progress bar on stderr
 * (when stderr is a terminal), print the results table, and record it.
 *
 * SIGINT, SIGTERM and SIGHUP cancel the run: the rep in progress stops at
 * once, the recording ends "interrupted", the finished cells are printed. A
 * second signal ends the process at once (the recording then ends torn, which
 * the reader accepts as interrupted).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/clock.h"
#include "core/plan.h"
#include "core/recording.h"
#include "core/sysinfo.h"
#include "core/units.h"
#include "engines/runner.h"
#include "workloads/registry.h"

static struct bt_run *volatile g_run;
static volatile sig_atomic_t g_signalled;

static void on_signal(int sig)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };

	g_signalled = sig;
	if (g_run != NULL)
		bt_run_cancel(g_run);
	/* The next one is not caught: a stuck run can still be killed. */
	sigaction(sig, &sa, NULL);
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

struct run_opts {
	const char *workload;
	const char *plan;
	const char *save_plan;
	const char *record;
	int no_record;
	int quiet;
	enum bt_format fmt;
	int nkv;
	char **kv;
};

/* Options may come anywhere; "--opt VALUE" and "--opt=VALUE" both work. */
static int parse_args(int argc, char **argv, struct run_opts *o)
{
	o->kv = calloc((size_t)argc + 1, sizeof(*o->kv));
	if (o->kv == NULL)
		return -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;
		const char *name = a;
		size_t nlen = strlen(a);

		if (a[0] == '-' && a[1] == '-') {
			const char *eq = strchr(a, '=');

			if (eq != NULL) {
				val = eq + 1;
				nlen = (size_t)(eq - a);
			}
			if (!strncmp(name, "--no-record", nlen) && nlen == 11) {
				o->no_record = 1;
				continue;
			}
			if (!strncmp(name, "--quiet", nlen) && nlen == 7) {
				o->quiet = 1;
				continue;
			}
			if (val == NULL) {
				if (i + 1 >= argc) {
					bt_cli_error("%s needs a value", a);
					return -1;
				}
				val = argv[++i];
			}
			if (nlen == 6 && !strncmp(name, "--plan", 6))
				o->plan = val;
			else if (nlen == 11 && !strncmp(name, "--save-plan", 11))
				o->save_plan = val;
			else if (nlen == 8 && !strncmp(name, "--record", 8))
				o->record = val;
			else if (nlen == 8 && !strncmp(name, "--format", 8)) {
				if (bt_cli_format(val, &o->fmt) < 0)
					return -1;
			} else {
				bt_cli_error("run: unknown option %.*s (allowed: --plan, --save-plan, --record, --no-record, --format, --quiet)",
					     (int)nlen, name);
				return -1;
			}
		} else if (strchr(a, '=') != NULL) {
			o->kv[o->nkv++] = argv[i];
		} else if (o->workload == NULL) {
			o->workload = a;
		} else {
			bt_cli_error("%s: expected key=value (the workload is already %s)", a,
				     o->workload);
			return -1;
		}
	}
	if (o->record && o->no_record) {
		bt_cli_error("--record and --no-record contradict each other");
		return -1;
	}
	return 0;
}

/* One progress line on stderr, rewritten in place. */
static void progress(struct bt_run *r, const struct bt_results *res, const char *unit)
{
	struct bt_snapshot s;
	char rate[32], eta[32], bar[31];
	int total, done, filled;

	bt_run_snapshot(r, &s);
	total = s.ncells * s.reps_per_cell;
	done = s.cell * s.reps_per_cell + s.rep;
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

static int build_plan(struct run_opts *o, struct bt_plan *pl, const struct bt_workload **wlp)
{
	char fromfile[64] = "";
	const struct bt_workload *wl;
	struct bt_err err = { "" };

	if (o->plan != NULL) {
		if (bt_plan_file_workload(o->plan, fromfile, sizeof(fromfile), &err) < 0) {
			bt_cli_error("%s", err.msg);
			return -1;
		}
		if (o->workload != NULL && strcmp(o->workload, fromfile) != 0) {
			bt_cli_error("%s is a plan for %s, not %s", o->plan, fromfile, o->workload);
			return -1;
		}
		o->workload = fromfile;
	}
	if (o->workload == NULL) {
		bt_cli_error("run: which workload? (benchtop run WORKLOAD [key=value ...]; see benchtop list)");
		return -1;
	}
	wl = bt_workload_find(o->workload);
	if (wl == NULL) {
		bt_cli_error("%s: no such workload (see benchtop list)", o->workload);
		return -1;
	}
	if (bt_run_plan_init(pl, wl, &err) < 0) {
		bt_cli_error("%s", err.msg);
		return -1;
	}
	if (o->plan != NULL && bt_plan_load(pl, o->plan, &err) < 0)
		goto bad;
	for (int i = 0; i < o->nkv; i++)
		if (bt_plan_set_arg(pl, o->kv[i], &err) < 0)
			goto bad;
	if (bt_run_plan_finalize(pl, wl, &err) < 0 || bt_run_validate(wl, pl, &err) < 0)
		goto bad;
	*wlp = wl;
	return 0;
bad:
	bt_cli_error("%s", err.msg);
	bt_plan_destroy(pl);
	return -1;
}

int bt_cmd_run(int argc, char **argv)
{
	struct run_opts o = { .fmt = BT_FMT_TEXT };
	const struct bt_workload *wl = NULL;
	struct bt_plan pl;
	struct bt_run *run = NULL;
	struct bt_err err = { "" };
	char path[4096] = "";
	int rc, status = BT_EXIT_USAGE, tty;

	if (parse_args(argc, argv, &o) < 0)
		goto out;
	if (build_plan(&o, &pl, &wl) < 0)
		goto out;
	if (o.save_plan != NULL && bt_plan_save(&pl, o.save_plan, &err) < 0) {
		bt_cli_error("%s", err.msg);
		goto out_plan;
	}
	if (o.record != NULL) {
		snprintf(path, sizeof(path), "%s", o.record);
	} else if (!o.no_record) {
		char dir[4096];
		char host[256] = "host";

		gethostname(host, sizeof(host) - 1);
		if (bt_rec_default_dir(dir, sizeof(dir)) < 0 ||
		    bt_rec_default_path(path, sizeof(path), dir, wl->name, host, bt_unix_ns()) < 0) {
			bt_cli_error("cannot choose a recording path (set XDG_STATE_HOME, or use --record FILE or --no-record)");
			status = BT_EXIT_FAILED;
			goto out_plan;
		}
	}

	catch_signals();
	if (bt_run_start(&run, wl, &pl, path[0] ? path : NULL, &err) < 0) {
		bt_cli_error("%s", err.msg);
		status = BT_EXIT_FAILED;
		goto out_plan;
	}
	g_run = run;

	tty = !o.quiet && isatty(STDERR_FILENO);
	if (tty) {
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
	g_run = NULL;

	bt_cli_print_results(stdout, bt_run_results(run), o.fmt, NULL);
	fflush(stdout);
	if (path[0])
		fprintf(stderr, "recorded: %s\n", path);
	if (rc == -EINTR) {
		bt_cli_error("interrupted: %d of %d cells finished", bt_results_cells_done(bt_run_results(run)),
			     bt_run_results(run)->ncells);
		status = BT_EXIT_INTERRUPTED;
	} else if (rc < 0) {
		bt_cli_error("run failed: %s", bt_run_results(run)->error);
		status = BT_EXIT_FAILED;
	} else {
		status = BT_EXIT_OK;
	}
	bt_run_free(run);
out_plan:
	bt_plan_destroy(&pl);
out:
	free(o.kv);
	return status;
}
