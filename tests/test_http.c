/*
 * test_http.c - the http workload through the threads engine and all three
 * resource levels: exact request counts with an ops= quota against the
 * builtin server on every api (keep-alive, close, requests_per_conn, open
 * loop, idle connections), status classes and URL-file weights (a fixed
 * seed, so the chi-square bound is deterministic), a server that accepts
 * but never answers (every request a client-timo, nothing hangs), a closed
 * port (connrefused), a spawned nginx, and nginx missing from PATH.
 */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/which.h"
#include "engines/engine.h"
#include "workloads/registry.h"

#include "wl_fixture.h"

enum {
	M_CONNS, M_CONNECT, M_REPLIES, M_2XX, M_3XX, M_4XX, M_5XX, M_SERVICE, M_TIMEO, M_REFUSED,
	M_RESET, M_FDUNAVAIL, M_ADDRUNAVAIL, M_PROTO, M_SRV_USER, M_SRV_SYS
};

struct got {
	uint64_t ops, errors, m[BT_METRICS_MAX];
};

/* Run one cell (run, cell and rep levels) with an ops quota; the combined figures in g. */
static void run_http(const char *const *kv, uint64_t ops, struct got *g)
{
	struct bt_engine_out out = { 0 };
	struct bt_err err = { "" };
	struct fx f;

	fx_init_wl(&f, "http", kv);
	if (f.wl->check(f.pv, &err) != 0)
		fail_msg("check: %s", err.msg);
	const struct bt_value *const *cells[1] = { f.pv };
	struct bt_run_ctx run = { .ncells = 1, .cells = cells };

	if (f.wl->run_setup(&run, &err) != 0)
		fail_msg("run_setup: %s", err.msg);
	f.job.run_state = run.state;
	if (f.wl->cell_setup(&f.job, &err) != 0)
		fail_msg("cell_setup: %s", err.msg);
	f.job.ops = ops;
	f.job.lat_on = 1;
	assert_int_equal(f.wl->setup(&f.job, &err), 0);
	out.hist = bt_hist_new();
	struct bt_engine_cfg cfg = {
		.worker = f.wl->worker, .job = &f.job, .lat_on = 1, .lat_every = 1,
		.clock_cost_ns = 20, .sample_ns = 10000000,
		.metrics = f.wl->metrics, .nmetrics = (int)f.wl->nmetrics,
	};
	assert_int_equal(bt_engine_run(&cfg, &out, &err), 0);
	if (out.failed)
		fail_msg("run: %s", err.msg);
	assert_int_equal(f.wl->verify(&f.job, &err), 0);
	f.wl->teardown(&f.job);
	f.wl->cell_teardown(&f.job);
	f.wl->run_teardown(&run);
	assert_null(run.state);
	g->ops = out.ops;
	g->errors = out.errors;
	memcpy(g->m, out.metric, sizeof(g->m));
	assert_true(out.hist->total == g->m[M_REPLIES]);
	bt_hist_free(out.hist);
	free(out.workers);
}

static void builtin_exact(void **st)
{
	static const char *const apis[] = { "api=select", "api=poll", "api=epoll" };
	struct got g;

	(void)st;
	for (int i = 0; i < 3; i++) {
		const char *ka[] = { apis[i], "users=8", "threads=2", "idle=50", NULL };
		const char *cl[] = { apis[i], "users=4", "conn=new", NULL };

		run_http(ka, 2000, &g);
		assert_true(g.ops == 2000 && g.m[M_REPLIES] == 2000 && g.m[M_2XX] == 2000);
		assert_true(g.errors == 0);
		assert_true(g.m[M_CONNS] == 8);		/* keep-alive: one per user */
		run_http(cl, 300, &g);
		assert_true(g.m[M_REPLIES] == 300 && g.m[M_CONNS] == 300);
		assert_true(g.errors == 0);
	}
}

static void keepalive_limits(void **st)
{
	const char *rpc[] = { "users=1", "requests_per_conn=10", NULL };
	const char *open[] = { "rate=5000", "threads=2", "size=16K", NULL };
	const char *big[] = { "users=3", "size=1M", NULL };
	struct got g;

	(void)st;
	run_http(rpc, 100, &g);
	assert_true(g.m[M_REPLIES] == 100 && g.m[M_CONNS] == 10 && g.errors == 0);
	run_http(open, 500, &g);
	assert_true(g.m[M_REPLIES] == 500 && g.m[M_2XX] == 500 && g.errors == 0);
	run_http(big, 30, &g);
	assert_true(g.m[M_REPLIES] == 30 && g.errors == 0);
}

