/*
 * pagecache.c - scratch directories, files of known content, page-cache
 * drops and residency, O_DIRECT opens. See pagecache.h.
 */
#include "core/pagecache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Directories nested deeper than this inside a scratch directory are refused. */
#define MAX_DEPTH 64

static int open_dir(int at, const char *name)
{
	return openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static int write_marker(int dirfd, const char *path, struct bt_err *err)
{
	int fd = openat(dirfd, BT_SCRATCH_MARKER,
			O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return bt_err_set(err, -errno, "%s: cannot create the scratch marker: %s", path,
				  strerror(errno));
	dprintf(fd, "made by benchtop (pid %ld); removed with everything in it\n", (long)getpid());
	close(fd);
	return 0;
}

/* 1 when dirfd holds a regular-file marker (not a symlink), else 0. */
static int has_marker(int dirfd)
{
	struct stat st;

	return fstatat(dirfd, BT_SCRATCH_MARKER, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode);
}

int bt_scratch_create(struct bt_scratch *sc, const char *parent, const char *tag,
		      struct bt_err *err)
{
	int rc;

	memset(sc, 0, sizeof(*sc));
	sc->dirfd = -1;
	if (parent == NULL || parent[0] == '\0')
		parent = getenv("TMPDIR");
	if (parent == NULL || parent[0] == '\0')
		parent = "/var/tmp";
	if ((size_t)snprintf(sc->path, sizeof(sc->path), "%s/benchtop-%s-XXXXXX", parent,
			     tag ? tag : "scratch") >= sizeof(sc->path))
		return bt_err_set(err, -ENAMETOOLONG, "%s: path too long for a scratch directory",
				  parent);
	if (mkdtemp(sc->path) == NULL)
		return bt_err_set(err, -errno, "cannot create a scratch directory in %s: %s", parent,
				  strerror(errno));
	sc->made = 1;
	sc->dirfd = open_dir(AT_FDCWD, sc->path);
	if (sc->dirfd < 0) {
		rc = bt_err_set(err, -errno, "%s: %s", sc->path, strerror(errno));
		rmdir(sc->path);
		return rc;
	}
	rc = write_marker(sc->dirfd, sc->path, err);
	if (rc < 0) {
		close(sc->dirfd);
		sc->dirfd = -1;
		rmdir(sc->path);
	}
	return rc;
}

int bt_scratch_adopt(struct bt_scratch *sc, const char *dir, struct bt_err *err)
{
	DIR *d = NULL;
	struct dirent *e;
	struct stat st;
	int fd, others = 0, rc = 0;

	memset(sc, 0, sizeof(*sc));
	sc->dirfd = -1;
	if ((size_t)snprintf(sc->path, sizeof(sc->path), "%s", dir) >= sizeof(sc->path))
		return bt_err_set(err, -ENAMETOOLONG, "%s: path too long", dir);
	if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
		return bt_err_set(err, -ELOOP, "%s: a symlink; give the directory itself", dir);
	sc->dirfd = open_dir(AT_FDCWD, dir);
	if (sc->dirfd < 0)
		return bt_err_set(err, -errno, "%s: %s", dir, strerror(errno));
	if (has_marker(sc->dirfd))
		return 0;
	fd = dup(sc->dirfd);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (d == NULL) {
		rc = bt_err_set(err, -errno, "%s: %s", dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	rewinddir(d);	/* a dup shares the offset of dirfd */
	while ((e = readdir(d)) != NULL)
		others += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	if (others > 0) {
		rc = bt_err_set(err, -ENOTEMPTY,
				"%s: not empty, and not a scratch directory benchtop made (no %s); benchtop removes only what it created",
				dir, BT_SCRATCH_MARKER);
		goto out;
	}
	rc = write_marker(sc->dirfd, dir, err);
out:
	if (d != NULL)
		closedir(d);
	if (rc < 0) {
		close(sc->dirfd);
		sc->dirfd = -1;
	}
	return rc;
}

/*
 * Remove what is inside dirfd (not dirfd itself), staying on device dev.
 * Entries are looked at with AT_SYMLINK_NOFOLLOW and directories opened
 * with O_NOFOLLOW, so a symlink is removed as a link and its target is never
 * touched. keep, when not NULL, is a top-level name left in place.
 */
static int remove_inside(int dirfd, dev_t dev, const char *keep, int depth, const char *top,
			 struct bt_err *err)
{
	DIR *d;
	struct dirent *e;
	int fd, rc = 0;

	if (depth > MAX_DEPTH)
		return bt_err_set(err, -ELOOP, "%s: nested more than %d directories deep", top,
				  MAX_DEPTH);
	fd = dup(dirfd);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (d == NULL) {
		rc = bt_err_set(err, -errno, "%s: %s", top, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	/* A dup shares dirfd's offset, which an earlier listing left at the end. */
	rewinddir(d);
	while (rc == 0 && (e = readdir(d)) != NULL) {
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    (keep != NULL && strcmp(e->d_name, keep) == 0))
			continue;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				rc = bt_err_set(err, -errno, "%s: %s: %s", top, e->d_name,
						strerror(errno));
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub;

			if (st.st_dev != dev) {
				rc = bt_err_set(err, -EXDEV,
						"%s: %s is another file system mounted inside; not removed",
						top, e->d_name);
				break;
			}
			sub = open_dir(dirfd, e->d_name);
			if (sub < 0) {
				rc = bt_err_set(err, -errno, "%s: %s: %s", top, e->d_name,
						strerror(errno));
				break;
			}
			rc = remove_inside(sub, dev, NULL, depth + 1, top, err);
			close(sub);
			if (rc == 0 && unlinkat(dirfd, e->d_name, AT_REMOVEDIR) < 0)
				rc = bt_err_set(err, -errno, "%s: cannot remove %s: %s", top,
						e->d_name, strerror(errno));
		} else if (unlinkat(dirfd, e->d_name, 0) < 0 && errno != ENOENT) {
			rc = bt_err_set(err, -errno, "%s: cannot remove %s: %s", top, e->d_name,
					strerror(errno));
		}
	}
	closedir(d);
	return rc;
}

int bt_scratch_remove(struct bt_scratch *sc, struct bt_err *err)
{
	struct stat st;
	int rc = 0;

	if (sc->dirfd < 0)
		return 0;
	if (!has_marker(sc->dirfd)) {
		rc = bt_err_set(err, -EPERM, "%s: the scratch marker %s is gone; not removing anything",
				sc->path, BT_SCRATCH_MARKER);
		goto out;
	}
	if (fstat(sc->dirfd, &st) < 0) {
		rc = bt_err_set(err, -errno, "%s: %s", sc->path, strerror(errno));
		goto out;
	}
	rc = remove_inside(sc->dirfd, st.st_dev, BT_SCRATCH_MARKER, 0, sc->path, err);
	if (rc < 0)
		goto out;
	if (unlinkat(sc->dirfd, BT_SCRATCH_MARKER, 0) < 0 && errno != ENOENT) {
		rc = bt_err_set(err, -errno, "%s: cannot remove the marker: %s", sc->path,
				strerror(errno));
		goto out;
	}
	/* By path: rmdir of a symlink put in its place fails (ENOTDIR), it never follows. */
	if (sc->made && rmdir(sc->path) < 0 && errno != ENOENT)
		rc = bt_err_set(err, -errno, "cannot remove %s: %s", sc->path, strerror(errno));
out:
	close(sc->dirfd);
	sc->dirfd = -1;
	return rc;
}

void bt_pagecache_fill(unsigned char *p, size_t n, uint64_t *state)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t v;

		*state ^= *state >> 12;
		*state ^= *state << 25;
		*state ^= *state >> 27;
		v = *state * 2685821657736338717ull;
		memcpy(p + i, &v, n - i < 8 ? n - i : 8);
	}
}

int bt_scratch_file(struct bt_scratch *sc, const char *name, uint64_t size, uint64_t seed,
		    void (*each)(const unsigned char *buf, size_t n, void *arg), void *arg,
		    int *fdp, struct bt_err *err)
{
	const size_t bufsz = 1 << 20;
	unsigned char *buf = NULL;
	uint64_t x = seed ? seed : 0x9e3779b97f4a7c15ull, off = 0;
	int fd = -1, rc = 0, named = 0;

	*fdp = -1;
	if (sc->dirfd < 0 || (name != NULL && (strchr(name, '/') != NULL || name[0] == '\0' ||
					       strcmp(name, BT_SCRATCH_MARKER) == 0)))
		return bt_err_set(err, -EINVAL, "%s: not a file name for the scratch directory",
				  name ? name : "(none)");
	if (name == NULL) {
		fd = openat(sc->dirfd, ".", O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
		/* No O_TMPFILE on this file system: a name, unlinked at once. */
		if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
			fd = openat(sc->dirfd, "anonymous",
				    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
			if (fd >= 0)
				unlinkat(sc->dirfd, "anonymous", 0);
		}
		name = "(anonymous)";
	} else {
		fd = openat(sc->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		named = 1;
	}
	if (fd < 0)
		return bt_err_set(err, -errno, "cannot create %s/%s: %s", sc->path, name,
				  strerror(errno));
	buf = malloc(bufsz);
	if (buf == NULL) {
		rc = bt_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	while (off < size) {
		size_t n = size - off < bufsz ? (size_t)(size - off) : bufsz, done = 0;

		bt_pagecache_fill(buf, n, &x);
		while (done < n) {
			ssize_t w = pwrite(fd, buf + done, n - done, (off_t)(off + done));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				int e = w < 0 ? errno : ENOSPC;
				struct statvfs vfs;
				unsigned long long avail = 0;

				if (fstatvfs(fd, &vfs) == 0)
					avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
				rc = bt_err_set(err, -e,
						"cannot write the %llu-byte file %s/%s: %s after %llu bytes (%llu bytes free there)",
						(unsigned long long)size, sc->path, name, strerror(e),
						(unsigned long long)(off + done), avail);
				goto out;
			}
			done += (size_t)w;
		}
		if (each != NULL)
			each(buf, n, arg);
		off += n;
	}
	*fdp = fd;
	fd = -1;
out:
	if (fd >= 0) {
		close(fd);
		if (named)
			unlinkat(sc->dirfd, name, 0);
	}
	free(buf);
	return rc;
}

int bt_pagecache_resident(int fd, uint64_t *bytes, struct bt_err *err)
{
	const uint64_t win = 1ull << 30;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), size, in = 0;
	unsigned char *vec = NULL;
	struct stat st;
	int rc = 0;

	*bytes = 0;
	if (fstat(fd, &st) < 0)
		return bt_err_set(err, -errno, "fstat: %s", strerror(errno));
	size = (uint64_t)st.st_size;
	if (size == 0)
		return 0;
	vec = malloc((size_t)(win / pg));
	if (vec == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	for (uint64_t off = 0; off < size; off += win) {
		size_t len = (size_t)(size - off < win ? size - off : win);
		size_t np = (size_t)((len + pg - 1) / pg);
		void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);

		if (m == MAP_FAILED) {
			rc = bt_err_set(err, -errno, "mmap for mincore: %s", strerror(errno));
			goto out;
		}
		if (mincore(m, len, vec) < 0) {
			rc = bt_err_set(err, -errno, "mincore: %s", strerror(errno));
			munmap(m, len);
			goto out;
		}
		for (size_t i = 0; i < np; i++) {
			uint64_t start = off + (uint64_t)i * pg;

			if (vec[i] & 1)
				in += size - start < pg ? size - start : pg;
		}
		munmap(m, len);
	}
	*bytes = in;
out:
	free(vec);
	return rc;
}

int bt_pagecache_drop(int fd, uint64_t *resident, struct bt_err *err)
{
	int rc;

	/* EINVAL / EROFS: nothing this file can flush, so nothing is dirty. */
	if (fsync(fd) < 0 && errno != EINVAL && errno != EROFS)
		return bt_err_set(err, -errno, "fsync before dropping the page cache: %s",
				  strerror(errno));
	rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (rc != 0)
		return bt_err_set(err, -rc, "posix_fadvise(DONTNEED): %s", strerror(rc));
	return resident ? bt_pagecache_resident(fd, resident, err) : 0;
}

/* The file system's name by statfs magic, for the few that lack direct I/O. */
static const char *fs_name(unsigned long type)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} names[] = {
		{ 0x01021994, "tmpfs" }, { 0x858458f6, "ramfs" }, { 0x794c7630, "overlayfs" },
		{ 0x65735546, "fuse" }, { 0x9fa0, "proc" }, { 0x62656572, "sysfs" },
		{ 0x73717368, "squashfs" }, { 0xe0f5e1e2, "erofs" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].magic == type)
			return names[i].name;
	return NULL;
}

int bt_pagecache_open_direct(const char *path, int flags, mode_t mode, int *fdp,
			     struct bt_err *err)
{
	struct statfs fs;
	char dir[4096], *slash;
	const char *name;

	*fdp = open(path, flags | O_DIRECT | O_CLOEXEC, mode);
	if (*fdp >= 0)
		return 0;
	if (errno != EINVAL)
		return bt_err_set(err, -errno, "%s: %s", path, strerror(errno));
	snprintf(dir, sizeof(dir), "%s", path);
	if (statfs(dir, &fs) < 0) {
		slash = strrchr(dir, '/');
		if (slash == NULL)
			snprintf(dir, sizeof(dir), ".");
		else
			slash[slash == dir] = '\0';
		if (statfs(dir, &fs) < 0)
			return bt_err_set(err, -EINVAL, "O_DIRECT: %s: refused (EINVAL)", path);
	}
	name = fs_name((unsigned long)fs.f_type);
	if (name != NULL)
		return bt_err_set(err, -EINVAL, "O_DIRECT: %s is on %s, which has no direct I/O",
				  path, name);
	return bt_err_set(err, -EINVAL,
			  "O_DIRECT: %s is on a file system (type 0x%lx) which has no direct I/O",
			  path, (unsigned long)fs.f_type);
}
