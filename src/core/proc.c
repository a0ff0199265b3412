/*
 * proc.c - CPU time of another process or thread, from /proc (see proc.h).
 */
#include "core/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * The command name in field 2 is in parentheses and may itself hold spaces
 * or ')': the fields are counted from the last ')'.
 */
int bt_proc_cpu(int pid, int tid, uint64_t *user_ns, uint64_t *sys_ns)
{
	char path[96], buf[1024], *p;
	unsigned long long ut, st;
	long hz = sysconf(_SC_CLK_TCK);
	ssize_t got;
	int fd;

	*user_ns = *sys_ns = 0;
	if (tid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return -EIO;
	buf[got] = '\0';
	p = strrchr(buf, ')');
	if (p == NULL || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				&ut, &st) != 2)
		return -EIO;
	if (hz <= 0)
		hz = 100;
	*user_ns = ut * (1000000000ull / (uint64_t)hz);
	*sys_ns = st * (1000000000ull / (uint64_t)hz);
	return 0;
}

int bt_proc_cpu_tree(int pid, uint64_t *user_ns, uint64_t *sys_ns)
{
	char path[96];
	FILE *f;
	int child, rc;

	rc = bt_proc_cpu(pid, 0, user_ns, sys_ns);
	if (rc < 0)
		return rc;
	/* The main thread's children list holds the process's children (those it forked). */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	f = fopen(path, "re");
	if (f == NULL)
		return 0;
	while (fscanf(f, "%d", &child) == 1) {
		uint64_t cu, cs;

		if (bt_proc_cpu(child, 0, &cu, &cs) == 0) {
			*user_ns += cu;
			*sys_ns += cs;
		}
	}
	fclose(f);
	return 0;
}
