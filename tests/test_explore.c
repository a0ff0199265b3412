/*
 * test_explore.c - explore mode (engines/explore.h): changes applied at
 * sample boundaries, parked workers that count nothing, restarts, exact
 * ops per segment, the recording read back. Run under TSan in CI (engine
 * suite). Waiting is on the explore's own state (snapshots), never a sleep
 * of a guessed length.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/recording.h"
#include "engines/explore.h"
#include "engines/runner.h"
#include "workloads/registry.h"

/*
 * "tally": peers that count every op twice, in their own counter (what the
 * engine reads) and in one shared atomic per generation; teardown adds the
 * generation's shared count to g_total, so a test knows every op the
 * workers did, however the segments cut them.
 */
enum { T_THREADS, T_MODE };
static const char *const mode_choices[] = { "a", "b", NULL };
static const struct bt_param tally_params[] = {
	[T_THREADS] = { .name = "threads", .kind = BT_P_INT, .def = "1", .min = 1, .max = 64,
			.help = "workers", .flags = BT_PF_WORKERS | BT_PF_LIVE | BT_PF_PARK },
	[T_MODE] = { .name = "mode", .kind = BT_P_ENUM, .def = "a", .choices = mode_choices,
		     .help = "a knob whose change restarts", .flags = BT_PF_LIVE },
};

struct tally {
	_Atomic uint64_t ops;
};

static _Atomic uint64_t g_total;
static _Atomic int g_setups, g_teardowns;

