/*
 * null.c - the null workload (fio's null engine): each op is an empty or
 * fixed-length loop, so what it measures is benchtop itself: the cost of
 * counting an op, of checking the stop flag, and of timing ops.
 *
 * It also tests the harness's resource levels (workload.h): hold=run, cell
 * or rep makes it hold, at that level, what a real workload would (a scratch
 * file and a child process, as a spawned server is), so that a test can stop
 * a run at any moment and find both gone. The file is
 * $TMPDIR/benchtop-hold.LEVEL.PID (PID: the child's) and holds the child's
 * PID; the child waits until it is killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engines/workload.h"

enum { P_THREADS, P_WORK, P_HOLD };
enum { H_NONE, H_RUN, H_CELL, H_REP };

static const char *const hold_choices[] = { "none", "run", "cell", "rep", NULL };

static const struct bt_param params[] = {
	[P_THREADS] = { .name = "threads", .kind = BT_P_INT, .def = "1", .min = 1, .max = 1024,
			.help = "workers", .ticks = "1,2,4,8,16,32,64",
			.flags = BT_PF_WORKERS | BT_PF_LIVE | BT_PF_PARK },
	[P_WORK] = { .name = "work", .kind = BT_P_INT, .def = "0", .min = 0, .max = 10000000,
		     .help = "iterations of a dependent arithmetic loop per op (0 = empty op)",
		     .flags = BT_PF_LIVE },
	[P_HOLD] = { .name = "hold", .kind = BT_P_ENUM, .def = "none", .choices = hold_choices,
		     .help = "harness test: hold a scratch file and a child process per run, cell or rep",
		     .flags = BT_PF_QUIET },
};

/* A held resource pair: a child process and a scratch file naming it. */
struct hold {
	pid_t pid;
	char path[512];
};

/* Kill and reap the child, then remove the file: the reverse of hold_take. */
static void hold_release(struct hold *h)
{
	if (h == NULL)
		return;
	if (h->pid > 0) {
		kill(h->pid, SIGKILL);
		while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (h->path[0])
		unlink(h->path);
	free(h);
}

static int hold_take(struct hold **out, int level, struct bt_err *err)
{
	const char *dir = getenv("TMPDIR");
	struct hold *h = calloc(1, sizeof(*h));
	char pid[32];
	int fd, rc = 0;
	ssize_t len;

	*out = NULL;
	if (h == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	h->pid = fork();
	if (h->pid < 0) {
		rc = bt_err_set(err, -errno, "hold: cannot fork: %s", strerror(errno));
		goto out;
	}
	if (h->pid == 0) {
		/* The terminal's signals are the run's to handle; only the owner ends us. */
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		for (;;)
			pause();
	}
	snprintf(h->path, sizeof(h->path), "%s/benchtop-hold.%s.%d", dir && dir[0] ? dir : "/tmp",
		 hold_choices[level], (int)h->pid);
	fd = open(h->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = bt_err_set(err, -errno, "hold: %s: %s", h->path, strerror(errno));
		h->path[0] = '\0';
		goto out;
	}
	len = snprintf(pid, sizeof(pid), "%d\n", (int)h->pid);
	if (write(fd, pid, (size_t)len) != len)
		rc = bt_err_set(err, -EIO, "hold: %s: cannot write", h->path);
	close(fd);
out:
	if (rc < 0)
		hold_release(h);
	else
		*out = h;
	return rc;
}

/* The run level: one hold when any cell asks for hold=run. */
static int null_run_setup(struct bt_run_ctx *run, struct bt_err *err)
{
	for (int c = 0; c < run->ncells; c++)
		if (run->cells[c][P_HOLD]->i == H_RUN)
			return hold_take((struct hold **)&run->state, H_RUN, err);
	return 0;
}

static void null_run_teardown(struct bt_run_ctx *run)
{
	hold_release(run->state);
	run->state = NULL;
}

static int null_cell_setup(struct bt_job *cell, struct bt_err *err)
{
	if (bt_job_param(cell, P_HOLD)->i != H_CELL)
		return 0;
	return hold_take((struct hold **)&cell->cell_state, H_CELL, err);
}

static void null_cell_teardown(struct bt_job *cell)
{
	hold_release(cell->cell_state);
	cell->cell_state = NULL;
}

static int null_setup(struct bt_job *job, struct bt_err *err)
{
	job->nworkers = (int)bt_job_param(job, P_THREADS)->i;
	if (bt_job_param(job, P_HOLD)->i != H_REP)
		return 0;
	return hold_take((struct hold **)&job->state, H_REP, err);
}

static void null_teardown(struct bt_job *job)
{
	hold_release(job->state);
	job->state = NULL;
}

static int null_worker(struct bt_worker *w)
{
	uint64_t work = (uint64_t)bt_job_param(w->job, P_WORK)->i;
	uint64_t x = (uint64_t)w->id + 1;

	while (!bt_worker_stopping(w)) {
		uint64_t t = bt_lat_begin(w);

		for (uint64_t i = 0; i < work; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
		__asm__ volatile("" : "+r"(x));
		bt_lat_end(w, t);
		bt_worker_ops(w, 1);
	}
	return 0;
}

const struct bt_workload bt_wl_null = {
	.name = "null",
	.group = "harness",
	.title = "empty ops: measures benchtop's own overhead",
	.unit = "ops",
	.lat_what = "one op (timer to timer)",
	.params = params,
	.nparams = sizeof(params) / sizeof(params[0]),
	.stop_default = "duration=1s",
	.engines = BT_ENGINES_THREADS | BT_ENGINES_PROCESSES,
	.run_setup = null_run_setup,
	.run_teardown = null_run_teardown,
	.cell_setup = null_cell_setup,
	.cell_teardown = null_cell_teardown,
	.setup = null_setup,
	.worker = null_worker,
	.teardown = null_teardown,
};
