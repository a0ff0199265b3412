/*
 * files_grep.c - grep: count the lines holding a fixed string in a set of
 * text files (the classic experiment: files= files, default 20, of 4 KiB
 * up to size=, default 1 MiB, in geometric steps).
 *
 *   how=sequential  one worker reads and searches every file in turn
 *   how=threads     one thread per file
 *   how=processes   one forked process per file: the processes engine,
 *                   chosen by the value itself (engine_for; as= may
 *                   repeat it, never contradict it)
 *
 * Each worker reads its file whole with read(2) and counts the lines that
 * hold pattern= with memmem (grep -F -c semantics). The count is metric
 * matches; verify compares it, file by file, with a reference count made
 * per cell by a plain getline + strstr pass. Ops are bytes searched.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engines/engine.h"
#include "engines/workload.h"
#include "workloads/files_data.h"

enum { P_HOW, P_PATTERN, P_FILES, P_SIZE, P_CACHE, P_SEED, P_DIR, P_KEEP, P_COUNT };
enum { H_SEQUENTIAL, H_THREADS, H_PROCESSES };
enum { GM_MATCHES, GM_RESIDENT, GM_FILE, GM_RESIDENT_PCT, GM_COUNT };

#define MAX_FILES 256
#define MIN_FILE 4096

static const char *const how_choices[] = { "sequential", "threads", "processes", NULL };

static int pattern_check(const char *text, struct bt_err *err)
{
	if (text[0] == '\0' || strchr(text, '\n') != NULL)
		return bt_err_set(err, -EINVAL, "pattern=%s: must be one line, not empty", text);
	return 0;
}

static const struct bt_param params[] = {
	[P_HOW] = { .name = "how", .kind = BT_P_ENUM, .def = "sequential", .choices = how_choices,
		    .help = "sequential (one worker), threads (one thread per file), processes (one "
			    "forked process per file)" },
	[P_PATTERN] = { .name = "pattern", .kind = BT_P_STRING, .def = "needle",
			.help = "fixed string; lines holding it are counted", .check = pattern_check },
	[P_FILES] = { .name = "files", .kind = BT_P_INT, .def = "20", .min = 1, .max = MAX_FILES,
		      .help = "text files searched", .ticks = "1,5,20,100" },
	[P_SIZE] = { .name = "size", .kind = BT_P_SIZE, .def = "1M", .min = 1, .max = 1ll << 30,
		     .help = "the largest file; the others step down geometrically to 4K" },
	[P_CACHE] = BT_FILES_PARAM_CACHE,
	[P_SEED] = BT_FILES_PARAM_SEED("seed of the generated text"),
	[P_DIR] = BT_FILES_PARAM_DIR,
	[P_KEEP] = BT_FILES_PARAM_KEEP,
};

static const struct bt_metric metrics[GM_COUNT] = {
	[GM_MATCHES] = { .name = "matches", .unit = "lines", .kind = BT_MK_COUNTER,
			 .help = "lines holding the pattern, all files" },
	[GM_RESIDENT] = { .name = "resident", .unit = "bytes", .kind = BT_MK_GAUGE,
			  .help = "bytes of the files in the page cache at the rep's start" },
	[GM_FILE] = { .name = "file", .unit = "bytes", .kind = BT_MK_GAUGE,
		      .help = "bytes of the files" },
	[GM_RESIDENT_PCT] = { .name = "resident_pct", .unit = "%", .kind = BT_MK_RATIO,
			      .num = "resident", .den = "file",
			      .help = "share of the files in the page cache at the rep's start" },
};

/* The cell: its file set and the reference counts. */
struct grep_cell {
	int n;
	const struct bt_fdata *file[MAX_FILES];
	uint64_t ref[MAX_FILES], ref_total, bytes;
};

struct grep_state {
	struct bt_files *files;
	struct grep_cell *cell;
	char pattern[BT_VALUE_TEXT];
	size_t plen;
	uint64_t *count;	/* [n], shared: each file's count, by its worker */
	int nworkers;
	uint64_t resident;
};

static int grep_check(const struct bt_value *const *p, struct bt_err *err)
{
	return pattern_check(p[P_PATTERN]->text, err);
}

/* File k of n: 4K * (size/4K)^(k/(n-1)), the last one size itself. */
static uint64_t file_size(int k, int n, uint64_t max)
{
	double r;

	if (max <= MIN_FILE || n == 1 || k == n - 1)
		return max;
	r = pow((double)max / MIN_FILE, (double)k / (n - 1));
	return (uint64_t)(MIN_FILE * r);
}

