/*
 * test_cipher.c - GOST 28147-89 (gost89.c) against RFC 8891's published
 * values and against a plain nibble-by-nibble implementation written here;
 * the cipher workload through the real thread engine: every mode at 1-4
 * threads, on buffers whose unit count is no multiple of the thread count,
 * must produce the serial ciphertext (verify compares it), the OpenMP team
 * has exactly threads= members, each pinned where team_cpus says (and a
 * smaller team, forced by OMP_THREAD_LIMIT in a child process, fails the
 * rep), and a pin= policy in a plan reaches the team through the runner.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "engines/engine.h"
#include "engines/runner.h"
#include "workloads/gost89.h"
#include "workloads/registry.h"

/* ---- GOST 28147-89 ------------------------------------------------------ */

static const uint32_t rfc_key[8] = {
	0xffeeddcc, 0xbbaa9988, 0x77665544, 0x33221100,
	0xf0f1f2f3, 0xf4f5f6f7, 0xf8f9fafb, 0xfcfdfeff,
};

/* RFC 8891's t: each nibble through its own S-box, no tables. */
static uint32_t ref_t(uint32_t a)
{
	uint32_t r = 0;

	for (int i = 0; i < 8; i++)
		r |= (uint32_t)bt_gost89_sbox_z[i][(a >> (4 * i)) & 15] << (4 * i);
	return r;
}

static uint32_t ref_g(uint32_t k, uint32_t a)
{
	uint32_t x = ref_t(a + k);

	return x << 11 | x >> 21;
}

