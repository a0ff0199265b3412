/*
 * test_recording.c - session recordings: write, read back, and every way a
 * file can be damaged or foreign.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/recording.h"

#define NCELLS 4
#define COUNTED 2	/* counted reps per cell */
#define WARMUP 1

static char tmpdir[256];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/bt_test_recording.XXXXXX");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void tmp_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

static void write_text(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* The whole file as a malloc'd string (NUL-terminated), its length in *len. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void fill_machine(struct bt_sysinfo *si)
{
	memset(si, 0, sizeof(*si));
	snprintf(si->host, sizeof(si->host), "testhost");
	snprintf(si->cpu_model, sizeof(si->cpu_model), "Test CPU \"Q\" @ 3.00GHz");
	snprintf(si->arch, sizeof(si->arch), "x86_64");
	si->logical_cpus = 16;
	si->allowed_cpus = 12;
	si->physical_cores = 8;
	si->packages = 1;
	si->numa_nodes = 2;
	si->smt = 2;
	snprintf(si->governor, sizeof(si->governor), "performance");
	snprintf(si->kernel, sizeof(si->kernel), "Linux 6.1.0 #1 SMP");
	si->mem_total = 64ull << 30;
	snprintf(si->cpu_flags, sizeof(si->cpu_flags), "aes avx2");
	snprintf(si->compiler, sizeof(si->compiler), "gcc 12.2.0");
	snprintf(si->libc, sizeof(si->libc), "glibc 2.36");
	snprintf(si->openssl, sizeof(si->openssl), "OpenSSL 3.0.11 19 Sep 2023");
	snprintf(si->libmemcached, sizeof(si->libmemcached), "1.1.4");
	snprintf(si->hiredis, sizeof(si->hiredis), "0.14.1");
	snprintf(si->ncurses, sizeof(si->ncurses), "6.4");
	snprintf(si->jansson, sizeof(si->jansson), "2.14");
	snprintf(si->hwloc, sizeof(si->hwloc), "2.9.0");
	snprintf(si->benchtop, sizeof(si->benchtop), "0.1.0");
	snprintf(si->virt, sizeof(si->virt), "kvm");
	snprintf(si->container, sizeof(si->container), "none");
	si->steal_pct = 0.375;
	snprintf(si->boost, sizeof(si->boost), "n/a");
	snprintf(si->thp, sizeof(si->thp), "madvise");
	snprintf(si->aslr, sizeof(si->aslr), "2");
	snprintf(si->perf_paranoid, sizeof(si->perf_paranoid), "2");
	snprintf(si->isolated, sizeof(si->isolated), "none");
	snprintf(si->nohz_full, sizeof(si->nohz_full), "none");
	snprintf(si->clocksource, sizeof(si->clocksource), "tsc");
}

/*
 * A results set with 2 axes and 4 cells, each with one warmup and two
 * counted reps; cell 3's last rep failed and has no histogram.
 */
static void make_results(struct bt_results *res)
{
	static const char *threads[] = { "1", "2" };
	static const char *locks[] = { "mutex", "spin" };

	assert_int_equal(bt_results_init(res, NCELLS), 0);
	snprintf(res->version, sizeof(res->version), "0.1.0");
	res->start_unix_ns = 1796000523123456789ull;
	snprintf(res->workload, sizeof(res->workload), "pipeline");
	snprintf(res->unit, sizeof(res->unit), "items");
	snprintf(res->lat_what, sizeof(res->lat_what), "end-to-end per message");
	res->timer_cost_ns = 18.5;
	res->plan_json = strdup("{\"benchtop_plan\": 1, \"workload\": \"pipeline\", "
				"\"params\": {\"threads\": [1, 2], \"lock\": [\"mutex\", \"spin\"]}}");
	assert_non_null(res->plan_json);
	fill_machine(&res->machine);
	res->naxes = 2;
	snprintf(res->axes[0], sizeof(res->axes[0]), "threads");
	snprintf(res->axes[1], sizeof(res->axes[1]), "lock");
	for (int c = 0; c < NCELLS; c++) {
		struct bt_cell *cell = &res->cells[c];

		snprintf(cell->values[0], sizeof(cell->values[0]), "%s", threads[c / 2]);
		snprintf(cell->values[1], sizeof(cell->values[1]), "%s", locks[c % 2]);
		snprintf(cell->label, sizeof(cell->label), "threads=%s lock=%s", threads[c / 2],
			 locks[c % 2]);
		cell->total_reps = COUNTED;
	}
	snprintf(res->status, sizeof(res->status), "running");

	for (int c = 0; c < NCELLS; c++) {
		for (int k = 0; k < WARMUP + COUNTED; k++) {
			struct bt_rep r;

			memset(&r, 0, sizeof(r));
			r.cell = c;
			r.rep = k;
			r.warmup = k < WARMUP;
			r.ok = !(c == 3 && k == WARMUP + COUNTED - 1);
			r.verify = r.ok ? "ok" : "lost 3 items";
			r.ops = 1000000ull * (uint64_t)(c + 1) + (uint64_t)k;
			r.bytes = r.ops * 64;
			r.errors = r.ok ? 0 : 3;
			r.wall_s = 1.25 + 0.1 * k + c;
			r.user_s = 0.75 + 0.01 * k;
			r.sys_s = 0.125 * (k + 1);
			r.vcsw = 100 + k;
			r.ivcsw = 7 * c;
			r.ops_s = (double)r.ops / r.wall_s;
			r.bytes_s = (double)r.bytes / r.wall_s;
			r.lat_every = r.ok ? 4 : 0;
			if (r.ok) {
				r.hist = bt_hist_new();
				assert_non_null(r.hist);
				for (uint64_t v = 1; v <= 1000; v++)
					bt_hist_record(r.hist, v * (uint64_t)(c + 1) + (uint64_t)k);
				bt_hist_record(r.hist, 5000000 + (uint64_t)c);
			}
			r.nworkers = c + 1;
			r.workers = calloc((size_t)r.nworkers, sizeof(*r.workers));
			assert_non_null(r.workers);
			for (int w = 0; w < r.nworkers; w++) {
				r.workers[w].ops = r.ops / (uint64_t)r.nworkers + (uint64_t)w;
				r.workers[w].cpu_first = w;
				r.workers[w].cpu_last = w + 1;
				r.workers[w].pinned = (c % 2) ? w : -1;
			}
			assert_int_equal(bt_results_add_rep(res, &r), 0);
		}
		assert_int_equal(bt_results_summarize_cell(res, c), 0);
	}
	for (int i = 0; i < 3; i++) {
		struct bt_sample s = {
			.cell = i, .rep = 1, .t = 0.1 * (i + 1), .dt = 0.1,
			.ops_s = 12345.678 + i, .bytes_s = 1.5e9, .ops = 1000u * (uint64_t)i,
			.lat_count = 250, .p50 = 100, .p90 = 200, .p99 = 300 + (uint64_t)i,
			.p999 = 4000, .max = 9000000, .cpu_pct = 195.5, .user_pct = 150.25,
			.sys_pct = 45.25,
		};

		assert_int_equal(bt_results_add_sample(res, &s), 0);
	}
}

/*
 * Write res as the recorder would during a run: header, then per cell its
 * samples, reps and the cell line, then the end line (when end is set).
 */
static void write_recording(const struct bt_results *res, const char *path, int end)
{
	struct bt_recw w;
	struct bt_err err = { "" };

	unlink(path);	/* the writer never overwrites */
	assert_int_equal(bt_recw_open(&w, path, &err), 0);
	assert_int_equal(bt_recw_header(&w, res), 0);
	for (int c = 0; c < res->ncells; c++) {
		for (int i = 0; i < res->nsamples; i++)
			if (res->samples[i].cell == c)
				assert_int_equal(bt_recw_sample(&w, &res->samples[i]), 0);
		for (int i = 0; i < res->nreps; i++)
			if (res->reps[i].cell == c)
				assert_int_equal(bt_recw_rep(&w, &res->reps[i]), 0);
		assert_int_equal(bt_recw_cell(&w, &res->cells[c]), 0);
	}
	if (end)
		assert_int_equal(bt_recw_end(&w, "complete", ""), 0);
	bt_recw_close(&w);
}

static void assert_hist_equal(const struct bt_hist *a, const struct bt_hist *b)
{
	static const double pct[] = { 0, 1, 50, 90, 99, 99.9, 99.99, 100 };

	if (a == NULL || b == NULL) {
		assert_null(a);
		assert_null(b);
		return;
	}
	assert_int_equal(a->total, b->total);
	assert_int_equal(a->min, b->min);
	assert_int_equal(a->max, b->max);
	assert_true(a->sum == b->sum);
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		assert_int_equal(bt_hist_percentile(a, pct[i]), bt_hist_percentile(b, pct[i]));
	assert_memory_equal(a->counts, b->counts, sizeof(a->counts));
}

static void assert_summary_equal(const struct bt_summary *a, const struct bt_summary *b)
{
	assert_int_equal(a->n, b->n);
	assert_true(a->min == b->min);
	assert_true(a->median == b->median);
	assert_true(a->max == b->max);
	assert_true(a->mean == b->mean);
	assert_true(a->stddev == b->stddev);
	assert_true(a->ci95 == b->ci95);
}

static void assert_rep_equal(const struct bt_rep *a, const struct bt_rep *b)
{
	assert_int_equal(a->cell, b->cell);
	assert_int_equal(a->rep, b->rep);
	assert_int_equal(a->warmup, b->warmup);
	assert_int_equal(a->ok, b->ok);
	assert_string_equal(a->verify, b->verify);
	assert_int_equal(a->ops, b->ops);
	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->errors, b->errors);
	assert_true(a->wall_s == b->wall_s);
	assert_true(a->user_s == b->user_s);
	assert_true(a->sys_s == b->sys_s);
	assert_true(a->vcsw == b->vcsw);
	assert_true(a->ivcsw == b->ivcsw);
	assert_true(a->ops_s == b->ops_s);
	assert_true(a->bytes_s == b->bytes_s);
	assert_int_equal(a->lat_every, b->lat_every);
	assert_hist_equal(a->hist, b->hist);
	assert_int_equal(a->lat.count, b->lat.count);
	assert_int_equal(a->lat.min, b->lat.min);
	assert_int_equal(a->lat.max, b->lat.max);
	assert_int_equal(a->lat.p99, b->lat.p99);
	assert_int_equal(a->lat.n, b->lat.n);
	if (a->lat.n > 0) {
		assert_memory_equal(a->lat.idx, b->lat.idx, a->lat.n * sizeof(*a->lat.idx));
		assert_memory_equal(a->lat.cnt, b->lat.cnt, a->lat.n * sizeof(*a->lat.cnt));
	}
	assert_int_equal(a->nworkers, b->nworkers);
	for (int w = 0; w < a->nworkers; w++) {
		assert_int_equal(a->workers[w].ops, b->workers[w].ops);
		assert_int_equal(a->workers[w].cpu_first, b->workers[w].cpu_first);
		assert_int_equal(a->workers[w].cpu_last, b->workers[w].cpu_last);
		assert_int_equal(a->workers[w].pinned, b->workers[w].pinned);
	}
}