/* The set of cell values p, generated on first use. */
static int get_set(struct bt_files *f, const struct bt_value *const *p, struct grep_cell *c,
		   struct bt_err *err)
{
	uint64_t max = (uint64_t)p[P_SIZE]->i, seed = (uint64_t)p[P_SEED]->i;
	int rc = 0;

	c->n = (int)p[P_FILES]->i;
	c->bytes = 0;
	for (int k = 0; k < c->n && rc == 0; k++) {
		rc = bt_files_text(f, file_size(k, c->n, max), seed * 1000003u + (uint64_t)k,
				   &c->file[k], err);
		if (rc == 0)
			c->bytes += c->file[k]->size;
	}
	return rc;
}

static int grep_run_setup(struct bt_run_ctx *run, struct bt_err *err)
{
	const struct bt_value *const *c0 = run->cells[0];
	struct grep_cell *c = malloc(sizeof(*c));
	struct bt_files *f = NULL;
	int rc;

	if (c == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	rc = bt_files_open(&f, c0[P_DIR]->text, "grep", (int)c0[P_KEEP]->i, err);
	for (int i = 0; i < run->ncells && rc == 0; i++)
		rc = get_set(f, run->cells[i], c, err);
	free(c);
	if (rc < 0) {
		bt_files_close(f);
		return rc;
	}
	run->state = f;
	return 0;
}

static void grep_run_teardown(struct bt_run_ctx *run)
{
	bt_files_close(run->state);
	run->state = NULL;
}

/* The reference: getline + strstr, a different path from the workers' memmem. */
static int reference(struct bt_files *f, const struct bt_fdata *d, const char *pat,
		     uint64_t *count, struct bt_err *err)
{
	char *line = NULL;
	size_t cap = 0;
	int fd, rc = 0;
	FILE *fp;

	*count = 0;
	rc = bt_files_open_in(f, d, 0, &fd, err);
	if (rc < 0)
		return rc;
	fp = fdopen(fd, "r");
	if (fp == NULL) {
		close(fd);
		return bt_err_set(err, -errno, "%s: %s", d->path, strerror(errno));
	}
	while (getline(&line, &cap, fp) > 0)
		*count += strstr(line, pat) != NULL;
	if (ferror(fp))
		rc = bt_err_set(err, -EIO, "%s: read error", d->path);
	free(line);
	fclose(fp);
	return rc;
}

static int grep_cell_setup(struct bt_job *cell, struct bt_err *err)
{
	struct grep_cell *c = calloc(1, sizeof(*c));
	int rc;

	if (c == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	rc = get_set(cell->run_state, cell->params, c, err);
	for (int k = 0; k < c->n && rc == 0; k++) {
		rc = reference(cell->run_state, c->file[k], bt_job_param(cell, P_PATTERN)->text,
			       &c->ref[k], err);
		c->ref_total += c->ref[k];
	}
	if (rc < 0) {
		free(c);
		return rc;
	}
	cell->cell_state = c;
	return 0;
}

static void grep_cell_teardown(struct bt_job *cell)
{
	free(cell->cell_state);
	cell->cell_state = NULL;
}

static void grep_teardown(struct bt_job *job)
{
	free(job->state);
	job->state = NULL;
}

static int grep_setup(struct bt_job *job, struct bt_err *err)
{
	struct grep_state *s = calloc(1, sizeof(*s));
	int how = (int)bt_job_param(job, P_HOW)->i, cold, rc = 0;

	if (s == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	job->state = s;
	s->files = job->run_state;
	s->cell = job->cell_state;
	snprintf(s->pattern, sizeof(s->pattern), "%s", bt_job_param(job, P_PATTERN)->text);
	s->plen = strlen(s->pattern);
	s->nworkers = how == H_SEQUENTIAL ? 1 : s->cell->n;
	s->count = bt_job_shared_alloc(job, (size_t)s->cell->n * sizeof(*s->count));
	if (s->count == NULL) {
		rc = bt_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	cold = bt_job_param(job, P_CACHE)->i == BT_CACHE_COLD;
	for (int k = 0; k < s->cell->n && rc == 0; k++) {
		uint64_t res = 0;
		int fd;

		rc = bt_files_open_in(s->files, s->cell->file[k], 0, &fd, err);
		if (rc < 0)
			break;
		rc = bt_files_cache(fd, cold, &res, err);
		close(fd);
		s->resident += res;
	}
	if (rc < 0)
		goto fail;
	bt_job_metric(job, GM_RESIDENT, s->resident);
	bt_job_metric(job, GM_FILE, s->cell->bytes);
	job->nworkers = s->nworkers;
	job->total_ops = s->cell->bytes;
	return 0;
fail:
	grep_teardown(job);
	return rc;
}

/* how=threads and how=processes name their engine; sequential runs on either. */
static int grep_engine_for(const struct bt_value *const *p, const char **why)
{
	*why = p[P_HOW]->i == H_PROCESSES ? "how=processes" : "how=threads";
	return p[P_HOW]->i == H_PROCESSES ? BT_ENGINE_PROCESSES :
	       p[P_HOW]->i == H_THREADS	  ? BT_ENGINE_THREADS :
					    -1;
}

/* Lines of buf[0..n) holding pat: find it, count its line, go on after that line. */
static uint64_t count_lines(const char *buf, size_t n, const char *pat, size_t plen)
{
	const char *p = buf, *end = buf + n;
	uint64_t c = 0;

	while (p < end) {
		const char *hit = memmem(p, (size_t)(end - p), pat, plen), *nl;

		if (hit == NULL)
			break;
		c++;
		nl = memchr(hit + plen, '\n', (size_t)(end - hit - plen));
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return c;
}

static int grep_worker(struct bt_worker *w)
{
	struct grep_state *s = w->job->state;
	char *buf = NULL;
	size_t cap = 0;
	int rc = 0;

	for (int k = w->id; k < s->cell->n && !bt_worker_stop_raised(w); k += s->nworkers) {
		const struct bt_fdata *d = s->cell->file[k];
		struct bt_err err = { "" };
		uint64_t t = bt_lat_begin(w), c;
		ssize_t n;
		int fd;

		if (cap < d->size) {
			free(buf);
			cap = d->size;
			buf = malloc(cap);
			if (buf == NULL) {
				rc = bt_worker_fail(w, "out of memory");
				break;
			}
		}
		if (bt_files_open_in(s->files, d, 0, &fd, &err) < 0) {
			rc = bt_worker_fail(w, "%s", err.msg);
			break;
		}
		n = bt_files_pread_full(fd, buf, d->size, 0);
		close(fd);
		if (n != (ssize_t)d->size) {
			rc = bt_worker_fail(w, "read %s: %s", d->path,
					    n < 0 ? strerror((int)-n) : "short read");
			break;
		}
		c = count_lines(buf, d->size, s->pattern, s->plen);
		bt_lat_end(w, t);
		s->count[k] = c;
		bt_worker_count(w, GM_MATCHES, c);
		bt_worker_ops(w, d->size);
		bt_worker_bytes(w, d->size);
	}
	free(buf);
	return rc;
}

static int grep_verify(struct bt_job *job, struct bt_err *err)
{
	struct grep_state *s = job->state;
	uint64_t total = 0;

	for (int k = 0; k < s->cell->n; k++) {
		if (s->count[k] != s->cell->ref[k])
			return bt_err_set(err, -EIO,
					  "%s: %" PRIu64 " lines hold \"%s\", the reference says %" PRIu64,
					  s->cell->file[k]->name, s->count[k], s->pattern,
					  s->cell->ref[k]);
		total += s->count[k];
	}
	return bt_err_set(err, 0, "ok: %" PRIu64 " matching lines in %d files (%" PRIu64
			  " bytes), as the reference counts; %.0f%% resident at start",
			  total, s->cell->n, s->cell->bytes,
			  s->cell->bytes ? 100.0 * (double)s->resident / (double)s->cell->bytes : 0);
}

const struct bt_workload bt_wl_grep = {
	.name = "grep",
	.group = "files",
	.title = "fixed-string search over a set of text files: sequential, threads, processes",
	.unit = "bytes",
	.lat_what = "one file (read + search)",
	.params = params,
	.nparams = P_COUNT,
	.metrics = metrics,
	.nmetrics = GM_COUNT,
	.baseline = "how=sequential",
	.check = grep_check,
	.engines = BT_ENGINES_THREADS | BT_ENGINES_PROCESSES,
	.engine_for = grep_engine_for,
	.run_setup = grep_run_setup,
	.run_teardown = grep_run_teardown,
	.cell_setup = grep_cell_setup,
	.cell_teardown = grep_cell_teardown,
	.setup = grep_setup,
	.worker = grep_worker,
	.verify = grep_verify,
	.teardown = grep_teardown,
};
