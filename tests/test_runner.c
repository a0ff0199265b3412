/*
 * test_runner.c - the run API end to end: plan -> cells -> reps -> results
 * and recording, validation messages, cancel.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/recording.h"
#include "engines/runner.h"
#include "workloads/registry.h"

static void make_plan(struct bt_plan *pl, const char *wl_name, const char *const *args)
{
	const struct bt_workload *wl = bt_workload_find(wl_name);
	struct bt_err err = { "" };

	assert_non_null(wl);
	assert_int_equal(bt_run_plan_init(pl, wl, &err), 0);
	for (int i = 0; args[i] != NULL; i++) {
		if (bt_plan_set_arg(pl, args[i], &err) < 0)
			fail_msg("%s: %s", args[i], err.msg);
	}
	assert_int_equal(bt_run_plan_finalize(pl, wl, &err), 0);
}

static void tmp_path(char *buf, size_t n)
{
	snprintf(buf, n, "/tmp/bt-test-runner-%d-%ld.jsonl", (int)getpid(), (long)random());
}

/* A 2-cell sweep: every rep does exactly ops= ops; the recording reads back the same. */
static void test_sweep_recorded(void **state)
{
	static const char *const args[] = { "threads=1,2", "ops=5000", "reps=3", "warmup=1",
					    "lat_every=1", NULL };
	const struct bt_workload *wl = bt_workload_find("null");
	struct bt_plan pl;
	struct bt_run *run;
	struct bt_err err = { "" };
	struct bt_results back;
	char path[256];

	(void)state;
	make_plan(&pl, "null", args);
	assert_int_equal(bt_run_validate(wl, &pl, &err), 0);
	assert_int_equal(pl.ncells, 2);
	tmp_path(path, sizeof(path));
	assert_int_equal(bt_run_start(&run, wl, &pl, path, &err), 0);
	assert_int_equal(bt_run_wait(run), 0);

	struct bt_results *res = bt_run_results(run);
	assert_string_equal(res->status, "complete");
	assert_int_equal(res->ncells, 2);
	assert_int_equal(res->nreps, 8);		/* 2 cells x (1 warmup + 3) */
	for (int i = 0; i < res->nreps; i++) {
		assert_true(res->reps[i].ops == 5000);
		assert_true(res->reps[i].ok);
		assert_null(res->reps[i].hist);		/* kept sparse in the results */
		assert_true(res->reps[i].lat.count == 5000);
	}
	for (int c = 0; c < 2; c++) {
		assert_true(res->cells[c].done);
		assert_int_equal(res->cells[c].nreps, 3);
		assert_int_equal(res->cells[c].ops_s.n, 3);
		assert_non_null(res->cells[c].hist);
		assert_true(res->cells[c].hist->total == 15000);	/* warmup not counted */
	}
	assert_string_equal(res->cells[1].label, "threads=2");
	assert_int_equal(bt_results_cells_done(res), 2);

	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_string_equal(back.status, "complete");
	assert_int_equal(back.ncells, 2);
	assert_int_equal(back.nreps, 8);
	for (int c = 0; c < 2; c++) {
		assert_true(back.cells[c].done);
		assert_true(back.cells[c].ops_s.median == res->cells[c].ops_s.median);
		assert_true(back.cells[c].hist->total == 15000);
		assert_true(bt_hist_percentile(back.cells[c].hist, 99) ==
			    bt_hist_percentile(res->cells[c].hist, 99));
	}
	assert_string_equal(back.axes[0], "threads");
	assert_string_equal(back.cells[0].values[0], "1");
	bt_results_destroy(&back);
	bt_run_free(run);
	bt_plan_destroy(&pl);
	unlink(path);
}

static void expect_invalid(const char *wl_name, const char *const *args, const char *msg)
{
	const struct bt_workload *wl = bt_workload_find(wl_name);
	struct bt_plan pl;
	struct bt_err err = { "" };

	make_plan(&pl, wl_name, args);
	assert_int_equal(bt_run_validate(wl, &pl, &err), -EINVAL);
	assert_string_equal(err.msg, msg);
	bt_plan_destroy(&pl);
}

