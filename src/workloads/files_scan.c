/*
 * files_scan.c - cache pollution: how much of a server's hot working set a
 * large sequential read (a backup job) leaves in the page cache.
 *
 * Before each rep the hot file (hot=, default 64 MiB) is read in, so it is
 * all resident, and the large file (size=, default 256 MiB) is dropped
 * (cache=cold, the default).
 * The worker then reads the large file once, buffer= at a time:
 *
 *   mode=buffered  read(2) through the page cache
 *   mode=direct    O_DIRECT: the page cache is not used at all
 *   mode=dontneed  read(2), then posix_fadvise(DONTNEED) on each buffer
 *                  just read: the pages are let go as it goes
 *
 * The read through the page cache says it is sequential first
 * (advice=sequential, POSIX_FADV_SEQUENTIAL: twice the readahead window), as
 * fio does by default (fadvise_hint) and cp does: on a busy machine the
 * larger window means fewer waits for I/O, and each wait is a wakeup that
 * may queue behind other work (without it, bench/files.sh's cold read fell
 * well behind fio's while the machine was busy). advice=none reads without.
 *
 * After the read, the metrics say how much of the hot file is still
 * resident (hot_resident, hot_pct) and how much of the large file the scan
 * left behind (scan_resident, scan_pct); scan_start and scan_start_pct say
 * how much of it was cached when the read began (cold: what the drop left).
 * With plenty of free memory nothing is evicted, whatever the mode: the
 * figure that tells the modes apart is then scan_pct, the cache the scan
 * took; make the large file larger than free memory to see the hot set
 * evicted.
 *
 * cache=warm reads the large file in instead of dropping it: a sequential
 * read from the page cache, the figure to set beside fio's on a cached file
 * (bench/files.sh). The buffer is allocated and touched in setup, so the
 * timed read takes no first-touch page faults.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engines/workload.h"
#include "workloads/files_data.h"

enum { P_MODE, P_SIZE, P_HOT, P_BUFFER, P_CACHE, P_ADVICE, P_SEED, P_DIR, P_KEEP, P_COUNT };
enum { MODE_BUFFERED, MODE_DIRECT, MODE_DONTNEED };
enum { XM_HOT_RES, XM_HOT, XM_HOT_PCT, XM_START, XM_START_PCT, XM_SCAN_RES, XM_SCAN, XM_SCAN_PCT, XM_COUNT };

#define DIRECT_ALIGN 4096

static const char *const mode_choices[] = { "buffered", "direct", "dontneed", NULL };
static const char *const advice_choices[] = { "sequential", "none", NULL };

static const struct bt_param params[] = {
	[P_MODE] = { .name = "mode", .kind = BT_P_ENUM, .def = "buffered", .choices = mode_choices,
		     .help = "buffered, direct (O_DIRECT), dontneed (DONTNEED each buffer after reading it)" },
	[P_SIZE] = { .name = "size", .kind = BT_P_SIZE, .def = "256M", .min = 4096, .max = 1ll << 40,
		     .help = "the large file read once per rep" },
	[P_HOT] = { .name = "hot", .kind = BT_P_SIZE, .def = "64M", .min = 4096, .max = 1ll << 40,
		    .help = "the hot working set, read in before each rep" },
	[P_BUFFER] = { .name = "buffer", .kind = BT_P_SIZE, .def = "1M", .min = 4096,
		       .max = 64 << 20, .ticks = "4K,64K,1M",
		       .help = "bytes per read (a multiple of 4K)" },
	[P_CACHE] = { .name = "cache", .kind = BT_P_ENUM, .def = "cold", .choices = bt_files_cache_choices,
		      .help = "the large file before each rep: cold (fsync + DONTNEED) or warm (read in: "
			      "a read from the page cache, as fio's on a cached file)" },
	[P_ADVICE] = { .name = "advice", .kind = BT_P_ENUM, .def = "sequential", .choices = advice_choices,
		       .help = "posix_fadvise on the large file before the read: sequential (what fio and cp "
			       "say: a doubled readahead window) or none" },
	[P_SEED] = BT_FILES_PARAM_SEED("seed of the generated files"),
	[P_DIR] = BT_FILES_PARAM_DIR,
	[P_KEEP] = BT_FILES_PARAM_KEEP,
};

static const struct bt_metric metrics[XM_COUNT] = {
	[XM_HOT_RES] = { .name = "hot_resident", .unit = "bytes", .kind = BT_MK_GAUGE,
			 .help = "bytes of the hot file still in the page cache after the scan" },
	[XM_HOT] = { .name = "hot", .unit = "bytes", .kind = BT_MK_GAUGE,
		     .help = "size of the hot file" },
	[XM_HOT_PCT] = { .name = "hot_pct", .unit = "%", .kind = BT_MK_RATIO, .num = "hot_resident",
			 .den = "hot", .help = "share of the hot set that survived the scan" },
	[XM_START] = { .name = "scan_start", .unit = "bytes", .kind = BT_MK_GAUGE,
		       .help = "bytes of the scanned file in the page cache when the scan began (cold: after the drop)" },
	[XM_START_PCT] = { .name = "scan_start_pct", .unit = "%", .kind = BT_MK_RATIO,
			   .num = "scan_start", .den = "scan",
			   .help = "share of the scanned file in the page cache when the scan began" },
	[XM_SCAN_RES] = { .name = "scan_resident", .unit = "bytes", .kind = BT_MK_GAUGE,
			  .help = "bytes of the scanned file left in the page cache" },
	[XM_SCAN] = { .name = "scan", .unit = "bytes", .kind = BT_MK_GAUGE,
		      .help = "size of the scanned file" },
	[XM_SCAN_PCT] = { .name = "scan_pct", .unit = "%", .kind = BT_MK_RATIO,
			  .num = "scan_resident", .den = "scan",
			  .help = "share of the scanned file the scan left in the page cache" },
};

struct scan_state {
	int mode;
	size_t buffer;
	struct bt_files *files;
	const struct bt_fdata *big, *hot;
	int in, hotfd;
	uint64_t hot_before;
	unsigned char *buf;	/* buffer bytes, aligned for O_DIRECT, touched by setup */
};

