/*
 * front.c - what the CLI and the TUI share (see front.h).
 */
#include "front/front.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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

int bt_front_parse_args(const char *cmd, const char *what, const struct bt_front_opt *opts, int nopts,
			int argc, char **argv, struct bt_front_args *out, struct bt_err *err)
{
	memset(out, 0, sizeof(*out));
	out->kv = calloc((size_t)(argc > 0 ? argc : 1), sizeof(*out->kv));
	if (out->kv == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq = strchr(arg, '='), *val = NULL;
		const struct bt_front_opt *o = NULL;
		size_t nlen = strlen(arg);

		if (arg[0] != '-' || arg[1] != '-') {
			if (eq != NULL) {
				out->kv[out->nkv++] = argv[i];
			} else if (out->positional == NULL) {
				out->positional = arg;
			} else {
				bt_err_set(err, -EINVAL, "%s: expected key=value (the %s is already %s)", arg,
					   what, out->positional);
				goto fail;
			}
			continue;
		}
		if (eq != NULL) {
			nlen = (size_t)(eq - arg);
			val = eq + 1;
		}
		for (int k = 0; k < nopts && o == NULL; k++)
			if (strlen(opts[k].name) == nlen && strncmp(opts[k].name, arg, nlen) == 0)
				o = &opts[k];
		if (o == NULL) {
			char allowed[512] = "";
			size_t n = 0;

			for (int k = 0; k < nopts && n < sizeof(allowed); k++)
				n += (size_t)snprintf(allowed + n, sizeof(allowed) - n, "%s%s", k ? ", " : "",
						      opts[k].name);
			bt_err_set(err, -EINVAL, "%s%sunknown option %.*s (allowed: %s)", cmd,
				   cmd[0] ? ": " : "", (int)nlen, arg, allowed);
			goto fail;
		}
		if (o->value == NULL) {
			if (val != NULL) {
				bt_err_set(err, -EINVAL, "%s takes no value", o->name);
				goto fail;
			}
			*o->flag = 1;
			continue;
		}
		if (val == NULL) {
			if (i + 1 >= argc) {
				bt_err_set(err, -EINVAL, "%s needs a value", o->name);
				goto fail;
			}
			val = argv[++i];
		}
		*o->value = val;
	}
	return 0;
fail:
	free(out->kv);
	memset(out, 0, sizeof(*out));
	return -EINVAL;
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
