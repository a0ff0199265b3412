/*
 * cmd_rerun.c - `benchtop rerun RECORDING [key=value ...]`: run the plan a
 * recording carries again, with overrides, and record it as a new session
 * (the same default place and naming as run; --record FILE, --no-record).
 *
 * The plan is rebuilt from the recording's own copy (every parameter with
 * its value, so the defaults of this build do not leak in). When this
 * machine differs from the recording's in anything that moves numbers
 * (bt_sysinfo_diff), the fields are listed on stderr before the run starts.
 *
 * Exit status: 1 for a recording that cannot be read or carries no usable
 * plan, 2 for a bad override or option, else as run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/plan.h"
#include "core/recording.h"
#include "core/sysinfo.h"
#include "engines/runner.h"
#include "workloads/registry.h"

/* Print the fields in which this machine differs from the recording's (nothing when none). */
static void machine_note(const struct bt_results *res)
{
	struct bt_sysinfo now;
	char diff[2048];
	int n;

	memset(&now, 0, sizeof(now));
	if (bt_sysinfo_collect(&now) < 0)
		return;
	n = bt_sysinfo_diff(&res->machine, &now, diff, sizeof(diff));
	if (n <= 0)
		return;
	bt_cli_error("machine differs from the recording's (%d field%s; recorded -> now):", n,
		     n == 1 ? "" : "s");
	for (const char *p = diff; *p;) {
		size_t k = strcspn(p, "\n");

		fprintf(stderr, "  %.*s\n", (int)k, p);
		p += k;
		if (*p == '\n')
			p++;
	}
}

/*
 * The recording's plan with the overrides applied, finalized and checked.
 * Returns 0, or the exit status to give (with the message printed).
 */
static int build_plan(const struct bt_cli_args *o, const struct bt_results *res,
		      struct bt_plan *pl, const struct bt_workload **wlp)
{
	struct bt_front_base base = { .json = res->plan_json, .origin = o->positional };
	const struct bt_workload *wl;
	struct bt_err err = { "" };
	int base_bad;

	if (res->plan_json == NULL) {
		bt_cli_error("%s: the recording carries no plan to run", o->positional);
		return BT_EXIT_FAILED;
	}
	wl = bt_workload_find(res->workload);
	if (wl == NULL) {
		bt_cli_error("%s: workload %s is not in this benchtop (see benchtop list)",
			     o->positional, res->workload);
		return BT_EXIT_FAILED;
	}
	if (bt_front_plan(pl, wl, &base, o->kv, o->nkv, &base_bad, &err) < 0) {
		bt_cli_error("%s%s", err.msg, base_bad ? " (the recorded plan)" : "");
		return base_bad ? BT_EXIT_FAILED : BT_EXIT_USAGE;
	}
	*wlp = wl;
	return 0;
}

int bt_cmd_rerun(int argc, char **argv)
{
	struct bt_cli_args o = { 0 };
	const struct bt_workload *wl = NULL;
	struct bt_results res;
	struct bt_plan pl;
	struct bt_err err = { "" };
	int status = BT_EXIT_USAGE;

	if (bt_cli_parse_args("rerun", "recording", 0, argc, argv, &o) < 0)
		goto out;
	if (o.positional == NULL) {
		bt_cli_error("rerun: which recording? (benchtop rerun RECORDING [key=value ...])");
		goto out;
	}
	if (bt_rec_read(o.positional, &res, &err) < 0) {
		bt_cli_error("%s", err.msg);
		status = BT_EXIT_FAILED;
		goto out;
	}
	bt_cli_note(o.positional, &res);
	status = build_plan(&o, &res, &pl, &wl);
	if (status != 0)
		goto out_res;
	if (o.save_plan != NULL && bt_plan_save(&pl, o.save_plan, &err) < 0) {
		bt_cli_error("%s", err.msg);
		status = BT_EXIT_USAGE;
		goto out_plan;
	}
	machine_note(&res);
	fprintf(stderr, "rerun of %s\n", o.positional);
	status = bt_cli_run_plan(wl, &pl, &o.run);
out_plan:
	bt_plan_destroy(&pl);
out_res:
	bt_results_destroy(&res);
out:
	free(o.kv);
	return status;
}
