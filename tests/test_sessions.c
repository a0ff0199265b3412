/*
 * test_sessions.c - core/sessions.c: the cheap session summaries on good
 * and bad files, the directory listing, the per-rep CSV and .hgrm exports.
 * Recordings are written through core/recording.h with chosen values.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/hist.h"
#include "core/recording.h"
#include "core/results.h"
#include "report/sessions.h"

static char tmpdir[64];

static void path_of(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

/*
 * A recording of workload wl with cells threads=1..ncells, 2 reps each plus
 * one warmup, ops_s = 1000 * (cell + 1) + rep; the first `done` cells get
 * their reps, the rest none. status NULL: no end line.
 */
static void write_rec(const char *path, const char *wl, int ncells, int done, uint64_t start,
		      const char *status)
{
	struct bt_results res;
	struct bt_recw w;
	struct bt_err err = { "" };

	assert_int_equal(bt_results_init(&res, ncells), 0);
	snprintf(res.workload, sizeof(res.workload), "%s", wl);
	snprintf(res.unit, sizeof(res.unit), "ops");
	snprintf(res.machine.host, sizeof(res.machine.host), "box1");
	res.start_unix_ns = start;
	res.plan_json = strdup("{\"benchtop_plan\":1,\"workload\":\"null\",\"params\":{}}");
	res.naxes = 2;
	snprintf(res.axes[0], sizeof(res.axes[0]), "threads");
	snprintf(res.axes[1], sizeof(res.axes[1]), "lock");
	for (int c = 0; c < ncells; c++) {
		snprintf(res.cells[c].values[0], sizeof(res.cells[c].values[0]), "%d", c + 1);
		snprintf(res.cells[c].values[1], sizeof(res.cells[c].values[1]), "mutex");
		snprintf(res.cells[c].label, sizeof(res.cells[c].label), "threads=%d lock=mutex", c + 1);
		res.cells[c].total_reps = 2;
	}
	unlink(path);	/* the writer never overwrites */
	assert_int_equal(bt_recw_open(&w, path, &err), 0);
	assert_int_equal(bt_recw_header(&w, &res), 0);
	for (int c = 0; c < done; c++) {
		for (int i = 0; i < 3; i++) {
			struct bt_rep r;

			memset(&r, 0, sizeof(r));
			r.cell = c;
			r.rep = i;
			r.warmup = i == 0;
			r.ok = 1;
			r.verify = "ok";
			r.ops = 1000;
			r.ops_s = 1000.0 * (c + 1) + i;
			r.wall_s = 0.1 + 0.01 * i;
			r.user_s = 1.0 / 3.0;
			r.lat_every = 1;
			r.hist = bt_hist_new();
			assert_non_null(r.hist);
			for (int k = 0; k < 10; k++)
				bt_hist_record(r.hist, 100u * (uint64_t)(k + 1));
			assert_int_equal(bt_recw_rep(&w, &r), 0);
			assert_int_equal(bt_results_add_rep(&res, &r), 0);
		}
		assert_int_equal(bt_results_summarize_cell(&res, c), 0);
		assert_int_equal(bt_recw_cell(&w, &res.cells[c]), 0);
	}
	if (status != NULL)
		assert_int_equal(bt_recw_end(&w, status, strcmp(status, "failed") ? "" : "rep 1 lost 3 items"), 0);
	bt_recw_close(&w);
	bt_results_destroy(&res);
}

static void write_bytes(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
}

