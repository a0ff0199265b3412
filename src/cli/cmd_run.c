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

static int build_plan(struct bt_cli_args *o, struct bt_plan *pl, const struct bt_workload **wlp)
{
	char fromfile[64] = "";
	struct bt_front_base base = { 0 };
	const struct bt_workload *wl;
	struct bt_err err = { "" };

	if (o->plan != NULL) {
		if (bt_plan_file_workload(o->plan, fromfile, sizeof(fromfile), &err) < 0) {
			bt_cli_error("%s", err.msg);
			return -1;
		}
		if (o->positional != NULL && strcmp(o->positional, fromfile) != 0) {
			bt_cli_error("%s is a plan for %s, not %s", o->plan, fromfile, o->positional);
			return -1;
		}
		o->positional = fromfile;
	}
	if (o->positional == NULL) {
		bt_cli_error("run: which workload? (benchtop run WORKLOAD [key=value ...]; see benchtop list)");
		return -1;
	}
	wl = bt_workload_find(o->positional);
	if (wl == NULL) {
		bt_cli_error("%s: no such workload (see benchtop list)", o->positional);
		return -1;
	}
	base.path = o->plan;
	if (bt_front_plan(pl, wl, &base, o->kv, o->nkv, NULL, &err) < 0) {
		bt_cli_error("%s", err.msg);
		return -1;
	}
	*wlp = wl;
	return 0;
}

int bt_cmd_run(int argc, char **argv)
{
	struct bt_cli_args o = { 0 };
	const struct bt_workload *wl = NULL;
	struct bt_plan pl;
	struct bt_err err = { "" };
	int status = BT_EXIT_USAGE;

	if (bt_cli_parse_args("run", "workload", 1, argc, argv, &o) < 0)
		goto out;
	if (build_plan(&o, &pl, &wl) < 0)
		goto out;
	if (o.save_plan != NULL && bt_plan_save(&pl, o.save_plan, &err) < 0) {
		bt_cli_error("%s", err.msg);
		goto out_plan;
	}
	status = bt_cli_run_plan(wl, &pl, &o.run);
out_plan:
	bt_plan_destroy(&pl);
out:
	free(o.kv);
	return status;
}