static int tally_setup(struct bt_job *job, struct bt_err *err)
{
	struct tally *t = bt_job_shared_alloc(job, sizeof(*t));

	if (t == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	atomic_init(&t->ops, 0);
	job->state = t;
	job->nworkers = (int)bt_job_param(job, T_THREADS)->i;
	atomic_fetch_add(&g_setups, 1);
	return 0;
}

static int tally_worker(struct bt_worker *w)
{
	struct tally *t = w->job->state;

	while (!bt_worker_stopping(w)) {
		uint64_t t0 = bt_lat_begin(w);

		atomic_fetch_add_explicit(&t->ops, 1, memory_order_relaxed);
		bt_lat_end(w, t0);
		bt_worker_ops(w, 1);
	}
	return 0;
}

static void tally_teardown(struct bt_job *job)
{
	struct tally *t = job->state;

	atomic_fetch_add(&g_total, atomic_load(&t->ops));
	atomic_fetch_add(&g_teardowns, 1);
}

static const struct bt_workload tally_wl = {
	.name = "tally", .group = "harness", .title = "counted peers", .unit = "ops",
	.lat_what = "one op", .params = tally_params, .nparams = 2,
	.stop_default = "duration=1s",
	.setup = tally_setup, .worker = tally_worker, .teardown = tally_teardown,
};

static void make_plan(struct bt_plan *pl, const struct bt_workload *wl, const char *const *args)
{
	struct bt_err err = { "" };

	assert_int_equal(bt_run_plan_init(pl, wl, &err), 0);
	for (int i = 0; args[i] != NULL; i++)
		if (bt_plan_set_arg(pl, args[i], &err) < 0)
			fail_msg("%s: %s", args[i], err.msg);
	assert_int_equal(bt_run_plan_finalize(pl, wl, &err), 0);
}

static void nap(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

/* Wait until the running segment is seg and has had n samples of its own. */
static void wait_samples(struct bt_explore *x, int seg, int n)
{
	struct bt_explore_snap s;
	uint64_t first = 0;
	int seen = 0;

	for (int i = 0; i < 60000; i++) {
		bt_explore_snapshot(x, &s);
		assert_int_not_equal(s.state, BT_EXPLORE_DONE);
		if (s.segment == seg && s.last.cell == seg) {
			if (!seen) {
				first = s.sample_seq;
				seen = 1;
			}
			if (s.sample_seq - first + 1 >= (uint64_t)n)
				return;
		}
		nap();
	}
	fail_msg("segment %d never had %d samples", seg, n);
}

/* The rep of cell c. */
static const struct bt_rep *rep_of(const struct bt_results *res, int c)
{
	for (int i = 0; i < res->nreps; i++)
		if (res->reps[i].cell == c)
			return &res->reps[i];
	fail_msg("no rep for cell %d", c);
	return NULL;
}

/* The ops of cell c's last sample (the samples account for every op of the segment). */
static uint64_t last_sample_ops(const struct bt_results *res, int c)
{
	uint64_t ops = 0;

	for (int i = 0; i < res->nsamples; i++)
		if (res->samples[i].cell == c)
			ops = res->samples[i].ops;
	return ops;
}

/* Check one segment: its label, its running workers, exact counts. */
static uint64_t check_segment(const struct bt_results *res, int c, const char *label, int nworkers)
{
	const struct bt_rep *r = rep_of(res, c);
	uint64_t sum = 0;

	assert_string_equal(res->cells[c].label, label);
	assert_true(res->cells[c].done);
	assert_int_equal(res->cells[c].nreps, 1);
	assert_true(r->ok);
	assert_int_equal(r->nworkers, nworkers);
	for (int i = 0; i < r->nworkers; i++)
		sum += r->workers[i].ops;
	/* r->ops sums every worker started, parked ones included: they counted nothing. */
	assert_int_equal(r->ops, sum);
	assert_true(r->ops > 0);
	assert_int_equal(last_sample_ops(res, c), r->ops);
	assert_non_null(res->cells[c].hist);
	return r->ops;
}

/*
 * threads 1 -> 4 -> 2 without a restart (parked and started workers), then
 * mode=b (a restart): four segments whose ops add up to every op the
 * workers did, the parked workers counting nothing; the recording reads
 * back the same segments, changes and counts.
 */
static void test_threads_and_restart(void **state)
{
	static const char *const args[] = { "threads=1", "sample=20ms", "lat_every=1", NULL };
	struct bt_plan pl;
	struct bt_explore *x;
	struct bt_explore_snap s;
	struct bt_results *res, back;
	struct bt_err err = { "" };
	char path[256];
	uint64_t total = 0;

	(void)state;
	atomic_store(&g_total, 0);
	atomic_store(&g_setups, 0);
	atomic_store(&g_teardowns, 0);
	snprintf(path, sizeof(path), "/tmp/bt-test-explore-%d.jsonl", (int)getpid());
	unlink(path);
	make_plan(&pl, &tally_wl, args);
	assert_int_equal(bt_explore_start(&x, &tally_wl, &pl, path, &err), 0);
	wait_samples(x, 0, 2);
	assert_int_equal(bt_explore_change(x, "threads", "4", &err), 0);
	wait_samples(x, 1, 3);
	assert_int_equal(bt_explore_change(x, "threads", "2", &err), 0);
	wait_samples(x, 2, 3);
	bt_explore_snapshot(x, &s);
	assert_int_equal(s.nworkers, 2);
	assert_int_equal(s.parked, 2);
	assert_int_equal(s.setups, 1);	/* no restart so far */
	assert_int_equal(bt_explore_change(x, "mode", "b", &err), 0);
	wait_samples(x, 3, 2);
	bt_explore_finish(x);
	assert_int_equal(bt_explore_wait(x), 0);

	res = bt_explore_results(x);
	assert_string_equal(res->status, "complete");
	assert_int_equal(res->ncells, 4);
	assert_int_equal(res->nchanges, 3);
	assert_int_equal(res->naxes, 2);
	assert_string_equal(res->axes[0], "threads");
	assert_string_equal(res->axes[1], "mode");
	assert_true(res->axis_workers[0]);
	assert_string_equal(res->changes[0].key, "threads");
	assert_string_equal(res->changes[0].value, "4");
	assert_int_equal(res->changes[0].cell, 1);
	assert_string_equal(res->changes[2].value, "b");
	total += check_segment(res, 0, "threads=1 mode=a", 1);
	total += check_segment(res, 1, "threads=4 mode=a", 4);
	total += check_segment(res, 2, "threads=2 mode=a", 2);
	total += check_segment(res, 3, "threads=2 mode=b", 2);
	assert_int_equal(atomic_load(&g_setups), 2);
	assert_int_equal(atomic_load(&g_teardowns), 2);
	assert_int_equal(total, atomic_load(&g_total));
	/* The plan of the values visited: a sweep of them. */
	assert_non_null(strstr(res->plan_json, "\"threads\": [\n      1,\n      2,\n      4"));

	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_true(back.explore);
	assert_int_equal(back.ncells, 4);
	assert_int_equal(back.nchanges, 3);
	assert_int_equal(back.naxes, 2);
	for (int c = 0; c < 4; c++) {
		assert_string_equal(back.cells[c].label, res->cells[c].label);
		assert_int_equal(rep_of(&back, c)->ops, rep_of(res, c)->ops);
		assert_int_equal(back.cells[c].hist->total, res->cells[c].hist->total);
	}
	assert_string_equal(back.status, "complete");
	bt_results_destroy(&back);
	bt_explore_free(x);
	bt_plan_destroy(&pl);
	unlink(path);
}

/* What a change may not be: each refused with one line, the run goes on. */
static void test_refused(void **state)
{
	static const char *const args[] = { "threads=2", "sample=20ms", NULL };
	static const char *const sweep[] = { "threads=1,2", NULL };
	const struct bt_workload *locks = bt_workload_find("locks");
	struct bt_plan pl;
	struct bt_explore *x;
	struct bt_err err = { "" };

	(void)state;
	make_plan(&pl, locks, sweep);
	assert_int_equal(bt_explore_check(locks, &pl, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "threads=1,2: explore runs one setting at a time (give one value, then change it while it runs)");
	bt_plan_destroy(&pl);

	make_plan(&pl, locks, args);
	assert_int_equal(bt_explore_start(&x, locks, &pl, NULL, &err), 0);
	assert_int_equal(bt_explore_change(x, "shared", "2", &err), -EINVAL);
	assert_string_equal(err.msg, "shared=2: shared does not change while exploring (live: threads, lock, cs, outside, pin)");
	assert_int_equal(bt_explore_change(x, "threads", "2", &err), -EINVAL);
	assert_string_equal(err.msg, "threads=2: that is the value already");
	assert_int_equal(bt_explore_change(x, "threads", "1,2", &err), -EINVAL);
	assert_string_equal(err.msg, "threads=1,2: one value at a time while exploring (a sweep is for run)");
	assert_int_equal(bt_explore_change(x, "lock", "none", &err), -EINVAL);
	assert_string_equal(err.msg, "lock=none: only with threads=1 (no lock means lost updates)");
	assert_int_equal(bt_explore_change_arg(x, "bogus=1", &err), -EINVAL);
	assert_string_equal(err.msg, "bogus: unknown parameter of locks (see benchtop list locks)");
	assert_int_equal(bt_explore_change_arg(x, "threads", &err), -EINVAL);
	/* Checked against what is waiting: threads=1 first, then lock=none is fine. */
	assert_int_equal(bt_explore_change(x, "threads", "1", &err), 0);
	assert_int_equal(bt_explore_change(x, "lock", "none", &err), 0);
	bt_explore_finish(x);
	assert_int_equal(bt_explore_wait(x), 0);
	assert_int_equal(bt_explore_results(x)->ncells, 3);
	assert_string_equal(bt_explore_results(x)->cells[2].label, "threads=1 lock=none");
	bt_explore_free(x);
	bt_plan_destroy(&pl);
}

/*
 * A workload of fixed work runs rep after rep inside a segment (each one
 * verified), and a sync-model change drains and restarts it.
 */
static void test_fixed_work(void **state)
{
	static const char *const args[] = { "threads=1", "units=200", "sample=20ms", NULL };
	const struct bt_workload *pipe = bt_workload_find("pipeline");
	struct bt_plan pl;
	struct bt_explore *x;
	struct bt_explore_snap s;
	struct bt_err err = { "" };
	struct bt_results *res;

	(void)state;
	make_plan(&pl, pipe, args);
	assert_int_equal(bt_explore_start(&x, pipe, &pl, NULL, &err), 0);
	wait_samples(x, 0, 3);
	assert_int_equal(bt_explore_change(x, "notify", "broadcast", &err), 0);
	wait_samples(x, 1, 3);
	bt_explore_snapshot(x, &s);
	assert_true(s.setups > 2);
	bt_explore_stop(x);
	assert_int_equal(bt_explore_wait(x), 0);
	res = bt_explore_results(x);
	assert_int_equal(res->ncells, 2);
	assert_string_equal(res->cells[1].label, "notify=broadcast");
	for (int c = 0; c < 2; c++) {
		assert_true(rep_of(res, c)->ok);
		assert_true(rep_of(res, c)->ops > 0);
		assert_int_equal(last_sample_ops(res, c), rep_of(res, c)->ops);
	}
	bt_explore_free(x);
	bt_plan_destroy(&pl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_and_restart),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_fixed_work),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
