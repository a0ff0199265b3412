/*
 * files_copy.c - copy and convert: one file to another, each several ways
 * (the classic file-copy and ASCII-to-Unicode timing experiments).
 *
 * copy reads a file of size= random bytes and writes it unchanged; convert
 * reads size= bytes of ASCII text and writes it as UTF-16LE (twice the
 * bytes). Both have the same methods, the same parameters and the same
 * transfer code; convert widens each buffer between its read and its write.
 *
 *   stdio            fread/fwrite with buffer= stdio buffers (convert:
 *                    getc/putc, the classic character loop)
 *   rw               read/write with a buffer= buffer
 *   rw-seq           the same after posix_fadvise(SEQUENTIAL) on the input
 *   prealloc         the same into an output fallocate'd (else ftruncate'd)
 *                    to its final size first
 *   mmap             both files mapped, memcpy (convert: widen) buffer= at a time
 *   sendfile         copy: sendfile(2), buffer= bytes per call
 *   copy_file_range  copy: copy_file_range(2), buffer= bytes per call
 *   threads          threads= workers, each pread/pwrite-ing its own slice
 *                    into the output truncated to size first
 *   uring            io_uring (liburing): 8 buffers in flight, each read
 *                    followed by its write (the overlapped-I/O variant)
 *
 * The input is generated once per run into the scratch directory
 * (files_data.h); each rep writes a fresh output there and removes it.
 * cache=cold drops the input's pages before each rep; metric resident says
 * how much stayed, resident_end how much of the input the rep left cached. io=direct opens both files O_DIRECT (rw, rw-seq,
 * prealloc; buffer= a multiple of 4 KiB). sync=fdatasync ends the rep with
 * fdatasync of the output, so writeback is inside the timed work.
 * Ops are bytes of input, so the tables show MB/s. Verify compares the
 * output with the input byte for byte (copy) or with a reference
 * conversion of it (convert).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_config.h"
#include "engines/workload.h"
#include "workloads/files_data.h"

enum { P_METHOD, P_BUFFER, P_SIZE, P_THREADS, P_SYNC, P_CACHE, P_IO, P_SEED, P_DIR, P_KEEP,
       P_COUNT };
enum { M_STDIO, M_RW, M_RWSEQ, M_PREALLOC, M_MMAP, M_SENDFILE, M_CFR, M_THREADS, M_URING };
enum { S_NONE, S_FDATASYNC };
enum { IO_BUFFERED, IO_DIRECT };
enum { FM_RESIDENT, FM_FILE, FM_RESIDENT_PCT, FM_END, FM_END_PCT, FM_COUNT };

#define DIRECT_ALIGN 4096
#define URING_DEPTH 8

static const char *const copy_methods[] = { "stdio", "rw", "rw-seq", "prealloc", "mmap",
					    "sendfile", "copy_file_range", "threads", "uring",
					    NULL };
static const int copy_ids[] = { M_STDIO, M_RW, M_RWSEQ, M_PREALLOC, M_MMAP, M_SENDFILE, M_CFR,
				M_THREADS, M_URING };
static const char *const convert_methods[] = { "stdio", "rw", "rw-seq", "prealloc", "mmap",
					       "threads", "uring", NULL };
static const int convert_ids[] = { M_STDIO, M_RW, M_RWSEQ, M_PREALLOC, M_MMAP, M_THREADS,
				   M_URING };
static const char *const sync_choices[] = { "none", "fdatasync", NULL };
static const char *const io_choices[] = { "buffered", "direct", NULL };

#define COMMON_PARAMS(methods_, mhelp_, what_)                                                \
	[P_METHOD] = { .name = "method", .kind = BT_P_ENUM, .def = "rw", .choices = methods_, \
		       .help = mhelp_ },                                                      \
	[P_BUFFER] = { .name = "buffer", .kind = BT_P_SIZE, .def = "64K", .min = 256,         \
		       .max = 1 << 20, .ticks = "256,4K,64K,1M",                              \
		       .help = "bytes per read/write, stdio buffer, mmap step, sendfile call, " \
			       "io_uring buffer" },                                           \
	[P_SIZE] = { .name = "size", .kind = BT_P_SIZE, .def = "64M", .min = 1,               \
		     .max = 1ll << 40, .help = what_ },                                       \
	[P_THREADS] = { .name = "threads", .kind = BT_P_INT, .def = "4", .min = 1, .max = 64,  \
			.help = "method=threads: workers, each its own slice (other methods: one)", \
			.ticks = "1,2,4,8" },                                                 \
	[P_SYNC] = { .name = "sync", .kind = BT_P_ENUM, .def = "none", .choices = sync_choices, \
		     .help = "none, or fdatasync the output at the end (writeback counted)" }, \
	[P_CACHE] = BT_FILES_PARAM_CACHE,                                                     \
	[P_IO] = { .name = "io", .kind = BT_P_ENUM, .def = "buffered", .choices = io_choices, \
		   .help = "buffered, or direct: O_DIRECT both files (rw, rw-seq, prealloc)" },   \
	[P_SEED] = BT_FILES_PARAM_SEED("seed of the generated input"),                        \
	[P_DIR] = BT_FILES_PARAM_DIR,                                                         \
	[P_KEEP] = BT_FILES_PARAM_KEEP

static const struct bt_param copy_params[] = {
	COMMON_PARAMS(copy_methods,
		      "stdio, rw, rw-seq (sequential advice), prealloc, mmap, sendfile, "
		      "copy_file_range, threads, uring (io_uring)",
		      "bytes copied (a generated file of random bytes)"),
};
static const struct bt_param convert_params[] = {
	COMMON_PARAMS(convert_methods,
		      "stdio (getc/putc), rw, rw-seq (sequential advice), prealloc, mmap, "
		      "threads, uring (io_uring)",
		      "bytes of ASCII text converted (the output is twice that)"),
};

static const struct bt_metric metrics[FM_COUNT] = {
	[FM_RESIDENT] = { .name = "resident", .unit = "bytes", .kind = BT_MK_GAUGE,
			  .help = "bytes of the input in the page cache at the rep's start (cold: after the drop)" },
	[FM_FILE] = { .name = "file", .unit = "bytes", .kind = BT_MK_GAUGE,
		      .help = "size of the input" },
	[FM_RESIDENT_PCT] = { .name = "resident_pct", .unit = "%", .kind = BT_MK_RATIO,
			      .num = "resident", .den = "file",
			      .help = "share of the input in the page cache at the rep's start" },
	[FM_END] = { .name = "resident_end", .unit = "bytes", .kind = BT_MK_GAUGE,
		     .help = "bytes of the input in the page cache when the rep ended" },
	[FM_END_PCT] = { .name = "resident_end_pct", .unit = "%", .kind = BT_MK_RATIO,
			 .num = "resident_end", .den = "file",
			 .help = "share of the input in the page cache when the rep ended" },
};

struct xfer {
	int expand;		/* convert: ASCII to UTF-16LE */
	int method, direct, sync, cold, nworkers;
	size_t buffer;
	uint64_t size, osize;	/* input and output bytes */
	struct bt_files *files;
	const struct bt_fdata *data;
	int in, out;
	char oname[32];
	uint64_t resident;
};

