/*
 * test_files.c - the file workloads through the runner (plan, reps,
 * results), at sizes small enough to be quick: every copy and convert
 * method writes a byte-exact output, warm and cold, at odd sizes and
 * buffers; grep's count equals one made here from the kept files; sort's
 * output is ordered and a permutation, and a corrupted output fails its
 * verify; the scratch directory is safe (a foreign non-empty dir= is
 * refused and left alone, a symlink dir= refused, a symlink inside never
 * followed, a missing dir= made and removed, keep=1 keeps); O_DIRECT is
 * refused with one line on ramfs; a full tmpfs gives a clear error and
 * leaves nothing behind (the mounts are skipped where not permitted).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "scratch_fixture.h"

#include "engines/engine.h"
#include "engines/runner.h"
#include "workloads/files_data.h"
#include "workloads/registry.h"

#include "wl_fixture.h"

#define MAXARGS 24

static void make_dir(char *dir, size_t n)
{
	scratch_dir(dir, n, "files");
}

/* Skip the test (removing the empty dir) where dir's file system has no O_DIRECT. */
static void skip_without_direct(const char *dir)
{
	struct bt_err err = { "" };
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/probe", dir);
	if (bt_pagecache_open_direct(path, O_RDWR | O_CREAT, 0600, &fd, &err) < 0) {
		print_message("%s\n", err.msg);
		assert_int_equal(rmdir(dir), 0);
		skip();
	}
	close(fd);
	unlink(path);
}

/*
 * Run workload name with args (NULL-terminated) plus reps=1 warmup=0 and
 * dir= when dir is not NULL. Returns bt_run_wait's code; *runp is the run
 * (the caller frees it) for its results.
 */
static int run_wl(const char *name, const char *const *args, const char *dir, struct bt_run **runp)
{
	const struct bt_workload *wl = bt_workload_find(name);
	struct bt_err err = { "" };
	struct bt_plan pl;
	char dirarg[300];
	int rc;

	assert_non_null(wl);
	assert_int_equal(bt_run_plan_init(&pl, wl, &err), 0);
	assert_int_equal(bt_plan_set_arg(&pl, "reps=1", &err), 0);
	assert_int_equal(bt_plan_set_arg(&pl, "warmup=0", &err), 0);
	if (dir != NULL) {
		snprintf(dirarg, sizeof(dirarg), "dir=%s", dir);
		assert_int_equal(bt_plan_set_arg(&pl, dirarg, &err), 0);
	}
	for (int i = 0; args[i] != NULL; i++)
		if (bt_plan_set_arg(&pl, args[i], &err) < 0)
			fail_msg("%s: %s", args[i], err.msg);
	assert_int_equal(bt_run_plan_finalize(&pl, wl, &err), 0);
	if (bt_run_validate(wl, &pl, &err) != 0)
		fail_msg("validate: %s", err.msg);
	assert_int_equal(bt_run_start(runp, wl, &pl, NULL, &err), 0);
	rc = bt_run_wait(*runp);
	bt_plan_destroy(&pl);
	return rc;
}

static int metric_index(const struct bt_results *res, const char *name)
{
	for (int m = 0; m < res->nmetrics; m++)
		if (strcmp(res->metrics[m].name, name) == 0)
			return m;
	fail_msg("no metric %s", name);
	return -1;
}

/* Every rep ok with a verify line starting "ok:", and as many as cells. */
static void all_ok(struct bt_run *run, int ncells)
{
	struct bt_results *res = bt_run_results(run);

	if (strcmp(res->status, "complete") != 0)
		fail_msg("status %s: %s", res->status, res->error);
	assert_int_equal(res->nreps, ncells);
	for (int i = 0; i < res->nreps; i++) {
		assert_true(res->reps[i].ok);
		assert_non_null(strstr(res->reps[i].verify, "ok:"));
	}
}

/*
 * Every method, warm and cold, at a size that is no multiple of any
 * buffer, with buffers from the smallest up; the directory is empty after.
 */
