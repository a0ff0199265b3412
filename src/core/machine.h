/*
 * machine.h - the machine check: what about this machine can move a
 * benchmark's figures (a VM and its steal, the governor and boost, SMT,
 * transparent huge pages, ASLR, perf_event_paranoid, CPU isolation, other
 * busy processes, the clock source, the timer cost), each judged ok / info /
 * warn with one line of what to do, the way `pyperf system show` does.
 *
 * Nothing here changes the machine: it reads /proc, /sys and cpuid, never
 * runs a program. The facts live in struct bt_sysinfo (so every recording
 * carries them); bt_machine_collect fills them, bt_machine_check judges them.
 * The parsers take text so that tests can feed them.
 */
#ifndef BT_CORE_MACHINE_H
#define BT_CORE_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/sysinfo.h"

enum bt_check_level { BT_CHECK_OK, BT_CHECK_INFO, BT_CHECK_WARN };

#define BT_CHECK_MAX 16

struct bt_check {
	const char *name;		/* "vm", "governor", ... (static) */
	enum bt_check_level level;
	char value[96];			/* what was found */
	char brief[48];			/* the few words a header line gives a warning */
	char hint[200];			/* one line: what to do, or why it is fine */
};

struct bt_check_list {
	int n, nwarn, ninfo;
	struct bt_check item[BT_CHECK_MAX];
};

/* Other processes that used the CPU over an interval (bt_machine_busy). */
#define BT_BUSY_MAX 4
struct bt_busy {
	int measured;			/* 0: not measured (the item is left out) */
	double interval_s;
	double steal_pct;		/* steal over the interval, %; -1 unknown */
	int n;				/* the busiest above the threshold, top first */
	struct {
		int pid;
		char comm[32];
		double cpu_pct;		/* % of one CPU over the interval */
	} top[BT_BUSY_MAX];
};

/* ---- parsers (pure) ---------------------------------------------------- */

/* The [bracketed] choice of a sysfs enum ("always [madvise] never" -> "madvise"); else the first word. */
void bt_machine_parse_choice(const char *text, char *out, size_t n);

/* The value of key=VALUE on a kernel command line; 1 found (out filled), 0 not. */
int bt_machine_cmdline_value(const char *cmdline, const char *key, char *out, size_t n);

/*
 * /proc/PID/stat text: the command name (between the first '(' and the last
 * ')', so a name holding ") (" is read right) and utime + stime in ticks.
 * 0 or -EINVAL.
 */
int bt_machine_parse_pid_stat(const char *text, char *comm, size_t n, uint64_t *ticks);

/* The hypervisor a cpuid 0x40000000 signature (12 chars) names, or NULL. */
const char *bt_machine_cpuid_virt(const char *signature);

/* The hypervisor /sys/class/dmi/id's sys_vendor / product_name / bios_vendor name, or NULL. */
const char *bt_machine_dmi_virt(const char *sys_vendor, const char *product_name,
				const char *bios_vendor);

/* ---- reading the machine ------------------------------------------------ */

/*
 * Fill si's machine-check fields (virt .. clocksource) from /proc, /sys and
 * cpuid. Quick (no interval is measured); bt_sysinfo_collect calls it.
 */
void bt_machine_collect(struct bt_sysinfo *si);

/*
 * Measure, over interval_ms (200 is plenty), which other processes used the
 * CPU (more than min_pct % of one CPU; this process is left out) and the
 * steal over the same time. Sleeps for the interval. 0 or -errno (no /proc).
 */
int bt_machine_busy(int interval_ms, double min_pct, struct bt_busy *b);

/*
 * Judge si (as collected now, or read from a recording) with the timer cost
 * timer_ns (<= 0: unknown) and busy (NULL or not measured: that item is
 * left out). Fields a recording does not have ("") are left out too.
 */
void bt_machine_check(const struct bt_sysinfo *si, double timer_ns, const struct bt_busy *busy,
		      struct bt_check_list *out);

/*
 * One line for a results header: the VM, if any, and the warnings' briefs,
 * e.g. "kvm VM, steal 0.1% so far; warnings: THP always, boost on". No
 * newline. "not recorded" for a recording made before the check existed.
 */
void bt_machine_summary(const struct bt_sysinfo *si, double timer_ns, char *buf, size_t n);

/* "ok", "info", "warn". */
const char *bt_check_level_name(enum bt_check_level l);

#endif
