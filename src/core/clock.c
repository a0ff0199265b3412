#include "core/clock.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/epoll.h>

int bt_epoll_wait_ns(int ep, struct epoll_event *ev, int n, uint64_t ns)
{
	static _Atomic int no_pwait2;
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	int r;

	if (!atomic_load_explicit(&no_pwait2, memory_order_relaxed)) {
		r = epoll_pwait2(ep, ev, n, &ts, NULL);
		if (r >= 0 || errno != ENOSYS)
			return r;
		atomic_store(&no_pwait2, 1);
	}
	return epoll_wait(ep, ev, n, (int)((ns + 999999) / 1000000));
}

uint64_t bt_unix_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double bt_clock_read_cost_ns(void)
{
	enum { READS = 20000, TRIALS = 5 };
	double best = 1e30;
	volatile uint64_t sink = 0;

	for (int t = 0; t < TRIALS; t++) {
		uint64_t t0 = bt_now_ns();
		for (int i = 0; i < READS; i++)
			sink += bt_now_ns();
		uint64_t t1 = bt_now_ns();
		double per = (double)(t1 - t0) / READS;
		if (per < best)
			best = per;
	}
	(void)sink;
	return best;
}

static void utc(uint64_t unix_ns, struct tm *tm)
{
	time_t s = (time_t)(unix_ns / 1000000000u);

	gmtime_r(&s, tm);
}

void bt_format_utc(uint64_t unix_ns, char *buf, size_t n)
{
	struct tm tm;

	utc(unix_ns, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
