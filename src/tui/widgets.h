/*
 * widgets.h - drawing widgets. Each draws a model it is handed into a
 * rectangle of a WINDOW and changes nothing else: no state, no refresh, no
 * getch. Characters: Unicode (braille / block elements) when utf8 is set,
 * plain ASCII otherwise. Colours come from theme roles (theme.h).
 */
#ifndef BT_TUI_WIDGETS_H
#define BT_TUI_WIDGETS_H

#include <ncurses.h>
#include <stdint.h>
#include <wchar.h>

#include "core/hist.h"
#include "tui/theme.h"

struct bt_rect {
	int y, x, h, w;
};

/*
 * A box with a title; focus draws it in ROLE_FOCUS. Clears the inside.
 * Returns the inner rect (h, w 0 when r is too small for a border).
 */
struct bt_rect bt_box_draw(WINDOW *win, struct bt_rect r, const char *title, int focus, int utf8);

/* --- drawing primitives (the widgets use them; so may screens) ----------- */

/* r clipped to the window (h, w >= 0; y, x inside it when h, w > 0). */
struct bt_rect bt_rect_clip(WINDOW *win, struct bt_rect r);

/* Fill r (clipped) with spaces in attr. */
void bt_rect_fill(WINDOW *win, struct bt_rect r, attr_t attr);

/* Columns that UTF-8 string s takes (utf8 0: one per byte). */
int bt_text_width(const char *s, int utf8);

/*
 * Draw UTF-8 s at row y, column x relative to r, clipped to r (a wide
 * character that does not fit entirely is left out). utf8 0: bytes >= 0x80
 * and control characters are drawn as '?'. Returns the columns advanced.
 */
int bt_text_draw(WINDOW *win, struct bt_rect r, int y, int x, const char *s, attr_t attr,
		 int utf8);

/* One character at row y, column x relative to r; nothing when outside r. */
void bt_cell_draw(WINDOW *win, struct bt_rect r, int y, int x, wchar_t wc, attr_t attr);

/*
 * Drop trailing zeros after a number's decimal point, in place, keeping any
 * unit after it: "2.50M" -> "2.5M", "1.00us" -> "1us". Exponent forms
 * ("1.0e-05") are left alone.
 */
void bt_text_trim_zeros(char *s);

/* --- line chart: throughput over time ----------------------------------- */

struct bt_series {
	const double *x;	/* [n] x values (e.g. seconds) */
	const double *y;	/* [n] y values (e.g. ops/s) */
	int n;
	enum bt_role role;
	int highlight;		/* drawn last and in ROLE_HIGHLIGHT */
	const char *label;	/* legend */
};

/* A vertical line across the plot at x, its label at the top (explore: a change). */
struct bt_chart_marker {
	double x;
	const char *label;	/* "threads=4"; NULL: none */
};

struct bt_chart_model {
	const char *yunit;	/* "items/s": the y axis labels are SI-scaled ("1.2M") */
	const char *xunit;	/* "s" */
	double xmin, xmax;	/* xmax <= xmin: fit the data */
	double ymin, ymax;	/* ymax <= ymin: 0 .. a "nice" ceiling over the data */
	int logx;		/* log2 x axis (the scaling chart over threads) */
	int nseries;
	const struct bt_series *series;
	const struct bt_series *ideal;	/* optional dashed reference line, ROLE_IDEAL */
	int glyphs;		/* no colour (NO_COLOR): each series in its own glyph */
	int nmarkers;		/* vertical markers, in x order (may be 0) */
	const struct bt_chart_marker *markers;
};

/*
 * The glyph of series i when the chart has no colour to tell series apart
 * (model.glyphs): a filled circle, square, triangle ... (UTF-8) or * + o x
 * # @ % & (ASCII), repeating after 8. Every cell a series passes through
 * gets it, and the legend shows it.
 */
int bt_chart_glyph(int i, int utf8);

/*
 * Draw axes with labelled ticks (y: 3-5 nice SI values with unit; x: min and
 * max at least) and the series as braille dots (utf8: 2x4 dots per cell) or
 * ASCII line characters ('-' '/' '\\' '|', '*' at the points of a sparse
 * series, '.' dashes for the ideal line). The y axis label width is taken
 * from the rect. Legend on the top row, the highlighted series first; the y
 * range fits the series only (the ideal line is clipped at the top). With
 * model.glyphs the series are told apart by glyph (bt_chart_glyph), not role.
 */
void bt_chart_draw(WINDOW *win, struct bt_rect r, const struct bt_chart_model *m, int utf8);
/*
 * Markers (model.markers) are drawn as a dim vertical line (│ or |) through
 * the plot's empty cells, each labelled on the top row right of its line,
 * up to the next marker: the whole label when it fits, else its value (the
 * part after '='), else nothing.
 */

/*
 * Which point of model m, drawn in r by bt_chart_draw, is at cell (y, x) of
 * the window: among the points drawn within BT_CHART_HIT_COLS columns of x,
 * the nearest (a row counted as two columns; a point beyond the y range
 * counts at the plot's edge, where its line leaves it). The click may be on
 * the plot or on its x axis row. 1 with *series and *point (indexes into m->series
 * and its x/y) set; 0 when (y, x) is off the plot or no point is that near.
 */
#define BT_CHART_HIT_COLS 2
int bt_chart_hit(WINDOW *win, struct bt_rect r, const struct bt_chart_model *m, int utf8, int y,
		 int x, int *series, int *point);

/* The nice axis ceiling used for data max v (1, 2, 2.5, 5 x 10^k >= v); exported for tests. */
double bt_chart_nice_ceiling(double v);

/* --- latency histogram ------------------------------------------------- */

/*
 * Horizontal log-scaled latency histogram: one row per log bucket band
 * (powers of two or of 10^(1/k) as fits the height) from min to max, bar
 * length ~ count (log or linear: linear), with the rows that contain p50,
 * p90, p99, p99.9 and max marked at the right ("p99 1.23ms") in their roles.
 * An empty histogram draws "no latencies recorded".
 */
void bt_histo_draw(WINDOW *win, struct bt_rect r, const struct bt_hist *h, int utf8);

/* --- per-thread bars --------------------------------------------------- */

/*
 * One bar per worker (ops in the last interval, or totals), scaled to the
 * largest, labelled with the worker index and value; when there are more
 * workers than rows, several per row in columns, or a compact sparkline.
 * Shows min/max ratio ("fairness 0.93") in the top line.
 */
void bt_bars_draw(WINDOW *win, struct bt_rect r, const uint64_t *vals, int n, int utf8);

/*
 * CPU use as one stacked bar, user then sys (ROLE_USER, ROLE_SYS), over
 * ncpus * 100 %; user_pct and sys_pct are % of one CPU (as in bt_sample:
 * 350 = three and a half CPUs busy). One row: label and bar; two or more:
 * "user 350%  sys 120%  of 8 CPUs" above the bar.
 */
void bt_cpu_draw(WINDOW *win, struct bt_rect r, double user_pct, double sys_pct, int ncpus,
		 int utf8);

/* --- progress ---------------------------------------------------------- */

/* "[#####.....] cell 3/14 rep 2/6 ETA 12s" */
void bt_progress_draw(WINDOW *win, struct bt_rect r, double frac, const char *text, int utf8);

#endif
