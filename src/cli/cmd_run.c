/*
 * cmd_run.c - `benchtop run`: build a plan from a workload name, a plan file
 * and key=value arguments, check it, run it with a progress bar on stderr
 * (when stderr is a terminal), print the results table, and record it.
 *
 * SIGINT, SIGTERM and SIGHUP cancel the run: the rep in progress stops at
 * once, the recording ends "interrupted", the finished cells are printed. A
 * second signal ends the process at once (the recording then ends torn, which
 * the reader accepts as interrupted). The running itself is bt_cli_run_plan
 * in cli.c, shared with rerun.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/plan.h"
#include "engines/runner.h"
#include "workloads/registry.h"

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
	struct bt_err err = { "" };
	int status = BT_EXIT_USAGE;

	if (parse_args(argc, argv, &o) < 0)
		goto out;
	if (build_plan(&o, &pl, &wl) < 0)
		goto out;
	if (o.save_plan != NULL && bt_plan_save(&pl, o.save_plan, &err) < 0) {
		bt_cli_error("%s", err.msg);
		goto out_plan;
	}
	status = bt_cli_run_plan(wl, &pl, &(struct bt_cli_run_opts){
		.record = o.record, .no_record = o.no_record, .quiet = o.quiet, .fmt = o.fmt });
out_plan:
	bt_plan_destroy(&pl);
out:
	free(o.kv);
	return status;
}
