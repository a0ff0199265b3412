/*
 * cmd_doctor.c - `benchtop doctor`: what about this machine can move a
 * benchmark's figures, each item ok / info / warn with one line of what to
 * do (pyperf's `system show`). It reads, measures for a moment, and changes
 * nothing; it exits 0 whatever it finds.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/clock.h"
#include "core/machine.h"
#include "core/sysinfo.h"

/* How long other processes' CPU use is watched, and from what share it counts. */
#define BUSY_MS 200
#define BUSY_MIN_PCT 5.0

int bt_cmd_doctor(int argc, char **argv)
{
	struct bt_sysinfo si;
	struct bt_busy busy;
	struct bt_check_list l;
	double timer;

	if (argc > 1) {
		bt_cli_error("doctor takes no arguments (it checks this machine and changes nothing)");
		return BT_EXIT_USAGE;
	}
	bt_sysinfo_collect(&si);
	timer = bt_clock_read_cost_ns();
	if (bt_machine_busy(BUSY_MS, BUSY_MIN_PCT, &busy) < 0)
		busy.measured = 0;
	bt_machine_check(&si, timer, &busy, &l);

	printf("benchtop doctor: %s, %s, %d CPUs (%d cores x %d); %s\n", si.host, si.cpu_model,
	       si.allowed_cpus, si.physical_cores, si.smt, si.kernel);
	printf("what can move benchmark figures here (nothing is changed):\n\n");
	for (int i = 0; i < l.n; i++) {
		const struct bt_check *c = &l.item[i];

		printf("%-4s  %-11s %s\n", bt_check_level_name(c->level), c->name, c->value);
		printf("      %-11s %s\n", "", c->hint);
	}
	printf("\n%d warning%s, %d note%s.%s\n", l.nwarn, l.nwarn == 1 ? "" : "s", l.ninfo,
	       l.ninfo == 1 ? "" : "s",
	       l.nwarn ? " Warnings make figures vary from run to run or from machine to machine;"
			 " fix what you can, and say what you could not." : "");
	return BT_EXIT_OK;
}