static int scan_check(const struct bt_value *const *p, struct bt_err *err)
{
	if (p[P_BUFFER]->i % DIRECT_ALIGN)
		return bt_err_set(err, -EINVAL, "buffer=%s: must be a multiple of 4K",
				  p[P_BUFFER]->text);
	return 0;
}

static int get_files(struct bt_files *f, const struct bt_value *const *p,
		     const struct bt_fdata **big, const struct bt_fdata **hot, struct bt_err *err)
{
	uint64_t seed = (uint64_t)p[P_SEED]->i;
	int rc = bt_files_bytes(f, (uint64_t)p[P_SIZE]->i, 2 * seed, big, err);

	return rc < 0 ? rc : bt_files_bytes(f, (uint64_t)p[P_HOT]->i, 2 * seed + 1, hot, err);
}

static int scan_run_setup(struct bt_run_ctx *run, struct bt_err *err)
{
	const struct bt_value *const *c0 = run->cells[0];
	struct bt_files *f;
	int rc;

	rc = bt_files_open(&f, c0[P_DIR]->text, "scan", (int)c0[P_KEEP]->i, err);
	for (int c = 0; c < run->ncells && rc == 0; c++) {
		const struct bt_fdata *b, *h;

		rc = get_files(f, run->cells[c], &b, &h, err);
	}
	if (rc < 0) {
		bt_files_close(f);
		return rc;
	}
	run->state = f;
	return 0;
}

static void scan_run_teardown(struct bt_run_ctx *run)
{
	bt_files_close(run->state);
	run->state = NULL;
}

static void scan_teardown(struct bt_job *job)
{
	struct scan_state *s = job->state;

	if (s == NULL)
		return;
	if (s->in >= 0)
		close(s->in);
	if (s->hotfd >= 0)
		close(s->hotfd);
	free(s->buf);
	free(s);
	job->state = NULL;
}