static void cut_file(const char *from, const char *to, long drop)
{
	FILE *f = fopen(from, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	write_bytes(to, buf, (size_t)(n - drop));
	free(buf);
}

static void test_probe_complete(void **state)
{
	struct bt_session_info s;
	char p[128];

	(void)state;
	path_of(p, sizeof(p), "complete.jsonl");
	write_rec(p, "locks", 3, 3, 1700000000123456789ull, "complete");
	assert_int_equal(bt_sessions_probe(p, &s), 0);
	assert_int_equal(s.readable, 1);
	assert_string_equal(s.name, "complete.jsonl");
	assert_string_equal(s.workload, "locks");
	assert_string_equal(s.host, "box1");
	assert_string_equal(s.axes, "threads=1,2,3 lock=mutex");
	assert_string_equal(s.status, "complete");
	assert_string_equal(s.error, "");
	assert_int_equal(s.ncells, 3);
	assert_int_equal(s.cells_done, 3);
	assert_int_equal(s.cells_failed, 0);
	assert_int_equal(s.torn, 0);
	assert_true(s.start_unix_ns == 1700000000123456789ull);
	assert_true(s.size > 0);
}

static void test_probe_interrupted(void **state)
{
	struct bt_session_info s;
	char p[128], q[128];

	(void)state;
	/* No end line: killed after two of four cells. */
	path_of(p, sizeof(p), "noend.jsonl");
	write_rec(p, "null", 4, 2, 1700000001000000000ull, NULL);
	assert_int_equal(bt_sessions_probe(p, &s), 0);
	assert_string_equal(s.status, "interrupted");
	assert_int_equal(s.cells_done, 2);
	assert_int_equal(s.ncells, 4);
	assert_int_equal(s.torn, 0);
	assert_non_null(strstr(s.error, "without an end line"));

	/* Cut 20 bytes into the last cell line: that cell's reps are all there. */
	path_of(q, sizeof(q), "torn.jsonl");
	cut_file(p, q, 20);
	assert_int_equal(bt_sessions_probe(q, &s), 0);
	assert_string_equal(s.status, "interrupted");
	assert_int_equal(s.torn, 1);
	assert_int_equal(s.cells_done, 2);

	/* An explicit interrupted end line. */
	write_rec(p, "null", 4, 1, 1700000001000000000ull, "interrupted");
	assert_int_equal(bt_sessions_probe(p, &s), 0);
	assert_string_equal(s.status, "interrupted");
	assert_int_equal(s.cells_done, 1);
	assert_int_equal(s.torn, 0);

	write_rec(p, "null", 2, 2, 1700000001000000000ull, "failed");
	assert_int_equal(bt_sessions_probe(p, &s), 0);
	assert_string_equal(s.status, "failed");
	assert_string_equal(s.error, "rep 1 lost 3 items");
}

/* Every kind of bad file is listed with one reason, never an error for the list. */
static void test_probe_bad_files(void **state)
{
	static const struct {
		const char *name, *content;
		size_t len;
		const char *why;
	} cases[] = {
		{ "empty.jsonl", "", 0, "empty file, not a benchtop recording" },
		{ "binary.jsonl", "\x7f" "ELF\x02\x01\x01\0\0\0\0\x00\x03\x00>\x00", 16,
		  "binary file, not a benchtop recording" },
		{ "text.jsonl", "hello world\n", 12,
		  "line 1: not a benchtop recording (invalid JSON: '[' or '{' expected near 'hello')" },
		{ "other.jsonl", "{\"a\":1}\n", 8, "line 1: not a benchtop recording (no header)" },
		{ "future.jsonl", "{\"type\":\"header\",\"benchtop_recording\":3}\n", 41,
		  "line 1: recording version 3 is newer than this benchtop (1)" },
		{ "cuthead.jsonl", "{\"type\":\"header\",\"benchtop_rec", 30,
		  "line 1: header cut short, nothing recorded" },
		{ "damaged.jsonl",
		  "{\"type\":\"header\",\"benchtop_recording\":1}\n{\"type\":\"sample\"}\ngarbage\n{\"type\":\"end\"}\n",
		  82, "line 3: not a JSON object (the file is damaged)" },
	};
	struct bt_session_info s;
	char p[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		path_of(p, sizeof(p), cases[i].name);
		write_bytes(p, cases[i].content, cases[i].len);
		assert_int_equal(bt_sessions_probe(p, &s), -EINVAL);
		assert_int_equal(s.readable, 0);
		assert_string_equal(s.status, "unreadable");
		assert_string_equal(s.error, cases[i].why);
		assert_string_equal(s.name, cases[i].name);
	}
	path_of(p, sizeof(p), "missing.jsonl");
	assert_int_equal(bt_sessions_probe(p, &s), -ENOENT);
	assert_string_equal(s.error, "No such file or directory");
}

/* Above BT_SESSIONS_SCAN_MAX only the last line is read: status yes, cells done unknown. */
static void test_probe_big_file(void **state)
{
	static const char end[] = "\n{\"type\":\"end\",\"status\":\"complete\",\"error\":\"\"}\n";
	struct bt_session_info s;
	char p[128];
	int fd;

	(void)state;
	path_of(p, sizeof(p), "big.jsonl");
	write_rec(p, "null", 2, 2, 1700000002000000000ull, NULL);
	/* A hole up to past the limit (sparse: costs no disk), then the end line. */
	fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, BT_SESSIONS_SCAN_MAX + 4096), 0);
	assert_int_equal(lseek(fd, 0, SEEK_END), BT_SESSIONS_SCAN_MAX + 4096);
	assert_int_equal(write(fd, end, sizeof(end) - 1), (ssize_t)(sizeof(end) - 1));
	close(fd);
	assert_int_equal(bt_sessions_probe(p, &s), 0);
	assert_string_equal(s.status, "complete");
	assert_int_equal(s.cells_done, -1);
	assert_int_equal(s.ncells, 2);
	unlink(p);
}