static void test_copy_convert_methods(void **state)
{
	static const char *const copy_args[] = {
		"method=stdio,rw,rw-seq,prealloc,mmap,sendfile,copy_file_range,threads,uring",
		"size=300001", "buffer=256,64K", "cache=warm,cold", "threads=3", NULL
	};
	static const char *const convert_args[] = {
		"method=stdio,rw,rw-seq,prealloc,mmap,threads,uring", "size=200003",
		"buffer=256,64K", "cache=warm,cold", "threads=3", "sync=fdatasync", NULL
	};
	char dir[64];
	struct bt_run *run;
	struct bt_results *res;
	int mres, mfile, mend;

	make_dir(dir, sizeof(dir));
	assert_int_equal(run_wl("copy", copy_args, dir, &run), 0);
	all_ok(run, 9 * 2 * 2);
	res = bt_run_results(run);
	mres = metric_index(res, "resident");
	mfile = metric_index(res, "file");
	mend = metric_index(res, "resident_end");
	for (int i = 0; i < res->nreps; i++) {
		assert_true(res->reps[i].metric[mfile] == 300001.0);
		assert_true(res->reps[i].metric[mres] <= 300001.0);
		/* Every method reads through the page cache: the input is all there at the end. */
		assert_true(res->reps[i].metric[mend] == 300001.0);
		assert_true(res->reps[i].bytes == 300001);
	}
	bt_run_free(run);
	assert_int_equal(scratch_entries(dir), 0);

	assert_int_equal(run_wl("convert", convert_args, dir, &run), 0);
	all_ok(run, 7 * 2 * 2);
	bt_run_free(run);
	assert_int_equal(scratch_entries(dir), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* io=direct where the file system has it: byte-exact too, with the padded last block cut back. */
static void test_copy_direct(void **state)
{
	static const char *const args[] = { "method=rw,prealloc", "size=100000", "buffer=8K",
					     "io=direct", "cache=cold", NULL };
	char dir[64];
	struct bt_run *run;

	make_dir(dir, sizeof(dir));
	skip_without_direct(dir);
	assert_int_equal(run_wl("copy", args, dir, &run), 0);
	all_ok(run, 2);
	bt_run_free(run);
	assert_int_equal(scratch_entries(dir), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* Lines holding "needle", by a loop of its own over every kept text file. */
static uint64_t count_needles(const char *dir, int *files)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	uint64_t n = 0;

	assert_non_null(d);
	*files = 0;
	while ((e = readdir(d)) != NULL) {
		char path[512], line[4096];
		FILE *fp;

		if (strncmp(e->d_name, "text-", 5) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fp = fopen(path, "r");
		assert_non_null(fp);
		while (fgets(line, sizeof(line), fp) != NULL)
			n += strstr(line, "needle") != NULL;
		fclose(fp);
		(*files)++;
	}
	closedir(d);
	return n;
}

static void test_grep_counts(void **state)
{
	static const char *const args[] = { "how=sequential,threads", "files=7", "size=300K",
					     "cache=warm,cold", "keep=1", NULL };
	static const char *const pargs[] = { "how=sequential,threads,processes", "files=7",
					      "size=300K", NULL };
	char dir[64];
	struct bt_run *run;
	struct bt_results *res;
	uint64_t want;
	int m, files;

	make_dir(dir, sizeof(dir));
	assert_int_equal(run_wl("grep", args, dir, &run), 0);
	all_ok(run, 4);
	want = count_needles(dir, &files);
	assert_int_equal(files, 7);
	assert_true(want > 0);
	res = bt_run_results(run);
	m = metric_index(res, "matches");
	assert_int_equal(res->metrics[m].kind, BT_MK_COUNTER);
	for (int i = 0; i < res->nreps; i++)
		assert_true(res->reps[i].metric[m] == (double)want);
	bt_run_free(run);

	/*
	 * The kept directory is benchtop's: a later run adopts it, and this one
	 * removes the files. how=processes runs as processes with no as= (the
	 * value picks the engine): its 7 workers ran in 7 processes, none of
	 * them this one; the other cells' workers ran in this process.
	 */
	assert_int_equal(run_wl("grep", pargs, dir, &run), 0);
	all_ok(run, 3);
	res = bt_run_results(run);
	for (int i = 0; i < 3; i++) {
		const struct bt_rep *r = &res->reps[i];

		assert_true(r->metric[metric_index(res, "matches")] == (double)want);
		assert_int_equal(r->nworkers, i == 0 ? 1 : 7);
		assert_string_equal(r->engine, i == 2 ? "processes" : "threads");
		for (int k = 0; k < r->nworkers; k++) {
			assert_true(r->workers[k].pid > 0);
			if (i < 2)
				assert_int_equal(r->workers[k].pid, getpid());
			for (int j = 0; i == 2 && j < k; j++)
				assert_int_not_equal(r->workers[k].pid, r->workers[j].pid);
			if (i == 2)
				assert_int_not_equal(r->workers[k].pid, getpid());
		}
	}
	bt_run_free(run);
	assert_int_equal(scratch_entries(dir), 0);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * how= names the engine: as= may repeat it, a contradiction is refused
 * before anything runs, with one line that says what to do.
 */
static void test_grep_engine_for(void **state)
{
	static const char *const bad[][2] = {
		{ "how=processes", "as=threads" },
		{ "how=threads", "as=processes" },
	};
	const struct bt_workload *wl = bt_workload_find("grep");
	struct bt_err err = { "" };
	struct bt_plan pl;

	for (int i = 0; i < 3; i++) {
		assert_int_equal(bt_run_plan_init(&pl, wl, &err), 0);
		assert_int_equal(bt_plan_set_arg(&pl, i < 2 ? bad[i][0] : "how=processes", &err), 0);
		assert_int_equal(bt_plan_set_arg(&pl, i < 2 ? bad[i][1] : "as=processes", &err), 0);
		assert_int_equal(bt_run_validate(wl, &pl, &err), i < 2 ? -EINVAL : 0);
		if (i == 0)
			assert_string_equal(err.msg, "how=processes as=threads: grep runs how=processes as processes (leave as= out, or say as=processes)");
		if (i == 1)
			assert_non_null(strstr(err.msg, "say as=threads"));
		bt_plan_destroy(&pl);
	}
}

static void test_sort_methods(void **state)
{
	static const char *const args[] = { "method=qsort,mmap,tree,merge", "threads=1,2,3,4",
					     "records=1001", "cache=warm", NULL };
	char dir[64];
	struct bt_run *run;
	struct bt_results *res;
	int m;

	make_dir(dir, sizeof(dir));
	assert_int_equal(run_wl("sort", args, dir, &run), 0);
	all_ok(run, 16);
	res = bt_run_results(run);
	m = metric_index(res, "threads");
	for (int i = 0; i < res->nreps; i++) {
		assert_true(res->reps[i].ops == 1001);
		assert_true(res->reps[i].bytes == 1001 * 64);
	}
	/* Cells in plan order: merge is the last method, threads 1..4. */
	for (int t = 0; t < 4; t++)
		assert_true(res->reps[12 + t].metric[m] == t + 1.0);
	assert_true(res->reps[4].metric[m] == 1.0);
	bt_run_free(run);
	assert_int_equal(scratch_entries(dir), 0);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * Sort's verify catches both failures: two records swapped (not sorted),
 * and one record's payload changed after a correct sort (sorted, but not a
 * permutation). Driven through the engine directly so the output can be
 * spoiled between the workers and verify.
 */
static void spoil_and_verify(int how, const char *want)
{
	struct fx f;
	struct bt_err err = { "" };
	struct bt_run_ctx rctx = { 0 };
	const struct bt_value *const *cells[1];
	const struct bt_workload *wl;
	struct bt_engine_out out = { 0 };
	char dir[64], path[128], tmp[BT_REC_SIZE];
	unsigned char *p;
	int fd;

	make_dir(dir, sizeof(dir));
	fx_init_wl(&f, "sort", NULL);
	snprintf(path, sizeof(path), "dir=%s", dir);
	fx_set(&f, path);
	fx_set(&f, "records=500");
	wl = f.wl;
	cells[0] = f.pv;
	rctx.ncells = 1;
	rctx.cells = cells;
	assert_int_equal(wl->run_setup(&rctx, &err), 0);
	f.job.run_state = rctx.state;
	assert_int_equal(wl->setup(&f.job, &err), 0);
	struct bt_engine_cfg cfg = { .worker = wl->worker, .job = &f.job, .sample_ns = 10000000 };
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	assert_false(out.failed);
	snprintf(path, sizeof(path), "%s/out-sort", dir);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	p = mmap(NULL, 500 * BT_REC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	if (how == 0) {
		memcpy(tmp, p, BT_REC_SIZE);
		memcpy(p, p + 10 * BT_REC_SIZE, BT_REC_SIZE);
		memcpy(p + 10 * BT_REC_SIZE, tmp, BT_REC_SIZE);
	} else {
		p[40] = p[40] == 'a' ? 'b' : 'a';
	}
	munmap(p, 500 * BT_REC_SIZE);
	close(fd);
	assert_int_equal(wl->verify(&f.job, &err), -EIO);
	assert_non_null(strstr(err.msg, want));
	wl->teardown(&f.job);
	wl->run_teardown(&rctx);
	free(out.workers);
	/* The dir= was made by the test, so the workload leaves it, empty. */
	assert_int_equal(scratch_entries(dir), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_sort_verify_catches(void **state)
{
	spoil_and_verify(0, "out of order");
	spoil_and_verify(1, "not a permutation");
}

/* A foreign non-empty dir= is refused and untouched; symlinks are not followed. */
static void test_scratch_safety(void **state)
{
	static const char *const args[] = { "size=4096", NULL };
	char dir[64], sub[128], path[256], link[128], outside[256];
	struct bt_run *run;
	struct stat st;
	int fd;

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/precious", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(run_wl("copy", args, dir, &run), -EIO);
	assert_non_null(strstr(bt_run_results(run)->error, "not empty, and not a scratch directory"));
	bt_run_free(run);
	assert_int_equal(scratch_entries(dir), 1);
	assert_int_equal(stat(path, &st), 0);

	/* dir= a symlink: refused, the target untouched. */
	snprintf(link, sizeof(link), "%s-link", dir);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(run_wl("copy", args, link, &run), -EIO);
	assert_non_null(strstr(bt_run_results(run)->error, "a symlink"));
	bt_run_free(run);
	assert_int_equal(scratch_entries(dir), 1);
	assert_int_equal(unlink(link), 0);

	/* A missing dir= is made, then removed with everything in it. */
	snprintf(sub, sizeof(sub), "%s/new", dir);
	assert_int_equal(run_wl("copy", args, sub, &run), 0);
	all_ok(run, 1);
	bt_run_free(run);
	assert_int_equal(lstat(sub, &st), -1);

	/* keep=1: left with the marker; a symlink put inside to a file outside is removed as a link. */
	{
		static const char *const kargs[] = { "size=4096", "keep=1", NULL };

		assert_int_equal(run_wl("copy", kargs, sub, &run), 0);
		bt_run_free(run);
	}
	assert_true(scratch_entries(sub) >= 2);
	snprintf(path, sizeof(path), "%s/.benchtop-scratch", sub);
	assert_int_equal(stat(path, &st), 0);
	snprintf(outside, sizeof(outside), "%s/precious", dir);
	snprintf(path, sizeof(path), "%s/evil", sub);
	assert_int_equal(symlink(outside, path), 0);
	assert_int_equal(run_wl("copy", args, sub, &run), 0);
	bt_run_free(run);
	assert_int_equal(scratch_entries(sub), 0);
	assert_int_equal(stat(outside, &st), 0);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(unlink(outside), 0);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * keep=1 then the same dir=: a file with the bytes the seed makes is reused
 * (same inode, nothing rewritten), and its digests are right (sort
 * verifies against them); a file that differs is generated again.
 */
static void test_keep_reuses(void **state)
{
	static const char *const args[] = { "method=qsort", "records=1001", "keep=1", NULL };
	char dir[64], path[128];
	struct bt_run *run;
	struct stat st0, st1;
	unsigned char c, c0;
	int fd;

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/rec-1001-s1", dir);
	assert_int_equal(run_wl("sort", args, dir, &run), 0);
	all_ok(run, 1);
	bt_run_free(run);
	assert_int_equal(stat(path, &st0), 0);
	assert_int_equal(run_wl("sort", args, dir, &run), 0);
	all_ok(run, 1);
	bt_run_free(run);
	assert_int_equal(stat(path, &st1), 0);
	assert_true(st1.st_ino == st0.st_ino && st1.st_mtim.tv_sec == st0.st_mtim.tv_sec &&
		    st1.st_mtim.tv_nsec == st0.st_mtim.tv_nsec);

	/* One byte changed (the same size): generated afresh, and correct again. */
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &c0, 1, 6400), 1);
	c = c0 ^ 1;
	assert_int_equal(pwrite(fd, &c, 1, 6400), 1);
	close(fd);
	assert_int_equal(run_wl("sort", args, dir, &run), 0);
	all_ok(run, 1);
	bt_run_free(run);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &c, 1, 6400), 1);
	close(fd);
	assert_int_equal(c, c0);
	{
		static const char *const last[] = { "method=qsort", "records=1001", NULL };

		/* Without keep= the run removes what it made, the reused file too. */
		assert_int_equal(run_wl("sort", last, dir, &run), 0);
		all_ok(run, 1);
		bt_run_free(run);
	}
	assert_int_equal(scratch_entries(dir), 0);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * ramfs has no direct I/O on any kernel (tmpfs has since Linux 6.6): the
 * run fails with the one-line refusal and leaves nothing there.
 */
static void test_direct_refused(void **state)
{
	static const char *const args[] = { "size=8192", "buffer=4K", "io=direct", NULL };
	char mnt[64], sub[128];
	struct bt_run *run;
	const char *e;

	if (!scratch_mount("ramfs", "", mnt, sizeof(mnt), "files"))
		skip();
	snprintf(sub, sizeof(sub), "%s/s", mnt);
	assert_int_equal(run_wl("copy", args, sub, &run), -EIO);
	e = bt_run_results(run)->error;
	assert_non_null(strstr(e, "O_DIRECT: "));
	assert_non_null(strstr(e, " is on ramfs, which has no direct I/O"));
	bt_run_free(run);
	assert_int_equal(scratch_entries(mnt), 0);
	scratch_unmount(mnt);
}

/*
 * A 1 MiB tmpfs: an input that does not fit fails the run's setup, one that
 * fits but whose copy does not fails the rep; both say "No space left on
 * device" and leave the file system empty.
 */
static void test_full_disk(void **state)
{
	static const char *const big[] = { "size=2M", NULL };
	static const char *const half[] = { "size=700K", NULL };
	char mnt[64], sub[128];
	struct bt_run *run;
	const char *e;

	if (!scratch_mount("tmpfs", "size=1m", mnt, sizeof(mnt), "files"))
		skip();
	snprintf(sub, sizeof(sub), "%s/s", mnt);
	assert_int_equal(run_wl("copy", big, sub, &run), -EIO);
	e = bt_run_results(run)->error;
	print_message("%s\n", e);
	assert_non_null(strstr(e, "cannot write the 2097152-byte file"));
	assert_non_null(strstr(e, "No space left on device"));
	bt_run_free(run);
	assert_int_equal(scratch_entries(mnt), 0);

	assert_int_equal(run_wl("copy", half, sub, &run), -EIO);
	e = bt_run_results(run)->error;
	print_message("%s\n", e);
	assert_non_null(strstr(e, "out-copy: No space left on device"));
	bt_run_free(run);
	assert_int_equal(scratch_entries(mnt), 0);
	scratch_unmount(mnt);
}

static void test_descriptors(void **state)
{
	const char *names[] = { "copy", "convert", "grep", "sort", "scan" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct bt_workload *wl = bt_workload_find(names[i]);

		assert_non_null(wl);
		assert_string_equal(wl->group, "files");
		assert_null(wl->stop_default);
		assert_string_equal(bt_param_find(wl->params, wl->nparams, "dir")->def, "");
	}
	assert_int_equal(bt_workload_find("grep")->engines,
			 BT_ENGINES_THREADS | BT_ENGINES_PROCESSES);
	assert_true(bt_param_find(bt_workload_find("sort")->params, 8, "threads")->flags &
		    BT_PF_WORKERS);
}

/* scan: direct leaves none of the scanned file cached, buffered all of it (on a disk). */
static void test_scan(void **state)
{
	static const char *const args[] = { "mode=buffered,direct,dontneed", "size=2M", "hot=256K",
					     "buffer=64K", NULL };
	static const char *const wargs[] = { "cache=cold,warm", "size=1M", "hot=64K", NULL };
	char dir[64];
	struct bt_run *run;
	struct bt_results *res;
	int ms, mh;

	make_dir(dir, sizeof(dir));
	skip_without_direct(dir);
	assert_int_equal(run_wl("scan", args, dir, &run), 0);
	all_ok(run, 3);
	res = bt_run_results(run);
	ms = metric_index(res, "scan_resident");
	mh = metric_index(res, "hot");
	assert_true(res->reps[0].metric[ms] == 2.0 * 1048576);
	assert_true(res->reps[1].metric[ms] == 0);
	for (int i = 0; i < 3; i++) {
		assert_true(res->reps[i].metric[mh] == 256.0 * 1024);
		assert_true(res->reps[i].metric[metric_index(res, "scan_start")] == 0);
	}
	bt_run_free(run);

	/* cache=warm: the large file is all in the page cache when the read begins. */
	assert_int_equal(run_wl("scan", wargs, dir, &run), 0);
	all_ok(run, 2);
	res = bt_run_results(run);
	ms = metric_index(res, "scan_start");
	assert_true(res->reps[0].metric[ms] == 0);
	assert_true(res->reps[1].metric[ms] == 1048576.0);
	assert_true(res->reps[1].metric[metric_index(res, "scan_start_pct")] == 100.0);
	bt_run_free(run);
	assert_int_equal(scratch_entries(dir), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptors),
		cmocka_unit_test(test_copy_convert_methods),
		cmocka_unit_test(test_copy_direct),
		cmocka_unit_test(test_grep_counts),
		cmocka_unit_test(test_grep_engine_for),
		cmocka_unit_test(test_sort_methods),
		cmocka_unit_test(test_sort_verify_catches),
		cmocka_unit_test(test_scratch_safety),
		cmocka_unit_test(test_keep_reuses),
		cmocka_unit_test(test_direct_refused),
		cmocka_unit_test(test_full_disk),
		cmocka_unit_test(test_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
