/*
 * test_pagecache.c - core/pagecache and core/which: scratch directories are
 * made and removed whole, a foreign non-empty directory is refused, a
 * symlink inside is removed without touching its target, a file of known
 * content reads back as written, residency after a write and after a drop
 * stays within the file, O_DIRECT is refused with one line on a file system
 * without it, a full file system says so (on a 1 MiB tmpfs, where mounting
 * is permitted), and programs are found on $PATH.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <cmocka.h>

#include "scratch_fixture.h"

#include "core/pagecache.h"
#include "core/which.h"

#define TMPFS_MAGIC_ 0x01021994

/* A private parent for each test, on /var/tmp (a disk here, as a default scratch is). */
static void make_parent(char *dir, size_t n)
{
	scratch_dir(dir, n, "pc");
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_scratch_create_remove(void **state)
{
	char parent[64], p[4200], prefix[100];
	struct bt_scratch sc;
	struct bt_err err = { "" };
	struct stat st;

	make_parent(parent, sizeof(parent));
	assert_int_equal(bt_scratch_create(&sc, parent, "t", &err), 0);
	snprintf(prefix, sizeof(prefix), "%s/benchtop-t-", parent);
	assert_int_equal(strncmp(sc.path, prefix, strlen(prefix)), 0);
	assert_int_equal(strlen(sc.path), strlen(prefix) + 6);
	assert_true(sc.dirfd >= 0);
	snprintf(p, sizeof(p), "%s/%s", sc.path, BT_SCRATCH_MARKER);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	/* Files and nested directories: all of it goes. */
	snprintf(p, sizeof(p), "%s/a", sc.path);
	put(p, "a");
	snprintf(p, sizeof(p), "%s/d", sc.path);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/d/e", sc.path);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/d/e/f", sc.path);
	put(p, "f");
	assert_int_equal(scratch_entries(parent), 1);
	assert_int_equal(bt_scratch_remove(&sc, &err), 0);
	assert_int_equal(sc.dirfd, -1);
	assert_int_equal(scratch_entries(parent), 0);
	/* Twice is harmless. */
	assert_int_equal(bt_scratch_remove(&sc, &err), 0);

	/* No parent: $TMPDIR. */
	setenv("TMPDIR", parent, 1);
	assert_int_equal(bt_scratch_create(&sc, NULL, "env", &err), 0);
	snprintf(prefix, sizeof(prefix), "%s/benchtop-env-", parent);
	assert_int_equal(strncmp(sc.path, prefix, strlen(prefix)), 0);
	assert_int_equal(bt_scratch_remove(&sc, &err), 0);
	unsetenv("TMPDIR");
	assert_int_equal(rmdir(parent), 0);
}

static void test_scratch_adopt(void **state)
{
	char parent[64], dir[100], link[100], p[200], want[BT_ERR_MAX];
	struct bt_scratch sc;
	struct bt_err err = { "" };

	make_parent(parent, sizeof(parent));
	snprintf(dir, sizeof(dir), "%s/user", parent);
	assert_int_equal(mkdir(dir, 0700), 0);
	/* Empty: taken over, emptied on removal, the directory itself kept. */
	assert_int_equal(bt_scratch_adopt(&sc, dir, &err), 0);
	snprintf(p, sizeof(p), "%s/x", dir);
	put(p, "x");
	assert_int_equal(bt_scratch_remove(&sc, &err), 0);
	assert_int_equal(scratch_entries(dir), 0);
	/* Not empty and no marker: refused, untouched. */
	put(p, "mine");
	assert_int_equal(bt_scratch_adopt(&sc, dir, &err), -ENOTEMPTY);
	snprintf(want, sizeof(want),
		 "%s: not empty, and not a scratch directory benchtop made (no .benchtop-scratch); benchtop removes only what it created",
		 dir);
	assert_string_equal(err.msg, want);
	assert_int_equal(sc.dirfd, -1);
	assert_int_equal(bt_scratch_remove(&sc, &err), 0);
	assert_int_equal(access(p, F_OK), 0);
	/* With the marker (an earlier run's): taken. */
	snprintf(p, sizeof(p), "%s/%s", dir, BT_SCRATCH_MARKER);
	put(p, "");
	assert_int_equal(bt_scratch_adopt(&sc, dir, &err), 0);
	assert_int_equal(bt_scratch_remove(&sc, &err), 0);
	assert_int_equal(scratch_entries(dir), 0);
	/* A symlink to a directory is not followed. */
	snprintf(link, sizeof(link), "%s/link", parent);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(bt_scratch_adopt(&sc, link, &err), -ELOOP);
	snprintf(want, sizeof(want), "%s: a symlink; give the directory itself", link);
	assert_string_equal(err.msg, want);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(rmdir(parent), 0);
}