/* RFC 8891 section 5.1 literally: G[K1]..G[K31] with the swap, then G*[K32]. */
static uint64_t ref_encrypt(const uint32_t key[8], uint64_t b)
{
	uint32_t a1 = (uint32_t)(b >> 32), a0 = (uint32_t)b;

	for (int i = 0; i < 31; i++) {
		uint32_t k = i < 24 ? key[i % 8] : key[7 - i % 8];
		uint32_t n = a1 ^ ref_g(k, a0);

		a1 = a0;
		a0 = n;
	}
	a1 ^= ref_g(key[0], a0);
	return (uint64_t)a1 << 32 | a0;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* The reference above reproduces RFC 8891 appendix A.1 and A.2 values. */
static void test_gost_reference_rfc(void **state)
{
	assert_true(ref_t(0xfdb97531) == 0x2a196f34);
	assert_true(ref_t(0x2a196f34) == 0xebd9f03a);
	assert_true(ref_t(0xebd9f03a) == 0xb039bb3d);
	assert_true(ref_t(0xb039bb3d) == 0x68695433);
	assert_true(ref_g(0x87654321, 0xfedcba98) == 0xfdcbc20c);
	assert_true(ref_g(0x87654321, 0xfdcbc20c) == 0x7e791a4b);
	assert_true(ref_encrypt(rfc_key, 0xfedcba9876543210ull) == 0x4ee901e5c2d8ca3dull);
}

/* The table-driven cipher: the published vector, decryption, and the reference on random input. */
static void test_gost_vector(void **state)
{
	struct bt_gost89 g;
	uint64_t x = 88172645463325252ull;

	bt_gost89_init(&g, rfc_key, bt_gost89_sbox_z);
	assert_true(bt_gost89_encrypt64(&g, 0xfedcba9876543210ull) == 0x4ee901e5c2d8ca3dull);
	assert_true(bt_gost89_decrypt64(&g, 0x4ee901e5c2d8ca3dull) == 0xfedcba9876543210ull);
	for (int i = 0; i < 200; i++) {
		uint32_t key[8];
		uint64_t b = rnd(&x), c;

		for (int j = 0; j < 8; j++)
			key[j] = (uint32_t)rnd(&x);
		bt_gost89_init(&g, key, bt_gost89_sbox_z);
		c = bt_gost89_encrypt64(&g, b);
		assert_true(c == ref_encrypt(key, b));
		assert_true(bt_gost89_decrypt64(&g, c) == b);
	}
}

/* ECB on bytes: each block is the number stored little-endian; in place works. */
static void test_gost_ecb_bytes(void **state)
{
	static const uint8_t pt[8] = { 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe };
	static const uint8_t ct[8] = { 0x3d, 0xca, 0xd8, 0xc2, 0xe5, 0x01, 0xe9, 0x4e };
	struct bt_gost89 g;
	uint8_t buf[24], out[24];

	bt_gost89_init(&g, rfc_key, bt_gost89_sbox_z);
	for (int i = 0; i < 3; i++)
		memcpy(buf + 8 * i, pt, 8);
	bt_gost89_ecb_encrypt(&g, buf, out, 3);
	for (int i = 0; i < 3; i++)
		assert_memory_equal(out + 8 * i, ct, 8);
	bt_gost89_ecb_encrypt(&g, buf, buf, 3);
	assert_memory_equal(buf, out, 24);
	bt_gost89_ecb_decrypt(&g, buf, buf, 3);
	for (int i = 0; i < 3; i++)
		assert_memory_equal(buf + 8 * i, pt, 8);
}

/* ---- the workload ----------------------------------------------------- */

extern char **environ;

#include "wl_fixture.h"

#define fx_init(f, kv) fx_init_wl((f), "cipher", (kv))

/* The rep-level metrics the last run()'s verify set (cipher.c: team, cpus, clock, ...). */
static uint64_t last_metric[BT_METRICS_MAX];

/* Index of cipher's metric called name. */
static int metric_index(const char *name)
{
	const struct bt_workload *wl = bt_workload_find("cipher");

	for (size_t m = 0; m < wl->nmetrics; m++)
		if (strcmp(wl->metrics[m].name, name) == 0)
			return (int)m;
	fail_msg("no metric %s", name);
	return -1;
}

/* One rep: setup, one pass, verify (its code; message in msg, metrics in last_metric), teardown. */
static int run(struct fx *f, const int *team_cpus, uint64_t want_ops, char *msg)
{
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };
	int rc;

	if (f->wl->check(f->pv, &err) != 0)
		fail_msg("check: %s", err.msg);
	if (f->wl->setup(&f->job, &err) != 0)
		fail_msg("setup: %s", err.msg);
	assert_int_equal(f->job.nworkers, 1);
	f->job.team_cpus = team_cpus;
	struct bt_engine_cfg cfg = {
		.worker = f->wl->worker, .job = &f->job, .clock_cost_ns = 20,
		.sample_ns = 10000000,
	};
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	if (out.failed)
		fail_msg("worker failed: %s", err.msg);
	assert_true(out.ops == want_ops);
	assert_true(out.bytes == want_ops);
	err.msg[0] = '\0';
	rc = f->wl->verify(&f->job, &err);
	snprintf(msg, BT_ERR_MAX, "%s", err.msg);
	memcpy(last_metric, f->job.metric, sizeof(last_metric));
	f->wl->teardown(&f->job);
	assert_null(f->job.state);
	free(out.workers);
	return rc;
}

/*
 * Every algo x mode x threads 1..4, with 1001 blocks (no multiple of 2, 3
 * or 4) as single-block units and as 3-block units (the last one short):
 * the same ciphertext as one bulk serial encryption.
 */
