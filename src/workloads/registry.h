/*
 * registry.h - the table of workloads. A new workload is one file plus one
 * line in registry.c.
 */
#ifndef BT_WORKLOADS_REGISTRY_H
#define BT_WORKLOADS_REGISTRY_H

#include <stddef.h>

#include "engines/workload.h"

extern const struct bt_workload *const bt_workloads[];
extern const size_t bt_nworkloads;

/* By name; NULL if none. */
const struct bt_workload *bt_workload_find(const char *name);

#endif
