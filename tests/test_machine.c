/*
 * test_machine.c - the machine check: parsers fed text, judgements on
 * synthetic machines, the header summary, and one real collect.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/machine.h"

static void test_parse_choice(void **state)
{
	char out[16];

	bt_machine_parse_choice("always [madvise] never\n", out, sizeof(out));
	assert_string_equal(out, "madvise");
	bt_machine_parse_choice("[always] madvise never", out, sizeof(out));
	assert_string_equal(out, "always");
	bt_machine_parse_choice("  tsc\n", out, sizeof(out));
	assert_string_equal(out, "tsc");
	bt_machine_parse_choice("", out, sizeof(out));
	assert_string_equal(out, "");
	bt_machine_parse_choice("[averyveryverylongchoice]", out, 8);
	assert_string_equal(out, "averyve");
}

static void test_cmdline(void **state)
{
	const char *cl = "BOOT_IMAGE=/vmlinuz ro isolcpus=2-3 quiet nohz_full=2,3 isolcpus=4-7 "
			 "-- nohz_full=9";
	char out[32];

	assert_int_equal(bt_machine_cmdline_value(cl, "isolcpus", out, sizeof(out)), 1);
	assert_string_equal(out, "4-7");	/* the last one wins */
	assert_int_equal(bt_machine_cmdline_value(cl, "nohz_full", out, sizeof(out)), 1);
	assert_string_equal(out, "2,3");	/* after "--" is init's */
	assert_int_equal(bt_machine_cmdline_value(cl, "quiet", out, sizeof(out)), 0);
	assert_int_equal(bt_machine_cmdline_value(cl, "iso", out, sizeof(out)), 0);
	assert_string_equal(out, "");
}

static void test_pid_stat(void **state)
{
	char comm[32];
	uint64_t ticks = 0;

	assert_int_equal(bt_machine_parse_pid_stat(
				 "1234 (my (odd) name) R 1 1234 1234 0 -1 4194560 100 0 0 0 "
				 "250 30 0 0 20 0 1 0 100 1000 10\n",
				 comm, sizeof(comm), &ticks), 0);
	assert_string_equal(comm, "my (odd) name");
	assert_int_equal(ticks, 280);
	assert_int_equal(bt_machine_parse_pid_stat("1234 (x) R 1 2", comm, sizeof(comm), &ticks),
			 -EINVAL);
	assert_int_equal(bt_machine_parse_pid_stat("garbage", comm, sizeof(comm), &ticks), -EINVAL);
}

static void test_virt_names(void **state)
{
	assert_string_equal(bt_machine_cpuid_virt("KVMKVMKVM\0\0\0"), "kvm");
	assert_string_equal(bt_machine_cpuid_virt("Microsoft Hv"), "microsoft");
	assert_string_equal(bt_machine_cpuid_virt("VMwareVMware"), "vmware");
	assert_null(bt_machine_cpuid_virt("GenuineIntel"));
	assert_string_equal(bt_machine_dmi_virt("QEMU", "Standard PC (Q35 + ICH9, 2009)", "SeaBIOS"), "qemu");
	assert_string_equal(bt_machine_dmi_virt("Amazon EC2", "m5.large", "Amazon EC2"), "amazon");
	assert_string_equal(bt_machine_dmi_virt("Microsoft Corporation", "Virtual Machine", "x"),
			    "microsoft");
	assert_string_equal(bt_machine_dmi_virt("", "", "innotek GmbH"), "oracle");
	assert_null(bt_machine_dmi_virt("Dell Inc.", "PowerEdge R740", "Dell Inc."));
	assert_null(bt_machine_dmi_virt(NULL, NULL, NULL));
}

