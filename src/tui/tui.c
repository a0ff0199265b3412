/* being written (temporary placeholder so the tree builds) */
#include "cli/cli.h"
#include "tui/tui.h"
int bt_tui_main(int argc, char **argv) { (void)argc; (void)argv; bt_cli_usage(stderr); return BT_EXIT_USAGE; }
int bt_tui_replay(int argc, char **argv) { (void)argc; (void)argv; bt_cli_error("replay: being written"); return BT_EXIT_USAGE; }
