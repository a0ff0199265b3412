/*
 * engine_processes.c - the processes engine: N fork()ed workers (see
 * engine.h). The region is one MAP_SHARED mapping made before the fork.
 *
 * A child asks to be killed when the thread that forked it ends
 * (PR_SET_PDEATHSIG: the runner's controller thread lives as long as the
 * rep), and checks that its parent did not end before that took effect. It
 * ignores the terminal's group-wide signals (SIGINT, SIGHUP, SIGQUIT): the
 * parent turns them into cancel, whose stop flag every child reads, so a
 * Ctrl-C ends a rep as cancelled and not as workers killed. It leaves with
 * _exit: no atexit handler, no flush of the parent's stdio buffers.
 *
 * When a worker is lost (killed, or exited non-zero), the rep has failed and
 * stop is raised; the others get GRACE_NS to see it, then are killed: a
 * worker blocked on a lock the lost one held would otherwise wait forever.
 * Workers killed that way are not failures of their own.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "engines/engine.h"

#define GRACE_NS 500000000u

struct procs {
	pid_t parent;
	pid_t *pid;			/* [n] */
	char *reaped;			/* [n] */
	char *killed;			/* [n] killed by us after a loss: not a failure */
	uint64_t lost_at;		/* when the first worker was lost; 0: none */
	int started, nreaped;
	struct rusage sum;		/* of the reaped children */
	long tick;			/* clock ticks per second (/proc/PID/stat) */
};

static void *p_map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void p_unmap(void *p, size_t size)
{
	munmap(p, size);
}

static void child(struct bt_engine *e, int i, pid_t parent)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, dfl = { .sa_handler = SIG_DFL };
	sigset_t all;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGHUP, &ign, NULL);
	sigaction(SIGQUIT, &ign, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	sigaction(SIGPIPE, &dfl, NULL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	bt_engine_worker_main(e, i);
	_exit(0);
}

static int p_start(struct bt_engine *e, int i, struct bt_err *err)
{
	struct procs *p = e->priv;
	pid_t pid;

	if (p == NULL) {
		p = calloc(1, sizeof(*p));
		if (p != NULL) {
			p->pid = calloc((size_t)e->n, sizeof(*p->pid));
			p->reaped = calloc((size_t)e->n, 1);
			p->killed = calloc((size_t)e->n, 1);
		}
		if (p == NULL || p->pid == NULL || p->reaped == NULL || p->killed == NULL) {
			if (p != NULL) {
				free(p->pid);
				free(p->reaped);
				free(p->killed);
				free(p);
			}
			return bt_err_set(err, -ENOMEM, "out of memory for %d workers", e->n);
		}
		p->parent = getpid();
		p->tick = sysconf(_SC_CLK_TCK);
		if (p->tick <= 0)
			p->tick = 100;
		e->priv = p;
	}
	/* Nothing buffered may be written twice, by us and by a child. */
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return bt_err_set(err, -errno, "cannot start worker process %d of %d: %s", i + 1,
				  e->n, strerror(errno));
	if (pid == 0)
		child(e, i, p->parent);
	p->pid[i] = pid;
	p->started++;
	return 0;
}

static void rusage_add(struct rusage *sum, const struct rusage *ru)
{
	timeradd(&sum->ru_utime, &ru->ru_utime, &sum->ru_utime);
	timeradd(&sum->ru_stime, &ru->ru_stime, &sum->ru_stime);
	sum->ru_nvcsw += ru->ru_nvcsw;
	sum->ru_nivcsw += ru->ru_nivcsw;
}

/* Child i ended with status st: count its CPU, and fail its rep unless it exited 0. */
static void reaped(struct bt_engine *e, int i, int st, const struct rusage *ru)
{
	struct procs *p = e->priv;
	char msg[128];

	p->reaped[i] = 1;
	p->nreaped++;
	rusage_add(&p->sum, ru);
	if (p->killed[i])
		return;
	if ((WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) != 0)) && p->lost_at == 0)
		p->lost_at = bt_now_ns();
	if (WIFSIGNALED(st)) {
		const char *abbr = sigabbrev_np(WTERMSIG(st));

		if (abbr != NULL)
			snprintf(msg, sizeof(msg), "worker %d: killed by SIG%s", i, abbr);
		else
			snprintf(msg, sizeof(msg), "worker %d: killed by signal %d", i, WTERMSIG(st));
		bt_engine_worker_lost(e, i, msg);
	} else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
		snprintf(msg, sizeof(msg), "worker %d: exited with status %d", i, WEXITSTATUS(st));
		bt_engine_worker_lost(e, i, msg);
	}
}