static void test_round_trip(void **state)
{
	struct bt_results res, back;
	struct bt_err err = { "" };
	char path[512];
	json_t *pa, *pb;
	int fd;

	(void)state;
	make_results(&res);
	tmp_path(path, sizeof(path), "rt.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	write_recording(&res, path, 1);

	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_string_equal(back.status, "complete");
	assert_string_equal(back.error, "");
	assert_int_equal(back.torn, 0);
	assert_string_equal(back.version, "0.1.0");
	assert_int_equal(back.start_unix_ns, res.start_unix_ns);
	assert_string_equal(back.workload, "pipeline");
	assert_string_equal(back.unit, "items");
	assert_string_equal(back.lat_what, "end-to-end per message");
	assert_true(back.timer_cost_ns == 18.5);

	assert_non_null(back.plan_json);
	pa = json_loads(res.plan_json, 0, NULL);
	pb = json_loads(back.plan_json, 0, NULL);
	assert_non_null(pa);
	assert_non_null(pb);
	assert_true(json_equal(pa, pb));
	json_decref(pa);
	json_decref(pb);

	/* Every machine field, including those bt_sysinfo_diff ignores. */
	assert_memory_equal(&back.machine, &res.machine, sizeof(res.machine));
	assert_string_equal(back.machine.cpu_model, "Test CPU \"Q\" @ 3.00GHz");
	assert_int_equal(back.machine.mem_total, 64ull << 30);

	assert_int_equal(back.naxes, 2);
	assert_string_equal(back.axes[0], "threads");
	assert_string_equal(back.axes[1], "lock");
	assert_int_equal(back.ncells, NCELLS);
	for (int c = 0; c < NCELLS; c++) {
		const struct bt_cell *a = &res.cells[c], *b = &back.cells[c];

		assert_int_equal(b->index, c);
		assert_string_equal(a->label, b->label);
		assert_string_equal(a->values[0], b->values[0]);
		assert_string_equal(a->values[1], b->values[1]);
		assert_int_equal(b->total_reps, COUNTED);
		assert_int_equal(a->nreps, b->nreps);
		assert_int_equal(a->done, b->done);
		assert_int_equal(a->failed, b->failed);
		assert_int_equal(a->lat_every, b->lat_every);
		assert_summary_equal(&a->ops_s, &b->ops_s);
		assert_summary_equal(&a->bytes_s, &b->bytes_s);
		assert_summary_equal(&a->wall_s, &b->wall_s);
		assert_summary_equal(&a->user_s, &b->user_s);
		assert_summary_equal(&a->sys_s, &b->sys_s);
		assert_summary_equal(&a->vcsw, &b->vcsw);
		assert_summary_equal(&a->ivcsw, &b->ivcsw);
		assert_hist_equal(a->hist, b->hist);
	}
	assert_int_equal(back.cells[0].nreps, COUNTED);
	assert_int_equal(back.cells[3].nreps, COUNTED - 1);
	assert_int_equal(back.cells[3].failed, 1);
	assert_int_equal(bt_results_cells_done(&back), 3);

	assert_int_equal(back.nreps, NCELLS * (WARMUP + COUNTED));
	for (int i = 0; i < back.nreps; i++)
		assert_rep_equal(&res.reps[i], &back.reps[i]);
	assert_null(back.reps[back.nreps - 1].hist);
	assert_int_equal(back.reps[back.nreps - 1].lat.count, 0);
	assert_string_equal(back.reps[back.nreps - 1].verify, "lost 3 items");
	assert_null(back.reps[0].hist);		/* kept sparse: */
	assert_int_equal(back.reps[0].lat.max, 5000000);

	assert_int_equal(back.nsamples, 3);
	for (int i = 0; i < 3; i++)
		assert_memory_equal(&res.samples[i], &back.samples[i], sizeof(struct bt_sample));

	bt_results_destroy(&back);
	bt_results_destroy(&res);
	unlink(path);
}

/* One record per line, each line a compact JSON object with a "type". */
static void test_line_format(void **state)
{
	struct bt_results res;
	char path[512];
	char *text, *line, *save = NULL;
	size_t len;
	int n = 0, reps = 0;
	struct stat st;
	mode_t old = umask(022);

	(void)state;
	make_results(&res);
	tmp_path(path, sizeof(path), "new/sub/dir/fmt.jsonl");
	write_recording(&res, path, 1);
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);

	text = slurp(path, &len);
	assert_true(len > 0);
	assert_int_equal(text[len - 1], '\n');
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *o = json_loads(line, 0, NULL);
		const char *type;

		assert_non_null(o);
		type = json_string_value(json_object_get(o, "type"));
		assert_non_null(type);
		if (n == 0) {
			assert_string_equal(type, "header");
			assert_int_equal(json_integer_value(json_object_get(o, "benchtop_recording")),
					 BT_RECORDING_VERSION);
			assert_string_equal(json_string_value(json_object_get(o, "time")),
					    "2026-11-30T01:02:03Z");
			assert_int_equal(json_array_size(json_object_get(o, "cells")), NCELLS);
		}
		reps += strcmp(type, "rep") == 0;
		if (strcmp(type, "end") == 0)
			assert_string_equal(json_string_value(json_object_get(o, "status")),
					    "complete");
		json_decref(o);
		n++;
	}
	/* header + 3 samples + 12 reps + 4 cells + end */
	assert_int_equal(n, 1 + 3 + NCELLS * (WARMUP + COUNTED) + NCELLS + 1);
	assert_int_equal(reps, NCELLS * (WARMUP + COUNTED));
	free(text);
	bt_results_destroy(&res);
}

