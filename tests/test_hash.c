/*
 * test_hash.c - the hash workload through the real thread engine: every
 * digest reproduces its published test vectors when a file holding the
 * vector's input is streamed through it; blocks mode counts bytes exactly
 * under ops= and times every block with lat_every=1; a generated scratch
 * file leaves nothing behind and verifies against the digest of its
 * content; md4 is refused with the reason when OpenSSL's legacy provider
 * cannot be loaded (OPENSSL_MODULES pointing at an empty directory, in a
 * child process, since a loaded provider stays loaded); through the runner,
 * mode=stream puts the bytes resident at each rep's start and the file's
 * size into the rep's typed metrics.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "scratch_fixture.h"

#include <openssl/evp.h>

#include "engines/engine.h"
#include "engines/runner.h"
#include "workloads/registry.h"

#include "wl_fixture.h"

#define fx_init(f, kv) fx_init_wl((f), "hash", (kv))

/*
 * check, setup, run (ops= or to the end of the fixed work), verify,
 * teardown. Returns verify's code with its message in msg; *ops_out and
 * *lat_out get the ops and the latencies recorded (lat_every=1).
 */
static int run(struct fx *f, uint64_t ops, int want_workers, char *msg, uint64_t *ops_out,
	       uint64_t *lat_out)
{
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };
	int rc;

	if (f->wl->check(f->pv, &err) != 0)
		fail_msg("check: %s", err.msg);
	f->job.ops = ops;
	f->job.lat_on = 1;
	if (f->wl->setup(&f->job, &err) != 0)
		fail_msg("setup: %s", err.msg);
	assert_int_equal(f->job.nworkers, want_workers);
	out.hist = bt_hist_new();
	assert_non_null(out.hist);
	struct bt_engine_cfg cfg = {
		.worker = f->wl->worker, .job = &f->job, .lat_on = 1, .lat_every = 1,
		.clock_cost_ns = 20, .sample_ns = 10000000,
	};
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	if (out.failed)
		fail_msg("worker failed: %s", err.msg);
	assert_false(out.cancelled);
	assert_true(out.ops == out.bytes);
	err.msg[0] = '\0';
	rc = f->wl->verify(&f->job, &err);
	snprintf(msg, BT_ERR_MAX, "%s", err.msg);
	f->wl->teardown(&f->job);
	assert_null(f->job.state);
	if (ops_out)
		*ops_out = out.ops;
	if (lat_out)
		*lat_out = out.hist->total;
	bt_hist_free(out.hist);
	free(out.workers);
	return rc;
}

static void make_tmpdir(char *dir, size_t n)
{
	snprintf(dir, n, "/tmp/bt-test-hash-XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(p, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
}

/*
 * Runs first, before anything in this process has loaded the legacy
 * provider: a child with OPENSSL_MODULES at an empty directory must get the
 * one-line refusal for algo=md4 (and for nothing else).
 */
static void test_md4_unavailable(void **state)
{
	char dir[64], msg[BT_ERR_MAX] = "";
	int pfd[2], status;
	pid_t pid;
	ssize_t n;

	make_tmpdir(dir, sizeof(dir));
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const char *md4[] = { "algo=md4", NULL }, *sha[] = { "algo=sha256", NULL };
		struct bt_err err = { "" };
		struct fx f;
		int rc, code = 0;

		close(pfd[0]);
		setenv("OPENSSL_MODULES", dir, 1);
		fx_init(&f, sha);
		if (f.wl->check(f.pv, &err) != 0)
			code = 2;
		fx_init(&f, md4);
		rc = f.wl->check(f.pv, &err);
		if (rc != -ENOTSUP)
			code = 3;
		/* setup refuses it the same way, leaving nothing */
		if (f.wl->setup(&f.job, &err) != -ENOTSUP || f.job.state != NULL)
			code = 4;
		if (write(pfd[1], err.msg, strlen(err.msg)) < 0)
			code = 5;
		_exit(code);
	}
	close(pfd[1]);
	n = read(pfd[0], msg, sizeof(msg) - 1);
	close(pfd[0]);
	assert_true(n > 0);
	msg[n] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(strncmp(msg, "algo=md4: unavailable: OpenSSL's legacy provider could not be loaded (",
				 strlen("algo=md4: unavailable: OpenSSL's legacy provider could not be loaded (")),
			 0);
	assert_non_null(strstr(msg, dir));
	assert_int_equal(msg[strlen(msg) - 1], ')');
	assert_int_equal(rmdir(dir), 0);
}

/*
 * The published vectors of every digest, through the stream path: a file
 * with "abc" (in 1-byte chunks, so every chunk is one update) and an empty
 * file must give exactly the vector as the digest in the verify text.
 */