static void test_validate(void **state)
{
	static const char *const both[] = { "duration=1s", "ops=100", NULL };
	static const char *const fixed[] = { "duration=2s", NULL };
	static const char *const badcpu[] = { "pin=list:4095", NULL };

	static const char *const procs[] = { "as=threads,processes", NULL };

	(void)state;
	expect_invalid("null", both, "duration=1s ops=100: give one stop rule, not both");
	expect_invalid("pipeline", procs, "as=processes: pipeline runs only as threads");
	expect_invalid("pipeline", fixed,
		       "duration=2s: pipeline does a fixed amount of work set by its own parameters; duration= and ops= do not apply");
	{
		const struct bt_workload *wl = bt_workload_find("null");
		struct bt_plan pl;
		struct bt_err err = { "" };

		make_plan(&pl, "null", badcpu);
		assert_int_equal(bt_run_validate(wl, &pl, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "4095"));
		bt_plan_destroy(&pl);
	}
}

/* Without duration/ops the workload's stop rule is made explicit in the plan. */
static void test_finalize(void **state)
{
	static const char *const none[] = { NULL };
	struct bt_plan pl;
	int i;

	(void)state;
	make_plan(&pl, "null", none);
	i = bt_plan_index(&pl, "duration");
	assert_true(i >= 0);
	assert_string_equal(pl.vals[i][0].text, "1s");
	bt_plan_destroy(&pl);
}

/* Cancel in the middle: status interrupted, the recording says so and keeps finished cells. */
static void test_cancel(void **state)
{
	static const char *const args2[] = { "duration=30s", NULL };
	const struct bt_workload *wl = bt_workload_find("null");
	struct bt_plan pl;
	struct bt_run *run;
	struct bt_err err = { "" };
	struct bt_results back;
	struct bt_snapshot snap;
	char path[256];

	(void)state;
	make_plan(&pl, "null", args2);
	assert_int_equal(bt_plan_set_arg(&pl, "threads=1", &err), 0);
	tmp_path(path, sizeof(path));
	assert_int_equal(bt_run_start(&run, wl, &pl, path, &err), 0);
	/* Wait until the run is observably running (a sample arrived), then cancel. */
	do {
		bt_run_snapshot(run, &snap);
		sched_yield();
	} while (snap.sample_seq == 0);
	{
		/* The rep in progress already has latencies to show. */
		struct bt_hist *live = bt_hist_new();
		int cell = -1, rep = -1;

		assert_int_equal(bt_run_live_hist(run, live, &cell, &rep), 0);
		assert_int_equal(cell, 0);
		assert_int_equal(rep, 0);
		assert_true(live->total > 0);
		bt_hist_free(live);
	}
	bt_run_cancel(run);
	assert_int_equal(bt_run_wait(run), -EINTR);
	assert_string_equal(bt_run_results(run)->status, "interrupted");
	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_string_equal(back.status, "interrupted");
	assert_int_equal(back.nreps, 0);	/* the abandoned rep is not a result */
	assert_true(back.nsamples >= 1);
	bt_results_destroy(&back);
	bt_run_free(run);
	bt_plan_destroy(&pl);
	unlink(path);
}

/*
 * While a kv rep runs, its extra channels (incr, read, set) have live histograms
 * and the snapshot carries its metrics so far: what the TUI's live view
 * shows beside the main histogram.
 */
