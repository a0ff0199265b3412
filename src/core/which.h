/*
 * which.h - is a program installed? For workloads that drive a server
 * binary (memcached, redis-server): their unavailable() hook says which
 * program is missing and which Debian package provides it.
 */
#ifndef BT_CORE_WHICH_H
#define BT_CORE_WHICH_H

#include <stddef.h>

/*
 * Search $PATH (or /usr/local/bin:/usr/bin:/bin when unset) for prog, an
 * executable regular file; a prog with a '/' is checked as given. 0 with
 * its path in buf (when buf is not NULL), or -ENOENT. Any thread.
 */
int bt_which(const char *prog, char *buf, size_t n);

/*
 * NULL when prog is installed, else "PROG is not installed (apt install
 * PKG)" in buf, returned: the line an unavailable() hook gives.
 */
const char *bt_which_missing(const char *prog, const char *pkg, char *buf, size_t n);

#endif
