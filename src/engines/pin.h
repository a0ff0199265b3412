/*
 * pin.h - CPU pinning policies over the real topology.
 *
 *   none          no pinning
 *   compact       fill a core's hardware threads before the next core,
 *                 cores in order (threads share caches)
 *   scatter       one thread per core first, spread across packages and
 *                 NUMA nodes, then the second hardware thread of each core
 *   list:0,2,4-7  these OS CPU numbers, in this order
 * Worker i gets entry i % n of the policy's order: more threads than CPUs is
 * allowed and wraps around.
 */
#ifndef BT_ENGINES_PIN_H
#define BT_ENGINES_PIN_H

#include "core/err.h"
#include "core/topo.h"

/* Parameter check for the pin parameter's text. 0 or -EINVAL with err set. */
int bt_pin_check(const char *text, struct bt_err *err);

/*
 * The CPU for each of n workers under policy text, into cpus[0..n-1]
 * (-1 everywhere for none). A list naming a CPU this process may not use is
 * an error ("pin=list:9: CPU 9 is not available (allowed: 0-1)").
 */
int bt_pin_plan(const struct bt_topo *t, const char *text, int n, int *cpus, struct bt_err *err);

/* Pin the calling thread to cpu (no-op for -1). 0 or -errno. */
int bt_pin_self(int cpu);

#endif