/* Offset of the start of the last line of text[len] (which ends in '\n'). */
static size_t last_line_start(const char *text, size_t len)
{
	size_t i = len - 1;

	while (i > 0 && text[i - 1] != '\n')
		i--;
	return i;
}

static void test_torn_last_line(void **state)
{
	struct bt_results res, back;
	struct bt_err err = { "" };
	char path[512];
	char *text;
	size_t len, start, ll;

	(void)state;
	make_results(&res);
	tmp_path(path, sizeof(path), "torn.jsonl");
	/* No end line: the last line is the cell line of cell 3. */
	write_recording(&res, path, 0);
	text = slurp(path, &len);
	start = last_line_start(text, len);
	ll = len - start;	/* with its '\n' */
	assert_true(ll > 10);

	size_t cuts[] = { start + 1, start + 2, start + ll / 2, start + ll - 2 };

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		write_text(path, text, len);
		assert_int_equal(truncate(path, (off_t)cuts[i]), 0);
		assert_int_equal(bt_rec_read(path, &back, &err), 0);
		assert_string_equal(back.status, "interrupted");
		assert_int_equal(back.torn, 1);
		assert_int_equal(back.nreps, NCELLS * (WARMUP + COUNTED));
		assert_int_equal(back.nsamples, 3);
		/* Summaries are rebuilt from the reps, cell line or not. */
		assert_int_equal(back.cells[3].nreps, COUNTED - 1);
		assert_true(back.cells[2].ops_s.mean == res.cells[2].ops_s.mean);
		bt_results_destroy(&back);
	}

	/* Cut just before the newline: the line is whole, only the end is missing. */
	write_text(path, text, len);
	assert_int_equal(truncate(path, (off_t)(len - 1)), 0);
	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_string_equal(back.status, "interrupted");
	assert_int_equal(back.torn, 0);
	bt_results_destroy(&back);

	/* A torn rep line: the reps before it survive, it does not. */
	write_text(path, text, len);
	{
		/* Find the start of the last rep line. */
		char *p = strstr(text, "{\"type\":\"rep\",\"cell\":3,\"rep\":2,");

		assert_non_null(p);
		assert_int_equal(truncate(path, (off_t)(p - text) + 40), 0);
	}
	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_int_equal(back.torn, 1);
	assert_string_equal(back.status, "interrupted");
	assert_int_equal(back.nreps, NCELLS * (WARMUP + COUNTED) - 1);
	assert_int_equal(back.cells[3].nreps, COUNTED - 1);
	assert_int_equal(back.cells[3].failed, 0);
	bt_results_destroy(&back);

	free(text);
	bt_results_destroy(&res);
}

static void test_torn_end_line(void **state)
{
	struct bt_results res, back;
	struct bt_err err = { "" };
	char path[512];
	char *text;
	size_t len, start;

	(void)state;
	make_results(&res);
	tmp_path(path, sizeof(path), "tornend.jsonl");
	write_recording(&res, path, 1);
	text = slurp(path, &len);
	start = last_line_start(text, len);
	assert_non_null(strstr(text + start, "\"type\":\"end\""));
	assert_int_equal(truncate(path, (off_t)(start + 20)), 0);
	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_string_equal(back.status, "interrupted");
	assert_int_equal(back.torn, 1);
	assert_int_equal(back.nreps, NCELLS * (WARMUP + COUNTED));
	assert_int_equal(bt_results_cells_done(&back), 3);
	bt_results_destroy(&back);
	free(text);
	bt_results_destroy(&res);
}

static void test_no_end_line(void **state)
{
	struct bt_results res, back;
	struct bt_err err = { "" };
	char path[512];

	(void)state;
	make_results(&res);
	tmp_path(path, sizeof(path), "noend.jsonl");
	write_recording(&res, path, 0);
	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_string_equal(back.status, "interrupted");
	assert_int_equal(back.torn, 0);
	assert_string_equal(back.error,
			    "recording ends without an end line (the run was killed or crashed)");
	assert_int_equal(back.nreps, NCELLS * (WARMUP + COUNTED));
	bt_results_destroy(&back);
	bt_results_destroy(&res);
}

/* The end line's status and error are what the reader reports. */
static void test_failed_status(void **state)
{
	struct bt_results res, back;
	struct bt_recw w;
	struct bt_err err = { "" };
	char path[512];

	(void)state;
	make_results(&res);
	tmp_path(path, sizeof(path), "failed.jsonl");
	unlink(path);	/* the writer never overwrites */
	assert_int_equal(bt_recw_open(&w, path, &err), 0);
	assert_int_equal(bt_recw_header(&w, &res), 0);
	assert_int_equal(bt_recw_rep(&w, &res.reps[0]), 0);
	assert_int_equal(bt_recw_end(&w, "failed", "memcached: connection refused"), 0);
	bt_recw_close(&w);
	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_string_equal(back.status, "failed");
	assert_string_equal(back.error, "memcached: connection refused");
	assert_int_equal(back.nreps, 1);
	assert_int_equal(back.cells[0].nreps, 0);	/* only the warmup */
	bt_results_destroy(&back);
	bt_results_destroy(&res);
}

