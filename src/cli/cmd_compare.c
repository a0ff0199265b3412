/* being written (temporary placeholder so the tree builds) */
#include "cli/cli.h"
int bt_cmd_compare(int argc, char **argv) { (void)argc; (void)argv; bt_cli_error("compare: being written"); return BT_EXIT_USAGE; }