static void test_live_channels(void **state)
{
	static const char *const args[] = { "backend=inproc", "clients=2", "duration=30s",
					    "warmup=0", "reps=1", NULL };
	const struct bt_workload *wl = bt_workload_find("kv");
	struct bt_plan pl;
	struct bt_run *run;
	struct bt_err err = { "" };
	struct bt_snapshot snap;
	struct bt_hist *h = bt_hist_new();
	int cell = -1, rep = -1, incr = -1;

	(void)state;
	make_plan(&pl, "kv", args);
	assert_int_equal(bt_run_start(&run, wl, &pl, NULL, &err), 0);
	do {
		bt_run_snapshot(run, &snap);
		sched_yield();
	} while (snap.sample_seq < 2);
	assert_int_equal(snap.metrics_cell, 0);
	assert_int_equal(snap.metrics_rep, 0);
	assert_int_equal(snap.nmetrics, (int)wl->nmetrics);
	for (int m = 0; m < (int)wl->nmetrics; m++)
		if (strcmp(wl->metrics[m].name, "incr") == 0)
			incr = m;
	assert_true(incr >= 0);
	assert_true(snap.metric[incr] > 0);
	assert_true(snap.errors == 0);
	for (int ch = 1; ch <= 2; ch++) {
		assert_int_equal(bt_run_live_hist_ch(run, ch, h, &cell, &rep), 0);
		assert_int_equal(cell, 0);
		assert_int_equal(rep, 0);
		assert_true(h->total > 0);
	}
	/* kv declares three channels (incr, read, set): one past the last is no data */
	assert_int_equal(bt_run_live_hist_ch(run, BT_LAT_CH_MAX + 1, h, &cell, &rep), -ENODATA);
	assert_int_equal(bt_run_live_hist_ch(run, -1, h, &cell, &rep), -ENODATA);
	bt_run_cancel(run);
	assert_int_equal(bt_run_wait(run), -EINTR);
	bt_run_free(run);
	bt_plan_destroy(&pl);
	bt_hist_free(h);
}

/*
 * Every rep keeps the rate over its sample windows (the sample interval),
 * summarized per cell, recorded and read back as it was.
 */
static void test_rate_recorded(void **state)
{
	static const char *const args[] = { "threads=1", "duration=300ms", "sample=100ms",
					    "reps=2", "warmup=0", NULL };
	const struct bt_workload *wl = bt_workload_find("null");
	struct bt_plan pl;
	struct bt_run *run;
	struct bt_err err = { "" };
	struct bt_results back;
	const struct bt_results *res;
	char path[256];

	(void)state;
	make_plan(&pl, "null", args);
	tmp_path(path, sizeof(path));
	assert_int_equal(bt_run_start(&run, wl, &pl, path, &err), 0);
	assert_int_equal(bt_run_wait(run), 0);
	res = bt_run_results(run);
	assert_int_equal(res->nreps, 2);
	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_int_equal(back.nreps, 2);
	for (int k = 0; k < 2; k++) {
		const struct bt_rate_stats *a = &res->reps[k].rate, *b = &back.reps[k].rate;

		assert_true(a->window_s == 0.1);
		assert_true(a->n >= 1);
		assert_true(a->min <= a->avg && a->avg <= a->max && a->min > 0);
		assert_true(a->n == b->n && a->window_s == b->window_s && a->min == b->min &&
			    a->avg == b->avg && a->max == b->max && a->sd == b->sd);
	}
	assert_int_equal(res->cells[0].rate_avg.n, 2);
	assert_int_equal(back.cells[0].rate_avg.n, 2);
	assert_int_equal(back.cells[0].rate_windows, res->reps[0].rate.n + res->reps[1].rate.n);
	assert_true(back.cells[0].rate_avg.median == res->cells[0].rate_avg.median);
	bt_results_destroy(&back);
	bt_run_free(run);
	bt_plan_destroy(&pl);
	unlink(path);
}

/* as= is an axis: both engines run the same cells, every count exact. */
/*
 * Every registered workload's schema goes with the common one: no
 * parameter declared twice (a workload's seed= and the run's order_seed=),
 * every default parses, and the plan of defaults finalizes.
 */
static void test_every_workload_plans(void **state)
{
	(void)state;
	for (size_t i = 0; i < bt_nworkloads; i++) {
		struct bt_err err = { "" };
		struct bt_plan pl;

		if (bt_run_plan_init(&pl, bt_workloads[i], &err) < 0)
			fail_msg("%s: %s", bt_workloads[i]->name, err.msg);
		if (bt_run_plan_finalize(&pl, bt_workloads[i], &err) < 0)
			fail_msg("%s: finalize: %s", bt_workloads[i]->name, err.msg);
		bt_plan_destroy(&pl);
	}
}

