/*
 * files_sort.c - sort a file of 64-byte records (the classic RandFile:
 * records= of them, 100000 and 400000 the standard sizes) by their 10-byte
 * printable key, into a new file, several ways:
 *
 *   qsort  read(2) the file into one buffer, qsort(3) it, write(2) it out
 *   mmap   map input and output, copy, qsort the output mapping in place
 *   tree   a binary search tree: one malloc per record as it is read,
 *          then an in-order walk writes the output through a 64 KiB buffer
 *   merge  read into a buffer, threads= threads qsort one slice each, then
 *          pairwise merges in parallel, log2(threads) rounds
 *
 * threads= is the merge sort's team (a BT_PF_WORKERS axis); the other
 * methods run on one thread whatever it says (metric threads says what
 * ran), so that "method=qsort,mmap,tree,merge threads=1,2,4" is one table.
 * Ops are records. Verify reads the output back: every key >= the one
 * before, and the records a permutation of the input (the count, and the
 * sum and xor of a 64-bit hash of each record, made when it was generated).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engines/pin.h"
#include "engines/workload.h"
#include "workloads/files_data.h"

enum { P_METHOD, P_THREADS, P_RECORDS, P_SYNC, P_CACHE, P_SEED, P_DIR, P_KEEP, P_COUNT };
enum { M_QSORT, M_MMAP, M_TREE, M_MERGE };
enum { SM_THREADS, SM_RESIDENT, SM_FILE, SM_RESIDENT_PCT, SM_COUNT };

#define MAX_THREADS 64
#define OUTBUF (64 * 1024)

static const char *const method_choices[] = { "qsort", "mmap", "tree", "merge", NULL };
static const char *const sync_choices[] = { "none", "fdatasync", NULL };

static const struct bt_param params[] = {
	[P_METHOD] = { .name = "method", .kind = BT_P_ENUM, .def = "qsort", .choices = method_choices,
		       .help = "qsort (read + qsort + write), mmap (qsort in the output mapping), "
			       "tree (BST, one malloc per record), merge (threads= sorters + parallel merge)" },
	[P_THREADS] = { .name = "threads", .kind = BT_P_INT, .def = "1", .min = 1, .max = MAX_THREADS,
			.help = "method=merge: sorting threads (the others use one)",
			.ticks = "1,2,4,8", .flags = BT_PF_WORKERS },
	[P_RECORDS] = { .name = "records", .kind = BT_P_INT, .def = "100000", .min = 1,
			.max = 1ll << 32, .help = "64-byte records in the file (classic: 100000, 400000)",
			.ticks = "100000,400000" },
	[P_SYNC] = { .name = "sync", .kind = BT_P_ENUM, .def = "none", .choices = sync_choices,
		     .help = "none, or fdatasync the output at the end (writeback counted)" },
	[P_CACHE] = BT_FILES_PARAM_CACHE,
	[P_SEED] = BT_FILES_PARAM_SEED("seed of the generated records"),
	[P_DIR] = BT_FILES_PARAM_DIR,
	[P_KEEP] = BT_FILES_PARAM_KEEP,
};

static const struct bt_metric metrics[SM_COUNT] = {
	[SM_THREADS] = { .name = "threads", .unit = "threads", .kind = BT_MK_GAUGE,
			 .help = "threads that sorted (merge: threads=; the others: 1)" },
	[SM_RESIDENT] = { .name = "resident", .unit = "bytes", .kind = BT_MK_GAUGE,
			  .help = "bytes of the input in the page cache at the rep's start" },
	[SM_FILE] = { .name = "file", .unit = "bytes", .kind = BT_MK_GAUGE,
		      .help = "size of the input" },
	[SM_RESIDENT_PCT] = { .name = "resident_pct", .unit = "%", .kind = BT_MK_RATIO,
			      .num = "resident", .den = "file",
			      .help = "share of the input in the page cache at the rep's start" },
};

struct sort_state {
	int method, threads, sync;
	struct bt_files *files;
	const struct bt_fdata *data;
	int in, out;
	uint64_t resident;
};

static int cmp_rec(const void *a, const void *b)
{
	return memcmp(a, b, BT_REC_KEY);
}

static int sort_run_setup(struct bt_run_ctx *run, struct bt_err *err)
{
	const struct bt_value *const *c0 = run->cells[0];
	struct bt_files *f;
	int rc;

	rc = bt_files_open(&f, c0[P_DIR]->text, "sort", (int)c0[P_KEEP]->i, err);
	for (int c = 0; c < run->ncells && rc == 0; c++) {
		const struct bt_fdata *d;

		rc = bt_files_records(f, (uint64_t)run->cells[c][P_RECORDS]->i,
				      (uint64_t)run->cells[c][P_SEED]->i, &d, err);
	}
	if (rc < 0) {
		bt_files_close(f);
		return rc;
	}
	run->state = f;
	return 0;
}

static void sort_run_teardown(struct bt_run_ctx *run)
{
	bt_files_close(run->state);
	run->state = NULL;
}

static void sort_teardown(struct bt_job *job)
{
	struct sort_state *s = job->state;

	if (s == NULL)
		return;
	if (s->in >= 0)
		close(s->in);
	if (s->out >= 0)
		close(s->out);
	bt_files_unlink(s->files, "out-sort");
	free(s);
	job->state = NULL;
}

static int sort_setup(struct bt_job *job, struct bt_err *err)
{
	struct sort_state *s = calloc(1, sizeof(*s));
	int rc;

	if (s == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	job->state = s;
	s->in = s->out = -1;
	s->files = job->run_state;
	s->method = (int)bt_job_param(job, P_METHOD)->i;
	s->threads = s->method == M_MERGE ? (int)bt_job_param(job, P_THREADS)->i : 1;
	s->sync = (int)bt_job_param(job, P_SYNC)->i;
	rc = bt_files_records(s->files, (uint64_t)bt_job_param(job, P_RECORDS)->i,
			      (uint64_t)bt_job_param(job, P_SEED)->i, &s->data, err);
	if (rc == 0)
		rc = bt_files_open_in(s->files, s->data, 0, &s->in, err);
	if (rc == 0)
		rc = bt_files_cache(s->in, bt_job_param(job, P_CACHE)->i == BT_CACHE_COLD,
				    &s->resident, err);
	if (rc == 0)
		rc = bt_files_create(s->files, "out-sort", 0, &s->out, err);
	if (rc < 0) {
		sort_teardown(job);
		return rc;
	}
	bt_job_metric(job, SM_THREADS, (uint64_t)s->threads);
	bt_job_metric(job, SM_RESIDENT, s->resident);
	bt_job_metric(job, SM_FILE, s->data->size);
	job->nworkers = 1;
	job->team = s->method == M_MERGE ? s->threads : 0;
	job->total_ops = s->data->nrec;
	return 0;
}

static int fail_io(struct bt_worker *w, struct sort_state *s, const char *what, int rc)
{
	return bt_worker_fail(w, "%s %s/%s: %s", what, s->files->sc.path,
			      strcmp(what, "read") == 0 ? s->data->name : "out-sort",
			      strerror(rc < 0 ? -rc : EIO));
}

/* The whole input into a new buffer (read(2), 1 MiB at a time). */
static int read_all(struct bt_worker *w, struct sort_state *s, unsigned char **out)
{
	unsigned char *buf = malloc(s->data->size);
	uint64_t off = 0;

	*out = NULL;
	if (buf == NULL)
		return bt_worker_fail(w, "out of memory for %" PRIu64 " bytes", s->data->size);
	while (off < s->data->size) {
		size_t n = s->data->size - off < (1u << 20) ? (size_t)(s->data->size - off) : (1u << 20);
		ssize_t r = read(s->in, buf + off, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(buf);
			return fail_io(w, s, "read", r < 0 ? -errno : -EIO);
		}
		off += (uint64_t)r;
	}
	*out = buf;
	return 0;
}

