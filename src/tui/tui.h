/*
 * tui.h - the ncurses front end.
 */
#ifndef BT_TUI_TUI_H
#define BT_TUI_TUI_H

/*
 * `benchtop [--theme NAME] [--refresh MS] [--cast FILE] ...`: the workbench.
 * When standard output is not a terminal: one line, exit 2.
 */
int bt_tui_main(int argc, char **argv);

/* `benchtop replay RECORDING`: open a recording's replay directly. */
int bt_tui_replay(int argc, char **argv);

#endif
