/*
 * files_data.c - the file workloads' scratch directory, generated data,
 * cache= handling and io_uring pipeline. See files_data.h.
 */
#include "workloads/files_data.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "bt_config.h"
#if BT_HAVE_LIBURING
#include <liburing.h>
#endif
#include "engines/worker.h"

const char *const bt_files_cache_choices[] = { "warm", "cold", NULL };

#define GEN_CHUNK (1u << 20)

int bt_files_open(struct bt_files **out, const char *dir, const char *tag, int keep,
		  struct bt_err *err)
{
	struct bt_files *f = calloc(1, sizeof(*f));
	struct stat st;
	int rc, made = 0;

	*out = NULL;
	if (f == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	f->sc.dirfd = -1;
	f->keep = keep;
	if (dir == NULL || dir[0] == '\0') {
		rc = bt_scratch_create(&f->sc, NULL, tag, err);
	} else {
		/* A missing directory is made (and removed again); an existing one adopted. */
		if (lstat(dir, &st) < 0 && errno == ENOENT) {
			if (mkdir(dir, 0700) < 0) {
				rc = bt_err_set(err, -errno, "dir=%s: cannot create it: %s", dir,
						strerror(errno));
				goto out;
			}
			made = 1;
		}
		rc = bt_scratch_adopt(&f->sc, dir, err);
		if (rc < 0 && made)
			rmdir(dir);
		f->sc.made = made;
	}
out:
	if (rc < 0) {
		free(f);
		return rc;
	}
	*out = f;
	return 0;
}

void bt_files_close(struct bt_files *f)
{
	struct bt_err err = { "" };

	if (f == NULL)
		return;
	while (f->data != NULL) {
		struct bt_fdata *d = f->data;

		f->data = d->next;
		free(d);
	}
	if (f->keep) {
		if (f->sc.dirfd >= 0)
			close(f->sc.dirfd);
	} else {
		(void)bt_scratch_remove(&f->sc, &err);
	}
	free(f);
}

static uint64_t rng(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ull;
}

uint64_t bt_rec_hash(const unsigned char *rec)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (int i = 0; i < BT_REC_SIZE; i++)
		h = (h ^ rec[i]) * 0x100000001b3ull;
	/* A final mix: FNV's low bits are weak, and the digest sums them. */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

/* The generators: fill buf[0..n) with the next n bytes of the file. */
struct gen {
	uint64_t x, index;
	struct bt_fdata *d;
	char pend[256];		/* text: the rest of a line that did not fit */
	size_t pend_len, pend_off;
	void (*fill)(struct gen *g, unsigned char *buf, size_t n);
};

static void fill_records(struct gen *g, unsigned char *buf, size_t n)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static const char hexd[] = "0123456789abcdef";

	for (size_t off = 0; off + BT_REC_SIZE <= n; off += BT_REC_SIZE, g->index++) {
		unsigned char *r = buf + off;
		uint64_t h;
		int i;

		for (i = 0; i < BT_REC_KEY; i++)
			r[i] = (unsigned char)('!' + rng(&g->x) % 94);
		r[i++] = ' ';
		for (int k = 15; k >= 0; k--)
			r[i++] = (unsigned char)hexd[(g->index >> (4 * k)) & 15];
		while (i < BT_REC_SIZE - 1)
			r[i++] = (unsigned char)alnum[rng(&g->x) % 36];
		r[BT_REC_SIZE - 1] = '\n';
		h = bt_rec_hash(r);
		g->d->sum += h;
		g->d->xor ^= h;
	}
}

/* One line of 4..15 lowercase words, about one in 40 of them "needle". */
static size_t text_line(char *line, uint64_t *x)
{
	int words = 4 + (int)(rng(x) % 12);
	size_t len = 0;

	for (int w = 0; w < words; w++) {
		uint64_t r = rng(x);

		if (w)
			line[len++] = ' ';
		if (r % 40 == 0) {
			memcpy(line + len, "needle", 6);
			len += 6;
			continue;
		}
		for (int c = 0, wl = 1 + (int)((r >> 8) % 10); c < wl; c++)
			line[len++] = (char)('a' + (r >> (16 + 2 * c)) % 26);
	}
	line[len++] = '\n';
	return len;
}

