/*
 * bars.c - per-worker ops bars (fairness, starvation) and the CPU bar.
 *
 *   fairness 0.48  min 0  max 1.30M            <- min/max ratio, coloured
 *    0  1.30M ███████████████████████████
 *    1  1.21M █████████████████████████▏
 *    2      0                                  <- starved: red, no bar
 *
 * More workers than rows: several columns; when even those would leave no
 * room for a bar, one sparkline character per worker (block heights, or
 * digits 1-9 in ASCII), zero always shown as a red '0' / '.'.
 */
#include "tui/widgets.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"

/* A count: exact below 1000 ("7", not "7.00"), SI above ("12.3K"). */
static char *fmt_count(uint64_t v, char *buf, size_t n)
{
	if (v < 1000)
		snprintf(buf, n, "%" PRIu64, v);
	else
		bt_fmt_si((double)v, buf, n);
	return buf;
}

static const wchar_t eighth[8] = { 0, 0x258f, 0x258e, 0x258d, 0x258c, 0x258b, 0x258a, 0x2589 };

/* A bar of v/max over w cells (eighths in UTF-8); non-zero values get at least a sliver. */
static void hbar(WINDOW *win, struct bt_rect r, int y, int x, int w, double v, double max,
		 attr_t a, int utf8)
{
	int units;

	if (w <= 0 || !(v > 0) || !(max > 0))
		return;
	if (v > max)
		v = max;
	units = (int)(v / max * w * (utf8 ? 8 : 1) + 0.5);
	if (units < 1)
		units = 1;
	if (!utf8) {
		for (int i = 0; i < units; i++)
			bt_cell_draw(win, r, y, x + i, '#', a);
		return;
	}
	for (int i = 0; i < units / 8; i++)
		bt_cell_draw(win, r, y, x + i, 0x2588, a);
	if (units % 8)
		bt_cell_draw(win, r, y, x + units / 8, eighth[units % 8], a);
}

