/*
 * spawn.c - servers a workload starts for itself (see spawn.h).
 *
 * The child is made with fork + execvp rather than posix_spawn because it
 * needs PR_SET_PDEATHSIG and a process group of its own before exec; both
 * are set in the child between fork and exec, where only async-signal-safe
 * calls are made (the parent may have threads).
 */
#include "engines/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/proc.h"

int bt_spawn_free_port(int *port, struct bt_err *err)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return bt_err_set(err, -errno, "cannot find a free port: socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		rc = bt_err_set(err, -errno, "cannot find a free port on 127.0.0.1: %s",
				strerror(errno));
	else
		*port = ntohs(a.sin_port);
	close(fd);
	return rc;
}

int bt_spawn_start(struct bt_spawn *s, const char *const *argv, const char *dir,
		   const char *log_path, struct bt_err *err)
{
	int errpipe[2], logfd, nullfd, n = 0, child_errno = 0;
	ssize_t got;
	pid_t pid;

	memset(s, 0, sizeof(*s));
	if (argv == NULL || argv[0] == NULL)
		return bt_err_set(err, -EINVAL, "spawn: no program given");
	snprintf(s->name, sizeof(s->name), "%s", strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0]);
	while (argv[n] != NULL)
		n++;
	if (n > BT_SPAWN_ARGS)
		return bt_err_set(err, -E2BIG, "%s: more than %d arguments", s->name, BT_SPAWN_ARGS);
	if (log_path != NULL)
		snprintf(s->log, sizeof(s->log), "%s", log_path);
	logfd = open(log_path ? log_path : "/dev/null",
		     O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (logfd < 0)
		return bt_err_set(err, -errno, "%s: cannot open its log %s: %s", s->name,
				  log_path ? log_path : "/dev/null", strerror(errno));
	nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (nullfd < 0 || pipe2(errpipe, O_CLOEXEC) < 0) {
		int e = errno;

		close(logfd);
		if (nullfd >= 0)
			close(nullfd);
		return bt_err_set(err, -e, "%s: cannot start: %s", s->name, strerror(e));
	}
	s->t_start = bt_now_ns();
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(logfd);
		close(nullfd);
		close(errpipe[0]);
		close(errpipe[1]);
		return bt_err_set(err, -e, "%s: cannot fork: %s", s->name, strerror(e));
	}
	if (pid == 0) {
		/* The child: async-signal-safe calls only until exec. */
		sigset_t none;
		int e;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(nullfd, 0) < 0 || dup2(logfd, 1) < 0 || dup2(logfd, 2) < 0 ||
		    (dir != NULL && chdir(dir) < 0)) {
			e = errno;
			(void)!write(errpipe[1], &e, sizeof(e));
			_exit(127);
		}
		execvp(argv[0], (char *const *)argv);
		e = errno;
		(void)!write(errpipe[1], &e, sizeof(e));
		_exit(127);
	}
	close(logfd);
	close(nullfd);
	close(errpipe[1]);
	/* The pipe closes at exec (CLOEXEC) or carries the child's errno. */
	do
		got = read(errpipe[0], &child_errno, sizeof(child_errno));
	while (got < 0 && errno == EINTR);
	close(errpipe[0]);
	s->pid = pid;
	if (got == (ssize_t)sizeof(child_errno)) {
		bt_spawn_stop(s, 0);
		return bt_err_set(err, -child_errno, "%s: cannot start: %s", s->name,
				  strerror(child_errno));
	}
	return 0;
}

int bt_spawn_alive(struct bt_spawn *s)
{
	int st;
	pid_t r;

	if (s->pid <= 0 || s->exited)
		return 0;
	r = waitpid(s->pid, &st, WNOHANG);
	if (r == 0)
		return 1;
	if (r == s->pid) {
		s->exited = 1;
		s->status = st;
	}
	return 0;
}