static int method_of(int expand, const struct bt_value *v)
{
	return expand ? convert_ids[v->i] : copy_ids[v->i];
}

static int check(const struct bt_value *const *p, int expand, struct bt_err *err)
{
	int m = method_of(expand, p[P_METHOD]);

	if (m == M_URING && !BT_HAVE_LIBURING)
		return bt_err_set(err, -ENOTSUP, "%s", BT_FILES_NO_URING);
	if (p[P_IO]->i == IO_DIRECT) {
		if (m != M_RW && m != M_RWSEQ && m != M_PREALLOC)
			return bt_err_set(err, -EINVAL,
					  "io=direct: for method=rw, rw-seq or prealloc, not method=%s",
					  p[P_METHOD]->text);
		if (p[P_BUFFER]->i % DIRECT_ALIGN)
			return bt_err_set(err, -EINVAL,
					  "io=direct: buffer=%s must be a multiple of 4K",
					  p[P_BUFFER]->text);
	}
	return 0;
}

static int copy_check(const struct bt_value *const *p, struct bt_err *err)
{
	return check(p, 0, err);
}

static int convert_check(const struct bt_value *const *p, struct bt_err *err)
{
	return check(p, 1, err);
}

static int get_input(struct bt_files *f, int expand, const struct bt_value *const *p,
		     const struct bt_fdata **d, struct bt_err *err)
{
	uint64_t size = (uint64_t)p[P_SIZE]->i, seed = (uint64_t)p[P_SEED]->i;

	return expand ? bt_files_text(f, size, seed, d, err) : bt_files_bytes(f, size, seed, d, err);
}