/* Symlinks inside (to a directory and to a file outside) are removed as links only. */
static void test_scratch_symlink_not_followed(void **state)
{
	char parent[64], out[100], victim[120], p[4200], t[4200];
	struct bt_scratch sc;
	struct bt_err err = { "" };
	char buf[16] = "";
	FILE *f;

	make_parent(parent, sizeof(parent));
	snprintf(out, sizeof(out), "%s/outside", parent);
	assert_int_equal(mkdir(out, 0700), 0);
	snprintf(victim, sizeof(victim), "%s/victim", out);
	put(victim, "keep me");
	assert_int_equal(bt_scratch_create(&sc, parent, "sym", &err), 0);
	snprintf(p, sizeof(p), "%s/dirlink", sc.path);
	assert_int_equal(symlink(out, p), 0);
	snprintf(p, sizeof(p), "%s/filelink", sc.path);
	assert_int_equal(symlink(victim, p), 0);
	snprintf(p, sizeof(p), "%s/sub", sc.path);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(t, sizeof(t), "%s/sub/deeplink", sc.path);
	assert_int_equal(symlink(out, t), 0);
	assert_int_equal(bt_scratch_remove(&sc, &err), 0);
	/* The scratch directory is gone; outside and its file are intact. */
	assert_int_equal(scratch_entries(parent), 1);
	assert_int_equal(scratch_entries(out), 1);
	f = fopen(victim, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "keep me");
	assert_int_equal(unlink(victim), 0);
	assert_int_equal(rmdir(out), 0);
	assert_int_equal(rmdir(parent), 0);
}

/* Without its marker, a scratch directory is no longer ours: nothing is removed. */
static void test_scratch_marker_gone(void **state)
{
	char parent[64], p[4200], want[BT_ERR_MAX];
	struct bt_scratch sc;
	struct bt_err err = { "" };

	make_parent(parent, sizeof(parent));
	assert_int_equal(bt_scratch_create(&sc, parent, "m", &err), 0);
	snprintf(p, sizeof(p), "%s/%s", sc.path, BT_SCRATCH_MARKER);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/data", sc.path);
	put(p, "d");
	assert_int_equal(bt_scratch_remove(&sc, &err), -EPERM);
	snprintf(want, sizeof(want),
		 "%s: the scratch marker .benchtop-scratch is gone; not removing anything", sc.path);
	assert_string_equal(err.msg, want);
	assert_int_equal(access(p, F_OK), 0);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(rmdir(sc.path), 0);
	assert_int_equal(rmdir(parent), 0);
}

static void count_bytes(const unsigned char *buf, size_t n, void *arg)
{
	*(uint64_t *)arg += n;
}

/* The file holds exactly bt_pagecache_fill's bytes from the seed; bad names are refused. */
static void test_scratch_file_content(void **state)
{
	const uint64_t size = 3 * 1048576 + 5;
	char parent[64];
	struct bt_scratch sc;
	struct bt_err err = { "" };
	unsigned char *got = malloc(size), *want = malloc(size);
	uint64_t seed = 12345, seen = 0;
	struct stat st;
	int fd;

	assert_non_null(got);
	assert_non_null(want);
	make_parent(parent, sizeof(parent));
	assert_int_equal(bt_scratch_create(&sc, parent, "f", &err), 0);
	assert_int_equal(bt_scratch_file(&sc, "data", size, 12345, count_bytes, &seen, &fd, &err), 0);
	assert_true(seen == size);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true((uint64_t)st.st_size == size);
	assert_int_equal(pread(fd, got, size, 0), (ssize_t)size);
	bt_pagecache_fill(want, size, &seed);
	assert_memory_equal(got, want, size);
	close(fd);
	/* exists already (O_EXCL), a path, the marker, empty */
	assert_int_equal(bt_scratch_file(&sc, "data", 10, 1, NULL, NULL, &fd, &err), -EEXIST);
	assert_int_equal(fd, -1);
	assert_int_equal(bt_scratch_file(&sc, "../x", 10, 1, NULL, NULL, &fd, &err), -EINVAL);
	assert_string_equal(err.msg, "../x: not a file name for the scratch directory");
	assert_int_equal(bt_scratch_file(&sc, BT_SCRATCH_MARKER, 10, 1, NULL, NULL, &fd, &err),
			 -EINVAL);
	assert_int_equal(bt_scratch_file(&sc, "", 10, 1, NULL, NULL, &fd, &err), -EINVAL);
	/* Anonymous: the same content, and no name in the directory (only data and the marker). */
	assert_int_equal(bt_scratch_file(&sc, NULL, size, 12345, NULL, NULL, &fd, &err), 0);
	assert_int_equal(scratch_entries(sc.path), 2);
	assert_int_equal(pread(fd, got, size, 0), (ssize_t)size);
	assert_memory_equal(got, want, size);
	close(fd);
	assert_int_equal(bt_scratch_remove(&sc, &err), 0);
	assert_int_equal(rmdir(parent), 0);
	free(got);
	free(want);
}

