/*
 * test_plan.c - plan values, sweep axes, cells, labels and plan files.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/plan.h"

static const char *const lock_choices[] = { "mutex", "adaptive", "spin", "ticket", NULL };
static const char *const notify_choices[] = { "signal", "broadcast", NULL };
static const char *const algo_choices[] = { "md5", "sha1", "sha256", NULL };

static int check_not_x(const char *text, struct bt_err *err)
{
	if (strcmp(text, "x") == 0)
		return bt_err_set(err, -EINVAL, "name=x: x is reserved");
	return 0;
}

/* The common table: what every run has. */
static const struct bt_param common[] = {
	{ .name = "threads", .kind = BT_P_INT, .def = "1", .min = 1, .max = 1024,
	  .flags = BT_PF_WORKERS },
	{ .name = "reps", .kind = BT_P_INT, .def = "5", .min = 1, .max = 1000,
	  .flags = BT_PF_NOSWEEP },
	{ .name = "duration", .kind = BT_P_DURATION, .def = "5ms", .min = 0,
	  .max = 3600LL * 1000000000 },
};
#define NCOMMON (sizeof(common) / sizeof(common[0]))

/* The workload's table. */
static const struct bt_param wl[] = {
	{ .name = "lock", .kind = BT_P_ENUM, .def = "mutex", .choices = lock_choices },
	{ .name = "block", .kind = BT_P_SIZE, .def = "64K", .min = 16, .max = 16 << 20 },
	{ .name = "verify", .kind = BT_P_BOOL, .def = "on" },
	{ .name = "algo", .kind = BT_P_LIST, .def = "md5", .choices = algo_choices },
	{ .name = "name", .kind = BT_P_STRING, .def = "a", .check = check_not_x },
	{ .name = "notify", .kind = BT_P_ENUM, .def = "signal", .choices = notify_choices },
	{ .name = "pin", .kind = BT_P_STRING, .def = "none" },
	{ .name = "rows", .kind = BT_P_STRING, .def = "", .flags = BT_PF_NOSWEEP | BT_PF_ROWS },
};
#define NWL (sizeof(wl) / sizeof(wl[0]))

enum { I_THREADS, I_REPS, I_DURATION, I_LOCK, I_BLOCK, I_VERIFY, I_ALGO, I_NAME, I_NOTIFY,
	I_PIN, I_ROWS, NALL };

static void init(struct bt_plan *pl)
{
	struct bt_err err = { "" };

	if (bt_plan_init(pl, "pipeline", common, NCOMMON, wl, NWL, &err) != 0)
		fail_msg("init: %s", err.msg);
}

static void set(struct bt_plan *pl, const char *key, const char *text)
{
	struct bt_err err = { "" };

	if (bt_plan_set(pl, key, text, &err) != 0)
		fail_msg("%s=%s: %s", key, text, err.msg);
}

static void set_fails(struct bt_plan *pl, const char *key, const char *text, const char *msg)
{
	struct bt_err err = { "" };

	assert_int_equal(bt_plan_set(pl, key, text, &err), -EINVAL);
	assert_string_equal(err.msg, msg);
}

/* The axes as "threads lock notify". */
static void axes_are(const struct bt_plan *pl, const char *want)
{
	char buf[256] = "";
	size_t len = 0;
	int a;

	for (a = 0; a < pl->naxes; a++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", a ? " " : "",
					pl->params[pl->axes[a]]->name);
	assert_string_equal(buf, want);
}

