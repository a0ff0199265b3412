/*
 * plan.h - a plan: a workload, its parameter values, the sweep axes.
 *
 * A plan holds, for every parameter of two schema tables (the common one
 * first, then the workload's), one or more values. A parameter given more
 * than one value is a sweep axis. The axes are ordered as they were first
 * set, except that the axis named by the BT_PF_ROWS parameter (`rows=NAME`)
 * moves to the front: the first axis makes the rows of every table, whatever
 * it is. No parameter is special by name. The cartesian product of the axes is the list of cells; cell 0 has every axis at
 * its first value and the LAST axis varies fastest (row-major, first axis
 * outermost).
 *
 * Plans are saved and loaded as JSON (jansson):
 *   {"benchtop_plan": 1, "workload": "pipeline",
 *    "params": {"threads": [1, 2, 4], "lock": "mutex", "reps": 5, ...}}
 * A JSON number is taken as its decimal text, a string as is, a bool as
 * on/off, an array as a sweep. Unknown keys in "params" are an error naming
 * the key; unknown top-level keys are ignored.
 */
#ifndef BT_CORE_PLAN_H
#define BT_CORE_PLAN_H

#include <stddef.h>

#include "core/err.h"
#include "core/param.h"

#define BT_PLAN_MAX_PARAMS 64
#define BT_PLAN_MAX_AXES 8
#define BT_PLAN_MAX_VALUES 64	/* values of one parameter */
#define BT_PLAN_MAX_CELLS 4096

struct bt_plan {
	char workload[64];
	int nparams;
	const struct bt_param *params[BT_PLAN_MAX_PARAMS];	/* common first, then workload's */
	int nvals[BT_PLAN_MAX_PARAMS];
	struct bt_value *vals[BT_PLAN_MAX_PARAMS];		/* malloc'd [nvals[i]] */
	int naxes;
	int axes[BT_PLAN_MAX_AXES];		/* param indices of the sweep axes, in order */
	int given[BT_PLAN_MAX_AXES];		/* the same axes in the order they were set */
	int ncells;
};

/*
 * Initialize pl for a workload with every parameter at its default. The
 * schema tables must outlive the plan. Returns 0, or -EINVAL when a default
 * does not parse (a bug in a table: err says which).
 */
int bt_plan_init(struct bt_plan *pl, const char *workload,
		 const struct bt_param *common, size_t ncommon,
		 const struct bt_param *wl, size_t nwl, struct bt_err *err);
void bt_plan_destroy(struct bt_plan *pl);

/*
 * Set key to text (which may be a comma list: a sweep). Replaces earlier
 * values. Errors: unknown key ("bogus: unknown parameter of pipeline (see
 * benchtop list pipeline)"), a bad value (bt_param_parse's message), a list
 * for a BT_PF_NOSWEEP parameter, too many axes/values/cells.
 */
int bt_plan_set(struct bt_plan *pl, const char *key, const char *text, struct bt_err *err);

/* Same for one "key=value" argument; "missing '='" is an error. */
int bt_plan_set_arg(struct bt_plan *pl, const char *arg, struct bt_err *err);

/*
 * The plan's fixed values as "threads=64 work=0", what labels a run beside
 * its swept axes: every parameter with one value, except the run controls
 * (BT_PF_NOSWEEP) and BT_PF_QUIET ones at their default. Whole values only:
 * what does not fit in n is left out. The plan JSON carries it as "fixed".
 */
void bt_plan_fixed(const struct bt_plan *pl, char *buf, size_t n);

/* Index of a parameter in pl->params, or -1. */
int bt_plan_index(const struct bt_plan *pl, const char *name);

/* Index of the first parameter whose schema has flag (BT_PF_*), or -1. */
int bt_plan_find_flag(const struct bt_plan *pl, unsigned flag);

/*
 * Checks that need every value set (call after the last bt_plan_set): the
 * row axis named by the BT_PF_ROWS parameter must be swept
 * ("rows=units: units is not swept (swept: threads)"). 0 or -EINVAL.
 */
int bt_plan_check(const struct bt_plan *pl, struct bt_err *err);

/*
 * The values of cell c (0 <= c < ncells): out[i] points at the value of
 * pl->params[i] in that cell, for every i < nparams.
 */
void bt_plan_cell(const struct bt_plan *pl, int c, const struct bt_value **out);

/* The value index on each axis for cell c: idx[a] for a < naxes. */
void bt_plan_cell_coords(const struct bt_plan *pl, int c, int *idx);

/* "threads=4 notify=signal" (axis values of cell c; "" when no axes). */
void bt_plan_cell_label(const struct bt_plan *pl, int c, char *buf, size_t n);

/*
 * The plan as a JSON document (malloc'd string, caller frees): every
 * parameter with its value(s), so the plan is reproducible without the
 * defaults of this build. Top level as described above.
 */
char *bt_plan_to_json(const struct bt_plan *pl);

/*
 * Write bt_plan_to_json to path (pretty-printed) through bt_file_out: a new
 * file is created exclusively, an existing regular file replaced by rename,
 * anything else (a symlink, a FIFO) refused. 0 or -errno with err set.
 */
int bt_plan_save(const struct bt_plan *pl, const char *path, struct bt_err *err);

/*
 * Read a plan file's workload name (to find its schema) without applying it.
 * Errors name the file, line and column: "plan.json:3:14: ']' expected".
 */
int bt_plan_file_workload(const char *path, char *workload, size_t n, struct bt_err *err);

/*
 * Apply the "params" of a JSON plan text/file to an initialized plan (whose
 * workload must match). Errors are prefixed with the file name.
 */
int bt_plan_apply_json(struct bt_plan *pl, const char *json_text, const char *origin,
		       struct bt_err *err);
int bt_plan_load(struct bt_plan *pl, const char *path, struct bt_err *err);

#endif