/* Status classes and weights: /status/N answered N by the builtin server. */
static void url_weights(void **st)
{
	char path[] = "/tmp/bt-urls-XXXXXX", kv[64];
	const char *lines = "# weights 3:1:2:2\n"
			    "http://example.invalid/status/200\n/status/200\n/status/200\n"
			    "/status/301\n\n/status/404\n/status/404\n/status/503   ignored\n/status/503\n";
	const char *v[] = { kv, "users=4", NULL };
	const double want[4] = { 3.0 / 8, 1.0 / 8, 2.0 / 8, 2.0 / 8 };
	const uint64_t n = 8000;
	double chi2 = 0;
	struct got g;
	int fd = mkstemp(path);

	(void)st;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, lines, strlen(lines)), (ssize_t)strlen(lines));
	close(fd);
	snprintf(kv, sizeof(kv), "urls=%s", path);
	run_http(v, n, &g);
	unlink(path);
	assert_true(g.m[M_REPLIES] == n && g.errors == 0);
	for (int k = 0; k < 4; k++) {
		double e = want[k] * (double)n, d = (double)g.m[M_2XX + k] - e;

		chi2 += d * d / e;
	}
	/* 3 degrees of freedom: 16.27 is the 99.9% point. */
	if (chi2 > 16.27)
		fail_msg("chi2 %.2f: 2xx %llu 3xx %llu 4xx %llu 5xx %llu", chi2,
			 (unsigned long long)g.m[M_2XX], (unsigned long long)g.m[M_3XX],
			 (unsigned long long)g.m[M_4XX], (unsigned long long)g.m[M_5XX]);
}

/* A listening socket nobody accepts on: connects succeed, replies never come. */
static void silent_and_refused(void **st)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	char url[64];
	const char *v[] = { url, "users=3", "timeout=100ms", NULL };
	const char *vo[] = { url, "rate=200", "timeout=50ms", NULL };
	struct got g;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	(void)st;
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 64), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	snprintf(url, sizeof(url), "server=http://127.0.0.1:%d/x", ntohs(a.sin_port));
	run_http(v, 6, &g);
	assert_true(g.ops == 6 && g.m[M_TIMEO] == 6 && g.errors == 6 && g.m[M_REPLIES] == 0);
	run_http(vo, 10, &g);
	assert_true(g.ops == 10 && g.m[M_TIMEO] == 10 && g.errors == 10);
	close(fd);	/* now the port refuses */
	run_http(v, 5, &g);
	assert_true(g.ops == 5 && g.m[M_REFUSED] == 5 && g.errors == 5);
}

static void nginx_spawned(void **st)
{
	const char *v[] = { "server=nginx", "users=5", "server_threads=2", NULL };
	const char *miss[] = { "server=nginx", "users=2", "path=/missing", "conn=new", NULL };
	struct got g;

	(void)st;
	if (bt_which("nginx", NULL, 0) != 0)
		skip();
	run_http(v, 500, &g);
	assert_true(g.m[M_REPLIES] == 500 && g.m[M_2XX] == 500 && g.errors == 0);
	assert_true(g.m[M_CONNS] == 5);
	run_http(miss, 20, &g);
	assert_true(g.m[M_REPLIES] == 20 && g.m[M_4XX] == 20 && g.m[M_CONNS] == 20);
}

static void nginx_missing(void **st)
{
	const char *kv[] = { "server=nginx", NULL };
	struct bt_err err = { "" };
	char *saved = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	struct fx f;

	(void)st;
	setenv("PATH", "/nonexistent", 1);
	fx_init_wl(&f, "http", kv);
	assert_int_equal(f.wl->check(f.pv, &err), -ENOENT);
	assert_string_equal(err.msg, "server=nginx: nginx is not installed (apt install nginx)");
	if (saved != NULL)
		setenv("PATH", saved, 1);
	free(saved);
	/* And a bad URL is refused by the parameter's own check. */
	{
		const struct bt_param *p = bt_param_find(f.wl->params, f.wl->nparams, "server");
		struct bt_value val;

		assert_int_equal(bt_param_parse(p, "ftp://x", &val, &err), -EINVAL);
		assert_int_equal(bt_param_parse(p, "http://localhost:8080/a", &val, &err), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(builtin_exact),
		cmocka_unit_test(keepalive_limits),
		cmocka_unit_test(url_weights),
		cmocka_unit_test(silent_and_refused),
		cmocka_unit_test(nginx_spawned),
		cmocka_unit_test(nginx_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