static int write_all(struct bt_worker *w, struct sort_state *s, const unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t r = write(s->out, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return fail_io(w, s, "write", r < 0 ? -errno : -ENOSPC);
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int qsort_method(struct bt_worker *w, struct sort_state *s)
{
	unsigned char *buf;
	int rc = read_all(w, s, &buf);

	if (rc < 0)
		return rc;
	qsort(buf, s->data->nrec, BT_REC_SIZE, cmp_rec);
	rc = write_all(w, s, buf, s->data->size);
	free(buf);
	return rc;
}

static int mmap_method(struct bt_worker *w, struct sort_state *s)
{
	size_t size = s->data->size;
	unsigned char *in = MAP_FAILED, *out = MAP_FAILED;
	int rc;

	/* Reserve the blocks: out of space in a mapping would be SIGBUS. */
	rc = posix_fallocate(s->out, 0, (off_t)size);
	if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL)
		return fail_io(w, s, "preallocate", -rc);
	if (ftruncate(s->out, (off_t)size) < 0)
		return fail_io(w, s, "ftruncate", -errno);
	rc = 0;
	in = mmap(NULL, size, PROT_READ, MAP_SHARED, s->in, 0);
	out = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, s->out, 0);
	if (in == MAP_FAILED || out == MAP_FAILED) {
		rc = bt_worker_fail(w, "mmap: %s", strerror(errno));
		goto out;
	}
	memcpy(out, in, size);
	qsort(out, s->data->nrec, BT_REC_SIZE, cmp_rec);
out:
	if (in != MAP_FAILED)
		munmap(in, size);
	if (out != MAP_FAILED)
		munmap(out, size);
	return rc;
}

