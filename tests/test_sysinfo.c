/*
 * test_sysinfo.c - machine description and CPU topology.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/sysinfo.h"
#include "core/topo.h"

static int affinity_count(cpu_set_t *set)
{
	CPU_ZERO(set);
	assert_int_equal(sched_getaffinity(0, sizeof(*set), set), 0);
	return CPU_COUNT(set);
}

static void test_collect(void **state)
{
	struct bt_sysinfo si;
	cpu_set_t set;

	(void)state;
	assert_int_equal(bt_sysinfo_collect(&si), 0);
	assert_int_equal(si.logical_cpus, (int)sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(si.allowed_cpus, affinity_count(&set));
	assert_true(si.allowed_cpus >= 1);
	assert_true(si.allowed_cpus <= si.logical_cpus);
	assert_true(si.cpu_model[0] != '\0');
	assert_true(si.host[0] != '\0');
	assert_true(si.arch[0] != '\0');
	assert_true(si.kernel[0] != '\0');
	assert_true(si.governor[0] != '\0');
	assert_true(si.physical_cores >= 1);
	assert_true(si.physical_cores <= si.logical_cpus);
	assert_true(si.smt >= 1);
	assert_true(si.packages >= 1);
	assert_true(si.numa_nodes >= 1);
	assert_true(si.mem_total > 0);
	assert_non_null(strstr(si.compiler, "gcc"));
	assert_non_null(strstr(si.openssl, "OpenSSL"));
	assert_true(si.libc[0] != '\0');
	assert_true(si.jansson[0] != '\0');
	assert_true(si.hwloc[0] != '\0');
	assert_true(si.benchtop[0] != '\0');
	/* Flags are whole words from the notable list, space-separated. */
	if (si.cpu_flags[0] != '\0') {
		char copy[sizeof(si.cpu_flags)];
		char *save = NULL;

		memcpy(copy, si.cpu_flags, sizeof(copy));
		for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
			assert_non_null(strstr(" aes sha_ni avx avx2 avx512f pclmulqdq rdrand ", w));
	}
}

static void test_fields_table(void **state)
{
	(void)state;
	assert_int_equal(bt_sysinfo_nfields, 32);
	assert_string_equal(bt_sysinfo_fields[0].name, "host");
	assert_int_equal(bt_sysinfo_fields[0].kind, 's');
	assert_int_equal(bt_sysinfo_fields[0].size, sizeof(((struct bt_sysinfo *)0)->host));
	for (size_t i = 0; i < bt_sysinfo_nfields; i++) {
		const struct bt_sysinfo_field *f = &bt_sysinfo_fields[i];

		assert_true(f->off + f->size <= sizeof(struct bt_sysinfo));
		if (strcmp(f->name, "mem_total") == 0) {
			assert_int_equal(f->kind, 'u');
			assert_int_equal(f->off, offsetof(struct bt_sysinfo, mem_total));
		}
		if (strcmp(f->name, "steal_pct") == 0) {
			assert_int_equal(f->kind, 'd');
			assert_int_equal(f->size, sizeof(double));
		}
		if (strcmp(f->name, "smt") == 0) {
			assert_int_equal(f->kind, 'i');
			assert_int_equal(f->off, offsetof(struct bt_sysinfo, smt));
		}
	}
}