static void test_same_ciphertext(void **state)
{
	static const char *const algos[] = { "gost89", "aes-128-ecb" };
	static const char *const modes[] = { "serial", "omp-for", "omp-sections" };
	static const int bs[] = { 8, 16 };

	for (int a = 0; a < 2; a++) {
		for (int m = 0; m < 3; m++) {
			for (int t = 1; t <= 4; t++) {
				for (int gr = 0; gr < 2; gr++) {
					char av[32], mv[32], tv[32], sv[32], gv[32], msg[BT_ERR_MAX];
					const char *kv[] = { av, mv, tv, sv, gv, NULL };
					struct fx f;

					snprintf(av, sizeof(av), "algo=%s", algos[a]);
					snprintf(mv, sizeof(mv), "mode=%s", modes[m]);
					snprintf(tv, sizeof(tv), "threads=%d", t);
					snprintf(sv, sizeof(sv), "size=%d", 1001 * bs[a]);
					snprintf(gv, sizeof(gv), "grain=%d", gr ? 3 * bs[a] : 0);
					fx_init(&f, kv);
					if (run(&f, NULL, 1001ull * (uint64_t)bs[a], msg) != 0)
						fail_msg("%s %s %s %s: %s", av, mv, tv, gv, msg);
					/* A correct rep says nothing; how it ran is in its metrics. */
					assert_string_equal(msg, "");
					assert_int_equal(last_metric[metric_index("team")], m ? t : 1);
					assert_int_equal(last_metric[metric_index("max_sections")] >= 1,
							 m == 2);
				}
			}
		}
	}
}

/* Output that was not encrypted does not verify (verify really compares). */
static void test_verify_catches(void **state)
{
	const char *kv[] = { "algo=gost89", "size=8008", NULL };
	struct bt_err err = { "" };
	struct fx f;

	fx_init(&f, kv);
	assert_int_equal(f.wl->setup(&f.job, &err), 0);
	assert_int_equal(f.wl->verify(&f.job, &err), -EIO);
	assert_string_equal(err.msg, "gost89 serial: ciphertext differs from the serial reference "
				     "(1001 of 1001 units not encrypted)");
	f.wl->teardown(&f.job);
	assert_null(f.job.state);
}

/* The team has threads= members, each on the CPU team_cpus gives it. */
static void test_team_size_and_pinning(void **state)
{
	static const char *const modes[] = { "mode=omp-for", "mode=omp-sections" };
	cpu_set_t set;
	int cpu = -1, cpus[4];

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &set))
			cpu = c;	/* the lowest allowed */
	assert_true(cpu >= 0);
	for (int i = 0; i < 4; i++)
		cpus[i] = cpu;
	for (int m = 0; m < 2; m++) {
		const char *kv[] = { "algo=gost89", "threads=3", modes[m], "size=64K", NULL };
		const char *kv4[] = { "algo=aes-128-ecb", "threads=4", modes[m], "size=64K", NULL };
		char msg[BT_ERR_MAX];
		struct fx f;

		fx_init(&f, kv);
		assert_int_equal(run(&f, NULL, 65536, msg), 0);
		assert_int_equal(last_metric[metric_index("team")], 3);
		/* Every team thread pinned to one CPU: the team started on exactly one. */
		fx_init(&f, kv);
		assert_int_equal(f.wl->check(f.pv, NULL), 0);
		assert_int_equal(run(&f, cpus, 65536, msg), 0);
		assert_string_equal(msg, "");
		assert_int_equal(last_metric[metric_index("team")], 3);
		assert_int_equal(last_metric[metric_index("cpus")], 1);
		fx_init(&f, kv4);
		assert_int_equal(run(&f, cpus, 65536, msg), 0);
		assert_int_equal(last_metric[metric_index("team")], 4);
		assert_int_equal(last_metric[metric_index("cpus")], 1);
	}
}

/*
 * In a child started with OMP_THREAD_LIMIT=2 (libgomp reads it once, at
 * load): threads=3 must fail the rep with the reason, not run on 2.
 * Returns the child's exit status: 0 when it did.
 */
static int team_limit_child(void)
{
	const char *kv[] = { "algo=gost89", "mode=omp-for", "threads=3", "size=8K", NULL };
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };
	struct fx f;
	int rc = 0;

	fx_init(&f, kv);
	if (f.wl->setup(&f.job, &err) != 0)
		return 2;
	struct bt_engine_cfg cfg = { .worker = f.wl->worker, .job = &f.job, .sample_ns = 10000000 };
	if (bt_engine_run(&cfg, &out, &err) != 0 || !out.failed || out.ops != 0)
		rc = 3;
	else if (strcmp(err.msg, "OpenMP ran a team of 2 threads, not threads=3 (OMP_THREAD_LIMIT?)") != 0)
		rc = 4;
	f.wl->teardown(&f.job);
	free(out.workers);
	return rc;
}