/* Read path, expect failure with exactly msg (after "path"). */
static void expect_error(const char *path, const char *msg)
{
	struct bt_results back;
	struct bt_err err = { "" };
	char want[1024];

	assert_int_equal(bt_rec_read(path, &back, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s%s", path, msg);
	assert_string_equal(err.msg, want);
	/* The results are left empty, and destroying them again is harmless. */
	assert_int_equal(back.nreps, 0);
	assert_null(back.cells);
	bt_results_destroy(&back);
}

static void expect_error_prefix(const char *path, const char *msg)
{
	struct bt_results back;
	struct bt_err err = { "" };
	char want[1024];

	assert_int_equal(bt_rec_read(path, &back, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s%s", path, msg);
	if (strncmp(err.msg, want, strlen(want)) != 0)
		fail_msg("got \"%s\", want prefix \"%s\"", err.msg, want);
}

static void test_bad_files(void **state)
{
	static const char binary[] = "\x7f" "ELF\x02\x01\x01\0\0\0\0\0\xff\xfe\n\x01\x02garbage";
	char path[512];
	struct bt_results back;
	struct bt_err err = { "" };

	(void)state;
	tmp_path(path, sizeof(path), "empty.jsonl");
	write_text(path, "", 0);
	expect_error(path, ": empty file, not a benchtop recording");

	tmp_path(path, sizeof(path), "binary.bin");
	write_text(path, binary, sizeof(binary) - 1);
	expect_error(path, ":1: not a benchtop recording");

	tmp_path(path, sizeof(path), "other.json");
	write_text(path, "{\"name\": \"not ours\"}\n", 21);
	expect_error(path, ":1: not a benchtop recording (no header)");

	tmp_path(path, sizeof(path), "newer.jsonl");
	write_text(path, "{\"type\":\"header\",\"benchtop_recording\":3,\"cells\":[]}\n", 52);
	expect_error(path, ":1: recording version 3 is newer than this benchtop (1)");

	tmp_path(path, sizeof(path), "missing.jsonl");
	assert_int_equal(bt_rec_read(path, &back, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "missing.jsonl: "));
}

/* Replace line `lineno` (1-based) of the good recording with `repl` (NULL: insert nothing). */
static void write_with_line(const char *path, const char *good, int lineno, const char *repl,
			    int insert)
{
	FILE *f = fopen(path, "w");
	const char *p = good;
	int n = 1;

	assert_non_null(f);
	while (*p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (n == lineno) {
			fputs(repl, f);
			fputc('\n', f);
		}
		if (n != lineno || insert)
			fwrite(p, 1, l, f);
		p += l;
		n++;
	}
	fclose(f);
}

static void test_bad_lines(void **state)
{
	struct bt_results res, back;
	struct bt_err err = { "" };
	char path[512], good[512];
	char *text;
	size_t len;

	(void)state;
	make_results(&res);
	tmp_path(good, sizeof(good), "good.jsonl");
	write_recording(&res, good, 1);
	text = slurp(good, &len);
	tmp_path(path, sizeof(path), "bad.jsonl");

	/* Garbage in the middle: an error naming line 4. */
	write_with_line(path, text, 4, "this is not json", 1);
	expect_error_prefix(path, ":4: invalid JSON: ");

	/* A garbage last line that still has its newline is damage, not a tear. */
	write_text(path, text, len);
	{
		FILE *f = fopen(path, "a");

		fputs("{\"type\":\"rep\",\"cell\":\n", f);
		fclose(f);
	}
	expect_error_prefix(path, ":22: invalid JSON: ");

	/* Wrong field types name the line and the field. */
	write_with_line(path, text, 5, "{\"type\":\"rep\",\"cell\":0,\"rep\":0,\"ops\":\"many\"}", 0);
	expect_error(path, ":5: field \"ops\": expected an integer");
	write_with_line(path, text, 5, "{\"type\":\"rep\",\"cell\":0,\"rep\":0,\"wall_s\":[1]}", 0);
	expect_error(path, ":5: field \"wall_s\": expected a number");
	write_with_line(path, text, 5, "{\"type\":\"rep\",\"cell\":0,\"rep\":0,\"ok\":1}", 0);
	expect_error(path, ":5: field \"ok\": expected true or false");
	write_with_line(path, text, 5,
			"{\"type\":\"rep\",\"cell\":0,\"rep\":0,\"workers\":[{\"ops\":1},{\"ops\":\"x\"}]}",
			0);
	expect_error(path, ":5: field \"workers[1].ops\": expected an integer");
	write_with_line(path, text, 5,
			"{\"type\":\"rep\",\"cell\":0,\"rep\":0,\"hist\":{\"b\":[[99999999,1]]}}", 0);
	expect_error_prefix(path, ":5: field \"hist.b[0]\": expected [index, count]");
	write_with_line(path, text, 2, "{\"type\":\"sample\",\"cell\":0,\"rep\":\"1\"}", 0);
	expect_error(path, ":2: field \"rep\": expected an integer");
	write_with_line(path, text, 1, "{\"type\":\"header\",\"benchtop_recording\":1,\"machine\":"
			"{\"host\":7},\"cells\":[]}", 0);
	expect_error(path, ":1: field \"machine.host\": expected a string");

	/* Indices out of range. */
	write_with_line(path, text, 5, "{\"type\":\"rep\",\"cell\":9,\"rep\":0}", 0);
	expect_error(path, ":5: cell 9 out of range (the header has 4 cells)");
	write_with_line(path, text, 5, "{\"type\":\"rep\",\"cell\":-1,\"rep\":0}", 0);
	expect_error(path, ":5: cell -1 out of range (the header has 4 cells)");
	write_with_line(path, text, 5, "{\"type\":\"rep\",\"cell\":0,\"rep\":-2}", 0);
	expect_error(path, ":5: rep -2 out of range (0..1000000)");
	write_with_line(path, text, 5, "{\"type\":\"rep\",\"rep\":0}", 0);
	expect_error(path, ":5: missing field \"cell\"");

	/* Not an object, no type, a second header. */
	write_with_line(path, text, 5, "[1, 2, 3]", 0);
	expect_error(path, ":5: not a JSON object");
	write_with_line(path, text, 5, "{\"cell\":0}", 0);
	expect_error(path, ":5: field \"type\": missing or not a string");
	write_with_line(path, text, 5, "{\"type\":\"header\",\"benchtop_recording\":1}", 0);
	expect_error(path, ":5: a second header");
	/* Explore lines belong to explore sessions only. */
	write_with_line(path, text, 5, "{\"type\":\"segment\",\"cell\":4,\"t\":1,\"settings\":\"\"}", 0);
	expect_error(path, ":5: a segment line in a session that is not an explore session");
	write_with_line(path, text, 5, "{\"type\":\"change\",\"cell\":1,\"key\":\"threads\",\"value\":\"4\"}", 0);
	expect_error(path, ":5: a change line in a session that is not an explore session");

	/* A cell line that disagrees with the rep lines before it (line 6 is cell 0's). */
	{
		char *p = text, *start = NULL;
		int n = 1;

		while (n < 6) {
			p = strchr(p, '\n') + 1;
			n++;
		}
		start = p;
		assert_int_equal(strncmp(start, "{\"type\":\"cell\",\"cell\":0,", 24), 0);
	}
	write_with_line(path, text, 6, "{\"type\":\"cell\",\"cell\":0,\"nreps\":5}", 0);
	expect_error(path, ":6: cell 0 says 5 reps, but its rep lines give 2");

	/* Good files still read after all that. */
	assert_int_equal(bt_rec_read(good, &back, &err), 0);
	bt_results_destroy(&back);
	free(text);
	bt_results_destroy(&res);
}

/* A newer minor version adds fields and line types: they are skipped. */
static void test_unknown_ignored(void **state)
{
	struct bt_results res, back;
	struct bt_err err = { "" };
	char path[512], good[512];
	char *text, *t2;
	size_t len;

	(void)state;
	make_results(&res);
	tmp_path(good, sizeof(good), "good2.jsonl");
	write_recording(&res, good, 1);
	text = slurp(good, &len);
	tmp_path(path, sizeof(path), "future.jsonl");

	/* An unknown line type between the header and the first sample... */
	write_with_line(path, text, 2, "{\"type\":\"annotation\",\"text\":\"hello\",\"at\":[1,2]}", 1);
	t2 = slurp(path, &len);
	/* ...and an unknown field in the header, in a rep line and in the machine. */
	{
		char *p = strstr(t2, "\"version\":");
		char *q = strstr(t2, "\"type\":\"rep\",");
		char *m = strstr(t2, "\"machine\":{");
		FILE *f = fopen(path, "w");

		assert_non_null(p);
		assert_non_null(q);
		assert_non_null(m);
		assert_true(p < m && m < q);
		fwrite(t2, 1, (size_t)(p - t2), f);
		fputs("\"future_header\":{\"x\":[1,{\"y\":null}]},", f);
		fwrite(p, 1, (size_t)(m - p) + 11, f);
		fputs("\"gpu\":\"none\",", f);
		fwrite(m + 11, 1, (size_t)(q - m - 11), f);
		fputs("\"type\":\"rep\",\"energy_j\":12.5,", f);
		fputs(q + 13, f);
		fclose(f);
	}
	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_string_equal(back.status, "complete");
	assert_int_equal(back.nreps, NCELLS * (WARMUP + COUNTED));
	assert_int_equal(back.nsamples, 3);
	assert_memory_equal(&back.machine, &res.machine, sizeof(res.machine));
	assert_rep_equal(&res.reps[0], &back.reps[0]);
	/* ...and the reader says what it ignored, each name once. */
	assert_string_equal(back.note,
			    "ignored what this benchtop does not know (written by a newer one?): "
			    "header.future_header, line type \"annotation\", rep.energy_j");
	bt_results_destroy(&back);
	free(t2);
	free(text);
	bt_results_destroy(&res);
}

/*
 * A results set with typed metrics: 2 cells of 1 warmup and 2 counted reps.
 * Cell 1 has no lookups and no connects, so its hit ratio and its connect
 * time per connect do not exist (0/0).
 */
static void make_metric_results(struct bt_results *res)
{
	static const struct bt_metric_info mi[] = {
		{ "hits", "keys", BT_MI_COUNTER, 0, "", "", "lookups that found the key" },
		{ "lookups", "keys", BT_MI_COUNTER, 0, "", "", "" },
		{ "hit_ratio", "%", BT_MI_RATIO, 0, "hits", "lookups", "hits per lookup" },
		{ "connect", "ns", BT_MI_TIME, 0, "", "connects", "time to connect" },
		{ "connects", "", BT_MI_COUNTER, 0, "", "", "" },
		{ "resident", "bytes", BT_MI_GAUGE, 0, "", "", "resident after the drop" },
		{ "timeout", "ops", BT_MI_COUNTER, 1, "", "", "ops that timed out" },
	};

	assert_int_equal(bt_results_init(res, 2), 0);
	snprintf(res->workload, sizeof(res->workload), "kv");
	snprintf(res->unit, sizeof(res->unit), "requests");
	res->naxes = 1;
	snprintf(res->axes[0], sizeof(res->axes[0]), "clients");
	res->nmetrics = (int)(sizeof(mi) / sizeof(mi[0]));
	memcpy(res->metrics, mi, sizeof(mi));
	for (int c = 0; c < 2; c++) {
		snprintf(res->cells[c].values[0], sizeof(res->cells[c].values[0]), "%d", c + 1);
		snprintf(res->cells[c].label, sizeof(res->cells[c].label), "clients=%d", c + 1);
		res->cells[c].total_reps = 2;
		for (int k = 0; k < 3; k++) {
			struct bt_rep r;

			memset(&r, 0, sizeof(r));
			r.cell = c;
			r.rep = k;
			r.warmup = k == 0;
			r.ok = 1;
			r.verify = bt_rep_ok;
			r.ops = 100;
			r.wall_s = 1;
			r.ops_s = 100;
			r.errors = (uint64_t)k;
			r.metric[0] = c == 0 ? 30.0 * k : 0;
			r.metric[1] = c == 0 ? 40.0 * k : 0;
			r.metric[3] = c == 0 ? 1000.0 * k : 0;
			r.metric[4] = c == 0 ? 4 : 0;
			r.metric[5] = k == 2 ? 4096.25 : 4096;
			r.metric[6] = k;
			assert_int_equal(bt_results_add_rep(res, &r), 0);
		}
		assert_int_equal(bt_results_summarize_cell(res, c), 0);
	}
	snprintf(res->status, sizeof(res->status), "complete");
}

/* Declarations, per-rep values and per-cell summaries come back exactly. */
/*
 * A recording made before the machine check has none of its fields: it
 * still reads, with those fields unknown ("" and steal -1), the rest intact.
 */
static void test_machine_check_absent(void **state)
{
	static const char *const added[] = {
		"virt", "container", "steal_pct", "boost", "thp", "aslr", "perf_paranoid",
		"isolated", "nohz_full", "clocksource",
	};
	struct bt_results res, back;
	struct bt_err err = { "" };
	char path[512], *text, *nl, *hdr_text;
	json_t *hdr, *m;
	size_t len;
	FILE *f;

	(void)state;
	make_results(&res);
	tmp_path(path, sizeof(path), "oldmachine.jsonl");
	write_recording(&res, path, 1);
	text = slurp(path, &len);
	nl = strchr(text, '\n');
	assert_non_null(nl);
	hdr = json_loadb(text, (size_t)(nl - text), 0, NULL);
	assert_non_null(hdr);
	m = json_object_get(hdr, "machine");
	for (size_t i = 0; i < sizeof(added) / sizeof(added[0]); i++)
		assert_int_equal(json_object_del(m, added[i]), 0);
	hdr_text = json_dumps(hdr, JSON_COMPACT);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s%s", hdr_text, nl);
	fclose(f);

	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_string_equal(back.note, "");
	assert_string_equal(back.machine.virt, "");
	assert_string_equal(back.machine.clocksource, "");
	assert_true(back.machine.steal_pct == -1);
	assert_string_equal(back.machine.governor, "performance");
	assert_int_equal(back.machine.smt, 2);
	bt_results_destroy(&back);
	bt_results_destroy(&res);
	free(hdr_text);
	json_decref(hdr);
	free(text);
	unlink(path);
}

static void test_metrics_round_trip(void **state)
{
	struct bt_results res, back;
	struct bt_err err = { "" };
	char path[512], *text;
	size_t len;

	(void)state;
	make_metric_results(&res);
	/* Derived on add: a ratio in %, NAN for 0/0; a time per den event. */
	assert_true(res.reps[1].metric[2] == 75.0);
	assert_true(isnan(res.reps[4].metric[2]));
	assert_true(bt_results_metric_rep(&res, &res.reps[2], 3) == 500.0);
	assert_true(isnan(bt_results_metric_rep(&res, &res.reps[4], 3)));
	assert_int_equal(res.cells[0].metric[2].n, 2);
	assert_true(res.cells[0].metric[2].median == 75.0);
	assert_int_equal(res.cells[1].metric[2].n, 0);
	assert_int_equal(res.cells[1].metric[3].n, 0);
	assert_true(res.cells[0].metric[3].median == 375.0);
	assert_true(res.cells[0].metric[5].max == 4096.25);
	assert_true(res.cells[1].metric[6].mean == 1.5);

	tmp_path(path, sizeof(path), "metrics.jsonl");
	write_recording(&res, path, 1);
	text = slurp(path, &len);
	assert_non_null(strstr(text, ",\"metrics\":[{\"name\":\"hits\",\"unit\":\"keys\",\"kind\":\"counter\","
				     "\"error\":false,\"num\":\"\",\"den\":\"\","
				     "\"help\":\"lookups that found the key\"},"));
	assert_non_null(strstr(text, "{\"name\":\"hit_ratio\",\"unit\":\"%\",\"kind\":\"ratio\",\"error\":false,"
				     "\"num\":\"hits\",\"den\":\"lookups\",\"help\":\"hits per lookup\"}"));
	assert_non_null(strstr(text, "{\"name\":\"timeout\",\"unit\":\"ops\",\"kind\":\"counter\",\"error\":true,"));
	assert_non_null(strstr(text, "\"metrics\":{\"hits\":60,\"lookups\":80,\"hit_ratio\":75,\"connect\":2000,"
				     "\"connects\":4,\"resident\":4096.25,\"timeout\":2}}\n"));
	assert_non_null(strstr(text, "\"metrics\":{\"hits\":0,\"lookups\":0,\"hit_ratio\":null,\"connect\":0,"
				     "\"connects\":0,\"resident\":4096,\"timeout\":1}}\n"));
	assert_non_null(strstr(text, "\"metrics\":{\"hits\":{\"n\":2,\"min\":30.0,\"median\":45.0,\"max\":60.0,"));

	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_string_equal(back.note, "");
	assert_int_equal(back.nmetrics, res.nmetrics);
	assert_memory_equal(back.metrics, res.metrics, sizeof(res.metrics[0]) * (size_t)res.nmetrics);
	assert_int_equal(back.nreps, res.nreps);
	for (int i = 0; i < res.nreps; i++)
		for (int m = 0; m < res.nmetrics; m++)
			assert_true(back.reps[i].metric[m] == res.reps[i].metric[m] ||
				    (isnan(back.reps[i].metric[m]) && isnan(res.reps[i].metric[m])));
	for (int c = 0; c < 2; c++)
		for (int m = 0; m < res.nmetrics; m++)
			assert_summary_equal(&back.cells[c].metric[m], &res.cells[c].metric[m]);
	bt_results_destroy(&back);
	free(text);
	bt_results_destroy(&res);
}

/*
 * Latency channels: names in the header, each rep's histograms by name (as
 * "hist"), cell summaries; read back exact. A channel the header does not
 * name is noted and ignored.
 */
static void test_channels_round_trip(void **state)
{
	struct bt_results res, back;
	struct bt_err err = { "" };
	char path[512], *text;
	size_t len;

	(void)state;
	assert_int_equal(bt_results_init(&res, 2), 0);
	snprintf(res.workload, sizeof(res.workload), "kv");
	res.nch = 2;
	snprintf(res.ch_names[0], sizeof(res.ch_names[0]), "incr");
	snprintf(res.ch_names[1], sizeof(res.ch_names[1]), "read");
	for (int c = 0; c < 2; c++) {
		for (int i = 0; i < 2; i++) {
			struct bt_rep r = { .cell = c, .rep = i, .ok = 1, .ops = 10, .lat_every = 1 };

			r.hist = bt_hist_new();
			r.ch_hist[0] = bt_hist_new();
			r.ch_hist[1] = bt_hist_new();
			for (uint64_t k = 1; k <= 10; k++) {
				bt_hist_record(r.hist, 1000 * k);
				bt_hist_record(r.ch_hist[k & 1], 100 * k + (uint64_t)c);
			}
			assert_int_equal(bt_results_add_rep(&res, &r), 0);
		}
		res.cells[c].nreps = 2;
	}
	assert_true(res.cells[1].ch_hist[0]->total == 10);
	assert_true(res.cells[1].ch_hist[1]->min == 101);
	assert_int_equal(res.reps[0].ch_lat[0].count, 5);

	tmp_path(path, sizeof(path), "channels.jsonl");
	write_recording(&res, path, 1);
	text = slurp(path, &len);
	assert_non_null(strstr(text, "\"lat_channels\":[\"incr\",\"read\"]"));
	assert_non_null(strstr(text, "\"ch_hist\":{\"incr\":{"));
	assert_non_null(strstr(text, "\"ch_lat\":{\"incr\":{\"p50\":"));

	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_string_equal(back.note, "");
	assert_int_equal(back.nch, 2);
	assert_string_equal(back.ch_names[0], "incr");
	assert_string_equal(back.ch_names[1], "read");
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 2; k++) {
			const struct bt_rep_lat *a = &res.reps[i].ch_lat[k], *b = &back.reps[i].ch_lat[k];

			assert_true(a->count == b->count && a->min == b->min && a->max == b->max);
			assert_true(a->p50 == b->p50 && a->p99 == b->p99 && a->n == b->n);
		}
	for (int c = 0; c < 2; c++)
		for (int k = 0; k < 2; k++)
			assert_hist_equal(res.cells[c].ch_hist[k], back.cells[c].ch_hist[k]);
	bt_results_destroy(&back);
	free(text);

	/* A channel the header does not declare. */
	{
		static const char rec[] =
			"{\"type\":\"header\",\"benchtop_recording\":1,\"workload\":\"kv\","
			"\"lat_channels\":[\"incr\"],\"cells\":[{\"index\":0,\"values\":[]}]}\n"
			"{\"type\":\"rep\",\"cell\":0,\"rep\":0,\"ok\":true,\"ops\":1,"
			"\"ch_hist\":{\"incr\":{\"min\":5,\"max\":5,\"sum\":5,\"b\":[[5,1]]},"
			"\"write\":null}}\n"
			"{\"type\":\"end\",\"status\":\"complete\"}\n";

		tmp_path(path, sizeof(path), "channels2.jsonl");
		write_text(path, rec, sizeof(rec) - 1);
		assert_int_equal(bt_rec_read(path, &back, &err), 0);
		assert_non_null(strstr(back.note, "rep.ch_hist.write"));
		assert_true(back.reps[0].ch_lat[0].count == 1);
		assert_true(back.cells[0].ch_hist[0]->max == 5);
		bt_results_destroy(&back);
	}
	bt_results_destroy(&res);
}

/*
 * A newer writer's metrics: a kind this build does not know is shown as a
 * plain number, a value no declaration names is ignored, both noted.
 */
static void test_metrics_unknown(void **state)
{
	struct bt_results res, back;
	struct bt_err err = { "" };
	char path[512], *orig, *text, *p;
	size_t len;
	FILE *f;

	(void)state;
	make_metric_results(&res);
	tmp_path(path, sizeof(path), "metrics_new.jsonl");
	write_recording(&res, path, 1);
	orig = text = slurp(path, &len);
	f = fopen(path, "w");
	assert_non_null(f);
	p = strstr(text, "\"kind\":\"gauge\"");
	assert_non_null(p);
	fwrite(text, 1, (size_t)(p - text), f);
	fputs("\"kind\":\"histogram\"", f);
	text = p + strlen("\"kind\":\"gauge\"");
	p = strstr(text, "\"metrics\":{\"hits\":");
	assert_non_null(p);
	fwrite(text, 1, (size_t)(p - text), f);
	fputs("\"metrics\":{\"queue_depth\":7,\"hits\":", f);
	fputs(p + strlen("\"metrics\":{\"hits\":"), f);
	fclose(f);

	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_string_equal(back.note,
			    "ignored what this benchtop does not know (written by a newer one?): "
			    "metrics.resident.kind \"histogram\" (shown as a plain number), "
			    "rep.metrics.queue_depth");
	assert_int_equal(back.nmetrics, 7);
	assert_int_equal(back.metrics[5].kind, BT_MI_GAUGE);
	assert_true(back.cells[0].metric[5].max == 4096.25);
	assert_true(back.cells[0].metric[2].median == 75.0);
	bt_results_destroy(&back);
	free(orig);
	bt_results_destroy(&res);
}

/*
 * Which axes count workers travels by name in "worker_axes", so a recording
 * draws its ideal line without the schema; a recording from before that field
 * takes an axis named threads as the worker count.
 */
static void test_worker_axes(void **state)
{
	struct bt_results res, back;
	struct bt_err err = { "" };
	char path[512], *text, *p, *q;
	size_t len;
	FILE *f;

	(void)state;
	make_results(&res);
	res.axis_workers[1] = 1;	/* by the flag, not the name: lock here */
	tmp_path(path, sizeof(path), "workers.jsonl");
	write_recording(&res, path, 1);
	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_int_equal(back.axis_workers[0], 0);
	assert_int_equal(back.axis_workers[1], 1);
	assert_string_equal(back.note, "");
	bt_results_destroy(&back);

	/* The same recording without the field, as an older benchtop wrote it. */
	text = slurp(path, &len);
	p = strstr(text, ",\"worker_axes\":[\"lock\"]");
	assert_non_null(p);
	q = p + strlen(",\"worker_axes\":[\"lock\"]");
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(text, 1, (size_t)(p - text), f);
	fputs(q, f);
	fclose(f);
	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_int_equal(back.axis_workers[0], 1);
	assert_int_equal(back.axis_workers[1], 0);
	bt_results_destroy(&back);
	free(text);
	bt_results_destroy(&res);
}

/* One finished segment rep of cell c: ops over one second. */
static void add_segment_rep(struct bt_results *res, int c, uint64_t ops)
{
	struct bt_rep r;

	memset(&r, 0, sizeof(r));
	r.cell = c;
	r.ok = 1;
	r.ops = ops;
	r.wall_s = 1;
	r.ops_s = (double)ops;
	r.steal_pct = r.runq = r.throttled = -1;
	assert_int_equal(bt_results_add_rep(res, &r), 0);
	bt_results_summarize_cell(res, c);
}

/*
 * An explore session: segments and changes written as they happen, then
 * read back with the changed keys as axes, the cells labelled by them (a
 * setting seen again gets " #2"), the last change's plan as the plan; and
 * the same results written again whole read back the same.
 */
static void test_explore_round_trip(void **state)
{
	struct bt_results res, back, again;
	struct bt_recw w;
	struct bt_err err = { "" };
	static const char *const settings[] = { "threads=1 lock=mutex", "threads=4 lock=mutex",
						"threads=4 lock=spin", "threads=1 lock=mutex" };
	static const char *const keys[] = { "", "threads", "lock", "threads" };
	static const char *const vals[] = { "", "4", "spin", "1" };
	char path[512], path2[512];

	(void)state;
	assert_int_equal(bt_results_init(&res, 0), 0);
	snprintf(res.workload, sizeof(res.workload), "locks");
	snprintf(res.workers_axis, sizeof(res.workers_axis), "threads");
	res.explore = 1;
	res.plan_json = strdup("{\"benchtop_plan\": 1, \"workload\": \"locks\", \"params\": {\"threads\": 1}}");
	tmp_path(path, sizeof(path), "explore.jsonl");
	assert_int_equal(bt_recw_open(&w, path, &err), 0);
	assert_int_equal(bt_recw_header(&w, &res), 0);
	for (int c = 0; c < 4; c++) {
		struct bt_sample smp = { .cell = c, .t = 0.5, .dt = 0.5, .ops = 100u * (c + 1) };

		if (c > 0) {
			assert_int_equal(bt_results_add_change(&res, c * 1.0, c, keys[c], vals[c]), 0);
			assert_int_equal(bt_recw_change(&w, &res.changes[res.nchanges - 1],
							 c == 3 ? "{\"benchtop_plan\": 1, \"params\": {\"threads\": [1, 4]}}" : NULL), 0);
		}
		assert_int_equal(bt_results_add_segment(&res, c * 1.0, settings[c]), 0);
		assert_int_equal(bt_recw_segment(&w, &res, c), 0);
		assert_int_equal(bt_results_add_sample(&res, &smp), 0);
		assert_int_equal(bt_recw_sample(&w, &smp), 0);
		add_segment_rep(&res, c, 100u * (c + 1));
		assert_int_equal(bt_recw_rep(&w, &res.reps[res.nreps - 1]), 0);
		assert_int_equal(bt_recw_cell(&w, &res.cells[c]), 0);
	}
	assert_int_equal(bt_recw_end(&w, "complete", ""), 0);
	assert_int_equal(bt_recw_close(&w), 0);

	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_true(back.explore);
	assert_string_equal(back.note, "");
	assert_int_equal(back.ncells, 4);
	assert_int_equal(back.nchanges, 3);
	assert_int_equal(back.naxes, 2);
	assert_string_equal(back.axes[0], "threads");
	assert_string_equal(back.axes[1], "lock");
	assert_true(back.axis_workers[0]);
	assert_false(back.axis_workers[1]);
	assert_string_equal(back.cells[0].label, "threads=1 lock=mutex");
	assert_string_equal(back.cells[2].label, "threads=4 lock=spin");
	assert_string_equal(back.cells[3].label, "threads=1 lock=mutex #2");
	assert_string_equal(back.cells[2].values[1], "spin");
	assert_int_equal(back.changes[1].cell, 2);
	assert_string_equal(back.changes[1].value, "spin");
	assert_true(back.segments[3].t == 3.0);
	assert_non_null(strstr(back.plan_json, "\"threads\": [\n      1,\n      4\n    ]"));
	for (int c = 0; c < 4; c++) {
		assert_true(back.cells[c].done);
		assert_int_equal(back.reps[c].ops, 100u * (c + 1));
	}

	/* Written again whole (export, a fuzzer's check): the same session. */
	tmp_path(path2, sizeof(path2), "explore2.jsonl");
	assert_int_equal(bt_recw_open(&w, path2, &err), 0);
	assert_int_equal(bt_recw_header(&w, &back), 0);
	for (int i = 0; i < back.nsamples; i++)
		assert_int_equal(bt_recw_sample(&w, &back.samples[i]), 0);
	for (int i = 0; i < back.nreps; i++)
		assert_int_equal(bt_recw_rep(&w, &back.reps[i]), 0);
	assert_int_equal(bt_recw_end(&w, "complete", ""), 0);
	assert_int_equal(bt_recw_close(&w), 0);
	assert_int_equal(bt_rec_read(path2, &again, &err), 0);
	assert_int_equal(again.ncells, 4);
	assert_int_equal(again.nchanges, 3);
	for (int c = 0; c < 4; c++)
		assert_string_equal(again.cells[c].label, back.cells[c].label);
	bt_results_destroy(&again);

	/* Out of order, or a change that begins no segment yet: refused with the line. */
	{
		char *text2;
		size_t len2;
		FILE *f;

		text2 = slurp(path, &len2);
		f = fopen(path2, "w");
		assert_non_null(f);
		fwrite(text2, 1, strchr(text2, '\n') + 1 - text2, f);	/* the header only */
		fputs("{\"type\":\"segment\",\"cell\":1,\"t\":0,\"settings\":\"\"}\n", f);
		fclose(f);
		assert_int_equal(bt_rec_read(path2, &again, &err), -EINVAL);
		assert_non_null(strstr(err.msg, ":2: segment 1 out of order (expected 0)"));
		f = fopen(path2, "w");
		fwrite(text2, 1, strchr(text2, '\n') + 1 - text2, f);
		fputs("{\"type\":\"change\",\"cell\":3,\"t\":0,\"key\":\"threads\",\"value\":\"2\"}\n", f);
		fclose(f);
		assert_int_equal(bt_rec_read(path2, &again, &err), -EINVAL);
		assert_non_null(strstr(err.msg, ":2: change begins segment 3, expected 1..0"));
		free(text2);
	}
	bt_results_destroy(&back);
	bt_results_destroy(&res);
}

/* After a failed write every later write fails too. */
static void test_sticky_error(void **state)
{
	struct bt_results res;
	struct bt_recw w;
	struct bt_err err = { "" };
	int ret;

	(void)state;
	if (access("/dev/full", W_OK) != 0)
		skip();
	make_results(&res);
	assert_int_equal(bt_recw_open(&w, "/dev/full", &err), 0);
	ret = bt_recw_header(&w, &res);
	assert_int_equal(ret, -ENOSPC);
	assert_int_equal(bt_recw_sample(&w, &res.samples[0]), -ENOSPC);
	assert_int_equal(bt_recw_end(&w, "complete", NULL), -ENOSPC);
	bt_recw_close(&w);
	assert_true(bt_recw_end(&w, "complete", NULL) < 0);
	bt_results_destroy(&res);

	/* Opening where a directory cannot be made fails with a message. */
	assert_true(bt_recw_open(&w, "/dev/null/sub/x.jsonl", &err) < 0);
	assert_non_null(strstr(err.msg, "/dev/null"));
}

static void test_default_dir(void **state)
{
	char buf[512];
	char *old_xdg = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;
	char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

	(void)state;
	setenv("XDG_STATE_HOME", "/tmp/xdg-state", 1);
	assert_int_equal(bt_rec_default_dir(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/tmp/xdg-state/benchtop/sessions");
	assert_int_equal(bt_rec_default_dir(buf, 10), -ENAMETOOLONG);

	/* A relative XDG_STATE_HOME is invalid per the spec: fall back to HOME. */
	setenv("XDG_STATE_HOME", "relative/state", 1);
	setenv("HOME", "/home/tester", 1);
	assert_int_equal(bt_rec_default_dir(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/home/tester/.local/state/benchtop/sessions");

	unsetenv("XDG_STATE_HOME");
	assert_int_equal(bt_rec_default_dir(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/home/tester/.local/state/benchtop/sessions");

	if (old_xdg)
		setenv("XDG_STATE_HOME", old_xdg, 1);
	if (old_home)
		setenv("HOME", old_home, 1);
	else
		unsetenv("HOME");
	free(old_xdg);
	free(old_home);
}

static void test_default_path(void **state)
{
	char buf[512], want[512], dir[300];
	uint64_t ns = 1796000523ull * 1000000000ull + 999;	/* 2026-11-30T01:02:03Z */

	(void)state;
	tmp_path(dir, sizeof(dir), "sessions");
	assert_int_equal(bt_rec_default_path(buf, sizeof(buf), dir, "pipeline", "my host/x", ns), 0);
	snprintf(want, sizeof(want), "%s/20261130-010203-pipeline-my_host_x.jsonl", dir);
	assert_string_equal(buf, want);

	/* The name is reserved (an empty file); taken names get -2, -3. */
	assert_int_equal(access(buf, F_OK), 0);
	assert_int_equal(bt_rec_default_path(buf, sizeof(buf), dir, "pipeline", "my host/x", ns), 0);
	snprintf(want, sizeof(want), "%s/20261130-010203-pipeline-my_host_x-2.jsonl", dir);
	assert_string_equal(buf, want);
	assert_int_equal(bt_rec_default_path(buf, sizeof(buf), dir, "pipeline", "my host/x", ns), 0);
	snprintf(want, sizeof(want), "%s/20261130-010203-pipeline-my_host_x-3.jsonl", dir);
	assert_string_equal(buf, want);

	assert_int_equal(bt_rec_default_path(buf, 20, dir, "pipeline", "h", ns), -ENAMETOOLONG);
}

/*
 * Rep indexes and rep counts near INT_MAX (issue 9, point 7): the replay
 * and the live view add and multiply them, so the reader refuses any past
 * BT_REC_MAX_REP_INDEX with one line naming the field; nothing that large
 * reaches them.
 */
static void test_rep_index_limits(void **state)
{
	static const char hdr[] =
		"{\"type\":\"header\",\"benchtop_recording\":1,\"workload\":\"null\",\"unit\":\"ops\","
		"\"axes\":[],\"cells\":[{\"index\":0,\"label\":\"\",\"values\":[],\"reps\":%s}]}\n";
	static const char rep[] = "{\"type\":\"rep\",\"cell\":0,\"rep\":%s,\"ok\":true,\"ops\":1}\n";
	static const char sample[] = "{\"type\":\"sample\",\"cell\":0,\"rep\":%s,\"t\":0.1,\"dt\":0.1}\n";
	static const char *const big[] = { "2147483647", "2147483646", "1000001" };
	struct bt_results back;
	struct bt_err err = { "" };
	char path[512], text[1024], line[256], want[256];

	(void)state;
	tmp_path(path, sizeof(path), "intmax.jsonl");
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		/* A cell of INT_MAX reps. */
		snprintf(text, sizeof(text), hdr, big[i]);
		write_text(path, text, strlen(text));
		snprintf(want, sizeof(want), ":1: field \"cells[0].reps\": %s out of range 0..1000000",
			 big[i]);
		expect_error(path, want);

		/* A rep, and a sample, numbered INT_MAX. */
		snprintf(text, sizeof(text), hdr, "3");
		snprintf(line, sizeof(line), rep, big[i]);
		strcat(text, line);
		write_text(path, text, strlen(text));
		snprintf(want, sizeof(want), ":2: rep %s out of range (0..1000000)", big[i]);
		expect_error(path, want);
		snprintf(text, sizeof(text), hdr, "3");
		snprintf(line, sizeof(line), sample, big[i]);
		strcat(text, line);
		write_text(path, text, strlen(text));
		expect_error(path, want);
	}
	/* Past int itself: refused as out of range, not wrapped. */
	snprintf(text, sizeof(text), hdr, "3");
	snprintf(line, sizeof(line), rep, "4294967296");
	strcat(text, line);
	write_text(path, text, strlen(text));
	expect_error_prefix(path, ":2: field \"rep\": ");
	/* The limit itself is accepted: a cell of 1000000 reps, rep 1000000 read back. */
	snprintf(text, sizeof(text), hdr, "1000000");
	snprintf(line, sizeof(line), rep, "1000000");
	strcat(text, line);
	write_text(path, text, strlen(text));
	assert_int_equal(bt_rec_read(path, &back, &err), 0);
	assert_int_equal(back.nreps, 1);
	assert_int_equal(back.reps[0].rep, 1000000);
	assert_int_equal(back.cells[0].total_reps, 1000000);
	assert_string_equal(back.status, "interrupted");
	bt_results_destroy(&back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_line_format),
		cmocka_unit_test(test_torn_last_line),
		cmocka_unit_test(test_torn_end_line),
		cmocka_unit_test(test_no_end_line),
		cmocka_unit_test(test_failed_status),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_unknown_ignored),
		cmocka_unit_test(test_machine_check_absent),
		cmocka_unit_test(test_metrics_round_trip),
		cmocka_unit_test(test_channels_round_trip),
		cmocka_unit_test(test_metrics_unknown),
		cmocka_unit_test(test_worker_axes),
		cmocka_unit_test(test_explore_round_trip),
		cmocka_unit_test(test_sticky_error),
		cmocka_unit_test(test_default_dir),
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_rep_index_limits),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
