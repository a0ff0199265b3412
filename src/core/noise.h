/*
 * noise.h - what else the machine did while a rep ran: steal time (a VM's
 * neighbours), other runnable tasks, the CPU frequency, thermal throttling.
 *
 * Use:
 *
 *	struct bt_noise n;
 *	struct bt_noise_out out;
 *
 *	bt_noise_begin(&n);		// just before the rep starts
 *	... the rep runs; optionally, from a sampling thread:
 *	bt_noise_tick(&n, own);		// own = runnable threads that are the run's
 *	bt_noise_end(&n, &out);		// just after it ends
 *
 * begin/tick/end read /proc/stat, /proc/loadavg and a few /sys files (tens
 * of microseconds), never the workers' memory; a struct bt_noise belongs to
 * one thread at a time (tick and end must not race: the caller stops its
 * sampler first). Every figure is -1 (or 0 for the frequency) where the
 * machine does not expose it: a container without /sys, a VM without cpufreq.
 *
 * The parsers take text so that tests can feed them /proc-like strings.
 */
#ifndef BT_CORE_NOISE_H
#define BT_CORE_NOISE_H

#include <stddef.h>
#include <stdint.h>

/* The aggregate "cpu" line of /proc/stat (in clock ticks) and the run queue. */
struct bt_cpu_ticks {
	uint64_t total;		/* user + nice + system + idle + iowait + irq + softirq + steal */
	uint64_t idle;		/* idle + iowait */
	uint64_t steal;		/* time a hypervisor ran something else on our vCPUs */
	int procs_running;	/* runnable tasks now, the reader included; -1 absent */
};

/*
 * Parse /proc/stat text: the first "cpu " line (steal absent on old kernels
 * counts 0; guest time is already inside user) and "procs_running N".
 * Returns 0, or -EINVAL when there is no "cpu " line.
 */
int bt_noise_parse_stat(const char *text, struct bt_cpu_ticks *t);

/* Parse /proc/loadavg text ("0.52 0.58 0.59 3/467 12345"). 0 or -EINVAL. */
int bt_noise_parse_loadavg(const char *text, double *load1, int *running, int *total);

/*
 * The whole of a small text file (/proc, /sys) as a NUL-terminated string,
 * at most max bytes of it; NULL when it cannot be read. free() it.
 */
char *bt_noise_slurp(const char *path, size_t max);

/* One moment of the machine (what begin and end read). */
struct bt_noise_snap {
	uint64_t ns;			/* CLOCK_MONOTONIC */
	int have_stat;
	struct bt_cpu_ticks stat;
	double load1;			/* -1 unreadable */
	int64_t throttle;		/* sum of thermal_throttle counters; -1 none */
	double freq_mhz;		/* mean scaling_cur_freq over CPUs; 0 unreadable */
	int nfreq;			/* CPUs whose frequency was read */
};

struct bt_noise {
	struct bt_noise_snap begin;
	int runnable_max;		/* most other runnable tasks seen; -1 none yet */
	double runnable_sum;		/* over ticks */
	int nticks;
};

/* What happened over one interval. */
struct bt_noise_out {
	double seconds;			/* the interval */
	double steal_pct;		/* steal / all CPU time of the machine, %; -1 unreadable */
	double busy_pct;		/* non-idle CPU time of the whole machine (us and others), % */
	int runnable_max;		/* most runnable tasks not ours (begin, ticks, end); -1 */
	double runnable_mean;		/* mean of the same; -1 */
	double load1;			/* 1-minute load average at the end; -1 */
	double freq_mhz;		/* mean CPU frequency at the end; 0 unreadable */
	double freq_begin_mhz;		/* the same at the beginning */
	int64_t throttled;		/* throttle events in the interval; -1 no counters */
};

/* Read the machine now. */
void bt_noise_read(struct bt_noise_snap *s);

/*
 * The figures between a (earlier) and b (later). runnable_max/mean come
 * from the two snapshots only, each less the reader itself (1).
 */
void bt_noise_diff(const struct bt_noise_snap *a, const struct bt_noise_snap *b,
		   struct bt_noise_out *out);

/* Start an interval. */
void bt_noise_begin(struct bt_noise *n);

/*
 * Sample the run queue during the interval: own is how many runnable tasks
 * are the caller's (its workers plus the sampling thread itself).
 */
void bt_noise_tick(struct bt_noise *n, int own);

/* End the interval: out gets the figures (ticks included in runnable_*). */
void bt_noise_end(struct bt_noise *n, struct bt_noise_out *out);

#endif