static void test_list(void **state)
{
	struct bt_session_info *list;
	struct bt_err err = { "" };
	char dir[128], p[192];
	int n;

	(void)state;
	path_of(dir, sizeof(dir), "sessions");
	snprintf(p, sizeof(p), "%s/old.jsonl", dir);
	write_rec(p, "null", 1, 1, 1000, "complete");
	snprintf(p, sizeof(p), "%s/new.jsonl", dir);
	write_rec(p, "pipeline", 2, 2, 3000, "complete");
	snprintf(p, sizeof(p), "%s/mid.jsonl", dir);
	write_rec(p, "null", 2, 1, 2000, NULL);
	snprintf(p, sizeof(p), "%s/bad.jsonl", dir);
	write_bytes(p, "", 0);
	snprintf(p, sizeof(p), "%s/notes.txt", dir);	/* not a recording name: ignored */
	write_bytes(p, "x", 1);
	snprintf(p, sizeof(p), "%s/.hidden.jsonl", dir);
	write_bytes(p, "x", 1);
	snprintf(p, sizeof(p), "%s/sub.jsonl", dir);	/* a directory: ignored */
	assert_int_equal(mkdir(p, 0755), 0);
	/* The bad file is dated by its mtime: put it between old and mid. */
	{
		struct timespec ts[2] = { { 0, 1500 }, { 0, 1500 } };

		snprintf(p, sizeof(p), "%s/bad.jsonl", dir);
		assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	}

	assert_int_equal(bt_sessions_list(dir, NULL, &list, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_string_equal(list[0].name, "new.jsonl");
	assert_string_equal(list[1].name, "mid.jsonl");
	assert_string_equal(list[2].name, "bad.jsonl");
	assert_string_equal(list[3].name, "old.jsonl");
	assert_int_equal(list[2].readable, 0);
	assert_string_equal(list[1].status, "interrupted");
	assert_int_equal(list[1].cells_done, 1);
	free(list);

	assert_int_equal(bt_sessions_list(dir, "null", &list, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[0].name, "mid.jsonl");
	assert_string_equal(list[1].name, "old.jsonl");
	free(list);

	path_of(dir, sizeof(dir), "nonexistent");
	assert_int_equal(bt_sessions_list(dir, NULL, &list, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(list);
}

/* Read an export into memory. */
static char *csv_of(const struct bt_results *res)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(bt_sessions_export_csv(m, res), 0);
	fclose(m);
	return buf;
}

static void test_export_csv(void **state)
{
	struct bt_results res;
	struct bt_err err = { "" };
	char p[128], *csv;
	int lines = 0;

	(void)state;
	path_of(p, sizeof(p), "csv.jsonl");
	write_rec(p, "null", 2, 2, 5000, "complete");
	assert_int_equal(bt_rec_read(p, &res, &err), 0);
	csv = csv_of(&res);
	for (const char *c = csv; *c; c++)
		lines += *c == '\n';
	assert_int_equal(lines, 1 + 6);	/* header, 2 cells x (1 warmup + 2 reps) */
	assert_true(strncmp(csv, "cell,threads,lock,rep,warmup,ok,verify,ops,bytes,errors,wall_s,user_s,"
			    "sys_s,vcsw,ivcsw,ops_s,bytes_s,lat_every,p50_ns,p90_ns,p99_ns,p999_ns,"
			    "max_ns,mean_ns,lat_count\n", 155) == 0);
	/*
	 * Exact numbers in their shortest form: 0.1 and 1/3 read back to
	 * the same doubles; the hist is 100..1000 ns.
	 */
	assert_non_null(strstr(csv, "\n0,1,mutex,0,1,1,ok,1000,0,0,0.1,"
				    "0.3333333333333333,0,0,0,1000,0,1,500,900,1000,1000,1000,550,10\n"));
	assert_non_null(strstr(csv, "\n1,2,mutex,2,0,1,ok,1000,0,0,0.12000000000000001,0.3333333333333333,0,0,0,2002,0,1,"));
	free(csv);
	bt_results_destroy(&res);
}

static int nfiles;

static void count_file(const char *path, void *arg)
{
	(void)arg;
	(void)path;
	nfiles++;
}

static void test_export_hgrm(void **state)
{
	struct bt_results res;
	struct bt_err err = { "" };
	char p[128], out[160], name[160], file[256], line[128];
	FILE *f;

	(void)state;
	path_of(p, sizeof(p), "hg.jsonl");
	write_rec(p, "null", 3, 2, 6000, NULL);	/* the third cell never ran: no file */
	assert_int_equal(bt_rec_read(p, &res, &err), 0);
	bt_sessions_hgrm_name(&res, 1, name, sizeof(name));
	assert_string_equal(name, "cell-1-threads_2_lock_mutex.hgrm");

	snprintf(out, sizeof(out), "%s/hgrm/deeper", tmpdir);
	nfiles = 0;
	assert_int_equal(bt_sessions_export_hgrm(&res, out, count_file, NULL, &err), 2);
	assert_int_equal(nfiles, 2);
	snprintf(file, sizeof(file), "%s/cell-0-threads_1_lock_mutex.hgrm", out);
	f = fopen(file, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "       Value     Percentile TotalCount 1/(1-Percentile)\n");
	fclose(f);
	snprintf(file, sizeof(file), "%s/cell-2-threads_3_lock_mutex.hgrm", out);
	assert_int_equal(access(file, F_OK), -1);

	/* A file where the directory should be. */
	snprintf(out, sizeof(out), "%s/hg.jsonl", tmpdir);
	assert_true(bt_sessions_export_hgrm(&res, out, NULL, NULL, &err) < 0);
	assert_non_null(strstr(err.msg, "hg.jsonl"));
	bt_results_destroy(&res);

	/* An empty label names the file "all". */
	memset(&res, 0, sizeof(res));
	assert_int_equal(bt_results_init(&res, 1), 0);
	bt_sessions_hgrm_name(&res, 0, name, sizeof(name));
	assert_string_equal(name, "cell-0-all.hgrm");
	bt_results_destroy(&res);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/bt-test-sessions.XXXXXX");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_complete),
		cmocka_unit_test(test_probe_interrupted),
		cmocka_unit_test(test_probe_bad_files),
		cmocka_unit_test(test_probe_big_file),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_export_csv),
		cmocka_unit_test(test_export_hgrm),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