static void fill_text(struct gen *g, unsigned char *buf, size_t n)
{
	size_t off = 0;

	while (off < n) {
		size_t k;

		if (g->pend_off == g->pend_len) {
			g->pend_len = text_line(g->pend, &g->x);
			g->pend_off = 0;
		}
		k = g->pend_len - g->pend_off < n - off ? g->pend_len - g->pend_off : n - off;
		memcpy(buf + off, g->pend + g->pend_off, k);
		g->pend_off += k;
		off += k;
	}
}

static void fill_bytes(struct gen *g, unsigned char *buf, size_t n)
{
	bt_pagecache_fill(buf, n, &g->x);
}

/*
 * 1 when the scratch directory already holds d->name (a kept run's) with
 * exactly the bytes g generates: the run reuses it rather than unlinking
 * and writing it again (a rewrite leaves writeback, and on a file system
 * mounted with discard a burst of discards, that slow the next reads: the
 * first rep after it measured the disk settling). g runs over the whole
 * file either way, so the digests it keeps are the file's; on any
 * difference *g and the digests are reset for a fresh generation. Only a
 * regular file is read (no symlink followed, no FIFO waited on).
 */
static int reuse(struct bt_files *f, struct bt_fdata *d, struct gen *g, unsigned char *buf)
{
	const struct gen g0 = *g;
	unsigned char *have = NULL;
	uint64_t off = 0;
	struct stat st;
	int fd, same = 0;

	fd = openat(f->sc.dirfd, d->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != d->size ||
	    (have = malloc(GEN_CHUNK)) == NULL)
		goto out;
	for (same = 1; same && off < d->size; off += GEN_CHUNK) {
		size_t n = d->size - off < GEN_CHUNK ? (size_t)(d->size - off) : GEN_CHUNK;

		g->fill(g, buf, n);
		same = bt_files_pread_full(fd, have, n, off) == (ssize_t)n && memcmp(buf, have, n) == 0;
	}
out:
	if (!same) {
		*g = g0;
		d->sum = d->xor = 0;
	}
	free(have);
	close(fd);
	return same;
}

/*
 * The file d->name of d->size bytes from g, in the scratch directory; an
 * old file of that name (a kept run's) is kept when its bytes are the same
 * (reuse), else replaced. On a write error the partial file is removed and
 * err names the cause and the free space.
 */
static int generate(struct bt_files *f, struct bt_fdata *d, struct gen *g, struct bt_err *err)
{
	unsigned char *buf = malloc(GEN_CHUNK);
	uint64_t off = 0;
	int fd = -1, rc = 0;

	if (buf == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	if (reuse(f, d, g, buf))
		goto out;
	unlinkat(f->sc.dirfd, d->name, 0);
	fd = openat(f->sc.dirfd, d->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		rc = bt_err_set(err, -errno, "cannot create %s: %s", d->path, strerror(errno));
		goto out;
	}
	while (off < d->size) {
		size_t n = d->size - off < GEN_CHUNK ? (size_t)(d->size - off) : GEN_CHUNK;

		g->fill(g, buf, n);
		rc = bt_files_pwrite_all(fd, buf, n, off);
		if (rc < 0) {
			struct statvfs vfs;
			unsigned long long avail = 0;

			if (fstatvfs(fd, &vfs) == 0)
				avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
			bt_err_set(err, rc,
				   "cannot write the %" PRIu64 "-byte file %s: %s (%llu bytes free there)",
				   d->size, d->path, strerror(-rc), avail);
			goto out;
		}
		off += n;
	}
out:
	if (fd >= 0)
		close(fd);
	if (rc < 0 && fd >= 0)
		unlinkat(f->sc.dirfd, d->name, 0);
	free(buf);
	return rc;
}

/* The generated file name, made on first use. */
static int get(struct bt_files *f, const char *name, uint64_t size, uint64_t seed,
	       void (*fill)(struct gen *, unsigned char *, size_t), uint64_t nrec,
	       const struct bt_fdata **out, struct bt_err *err)
{
	struct bt_fdata *d;
	struct gen g = { .x = seed * 0x9e3779b97f4a7c15ull | 1, .fill = fill };
	int rc;

	for (d = f->data; d != NULL; d = d->next)
		if (strcmp(d->name, name) == 0) {
			*out = d;
			return 0;
		}
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->path, sizeof(d->path), "%s/%s", f->sc.path, name);
	d->size = size;
	d->nrec = nrec;
	g.d = d;
	rc = generate(f, d, &g, err);
	if (rc < 0) {
		free(d);
		return rc;
	}
	d->next = f->data;
	f->data = d;
	*out = d;
	return 0;
}

