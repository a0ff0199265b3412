/*
 * scratch_fixture.h - what the file and page-cache tests share: a scratch
 * directory under /var/tmp (a real disk file system: /tmp may be tmpfs),
 * the count of its entries, and a scratch mount of a small file system.
 * Include after <cmocka.h>.
 */
#ifndef BT_TESTS_SCRATCH_FIXTURE_H
#define BT_TESTS_SCRATCH_FIXTURE_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

/* A new empty directory /var/tmp/bt-test-TAG-XXXXXX in dir[n]. */
static inline void scratch_dir(char *dir, size_t n, const char *tag)
{
	snprintf(dir, n, "/var/tmp/bt-test-%s-XXXXXX", tag);
	assert_non_null(mkdtemp(dir));
}

/* Entries in dir besides . and .. */
static inline int scratch_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* A file system of type mounted on a new scratch dir; 0 when mounting is not permitted here. */
static inline int scratch_mount(const char *type, const char *opts, char *dir, size_t n,
				const char *tag)
{
	scratch_dir(dir, n, tag);
	if (mount(type, dir, type, 0, opts) == 0)
		return 1;
	print_message("cannot mount %s here: %s\n", type, strerror(errno));
	assert_int_equal(rmdir(dir), 0);
	return 0;
}

static inline void scratch_unmount(const char *dir)
{
	assert_int_equal(umount2(dir, MNT_DETACH), 0);
	assert_int_equal(rmdir(dir), 0);
}

#endif
