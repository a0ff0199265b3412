/*
 * fuzz_args.c - fuzz the command line: bt_cli_parse_args (options anywhere,
 * "--opt VALUE" and "--opt=VALUE", key=value settings, one positional) and
 * then, for a known workload, bt_front_set_args and the plan's finalize and
 * validate - everything `benchtop run WORKLOAD ARGS...` does before it starts.
 *
 * An input is the argument vector, one argument per line (a NUL byte inside
 * a line stays part of it as far as C strings go). The usage error a parse
 * prints goes to a capped stream, so the target checks its shape too.
 *
 * Properties checked besides "no crash, no sanitizer report":
 *   - a rejected command line prints exactly one line, starting "benchtop: ";
 *   - an accepted one prints nothing, names at most one positional and
 *     gives key=value settings that each hold a '=';
 *   - a failed setting comes with a message and leaves the plan as it was;
 *   - an accepted plan round-trips through its JSON.
 *
 * Usage: fuzz_args CORPUS_DIR (see fuzz_driver.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/err.h"
#include "core/plan.h"
#include "engines/runner.h"
#include "front/front.h"
#include "workloads/registry.h"

#define FUZZ_NAME "fuzz_args"
#define FUZZ_SEED_PREFIX "args"
#define MAX_ARGS 64

#include "fuzz_driver.h"

static long n_ok, n_rejected, n_plans;

/* The settings on a plan of wl, as `benchtop run` applies them. */
static void check_settings(const struct bt_workload *wl, char **kv, int nkv)
{
	struct bt_plan pl, again;
	struct bt_err err = { "" };
	char *before, *after;

	if (bt_run_plan_init(&pl, wl, &err) < 0)
		inconsistent("bt_run_plan_init(%s): %s", wl->name, err.msg);
	before = bt_plan_to_json(&pl);
	if (bt_front_set_args(&pl, kv, nkv, &err) < 0) {
		if (err.msg[0] == '\0')
			inconsistent("a setting was refused without a message");
		after = bt_plan_to_json(&pl);
		/* Settings before the bad one stay (they were given in order); the JSON must still be whole. */
		if (after == NULL)
			inconsistent("a refused setting left a plan that does not encode");
		free(after);
		goto out;
	}
	err.msg[0] = '\0';
	if (bt_run_plan_finalize(&pl, wl, &err) < 0 && err.msg[0] == '\0')
		inconsistent("finalize failed without a message");
	after = bt_plan_to_json(&pl);
	if (after == NULL)
		inconsistent("an accepted plan does not encode");
	if (bt_run_plan_init(&again, wl, &err) < 0)
		inconsistent("bt_run_plan_init(%s): %s", wl->name, err.msg);
	if (bt_plan_apply_json(&again, after, "fuzz", &err) < 0)
		inconsistent("an accepted plan's JSON does not load back: %s\n%s", err.msg, after);
	{
		char *j2 = bt_plan_to_json(&again);

		if (j2 == NULL || strcmp(after, j2) != 0)
			inconsistent("round trip changed the plan:\n%s\n%s", after, j2 ? j2 : "(null)");
		free(j2);
	}
	bt_plan_destroy(&again);
	free(after);
	n_plans++;
out:
	free(before);
	bt_plan_destroy(&pl);
}

static void fuzz_one(const char *path)
{
	char *argv[MAX_ARGS + 2], *buf, *p;
	struct bt_cli_args a;
	struct fuzz_out msg;
	size_t len = 0;
	int argc = 1, rc;
	FILE *cap, *err_stream;

	buf = fuzz_slurp(path, &len);
	argv[0] = "run";
	for (p = buf; argc <= MAX_ARGS && p < buf + len;) {
		char *nl = memchr(p, '\n', (size_t)(buf + len - p));

		if (nl != NULL)
			*nl = '\0';
		argv[argc++] = p;
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	argv[argc] = NULL;

	/* The parser prints its one line on stderr: capture it (glibc's stderr is a variable). */
	cap = fuzz_capped_open(&msg, 64 * 1024, "usage message");
	err_stream = stderr;
	stderr = cap;
	memset(&a, 0, sizeof(a));
	rc = bt_cli_parse_args("run", "workload", 1, argc, argv, &a);
	stderr = err_stream;
	fflush(cap);
	if (rc < 0) {
		const char *nl = memchr(msg.keep, '\n', msg.kept);

		if (msg.kept == 0 || strncmp(msg.keep, "benchtop: ", 10) != 0 || nl == NULL ||
		    (size_t)(nl - msg.keep) + 1 != msg.kept)
			inconsistent("a refused command line printed %zu bytes, not one line: %.*s", msg.kept,
				     (int)msg.kept, msg.keep);
		n_rejected++;
	} else {
		if (msg.kept != 0)
			inconsistent("an accepted command line printed: %.*s", (int)msg.kept, msg.keep);
		for (int i = 0; i < a.nkv; i++)
			if (strchr(a.kv[i], '=') == NULL)
				inconsistent("setting %d has no '=': %s", i, a.kv[i]);
		n_ok++;
		if (a.positional != NULL && a.plan == NULL) {
			const struct bt_workload *wl = bt_workload_find(a.positional);

			if (wl != NULL)
				check_settings(wl, a.kv, a.nkv);
		}
	}
	free(a.kv);
	fclose(cap);
	free(msg.keep);
	free(buf);
}

static void fuzz_report(void)
{
	printf("%s: %ld accepted (%ld plans built), %ld refused with one line\n", FUZZ_NAME, n_ok,
	       n_plans, n_rejected);
}