int bt_files_records(struct bt_files *f, uint64_t nrec, uint64_t seed,
		     const struct bt_fdata **out, struct bt_err *err)
{
	char name[64];

	snprintf(name, sizeof(name), "rec-%" PRIu64 "-s%" PRIu64, nrec, seed);
	return get(f, name, nrec * BT_REC_SIZE, seed, fill_records, nrec, out, err);
}

int bt_files_text(struct bt_files *f, uint64_t size, uint64_t seed, const struct bt_fdata **out,
		  struct bt_err *err)
{
	char name[64];

	snprintf(name, sizeof(name), "text-%" PRIu64 "-s%" PRIu64, size, seed);
	return get(f, name, size, seed, fill_text, 0, out, err);
}

int bt_files_bytes(struct bt_files *f, uint64_t size, uint64_t seed, const struct bt_fdata **out,
		   struct bt_err *err)
{
	char name[64];

	snprintf(name, sizeof(name), "bytes-%" PRIu64 "-s%" PRIu64, size, seed);
	return get(f, name, size, seed, fill_bytes, 0, out, err);
}

int bt_files_open_in(const struct bt_files *f, const struct bt_fdata *d, int direct, int *fdp,
		     struct bt_err *err)
{
	if (direct)
		return bt_pagecache_open_direct(d->path, O_RDONLY | O_NOFOLLOW, 0, fdp, err);
	*fdp = openat(f->sc.dirfd, d->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (*fdp < 0)
		return bt_err_set(err, -errno, "%s: %s", d->path, strerror(errno));
	return 0;
}

int bt_files_create(struct bt_files *f, const char *name, int direct, int *fdp,
		    struct bt_err *err)
{
	const int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", f->sc.path, name);
	unlinkat(f->sc.dirfd, name, 0);
	if (direct)
		return bt_pagecache_open_direct(path, flags, 0600, fdp, err);
	*fdp = openat(f->sc.dirfd, name, flags, 0600);
	if (*fdp < 0)
		return bt_err_set(err, -errno, "cannot create %s: %s", path, strerror(errno));
	return 0;
}

void bt_files_unlink(struct bt_files *f, const char *name)
{
	if (f != NULL && f->sc.dirfd >= 0)
		unlinkat(f->sc.dirfd, name, 0);
}

int bt_files_read_in(int fd, struct bt_err *err)
{
	static _Thread_local unsigned char buf[1 << 16];
	uint64_t off = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), (off_t)off)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return bt_err_set(err, -errno, "reading the input in: %s", strerror(errno));
		off += (uint64_t)n;
	}
	return 0;
}

int bt_files_cache(int fd, int cold, uint64_t *resident, struct bt_err *err)
{
	int rc;

	if (cold)
		return bt_pagecache_drop(fd, resident, err);
	rc = bt_files_read_in(fd, err);
	return rc < 0 ? rc : bt_pagecache_resident(fd, resident, err);
}

int bt_files_pwrite_all(int fd, const void *buf, size_t n, uint64_t off)
{
	const unsigned char *p = buf;

	while (n > 0) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -ENOSPC;
		p += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

ssize_t bt_files_pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	unsigned char *p = buf;
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, p + got, n - got, (off_t)(off + got));

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

#if BT_HAVE_LIBURING
/* One slot of the pipeline: a read in flight, or the write of what it read. */
struct slot {
	unsigned char *in, *out;	/* out: expand's buffer (2 x buffer), else in */
	uint64_t off;			/* input offset */
	size_t len;			/* bytes read (for the write: of input) */
	size_t done;			/* bytes of the current phase done so far */
	int writing;
};

static void submit_read(struct io_uring *ring, struct slot *s, int fd, size_t buffer)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_read(sqe, fd, s->in + s->done, (unsigned)(buffer - s->done), s->off + s->done);
	io_uring_sqe_set_data(sqe, s);
}

static void submit_write(struct io_uring *ring, struct slot *s, int fd, int expand)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	size_t total = expand ? 2 * s->len : s->len;
	uint64_t at = expand ? 2 * s->off : s->off;

	io_uring_prep_write(sqe, fd, s->out + s->done, (unsigned)(total - s->done), at + s->done);
	io_uring_sqe_set_data(sqe, s);
}