static int digits(int n)
{
	int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

static enum bt_role value_role(uint64_t v, uint64_t max)
{
	if (v == 0)
		return ROLE_BAD;
	if ((double)v < 0.5 * (double)max)
		return ROLE_WARN;
	return ROLE_BAR;
}

/*
 * One sparkline character per worker, rows of "first-index chars". Level
 * 1..8 (1..9 in ASCII) of the largest; zero is distinct from every level.
 */
static void draw_spark(WINDOW *win, struct bt_rect c, int y0, const uint64_t *vals, int n,
		       uint64_t max, int utf8)
{
	int idw = digits(n - 1), per = c.w - idw - 1, i = 0;

	if (per < 1) {
		idw = 0;
		per = c.w;
	}
	for (int y = y0; y < c.h && i < n; y++) {
		char lab[16];

		if (idw) {
			snprintf(lab, sizeof(lab), "%*d", idw, i);
			bt_text_draw(win, c, y, 0, lab, bt_role_attr(ROLE_LABEL), 0);
		}
		for (int k = 0; k < per && i < n; k++, i++) {
			int x = idw ? idw + 1 + k : k;
			attr_t a = bt_role_attr(value_role(vals[i], max));

			if (vals[i] == 0 || max == 0) {
				bt_cell_draw(win, c, y, x, utf8 ? '.' : '0', bt_role_attr(ROLE_BAD));
			} else if (utf8) {
				int lv = (int)ceil((double)vals[i] * 8 / (double)max);

				bt_cell_draw(win, c, y, x, 0x2580 + (lv < 1 ? 1 : lv > 8 ? 8 : lv), a);
			} else {
				int lv = (int)ceil((double)vals[i] * 9 / (double)max);

				bt_cell_draw(win, c, y, x, '0' + (lv < 1 ? 1 : lv > 9 ? 9 : lv), a);
			}
		}
	}
}

void bt_bars_draw(WINDOW *win, struct bt_rect r, const uint64_t *vals, int n, int utf8)
{
	struct bt_rect c = bt_rect_clip(win, r);
	uint64_t min = UINT64_MAX, max = 0;
	int top, rows, ncols, colw, idw, vw = 5, bw;
	char tmp[32];

	bt_rect_fill(win, c, bt_role_attr(ROLE_NORMAL));
	if (c.h < 1 || c.w < 1)
		return;
	if (vals == NULL || n <= 0) {
		bt_text_draw(win, c, 0, 0, "no workers", bt_role_attr(ROLE_DIM), 0);
		return;
	}
	for (int i = 0; i < n; i++) {
		if (vals[i] < min)
			min = vals[i];
		if (vals[i] > max)
			max = vals[i];
	}

	/* top line: fairness = min / max */
	{
		int x = bt_text_draw(win, c, 0, 0, "fairness ", bt_role_attr(ROLE_LABEL), 0);
		double f = max ? (double)min / (double)max : 0;
		enum bt_role fr = f >= 0.9 ? ROLE_GOOD : f >= 0.5 ? ROLE_WARN : ROLE_BAD;

		if (max)
			snprintf(tmp, sizeof(tmp), "%.2f", f);
		else
			snprintf(tmp, sizeof(tmp), "-");
		x += bt_text_draw(win, c, 0, x, tmp, bt_role_attr(max ? fr : ROLE_DIM), 0);
		x += bt_text_draw(win, c, 0, x, "  min ", bt_role_attr(ROLE_LABEL), 0);
		x += bt_text_draw(win, c, 0, x, fmt_count(min, tmp, sizeof(tmp)),
				  bt_role_attr(min ? ROLE_VALUE : ROLE_BAD), 0);
		x += bt_text_draw(win, c, 0, x, "  max ", bt_role_attr(ROLE_LABEL), 0);
		bt_text_draw(win, c, 0, x, fmt_count(max, tmp, sizeof(tmp)),
			     bt_role_attr(ROLE_VALUE), 0);
	}
	top = 1;
	rows = c.h - top;
	if (rows < 1)
		return;

	idw = digits(n - 1);
	ncols = (n + rows - 1) / rows;
	colw = (c.w + 2) / ncols;	/* two columns of gap between columns */
	bw = colw - 2 - idw - 1 - vw - 1;
	if (bw < 3) {
		draw_spark(win, c, top, vals, n, max, utf8);
		return;
	}
	for (int i = 0; i < n; i++) {
		int col = i / rows, y = top + i % rows, x = col * colw;
		struct bt_rect cell = { c.y, c.x + x, c.h, col == ncols - 1 ? c.w - x : colw - 2 };
		enum bt_role role = value_role(vals[i], max);
		int bwi = cell.w - idw - 1 - vw - 1;

		snprintf(tmp, sizeof(tmp), "%*d", idw, i);
		bt_text_draw(win, cell, y, 0, tmp, bt_role_attr(vals[i] ? ROLE_LABEL : ROLE_BAD), 0);
		fmt_count(vals[i], tmp, sizeof(tmp));
		bt_text_draw(win, cell, y, idw + 1 + vw - (int)strlen(tmp), tmp,
			     bt_role_attr(vals[i] ? ROLE_VALUE : ROLE_BAD), 0);
		hbar(win, cell, y, idw + 1 + vw + 1, bwi, (double)vals[i], (double)max,
		     bt_role_attr(role), utf8);
	}
}

/* --- CPU --------------------------------------------------------------- */

/*
 * A stacked bar of w cells: user cells, then sys cells, then an empty
 * track; each part rounded on the running total so they add up to w.
 */
static void cpu_bar(WINDOW *win, struct bt_rect c, int y, int x, int w, double user, double sys,
		    double cap, int utf8)
{
	int uc, tc;

	if (w <= 0)
		return;
	user = user > 0 ? user : 0;
	sys = sys > 0 ? sys : 0;
	uc = (int)lround(fmin(user / cap, 1) * w);
	tc = (int)lround(fmin((user + sys) / cap, 1) * w);
	for (int i = 0; i < w; i++) {
		if (i < uc)
			bt_cell_draw(win, c, y, x + i, utf8 ? 0x2588 : '#', bt_role_attr(ROLE_USER));
		else if (i < tc)
			bt_cell_draw(win, c, y, x + i, utf8 ? 0x2593 : '=', bt_role_attr(ROLE_SYS));
		else
			bt_cell_draw(win, c, y, x + i, utf8 ? 0x2591 : '.', bt_role_attr(ROLE_DIM));
	}
}

void bt_cpu_draw(WINDOW *win, struct bt_rect r, double user_pct, double sys_pct, int ncpus,
		 int utf8)
{
	struct bt_rect c = bt_rect_clip(win, r);
	double cap = (ncpus > 0 ? ncpus : 1) * 100.0;
	char tmp[64];
	int x = 0;

	bt_rect_fill(win, c, bt_role_attr(ROLE_NORMAL));
	if (c.h < 1 || c.w < 1)
		return;
	if (!isfinite(user_pct))
		user_pct = 0;
	if (!isfinite(sys_pct))
		sys_pct = 0;

	/* "█ user 350%  ▓ sys 120%  of 800% (8 CPUs)" */
	bt_cell_draw(win, c, 0, x, utf8 ? 0x2588 : '#', bt_role_attr(ROLE_USER));
	x += 2;
	x += bt_text_draw(win, c, 0, x, "user ", bt_role_attr(ROLE_LABEL), 0);
	snprintf(tmp, sizeof(tmp), "%.0f%%", user_pct);
	x += bt_text_draw(win, c, 0, x, tmp, bt_role_attr(ROLE_VALUE), 0);
	x += 2;
	bt_cell_draw(win, c, 0, x, utf8 ? 0x2593 : '=', bt_role_attr(ROLE_SYS));
	x += 2;
	x += bt_text_draw(win, c, 0, x, "sys ", bt_role_attr(ROLE_LABEL), 0);
	snprintf(tmp, sizeof(tmp), "%.0f%%", sys_pct);
	x += bt_text_draw(win, c, 0, x, tmp, bt_role_attr(ROLE_VALUE), 0);
	/* the capacity, long form when it fits, else short, else left out */
	snprintf(tmp, sizeof(tmp), "  of %.0f%% (%d CPU%s)", cap, ncpus > 0 ? ncpus : 1,
		 ncpus == 1 ? "" : "s");
	if (x + bt_text_width(tmp, 0) + (c.h >= 2 ? 0 : 8) > c.w)
		snprintf(tmp, sizeof(tmp), " /%.0f%%", cap);
	if (x + bt_text_width(tmp, 0) + (c.h >= 2 ? 0 : 8) <= c.w)
		x += bt_text_draw(win, c, 0, x, tmp, bt_role_attr(ROLE_DIM), 0);
	if (c.h >= 2)
		cpu_bar(win, c, 1, 0, c.w, user_pct, sys_pct, cap, utf8);
	else
		cpu_bar(win, c, 0, x + 2, c.w - x - 2, user_pct, sys_pct, cap, utf8);
}