static int on_tmpfs(int fd)
{
	struct statfs fs;

	return fstatfs(fd, &fs) == 0 && (unsigned long)fs.f_type == TMPFS_MAGIC_;
}

/*
 * Right after the write the pages are in the cache (> 0, <= the size);
 * after the drop the figure is reported and within the file. It need not be
 * 0: a file system may keep pages (tmpfs keeps all of them: they are the
 * file), so only what always holds is asserted and the figure is printed.
 */
static void residency_on(const char *parent)
{
	const uint64_t size = 2 * 1048576 + 100;
	struct bt_scratch sc;
	struct bt_err err = { "" };
	uint64_t before = 0, after = ~0ull, empty = 1;
	int fd;

	assert_int_equal(bt_scratch_create(&sc, parent, "res", &err), 0);
	assert_int_equal(bt_scratch_file(&sc, "data", size, 7, NULL, NULL, &fd, &err), 0);
	assert_int_equal(bt_pagecache_resident(fd, &before, &err), 0);
	assert_true(before > 0);
	assert_true(before <= size);
	if (bt_pagecache_drop(fd, &after, &err) != 0)
		fail_msg("drop: %s", err.msg);
	assert_true(after <= size);
	print_message("%s: %llu of %llu bytes resident after the write, %llu after the drop%s\n",
		      parent, (unsigned long long)before, (unsigned long long)size,
		      (unsigned long long)after,
		      on_tmpfs(fd) ? " (tmpfs: DONTNEED does nothing, the pages are the file)" : "");
	close(fd);
	assert_int_equal(bt_scratch_file(&sc, "empty", 0, 7, NULL, NULL, &fd, &err), 0);
	assert_int_equal(bt_pagecache_resident(fd, &empty, &err), 0);
	assert_true(empty == 0);
	assert_int_equal(bt_pagecache_drop(fd, NULL, &err), 0);
	close(fd);
	assert_int_equal(bt_scratch_remove(&sc, &err), 0);
}

static void test_residency(void **state)
{
	char parent[64];

	make_parent(parent, sizeof(parent));
	residency_on(parent);
	assert_int_equal(rmdir(parent), 0);
	if (access("/dev/shm", W_OK) == 0)
		residency_on("/dev/shm");
}

/*
 * /dev/shm: Linux before 6.6 refuses O_DIRECT on tmpfs with the exact line;
 * later kernels accept it (then it is said, not failed). ramfs has no
 * direct I/O on any kernel: the refusal is asserted there, where it can be
 * mounted.
 */