struct node {
	struct node *left, *right;
	unsigned char rec[BT_REC_SIZE];
};

/*
 * Insert as read, then walk in order with an explicit stack (a tree of
 * random keys is about 2 ln n deep, but nothing bounds it but n).
 */
static int tree_method(struct bt_worker *w, struct sort_state *s)
{
	uint64_t n = s->data->nrec, made = 0, sp = 0, fill = 0;
	unsigned char *ibuf = malloc(OUTBUF), *obuf = malloc(OUTBUF);
	struct node **stack = malloc((size_t)n * sizeof(*stack)), *root = NULL, *cur;
	int rc = 0;

	if (ibuf == NULL || obuf == NULL || stack == NULL) {
		rc = bt_worker_fail(w, "out of memory");
		goto out;
	}
	while (made < n) {
		ssize_t r = bt_files_pread_full(s->in, ibuf, OUTBUF, made * BT_REC_SIZE);

		if (r < BT_REC_SIZE) {
			rc = fail_io(w, s, "read", r < 0 ? (int)r : -EIO);
			goto out;
		}
		for (ssize_t i = 0; i + BT_REC_SIZE <= r && made < n; i += BT_REC_SIZE, made++) {
			struct node *nd = malloc(sizeof(*nd)), **at = &root;

			if (nd == NULL) {
				rc = bt_worker_fail(w, "out of memory after %" PRIu64 " records", made);
				goto out;
			}
			nd->left = nd->right = NULL;
			memcpy(nd->rec, ibuf + i, BT_REC_SIZE);
			while (*at != NULL)
				at = cmp_rec(nd->rec, (*at)->rec) < 0 ? &(*at)->left : &(*at)->right;
			*at = nd;
		}
	}
	for (cur = root; cur != NULL || sp > 0;) {
		while (cur != NULL) {
			stack[sp++] = cur;
			cur = cur->left;
		}
		cur = stack[--sp];
		memcpy(obuf + fill, cur->rec, BT_REC_SIZE);
		fill += BT_REC_SIZE;
		if (fill == OUTBUF) {
			rc = write_all(w, s, obuf, fill);
			if (rc < 0)
				goto out;
			fill = 0;
		}
		cur = cur->right;
	}
	rc = write_all(w, s, obuf, fill);
out:
	/* Free the tree (post-order through the same stack, by unlinking). */
	sp = 0;
	if (root != NULL && stack != NULL)
		stack[sp++] = root;
	while (sp > 0) {
		struct node *nd = stack[--sp];

		if (nd->left)
			stack[sp++] = nd->left;
		if (nd->right)
			stack[sp++] = nd->right;
		free(nd);
	}
	free(stack);
	free(ibuf);
	free(obuf);
	return rc;
}

