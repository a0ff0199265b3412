/*
 * app.c - the small layer the TUI screens depend on: drawing a line of text
 * in a role and setting the status line. Screens include tui/app.h and call
 * these; tui.c only dispatches keys and renders, so no screen depends on the
 * main loop (tmux's screen vs tty split).
 */
#include <stdarg.h>
#include <stdio.h>

#include "tui/app.h"

/* UTF-8 or ASCII text; set once when the terminal opens (main thread). */
static int g_utf8;

void bt_app_text_mode(int utf8)
{
	g_utf8 = utf8;
}

void bt_app_clear(WINDOW *w, struct bt_rect r)
{
	bt_rect_fill(w, r, bt_role_attr(ROLE_NORMAL));
}

void bt_app_put(WINDOW *w, int y, int x, int maxw, enum bt_role role, const char *text)
{
	struct bt_rect r = { y, x, 1, maxw };

	if (maxw > 0)
		bt_text_draw(w, r, 0, 0, text, bt_role_attr(role), g_utf8);
}

void bt_app_putf(WINDOW *w, int y, int x, int maxw, enum bt_role role, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	bt_app_put(w, y, x, maxw, role, buf);
}

void bt_app_status(struct bt_app *a, enum bt_role role, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->status, sizeof(a->status), fmt, ap);
	va_end(ap);
	a->status_role = role;
	a->dirty |= DIRTY_STATUS;
}
