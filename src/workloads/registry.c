#include "workloads/registry.h"

#include <string.h>

extern const struct bt_workload bt_wl_null;
extern const struct bt_workload bt_wl_locks;
extern const struct bt_workload bt_wl_pipeline;
extern const struct bt_workload bt_wl_hash;
extern const struct bt_workload bt_wl_cipher;
extern const struct bt_workload bt_wl_kv;
extern const struct bt_workload bt_wl_sql;
extern const struct bt_workload bt_wl_events;
extern const struct bt_workload bt_wl_http;
extern const struct bt_workload bt_wl_copy;
extern const struct bt_workload bt_wl_convert;
extern const struct bt_workload bt_wl_grep;
extern const struct bt_workload bt_wl_sort;
extern const struct bt_workload bt_wl_scan;
extern const struct bt_workload bt_wl_pingpong;

const struct bt_workload *const bt_workloads[] = {
	&bt_wl_pipeline,
	&bt_wl_locks,
	&bt_wl_hash,
	&bt_wl_cipher,
	&bt_wl_kv,
	&bt_wl_sql,
	&bt_wl_events,
	&bt_wl_http,
	&bt_wl_copy,
	&bt_wl_convert,
	&bt_wl_grep,
	&bt_wl_sort,
	&bt_wl_scan,
	&bt_wl_pingpong,
	&bt_wl_null,
};

const size_t bt_nworkloads = sizeof(bt_workloads) / sizeof(bt_workloads[0]);

const struct bt_workload *bt_workload_find(const char *name)
{
	for (size_t i = 0; i < bt_nworkloads; i++)
		if (strcmp(bt_workloads[i]->name, name) == 0)
			return bt_workloads[i];
	return NULL;
}
