#include "workloads/registry.h"

#include <string.h>

extern const struct bt_workload bt_wl_null;
extern const struct bt_workload bt_wl_locks;
extern const struct bt_workload bt_wl_pipeline;
extern const struct bt_workload bt_wl_hash;
extern const struct bt_workload bt_wl_cipher;
extern const struct bt_workload bt_wl_pingpong;

const struct bt_workload *const bt_workloads[] = {
	&bt_wl_pipeline,
	&bt_wl_locks,
	&bt_wl_hash,
	&bt_wl_cipher,
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
