/* being written (temporary placeholder so the tree builds) */
#include "cli/cli.h"
int bt_cmd_rerun(int argc, char **argv) { (void)argc; (void)argv; bt_cli_error("rerun: being written"); return BT_EXIT_USAGE; }