static void test_team_size_refused(void **state)
{
	char self[] = "/proc/self/exe", arg[] = "team-limit-child";
	char *argv[] = { self, arg, NULL };
	int status;
	pid_t pid;

	setenv("OMP_THREAD_LIMIT", "2", 1);
	assert_int_equal(posix_spawn(&pid, self, NULL, NULL, argv, environ), 0);
	unsetenv("OMP_THREAD_LIMIT");
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Through the runner: setup asks for a team, the plan's pin= policy reaches it. */
static void test_runner_pins_team(void **state)
{
	const struct bt_workload *wl = bt_workload_find("cipher");
	char pin[64];
	const char *args[] = { "algo=gost89", "mode=omp-for", "threads=2", "size=8K", "reps=1",
			       "warmup=0", pin, NULL };
	struct bt_plan pl;
	struct bt_run *run;
	struct bt_err err = { "" };
	struct bt_results *res;
	cpu_set_t set;
	int cpu = -1;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &set))
			cpu = c;
	snprintf(pin, sizeof(pin), "pin=list:%d", cpu);
	assert_int_equal(bt_run_plan_init(&pl, wl, &err), 0);
	for (int i = 0; args[i] != NULL; i++)
		if (bt_plan_set_arg(&pl, args[i], &err) < 0)
			fail_msg("%s: %s", args[i], err.msg);
	assert_int_equal(bt_run_plan_finalize(&pl, wl, &err), 0);
	assert_int_equal(bt_run_validate(wl, &pl, &err), 0);
	assert_int_equal(bt_run_start(&run, wl, &pl, NULL, &err), 0);
	assert_int_equal(bt_run_wait(run), 0);
	res = bt_run_results(run);
	assert_int_equal(res->nreps, 1);
	assert_true(res->reps[0].ok);
	assert_string_equal(res->reps[0].verify, "ok");
	assert_int_equal(res->nmetrics, (int)wl->nmetrics);
	assert_string_equal(res->metrics[metric_index("team")].name, "team");
	assert_true(res->reps[0].metric[metric_index("team")] == 2);
	assert_true(res->reps[0].metric[metric_index("cpus")] == 1);
	assert_true(res->reps[0].ops == 8192);
	bt_run_free(run);
	bt_plan_destroy(&pl);
}

static void test_check(void **state)
{
	const char *bad_size[] = { "size=100", NULL };
	const char *bad_grain[] = { "algo=gost89", "grain=12", NULL };
	const char *big_grain[] = { "algo=gost89", "size=64", "grain=72", NULL };
	const char *ok[] = { "algo=gost89", "size=104", NULL };
	const char *big_buffer[] = { "size=16K", "buffer=32K", NULL };
	const char *odd_buffer[] = { "size=64K", "grain=64", "buffer=1000", NULL };
	struct bt_err err = { "" };
	struct fx f;

	fx_init(&f, bad_size);
	assert_int_equal(f.wl->check(f.pv, &err), -EINVAL);
	assert_string_equal(err.msg, "size=100: must be a multiple of aes-128-ecb's 16-byte block");
	fx_init(&f, bad_grain);
	assert_int_equal(f.wl->check(f.pv, &err), -EINVAL);
	assert_string_equal(err.msg, "grain=12: must be 0 or a multiple of gost89's 8-byte block");
	fx_init(&f, big_grain);
	assert_int_equal(f.wl->check(f.pv, &err), -EINVAL);
	assert_string_equal(err.msg, "grain=72: larger than size=64");
	fx_init(&f, ok);
	assert_int_equal(f.wl->check(f.pv, &err), 0);
	fx_init(&f, big_buffer);
	assert_int_equal(f.wl->check(f.pv, &err), -EINVAL);
	assert_string_equal(err.msg, "buffer=32K: must be at most size=16K, and both multiples of the "
				     "16-byte unit (grain=, else the block)");
	fx_init(&f, odd_buffer);
	assert_int_equal(f.wl->check(f.pv, &err), -EINVAL);
	assert_string_equal(err.msg, "buffer=1000: must be at most size=64K, and both multiples of the "
				     "64-byte unit (grain=, else the block)");
}

