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

#include "core/hist.h"
#include "tui/theme.h"

struct bt_rect {
	int y, x, h, w;
};

/* A box with a title; focus draws it in ROLE_FOCUS. Returns the inner rect. */
struct bt_rect bt_box_draw(WINDOW *win, struct bt_rect r, const char *title, int focus, int utf8);

/* --- line chart: throughput over time ----------------------------------- */

struct bt_series {
	const double *x;	/* [n] x values (e.g. seconds) */
	const double *y;	/* [n] y values (e.g. ops/s) */
	int n;
	enum bt_role role;
	int highlight;		/* drawn last and in ROLE_HIGHLIGHT */
	const char *label;	/* legend */
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
};

/*
 * Draw axes with labelled ticks (y: 3-5 nice SI values with unit; x: min and
 * max at least) and the series as braille dots (utf8: 2x4 dots per cell) or
 * ASCII '*'/'.'. The y axis label width is taken from the rect.
 */
void bt_chart_draw(WINDOW *win, struct bt_rect r, const struct bt_chart_model *m, int utf8);

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

/* --- progress ---------------------------------------------------------- */

/* "[#####.....] cell 3/14 rep 2/6 ETA 12s" */
void bt_progress_draw(WINDOW *win, struct bt_rect r, double frac, const char *text, int utf8);

#endif
