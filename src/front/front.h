/*
 * front.h - what both front ends (the CLI and the TUI) share, below both:
 * exit statuses, the one way a plan is built from what the user gave, the
 * default recording path, and the one signal-handling path.
 *
 * The faces include this; it includes neither face. (The name is "front"
 * rather than "app" because struct bt_app and bt_app_* are the TUI's screen
 * state and drawing helpers.) Layers: cli, tui -> front -> workloads ->
 * engines -> core.
 */
#ifndef BT_FRONT_FRONT_H
#define BT_FRONT_FRONT_H

#include <stddef.h>

#include "core/err.h"
#include "core/plan.h"

/* Exit statuses of the benchtop process, whichever face ran. */
#define BT_EXIT_OK 0
#define BT_EXIT_FAILED 1	/* the run failed, or a file could not be used */
#define BT_EXIT_USAGE 2		/* bad arguments or parameters: nothing started */
#define BT_EXIT_RECORDING 3	/* the run finished, its recording is incomplete */
#define BT_EXIT_INTERRUPTED 130	/* a signal stopped the run (or the TUI) */

struct bt_workload;
struct bt_run;

/* Where a plan starts from before the key=value settings: a file, a text, or the defaults. */
struct bt_front_base {
	const char *path;	/* a plan file (bt_plan_load); NULL */
	const char *json;	/* a plan document (a recording's copy, the form's plan); NULL */
	const char *origin;	/* json's name in messages ("run.jsonl") */
};

/*
 * The one plan-init path of every face: the defaults of wl, then the base
 * plan (when given), then the key=value settings in order, then the stop
 * rule made explicit (bt_run_plan_finalize), bt_plan_check and
 * bt_run_validate. A key given twice among the settings is refused
 * ("threads=2: threads given twice"), as a plan file refuses a duplicate
 * key. On error pl holds nothing to destroy, err says why, and *base_bad
 * (when not NULL) is 1 when the base plan itself did not apply.
 */
int bt_front_plan(struct bt_plan *pl, const struct bt_workload *wl,
		  const struct bt_front_base *base, char *const *kv, int nkv, int *base_bad,
		  struct bt_err *err);

/*
 * Apply key=value settings to pl in order, refusing a key given twice
 * among them. Used by bt_front_plan and by the TUI's command-line prefill,
 * so that both faces read settings the same way. 0 or -EINVAL.
 */
int bt_front_set_args(struct bt_plan *pl, char *const *kv, int nkv, struct bt_err *err);

/*
 * The default recording path for a new session of workload:
 * $XDG_STATE_HOME/benchtop/sessions/TIME-WORKLOAD-HOST.jsonl. 0, or -EINVAL
 * with err set when no state directory can be found.
 */
int bt_front_record_path(char *buf, size_t n, const char *workload, struct bt_err *err);

/*
 * The one signal path. bt_front_signals_catch installs handlers for SIGINT,
 * SIGTERM, SIGHUP and SIGQUIT: the first such signal cancels the watched run
 * (async-signal-safe), is remembered for bt_front_signalled, and wakes
 * bt_front_signal_fd; the handler then gives that signal its default action,
 * so a second one ends a stuck process. Call from the main thread before the
 * run starts.
 */
void bt_front_signals_catch(void);

/* The run a signal cancels (NULL: none). Main thread. */
void bt_front_signals_watch(struct bt_run *r);

/* The signal caught so far, or 0. */
int bt_front_signalled(void);

/*
 * A descriptor that becomes readable once a signal was caught (for poll), or
 * -1 before bt_front_signals_catch or when no pipe could be made.
 */
int bt_front_signal_fd(void);

/*
 * The one command-line grammar of both faces (run, rerun and the
 * workbench): an argument starting with "--" is an option from the face's
 * table, "--name VALUE" or "--name=VALUE" when it takes a value, "--name"
 * alone when it is a flag; any other argument holding '=' is a key=value
 * setting, kept in order; the one argument left names what the command works
 * on (the workload, the recording). Options may come anywhere.
 */
struct bt_front_opt {
	const char *name;	/* "--record" */
	const char **value;	/* takes a value, stored here; NULL for a flag */
	int *flag;		/* a flag: set to 1 when given */
};

struct bt_front_args {
	const char *positional;	/* NULL when none was given */
	int nkv;
	char **kv;		/* the key=value settings in order; malloc'd, free() it */
};

/*
 * Parse argv[1..argc-1] against opts[0..nopts-1]. what names the positional
 * in messages ("workload"); cmd prefixes the unknown-option message ("run");
 * "" for none. 0, or -EINVAL with one line in err ("run: unknown option
 * --bogus (allowed: --plan, --record)", "--record needs a value", "x: expected
 * key=value (the workload is already null)"); out->kv is freed then.
 */
int bt_front_parse_args(const char *cmd, const char *what, const struct bt_front_opt *opts, int nopts,
			int argc, char **argv, struct bt_front_args *out, struct bt_err *err);

#endif
