/*
 * doctor_panel.c - the machine check in the workbench (see doctor_panel.h).
 */
#include "tui/doctor_panel.h"

#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "core/sysinfo.h"
#include "tui/app.h"

const struct bt_check_list *bt_doctor_panel_model(void)
{
	static struct bt_check_list l;
	static int loaded;

	if (!loaded) {
		struct bt_sysinfo si;

		bt_sysinfo_collect(&si);
		bt_machine_check(&si, bt_clock_read_cost_ns(), NULL, &l);
		loaded = 1;
	}
	return &l;
}

int bt_doctor_panel_draw(WINDOW *w, struct bt_rect in, int y, const struct bt_check_list *l)
{
	static const enum bt_check_level order[] = { BT_CHECK_WARN, BT_CHECK_INFO };
	char line[256];
	size_t o = 0;

	if (l == NULL || y >= in.y + in.h)
		return y;
	bt_app_putf(w, y++, in.x, in.w, ROLE_TITLE, "Machine check: %d warning%s, %d note%s", l->nwarn,
		    l->nwarn == 1 ? "" : "s", l->ninfo, l->ninfo == 1 ? "" : "s");
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < l->n && y < in.y + in.h; i++) {
			const struct bt_check *c = &l->item[i];

			if (c->level != order[k])
				continue;
			bt_app_putf(w, y++, in.x, in.w, c->level == BT_CHECK_WARN ? ROLE_WARN : ROLE_NORMAL,
				    "%-4s %s: %s", bt_check_level_name(c->level), c->name, c->value);
		}
	line[0] = '\0';
	for (int i = 0; i < l->n && o < sizeof(line); i++)
		if (l->item[i].level == BT_CHECK_OK)
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%s", o ? ", " : "ok   ",
					      l->item[i].name);
	if (line[0] && y < in.y + in.h)
		bt_app_put(w, y++, in.x, in.w, ROLE_GOOD, line);
	if (y < in.y + in.h)
		bt_app_put(w, y++, in.x, in.w, ROLE_DIM, "benchtop doctor: what to do about each");
	return y;
}
