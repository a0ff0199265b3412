/*
 * fuzz_plan.c - fuzz the plan reader: bt_plan_file_workload and
 * bt_plan_load (jansson, then every value through the parameter parsers).
 *
 * The schema is a local one with every parameter kind (int, size, duration,
 * enum, list, bool, string) and the names of the common and pipeline
 * parameters, so the seeds (saved plans) apply; the plan is initialized for
 * whatever workload the file names, so loading goes past that check.
 *
 * Properties checked besides "no crash, no sanitizer report":
 *   - a failure always comes with a message, and leaves the plan unchanged;
 *   - a loaded plan is self-consistent: axes in range, distinct, each with
 *     more than one value, ncells the product of their value counts and at
 *     most BT_PLAN_MAX_CELLS; every cell's coordinates are in range;
 *   - it round-trips: bt_plan_to_json, applied to a fresh plan, gives the
 *     same JSON again.
 *
 * Usage: fuzz_plan CORPUS_DIR (see fuzz_driver.h);
 * or clang -fsanitize=fuzzer,address -DBT_LIBFUZZER for libFuzzer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/param.h"
#include "core/plan.h"

#define FUZZ_NAME "fuzz_plan"
#define FUZZ_SEED_PREFIX "plan"

#include "fuzz_driver.h"

static long n_ok, n_rejected;

static const char *const lock_choices[] = { "mutex", "adaptive", "spin", "ticket", NULL };
static const char *const notify_choices[] = { "signal", "broadcast", NULL };
static const char *const wait_choices[] = { "atomic", "separate", NULL };
static const char *const queue_choices[] = { "locked", "lockfree", NULL };
static const char *const digest_choices[] = { "md5", "sha1", "sha256", "sha512", NULL };

static const struct bt_param common[] = {
	{ .name = "reps", .kind = BT_P_INT, .def = "5", .min = 1, .max = 1000, .flags = BT_PF_NOSWEEP },
	{ .name = "warmup", .kind = BT_P_INT, .def = "1", .min = 0, .max = 100, .flags = BT_PF_NOSWEEP },
	{ .name = "duration", .kind = BT_P_DURATION, .def = "0", .min = 0,
	  .max = 24 * 3600 * 1000000000ll, .flags = BT_PF_NOSWEEP },
	{ .name = "ops", .kind = BT_P_INT, .def = "0", .min = 0, .max = 1000000000000000ll,
	  .flags = BT_PF_NOSWEEP },
	{ .name = "pin", .kind = BT_P_STRING, .def = "none" },
	{ .name = "lat", .kind = BT_P_BOOL, .def = "on", .flags = BT_PF_NOSWEEP },
	{ .name = "lat_every", .kind = BT_P_INT, .def = "0", .min = 0, .max = 65536,
	  .flags = BT_PF_NOSWEEP },
	{ .name = "sample", .kind = BT_P_DURATION, .def = "100ms", .min = 10000000ll,
	  .max = 10000000000ll, .flags = BT_PF_NOSWEEP },
};

static const struct bt_param wl[] = {
	{ .name = "threads", .kind = BT_P_INT, .def = "4", .min = 1, .max = 1024 },
	{ .name = "transmitters", .kind = BT_P_INT, .def = "1", .min = 1, .max = 64 },
	{ .name = "units", .kind = BT_P_INT, .def = "1000", .min = 1, .max = 100000000 },
	{ .name = "block", .kind = BT_P_INT, .def = "5", .min = 1, .max = 1024 },
	{ .name = "capacity", .kind = BT_P_INT, .def = "10", .min = 1, .max = 1000000 },
	{ .name = "lock", .kind = BT_P_ENUM, .def = "mutex", .choices = lock_choices },
	{ .name = "notify", .kind = BT_P_ENUM, .def = "signal", .choices = notify_choices },
	{ .name = "wait", .kind = BT_P_ENUM, .def = "atomic", .choices = wait_choices },
	{ .name = "timeout", .kind = BT_P_DURATION, .def = "5ms", .min = 0, .max = 60000000000ll },
	{ .name = "queue", .kind = BT_P_ENUM, .def = "locked", .choices = queue_choices },
	{ .name = "msgsize", .kind = BT_P_SIZE, .def = "64", .min = 1, .max = 1 << 20 },
	{ .name = "digests", .kind = BT_P_LIST, .def = "sha256", .choices = digest_choices },
	{ .name = "work", .kind = BT_P_INT, .def = "0", .min = 0, .max = 1000000 },
};

#define NCOMMON (sizeof(common) / sizeof(common[0]))
#define NWL (sizeof(wl) / sizeof(wl[0]))

static void init(struct bt_plan *pl, const char *workload)
{
	struct bt_err err = { "" };

	if (bt_plan_init(pl, workload, common, NCOMMON, wl, NWL, &err) < 0)
		inconsistent("bt_plan_init: %s", err.msg);
}

static void check_plan(const struct bt_plan *pl)
{
	long cells = 1;

	if (pl->naxes < 0 || pl->naxes > BT_PLAN_MAX_AXES)
		inconsistent("naxes %d", pl->naxes);
	for (int a = 0; a < pl->naxes; a++) {
		int p = pl->axes[a];

		if (p < 0 || p >= pl->nparams)
			inconsistent("axis %d: param %d of %d", a, p, pl->nparams);
		if (pl->nvals[p] < 2 || pl->nvals[p] > BT_PLAN_MAX_VALUES)
			inconsistent("axis %s has %d values", pl->params[p]->name, pl->nvals[p]);
		for (int b = 0; b < a; b++)
			if (pl->axes[b] == p)
				inconsistent("axis %s twice", pl->params[p]->name);
		cells *= pl->nvals[p];
	}
	for (int i = 0; i < pl->nparams; i++) {
		int axis = 0;

		for (int a = 0; a < pl->naxes; a++)
			axis |= pl->axes[a] == i;
		if (pl->nvals[i] < 1 || (!axis && pl->nvals[i] != 1))
			inconsistent("%s has %d values, axis %d", pl->params[i]->name, pl->nvals[i], axis);
	}
	if (cells != pl->ncells || pl->ncells < 1 || pl->ncells > BT_PLAN_MAX_CELLS)
		inconsistent("ncells %d, product of the axes %ld", pl->ncells, cells);
	for (int c = 0; c < pl->ncells; c += 1 + pl->ncells / 16) {
		int idx[BT_PLAN_MAX_AXES];
		char label[512];

		bt_plan_cell_coords(pl, c, idx);
		for (int a = 0; a < pl->naxes; a++)
			if (idx[a] < 0 || idx[a] >= pl->nvals[pl->axes[a]])
				inconsistent("cell %d: coordinate %d on axis %d", c, idx[a], a);
		bt_plan_cell_label(pl, c, label, sizeof(label));
	}
}

/* to_json -> apply to a fresh plan -> to_json: the same text. */
static void check_round_trip(const struct bt_plan *pl)
{
	struct bt_plan again;
	struct bt_err err = { "" };
	char *j1 = bt_plan_to_json(pl), *j2;

	if (j1 == NULL)
		inconsistent("bt_plan_to_json failed");
	init(&again, pl->workload);
	if (bt_plan_apply_json(&again, j1, "round-trip", &err) < 0)
		inconsistent("the plan's own JSON does not load: %s\n%s", err.msg, j1);
	j2 = bt_plan_to_json(&again);
	if (j2 == NULL || strcmp(j1, j2) != 0)
		inconsistent("round trip changed the plan:\n%s\n%s", j1, j2 ? j2 : "(null)");
	free(j1);
	free(j2);
	bt_plan_destroy(&again);
}

static void fuzz_one(const char *path)
{
	char workload[64] = "";
	struct bt_plan pl;
	struct bt_err err = { "" };
	char *before, *after;

	if (bt_plan_file_workload(path, workload, sizeof(workload), &err) < 0) {
		if (err.msg[0] == '\0')
			inconsistent("bt_plan_file_workload failed without a message");
		snprintf(workload, sizeof(workload), "pipeline");
	}
	init(&pl, workload);
	before = bt_plan_to_json(&pl);
	err.msg[0] = '\0';
	if (bt_plan_load(&pl, path, &err) < 0) {
		if (err.msg[0] == '\0')
			inconsistent("bt_plan_load failed without a message");
		after = bt_plan_to_json(&pl);
		if (before == NULL || after == NULL || strcmp(before, after) != 0)
			inconsistent("a failed load changed the plan");
		free(after);
		n_rejected++;
	} else {
		n_ok++;
		check_plan(&pl);
		check_round_trip(&pl);
	}
	free(before);
	bt_plan_destroy(&pl);
}

static void fuzz_report(void)
{
	printf("%s: %ld loaded, %ld rejected with a message\n", FUZZ_NAME, n_ok, n_rejected);
}

