/*
 * file.c - opening files safely (see file.h).
 */
#include "core/file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *bt_file_kind(const struct stat *st)
{
	switch (st->st_mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	case S_IFLNK:
		return "a symbolic link";
	default:
		return "not a regular file";
	}
}

/*
 * O_NONBLOCK makes the open of a FIFO with no writer return at once; the
 * fstat then refuses it. For a regular file the flag means nothing, and it
 * is cleared anyway so the stream behaves as any other.
 */
int bt_file_open_read(const char *path, uint64_t max_size, FILE **out, struct stat *st,
		      struct bt_err *err)
{
	struct stat sb;
	int fd, flags, ret = 0;
	FILE *f;

	*out = NULL;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int e = errno;

		return bt_err_set(err, -e, "%s: %s", path, strerror(e));
	}
	if (fstat(fd, &sb) < 0) {
		ret = -errno;
		bt_err_set(err, ret, "%s: %s", path, strerror(-ret));
		goto fail;
	}
	if (!S_ISREG(sb.st_mode)) {
		ret = bt_err_set(err, S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL,
				 "%s: %s, not a regular file", path, bt_file_kind(&sb));
		goto fail;
	}
	if (max_size > 0 && (uint64_t)sb.st_size > max_size) {
		ret = bt_err_set(err, -EFBIG, "%s: %" PRIu64 " bytes, larger than the %" PRIu64
				 " MiB limit", path, (uint64_t)sb.st_size, max_size >> 20);
		goto fail;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		ret = -errno;
		bt_err_set(err, ret, "%s: %s", path, strerror(-ret));
		goto fail;
	}
	f = fdopen(fd, "r");
	if (f == NULL) {
		ret = -errno;
		bt_err_set(err, ret, "%s: %s", path, strerror(-ret));
		goto fail;
	}
	if (st != NULL)
		*st = sb;
	*out = f;
	return 0;
fail:
	close(fd);
	return ret;
}

int bt_file_same(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(a, &sa) < 0 || stat(b, &sb) < 0)
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int bt_file_out_open(struct bt_file_out *o, const char *path, struct bt_err *err)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	if (strlen(path) + 8 >= sizeof(o->path))
		return bt_err_set(err, -ENAMETOOLONG, "%s: path too long", path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST) {
		if (lstat(path, &st) < 0) {
			int e = errno;

			return bt_err_set(err, -e, "%s: %s", path, strerror(e));
		}
		if (!S_ISREG(st.st_mode))
			return bt_err_set(err, -EEXIST,
					  "%s exists and is %s: benchtop replaces only a regular file",
					  path, bt_file_kind(&st));
		snprintf(o->tmp, sizeof(o->tmp), "%s.XXXXXX", path);
		fd = mkostemp(o->tmp, O_CLOEXEC);
		if (fd < 0) {
			int e = errno;

			o->tmp[0] = '\0';
			return bt_err_set(err, -e, "cannot create a temporary file next to %s: %s",
					  path, strerror(e));
		}
		/* mkostemp makes it 0600; an export is as readable as a new file. */
		(void)fchmod(fd, st.st_mode & 07777);
	} else if (fd < 0) {
		int e = errno;

		return bt_err_set(err, -e, "cannot create %s: %s", path,
				  e == ELOOP ? "a symbolic link (not followed)" : strerror(e));
	}
	o->f = fdopen(fd, "w");
	if (o->f == NULL) {
		int e = errno;

		close(fd);
		unlink(o->tmp[0] ? o->tmp : path);
		o->tmp[0] = '\0';
		return bt_err_set(err, -e, "cannot open %s: %s", path, strerror(e));
	}
	/* Set last: abort removes o->path when o->tmp is empty. */
	snprintf(o->path, sizeof(o->path), "%s", path);
	return 0;
}

int bt_file_out_commit(struct bt_file_out *o, struct bt_err *err)
{
	int ret = 0;

	errno = 0;
	if (ferror(o->f) || fflush(o->f) != 0 || (o->tmp[0] && fsync(fileno(o->f)) != 0))
		ret = errno > 0 ? -errno : -EIO;
	if (fclose(o->f) != 0 && ret == 0)
		ret = errno > 0 ? -errno : -EIO;
	o->f = NULL;
	if (ret == 0 && o->tmp[0] && rename(o->tmp, o->path) != 0)
		ret = -errno;
	if (ret < 0) {
		bt_err_set(err, ret, "cannot write %s: %s", o->path, strerror(-ret));
		bt_file_out_abort(o);
		return ret;
	}
	o->tmp[0] = '\0';
	return 0;
}

/* Removes the temporary file, or the new file open created: nothing half-written stays. */
void bt_file_out_abort(struct bt_file_out *o)
{
	if (o->f != NULL)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	else if (o->path[0])
		unlink(o->path);
	o->tmp[0] = '\0';
	o->path[0] = '\0';
}
