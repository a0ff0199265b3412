/*
 * noise.c - the machine's noise over an interval (see noise.h).
 */
#include "core/noise.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"

char *bt_noise_slurp(const char *path, size_t max)
{
	size_t cap = 4096, len = 0;
	char *buf = NULL, *grown;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return NULL;
	/* /proc files say size 0: read until EOF, growing the buffer. */
	for (;;) {
		ssize_t r;

		if (len + 1 >= cap || buf == NULL) {
			if (buf != NULL)
				cap *= 2;
			grown = realloc(buf, cap);
			if (grown == NULL)
				goto fail;
			buf = grown;
		}
		if (len >= max)
			break;
		r = read(fd, buf + len, (cap - 1 - len) < max - len ? cap - 1 - len : max - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
fail:
	close(fd);
	free(buf);
	return NULL;
}

/* The line of text starting with key (at a line start), or NULL. */
static const char *find_line(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = text; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, key, klen) == 0)
			return p;
	return NULL;
}

int bt_noise_parse_stat(const char *text, struct bt_cpu_ticks *t)
{
	unsigned long long v[8] = { 0 };
	const char *p = find_line(text, "cpu ");
	int n, running;

	memset(t, 0, sizeof(*t));
	t->procs_running = -1;
	if (p == NULL)
		return -EINVAL;
	n = sscanf(p + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	if (n < 4)
		return -EINVAL;
	for (int i = 0; i < 8; i++)
		t->total += v[i];
	t->idle = v[3] + v[4];
	t->steal = v[7];
	p = find_line(text, "procs_running ");
	if (p != NULL && sscanf(p + 14, "%d", &running) == 1 && running >= 0)
		t->procs_running = running;
	return 0;
}

int bt_noise_parse_loadavg(const char *text, double *load1, int *running, int *total)
{
	double l1, l5, l15;
	int r, tot;

	if (sscanf(text, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &r, &tot) != 5 || l1 < 0 || r < 0)
		return -EINVAL;
	*load1 = l1;
	*running = r;
	*total = tot;
	return 0;
}

/* A /sys file holding one unsigned number; -1 when absent or not a number. */
static long long read_number(const char *path)
{
	char *text = bt_noise_slurp(path, 64), *end;
	long long v;

	if (text == NULL)
		return -1;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (end == text || errno || v < 0)
		v = -1;
	free(text);
	return v;
}

/*
 * Every CPU's current frequency and throttle counters. CPUs are numbered
 * from 0 without holes up to the configured count on Linux; an offline one
 * simply has no cpufreq directory.
 */
static void read_cpus(struct bt_noise_snap *s)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	double khz = 0;

	s->throttle = -1;
	s->nfreq = 0;
	for (long c = 0; c < ncpu && c < 4096; c++) {
		static const char *const thr[] = { "core_throttle_count", "package_throttle_count" };
		char path[128];
		long long v;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/cpufreq/scaling_cur_freq", c);
		if ((v = read_number(path)) > 0) {
			khz += (double)v;
			s->nfreq++;
		}
		for (int k = 0; k < 2; k++) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/thermal_throttle/%s",
				 c, thr[k]);
			if ((v = read_number(path)) >= 0)
				s->throttle = (s->throttle < 0 ? 0 : s->throttle) + v;
		}
	}
	s->freq_mhz = s->nfreq ? khz / s->nfreq / 1000.0 : 0;
}

void bt_noise_read(struct bt_noise_snap *s)
{
	char *text;
	int running, total;

	memset(s, 0, sizeof(*s));
	s->ns = bt_now_ns();
	s->load1 = -1;
	s->stat.procs_running = -1;
	if ((text = bt_noise_slurp("/proc/stat", 1u << 20)) != NULL) {
		s->have_stat = bt_noise_parse_stat(text, &s->stat) == 0;
		free(text);
	}
	if ((text = bt_noise_slurp("/proc/loadavg", 256)) != NULL) {
		if (bt_noise_parse_loadavg(text, &s->load1, &running, &total) < 0)
			s->load1 = -1;
		free(text);
	}
	read_cpus(s);
}

/* Runnable tasks not the reader's: procs_running counts the reading thread itself. */
static int others(int procs_running, int own)
{
	if (procs_running < 0)
		return -1;
	return procs_running - own > 0 ? procs_running - own : 0;
}

void bt_noise_diff(const struct bt_noise_snap *a, const struct bt_noise_snap *b,
		   struct bt_noise_out *out)
{
	int ra = others(a->stat.procs_running, 1), rb = others(b->stat.procs_running, 1);

	memset(out, 0, sizeof(*out));
	out->seconds = b->ns > a->ns ? (double)(b->ns - a->ns) / 1e9 : 0;
	out->steal_pct = -1;
	out->busy_pct = -1;
	if (a->have_stat && b->have_stat && b->stat.total > a->stat.total &&
	    b->stat.steal >= a->stat.steal && b->stat.idle >= a->stat.idle) {
		double all = (double)(b->stat.total - a->stat.total);

		out->steal_pct = 100.0 * (double)(b->stat.steal - a->stat.steal) / all;
		out->busy_pct = 100.0 * (all - (double)(b->stat.idle - a->stat.idle)) / all;
	}
	out->runnable_max = ra > rb ? ra : rb;
	out->runnable_mean = ra < 0 ? rb : rb < 0 ? ra : (ra + rb) / 2.0;
	out->load1 = b->load1;
	out->freq_mhz = b->freq_mhz;
	out->freq_begin_mhz = a->freq_mhz;
	out->throttled = a->throttle >= 0 && b->throttle >= a->throttle ? b->throttle - a->throttle : -1;
}

void bt_noise_begin(struct bt_noise *n)
{
	memset(n, 0, sizeof(*n));
	n->runnable_max = -1;
	bt_noise_read(&n->begin);
}

void bt_noise_tick(struct bt_noise *n, int own)
{
	char *text = bt_noise_slurp("/proc/loadavg", 256);
	double load1;
	int running, total, r;

	if (text == NULL)
		return;
	/* loadavg's running count is procs_running, without reading all of /proc/stat. */
	if (bt_noise_parse_loadavg(text, &load1, &running, &total) == 0) {
		r = others(running, own);
		if (r > n->runnable_max)
			n->runnable_max = r;
		n->runnable_sum += r;
		n->nticks++;
	}
	free(text);
}

void bt_noise_end(struct bt_noise *n, struct bt_noise_out *out)
{
	struct bt_noise_snap end;
	int ra = others(n->begin.stat.procs_running, 1);

	bt_noise_read(&end);
	bt_noise_diff(&n->begin, &end, out);
	if (n->nticks > 0) {
		int rb = others(end.stat.procs_running, 1), k = n->nticks;
		double sum = n->runnable_sum;

		if (n->runnable_max > out->runnable_max)
			out->runnable_max = n->runnable_max;
		if (ra >= 0) {
			sum += ra;
			k++;
		}
		if (rb >= 0) {
			sum += rb;
			k++;
		}
		out->runnable_mean = sum / k;
	}
}