static void test_vectors_every_algo(void **state)
{
	static const struct {
		const char *algo, *empty, *abc;
	} v[] = {
		{ "md5", "d41d8cd98f00b204e9800998ecf8427e", "900150983cd24fb0d6963f7d28e17f72" },
		{ "sha1", "da39a3ee5e6b4b0d3255bfef95601890afd80709",
		  "a9993e364706816aba3e25717850c26c9cd0d89d" },
		{ "sha224", "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f",
		  "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7" },
		{ "sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "sha384",
		  "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
		  "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7" },
		{ "sha512",
		  "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
		  "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f" },
		{ "sha3-256", "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a",
		  "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532" },
		{ "blake2b512",
		  "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce",
		  "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923" },
		{ "md4", "31d6cfe0d16ae931b73c59d7e0c089c0", "a448017aaf21d8525fc10ae87aa6729d" },
	};
	char dir[64], abc[96], empty[96], algo[32], fabc[128], fempty[128], msg[BT_ERR_MAX];
	char want[200];

	make_tmpdir(dir, sizeof(dir));
	snprintf(abc, sizeof(abc), "%s/abc", dir);
	snprintf(empty, sizeof(empty), "%s/empty", dir);
	write_file(abc, "abc", 3);
	write_file(empty, "", 0);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const char *kv1[] = { "mode=stream", "chunk=1", algo, fabc, NULL };
		const char *kv2[] = { "mode=stream", algo, fempty, "threads=2", NULL };
		uint64_t ops, lat;
		struct fx f;

		snprintf(algo, sizeof(algo), "algo=%s", v[i].algo);
		snprintf(fabc, sizeof(fabc), "file=%s", abc);
		snprintf(fempty, sizeof(fempty), "file=%s", empty);
		fx_init(&f, kv1);
		if (strcmp(v[i].algo, "md4") == 0) {
			struct bt_err err = { "" };

			if (f.wl->check(f.pv, &err) == -ENOTSUP) {
				print_message("md4 not tested: %s\n", err.msg);
				continue;
			}
		}
		assert_int_equal(run(&f, 0, 1, msg, &ops, &lat), 0);
		assert_true(ops == 3);
		assert_true(lat == 3);	/* one latency per 1-byte chunk */
		snprintf(want, sizeof(want), "; digest %s", v[i].abc);
		if (strstr(msg, want) == NULL)
			fail_msg("%s \"abc\": %s", v[i].algo, msg);
		snprintf(want, sizeof(want), "provider %s;",
			 strcmp(v[i].algo, "md4") == 0 ? "legacy" : "default");
		if (strstr(msg, want) == NULL)
			fail_msg("%s: %s", v[i].algo, msg);

		fx_init(&f, kv2);
		assert_int_equal(run(&f, 0, 2, msg, &ops, NULL), 0);
		assert_true(ops == 0);
		snprintf(want, sizeof(want), "; digest %s", v[i].empty);
		if (strstr(msg, want) == NULL)
			fail_msg("%s \"\": %s", v[i].algo, msg);
	}
	assert_int_equal(unlink(abc), 0);
	assert_int_equal(unlink(empty), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* A user file over several chunks and threads digests to what OpenSSL says in one call. */
static void test_stream_user_file(void **state)
{
	char dir[64], path[96], fkv[128], msg[BT_ERR_MAX], want[200];
	const char *kv[] = { "mode=stream", "algo=sha512", "chunk=4K", "threads=3", fkv,
			     "cache=cold", NULL };
	unsigned char *data = malloc(100003), d[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	uint64_t ops;
	struct fx f;

	assert_non_null(data);
	for (size_t i = 0; i < 100003; i++)
		data[i] = (unsigned char)(i * 7 + (i >> 9));
	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/data", dir);
	write_file(path, data, 100003);
	assert_int_equal(EVP_Digest(data, 100003, d, &len, EVP_sha512(), NULL), 1);
	strcpy(want, "; digest ");
	for (unsigned i = 0; i < len; i++)
		snprintf(want + strlen(want), 3, "%02x", d[i]);
	snprintf(fkv, sizeof(fkv), "file=%s", path);
	fx_init(&f, kv);
	assert_int_equal(run(&f, 0, 3, msg, &ops, NULL), 0);
	assert_true(ops == 3 * 100003ull);
	if (strstr(msg, want) == NULL)
		fail_msg("%s", msg);
	/* the user's file is read, never changed or removed */
	assert_int_equal(access(path, R_OK), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	free(data);
}

/*
 * The generated scratch file: verified against the digest of what was
 * written, warm means fully resident, and nothing is left in $TMPDIR (the
 * file is unlinked as soon as it is open), neither during nor after the run.
 */
static void test_stream_scratch(void **state)
{
	const char *warm[] = { "mode=stream", "algo=sha1", "size=3M", "chunk=64K", "threads=2",
			       NULL };
	const char *cold[] = { "mode=stream", "algo=md5", "size=3M", "chunk=1M", "cache=cold",
			       NULL };
	const char *other[] = { "mode=stream", "algo=md5", "size=1000001", "chunk=333333",
				NULL };
	char dir[64], msg[BT_ERR_MAX];
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	uint64_t ops;
	struct fx f;

	make_tmpdir(dir, sizeof(dir));
	setenv("TMPDIR", dir, 1);
	fx_init(&f, warm);
	assert_int_equal(run(&f, 0, 2, msg, &ops, NULL), 0);
	assert_true(ops == 2 * 3 * 1048576ull);
	if (strstr(msg, "; digest ") == NULL)
		fail_msg("%s", msg);
	assert_int_equal(scratch_entries(dir), 0);
	/* the same scratch file, another digest (computed from the file), cold */
	fx_init(&f, cold);
	assert_int_equal(run(&f, 0, 1, msg, &ops, NULL), 0);
	assert_true(ops == 3 * 1048576ull);
	if (strstr(msg, "ok: md5, ") == NULL || strstr(msg, "; digest ") == NULL)
		fail_msg("%s", msg);
	/* a new size makes a new file; an op can be a partial chunk */
	fx_init(&f, other);
	assert_int_equal(run(&f, 0, 1, msg, &ops, NULL), 0);
	assert_true(ops == 1000001);
	assert_int_equal(scratch_entries(dir), 0);
	assert_int_equal(rmdir(dir), 0);
	if (saved) {
		setenv("TMPDIR", saved, 1);
		free(saved);
	} else {
		unsetenv("TMPDIR");
	}
}

/* ops= in bytes: 64-byte blocks split exactly over 2 workers; every block timed. */
static void test_blocks_exact(void **state)
{
	const char *apis[] = { "api=oneshot", "api=ctx" };
	const char *algos[] = { "algo=sha256", "algo=blake2b512", "algo=sha3-256" };
	char msg[BT_ERR_MAX];

	for (int a = 0; a < 2; a++) {
		for (int g = 0; g < 3; g++) {
			const char *kv[] = { "threads=2", "block=64", apis[a], algos[g], NULL };
			uint64_t ops, lat;
			struct fx f;

			fx_init(&f, kv);
			assert_int_equal(run(&f, 64 * 2000, 2, msg, &ops, &lat), 0);
			assert_true(ops == 64 * 2000);
			assert_true(lat == 2000);
			if (strncmp(msg, "ok: ", 4) != 0 || strstr(msg, "provider default; cpu ") == NULL)
				fail_msg("%s", msg);
		}
	}
}

/* A quota that is not a whole number of blocks ends after the block that reaches it. */
static void test_blocks_partial_quota(void **state)
{
	const char *kv[] = { "threads=1", "block=1000", "algo=md5", NULL };
	char msg[BT_ERR_MAX];
	uint64_t ops, lat;
	struct fx f;

	fx_init(&f, kv);
	assert_int_equal(run(&f, 2500, 1, msg, &ops, &lat), 0);
	assert_true(ops == 3000);
	assert_true(lat == 3);
}

static void test_check(void **state)
{
	const char *blocks_file[] = { "file=/etc/hostname", NULL };
	const char *missing[] = { "mode=stream", "file=/nonexistent/bt-file", NULL };
	const char *dir[] = { "mode=stream", "file=/tmp", NULL };
	struct bt_err err = { "" };
	struct fx f;

	fx_init(&f, blocks_file);
	assert_int_equal(f.wl->check(f.pv, &err), -EINVAL);
	assert_string_equal(err.msg, "file=/etc/hostname: only with mode=stream");
	fx_init(&f, missing);
	assert_int_equal(f.wl->check(f.pv, &err), -EINVAL);
	assert_string_equal(err.msg, "file=/nonexistent/bt-file: No such file or directory");
	assert_int_equal(f.wl->setup(&f.job, &err), -EINVAL);
	assert_null(f.job.state);
	fx_init(&f, dir);
	assert_int_equal(f.wl->check(f.pv, &err), -EINVAL);
	assert_string_equal(err.msg, "file=/tmp: not a regular file");
}

/* The metric index of name in the results' declarations; fails when absent. */
static int metric_index(const struct bt_results *res, const char *name)
{
	for (int m = 0; m < res->nmetrics; m++)
		if (strcmp(res->metrics[m].name, name) == 0)
			return m;
	fail_msg("no metric %s", name);
	return -1;
}

/*
 * Through the runner (plan, reps, results): every rep of a stream cell has
 * metric file = the file's size and resident <= it; warm reps have it all
 * resident, and every rep leaves it all resident (resident_end); a cold rep's figure is whatever the file system kept after the
 * drop (on a disk, normally 0, but not asserted: some cannot drop).
 */
static void test_stream_metrics(void **state)
{
	static const char *const args[] = { "mode=stream", "size=2M", "chunk=256K",
					     "cache=warm,cold", "reps=2", "warmup=0", NULL };
	const struct bt_workload *wl = bt_workload_find("hash");
	char dir[64];
	struct bt_err err = { "" };
	struct bt_plan pl;
	struct bt_run *run;
	struct bt_results *res;
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	int mres, mfile, mpct;

	make_tmpdir(dir, sizeof(dir));
	setenv("TMPDIR", dir, 1);
	assert_int_equal(bt_run_plan_init(&pl, wl, &err), 0);
	for (int i = 0; args[i] != NULL; i++)
		if (bt_plan_set_arg(&pl, args[i], &err) < 0)
			fail_msg("%s: %s", args[i], err.msg);
	assert_int_equal(bt_run_plan_finalize(&pl, wl, &err), 0);
	assert_int_equal(bt_run_validate(wl, &pl, &err), 0);
	assert_int_equal(bt_run_start(&run, wl, &pl, NULL, &err), 0);
	assert_int_equal(bt_run_wait(run), 0);
	res = bt_run_results(run);
	assert_string_equal(res->status, "complete");
	assert_int_equal(res->nmetrics, 5);
	mres = metric_index(res, "resident");
	mfile = metric_index(res, "file");
	mpct = metric_index(res, "resident_pct");
	assert_string_equal(res->metrics[mres].unit, "bytes");
	assert_int_equal(res->metrics[mres].kind, BT_MK_GAUGE);
	assert_int_equal(res->metrics[mfile].kind, BT_MK_GAUGE);
	assert_int_equal(res->metrics[mpct].kind, BT_MK_RATIO);
	assert_string_equal(res->metrics[mpct].num, "resident");
	assert_string_equal(res->metrics[mpct].den, "file");
	assert_int_equal(res->nreps, 4);
	for (int i = 0; i < res->nreps; i++) {
		const struct bt_rep *r = &res->reps[i];

		assert_true(r->ok);
		assert_true(r->metric[mfile] == 2.0 * 1048576);
		assert_true(r->metric[mres] <= r->metric[mfile]);
		/* A pass reads the whole file through the page cache, warm or cold. */
		assert_true(r->metric[metric_index(res, "resident_end")] == r->metric[mfile]);
		if (r->cell == 0)
			assert_true(r->metric[mres] == r->metric[mfile]);
		else
			print_message("cold rep: %.0f of %.0f bytes resident after the drop\n",
				      r->metric[mres], r->metric[mfile]);
	}
	bt_run_free(run);
	bt_plan_destroy(&pl);
	if (saved) {
		setenv("TMPDIR", saved, 1);
		free(saved);
	} else {
		unsetenv("TMPDIR");
	}
	assert_int_equal(scratch_entries(dir), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_descriptor(void **state)
{
	const struct bt_workload *wl = bt_workload_find("hash");
	const char *names[] = { "threads", "algo", "block", "api", "mode", "file", "size",
				"chunk", "cache" };
	struct bt_value v;
	struct bt_err err;

	assert_non_null(wl);
	assert_string_equal(wl->group, "crypto");
	assert_string_equal(wl->unit, "bytes");
	assert_string_equal(wl->stop_default, "duration=1s");
	assert_null(wl->unavailable);
	assert_int_equal(wl->nparams, 9);
	for (size_t i = 0; i < 9; i++)
		assert_string_equal(wl->params[i].name, names[i]);
	assert_int_equal(wl->params[1].kind, BT_P_ENUM);
	assert_int_equal(wl->params[2].kind, BT_P_INT);
	assert_int_equal(bt_param_parse(&wl->params[1], "blake2b512", &v, &err), 0);
	assert_int_equal(v.i, 7);
	assert_int_equal(bt_param_parse(&wl->params[2], "16384", &v, &err), 0);
	assert_string_equal(v.text, "16384");
	assert_int_equal(bt_param_parse(&wl->params[2], "0", &v, &err), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* first: nothing may have loaded the legacy provider yet */
		cmocka_unit_test(test_md4_unavailable),
		cmocka_unit_test(test_descriptor),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_vectors_every_algo),
		cmocka_unit_test(test_stream_user_file),
		cmocka_unit_test(test_stream_scratch),
		cmocka_unit_test(test_stream_metrics),
		cmocka_unit_test(test_blocks_exact),
		cmocka_unit_test(test_blocks_partial_quota),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
