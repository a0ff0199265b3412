/*
 * doctor_panel.h - the machine check (core/machine.h) as a panel of the
 * workbench's side pane: warnings first, then notes, then the ok items on
 * one line. `benchtop doctor` says the same with a hint per item.
 */
#ifndef BT_TUI_DOCTOR_PANEL_H
#define BT_TUI_DOCTOR_PANEL_H

#include <ncurses.h>

#include "core/machine.h"
#include "tui/widgets.h"

/*
 * The check of this machine, taken once per process on the first call
 * (quick: the facts, the timer cost; no busy-process interval, which would
 * hold the screen up) and kept. Main thread only. Call it before drawing
 * (bt_wb_init does) so that drawing reads a finished model.
 */
const struct bt_check_list *bt_doctor_panel_model(void);

/*
 * Draw l into rows y.. of in (clipped to it): a title with the counts, one
 * line per warning and note ("warn thp: always"), the ok items' names on one
 * line. Changes nothing else. Returns the next free row.
 */
int bt_doctor_panel_draw(WINDOW *w, struct bt_rect in, int y, const struct bt_check_list *l);

#endif
