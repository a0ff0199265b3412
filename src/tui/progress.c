/*
 * progress.c - the sweep's progress bar.
 *
 *   [##########..........]  50%  cell 3/14 rep 2/6 ETA 12s      (ASCII)
 *   ██████████▌░░░░░░░░░░  50%  cell 3/14 rep 2/6 ETA 12s      (UTF-8)
 *
 * Drawn on the first row of the rect. The text is the caller's; when the
 * rect is too narrow for a useful bar the bar goes first, the text stays.
 */
#include "tui/widgets.h"

#include <math.h>
#include <stdio.h>

void bt_progress_draw(WINDOW *win, struct bt_rect r, double frac, const char *text, int utf8)
{
	static const wchar_t eighth[8] = { 0, 0x258f, 0x258e, 0x258d, 0x258c, 0x258b, 0x258a, 0x2589 };
	struct bt_rect c = bt_rect_clip(win, r);
	char pct[16];
	int tw, bw, x = 0;

	bt_rect_fill(win, c, bt_role_attr(ROLE_NORMAL));
	if (c.h < 1 || c.w < 1)
		return;
	if (!(frac >= 0))
		frac = 0;	/* also NaN */
	if (frac > 1)
		frac = 1;
	snprintf(pct, sizeof(pct), "%3d%%", (int)floor(frac * 100));
	tw = 1 + (int)(sizeof("100%") - 1) + (text && *text ? 2 + bt_text_width(text, utf8) : 0);
	bw = c.w - tw - (utf8 ? 0 : 2);
	if (bw >= 6) {
		if (utf8) {
			int units = (int)(frac * bw * 8);

			for (int i = 0; i < bw; i++) {
				int u = units - i * 8;

				if (u >= 8)
					bt_cell_draw(win, c, 0, i, 0x2588, bt_role_attr(ROLE_BAR));
				else if (u > 0)
					bt_cell_draw(win, c, 0, i, eighth[u], bt_role_attr(ROLE_BAR));
				else
					bt_cell_draw(win, c, 0, i, 0x2591, bt_role_attr(ROLE_DIM));
			}
			x = bw;
		} else {
			int n = (int)(frac * bw);

			bt_cell_draw(win, c, 0, 0, '[', bt_role_attr(ROLE_BORDER));
			for (int i = 0; i < bw; i++)
				bt_cell_draw(win, c, 0, 1 + i, i < n ? '#' : '.',
					     bt_role_attr(i < n ? ROLE_BAR : ROLE_DIM));
			bt_cell_draw(win, c, 0, bw + 1, ']', bt_role_attr(ROLE_BORDER));
			x = bw + 2;
		}
		x++;
	}
	x += bt_text_draw(win, c, 0, x, pct, bt_role_attr(ROLE_VALUE), 0);
	if (text && *text)
		bt_text_draw(win, c, 0, x + 2, text, bt_role_attr(ROLE_NORMAL), utf8);
}
