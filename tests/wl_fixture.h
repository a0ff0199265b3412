/*
 * wl_fixture.h - a workload's job for tests that drive it through the engine
 * directly: every parameter at its default, then "key=value" overrides
 * parsed by the workload's own table (as the CLI would).
 * Include after <cmocka.h>.
 */
#ifndef BT_TESTS_WL_FIXTURE_H
#define BT_TESTS_WL_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "core/param.h"
#include "engines/workload.h"
#include "workloads/registry.h"

#define FX_MAXP 16

struct fx {
	const struct bt_workload *wl;
	struct bt_value vals[FX_MAXP];
	const struct bt_value *pv[FX_MAXP];
	struct bt_job job;
};

/* Set one "key=value" (fails the test on a bad key or value). */
static inline void fx_set(struct fx *f, const char *kv)
{
	struct bt_err err = { "" };
	const char *eq = strchr(kv, '=');
	const struct bt_param *p;
	char key[64];

	assert_non_null(eq);
	snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
	p = bt_param_find(f->wl->params, f->wl->nparams, key);
	assert_non_null(p);
	if (bt_param_parse(p, eq + 1, &f->vals[p - f->wl->params], &err) != 0)
		fail_msg("%s: %s", kv, err.msg);
}

/* Defaults for every parameter of workload name, then the overrides in kv (NULL-terminated). */
static inline void fx_init_wl(struct fx *f, const char *name, const char *const *kv)
{
	struct bt_err err = { "" };

	memset(f, 0, sizeof(*f));
	f->wl = bt_workload_find(name);
	assert_non_null(f->wl);
	assert_true(f->wl->nparams <= FX_MAXP);
	for (size_t i = 0; i < f->wl->nparams; i++) {
		assert_int_equal(bt_param_parse(&f->wl->params[i], f->wl->params[i].def,
						&f->vals[i], &err), 0);
		f->pv[i] = &f->vals[i];
	}
	for (; kv != NULL && *kv != NULL; kv++)
		fx_set(f, *kv);
	f->job.params = f->pv;
}

#endif
