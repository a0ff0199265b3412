/*
 * spawn.h - servers a workload starts for itself (memcached, redis-server,
 * gearmand, mariadbd, nginx): resources with an owner, the way a test
 * harness treats them, never the machine's service manager.
 *
 * A spawned server is started once per run (a workload's run_setup), on
 * 127.0.0.1 or a Unix socket, with its output going to a log file in a
 * scratch directory; it is waited on until it answers, its CPU time is read
 * from /proc while it runs, and it is stopped by PID on every path
 * (bt_spawn_stop from run_teardown: SIGTERM, then SIGKILL after a grace).
 * It dies with benchtop (PR_SET_PDEATHSIG) if benchtop itself is killed.
 *
 * Not thread-safe per server: the runner's controller thread owns it (the
 * run hooks all run there). Workers may read addr/port, nothing else.
 */
#ifndef BT_ENGINES_SPAWN_H
#define BT_ENGINES_SPAWN_H

#include <stdint.h>
#include <sys/types.h>

#include "core/err.h"

#define BT_SPAWN_ARGS 48

struct bt_spawn {
	char name[32];		/* "redis-server": for messages */
	pid_t pid;		/* 0 when not running */
	char log[4096];		/* its stdout+stderr ("" when none) */
	uint64_t t_start;	/* CLOCK_MONOTONIC ns at the fork */
	int exited;		/* 1 once reaped; status then holds its wait status */
	int status;
};

/* Server CPU time so far, from /proc: the server and its living children (user and system, seconds). */
struct bt_spawn_cpu {
	double user_s, sys_s;
};

/*
 * A free TCP port on 127.0.0.1 (bind to port 0, read it back, close). A
 * server started on it right after will almost always get it; a start that
 * fails with "address in use" is retried by the caller with a new port.
 * 0 and *port set, or negative errno with err set.
 */
int bt_spawn_free_port(int *port, struct bt_err *err);

/*
 * Start argv[0] (looked up on PATH) with argv (NULL-terminated, at most
 * BT_SPAWN_ARGS) in directory dir (NULL: unchanged), its stdout and stderr
 * appended to log_path (NULL: /dev/null), stdin /dev/null, in a process
 * group of its own (a terminal's Ctrl-C reaches benchtop, which stops it),
 * with PR_SET_PDEATHSIG(SIGKILL). Returns 0 once the process exists (not
 * yet answering: see bt_spawn_wait_tcp / bt_spawn_wait_unix), or negative
 * errno with err set ("redis-server: cannot start: No such file or
 * directory"). The server's environment is benchtop's.
 */
int bt_spawn_start(struct bt_spawn *s, const char *const *argv, const char *dir,
		   const char *log_path, struct bt_err *err);

/*
 * Wait until the server accepts a TCP connection on 127.0.0.1:port (or a
 * connection on the Unix socket path), polling every few ms, for at most
 * timeout_ms. Fails early, with its exit status and the last lines of its
 * log in err, when the server exits first: "redis-server exited with status
 * 1: ... Address already in use". 0, -ETIMEDOUT or -ECHILD with err set.
 */
int bt_spawn_wait_tcp(struct bt_spawn *s, int port, int timeout_ms, struct bt_err *err);
int bt_spawn_wait_unix(struct bt_spawn *s, const char *path, int timeout_ms, struct bt_err *err);

/*
 * 1 while the server runs, 0 once it has exited (reaped here; s->status
 * says how). Never blocks.
 */
int bt_spawn_alive(struct bt_spawn *s);

/* The server's CPU time so far, its worker processes included (0 and 0 when it is gone). 0 or -errno. */
int bt_spawn_cpu(const struct bt_spawn *s, struct bt_spawn_cpu *out);

/*
 * Stop the server: SIGTERM, wait up to grace_ms, then SIGKILL, and reap it.
 * Safe to call twice and on a server that never started or already exited.
 * Returns its wait status (or -1 when there was nothing to stop).
 */
int bt_spawn_stop(struct bt_spawn *s, int grace_ms);

/*
 * Describe how the server ended ("exited with status 1", "killed by
 * SIGKILL") into buf, plus the last lines of its log when there is one.
 */
void bt_spawn_describe(const struct bt_spawn *s, char *buf, size_t n);

#endif