/* The scratch directory, and every distinct input of the run's cells generated into it. */
static int run_setup(struct bt_run_ctx *run, int expand, struct bt_err *err)
{
	const struct bt_value *const *c0 = run->cells[0];
	struct bt_files *f;
	int rc;

	rc = bt_files_open(&f, c0[P_DIR]->text, expand ? "convert" : "copy", (int)c0[P_KEEP]->i,
			   err);
	if (rc < 0)
		return rc;
	for (int c = 0; c < run->ncells && rc == 0; c++) {
		const struct bt_fdata *d;

		rc = get_input(f, expand, run->cells[c], &d, err);
	}
	if (rc < 0) {
		bt_files_close(f);
		return rc;
	}
	run->state = f;
	return 0;
}

static int copy_run_setup(struct bt_run_ctx *run, struct bt_err *err)
{
	return run_setup(run, 0, err);
}

static int convert_run_setup(struct bt_run_ctx *run, struct bt_err *err)
{
	return run_setup(run, 1, err);
}

static void files_run_teardown(struct bt_run_ctx *run)
{
	bt_files_close(run->state);
	run->state = NULL;
}

static void xfer_teardown(struct bt_job *job)
{
	struct xfer *x = job->state;

	if (x == NULL)
		return;
	if (x->in >= 0)
		close(x->in);
	if (x->out >= 0)
		close(x->out);
	bt_files_unlink(x->files, x->oname);
	free(x);
	job->state = NULL;
}