/* The last lines of the server's log (at most n-1 bytes, whole lines), for messages. */
static void log_tail(const struct bt_spawn *s, char *buf, size_t n)
{
	char tmp[1024];
	ssize_t got;
	off_t size;
	int fd;

	buf[0] = '\0';
	if (s->log[0] == '\0' || n < 2)
		return;
	fd = open(s->log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	if (size > 0) {
		off_t from = size > (off_t)sizeof(tmp) - 1 ? size - (off_t)sizeof(tmp) + 1 : 0;

		got = pread(fd, tmp, sizeof(tmp) - 1, from);
		if (got > 0) {
			char *p = tmp, *q;

			tmp[got] = '\0';
			/* Trim a trailing newline, then keep what fits, from a line start. */
			while (got > 0 && (tmp[got - 1] == '\n' || tmp[got - 1] == '\r'))
				tmp[--got] = '\0';
			while ((size_t)(tmp + got - p) >= n && (q = strchr(p, '\n')) != NULL)
				p = q + 1;
			snprintf(buf, n, "%s", p);
			for (q = buf; *q; q++)
				if (*q == '\n' || *q == '\r' || *q == '\t')
					*q = ' ';
		}
	}
	close(fd);
}

void bt_spawn_describe(const struct bt_spawn *s, char *buf, size_t n)
{
	char tail[200];
	size_t o;

	if (n == 0)
		return;
	if (!s->exited)
		snprintf(buf, n, "%s is running (pid %d)", s->name, (int)s->pid);
	else if (WIFEXITED(s->status))
		snprintf(buf, n, "%s exited with status %d", s->name, WEXITSTATUS(s->status));
	else if (WIFSIGNALED(s->status))
		snprintf(buf, n, "%s was killed by SIG%s", s->name,
			 sigabbrev_np(WTERMSIG(s->status)) ? sigabbrev_np(WTERMSIG(s->status)) : "?");
	else
		snprintf(buf, n, "%s ended (status 0x%x)", s->name, (unsigned)s->status);
	log_tail(s, tail, sizeof(tail));
	o = strlen(buf);
	if (tail[0] && o + 3 < n)
		snprintf(buf + o, n - o, ": %s", tail);
}

/* Poll connect() until it succeeds, the server exits, or the time is up. */
static int wait_connect(struct bt_spawn *s, const struct sockaddr *sa, socklen_t salen,
			const char *what, int timeout_ms, struct bt_err *err)
{
	uint64_t deadline = bt_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000u;
	struct timespec pause = { 0, 5 * 1000000 };	/* 5 ms between tries */
	char why[BT_ERR_MAX / 2];

	for (;;) {
		int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return bt_err_set(err, -errno, "%s: socket: %s", s->name, strerror(errno));
		if (connect(fd, sa, salen) == 0) {
			close(fd);
			return 0;
		}
		close(fd);
		if (!bt_spawn_alive(s)) {
			bt_spawn_describe(s, why, sizeof(why));
			return bt_err_set(err, -ECHILD, "%s before it answered on %s", why, what);
		}
		if (bt_now_ns() >= deadline)
			return bt_err_set(err, -ETIMEDOUT, "%s did not answer on %s within %d ms",
					  s->name, what, timeout_ms);
		nanosleep(&pause, NULL);
	}
}

int bt_spawn_wait_tcp(struct bt_spawn *s, int port, int timeout_ms, struct bt_err *err)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char what[32];

	snprintf(what, sizeof(what), "127.0.0.1:%d", port);
	return wait_connect(s, (struct sockaddr *)&a, sizeof(a), what, timeout_ms, err);
}

int bt_spawn_wait_unix(struct bt_spawn *s, const char *path, int timeout_ms, struct bt_err *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(a.sun_path))
		return bt_err_set(err, -ENAMETOOLONG, "%s: socket path too long (%zu bytes, at most %zu): %s",
				  s->name, strlen(path), sizeof(a.sun_path) - 1, path);
	memcpy(a.sun_path, path, strlen(path) + 1);
	return wait_connect(s, (struct sockaddr *)&a, sizeof(a), path, timeout_ms, err);
}

/* The server and the worker processes it forked (nginx's work is in its workers). */
int bt_spawn_cpu(const struct bt_spawn *s, struct bt_spawn_cpu *out)
{
	uint64_t u = 0, sy = 0;
	int rc;

	out->user_s = out->sys_s = 0;
	if (s->pid <= 0 || s->exited)
		return 0;
	rc = bt_proc_cpu_tree((int)s->pid, &u, &sy);
	out->user_s = (double)u / 1e9;
	out->sys_s = (double)sy / 1e9;
	return rc;
}

int bt_spawn_stop(struct bt_spawn *s, int grace_ms)
{
	struct timespec pause = { 0, 2 * 1000000 };
	uint64_t deadline;
	int st = 0;

	if (s->pid <= 0)
		return -1;
	if (s->exited)
		return s->status;
	/* The whole group: a server that forks workers (nginx, gearmand) takes them along. */
	kill(-s->pid, SIGTERM);
	kill(s->pid, SIGTERM);
	deadline = bt_now_ns() + (uint64_t)(grace_ms > 0 ? grace_ms : 0) * 1000000u;
	while (bt_spawn_alive(s) && bt_now_ns() < deadline)
		nanosleep(&pause, NULL);
	if (!s->exited) {
		kill(-s->pid, SIGKILL);
		kill(s->pid, SIGKILL);
		while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR)
			;
		s->exited = 1;
		s->status = st;
	}
	/* Whatever of its group outlived it (a worker that ignored TERM) goes too. */
	kill(-s->pid, SIGKILL);
	return s->status;
}
