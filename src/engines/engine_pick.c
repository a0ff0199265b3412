/*
 * engine_pick.c - as= and a workload's own engine choice (engine_pick.h).
 */
#include "engines/engine_pick.h"

#include <errno.h>
#include <stdio.h>

_Static_assert(BT_ENGINE_COUNT == 2, "bt_as_choices lists the engines, then auto");
const char *const bt_as_choices[] = { "threads", "processes", "auto", NULL };

/* "threads" or "threads, processes": the engines in mask ok, for messages. */
static const char *engines_text(unsigned ok, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int k = 0; k < BT_ENGINE_COUNT && len < n; k++)
		if (ok & (1u << k))
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
						bt_engine_names[k]);
	return buf;
}

int bt_engine_pick(const struct bt_workload *wl, const struct bt_value *as,
		   const struct bt_value *const *params, struct bt_err *err)
{
	unsigned ok = wl->engines ? wl->engines : BT_ENGINES_THREADS;
	const char *why = NULL;
	int want = wl->engine_for != NULL ? wl->engine_for(params, &why) : -1;
	int kind = as->i == BT_AS_AUTO ? (want >= 0 ? want : BT_ENGINE_THREADS) : (int)as->i;
	char allowed[64];

	if (as->i != BT_AS_AUTO && want >= 0 && want != kind)
		return bt_err_set(err, -EINVAL, "%s as=%s: %s runs %s as %s (leave as= out, or say as=%s)",
				  why ? why : "these values", as->text, wl->name,
				  why ? why : "this cell", bt_engine_names[want], bt_engine_names[want]);
	if (kind < 0 || kind >= BT_ENGINE_COUNT || !(ok & (1u << kind)))
		return bt_err_set(err, -EINVAL, "as=%s: %s runs only as %s",
				  kind >= 0 && kind < BT_ENGINE_COUNT ? bt_engine_names[kind] : as->text,
				  wl->name, engines_text(ok, allowed, sizeof(allowed)));
	return kind;
}
