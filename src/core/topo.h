/*
 * topo.h - CPU topology from hwloc: which logical CPUs (PUs) this process may
 * use, which core, package and NUMA node each belongs to.
 */
#ifndef BT_CORE_TOPO_H
#define BT_CORE_TOPO_H

#include <stddef.h>

#include "core/err.h"

struct bt_topo_cpu {
	int os;		/* OS CPU number (what sched_setaffinity and sched_getcpu use) */
	int core;	/* logical core index, 0..ncores-1 */
	int package;	/* package index */
	int node;	/* NUMA node index (0 when none) */
	int smt;	/* index of this PU among its core's PUs */
};

struct bt_topo {
	int ncpus;			/* allowed PUs */
	struct bt_topo_cpu *cpus;	/* [ncpus], sorted by os */
	int ncores, npackages, nnodes;
};

/* Load the allowed topology. 0 or negative with err set. */
int bt_topo_load(struct bt_topo *t, struct bt_err *err);
void bt_topo_destroy(struct bt_topo *t);

/* "2 CPUs: 2 cores x 1 thread, 1 package, 1 NUMA node" */
void bt_topo_describe(const struct bt_topo *t, char *buf, size_t n);

#endif