/* ---- merge: threads= sorters, then parallel pairwise merges ------------- */

struct mtask {
	unsigned char *src, *dst;
	uint64_t lo, mid, hi;	/* records: sort [lo, hi), or merge [lo, mid) and [mid, hi) */
	int merge, cpu;
};

static void *mtask_run(void *arg)
{
	struct mtask *t = arg;

	if (t->cpu >= 0)
		(void)bt_pin_self(t->cpu);
	if (!t->merge) {
		qsort(t->src + t->lo * BT_REC_SIZE, t->hi - t->lo, BT_REC_SIZE, cmp_rec);
		return NULL;
	}
	uint64_t a = t->lo, b = t->mid, o = t->lo;

	while (a < t->mid && b < t->hi) {
		const unsigned char *ra = t->src + a * BT_REC_SIZE, *rb = t->src + b * BT_REC_SIZE;

		if (cmp_rec(rb, ra) < 0) {
			memcpy(t->dst + o++ * BT_REC_SIZE, rb, BT_REC_SIZE);
			b++;
		} else {
			memcpy(t->dst + o++ * BT_REC_SIZE, ra, BT_REC_SIZE);
			a++;
		}
	}
	memcpy(t->dst + o * BT_REC_SIZE, t->src + a * BT_REC_SIZE, (t->mid - a) * BT_REC_SIZE);
	o += t->mid - a;
	memcpy(t->dst + o * BT_REC_SIZE, t->src + b * BT_REC_SIZE, (t->hi - b) * BT_REC_SIZE);
	return NULL;
}

/* Run tasks t[0..n) on threads, task 0 on the calling thread; 0 or -errno. */
static int run_tasks(struct mtask *t, int n)
{
	pthread_t tid[MAX_THREADS];
	int started = 0, rc = 0;

	for (int i = 1; i < n; i++) {
		rc = -pthread_create(&tid[i], NULL, mtask_run, &t[i]);
		if (rc < 0)
			break;
		started = i;
	}
	mtask_run(&t[0]);
	for (int i = 1; i <= started; i++)
		pthread_join(tid[i], NULL);
	return rc;
}

static int merge_method(struct bt_worker *w, struct sort_state *s)
{
	uint64_t n = s->data->nrec, bound[MAX_THREADS + 1];
	struct mtask t[MAX_THREADS];
	unsigned char *a, *b = NULL, *res;
	int runs = s->threads < (int)(n > MAX_THREADS ? MAX_THREADS : n) ? s->threads : (int)n;
	int rc = read_all(w, s, &a);

	if (rc < 0)
		return rc;
	b = malloc(s->data->size);
	if (b == NULL) {
		rc = bt_worker_fail(w, "out of memory");
		goto out;
	}
	for (int i = 0; i <= runs; i++)
		bound[i] = n * (uint64_t)i / (uint64_t)runs;
	for (int i = 0; i < runs; i++)
		t[i] = (struct mtask){ .src = a, .lo = bound[i], .hi = bound[i + 1],
				       .cpu = w->job->team_cpus ? w->job->team_cpus[i] : -1 };
	rc = run_tasks(t, runs);
	res = a;
	/* Each round merges neighbouring runs pairwise, a thread per pair, a into b. */
	while (rc == 0 && runs > 1) {
		int pairs = 0, k = 0;

		for (int i = 0; i < runs; i += 2, pairs++) {
			uint64_t hi = bound[i + 2 <= runs ? i + 2 : i + 1];

			t[pairs] = (struct mtask){ .src = res, .dst = res == a ? b : a, .lo = bound[i],
						   .mid = bound[i + 1], .hi = hi, .merge = 1,
						   .cpu = w->job->team_cpus ? w->job->team_cpus[pairs] : -1 };
			if (i + 1 == runs)	/* odd one out: merged with nothing, copied */
				t[pairs].mid = hi;
		}
		rc = run_tasks(t, pairs);
		for (int i = 0; i <= runs; i += 2)
			bound[k++] = bound[i];
		if (runs % 2)
			bound[k++] = bound[runs];
		runs = pairs;
		res = res == a ? b : a;
	}
	if (rc < 0)
		rc = bt_worker_fail(w, "cannot start a sorting thread: %s", strerror(-rc));
	else
		rc = write_all(w, s, res, s->data->size);
out:
	free(a);
	free(b);
	return rc;
}

