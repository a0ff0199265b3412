/*
 * files_data.h - what the file workloads (copy, convert, grep, sort, scan)
 * share: the scratch directory of a run, the data generated into it (the
 * classic RandFile of 64-byte records, ASCII text, random bytes), the
 * page-cache handling of cache=, and the io_uring pipeline.
 *
 * A run owns one struct bt_files (made by run_setup, freed by run_teardown).
 * Data files are generated on first use, named by what they hold
 * ("rec-100000-s1"), and reused by every later cell that asks for the same:
 * a sweep over records=100000,400000 generates each file once per run. All
 * of it is on the runner's controller thread; workers only read the files.
 */
#ifndef BT_WORKLOADS_FILES_DATA_H
#define BT_WORKLOADS_FILES_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/err.h"
#include "core/pagecache.h"
#include "core/param.h"

/* One RandFile record: KEY printable bytes, a space, payload, '\n'. */
#define BT_REC_SIZE 64
#define BT_REC_KEY 10

/* A generated file in the run's scratch directory. */
struct bt_fdata {
	char name[64];		/* in the scratch directory */
	char path[4200];	/* the scratch directory's path + name, for O_DIRECT opens */
	uint64_t size;		/* bytes */
	uint64_t nrec;		/* records: how many */
	uint64_t sum, xor;	/* records: multiset digest (sum and xor of bt_rec_hash) */
	struct bt_fdata *next;
};

struct bt_files {
	struct bt_scratch sc;
	int keep;		/* keep=1: leave the directory and its files */
	struct bt_fdata *data;	/* generated so far */
};

/* The parameters every file workload has, as table entries (see copy.c). */
#define BT_FILES_PARAM_SEED(help_)                                                            \
	{ .name = "seed", .kind = BT_P_INT, .def = "1", .min = 1, .max = INT64_MAX,           \
	  .help = help_ }
#define BT_FILES_PARAM_DIR                                                                    \
	{ .name = "dir", .kind = BT_P_STRING, .def = "",                                      \
	  .help = "scratch directory (empty: a new one under $TMPDIR, else /var/tmp); "       \
		  "an existing one must be empty or benchtop's own",                          \
	  .flags = BT_PF_NOSWEEP | BT_PF_QUIET }
#define BT_FILES_PARAM_KEEP                                                                   \
	{ .name = "keep", .kind = BT_P_BOOL, .def = "off",                                    \
	  .help = "keep the scratch directory and its data after the run",                   \
	  .flags = BT_PF_NOSWEEP | BT_PF_QUIET }
#define BT_FILES_PARAM_CACHE                                                                  \
	{ .name = "cache", .kind = BT_P_ENUM, .def = "warm", .choices = bt_files_cache_choices, \
	  .help = "warm (inputs read in first) or cold (fsync + DONTNEED before each rep; "     \
		  "metric resident says what stayed)" }

enum { BT_CACHE_WARM, BT_CACHE_COLD };
extern const char *const bt_files_cache_choices[];

/*
 * Open the run's scratch directory: dir empty makes a fresh one under
 * $TMPDIR (else /var/tmp); an existing dir must be empty or hold benchtop's
 * marker (anything else is refused, never emptied); a missing dir is made.
 * *out is freed by bt_files_close. 0 or -errno with err set.
 */
int bt_files_open(struct bt_files **out, const char *dir, const char *tag, int keep,
		  struct bt_err *err);

/* Remove the directory and everything in it (unless keep), free f. NULL is fine. */
void bt_files_close(struct bt_files *f);

/* The record file of nrec records from seed, generated on first use. */
int bt_files_records(struct bt_files *f, uint64_t nrec, uint64_t seed,
		     const struct bt_fdata **out, struct bt_err *err);

/* ASCII text of size bytes: lines of words, some holding "needle". */
int bt_files_text(struct bt_files *f, uint64_t size, uint64_t seed, const struct bt_fdata **out,
		  struct bt_err *err);

/* size bytes of bt_pagecache_fill content from seed. */
int bt_files_bytes(struct bt_files *f, uint64_t size, uint64_t seed, const struct bt_fdata **out,
		   struct bt_err *err);

/* A 64-bit hash of one record, for the multiset digest. */
uint64_t bt_rec_hash(const unsigned char *rec);

/*
 * Open a generated file read-only (no symlinks followed); direct: with
 * O_DIRECT (bt_pagecache_open_direct's refusal where there is none).
 */
int bt_files_open_in(const struct bt_files *f, const struct bt_fdata *d, int direct, int *fdp,
		     struct bt_err *err);

/*
 * Create the output file name afresh (an old one of that name, from an
 * earlier rep or a kept run, is unlinked first), O_RDWR, optionally
 * O_DIRECT. Remove it with bt_files_unlink.
 */
int bt_files_create(struct bt_files *f, const char *name, int direct, int *fdp,
		    struct bt_err *err);
void bt_files_unlink(struct bt_files *f, const char *name);

/*
 * cache=: cold drops fd's pages (fsync + DONTNEED), warm reads the file in;
 * *resident is what is in the page cache afterwards.
 */
int bt_files_cache(int fd, int cold, uint64_t *resident, struct bt_err *err);

/* Read the whole of fd's file (for warm), from offset 0. */
int bt_files_read_in(int fd, struct bt_err *err);

/* Write all of buf at off, retrying short writes and EINTR; 0 or -errno. */
int bt_files_pwrite_all(int fd, const void *buf, size_t n, uint64_t off);

/* Read up to n at off, retrying EINTR and short reads until n or EOF; bytes read or -errno. */
ssize_t bt_files_pread_full(int fd, void *buf, size_t n, uint64_t off);

/* ASCII to UTF-16LE: out gets 2 * n bytes. */
static inline void bt_ascii_to_utf16le(unsigned char *out, const unsigned char *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = in[i];
		out[2 * i + 1] = 0;
	}
}

struct bt_worker;

/*
 * Overlapped I/O through io_uring (liburing): depth reads of buffer bytes
 * in flight; each completed read is written (through expand, when not
 * NULL: ASCII to UTF-16LE, the output at twice the offset) and its slot
 * reused for the next read. Progress is counted as bytes of input on w.
 * 0, or -errno with msg set; -ENOTSUP when built without liburing.
 */
int bt_files_uring_pipe(struct bt_worker *w, int in, int out, uint64_t size, size_t buffer,
			int depth, int expand, char *msg, size_t msgn);

/* The one line for a value that needs liburing in a build without it. */
#define BT_FILES_NO_URING                                                                     \
	"method=uring: built without liburing (apt install liburing-dev; then rebuild with -Dliburing=enabled)"

#endif