/*
 * Each slot cycles read -> (expand) -> write -> next read at next_off.
 * Short reads before EOF and short writes are resubmitted for the rest; a
 * read of 0 ends the slot. The ring has a submission entry per slot, and a
 * slot has at most one request in flight, so get_sqe never runs out.
 */
int bt_files_uring_pipe(struct bt_worker *w, int in, int out, uint64_t size, size_t buffer,
			int depth, int expand, char *msg, size_t msgn)
{
	struct io_uring ring;
	struct slot *slots = calloc((size_t)depth, sizeof(*slots));
	uint64_t next_off = 0;
	int rc, active = 0;

	if (slots == NULL) {
		snprintf(msg, msgn, "out of memory");
		return -ENOMEM;
	}
	rc = io_uring_queue_init((unsigned)depth, &ring, 0);
	if (rc < 0) {
		snprintf(msg, msgn, "io_uring_queue_init: %s", strerror(-rc));
		free(slots);
		return rc;
	}
	for (int i = 0; i < depth; i++) {
		slots[i].in = malloc(buffer);
		slots[i].out = expand ? malloc(2 * buffer) : slots[i].in;
		if (slots[i].in == NULL || slots[i].out == NULL) {
			snprintf(msg, msgn, "out of memory");
			rc = -ENOMEM;
			goto out;
		}
	}
	for (int i = 0; i < depth && next_off < size; i++) {
		slots[i].off = next_off;
		next_off += buffer;
		submit_read(&ring, &slots[i], in, buffer);
		active++;
	}
	/* active: requests in flight; each completion takes one, each submission adds one. */
	while (active > 0) {
		struct io_uring_cqe *cqe;
		struct slot *s;
		int res;

		io_uring_submit(&ring);
		rc = io_uring_wait_cqe(&ring, &cqe);
		if (rc == -EINTR)
			continue;
		if (rc < 0) {
			snprintf(msg, msgn, "io_uring_wait_cqe: %s", strerror(-rc));
			goto out;
		}
		s = io_uring_cqe_get_data(cqe);
		res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		active--;
		if (res < 0) {
			rc = res;
			snprintf(msg, msgn, "io_uring %s at offset %" PRIu64 ": %s",
				 s->writing ? "write" : "read", s->off, strerror(-res));
			goto out;
		}
		if (!s->writing) {
			s->done += (size_t)res;
			if (res > 0 && s->done < buffer && s->off + s->done < size) {
				submit_read(&ring, s, in, buffer);
				active++;
				continue;
			}
			if (s->done == 0)
				continue;
			s->len = s->done;
			s->done = 0;
			s->writing = 1;
			if (expand)
				bt_ascii_to_utf16le(s->out, s->in, s->len);
			submit_write(&ring, s, out, expand);
			active++;
			continue;
		}
		if (res == 0) {
			rc = -ENOSPC;
			snprintf(msg, msgn, "io_uring write at offset %" PRIu64 ": %s", s->off,
				 strerror(ENOSPC));
			goto out;
		}
		s->done += (size_t)res;
		if (s->done < (expand ? 2 * s->len : s->len)) {
			submit_write(&ring, s, out, expand);
			active++;
			continue;
		}
		bt_worker_ops(w, s->len);
		bt_worker_bytes(w, s->len);
		s->writing = 0;
		s->done = 0;
		if (next_off >= size || bt_worker_stop_raised(w))
			continue;
		s->off = next_off;
		next_off += buffer;
		submit_read(&ring, s, in, buffer);
		active++;
	}
	rc = 0;
out:
	/* Nothing may still write into the buffers: wait for what is in flight. */
	if (rc < 0)
		while (active-- > 0) {
			struct io_uring_cqe *cqe;

			io_uring_submit(&ring);
			if (io_uring_wait_cqe(&ring, &cqe) < 0)
				break;
			io_uring_cqe_seen(&ring, cqe);
		}
	io_uring_queue_exit(&ring);
	for (int i = 0; i < depth; i++) {
		if (slots[i].out != slots[i].in)
			free(slots[i].out);
		free(slots[i].in);
	}
	free(slots);
	return rc;
}
#else
int bt_files_uring_pipe(struct bt_worker *w, int in, int out, uint64_t size, size_t buffer,
			int depth, int expand, char *msg, size_t msgn)
{
	snprintf(msg, msgn, "%s", BT_FILES_NO_URING);
	return -ENOTSUP;
}
#endif