/* Reap what has ended (every child, blocking, once all have returned). */
static int p_poll(struct bt_engine *e)
{
	struct procs *p = e->priv;
	int all = (int)atomic_load(&e->sh->finished) >= e->n;

	for (int i = 0; p != NULL && i < p->started; i++) {
		struct rusage ru;
		int st;
		pid_t r;

		if (p->reaped[i])
			continue;
		do
			r = wait4(p->pid[i], &st, all ? 0 : WNOHANG, &ru);
		while (r < 0 && errno == EINTR);
		if (r == p->pid[i])
			reaped(e, i, st, &ru);
		else if (r < 0)		/* not our child any more: nothing to wait for */
			p->reaped[i] = 1, p->nreaped++;
	}
	if (p != NULL && p->lost_at && bt_now_ns() - p->lost_at > GRACE_NS) {
		for (int i = 0; i < p->started; i++) {
			if (!p->reaped[i] && !p->killed[i]) {
				p->killed[i] = 1;
				kill(p->pid[i], SIGKILL);
			}
		}
	}
	return p != NULL ? p->nreaped : 0;
}

static int p_gone(struct bt_engine *e, int i)
{
	struct procs *p = e->priv;
	siginfo_t si;

	if (p == NULL || i >= p->started || p->reaped[i])
		return 1;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)p->pid[i], &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return 1;
	return si.si_pid != 0;
}

/* utime + stime of a live child from /proc/PID/stat, in seconds (0 when unreadable). */
static void proc_cpu(pid_t pid, long tick, double *user, double *sys)
{
	char path[64], buf[1024];
	unsigned long ut = 0, st = 0;
	FILE *f;
	char *rp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return;
	if (fgets(buf, sizeof(buf), f) != NULL && (rp = strrchr(buf, ')')) != NULL &&
	    sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2) {
		*user += (double)ut / (double)tick;
		*sys += (double)st / (double)tick;
	}
	fclose(f);
}

static void p_cpu(struct bt_engine *e, struct bt_cpu_mark *m)
{
	struct procs *p = e->priv;

	memset(m, 0, sizeof(*m));
	m->t = bt_now_ns();
	if (p == NULL)
		return;
	m->user_s = (double)p->sum.ru_utime.tv_sec + (double)p->sum.ru_utime.tv_usec / 1e6;
	m->sys_s = (double)p->sum.ru_stime.tv_sec + (double)p->sum.ru_stime.tv_usec / 1e6;
	m->vcsw = (double)p->sum.ru_nvcsw;
	m->ivcsw = (double)p->sum.ru_nivcsw;
	for (int i = 0; i < p->started; i++)
		if (!p->reaped[i])
			proc_cpu(p->pid[i], p->tick, &m->user_s, &m->sys_s);
}

static void p_collect(struct bt_engine *e)
{
	struct procs *p = e->priv;

	for (int i = 0; p != NULL && i < p->started; i++) {
		struct rusage ru;
		int st;
		pid_t r;

		if (p->reaped[i])
			continue;
		do
			r = wait4(p->pid[i], &st, 0, &ru);
		while (r < 0 && errno == EINTR);
		if (r == p->pid[i])
			reaped(e, i, st, &ru);
		else
			p->reaped[i] = 1, p->nreaped++;
	}
}

static void p_destroy(struct bt_engine *e)
{
	struct procs *p = e->priv;

	if (p == NULL)
		return;
	free(p->pid);
	free(p->reaped);
	free(p->killed);
	free(p);
	e->priv = NULL;
}

const struct bt_engine_ops bt_engine_processes = {
	.name = "processes",
	.map = p_map,
	.unmap = p_unmap,
	.start = p_start,
	.poll = p_poll,
	.gone = p_gone,
	.cpu = p_cpu,
	.collect = p_collect,
	.destroy = p_destroy,
};