static int setup(struct bt_job *job, int expand, struct bt_err *err)
{
	struct xfer *x = calloc(1, sizeof(*x));
	int rc;

	if (x == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	job->state = x;
	x->in = x->out = -1;
	x->expand = expand;
	x->files = job->run_state;
	x->method = method_of(expand, bt_job_param(job, P_METHOD));
	x->buffer = (size_t)bt_job_param(job, P_BUFFER)->i;
	x->direct = bt_job_param(job, P_IO)->i == IO_DIRECT;
	x->sync = (int)bt_job_param(job, P_SYNC)->i;
	x->cold = bt_job_param(job, P_CACHE)->i == BT_CACHE_COLD;
	x->nworkers = x->method == M_THREADS ? (int)bt_job_param(job, P_THREADS)->i : 1;
	snprintf(x->oname, sizeof(x->oname), "out-%s", expand ? "convert" : "copy");
	rc = check(job->params, expand, err);
	if (rc == 0)
		rc = get_input(x->files, expand, job->params, &x->data, err);
	if (rc < 0)
		goto fail;
	x->size = x->data->size;
	x->osize = expand ? 2 * x->size : x->size;
	/* Page-cache state first (on a plain descriptor), then the input as the method reads it. */
	rc = bt_files_open_in(x->files, x->data, 0, &x->in, err);
	if (rc == 0)
		rc = bt_files_cache(x->in, x->cold, &x->resident, err);
	if (rc == 0 && x->direct) {
		close(x->in);
		x->in = -1;
		rc = bt_files_open_in(x->files, x->data, 1, &x->in, err);
	}
	if (rc == 0)
		rc = bt_files_create(x->files, x->oname, x->direct, &x->out, err);
	if (rc == 0 && x->method == M_THREADS && ftruncate(x->out, (off_t)x->osize) < 0)
		rc = bt_err_set(err, -errno, "ftruncate of the output: %s", strerror(errno));
	if (rc < 0)
		goto fail;
	bt_job_metric(job, FM_RESIDENT, x->resident);
	bt_job_metric(job, FM_FILE, x->size);
	job->nworkers = x->nworkers;
	job->total_ops = x->size;
	return 0;
fail:
	xfer_teardown(job);
	return rc;
}

static int copy_setup(struct bt_job *job, struct bt_err *err)
{
	return setup(job, 0, err);
}

static int convert_setup(struct bt_job *job, struct bt_err *err)
{
	return setup(job, 1, err);
}

/* ---- the methods ---------------------------------------------------------- */

static int io_fail(struct bt_worker *w, struct xfer *x, const char *what, int rc, uint64_t at)
{
	return bt_worker_fail(w, "%s %s/%s: %s (at byte %" PRIu64 " of %" PRIu64 ")", what,
			      x->files->sc.path, strcmp(what, "read") == 0 ? x->data->name : x->oname,
			      strerror(-rc), at, strcmp(what, "read") == 0 ? x->size : x->osize);
}

static void progress(struct bt_worker *w, uint64_t n)
{
	bt_worker_ops(w, n);
	bt_worker_bytes(w, n);
}

/* read() until n bytes or EOF; bytes read or -errno. */
static ssize_t read_full(int fd, unsigned char *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t r = write(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ENOSPC;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* rw, rw-seq, prealloc; with io=direct the buffers are aligned and the last write padded. */
static int rw_method(struct bt_worker *w, struct xfer *x)
{
	size_t ob = x->expand ? 2 * x->buffer : x->buffer;
	unsigned char *ib = NULL, *xb = NULL;
	uint64_t off = 0, ooff = 0;
	int rc = 0;

	if (x->method == M_RWSEQ)
		posix_fadvise(x->in, 0, 0, POSIX_FADV_SEQUENTIAL);
	if (x->method == M_PREALLOC && (rc = posix_fallocate(x->out, 0, (off_t)x->osize)) != 0) {
		if (rc != EOPNOTSUPP && rc != EINVAL)
			return io_fail(w, x, "preallocate", -rc, 0);
		if (ftruncate(x->out, (off_t)x->osize) < 0)
			return io_fail(w, x, "ftruncate", -errno, 0);
	}
	if (posix_memalign((void **)&ib, DIRECT_ALIGN, x->buffer) != 0 ||
	    (x->expand && posix_memalign((void **)&xb, DIRECT_ALIGN, ob) != 0)) {
		rc = bt_worker_fail(w, "out of memory");
		goto out;
	}
	while (off < x->size && !bt_worker_stop_raised(w)) {
		uint64_t t = bt_lat_begin(w);
		ssize_t n = read_full(x->in, ib, x->buffer);
		unsigned char *o = ib;
		size_t olen;

		if (n <= 0) {
			rc = io_fail(w, x, "read", n < 0 ? (int)n : -EIO, off);
			goto out;
		}
		olen = (size_t)n;
		if (x->expand) {
			bt_ascii_to_utf16le(xb, ib, (size_t)n);
			o = xb;
			olen *= 2;
		}
		if (x->direct && olen % DIRECT_ALIGN) {
			size_t pad = DIRECT_ALIGN - olen % DIRECT_ALIGN;

			memset(o + olen, 0, pad);
			olen += pad;
		}
		rc = write_all(x->out, o, olen);
		if (rc < 0) {
			rc = io_fail(w, x, "write", rc, ooff);
			goto out;
		}
		bt_lat_end(w, t);
		off += (uint64_t)n;
		ooff += x->expand ? 2 * (uint64_t)n : (uint64_t)n;
		progress(w, (uint64_t)n);
	}
	/* io=direct padded the last block: cut the file back to its size. */
	if (x->direct && ftruncate(x->out, (off_t)x->osize) < 0)
		rc = io_fail(w, x, "ftruncate", -errno, ooff);
out:
	free(ib);
	free(xb);
	return rc;
}

static int stdio_method(struct bt_worker *w, struct xfer *x)
{
	int ifd = dup(x->in), ofd = dup(x->out), rc = 0;
	FILE *in = ifd >= 0 ? fdopen(ifd, "rb") : NULL;
	FILE *out = ofd >= 0 ? fdopen(ofd, "wb") : NULL;
	unsigned char *b = malloc(x->buffer);
	uint64_t off = 0;

	if (in == NULL || out == NULL || b == NULL) {
		rc = bt_worker_fail(w, "stdio: cannot open the files: %s", strerror(errno));
		goto out;
	}
	setvbuf(in, NULL, _IOFBF, x->buffer);
	setvbuf(out, NULL, _IOFBF, x->buffer);
	while (off < x->size && !bt_worker_stop_raised(w)) {
		uint64_t t = bt_lat_begin(w);
		size_t n = x->size - off < x->buffer ? (size_t)(x->size - off) : x->buffer;

		if (x->expand) {
			/* The classic loop: one character in, two out. */
			for (size_t i = 0; i < n; i++) {
				int c = getc_unlocked(in);

				if (c == EOF) {
					n = i;
					break;
				}
				putc_unlocked(c, out);
				putc_unlocked(0, out);
			}
		} else {
			n = fread(b, 1, n, in);
			if (n > 0 && fwrite(b, 1, n, out) != n) {
				rc = io_fail(w, x, "write", -errno, off);
				goto out;
			}
		}
		if (n == 0) {
			rc = io_fail(w, x, "read", ferror(in) ? -errno : -EIO, off);
			goto out;
		}
		if (ferror(out)) {
			rc = io_fail(w, x, "write", -errno, off);
			goto out;
		}
		bt_lat_end(w, t);
		off += n;
		progress(w, n);
	}
	if (fflush(out) != 0)
		rc = io_fail(w, x, "write", -errno, off);
out:
	if (in != NULL)
		fclose(in);
	else if (ifd >= 0)
		close(ifd);
	if (out != NULL) {
		if (fclose(out) != 0 && rc == 0)
			rc = io_fail(w, x, "write", -errno, off);
	} else if (ofd >= 0) {
		close(ofd);
	}
	free(b);
	return rc;
}

static int mmap_method(struct bt_worker *w, struct xfer *x)
{
	unsigned char *in = MAP_FAILED, *out = MAP_FAILED;
	int rc = 0;

	if (ftruncate(x->out, (off_t)x->osize) < 0)
		return io_fail(w, x, "ftruncate", -errno, 0);
	/* Out of space shows as SIGBUS on a page of a mapping: reserve the blocks first. */
	if ((rc = posix_fallocate(x->out, 0, (off_t)x->osize)) != 0 && rc != EOPNOTSUPP &&
	    rc != EINVAL)
		return io_fail(w, x, "preallocate", -rc, 0);
	rc = 0;
	in = mmap(NULL, x->size, PROT_READ, MAP_SHARED, x->in, 0);
	out = mmap(NULL, x->osize, PROT_READ | PROT_WRITE, MAP_SHARED, x->out, 0);
	if (in == MAP_FAILED || out == MAP_FAILED) {
		rc = bt_worker_fail(w, "mmap: %s", strerror(errno));
		goto out;
	}
	for (uint64_t off = 0; off < x->size && !bt_worker_stop_raised(w);) {
		uint64_t t = bt_lat_begin(w);
		size_t n = x->size - off < x->buffer ? (size_t)(x->size - off) : x->buffer;

		if (x->expand)
			bt_ascii_to_utf16le(out + 2 * off, in + off, n);
		else
			memcpy(out + off, in + off, n);
		bt_lat_end(w, t);
		off += n;
		progress(w, n);
	}
out:
	if (in != MAP_FAILED)
		munmap(in, x->size);
	if (out != MAP_FAILED)
		munmap(out, x->osize);
	return rc;
}

/* sendfile and copy_file_range: the kernel moves the bytes, buffer= per call. */
static int kernel_method(struct bt_worker *w, struct xfer *x)
{
	loff_t off = 0, ooff = 0;

	while ((uint64_t)off < x->size && !bt_worker_stop_raised(w)) {
		uint64_t t = bt_lat_begin(w), at = (uint64_t)off;
		size_t n = x->size - at < x->buffer ? (size_t)(x->size - at) : x->buffer;
		ssize_t r;

		if (x->method == M_SENDFILE)
			r = sendfile(x->out, x->in, &off, n);
		else
			r = copy_file_range(x->in, &off, x->out, &ooff, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return io_fail(w, x, x->method == M_SENDFILE ? "sendfile to" : "copy_file_range to",
				       r < 0 ? -errno : -EIO, at);
		bt_lat_end(w, t);
		progress(w, (uint64_t)r);
	}
	return 0;
}

/* threads: worker id does its slice, cut at buffer= boundaries, with pread/pwrite. */
static int threads_method(struct bt_worker *w, struct xfer *x)
{
	uint64_t blocks = (x->size + x->buffer - 1) / x->buffer;
	uint64_t b0 = blocks * (uint64_t)w->id / (uint64_t)w->nworkers;
	uint64_t b1 = blocks * (uint64_t)(w->id + 1) / (uint64_t)w->nworkers;
	unsigned char *ib = malloc(x->buffer), *xb = x->expand ? malloc(2 * x->buffer) : NULL;
	int rc = 0;

	if (ib == NULL || (x->expand && xb == NULL)) {
		rc = bt_worker_fail(w, "out of memory");
		goto out;
	}
	for (uint64_t b = b0; b < b1 && !bt_worker_stop_raised(w); b++) {
		uint64_t t = bt_lat_begin(w), off = b * x->buffer;
		size_t want = x->size - off < x->buffer ? (size_t)(x->size - off) : x->buffer;
		ssize_t n = bt_files_pread_full(x->in, ib, want, off);

		if (n != (ssize_t)want) {
			rc = io_fail(w, x, "read", n < 0 ? (int)n : -EIO, off);
			goto out;
		}
		if (x->expand) {
			bt_ascii_to_utf16le(xb, ib, want);
			rc = bt_files_pwrite_all(x->out, xb, 2 * want, 2 * off);
		} else {
			rc = bt_files_pwrite_all(x->out, ib, want, off);
		}
		if (rc < 0) {
			rc = io_fail(w, x, "write", rc, x->expand ? 2 * off : off);
			goto out;
		}
		bt_lat_end(w, t);
		progress(w, want);
	}
out:
	free(ib);
	free(xb);
	return rc;
}

static int xfer_worker(struct bt_worker *w)
{
	struct xfer *x = w->job->state;
	char msg[BT_ERR_MAX];
	int rc;

	switch (x->method) {
	case M_STDIO:
		rc = stdio_method(w, x);
		break;
	case M_MMAP:
		rc = mmap_method(w, x);
		break;
	case M_SENDFILE:
	case M_CFR:
		rc = kernel_method(w, x);
		break;
	case M_THREADS:
		rc = threads_method(w, x);
		break;
	case M_URING:
		rc = bt_files_uring_pipe(w, x->in, x->out, x->size, x->buffer, URING_DEPTH,
					 x->expand, msg, sizeof(msg));
		if (rc < 0)
			return bt_worker_fail(w, "%s", msg);
		break;
	default:
		rc = rw_method(w, x);
		break;
	}
	if (rc == 0 && x->sync == S_FDATASYNC && w->id == 0 && fdatasync(x->out) < 0)
		rc = io_fail(w, x, "fdatasync", -errno, x->osize);
	return rc;
}

/*
 * The output must be exactly the input (copy) or its UTF-16LE (convert):
 * the sizes first, then every byte, through two mappings.
 */
static int xfer_verify(struct bt_job *job, struct bt_err *err)
{
	struct xfer *x = job->state;
	unsigned char *in = MAP_FAILED, *out = MAP_FAILED;
	struct stat st;
	uint64_t end = 0;
	int fd = -1, rc = 0;

	/* Read back through the page cache, whatever io= wrote with. */
	if (fstat(x->out, &st) < 0)
		return bt_err_set(err, -errno, "fstat of the output: %s", strerror(errno));
	if ((uint64_t)st.st_size != x->osize)
		return bt_err_set(err, -EIO, "method=%s: output has %" PRIu64 " bytes, not %" PRIu64,
				  bt_job_param(job, P_METHOD)->text, (uint64_t)st.st_size, x->osize);
	rc = bt_files_open_in(x->files, x->data, 0, &fd, err);
	if (rc < 0)
		return rc;
	/* What the rep left of the input in the page cache, before verify reads it in. */
	rc = bt_pagecache_resident(fd, &end, err);
	if (rc < 0)
		goto out;
	bt_job_metric(job, FM_END, end);
	in = mmap(NULL, x->size, PROT_READ, MAP_SHARED, fd, 0);
	out = mmap(NULL, x->osize, PROT_READ, MAP_SHARED, x->out, 0);
	if (in == MAP_FAILED || out == MAP_FAILED) {
		rc = bt_err_set(err, -errno, "mmap for verify: %s", strerror(errno));
		goto out;
	}
	if (!x->expand && memcmp(in, out, x->size) != 0) {
		uint64_t i = 0;

		while (in[i] == out[i])
			i++;
		rc = bt_err_set(err, -EIO, "method=%s: output differs from the input at byte %" PRIu64,
				bt_job_param(job, P_METHOD)->text, i);
		goto out;
	}
	for (uint64_t i = 0; x->expand && i < x->size; i++) {
		/* The reference conversion: code unit in[i], little-endian. */
		uint16_t u = in[i];

		if (out[2 * i] != (unsigned char)(u & 0xff) || out[2 * i + 1] != (unsigned char)(u >> 8)) {
			rc = bt_err_set(err, -EIO,
					"method=%s: UTF-16LE output wrong at character %" PRIu64,
					bt_job_param(job, P_METHOD)->text, i);
			goto out;
		}
	}
	bt_err_set(err, 0, "ok: %" PRIu64 " bytes %s byte-exact; cache %s, %.0f%% of the input resident at start, %.0f%% at the end",
		   x->osize, x->expand ? "of UTF-16LE" : "copied",
		   bt_files_cache_choices[x->cold], x->size ? 100.0 * (double)x->resident / (double)x->size : 0,
		   x->size ? 100.0 * (double)end / (double)x->size : 0);
out:
	if (in != MAP_FAILED)
		munmap(in, x->size);
	if (out != MAP_FAILED)
		munmap(out, x->osize);
	close(fd);
	return rc;
}

const struct bt_workload bt_wl_copy = {
	.name = "copy",
	.group = "files",
	.title = "file copy: stdio, read/write, advice, prealloc, mmap, sendfile, copy_file_range, io_uring",
	.unit = "bytes",
	.lat_what = "one buffer (read + write, or one call)",
	.params = copy_params,
	.nparams = P_COUNT,
	.metrics = metrics,
	.nmetrics = FM_COUNT,
	.baseline = "method=rw",
	.check = copy_check,
	.run_setup = copy_run_setup,
	.run_teardown = files_run_teardown,
	.setup = copy_setup,
	.worker = xfer_worker,
	.verify = xfer_verify,
	.teardown = xfer_teardown,
};

const struct bt_workload bt_wl_convert = {
	.name = "convert",
	.group = "files",
	.title = "ASCII to UTF-16LE file conversion, the copy methods with a widening step",
	.unit = "bytes",
	.lat_what = "one buffer (read + widen + write)",
	.params = convert_params,
	.nparams = P_COUNT,
	.metrics = metrics,
	.nmetrics = FM_COUNT,
	.baseline = "method=rw",
	.check = convert_check,
	.run_setup = convert_run_setup,
	.run_teardown = files_run_teardown,
	.setup = convert_setup,
	.worker = xfer_worker,
	.verify = xfer_verify,
	.teardown = xfer_teardown,
};