static void test_as_processes(void **state)
{
	static const char *const args[] = { "as=threads,processes", "threads=1,8", "ops=8001",
					    "reps=2", "warmup=0", "lat_every=1", NULL };
	const struct bt_workload *wl = bt_workload_find("locks");
	struct bt_plan pl;
	struct bt_run *run;
	struct bt_err err = { "" };

	(void)state;
	make_plan(&pl, "locks", args);
	assert_int_equal(bt_run_validate(wl, &pl, &err), 0);
	assert_int_equal(pl.ncells, 4);
	assert_int_equal(bt_run_start(&run, wl, &pl, NULL, &err), 0);
	assert_int_equal(bt_run_wait(run), 0);

	struct bt_results *res = bt_run_results(run);
	assert_string_equal(res->status, "complete");
	assert_int_equal(res->nreps, 8);
	for (int i = 0; i < res->nreps; i++) {
		assert_true(res->reps[i].ok);
		assert_true(res->reps[i].ops == 8001);
		assert_true(res->reps[i].lat.count == 8001);
	}
	for (int c = 0; c < 4; c++)
		assert_non_null(strstr(res->cells[c].label, c >= 2 ? "as=processes" : "as=threads"));
	bt_run_free(run);
	bt_plan_destroy(&pl);
}

/*
 * The three resource levels: a workload that logs its hooks. Every
 * teardown whose setup ran comes, innermost first, whether the run
 * completes, fails at a rep's setup, or is cancelled.
 */
static char g_log[512];
static int g_fail_cell = -1;	/* the rep setup of this cell fails */
static int g_cells_seen;

static void lg(const char *s)
{
	size_t n = strlen(g_log);

	snprintf(g_log + n, sizeof(g_log) - n, "%s%s", n ? " " : "", s);
}

static int lv_run_setup(struct bt_run_ctx *run, struct bt_err *err)
{
	(void)err;
	assert_int_equal(run->ncells, 2);
	assert_true(run->cells[1][0]->i == 2);	/* every cell's values are there */
	run->state = g_log;
	lg("R+");
	return 0;
}

static void lv_run_teardown(struct bt_run_ctx *run)
{
	assert_ptr_equal(run->state, g_log);
	lg("R-");
}

static int lv_cell_setup(struct bt_job *cell, struct bt_err *err)
{
	(void)err;
	assert_ptr_equal(cell->run_state, g_log);
	cell->cell_state = &g_cells_seen;
	g_cells_seen++;
	lg("C+");
	return 0;
}

static void lv_cell_teardown(struct bt_job *cell)
{
	assert_ptr_equal(cell->cell_state, &g_cells_seen);
	lg("C-");
}

static int lv_setup(struct bt_job *job, struct bt_err *err)
{
	assert_ptr_equal(job->cell_state, &g_cells_seen);
	if (g_cells_seen - 1 == g_fail_cell)
		return bt_err_set(err, -EIO, "no luck");
	job->nworkers = (int)bt_job_param(job, 0)->i;
	lg("S+");
	return 0;
}

static void lv_teardown(struct bt_job *job)
{
	(void)job;
	lg("S-");
}

static int lv_worker(struct bt_worker *w)
{
	while (!bt_worker_stopping(w))
		bt_worker_ops(w, 1);
	return 0;
}

static const struct bt_param lv_params[] = {
	{ .name = "threads", .kind = BT_P_INT, .def = "1", .min = 1, .max = 64, .help = "workers" },
};

static const struct bt_workload lv_wl = {
	.name = "levels", .group = "harness", .title = "resource levels", .unit = "ops",
	.params = lv_params, .nparams = 1, .stop_default = "ops=100",
	.run_setup = lv_run_setup, .run_teardown = lv_run_teardown,
	.cell_setup = lv_cell_setup, .cell_teardown = lv_cell_teardown,
	.setup = lv_setup, .worker = lv_worker, .teardown = lv_teardown,
};