static int sort_worker(struct bt_worker *w)
{
	struct sort_state *s = w->job->state;
	uint64_t t = bt_lat_begin(w);
	int rc;

	switch (s->method) {
	case M_MMAP:
		rc = mmap_method(w, s);
		break;
	case M_TREE:
		rc = tree_method(w, s);
		break;
	case M_MERGE:
		rc = merge_method(w, s);
		break;
	default:
		rc = qsort_method(w, s);
		break;
	}
	if (rc == 0 && s->sync && fdatasync(s->out) < 0)
		rc = fail_io(w, s, "fdatasync", -errno);
	if (rc < 0)
		return rc;
	bt_lat_end(w, t);
	bt_worker_ops(w, s->data->nrec);
	bt_worker_bytes(w, s->data->size);
	return 0;
}

/* Sorted by key, and the same multiset of records as the input. */
static int sort_verify(struct bt_job *job, struct bt_err *err)
{
	struct sort_state *s = job->state;
	const struct bt_fdata *d = s->data;
	unsigned char *p;
	uint64_t sum = 0, x = 0;
	struct stat st;
	int rc = 0;

	if (fstat(s->out, &st) < 0)
		return bt_err_set(err, -errno, "fstat of the output: %s", strerror(errno));
	if ((uint64_t)st.st_size != d->size)
		return bt_err_set(err, -EIO, "method=%s: output has %" PRIu64 " bytes, not %" PRIu64,
				  method_choices[s->method], (uint64_t)st.st_size, d->size);
	p = mmap(NULL, d->size, PROT_READ, MAP_SHARED, s->out, 0);
	if (p == MAP_FAILED)
		return bt_err_set(err, -errno, "mmap for verify: %s", strerror(errno));
	for (uint64_t i = 0; i < d->nrec; i++) {
		const unsigned char *r = p + i * BT_REC_SIZE;
		uint64_t h = bt_rec_hash(r);

		if (i > 0 && memcmp(r - BT_REC_SIZE, r, BT_REC_KEY) > 0) {
			rc = bt_err_set(err, -EIO, "method=%s: record %" PRIu64 " is out of order",
					method_choices[s->method], i);
			goto out;
		}
		sum += h;
		x ^= h;
	}
	if (sum != d->sum || x != d->xor) {
		rc = bt_err_set(err, -EIO,
				"method=%s: sorted, but not a permutation of the input (record digest differs)",
				method_choices[s->method]);
		goto out;
	}
	bt_err_set(err, 0, "ok: %" PRIu64 " records sorted, a permutation of the input; %d thread%s; %.0f%% resident at start",
		   d->nrec, s->threads, s->threads == 1 ? "" : "s",
		   d->size ? 100.0 * (double)s->resident / (double)d->size : 0);
out:
	munmap(p, d->size);
	return rc;
}

const struct bt_workload bt_wl_sort = {
	.name = "sort",
	.group = "files",
	.title = "sort 64-byte records by key: qsort, mmap + qsort, tree insertion, threaded merge",
	.unit = "records",
	.lat_what = "the whole sort (read, sort, write)",
	.params = params,
	.nparams = P_COUNT,
	.metrics = metrics,
	.nmetrics = SM_COUNT,
	.baseline = "method=qsort",
	.run_setup = sort_run_setup,
	.run_teardown = sort_run_teardown,
	.setup = sort_setup,
	.worker = sort_worker,
	.verify = sort_verify,
	.teardown = sort_teardown,
};