static void label_is(const struct bt_plan *pl, int c, const char *want)
{
	char buf[256];

	bt_plan_cell_label(pl, c, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_init_defaults(void **state)
{
	const struct bt_value *cell[BT_PLAN_MAX_PARAMS];
	struct bt_plan pl;
	int i;

	init(&pl);
	assert_string_equal(pl.workload, "pipeline");
	assert_int_equal(pl.nparams, NALL);
	assert_int_equal(pl.naxes, 0);
	assert_int_equal(pl.ncells, 1);
	for (i = 0; i < NALL; i++)
		assert_int_equal(pl.nvals[i], 1);
	assert_ptr_equal(pl.params[I_THREADS], &common[0]);
	assert_ptr_equal(pl.params[I_LOCK], &wl[0]);
	assert_int_equal(bt_plan_index(&pl, "threads"), I_THREADS);
	assert_int_equal(bt_plan_index(&pl, "pin"), I_PIN);
	assert_int_equal(bt_plan_index(&pl, "bogus"), -1);
	assert_int_equal(pl.vals[I_THREADS][0].i, 1);
	assert_string_equal(pl.vals[I_BLOCK][0].text, "64K");
	assert_int_equal(pl.vals[I_DURATION][0].i, 5000000);
	bt_plan_cell(&pl, 0, cell);
	for (i = 0; i < NALL; i++)
		assert_ptr_equal(cell[i], &pl.vals[i][0]);
	label_is(&pl, 0, "");
	bt_plan_destroy(&pl);
	bt_plan_destroy(&pl);	/* twice is harmless */
}

static void test_init_errors(void **state)
{
	static const struct bt_param bad_def[] = {
		{ .name = "threads", .kind = BT_P_INT, .def = "0", .min = 1, .max = 1024 },
	};
	static const struct bt_param dup[] = {
		{ .name = "threads", .kind = BT_P_INT, .def = "2", .min = 1, .max = 1024 },
	};
	static struct bt_param many[BT_PLAN_MAX_PARAMS + 1];
	char longname[100];
	struct bt_plan pl;
	struct bt_err err;
	int i;

	assert_int_equal(bt_plan_init(&pl, "w", NULL, 0, bad_def, 1, &err), -EINVAL);
	assert_string_equal(err.msg, "w: bad default: threads=0: must be 1..1024");
	assert_int_equal(pl.nparams, 0);

	assert_int_equal(bt_plan_init(&pl, "w", common, NCOMMON, dup, 1, &err), -EINVAL);
	assert_string_equal(err.msg, "w: parameter threads is declared twice");
	assert_int_equal(pl.nparams, 0);

	for (i = 0; i < BT_PLAN_MAX_PARAMS + 1; i++) {
		many[i].name = "p";
		many[i].kind = BT_P_BOOL;
		many[i].def = "on";
	}
	assert_int_equal(bt_plan_init(&pl, "w", many, 1, many, BT_PLAN_MAX_PARAMS, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "w: 65 parameters (at most 64)");

	memset(longname, 'w', 64);
	longname[64] = '\0';
	assert_int_equal(bt_plan_init(&pl, longname, common, NCOMMON, wl, NWL, &err), -EINVAL);
	memset(longname, 'w', 63);
	longname[63] = '\0';
	assert_int_equal(bt_plan_init(&pl, longname, common, NCOMMON, wl, NWL, &err), 0);
	bt_plan_destroy(&pl);
}

static void test_set_single(void **state)
{
	struct bt_plan pl;

	init(&pl);
	set(&pl, "threads", "8");
	set(&pl, "block", "1MiB");
	set(&pl, "pin", "list:0,2,4-7");
	set(&pl, "name", "");
	assert_int_equal(pl.naxes, 0);
	assert_int_equal(pl.ncells, 1);
	assert_int_equal(pl.vals[I_THREADS][0].i, 8);
	assert_string_equal(pl.vals[I_BLOCK][0].text, "1M");
	assert_int_equal(pl.nvals[I_PIN], 1);
	assert_string_equal(pl.vals[I_PIN][0].text, "list:0,2,4-7");
	assert_string_equal(pl.vals[I_NAME][0].text, "");
	bt_plan_destroy(&pl);
}

static void test_set_errors(void **state)
{
	struct bt_plan pl;

	init(&pl);
	set_fails(&pl, "bogus", "1",
		  "bogus: unknown parameter of pipeline (see benchtop list pipeline)");
	set_fails(&pl, "threads", "0", "threads=0: must be 1..1024");
	set_fails(&pl, "reps", "1,2", "reps=1,2: reps takes one value");
	set_fails(&pl, "threads", "1,,2", "threads=1,,2: empty value");
	set_fails(&pl, "threads", "1,2,", "threads=1,2,: empty value");
	set_fails(&pl, "threads", "", "threads=: empty value");
	set_fails(&pl, "threads", "1,2,1", "threads=1,2,1: 1 is given twice");
	set_fails(&pl, "lock", "mutex,bogus",
		  "lock=bogus: must be one of mutex, adaptive, spin, ticket");
	set_fails(&pl, "name", "a,x", "name=x: x is reserved");
	set_fails(&pl, "block", "4K,4096", "block=4K,4096: 4K is given twice");
	/* A failed set leaves the plan as it was. */
	set(&pl, "threads", "2,4");
	set_fails(&pl, "threads", "1,0", "threads=0: must be 1..1024");
	assert_int_equal(pl.nvals[I_THREADS], 2);
	assert_int_equal(pl.vals[I_THREADS][1].i, 4);
	assert_int_equal(pl.ncells, 2);
	set(&pl, "reps", "3");
	assert_int_equal(pl.vals[I_REPS][0].i, 3);
	bt_plan_destroy(&pl);
}

static void test_set_arg(void **state)
{
	struct bt_plan pl;
	struct bt_err err;

	init(&pl);
	assert_int_equal(bt_plan_set_arg(&pl, "threads=4", &err), 0);
	assert_int_equal(pl.vals[I_THREADS][0].i, 4);
	assert_int_equal(bt_plan_set_arg(&pl, "pin=none,list:0,1", &err), 0);
	assert_int_equal(pl.nvals[I_PIN], 2);
	assert_string_equal(pl.vals[I_PIN][1].text, "list:0,1");
	assert_int_equal(bt_plan_set_arg(&pl, "name=a=b", &err), 0);
	assert_string_equal(pl.vals[I_NAME][0].text, "a=b");
	assert_int_equal(bt_plan_set_arg(&pl, "threads4", &err), -EINVAL);
	assert_string_equal(err.msg, "threads4: missing '=' (expected key=value)");
	assert_int_equal(bt_plan_set_arg(&pl, "=4", &err), -EINVAL);
	assert_string_equal(err.msg, "=4: missing parameter name before '='");
	assert_int_equal(bt_plan_set_arg(&pl, "bogus=4", &err), -EINVAL);
	assert_string_equal(err.msg,
			    "bogus: unknown parameter of pipeline (see benchtop list pipeline)");
	bt_plan_destroy(&pl);
}

static void test_axes_order(void **state)
{
	struct bt_plan pl;

	init(&pl);
	set(&pl, "notify", "signal,broadcast");
	set(&pl, "lock", "mutex,spin,ticket");
	axes_are(&pl, "notify lock");
	/* No parameter is special: threads takes its turn like any other. */
	set(&pl, "threads", "1,2");
	axes_are(&pl, "notify lock threads");
	assert_int_equal(pl.ncells, 12);
	/* Re-setting an axis keeps its place. */
	set(&pl, "notify", "broadcast,signal");
	axes_are(&pl, "notify lock threads");
	/* A single value removes it; setting a list again appends it. */
	set(&pl, "notify", "signal");
	axes_are(&pl, "lock threads");
	assert_int_equal(pl.ncells, 6);
	set(&pl, "notify", "signal,broadcast");
	axes_are(&pl, "lock threads notify");
	set(&pl, "threads", "4");
	axes_are(&pl, "lock notify");
	assert_int_equal(pl.ncells, 6);
	set(&pl, "lock", "spin");
	set(&pl, "notify", "broadcast");
	assert_int_equal(pl.naxes, 0);
	assert_int_equal(pl.ncells, 1);
	assert_int_equal(pl.nvals[I_LOCK], 1);
	assert_string_equal(pl.vals[I_LOCK][0].text, "spin");
	bt_plan_destroy(&pl);
}

static void test_cells(void **state)
{
	static const char *const locks[] = { "mutex", "spin" };
	static const char *const notes[] = { "signal", "broadcast" };
	static const int threads[] = { 1, 2, 4 };
	const struct bt_value *cell[BT_PLAN_MAX_PARAMS];
	char want[128];
	int idx[BT_PLAN_MAX_AXES];
	struct bt_plan pl;
	int c, t, l, n;

	init(&pl);
	set(&pl, "threads", "1,2,4");
	set(&pl, "lock", "mutex,spin");
	set(&pl, "notify", "signal,broadcast");
	set(&pl, "block", "4K");
	assert_int_equal(pl.ncells, 12);
	/* Row-major: threads (the first axis given) outermost, notify (the last) fastest. */
	c = 0;
	for (t = 0; t < 3; t++) {
		for (l = 0; l < 2; l++) {
			for (n = 0; n < 2; n++, c++) {
				bt_plan_cell_coords(&pl, c, idx);
				assert_int_equal(idx[0], t);
				assert_int_equal(idx[1], l);
				assert_int_equal(idx[2], n);
				bt_plan_cell(&pl, c, cell);
				assert_int_equal(cell[I_THREADS]->i, threads[t]);
				assert_string_equal(cell[I_LOCK]->text, locks[l]);
				assert_string_equal(cell[I_NOTIFY]->text, notes[n]);
				assert_string_equal(cell[I_BLOCK]->text, "4K");
				assert_int_equal(cell[I_REPS]->i, 5);
				snprintf(want, sizeof(want), "threads=%d lock=%s notify=%s",
					 threads[t], locks[l], notes[n]);
				label_is(&pl, c, want);
			}
		}
	}
	label_is(&pl, 0, "threads=1 lock=mutex notify=signal");
	label_is(&pl, 1, "threads=1 lock=mutex notify=broadcast");
	label_is(&pl, 11, "threads=4 lock=spin notify=broadcast");
	bt_plan_destroy(&pl);
}

static void test_label_truncates(void **state)
{
	struct bt_plan pl;
	char buf[10];

	init(&pl);
	set(&pl, "threads", "1,2");
	set(&pl, "notify", "signal,broadcast");
	bt_plan_cell_label(&pl, 1, buf, sizeof(buf));
	assert_string_equal(buf, "threads=1");
	bt_plan_cell_label(&pl, 1, buf, 5);
	assert_string_equal(buf, "thre");
	bt_plan_destroy(&pl);
}

static void test_limits(void **state)
{
	char list[512], msg[BT_ERR_MAX];
	struct bt_plan pl;
	size_t len = 0;
	int i;

	init(&pl);
	/* 64 values is the most; 65 is refused. */
	for (i = 1; i <= 65; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d", i > 1 ? "," : "", i);
	snprintf(msg, sizeof(msg), "threads=%.64s...: 65 values (at most 64)", list);
	set_fails(&pl, "threads", list, msg);
	*strrchr(list, ',') = '\0';
	set(&pl, "threads", list);
	assert_int_equal(pl.ncells, 64);
	/* 64 x 64 = 4096 cells is the most. */
	set(&pl, "block", "16,32,48,64,80,96,112,128,144,160,176,192,208,224,240,256,"
			  "272,288,304,320,336,352,368,384,400,416,432,448,464,480,496,512,"
			  "528,544,560,576,592,608,624,640,656,672,688,704,720,736,752,768,"
			  "784,800,816,832,848,864,880,896,912,928,944,960,976,992,1008,1K");
	assert_int_equal(pl.ncells, 4096);
	set_fails(&pl, "lock", "mutex,spin",
		  "lock=mutex,spin: the sweep would have 8192 cells (at most 4096)");
	assert_int_equal(pl.naxes, 2);
	assert_int_equal(pl.nvals[I_LOCK], 1);
	bt_plan_destroy(&pl);

	/* At most 8 axes. */
	init(&pl);
	set(&pl, "threads", "1,2");
	set(&pl, "duration", "1ms,2ms");
	set(&pl, "lock", "mutex,spin");
	set(&pl, "block", "1K,2K");
	set(&pl, "verify", "on,off");
	set(&pl, "algo", "md5,sha1");
	set(&pl, "name", "a,b");
	set(&pl, "notify", "signal,broadcast");
	assert_int_equal(pl.naxes, 8);
	assert_int_equal(pl.ncells, 256);
	set_fails(&pl, "pin", "none,compact",
		  "pin=none,compact: too many swept parameters (at most 8)");
	assert_int_equal(pl.naxes, 8);
	/* Changing the values of an existing axis is still fine. */
	set(&pl, "notify", "broadcast,signal");
	label_is(&pl, 255,
		 "threads=2 duration=2ms lock=spin block=2K verify=off algo=sha1 name=b notify=signal");
	bt_plan_destroy(&pl);
}

static const char tiny_json[] =
	"{\n"
	"  \"benchtop_plan\": 1,\n"
	"  \"workload\": \"pipeline\",\n"
	"  \"axes\": [\n"
	"    \"threads\",\n"
	"    \"lock\"\n"
	"  ],\n"
	"  \"params\": {\n"
	"    \"threads\": [\n"
	"      1,\n"
	"      4\n"
	"    ],\n"
	"    \"reps\": 5,\n"
	"    \"duration\": \"1500ms\",\n"
	"    \"lock\": [\n"
	"      \"mutex\",\n"
	"      \"spin\"\n"
	"    ],\n"
	"    \"block\": \"64K\",\n"
	"    \"verify\": false,\n"
	"    \"algo\": \"md5+sha256\",\n"
	"    \"name\": \"a\",\n"
	"    \"notify\": \"signal\",\n"
	"    \"pin\": \"list:0,2\",\n"
	"    \"rows\": \"threads\"\n"
	"  },\n"
	"  \"fixed\": \"duration=1500ms block=64K verify=off algo=md5+sha256 name=a notify=signal pin=list:0,2\"\n"
	"}";

static void test_to_json(void **state)
{
	struct bt_plan pl;
	char *s;

	init(&pl);
	set(&pl, "lock", "mutex,spin");
	set(&pl, "threads", "1,4");
	set(&pl, "duration", "1.5s");
	set(&pl, "verify", "no");
	set(&pl, "algo", "sha256+md5");
	set(&pl, "pin", "list:0,2");
	set(&pl, "rows", "threads");	/* given second, the rows: first */
	s = bt_plan_to_json(&pl);
	assert_non_null(s);
	assert_string_equal(s, tiny_json);
	free(s);
	bt_plan_destroy(&pl);
}

/* Every value and the axes of a and b are the same. */
static void same_plan(const struct bt_plan *a, const struct bt_plan *b)
{
	int i, j;

	assert_string_equal(a->workload, b->workload);
	assert_int_equal(a->nparams, b->nparams);
	assert_int_equal(a->naxes, b->naxes);
	assert_int_equal(a->ncells, b->ncells);
	for (i = 0; i < a->naxes; i++)
		assert_int_equal(a->axes[i], b->axes[i]);
	for (i = 0; i < a->nparams; i++) {
		assert_ptr_equal(a->params[i], b->params[i]);
		assert_int_equal(a->nvals[i], b->nvals[i]);
		for (j = 0; j < a->nvals[i]; j++) {
			assert_int_equal(a->vals[i][j].i, b->vals[i][j].i);
			assert_string_equal(a->vals[i][j].text, b->vals[i][j].text);
		}
	}
}

static void build_rich(struct bt_plan *pl)
{
	init(pl);
	/* notify before lock: the opposite of table order. */
	set(pl, "notify", "broadcast,signal");
	set(pl, "lock", "ticket,adaptive,mutex");
	set(pl, "block", "100,1536,1M");
	set(pl, "duration", "0,250us,2m");
	set(pl, "verify", "off");
	set(pl, "algo", "sha1+md5,sha256");
	set(pl, "name", "with,comma");	/* two values: "with" and "comma" */
	set(pl, "pin", "none,list:0,2,4-7,compact");
	set(pl, "reps", "9");
	axes_are(pl, "notify lock block duration algo name pin");
}

static void test_json_round_trip(void **state)
{
	struct bt_plan a, b;
	struct bt_err err;
	char *s, *s2;

	build_rich(&a);
	s = bt_plan_to_json(&a);
	assert_non_null(s);
	init(&b);
	assert_int_equal(bt_plan_apply_json(&b, s, "mem", &err), 0);
	same_plan(&a, &b);
	s2 = bt_plan_to_json(&b);
	assert_string_equal(s, s2);
	free(s2);
	free(s);
	bt_plan_destroy(&b);
	bt_plan_destroy(&a);
}

/* A temporary file holding text; path receives its name. */
static void write_tmp(char *path, size_t n, const char *text)
{
	FILE *f;
	int fd;

	snprintf(path, n, "/tmp/bt_test_plan_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static void test_save_load(void **state)
{
	char path[64], wlname[64];
	struct bt_plan a, b;
	struct bt_err err;

	build_rich(&a);
	snprintf(path, sizeof(path), "/tmp/bt_test_plan_XXXXXX");
	close(mkstemp(path));
	assert_int_equal(bt_plan_save(&a, path, &err), 0);
	assert_int_equal(bt_plan_file_workload(path, wlname, sizeof(wlname), &err), 0);
	assert_string_equal(wlname, "pipeline");
	assert_int_equal(bt_plan_file_workload(path, wlname, 8, &err), -EINVAL);
	init(&b);
	set(&b, "threads", "1,2");	/* the file says threads=1: no longer swept */
	set(&b, "verify", "on");
	assert_int_equal(bt_plan_load(&b, path, &err), 0);
	axes_are(&b, "notify lock block duration algo name pin");
	same_plan(&a, &b);
	unlink(path);

	assert_int_equal(bt_plan_save(&a, "/nonexistent-dir/p.json", &err), -ENOENT);
	assert_string_equal(err.msg, "cannot create /nonexistent-dir/p.json: No such file or directory");
	bt_plan_destroy(&b);
	bt_plan_destroy(&a);
}

/* Loading a file of text fails with exactly its name followed by suffix. */
static void load_fails(const char *text, const char *suffix)
{
	char path[64], msg[BT_ERR_MAX];
	struct bt_plan pl;
	struct bt_err err = { "" };
	char *s0, *s1;

	write_tmp(path, sizeof(path), text);
	init(&pl);
	set(&pl, "threads", "2,3");
	s0 = bt_plan_to_json(&pl);
	assert_int_equal(bt_plan_load(&pl, path, &err), -EINVAL);
	snprintf(msg, sizeof(msg), "%s%s", path, suffix);
	assert_string_equal(err.msg, msg);
	/* Nothing of a bad file is applied. */
	s1 = bt_plan_to_json(&pl);
	assert_string_equal(s0, s1);
	free(s0);
	free(s1);
	unlink(path);
	bt_plan_destroy(&pl);
}

static void test_load_errors(void **state)
{
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"pipeline\"",
		   ":1:43: '}' expected near end of file");
	load_fails("{\"benchtop_plan\": 1,\n \"workload\": \"pipeline\",\n \"params\": {\"threads\": [1, 2}}",
		   ":3:29: ']' expected near '}'");
	load_fails("", ":1:0: '[' or '{' expected near end of file");
	load_fails("[1, 2]", ": a plan must be a JSON object, not an array");
	load_fails("{\"benchtop_plan\": 2, \"workload\": \"pipeline\", \"params\": {}}",
		   ": plan version 2 is newer than this benchtop (1)");
	load_fails("{\"workload\": \"pipeline\", \"params\": {}}",
		   ": not a benchtop plan (no \"benchtop_plan\" version)");
	load_fails("{\"benchtop_plan\": \"1\", \"workload\": \"pipeline\", \"params\": {}}",
		   ": \"benchtop_plan\" must be a version number >= 1");
	load_fails("{\"benchtop_plan\": 0, \"workload\": \"pipeline\", \"params\": {}}",
		   ": \"benchtop_plan\" must be a version number >= 1");
	load_fails("{\"benchtop_plan\": 1, \"params\": {}}", ": \"workload\" is missing");
	load_fails("{\"benchtop_plan\": 1, \"workload\": 3, \"params\": {}}",
		   ": \"workload\" must be a string, not an integer");
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"locks\", \"params\": {}}",
		   ": the plan is for workload locks, not pipeline");
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"pipeline\"}",
		   ": \"params\" must be an object");
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"pipeline\", \"params\": []}",
		   ": \"params\" must be an object, not an array");
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"pipeline\",\n"
		   " \"params\": {\"threads\": 8, \"bogus\": 1}}",
		   ": bogus: unknown parameter of pipeline (see benchtop list pipeline)");
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"pipeline\", \"params\": {\"lock\": {}}}",
		   ": lock: must be a string, number, bool or array, not an object");
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"pipeline\", \"params\": {\"lock\": null}}",
		   ": lock: must be a string, number, bool or array, not null");
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"pipeline\", \"params\": {\"threads\": [1, [2]]}}",
		   ": threads: values of a sweep must be strings, numbers or bools, not an array");
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"pipeline\", \"params\": {\"threads\": []}}",
		   ": threads: an empty array has no value");
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"pipeline\", \"params\": {\"threads\": 0}}",
		   ": threads=0: must be 1..1024");
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"pipeline\", \"params\": {\"reps\": [1, 2]}}",
		   ": reps=1,2: reps takes one value");
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"pipeline\", \"params\": {\"duration\": 5}}",
		   ": duration=5: needs a unit (ns, us, ms, s, m, h)");
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"pipeline\", \"params\": {\"threads\": \"1,2\"}}",
		   ": threads=1,2: must be an integer (1..1024)");
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"pipeline\", \"params\": {},\n"
		   " \"axes\": \"threads\"}",
		   ": \"axes\" must be an array of parameter names");
	load_fails("{\"benchtop_plan\": 1, \"workload\": \"pipeline\",\n"
		   " \"params\": {\"threads\": 1, \"threads\": 2}}",
		   ":2:35: duplicate object key near '\"threads\"'");
}

