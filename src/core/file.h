/*
 * file.h - opening files safely: what benchtop reads (recordings, plans,
 * themes) and what it writes for the user (exports).
 *
 * A reader never blocks on a FIFO, never reads a device or a directory, and
 * never takes more than a stated size. A writer never truncates a file it did
 * not just create: a new file is created exclusively, an existing one is
 * replaced through a temporary file in the same directory and rename(2), and
 * only when it is a regular file (a symlink is refused, not followed).
 */
#ifndef BT_CORE_FILE_H
#define BT_CORE_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "core/err.h"

/* Size limits of what benchtop reads (README "Limits"). */
#define BT_FILE_MAX_RECORDING (1024ull << 20)	/* 1 GiB */
#define BT_FILE_MAX_PLAN (4u << 20)		/* 4 MiB */
#define BT_FILE_MAX_THEME (1u << 20)		/* 1 MiB */

/*
 * Open path for reading. Symlinks are followed; what they end at must be a
 * regular file of at most max_size bytes (0: no limit), else one line in err
 * ("x: a FIFO, not a regular file"; "x: 3.0 GiB, larger than the 1.0 GiB
 * limit"). The open itself is non-blocking, so a FIFO cannot hang it; the
 * returned stream blocks as usual. *st (when not NULL) gets the file's
 * fstat. Returns 0 with *out set, or -errno.
 */
int bt_file_open_read(const char *path, uint64_t max_size, FILE **out, struct stat *st,
		      struct bt_err *err);

/* "a FIFO", "a directory", "a character device" ...: what st is, for messages. */
const char *bt_file_kind(const struct stat *st);

/* 1 when a and b name the same file (device and inode); 0 otherwise or when either is missing. */
int bt_file_same(const char *a, const char *b);

/*
 * An output file written whole, then committed. open: a path that does not
 * exist is created exclusively (O_EXCL, no symlink followed); an existing
 * regular file gets a temporary sibling that replaces it on commit; anything
 * else (symlink, FIFO, directory, device) is refused. commit: flush, check
 * every error, close, rename. abort: close and remove what open created.
 */
struct bt_file_out {
	FILE *f;
	char path[4096];
	char tmp[4096];		/* "" when writing path itself */
};

int bt_file_out_open(struct bt_file_out *o, const char *path, struct bt_err *err);
int bt_file_out_commit(struct bt_file_out *o, struct bt_err *err);
void bt_file_out_abort(struct bt_file_out *o);

#endif