static void test_diff(void **state)
{
	struct bt_sysinfo a, b;
	char buf[1024];

	(void)state;
	assert_int_equal(bt_sysinfo_collect(&a), 0);
	b = a;
	assert_int_equal(bt_sysinfo_diff(&a, &b, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");

	snprintf(b.governor, sizeof(b.governor), "powersave-test");
	b.smt = a.smt + 1;
	assert_int_equal(bt_sysinfo_diff(&a, &b, buf, sizeof(buf)), 2);
	assert_non_null(strstr(buf, "governor: "));
	assert_non_null(strstr(buf, "-> powersave-test"));
	assert_non_null(strstr(buf, "smt: "));
	assert_non_null(strchr(buf, '\n'));

	/* host and mem_total do not change numbers: not a difference. */
	snprintf(b.host, sizeof(b.host), "otherhost");
	b.mem_total = a.mem_total + 4096;
	assert_int_equal(bt_sysinfo_diff(&a, &b, buf, sizeof(buf)), 2);
	assert_null(strstr(buf, "host"));

	/* Steal is the neighbours, not the machine; a field an old recording lacks is no difference. */
	b.steal_pct = a.steal_pct + 5;
	b.thp[0] = '\0';
	assert_int_equal(bt_sysinfo_diff(&a, &b, buf, sizeof(buf)), 2);
	snprintf(b.thp, sizeof(b.thp), "%s", strcmp(a.thp, "always") ? "always" : "never");
	assert_int_equal(bt_sysinfo_diff(&a, &b, buf, sizeof(buf)), 3);
	assert_non_null(strstr(buf, "thp: "));
	b.thp[0] = '\0';

	/* A small buffer truncates the text but not the count. */
	assert_int_equal(bt_sysinfo_diff(&a, &b, buf, 8), 2);
	assert_true(strlen(buf) < 8);
}

static void test_topo(void **state)
{
	struct bt_topo t;
	struct bt_err err = { "" };
	cpu_set_t set;
	int n = affinity_count(&set);
	char desc[128];

	(void)state;
	assert_int_equal(bt_topo_load(&t, &err), 0);
	assert_int_equal(t.ncpus, n);
	assert_non_null(t.cpus);
	assert_true(t.ncores >= 1 && t.ncores <= t.ncpus);
	assert_true(t.npackages >= 1 && t.npackages <= t.ncores);
	assert_true(t.nnodes >= 1);
	for (int i = 0; i < t.ncpus; i++) {
		const struct bt_topo_cpu *c = &t.cpus[i];

		assert_true(CPU_ISSET(c->os, &set));
		if (i > 0)
			assert_true(c->os > t.cpus[i - 1].os);
		assert_in_range(c->core, 0, t.ncores - 1);
		assert_in_range(c->package, 0, t.npackages - 1);
		assert_in_range(c->node, 0, t.nnodes - 1);
		assert_true(c->smt >= 0);
	}
	/* Every core index is used, and each core has exactly one smt 0. */
	for (int c = 0; c < t.ncores; c++) {
		int first = 0;

		for (int i = 0; i < t.ncpus; i++)
			if (t.cpus[i].core == c && t.cpus[i].smt == 0)
				first++;
		assert_int_equal(first, 1);
	}
	bt_topo_describe(&t, desc, sizeof(desc));
	assert_non_null(strstr(desc, t.ncpus == 1 ? "1 CPU:" : " CPUs: "));
	assert_non_null(strstr(desc, "NUMA node"));
	bt_topo_destroy(&t);
	assert_null(t.cpus);
	assert_int_equal(t.ncpus, 0);
}

/* Restricting the affinity mask to one CPU restricts the topology to it. */
static void test_topo_affinity(void **state)
{
	struct bt_topo t;
	struct bt_err err = { "" };
	cpu_set_t all, one;
	int first = -1;
	char desc[128];

	(void)state;
	affinity_count(&all);
	for (int i = 0; i < CPU_SETSIZE && first < 0; i++)
		if (CPU_ISSET(i, &all))
			first = i;
	assert_true(first >= 0);
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	assert_int_equal(bt_topo_load(&t, &err), 0);
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
	assert_int_equal(t.ncpus, 1);
	assert_int_equal(t.ncores, 1);
	assert_int_equal(t.npackages, 1);
	assert_int_equal(t.nnodes, 1);
	assert_int_equal(t.cpus[0].os, first);
	assert_int_equal(t.cpus[0].core, 0);
	assert_int_equal(t.cpus[0].smt, 0);
	bt_topo_describe(&t, desc, sizeof(desc));
	assert_string_equal(desc, "1 CPU: 1 core x 1 thread, 1 package, 1 NUMA node");
	bt_topo_destroy(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_fields_table),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_topo),
		cmocka_unit_test(test_topo_affinity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
