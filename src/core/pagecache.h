/*
 * pagecache.h - scratch directories, files of known content, and the page
 * cache around them: drop a file's pages and say how much stayed resident,
 * open for direct I/O or say plainly why the file system has none.
 *
 * Below the workloads: no threads of its own, no terminal. Every function
 * may be called from any thread on its own objects; none keeps global state.
 */
#ifndef BT_CORE_PAGECACHE_H
#define BT_CORE_PAGECACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/err.h"

/* The file that marks a directory as benchtop's own scratch directory. */
#define BT_SCRATCH_MARKER ".benchtop-scratch"

/*
 * A scratch directory: made by bt_scratch_create (or an empty one taken
 * over by bt_scratch_adopt) and emptied by bt_scratch_remove, which works
 * through dirfd, the directory opened when it was made: renaming the path or
 * putting a symlink in its place cannot point the removal elsewhere, and a
 * symlink inside is unlinked, never followed. Caller-owned; zero it or let
 * create/adopt fill it.
 */
struct bt_scratch {
	char path[4096];
	int dirfd;		/* O_DIRECTORY | O_NOFOLLOW; -1 when closed */
	int made;		/* 1: we made the directory itself (removal rmdirs it) */
};

/*
 * Make a fresh directory PARENT/benchtop-TAG-XXXXXX (mkdtemp) holding the
 * marker. parent NULL or "": $TMPDIR, else /var/tmp (a disk, where dropping
 * pages means something; /tmp is often tmpfs). 0 or -errno with err set.
 */
int bt_scratch_create(struct bt_scratch *sc, const char *parent, const char *tag,
		      struct bt_err *err);

/*
 * Use dir, which must exist, not be a symlink, and be empty or hold the
 * marker (an earlier benchtop's scratch directory); anything else is refused
 * with -ENOTEMPTY: benchtop never empties a directory it did not create. The
 * directory itself is left in place by bt_scratch_remove.
 */
int bt_scratch_adopt(struct bt_scratch *sc, const char *dir, struct bt_err *err);

/*
 * Remove everything inside the scratch directory, depth first, without
 * following symlinks, then the marker, then the directory itself when we
 * made it; close dirfd. Refuses (-EPERM) when the marker is gone. Safe to
 * call on a closed or zeroed-then-failed scratch (dirfd -1): returns 0.
 */
int bt_scratch_remove(struct bt_scratch *sc, struct bt_err *err);

/*
 * Deterministic content: xorshift64* from *state (never 0), 8 bytes per
 * step; the same state gives the same bytes, so a reader can check a file.
 */
void bt_pagecache_fill(unsigned char *p, size_t n, uint64_t *state);

/*
 * Create name (a plain name, no '/') in the scratch directory, O_EXCL and
 * O_NOFOLLOW, or with name NULL an anonymous file there (O_TMPFILE, else a
 * name unlinked at once) that is gone with its last descriptor, even when
 * the process is killed mid-write; and write size bytes of bt_pagecache_fill content from seed.
 * each, when not NULL, sees every buffer as written (to digest it on the
 * way). Every write is checked; a full file system says so ("No space left
 * on device", with the bytes written and the free space). *fdp: the file,
 * open O_RDWR | O_CLOEXEC, its pages still dirty. On failure the partial
 * file is unlinked.
 */
int bt_scratch_file(struct bt_scratch *sc, const char *name, uint64_t size, uint64_t seed,
		    void (*each)(const unsigned char *buf, size_t n, void *arg), void *arg,
		    int *fdp, struct bt_err *err);

/*
 * Bytes of fd's file in the page cache now (mincore over a read-only
 * mapping, 1 GiB at a time); the last partial page counts its bytes only,
 * so the figure is <= the file's size. 0 or -errno.
 */
int bt_pagecache_resident(int fd, uint64_t *bytes, struct bt_err *err);

/*
 * Drop fd's file from the page cache: fsync (dirty pages cannot be
 * dropped), then posix_fadvise(POSIX_FADV_DONTNEED); then *resident (when
 * not NULL) is what stayed, as bt_pagecache_resident says. Not every file
 * system lets pages go (tmpfs keeps them all: they are the file).
 */
int bt_pagecache_drop(int fd, uint64_t *resident, struct bt_err *err);

/*
 * open(path, flags | O_DIRECT, mode). Where the file system has no direct
 * I/O (open fails with EINVAL) the one-line refusal names it:
 * "O_DIRECT: /dev/shm/x is on tmpfs, which has no direct I/O"; -EINVAL.
 */
int bt_pagecache_open_direct(const char *path, int flags, mode_t mode, int *fdp,
			     struct bt_err *err);

#endif
