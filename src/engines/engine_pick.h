/*
 * engine_pick.h - which engine a cell runs on: as= when it names one, else
 * what the cell's own values call for (workload.h .engine_for: grep's
 * how=processes is one forked process per file), else threads. The runner
 * asks once per cell; faces only see the result in the recording.
 */
#ifndef BT_ENGINES_ENGINE_PICK_H
#define BT_ENGINES_ENGINE_PICK_H

#include "core/err.h"
#include "core/param.h"
#include "engines/engine.h"
#include "engines/workload.h"

/*
 * The as= choices: the engines in enum bt_engine_kind order, then "auto"
 * (index BT_AS_AUTO, the default): the cell's values choose, else threads.
 */
extern const char *const bt_as_choices[];
#define BT_AS_AUTO BT_ENGINE_COUNT

/*
 * The engine (enum bt_engine_kind) cell params (the workload's values, table
 * order) run on under as=. -EINVAL with one line in err when the workload
 * cannot run that way ("as=processes: pipeline runs only as threads") or when
 * as= contradicts what the values call for ("how=processes as=threads: ...").
 */
int bt_engine_pick(const struct bt_workload *wl, const struct bt_value *as,
		   const struct bt_value *const *params, struct bt_err *err);

#endif