/* A quiet bare-metal box with every setting as a benchmark wants it. */
static void quiet_box(struct bt_sysinfo *si)
{
	memset(si, 0, sizeof(*si));
	snprintf(si->governor, sizeof(si->governor), "performance");
	si->smt = 1;
	snprintf(si->virt, sizeof(si->virt), "none");
	snprintf(si->container, sizeof(si->container), "none");
	si->steal_pct = 0;
	snprintf(si->boost, sizeof(si->boost), "off");
	snprintf(si->thp, sizeof(si->thp), "madvise");
	snprintf(si->aslr, sizeof(si->aslr), "2");
	snprintf(si->perf_paranoid, sizeof(si->perf_paranoid), "1");
	snprintf(si->isolated, sizeof(si->isolated), "2-3");
	snprintf(si->nohz_full, sizeof(si->nohz_full), "2-3");
	snprintf(si->clocksource, sizeof(si->clocksource), "tsc");
}

static const struct bt_check *item(const struct bt_check_list *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->item[i].name, name) == 0)
			return &l->item[i];
	return NULL;
}

static void test_check_quiet(void **state)
{
	struct bt_sysinfo si;
	struct bt_check_list l;
	struct bt_busy busy = { .measured = 1, .interval_s = 0.2, .steal_pct = 0, .n = 0 };
	char line[256];

	quiet_box(&si);
	bt_machine_check(&si, 20, &busy, &l);
	assert_int_equal(l.n, 11);	/* vm governor boost smt thp aslr perf isolation busy clocksource timer */
	assert_int_equal(l.nwarn, 0);
	assert_int_equal(l.ninfo, 0);
	for (int i = 0; i < l.n; i++) {
		assert_int_equal(l.item[i].level, BT_CHECK_OK);
		assert_true(l.item[i].hint[0] != '\0');
	}
	assert_string_equal(item(&l, "isolation")->hint, "pin the workers to the isolated CPUs: pin=list:2-3");
	bt_machine_summary(&si, 20, line, sizeof(line));
	assert_string_equal(line, "no warnings");
}

static void test_check_noisy_vm(void **state)
{
	struct bt_sysinfo si;
	struct bt_check_list l;
	struct bt_busy busy = { .measured = 1, .interval_s = 0.2, .steal_pct = 3, .n = 2 };
	char line[256];

	quiet_box(&si);
	snprintf(si.virt, sizeof(si.virt), "kvm");
	snprintf(si.container, sizeof(si.container), "docker");
	si.steal_pct = 0.25;
	snprintf(si.governor, sizeof(si.governor), "powersave");
	snprintf(si.boost, sizeof(si.boost), "on");
	si.smt = 2;
	snprintf(si.thp, sizeof(si.thp), "always");
	snprintf(si.perf_paranoid, sizeof(si.perf_paranoid), "3");
	snprintf(si.isolated, sizeof(si.isolated), "none");
	snprintf(si.nohz_full, sizeof(si.nohz_full), "none");
	snprintf(si.clocksource, sizeof(si.clocksource), "hpet");
	busy.top[0].pid = 42;
	busy.top[0].cpu_pct = 97;
	snprintf(busy.top[0].comm, sizeof(busy.top[0].comm), "stress");
	busy.top[1].pid = 7;
	busy.top[1].cpu_pct = 12;
	snprintf(busy.top[1].comm, sizeof(busy.top[1].comm), "dockerd");

	bt_machine_check(&si, 350, &busy, &l);
	/* Steal over the interval (3 %) makes the VM a warning. */
	assert_int_equal(item(&l, "vm")->level, BT_CHECK_WARN);
	assert_string_equal(item(&l, "vm")->value,
			    "kvm VM, steal 0.25% of CPU time since boot, 3.0% over 200 ms");
	assert_int_equal(item(&l, "container")->level, BT_CHECK_INFO);
	assert_int_equal(item(&l, "governor")->level, BT_CHECK_WARN);
	assert_int_equal(item(&l, "boost")->level, BT_CHECK_WARN);
	assert_int_equal(item(&l, "smt")->level, BT_CHECK_INFO);
	assert_int_equal(item(&l, "thp")->level, BT_CHECK_WARN);
	assert_int_equal(item(&l, "perf")->level, BT_CHECK_WARN);
	assert_int_equal(item(&l, "isolation")->level, BT_CHECK_INFO);
	assert_int_equal(item(&l, "busy")->level, BT_CHECK_WARN);
	assert_string_equal(item(&l, "busy")->value, "stress (42) 97%, dockerd (7) 12%");
	assert_int_equal(item(&l, "clocksource")->level, BT_CHECK_WARN);
	assert_int_equal(item(&l, "timer")->level, BT_CHECK_WARN);
	assert_int_equal(l.nwarn, 8);
	assert_int_equal(l.ninfo, 3);

	/* The header line: no busy list there (not measured for a run), the VM first. */
	bt_machine_summary(&si, 350, line, sizeof(line));
	assert_string_equal(line, "kvm VM, steal 0.25% so far; warnings: governor powersave, boost on, "
				  "THP always, perf closed, clock hpet, timer 350 ns");
	/* A short buffer truncates, terminated. */
	bt_machine_summary(&si, 350, line, 12);
	assert_int_equal(strlen(line), 11);
}

