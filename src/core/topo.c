/*
 * topo.c - the CPUs this process may run on, from hwloc.
 *
 * hwloc already drops PUs that the cgroup cpuset forbids; the process's own
 * affinity mask (taskset, numactl, a parent's pinning) is applied here on
 * top, because that is what sched_setaffinity will accept. Core, package and
 * NUMA node numbers are renumbered densely over the CPUs that remain, so a
 * pinning policy can use them as array indices (0..ncores-1 and so on).
 */
#include "core/topo.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

/*
 * The affinity mask of this process, sized for however many CPUs the kernel
 * has (a fixed cpu_set_t silently fails above 1024 CPUs). Returns a
 * CPU_ALLOC'd set and its size in *size, or NULL with errno set.
 */
static cpu_set_t *affinity_get(size_t *size, int *ncpus)
{
	for (int n = 1024; n <= (1 << 20); n *= 2) {
		size_t sz = CPU_ALLOC_SIZE(n);
		cpu_set_t *set = CPU_ALLOC(n);

		if (set == NULL)
			return NULL;
		CPU_ZERO_S(sz, set);
		if (sched_getaffinity(0, sz, set) == 0) {
			*size = sz;
			*ncpus = n;
			return set;
		}
		CPU_FREE(set);
		if (errno != EINVAL)
			return NULL;
	}
	errno = EINVAL;
	return NULL;
}

static int cmp_cpu_os(const void *a, const void *b)
{
	const struct bt_topo_cpu *x = a, *y = b;

	return (x->os > y->os) - (x->os < y->os);
}

/*
 * Map raw ids (hwloc logical indexes, -1 for "none") to dense 0..k-1 in
 * increasing order of the raw id; returns k. raw and out have n entries.
 */
static int densify(const int *raw, int *out, int n)
{
	int k = 0;
	int prev = -2;

	/* Repeatedly pick the smallest raw id above prev: n is small (CPUs). */
	for (;;) {
		int next = -2;

		for (int i = 0; i < n; i++)
			if (raw[i] > prev && (next == -2 || raw[i] < next))
				next = raw[i];
		if (next == -2)
			break;
		for (int i = 0; i < n; i++)
			if (raw[i] == next)
				out[i] = k;
		k++;
		prev = next;
	}
	return k;
}

/*
 * The NUMA node (logical index) whose CPU set holds PU os, or -1. hwloc 2
 * hangs NUMA nodes off the tree as memory children, so they are not
 * ancestors of a PU; search them directly.
 */
static int pu_node(hwloc_topology_t topo, unsigned os)
{
	hwloc_obj_t node = NULL;

	while ((node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, node)) != NULL)
		if (node->cpuset != NULL && hwloc_bitmap_isset(node->cpuset, os))
			return (int)node->logical_index;
	return -1;
}

int bt_topo_load(struct bt_topo *t, struct bt_err *err)
{
	hwloc_topology_t topo = NULL;
	cpu_set_t *mask = NULL;
	size_t masksz = 0;
	int maskn = 0;
	int *raw = NULL, *dense = NULL;
	int npu, n = 0, ret = 0;

	memset(t, 0, sizeof(*t));
	mask = affinity_get(&masksz, &maskn);
	if (mask == NULL) {
		ret = -errno;
		bt_err_set(err, ret, "sched_getaffinity: %s", strerror(errno));
		goto out;
	}
	if (hwloc_topology_init(&topo) < 0) {
		topo = NULL;
		ret = bt_err_set(err, -ENOMEM, "hwloc: cannot initialize the topology");
		goto out;
	}
	errno = 0;
	if (hwloc_topology_load(topo) < 0) {
		ret = errno > 0 ? -errno : -EIO;
		bt_err_set(err, ret, "hwloc: cannot load the topology: %s", strerror(-ret));
		goto out;
	}
	npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	if (npu <= 0) {
		ret = bt_err_set(err, -ENODEV, "hwloc: no processing units found");
		goto out;
	}
	t->cpus = calloc((size_t)npu, sizeof(*t->cpus));
	raw = calloc((size_t)npu * 3, sizeof(*raw));
	dense = calloc((size_t)npu * 3, sizeof(*dense));
	if (t->cpus == NULL || raw == NULL || dense == NULL) {
		ret = bt_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}

	for (int i = 0; i < npu; i++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
		hwloc_obj_t core, pkg;

		if (pu == NULL || pu->os_index >= (unsigned)maskn ||
		    !CPU_ISSET_S(pu->os_index, masksz, mask))
			continue;
		core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
		pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
		t->cpus[n].os = (int)pu->os_index;
		/* A PU without a core object is its own core; keep its id apart. */
		raw[n] = core ? (int)core->logical_index : 1000000 + (int)pu->logical_index;
		raw[npu + n] = pkg ? (int)pkg->logical_index : -1;
		raw[2 * npu + n] = pu_node(topo, pu->os_index);
		n++;
	}
	if (n == 0) {
		ret = bt_err_set(err, -ENODEV, "no CPU of this process's affinity mask is in the topology");
		goto out;
	}

	t->ncpus = n;
	t->ncores = densify(raw, dense, n);
	t->npackages = densify(raw + npu, dense + npu, n);
	t->nnodes = densify(raw + 2 * npu, dense + 2 * npu, n);
	for (int i = 0; i < n; i++) {
		t->cpus[i].core = dense[i];
		t->cpus[i].package = dense[npu + i];
		t->cpus[i].node = dense[2 * npu + i];
	}
	qsort(t->cpus, (size_t)n, sizeof(*t->cpus), cmp_cpu_os);
	/* SMT index: rank among the same core's PUs, in OS order. */
	for (int i = 0; i < n; i++) {
		int s = 0;

		for (int j = 0; j < i; j++)
			if (t->cpus[j].core == t->cpus[i].core)
				s++;
		t->cpus[i].smt = s;
	}
out:
	if (ret < 0) {
		free(t->cpus);
		memset(t, 0, sizeof(*t));
	}
	free(raw);
	free(dense);
	if (topo != NULL)
		hwloc_topology_destroy(topo);
	if (mask != NULL)
		CPU_FREE(mask);
	return ret;
}

void bt_topo_destroy(struct bt_topo *t)
{
	if (t == NULL)
		return;
	free(t->cpus);
	memset(t, 0, sizeof(*t));
}

static const char *plural(int n)
{
	return n == 1 ? "" : "s";
}

/*
 * One line for people: "8 CPUs: 4 cores x 2 threads, 1 package, 1 NUMA node".
 * Hybrid CPUs, or a mask that splits sibling threads, give "x 1-2 threads".
 */
void bt_topo_describe(const struct bt_topo *t, char *buf, size_t n)
{
	int lo = 0, hi = 0;
	char thr[32];

	if (n == 0)
		return;
	for (int c = 0; c < t->ncores; c++) {
		int k = 0;

		for (int i = 0; i < t->ncpus; i++)
			if (t->cpus[i].core == c)
				k++;
		if (c == 0 || k < lo)
			lo = k;
		if (k > hi)
			hi = k;
	}
	if (lo == hi)
		snprintf(thr, sizeof(thr), "%d thread%s", hi, plural(hi));
	else
		snprintf(thr, sizeof(thr), "%d-%d threads", lo, hi);
	snprintf(buf, n, "%d CPU%s: %d core%s x %s, %d package%s, %d NUMA node%s",
		 t->ncpus, plural(t->ncpus), t->ncores, plural(t->ncores), thr,
		 t->npackages, plural(t->npackages), t->nnodes, plural(t->nnodes));
}