static int run_levels(const char *stop, int fail_cell, int cancel)
{
	const char *args[] = { "threads=1,2", "reps=1", "warmup=0", stop, NULL };
	struct bt_plan pl;
	struct bt_run *run;
	struct bt_err err = { "" };
	int rc;

	g_log[0] = '\0';
	g_fail_cell = fail_cell;
	g_cells_seen = 0;
	assert_int_equal(bt_run_plan_init(&pl, &lv_wl, &err), 0);
	for (int i = 0; args[i] != NULL; i++)
		assert_int_equal(bt_plan_set_arg(&pl, args[i], &err), 0);
	assert_int_equal(bt_run_validate(&lv_wl, &pl, &err), 0);
	assert_int_equal(bt_run_start(&run, &lv_wl, &pl, NULL, &err), 0);
	if (cancel) {
		struct bt_snapshot snap;

		do {
			bt_run_snapshot(run, &snap);
			sched_yield();
		} while (snap.sample_seq == 0);
		bt_run_cancel(run);
	}
	rc = bt_run_wait(run);
	bt_run_free(run);
	bt_plan_destroy(&pl);
	return rc;
}

static void test_levels(void **state)
{
	(void)state;
	assert_int_equal(run_levels("ops=100", -1, 0), 0);
	assert_string_equal(g_log, "R+ C+ S+ S- C- C+ S+ S- C- R-");
	assert_int_equal(run_levels("ops=100", 1, 0), -EIO);
	assert_string_equal(g_log, "R+ C+ S+ S- C- C+ C- R-");
	assert_int_equal(run_levels("duration=30s", -1, 1), -EINTR);
	assert_string_equal(g_log, "R+ C+ S+ S- C- R-");
}

/*
 * Run wl with args to the end (recording to path when not NULL); the
 * caller frees with bt_run_free.
 */
static struct bt_run *run_to_end(const struct bt_workload *wl, const char *const *args,
				 const char *path, int expect)
{
	struct bt_plan pl;
	struct bt_run *run;
	struct bt_err err = { "" };

	assert_int_equal(bt_run_plan_init(&pl, wl, &err), 0);
	for (int i = 0; args[i] != NULL; i++)
		if (bt_plan_set_arg(&pl, args[i], &err) < 0)
			fail_msg("%s: %s", args[i], err.msg);
	assert_int_equal(bt_run_plan_finalize(&pl, wl, &err), 0);
	assert_int_equal(bt_run_validate(wl, &pl, &err), 0);
	assert_int_equal(bt_run_start(&run, wl, &pl, path, &err), 0);
	assert_int_equal(bt_run_wait(run), expect);
	bt_plan_destroy(&pl);
	return run;
}

/* The (cell, rep) sequence of res's reps as text: "0.0 0.1 1.0 ...". */
static void order_text(const struct bt_results *res, char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < res->nreps && o < n; i++)
		o += (size_t)snprintf(buf + o, n - o, "%s%d.%d", i ? " " : "", res->reps[i].cell,
				      res->reps[i].rep);
}

/*
 * order=interleaved: a cell's warmup right before its first counted rep,
 * then rep by rep across the cells; every rep exactly once, recorded in the
 * order it ran.
 */
static void test_order_interleaved(void **state)
{
	static const char *const args[] = { "threads=1,2,3", "ops=2000", "reps=2", "warmup=1",
					    "order=interleaved", NULL };
	const struct bt_workload *wl = bt_workload_find("null");
	struct bt_results back;
	struct bt_err err = { "" };
	struct bt_run *run;
	char path[256], seq[256];

	(void)state;
	tmp_path(path, sizeof(path));
	run = run_to_end(wl, args, path, 0);
	struct bt_results *res = bt_run_results(run);
	order_text(res, seq, sizeof(seq));
	assert_string_equal(seq, "0.0 0.1 1.0 1.1 2.0 2.1 0.2 1.2 2.2");
	for (int c = 0; c < 3; c++) {
		assert_true(res->cells[c].done);
		assert_int_equal(res->cells[c].nreps, 2);
	}
	assert_non_null(strstr(res->plan_json, "\"order\": \"interleaved\""));
	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	order_text(&back, seq, sizeof(seq));
	assert_string_equal(seq, "0.0 0.1 1.0 1.1 2.0 2.1 0.2 1.2 2.2");
	assert_non_null(strstr(back.plan_json, "\"order\": \"interleaved\""));
	bt_results_destroy(&back);
	bt_run_free(run);
	unlink(path);
}

