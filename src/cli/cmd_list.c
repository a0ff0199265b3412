/*
 * cmd_list.c - `benchtop list [WORKLOAD]`: the workloads, or one workload's
 * parameters, straight from the schema tables.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "engines/runner.h"
#include "workloads/registry.h"

static void print_params(const struct bt_param *tab, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct bt_param *p = &tab[i];
		char allowed[256];

		bt_param_allowed(p, allowed, sizeof(allowed));
		printf("  %-13s %-8s %-10s %-28s %s%s%s\n", p->name, bt_pkind_name(p->kind),
		       p->def, allowed, p->help,
		       (p->flags & BT_PF_NOSWEEP) ? " (one value)" : "",
		       (p->flags & BT_PF_LIVE) ? " (live)" : "");
	}
}

static int list_one(const struct bt_workload *wl)
{
	const char *why = wl->unavailable ? wl->unavailable() : NULL;

	printf("%s - %s\n", wl->name, wl->title);
	printf("  group %s; counted in %s; latency: %s\n", wl->group, wl->unit,
	       wl->lat_what ? wl->lat_what : "-");
	printf("  stop rule: %s\n", wl->stop_default ? wl->stop_default
			: "fixed work set by its parameters (duration= and ops= do not apply)");
	if (why != NULL)
		printf("  UNAVAILABLE: %s\n", why);
	printf("\nparameters (any may be a comma list, which makes it a sweep axis):\n");
	printf("  %-13s %-8s %-10s %-28s %s\n", "NAME", "KIND", "DEFAULT", "ALLOWED", "HELP");
	print_params(wl->params, wl->nparams);
	printf("\ncommon parameters:\n");
	print_params(bt_common_params, bt_common_nparams);
	printf("\n(live): benchtop explore, and x in the workbench, change it while the load runs\n");
	return BT_EXIT_OK;
}

int bt_cmd_list(int argc, char **argv)
{
	if (argc > 2) {
		bt_cli_error("list takes at most one workload name");
		return BT_EXIT_USAGE;
	}
	if (argc == 2) {
		const struct bt_workload *wl = bt_workload_find(argv[1]);

		if (wl == NULL) {
			bt_cli_error("%s: no such workload (see benchtop list)", argv[1]);
			return BT_EXIT_USAGE;
		}
		return list_one(wl);
	}
	printf("%-10s %-9s %-9s %s\n", "WORKLOAD", "GROUP", "UNIT", "DESCRIPTION");
	for (size_t i = 0; i < bt_nworkloads; i++) {
		const struct bt_workload *wl = bt_workloads[i];
		const char *why = wl->unavailable ? wl->unavailable() : NULL;

		printf("%-10s %-9s %-9s %s%s%s%s\n", wl->name, wl->group, wl->unit, wl->title,
		       why ? " [unavailable: " : "", why ? why : "", why ? "]" : "");
	}
	printf("\n`benchtop list WORKLOAD` shows its parameters.\n");
	return BT_EXIT_OK;
}
