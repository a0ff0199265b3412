/*
 * null.c - the null workload (fio's null engine): each op is an empty or
 * fixed-length loop, so what it measures is benchtop itself: the cost of
 * counting an op, of checking the stop flag, and of timing ops.
 */
#include <stdint.h>

#include "engines/workload.h"

enum { P_THREADS, P_WORK };

static const struct bt_param params[] = {
	[P_THREADS] = { .name = "threads", .kind = BT_P_INT, .def = "1", .min = 1, .max = 1024,
			.help = "worker threads", .ticks = "1,2,4,8,16,32,64",
			.flags = BT_PF_WORKERS },
	[P_WORK] = { .name = "work", .kind = BT_P_INT, .def = "0", .min = 0, .max = 10000000,
		     .help = "iterations of a dependent arithmetic loop per op (0 = empty op)" },
};

static int null_setup(struct bt_job *job, struct bt_err *err)
{
	(void)err;
	job->nworkers = (int)bt_job_param(job, P_THREADS)->i;
	return 0;
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
	.setup = null_setup,
	.worker = null_worker,
};
