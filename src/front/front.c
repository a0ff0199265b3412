/*
 * front.c - what the CLI and the TUI share (see front.h).
 */
#include "front/front.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/recording.h"
#include "engines/runner.h"
#include "engines/workload.h"

/* The key of a key=value setting: its length, or -1 without '='. */
static int key_len(const char *arg)
{
	const char *eq = strchr(arg, '=');

	return eq != NULL ? (int)(eq - arg) : -1;
}

int bt_front_set_args(struct bt_plan *pl, char *const *kv, int nkv, struct bt_err *err)
{
	for (int i = 0; i < nkv; i++) {
		int n = key_len(kv[i]);

		for (int j = 0; n > 0 && j < i; j++) {
			if (key_len(kv[j]) == n && strncmp(kv[i], kv[j], (size_t)n) == 0)
				return bt_err_set(err, -EINVAL, "%.200s: %.*s given twice", kv[i], n,
						  kv[i]);
		}
		if (bt_plan_set_arg(pl, kv[i], err) < 0)
			return -EINVAL;
	}
	return 0;
}

int bt_front_plan(struct bt_plan *pl, const struct bt_workload *wl,
		  const struct bt_front_base *base, char *const *kv, int nkv, int *base_bad,
		  struct bt_err *err)
{
	int rc;

	if (base_bad != NULL)
		*base_bad = 0;
	rc = bt_run_plan_init(pl, wl, err);
	if (rc < 0)
		return rc;
	if (base != NULL && base->path != NULL)
		rc = bt_plan_load(pl, base->path, err);
	else if (base != NULL && base->json != NULL)
		rc = bt_plan_apply_json(pl, base->json, base->origin, err);
	if (rc < 0) {
		if (base_bad != NULL)
			*base_bad = 1;
		goto out;
	}
	rc = bt_front_set_args(pl, kv, nkv, err);
	if (rc == 0)
		rc = bt_run_plan_finalize(pl, wl, err);
	if (rc == 0)
		rc = bt_plan_check(pl, err);
	if (rc == 0)
		rc = bt_run_validate(wl, pl, err);
out:
	if (rc < 0)
		bt_plan_destroy(pl);
	return rc;
}

int bt_front_record_path(char *buf, size_t n, const char *workload, struct bt_err *err)
{
	char dir[4096], host[256] = "host";
	int rc;

	gethostname(host, sizeof(host) - 1);
	if (bt_rec_default_dir(dir, sizeof(dir)) < 0)
		return bt_err_set(err, -EINVAL,
				  "cannot choose a recording path (set XDG_STATE_HOME or HOME)");
	/* The name is reserved (created empty, O_EXCL): runs in the same second never collide. */
	rc = bt_rec_default_path(buf, n, dir, workload, host, bt_unix_ns());
	if (rc < 0)
		return bt_err_set(err, rc,
				  "cannot create a recording in %s: %s (XDG_STATE_HOME must name a directory)",
				  dir, strerror(-rc));
	return 0;
}

static struct bt_run *volatile g_run;
static volatile sig_atomic_t g_signalled;
static int g_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	int saved = errno;

	g_signalled = sig;
	if (g_run != NULL)
		bt_run_cancel(g_run);
	if (g_pipe[1] >= 0 && write(g_pipe[1], "", 1) < 0) {
		/* Full: a wakeup is already pending. */
	}
	/* The next one is not caught: a stuck process can still be ended. */
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	errno = saved;
}

void bt_front_signals_catch(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa = { .sa_handler = on_signal };

	if (g_pipe[0] < 0 && pipe(g_pipe) == 0) {
		for (int i = 0; i < 2; i++) {
			fcntl(g_pipe[i], F_SETFL, fcntl(g_pipe[i], F_GETFL) | O_NONBLOCK);
			fcntl(g_pipe[i], F_SETFD, FD_CLOEXEC);
		}
	}
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

void bt_front_signals_watch(struct bt_run *r)
{
	g_run = r;
	/* A signal that came before the run existed still stops it. */
	if (r != NULL && g_signalled)
		bt_run_cancel(r);
}

int bt_front_signalled(void)
{
	return g_signalled;
}

int bt_front_signal_fd(void)
{
	return g_pipe[0];
}