/*
 * order=shuffled: each round is a permutation of the cells, every rep runs
 * once, the seed is recorded, and the same seed gives the same order.
 */
static void test_order_shuffled(void **state)
{
	static const char *const args[] = { "threads=1,2,3,4", "ops=1000", "reps=3", "warmup=0",
					    "order=shuffled", "order_seed=7", NULL };
	static const char *const noseed[] = { "threads=1,2", "ops=1000", "reps=1", "warmup=0",
					      "order=shuffled", NULL };
	const struct bt_workload *wl = bt_workload_find("null");
	struct bt_run *run, *again;
	char seq[512], seq2[512];
	int sequential = 1;

	(void)state;
	run = run_to_end(wl, args, NULL, 0);
	struct bt_results *res = bt_run_results(run);
	assert_int_equal(res->nreps, 12);
	for (int round = 0; round < 3; round++) {
		int seen = 0;

		for (int k = 0; k < 4; k++) {
			const struct bt_rep *r = &res->reps[round * 4 + k];

			assert_int_equal(r->rep, round);
			assert_true((seen & (1 << r->cell)) == 0);
			seen |= 1 << r->cell;
			sequential &= r->cell == k;
		}
		assert_int_equal(seen, 15);
	}
	assert_false(sequential);	/* seed 7 does not give 0 1 2 3 three times */
	assert_non_null(strstr(res->plan_json, "\"order_seed\": 7"));
	order_text(res, seq, sizeof(seq));
	again = run_to_end(wl, args, NULL, 0);
	order_text(bt_run_results(again), seq2, sizeof(seq2));
	assert_string_equal(seq, seq2);
	bt_run_free(again);
	bt_run_free(run);

	/* No seed given: one is picked, and the plan records it. */
	run = run_to_end(wl, noseed, NULL, 0);
	assert_null(strstr(bt_run_results(run)->plan_json, "\"order_seed\": 0"));
	assert_non_null(strstr(bt_run_results(run)->plan_json, "\"order_seed\": "));
	bt_run_free(run);
}

/*
 * A workload whose per-rep throughput the test controls: every op costs
 * work= spins, except under noisy=on, where every other rep costs 20 times
 * as much (the reps then never agree).
 */
static int g_ctl_reps;

static const struct bt_param ctl_params[] = {
	{ .name = "work", .kind = BT_P_INT, .def = "50", .min = 1, .max = 100000, .help = "spins an op" },
	{ .name = "noisy", .kind = BT_P_BOOL, .def = "off", .help = "alternate the cost" },
};

static int ctl_setup(struct bt_job *job, struct bt_err *err)
{
	static uint64_t spins;

	(void)err;
	spins = (uint64_t)bt_job_param(job, 0)->i;
	if (bt_job_param(job, 1)->i && g_ctl_reps % 2)
		spins *= 20;
	g_ctl_reps++;
	job->nworkers = 1;
	job->state = &spins;
	return 0;
}

static int ctl_worker(struct bt_worker *w)
{
	uint64_t spins = *(const uint64_t *)w->job->state;
	uint64_t x = 0;

	while (!bt_worker_stopping(w)) {
		for (uint64_t k = 0; k < spins; k++)
			x += k;
		__asm__ volatile("" : "+r"(x));	/* the loop is kept, not folded */
		bt_worker_ops(w, 1);
	}
	return 0;
}

static const struct bt_workload ctl_wl = {
	.name = "ctl", .group = "harness", .title = "controlled throughput", .unit = "ops",
	.params = ctl_params, .nparams = 2, .stop_default = "ops=20000",
	.setup = ctl_setup, .worker = ctl_worker,
};

/*
 * reps=auto stops a steady cell at its target (well before the cap) and a
 * noisy one at the cap, and the table says which.
 */
