/*
 * which.c - find a program on $PATH. See which.h.
 */
#include "core/which.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int bt_which(const char *prog, char *buf, size_t n)
{
	const char *path = getenv("PATH"), *p, *end;
	char cand[4096];

	if (prog == NULL || prog[0] == '\0')
		return -ENOENT;
	if (strchr(prog, '/') != NULL) {
		if (!executable(prog))
			return -ENOENT;
		if (buf != NULL)
			snprintf(buf, n, "%s", prog);
		return 0;
	}
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		size_t len;

		end = strchr(p, ':');
		len = end ? (size_t)(end - p) : strlen(p);
		/* An empty element is the current directory, as for execvp. */
		if ((size_t)snprintf(cand, sizeof(cand), "%.*s%s%s", (int)len, p, len ? "/" : "",
				     prog) < sizeof(cand) && executable(cand)) {
			if (buf != NULL)
				snprintf(buf, n, "%s", cand);
			return 0;
		}
		if (end == NULL)
			break;
	}
	return -ENOENT;
}

const char *bt_which_missing(const char *prog, const char *pkg, char *buf, size_t n)
{
	if (bt_which(prog, NULL, 0) == 0)
		return NULL;
	snprintf(buf, n, "%s is not installed (apt install %s)", prog, pkg);
	return buf;
}