static void test_load_cannot_open(void **state)
{
	char wlname[64];
	struct bt_plan pl;
	struct bt_err err;

	init(&pl);
	assert_int_equal(bt_plan_load(&pl, "/nonexistent-dir/p.json", &err), -ENOENT);
	assert_string_equal(err.msg, "/nonexistent-dir/p.json: cannot open: No such file or directory");
	assert_int_equal(bt_plan_file_workload("/nonexistent-dir/p.json", wlname, sizeof(wlname),
					       &err), -ENOENT);
	assert_string_equal(err.msg, "/nonexistent-dir/p.json: cannot open: No such file or directory");
	assert_int_equal(bt_plan_load(&pl, "/tmp", &err), -EISDIR);
	assert_string_equal(err.msg, "/tmp: a directory, not a regular file");
	bt_plan_destroy(&pl);
}

static void test_apply_value_forms(void **state)
{
	static const char doc[] =
		"{\"benchtop_plan\": 1, \"workload\": \"pipeline\", \"extra\": {\"ignored\": 1},\n"
		" \"params\": {\"verify\": \"yes\", \"block\": 4096, \"duration\": 0,\n"
		"  \"threads\": [1, 2.0, \"8\"], \"name\": \"a,b\", \"notify\": [\"broadcast\"],\n"
		"  \"algo\": [\"md5\", \"sha1+sha256\"], \"lock\": \"SPIN\"}}";
	struct bt_plan pl, back;
	struct bt_err err = { "" };
	char *s;

	init(&pl);
	set(&pl, "verify", "off");
	if (bt_plan_apply_json(&pl, doc, NULL, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(pl.vals[I_VERIFY][0].i, 1);
	assert_int_equal(pl.vals[I_BLOCK][0].i, 4096);
	assert_string_equal(pl.vals[I_BLOCK][0].text, "4K");
	assert_int_equal(pl.vals[I_DURATION][0].i, 0);
	assert_int_equal(pl.nvals[I_THREADS], 3);
	assert_int_equal(pl.vals[I_THREADS][1].i, 2);
	assert_int_equal(pl.vals[I_THREADS][2].i, 8);
	assert_int_equal(pl.nvals[I_NAME], 1);	/* a string is one value */
	assert_string_equal(pl.vals[I_NAME][0].text, "a,b");
	assert_int_equal(pl.nvals[I_NOTIFY], 1);	/* a one-element array is no axis */
	assert_string_equal(pl.vals[I_NOTIFY][0].text, "broadcast");
	assert_string_equal(pl.vals[I_ALGO][1].text, "sha1+sha256");
	assert_string_equal(pl.vals[I_LOCK][0].text, "spin");
	axes_are(&pl, "threads algo");
	assert_int_equal(pl.ncells, 6);

	/* Without an origin, messages say "plan". */
	assert_int_equal(bt_plan_apply_json(&pl, "{", NULL, &err), -EINVAL);
	assert_string_equal(err.msg, "plan:1:1: string or '}' expected near end of file");
	assert_int_equal(bt_plan_apply_json(&pl,
					    "{\"benchtop_plan\": 1, \"workload\": \"pipeline\","
					    " \"params\": {\"block\": 1.5}}", "x.json", &err), -EINVAL);
	assert_string_equal(err.msg, "x.json: block=1.5: must be a whole number of bytes (16..16M)");

	/* A single value with a comma survives a round trip as one value. */
	s = bt_plan_to_json(&pl);
	assert_non_null(s);
	init(&back);
	assert_int_equal(bt_plan_apply_json(&back, s, "mem", &err), 0);
	same_plan(&pl, &back);
	assert_int_equal(back.nvals[I_NAME], 1);
	assert_string_equal(back.vals[I_NAME][0].text, "a,b");
	free(s);
	bt_plan_destroy(&back);
	bt_plan_destroy(&pl);
}

static void test_axes_key(void **state)
{
	static const char doc[] =
		"{\"benchtop_plan\": 1, \"workload\": \"pipeline\",\n"
		" \"axes\": [\"lock\", \"bogus\", \"block\", \"notify\", \"threads\", \"lock\"],\n"
		" \"params\": {\"notify\": [\"signal\", \"broadcast\"], \"block\": [\"1K\", \"2K\"],\n"
		"  \"threads\": [1, 2], \"lock\": [\"mutex\", \"spin\"]}}";
	struct bt_plan pl;
	struct bt_err err = { "" };

	init(&pl);
	if (bt_plan_apply_json(&pl, doc, "d", &err) != 0)
		fail_msg("%s", err.msg);
	/* Listed order, unknown/duplicate names ignored. */
	axes_are(&pl, "lock block notify threads");
	label_is(&pl, 1, "lock=mutex block=1K notify=signal threads=2");
	bt_plan_destroy(&pl);
}

/* rows=NAME: that axis goes first, whatever the order given or loaded. */
static void test_rows(void **state)
{
	static const char doc[] =
		"{\"benchtop_plan\": 1, \"workload\": \"pipeline\",\n"
		" \"axes\": [\"lock\", \"block\"],\n"
		" \"params\": {\"block\": [\"1K\", \"2K\"], \"lock\": [\"mutex\", \"spin\"],\n"
		"  \"rows\": \"block\"}}";
	struct bt_plan pl, back;
	struct bt_err err = { "" };
	char *s;

	init(&pl);
	set(&pl, "threads", "1,2");
	set(&pl, "block", "16,64,256");
	axes_are(&pl, "threads block");
	assert_int_equal(bt_plan_check(&pl, &err), 0);
	/* Set before its axis is swept: it applies as soon as it is. */
	set(&pl, "rows", "lock");
	axes_are(&pl, "threads block");
	assert_int_equal(bt_plan_check(&pl, &err), -EINVAL);
	assert_string_equal(err.msg, "rows=lock: lock is not swept (swept: threads, block)");
	set(&pl, "lock", "mutex,spin");
	axes_are(&pl, "lock threads block");
	assert_int_equal(bt_plan_check(&pl, &err), 0);
	label_is(&pl, 1, "lock=mutex threads=1 block=64");
	set(&pl, "rows", "block");
	axes_are(&pl, "block threads lock");
	/* Cleared: back to the order given. */
	set(&pl, "rows", "");
	axes_are(&pl, "threads block lock");
	set_fails(&pl, "rows", "bogus", "rows=bogus: pipeline has no parameter bogus (see benchtop list pipeline)");
	set_fails(&pl, "rows", "lock,block", "rows=lock,block: rows takes one value");
	set(&pl, "threads", "4");
	set(&pl, "lock", "mutex");
	set(&pl, "block", "1K");
	set(&pl, "rows", "block");
	assert_int_equal(bt_plan_check(&pl, &err), -EINVAL);
	assert_string_equal(err.msg, "rows=block: block is not swept (nothing is swept)");

	/* A plan file's rows wins over its "axes" list, and survives a round trip. */
	set(&pl, "rows", "");
	if (bt_plan_apply_json(&pl, doc, "d", &err) != 0)
		fail_msg("%s", err.msg);
	axes_are(&pl, "block lock");
	s = bt_plan_to_json(&pl);
	assert_non_null(s);
	init(&back);
	if (bt_plan_apply_json(&back, s, "s", &err) != 0)
		fail_msg("%s", err.msg);
	same_plan(&pl, &back);
	free(s);
	bt_plan_destroy(&back);
	bt_plan_destroy(&pl);
}

/* Parameters are found by their schema flags, never by name. */
static void test_find_flag(void **state)
{
	struct bt_plan pl;

	init(&pl);
	assert_int_equal(bt_plan_find_flag(&pl, BT_PF_WORKERS), I_THREADS);
	assert_int_equal(bt_plan_find_flag(&pl, BT_PF_ROWS), I_ROWS);
	assert_int_equal(bt_plan_find_flag(&pl, BT_PF_NOSWEEP), I_REPS);
	assert_int_equal(bt_plan_find_flag(&pl, 0x80000000u), -1);
	bt_plan_destroy(&pl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_defaults),
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_set_single),
		cmocka_unit_test(test_set_errors),
		cmocka_unit_test(test_set_arg),
		cmocka_unit_test(test_axes_order),
		cmocka_unit_test(test_cells),
		cmocka_unit_test(test_label_truncates),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_to_json),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_load_cannot_open),
		cmocka_unit_test(test_apply_value_forms),
		cmocka_unit_test(test_axes_key),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_find_flag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