static void test_reps_auto(void **state)
{
	static const char *const steady[] = { "reps=auto", "ci=100%", "max_reps=20", "warmup=0",
					      "lat=off", NULL };
	static const char *const noisy[] = { "reps=auto", "ci=0.5%", "max_reps=6", "warmup=0",
					     "noisy=on", "lat=off", NULL };
	struct bt_run *run;
	struct bt_cell *c;
	char text[128];

	(void)state;
	run = run_to_end(&ctl_wl, steady, NULL, 0);
	c = &bt_run_results(run)->cells[0];
	assert_true(c->done);
	assert_int_equal(c->stop, BT_STOP_CI);
	assert_true(c->nreps >= BT_AUTO_MIN_REPS && c->nreps < 20);
	assert_true(c->ci_pct <= 100);
	assert_int_equal(c->total_reps, 20);
	assert_non_null(strstr(bt_cell_stop_text(c, text, sizeof(text)), " after "));
	assert_non_null(strstr(bt_run_results(run)->plan_json, "\"reps\": \"auto\""));
	bt_run_free(run);

	g_ctl_reps = 0;
	run = run_to_end(&ctl_wl, noisy, NULL, 0);
	c = &bt_run_results(run)->cells[0];
	assert_true(c->done);
	assert_int_equal(c->stop, BT_STOP_CAP);
	assert_int_equal(c->nreps, 6);
	assert_int_equal(g_ctl_reps, 6);
	assert_true(c->noise & BT_NOISE_CI_WIDE);
	assert_non_null(strstr(bt_cell_stop_text(c, text, sizeof(text)), "cap 6 reached, ci "));
	bt_run_free(run);
}

/*
 * Cells that take turns keep their cell level from their first rep to the
 * end of the run, then release it in reverse order of setup.
 */
static void test_levels_interleaved(void **state)
{
	const char *args[] = { "threads=1,2", "reps=2", "warmup=0", "ops=100", "order=interleaved",
			       NULL };
	struct bt_run *run;

	(void)state;
	g_log[0] = '\0';
	g_fail_cell = -1;
	g_cells_seen = 0;
	run = run_to_end(&lv_wl, args, NULL, 0);
	assert_string_equal(g_log, "R+ C+ S+ S- C+ S+ S- S+ S- S+ S- C- C- R-");
	bt_run_free(run);
}

/* pingpong: every sync model hands the token over exactly 2 x ops times (its verify). */
static void test_pingpong(void **state)
{
	static const char *const args[] = { "sync=cond,spin,futex,pipe,eventfd", "ops=3000", "reps=1",
					    "warmup=0", "lat_every=1", NULL };
	static const char *const sep[] = { "sync=cond", "lock=spin,ticket", "wait=separate",
					   "ops=500", "reps=1", "warmup=0", NULL };
	struct bt_run *run;
	struct bt_results *res;

	(void)state;
	run = run_to_end(bt_workload_find("pingpong"), args, NULL, 0);
	res = bt_run_results(run);
	assert_int_equal(res->nreps, 5);
	for (int i = 0; i < res->nreps; i++) {
		assert_true(res->reps[i].ok);
		assert_true(res->reps[i].ops == 3000);
		assert_true(res->reps[i].lat.count == 3000);	/* one latency per round trip */
	}
	bt_run_free(run);
	run = run_to_end(bt_workload_find("pingpong"), sep, NULL, 0);
	res = bt_run_results(run);
	for (int i = 0; i < res->nreps; i++)
		assert_true(res->reps[i].ok && res->reps[i].ops == 500);
	bt_run_free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_recorded),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_finalize),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_live_channels),
		cmocka_unit_test(test_rate_recorded),
		cmocka_unit_test(test_every_workload_plans),
		cmocka_unit_test(test_as_processes),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_order_interleaved),
		cmocka_unit_test(test_order_shuffled),
		cmocka_unit_test(test_reps_auto),
		cmocka_unit_test(test_levels_interleaved),
		cmocka_unit_test(test_pingpong),
	};

	srandom((unsigned)time(NULL) ^ (unsigned)getpid());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