/*
 * buffer= (openssl speed's way): every algo x mode x threads 1..4 re-encrypts
 * one small block per thread, counts size= bytes, and verifies each
 * thread's block against the serial ciphertext of the input block.
 */
static void test_buffer(void **state)
{
	static const char *const algos[] = { "gost89", "aes-128-ecb" };
	static const char *const modes[] = { "serial", "omp-for", "omp-sections" };

	for (int a = 0; a < 2; a++) {
		for (int m = 0; m < 3; m++) {
			for (int t = 1; t <= 4; t++) {
				for (int gr = 0; gr < 2; gr++) {
					char av[32], mv[32], tv[32], gv[32], msg[BT_ERR_MAX];
					const char *kv[] = { av, mv, tv, "size=64K", "buffer=1K", gv, NULL };
					struct fx f;

					snprintf(av, sizeof(av), "algo=%s", algos[a]);
					snprintf(mv, sizeof(mv), "mode=%s", modes[m]);
					snprintf(tv, sizeof(tv), "threads=%d", t);
					snprintf(gv, sizeof(gv), "grain=%d", gr ? 64 : 0);
					fx_init(&f, kv);
					if (run(&f, NULL, 65536, msg) != 0)
						fail_msg("%s %s %s %s buffer=1K: %s", av, mv, tv, gv, msg);
					assert_string_equal(msg, "");
				}
			}
		}
	}
}

/* With buffer=, output that was not encrypted does not verify either. */
static void test_buffer_verify_catches(void **state)
{
	const char *kv[] = { "algo=gost89", "size=8K", "buffer=1K", NULL };
	struct bt_err err = { "" };
	struct fx f;

	fx_init(&f, kv);
	assert_int_equal(f.wl->setup(&f.job, &err), 0);
	assert_int_equal(f.wl->verify(&f.job, &err), -EIO);
	assert_string_equal(err.msg, "gost89 serial buffer=1024: 0 units encrypted, not 1024");
	f.wl->teardown(&f.job);
	assert_null(f.job.state);
}

static void test_descriptor(void **state)
{
	const struct bt_workload *wl = bt_workload_find("cipher");
	const char *names[] = { "threads", "algo", "mode", "size", "grain", "buffer" };
	struct bt_value v;
	struct bt_err err;

	assert_non_null(wl);
	assert_string_equal(wl->group, "crypto");
	assert_string_equal(wl->unit, "bytes");
	assert_null(wl->stop_default);
	assert_int_equal(wl->nparams, 6);
	for (size_t i = 0; i < 6; i++)
		assert_string_equal(wl->params[i].name, names[i]);
	assert_int_equal(bt_param_parse(&wl->params[2], "omp-sections", &v, &err), 0);
	assert_int_equal(v.i, 2);
	assert_int_equal(bt_param_parse(&wl->params[3], wl->params[3].def, &v, &err), 0);
	assert_true(v.i == 100 << 20);
	assert_int_equal(bt_param_parse(&wl->params[0], "65", &v, &err), -EINVAL);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "team-limit-child") == 0)
		return team_limit_child();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gost_reference_rfc),
		cmocka_unit_test(test_gost_vector),
		cmocka_unit_test(test_gost_ecb_bytes),
		cmocka_unit_test(test_descriptor),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_verify_catches),
		cmocka_unit_test(test_same_ciphertext),
		cmocka_unit_test(test_buffer),
		cmocka_unit_test(test_buffer_verify_catches),
		cmocka_unit_test(test_team_size_and_pinning),
		cmocka_unit_test(test_team_size_refused),
		cmocka_unit_test(test_runner_pins_team),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
