/*
 * test_spawn.c - servers a workload starts: a real memcached answers on a
 * free port and is gone after stop; a program that exits early, one that
 * does not exist, and one that ignores SIGTERM (with a child of its own)
 * are each reported or ended as spawn.h promises.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engines/spawn.h"

static char g_dir[] = "/tmp/bt-spawn-test.XXXXXX";

/*
 * 1 while PID runs: /proc/PID exists and is not a zombie (an orphan's zombie
 * waits for whoever is PID 1 here to reap it; it runs nothing).
 */
static int proc_exists(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	int alive = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), f) != NULL && (p = strrchr(buf, ')')) != NULL)
		alive = p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
	fclose(f);
	return alive;
}

static int on_path(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

static void test_free_port(void **state)
{
	struct bt_err err = { "" };
	int port = 0;

	(void)state;
	assert_int_equal(bt_spawn_free_port(&port, &err), 0);
	assert_true(port > 0 && port < 65536);
}

static void test_memcached_round_trip(void **state)
{
	struct bt_spawn s;
	struct bt_spawn_cpu cpu;
	struct bt_err err = { "" };
	char port_s[16], log[512];
	int port = 0;

	(void)state;
	if (!on_path("memcached"))
		skip();
	assert_int_equal(bt_spawn_free_port(&port, &err), 0);
	snprintf(port_s, sizeof(port_s), "%d", port);
	snprintf(log, sizeof(log), "%s/memcached.log", g_dir);
	const char *argv[] = { "memcached", "-l", "127.0.0.1", "-p", port_s, "-U", "0", "-u", "root",
			       "-m", "16", NULL };
	assert_int_equal(bt_spawn_start(&s, argv, g_dir, log, &err), 0);
	assert_true(s.pid > 0);
	assert_int_equal(bt_spawn_wait_tcp(&s, port, 5000, &err), 0);
	assert_int_equal(bt_spawn_alive(&s), 1);
	assert_int_equal(bt_spawn_cpu(&s, &cpu), 0);
	assert_true(cpu.user_s >= 0 && cpu.sys_s >= 0);
	assert_true(bt_spawn_stop(&s, 2000) >= 0);
	assert_int_equal(s.exited, 1);
	assert_false(proc_exists(s.pid));
	assert_int_equal(bt_spawn_alive(&s), 0);
	/* Twice is harmless. */
	assert_int_equal(bt_spawn_stop(&s, 100), s.status);
}

static void test_missing_program(void **state)
{
	struct bt_spawn s;
	struct bt_err err = { "" };
	const char *argv[] = { "benchtop-no-such-server", "--x", NULL };

	(void)state;
	assert_int_equal(bt_spawn_start(&s, argv, NULL, NULL, &err), -ENOENT);
	assert_string_equal(err.msg, "benchtop-no-such-server: cannot start: No such file or directory");
	assert_int_equal(s.exited, 1);
}

/* A server that dies before answering is said with its status and its last words. */
static void test_exits_early(void **state)
{
	struct bt_spawn s;
	struct bt_err err = { "" };
	char log[512];
	int port = 0;
	const char *argv[] = { "sh", "-c", "echo 'bind: Address already in use' >&2; exit 3", NULL };

	(void)state;
	snprintf(log, sizeof(log), "%s/early.log", g_dir);
	assert_int_equal(bt_spawn_free_port(&port, &err), 0);
	assert_int_equal(bt_spawn_start(&s, argv, NULL, log, &err), 0);
	assert_int_equal(bt_spawn_wait_tcp(&s, port, 10000, &err), -ECHILD);
	assert_non_null(strstr(err.msg, "sh exited with status 3: bind: Address already in use before it answered on 127.0.0.1:"));
}

/* SIGTERM ignored, with a child: both are gone after the grace. */
static void test_ignores_term(void **state)
{
	struct bt_spawn s;
	struct bt_err err = { "" };
	char log[512], pidfile[512], cmd[1024];
	FILE *f;
	int child = 0;

	(void)state;
	snprintf(log, sizeof(log), "%s/stubborn.log", g_dir);
	snprintf(pidfile, sizeof(pidfile), "%s/child.pid", g_dir);
	snprintf(cmd, sizeof(cmd), "trap '' TERM; sleep 1000 & echo $! > %s.tmp; mv %s.tmp %s; wait",
		 pidfile, pidfile, pidfile);
	const char *argv[] = { "sh", "-c", cmd, NULL };
	assert_int_equal(bt_spawn_start(&s, argv, NULL, log, &err), 0);
	/* The pid file appears once the child exists (written, then renamed whole). */
	for (int i = 0; i < 5000 && (f = fopen(pidfile, "r")) == NULL; i++)
		usleep(1000);
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &child), 1);
	fclose(f);
	assert_true(proc_exists(child));
	bt_spawn_stop(&s, 50);
	assert_int_equal(s.exited, 1);
	assert_false(proc_exists(s.pid));
	/* The child is killed with the group; it is reaped by init, so wait for /proc to say so. */
	for (int i = 0; i < 2000 && proc_exists(child); i++)
		usleep(1000);
	assert_false(proc_exists(child));
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(g_dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_port),
		cmocka_unit_test(test_memcached_round_trip),
		cmocka_unit_test(test_missing_program),
		cmocka_unit_test(test_exits_early),
		cmocka_unit_test(test_ignores_term),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