static void test_check_vm_low_steal(void **state)
{
	struct bt_sysinfo si;
	struct bt_check_list l;
	char line[128];

	quiet_box(&si);
	snprintf(si.virt, sizeof(si.virt), "kvm");
	si.steal_pct = 0.1;
	snprintf(si.governor, sizeof(si.governor), "unknown");
	snprintf(si.boost, sizeof(si.boost), "n/a");
	bt_machine_check(&si, 0, NULL, &l);
	assert_int_equal(item(&l, "vm")->level, BT_CHECK_INFO);
	assert_int_equal(item(&l, "governor")->level, BT_CHECK_INFO);
	assert_null(item(&l, "busy"));	/* not measured */
	assert_null(item(&l, "timer"));	/* unknown */
	assert_int_equal(l.nwarn, 0);
	bt_machine_summary(&si, 0, line, sizeof(line));
	assert_string_equal(line, "kvm VM, steal 0.10% so far; no warnings");
}

/* A recording from before the check: its fields are "", steal -1. */
static void test_old_recording(void **state)
{
	struct bt_sysinfo si;
	struct bt_check_list l;
	char line[64];

	memset(&si, 0, sizeof(si));
	snprintf(si.governor, sizeof(si.governor), "unknown");
	si.smt = 1;
	si.steal_pct = -1;
	bt_machine_summary(&si, 20, line, sizeof(line));
	assert_string_equal(line, "not recorded");
	bt_machine_check(&si, 20, NULL, &l);
	assert_null(item(&l, "vm"));
	assert_null(item(&l, "thp"));
	assert_null(item(&l, "clocksource"));
	assert_non_null(item(&l, "governor"));
	assert_non_null(item(&l, "timer"));
}

/* This machine, read for real: every fact filled, each a known form. */
static void test_collect_real(void **state)
{
	struct bt_sysinfo si;
	struct bt_busy b;
	struct bt_check_list l;

	memset(&si, 0, sizeof(si));
	bt_machine_collect(&si);
	assert_true(si.virt[0] != '\0');
	assert_true(si.container[0] != '\0');
	assert_true(si.steal_pct >= 0 && si.steal_pct <= 100);
	assert_true(!strcmp(si.boost, "on") || !strcmp(si.boost, "off") || !strcmp(si.boost, "n/a"));
	assert_true(si.thp[0] && si.aslr[0] && si.perf_paranoid[0] && si.isolated[0] &&
		    si.nohz_full[0] && si.clocksource[0]);
	assert_int_equal(bt_machine_busy(50, 5, &b), 0);
	assert_int_equal(b.measured, 1);
	assert_true(b.interval_s >= 0.049);
	assert_true(b.n >= 0 && b.n <= BT_BUSY_MAX);
	for (int i = 1; i < b.n; i++)
		assert_true(b.top[i - 1].cpu_pct >= b.top[i].cpu_pct);
	bt_machine_check(&si, 20, &b, &l);
	assert_non_null(item(&l, "vm"));
	assert_non_null(item(&l, "busy"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_choice),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_pid_stat),
		cmocka_unit_test(test_virt_names),
		cmocka_unit_test(test_check_quiet),
		cmocka_unit_test(test_check_noisy_vm),
		cmocka_unit_test(test_check_vm_low_steal),
		cmocka_unit_test(test_old_recording),
		cmocka_unit_test(test_collect_real),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
