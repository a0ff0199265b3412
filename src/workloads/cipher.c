/* being written (temporary placeholder so the tree builds) */
#include "engines/workload.h"
static const char *na(void) { return "being written"; }
const struct bt_workload bt_wl_cipher = { .name = "cipher", .group = "crypto", .title = "(being written)", .unit = "bytes", .unavailable = na };
