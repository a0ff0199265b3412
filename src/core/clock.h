/*
 * clock.h - clocks for measurement.
 *
 * Intervals use CLOCK_MONOTONIC. The cost of one clock read is measured once
 * at start (bt_clock_read_cost_ns) and carried in every recording, because
 * it bounds how short an operation can be timed honestly.
 */
#ifndef BT_CORE_CLOCK_H
#define BT_CORE_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

static inline uint64_t bt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds since the Unix epoch (CLOCK_REALTIME), for timestamps only. */
uint64_t bt_unix_ns(void);

/*
 * Measure the cost of one CLOCK_MONOTONIC read in ns: the minimum over a few
 * trials of the mean over many back-to-back reads. Takes about a millisecond.
 */
double bt_clock_read_cost_ns(void);

/*
 * epoll_wait(ep, ev, n) with a timeout in nanoseconds (epoll_pwait2) where
 * the kernel has it, else rounded up to a millisecond: an open-loop
 * schedule at tens of thousands of sends per second needs the former.
 */
struct epoll_event;
int bt_epoll_wait_ns(int ep, struct epoll_event *ev, int n, uint64_t ns);

/* Format a Unix time in ns as ISO 8601 UTC ("2026-11-30T01:02:03Z"). */
void bt_format_utc(uint64_t unix_ns, char *buf, size_t n);

#endif