static void test_direct(void **state)
{
	char parent[64], path[200], want[BT_ERR_MAX];
	struct bt_err err = { "" };
	int fd, rc;

	snprintf(path, sizeof(path), "/dev/shm/bt-test-direct-%ld", (long)getpid());
	rc = bt_pagecache_open_direct(path, O_RDWR | O_CREAT, 0600, &fd, &err);
	if (rc == 0) {
		print_message("this kernel's tmpfs has O_DIRECT (Linux >= 6.6)\n");
		close(fd);
	} else {
		assert_int_equal(rc, -EINVAL);
		snprintf(want, sizeof(want), "O_DIRECT: %s is on tmpfs, which has no direct I/O",
			 path);
		assert_string_equal(err.msg, want);
	}
	unlink(path);

	/* A disk file system has it. */
	make_parent(parent, sizeof(parent));
	snprintf(path, sizeof(path), "%s/d", parent);
	rc = bt_pagecache_open_direct(path, O_RDWR | O_CREAT, 0600, &fd, &err);
	if (rc == 0)
		close(fd);
	else
		print_message("%s\n", err.msg);
	unlink(path);
	assert_int_equal(bt_pagecache_open_direct("/nonexistent/bt/x", O_RDONLY, 0, &fd, &err),
			 -ENOENT);
	assert_string_equal(err.msg, "/nonexistent/bt/x: No such file or directory");
	assert_int_equal(rmdir(parent), 0);

	if (!scratch_mount("ramfs", "", parent, sizeof(parent), "pc"))
		skip();
	snprintf(path, sizeof(path), "%s/f", parent);
	put(path, "x");
	rc = bt_pagecache_open_direct(path, O_RDONLY, 0, &fd, &err);
	if (rc == 0)
		close(fd);
	assert_int_equal(rc, -EINVAL);
	snprintf(want, sizeof(want), "O_DIRECT: %s is on ramfs, which has no direct I/O", path);
	assert_string_equal(err.msg, want);
	assert_int_equal(unlink(path), 0);
	scratch_unmount(parent);
}

/* A full file system: the write error names the file, the cause and the free space. */
static void test_enospc(void **state)
{
	char mnt[64], want[BT_ERR_MAX];
	struct bt_scratch sc;
	struct bt_err err = { "" };
	int fd;

	if (!scratch_mount("tmpfs", "size=1m", mnt, sizeof(mnt), "pc"))
		skip();
	assert_int_equal(bt_scratch_create(&sc, mnt, "full", &err), 0);
	assert_int_equal(bt_scratch_file(&sc, "big", 4 << 20, 1, NULL, NULL, &fd, &err), -ENOSPC);
	assert_int_equal(fd, -1);
	snprintf(want, sizeof(want), "cannot write the 4194304-byte file %s/big: No space left on device after ",
		 sc.path);
	if (strncmp(err.msg, want, strlen(want)) != 0 || strstr(err.msg, " bytes free there)") == NULL)
		fail_msg("%s", err.msg);
	/* The partial file is gone: only the marker is left. */
	assert_int_equal(scratch_entries(sc.path), 1);
	assert_int_equal(bt_scratch_remove(&sc, &err), 0);
	assert_int_equal(scratch_entries(mnt), 0);
	scratch_unmount(mnt);
}

static void test_which(void **state)
{
	char buf[4096], why[200];
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;

	assert_int_equal(bt_which("sh", buf, sizeof(buf)), 0);
	assert_int_equal(buf[0], '/');
	assert_int_equal(strcmp(buf + strlen(buf) - 3, "/sh"), 0);
	assert_int_equal(bt_which("/bin/sh", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/bin/sh");
	assert_int_equal(bt_which("bt-no-such-program", buf, sizeof(buf)), -ENOENT);
	/* not executable */
	snprintf(buf, sizeof(buf), "/var/tmp/bt-test-which-%ld", (long)getpid());
	put(buf, "#!/bin/sh\n");
	assert_int_equal(chmod(buf, 0644), 0);
	assert_int_equal(bt_which(buf, NULL, 0), -ENOENT);
	assert_int_equal(unlink(buf), 0);
	assert_int_equal(bt_which("", NULL, 0), -ENOENT);
	assert_null(bt_which_missing("sh", "dash", why, sizeof(why)));
	assert_string_equal(bt_which_missing("bt-no-such-server", "bt-server", why, sizeof(why)),
			    "bt-no-such-server is not installed (apt install bt-server)");
	/* Only $PATH is searched. */
	setenv("PATH", "/nonexistent-bt", 1);
	assert_int_equal(bt_which("sh", NULL, 0), -ENOENT);
	setenv("PATH", "/nonexistent-bt::/bin", 1);
	assert_int_equal(bt_which("sh", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/bin/sh");
	if (saved) {
		setenv("PATH", saved, 1);
		free(saved);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scratch_create_remove),
		cmocka_unit_test(test_scratch_adopt),
		cmocka_unit_test(test_scratch_symlink_not_followed),
		cmocka_unit_test(test_scratch_marker_gone),
		cmocka_unit_test(test_scratch_file_content),
		cmocka_unit_test(test_residency),
		cmocka_unit_test(test_direct),
		cmocka_unit_test(test_enospc),
		cmocka_unit_test(test_which),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