static int scan_setup(struct bt_job *job, struct bt_err *err)
{
	struct scan_state *s = calloc(1, sizeof(*s));
	uint64_t res;
	int rc, fd = -1;

	if (s == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	job->state = s;
	s->in = s->hotfd = -1;
	s->files = job->run_state;
	s->mode = (int)bt_job_param(job, P_MODE)->i;
	s->buffer = (size_t)bt_job_param(job, P_BUFFER)->i;
	rc = get_files(s->files, job->params, &s->big, &s->hot, err);
	/* The large file out of the cache (or all in: cache=warm), the hot one all in. */
	if (rc == 0)
		rc = bt_files_open_in(s->files, s->big, 0, &fd, err);
	if (rc == 0)
		rc = bt_files_cache(fd, bt_job_param(job, P_CACHE)->i == BT_CACHE_COLD, &res, err);
	if (rc == 0)
		rc = bt_files_open_in(s->files, s->hot, 0, &s->hotfd, err);
	if (rc == 0)
		rc = bt_files_cache(s->hotfd, 0, &s->hot_before, err);
	if (rc == 0 && s->mode == MODE_DIRECT)
		rc = bt_files_open_in(s->files, s->big, 1, &s->in, err);
	else if (rc == 0)
		s->in = fd, fd = -1;
	if (fd >= 0)
		close(fd);
	/* Like fio (fadvise_hint) and cp: the read is sequential, and says so. */
	if (rc == 0 && s->mode != MODE_DIRECT && bt_job_param(job, P_ADVICE)->i == 0)
		posix_fadvise(s->in, 0, 0, POSIX_FADV_SEQUENTIAL);
	/*
	 * The buffer is made and touched here, not in the worker: its first-touch
	 * page faults are not the read's (fio, too, allocates before it times).
	 */
	if (rc == 0 && posix_memalign((void **)&s->buf, DIRECT_ALIGN, s->buffer) != 0)
		rc = bt_err_set(err, -ENOMEM, "out of memory for buffer=%zu", s->buffer);
	if (rc == 0)
		memset(s->buf, 0, s->buffer);
	if (rc < 0) {
		scan_teardown(job);
		return rc;
	}
	bt_job_metric(job, XM_START, res);
	bt_job_metric(job, XM_HOT, s->hot->size);
	bt_job_metric(job, XM_SCAN, s->big->size);
	job->nworkers = 1;
	job->total_ops = s->big->size;
	return 0;
}

static int scan_worker(struct bt_worker *w)
{
	struct scan_state *s = w->job->state;
	unsigned char *buf = s->buf;
	uint64_t off = 0;
	int rc = 0;

	while (off < s->big->size && !bt_worker_stop_raised(w)) {
		uint64_t t = bt_lat_begin(w);
		ssize_t n = read(s->in, buf, s->buffer);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = bt_worker_fail(w, "read %s: %s (at byte %" PRIu64 ")", s->big->path,
					    n < 0 ? strerror(errno) : "unexpected end of file", off);
			break;
		}
		if (s->mode == MODE_DONTNEED)
			posix_fadvise(s->in, (off_t)off, n, POSIX_FADV_DONTNEED);
		bt_lat_end(w, t);
		off += (uint64_t)n;
		bt_worker_ops(w, (uint64_t)n);
		bt_worker_bytes(w, (uint64_t)n);
	}
	return rc;
}

/* What the scan left: the hot set's residency and its own. */
static int scan_verify(struct bt_job *job, struct bt_err *err)
{
	struct scan_state *s = job->state;
	uint64_t hot = 0, scan = 0;
	int fd, rc;

	rc = bt_pagecache_resident(s->hotfd, &hot, err);
	if (rc == 0)
		rc = bt_files_open_in(s->files, s->big, 0, &fd, err);
	if (rc < 0)
		return rc;
	rc = bt_pagecache_resident(fd, &scan, err);
	close(fd);
	if (rc < 0)
		return rc;
	bt_job_metric(job, XM_HOT_RES, hot);
	bt_job_metric(job, XM_SCAN_RES, scan);
	return bt_err_set(err, 0,
			  "ok: %" PRIu64 " bytes read %s; hot set %.0f%% resident after (%.0f%% before), the scan left %.0f%% of its file cached",
			  s->big->size, mode_choices[s->mode],
			  100.0 * (double)hot / (double)s->hot->size,
			  100.0 * (double)s->hot_before / (double)s->hot->size,
			  100.0 * (double)scan / (double)s->big->size);
}

const struct bt_workload bt_wl_scan = {
	.name = "scan",
	.group = "files",
	.title = "cache pollution: a large read (buffered, O_DIRECT, DONTNEED) against a hot set",
	.unit = "bytes",
	.lat_what = "one read of buffer= bytes",
	.params = params,
	.nparams = P_COUNT,
	.metrics = metrics,
	.nmetrics = XM_COUNT,
	.baseline = "mode=buffered",
	.check = scan_check,
	.run_setup = scan_run_setup,
	.run_teardown = scan_run_teardown,
	.setup = scan_setup,
	.worker = scan_worker,
	.verify = scan_verify,
	.teardown = scan_teardown,
};
