/*
 * test_widgets.c - themes and widgets, drawn into off-screen ncurses pads
 * and read back cell by cell: where the bars, markers and labels land,
 * that nothing is written outside the rect, that tiny rects are safe and
 * that ASCII mode writes only ASCII.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include <cmocka.h>

#include "bt_config.h"
#include "core/hist.h"
#include "tui/app.h"
#include "tui/theme.h"
#include "tui/widgets.h"

#define SENTINEL L'~'

static SCREEN *scr;
static FILE *scr_out, *scr_in;

/* --- screen and cell helpers -------------------------------------------- */

/*
 * One off-screen terminal for the whole group: output to /dev/null, input
 * from /dev/null, a UTF-8 locale so wide characters are stored as drawn.
 */
static int setup_screen(void **state)
{
	const char *types[] = { "xterm-256color", "xterm", "vt100" };

	(void)state;
	if (setlocale(LC_ALL, "C.UTF-8") == NULL)
		setlocale(LC_ALL, "");
	scr_out = fopen("/dev/null", "w");
	scr_in = fopen("/dev/null", "r");
	if (scr_out == NULL || scr_in == NULL)
		return -1;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]) && scr == NULL; i++)
		scr = newterm(types[i], scr_out, scr_in);
	if (scr == NULL)
		return -1;
	start_color();
	return 0;
}

static int teardown_screen(void **state)
{
	(void)state;
	if (scr) {
		endwin();
		delscreen(scr);
		scr = NULL;
	}
	if (scr_out)
		fclose(scr_out);
	if (scr_in)
		fclose(scr_in);
	return 0;
}

static WINDOW *pad_new(int h, int w)
{
	WINDOW *p = newpad(h, w);

	assert_non_null(p);
	return p;
}

/* Fill every cell of p with the sentinel. */
static void pad_sentinel(WINDOW *p)
{
	int h, w;

	getmaxyx(p, h, w);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			mvwaddch(p, y, x, SENTINEL);
}

static wchar_t cell(WINDOW *p, int y, int x)
{
	cchar_t cc;
	wchar_t wc[CCHARW_MAX + 1] = { 0 };
	attr_t a;
	short pair;

	if (mvwin_wch(p, y, x, &cc) == ERR)
		return 0;
	getcchar(&cc, wc, &a, &pair, NULL);
	return wc[0];
}

static attr_t cell_attr(WINDOW *p, int y, int x)
{
	cchar_t cc;
	wchar_t wc[CCHARW_MAX + 1] = { 0 };
	attr_t a = 0;
	short pair = 0;

	if (mvwin_wch(p, y, x, &cc) == ERR)
		return 0;
	getcchar(&cc, wc, &a, &pair, NULL);
	return a | (attr_t)COLOR_PAIR(pair);
}

/* Row y from column x0, n cells, as a wide string (buf holds n + 1). */
static wchar_t *row(WINDOW *p, int y, int x0, int n, wchar_t *buf)
{
	for (int i = 0; i < n; i++)
		buf[i] = cell(p, y, x0 + i);
	buf[n] = 0;
	return buf;
}

/* The first row of p (from x0, n wide) that contains s; -1 when none. */
static int find_row(WINDOW *p, const wchar_t *s)
{
	wchar_t buf[512];
	int h, w;

	getmaxyx(p, h, w);
	for (int y = 0; y < h; y++)
		if (wcsstr(row(p, y, 0, w < 511 ? w : 511, buf), s))
			return y;
	return -1;
}

static int count_in_row(WINDOW *p, int y, int x0, int n, wchar_t c)
{
	int k = 0;

	for (int x = x0; x < x0 + n; x++)
		k += cell(p, y, x) == c;
	return k;
}

/* Partial block characters (one to seven eighths) in row y. */
static int count_partial(WINDOW *p, int y, int n)
{
	int k = 0;

	for (int x = 0; x < n; x++)
		k += cell(p, y, x) >= 0x2589 && cell(p, y, x) <= 0x258f;
	return k;
}

static int is_braille(wchar_t c)
{
	return c > 0x2800 && c <= 0x28ff;
}

/* Every cell outside r (clipped to p) still holds the sentinel. */
static void assert_outside_untouched(WINDOW *p, struct bt_rect r, const char *what)
{
	struct bt_rect c = bt_rect_clip(p, r);
	int h, w;

	getmaxyx(p, h, w);
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			int in = y >= c.y && y < c.y + c.h && x >= c.x && x < c.x + c.w;

			if (!in && cell(p, y, x) != SENTINEL)
				fail_msg("%s: rect %d,%d %dx%d: cell %d,%d written (U+%04X)", what,
					 r.y, r.x, r.h, r.w, y, x, (unsigned)cell(p, y, x));
		}
	}
}

static void assert_all_ascii(WINDOW *p, const char *what)
{
	int h, w;

	getmaxyx(p, h, w);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			if (cell(p, y, x) >= 0x80)
				fail_msg("%s: cell %d,%d is U+%04X in ASCII mode", what, y, x,
					 (unsigned)cell(p, y, x));
}

/* --- sample models --------------------------------------------------------- */

struct sample {
	double x[40], y[40], x2[40], y2[40], ix[7], iy[7], tx[7], ty[7];
	struct bt_series s[2], ts, ideal;
	struct bt_chart_model m, scaling;
	struct bt_hist *h;
	uint64_t vals[12];
};

static void sample_init(struct sample *sm)
{
	memset(sm, 0, sizeof(*sm));
	for (int i = 0; i < 40; i++) {
		sm->x[i] = sm->x2[i] = i * 0.25;
		sm->y[i] = 950e3 * i / 39;
		sm->y2[i] = 400e3 + 100e3 * sin(i);
	}
	sm->s[0] = (struct bt_series){ sm->x, sm->y, 40, ROLE_SERIES0, 0, "threads=1" };
	sm->s[1] = (struct bt_series){ sm->x2, sm->y2, 40, ROLE_SERIES1, 1, "threads=2" };
	sm->m = (struct bt_chart_model){ .yunit = "items/s", .xunit = "s", .nseries = 2,
					 .series = sm->s };
	for (int i = 0; i < 7; i++) {
		sm->tx[i] = sm->ix[i] = 1 << i;
		sm->ty[i] = 1e6 * (i + 1);
		sm->iy[i] = 1e6 * (1 << i);
	}
	sm->ts = (struct bt_series){ sm->tx, sm->ty, 7, ROLE_SERIES2, 0, "mutex" };
	sm->ideal = (struct bt_series){ sm->ix, sm->iy, 7, ROLE_IDEAL, 0, "ideal" };
	sm->scaling = (struct bt_chart_model){ .yunit = "items/s", .xunit = "threads", .logx = 1,
					       .nseries = 1, .series = &sm->ts,
					       .ideal = &sm->ideal };
	sm->h = bt_hist_new();
	assert_non_null(sm->h);
	for (int i = 0; i < 1000; i++)
		bt_hist_record(sm->h, 1000);
	for (int i = 0; i < 5; i++)
		bt_hist_record(sm->h, 1000000);
	for (int i = 0; i < 12; i++)
		sm->vals[i] = 1000 + 100 * (uint64_t)i;
	sm->vals[3] = 0;
}

static void sample_free(struct sample *sm)
{
	bt_hist_free(sm->h);
}

#define NWIDGETS 10

/* Draw widget k (0..NWIDGETS-1) of the sample into p at r. */
static int draw_widget(int k, WINDOW *p, struct bt_rect r, const struct sample *sm, int utf8)
{
	switch (k) {
	case 0:
		bt_chart_draw(p, r, &sm->m, utf8);
		return 1;
	case 1:
		bt_chart_draw(p, r, &sm->scaling, utf8);
		return 1;
	case 2:
		bt_histo_draw(p, r, sm->h, utf8);
		return 1;
	case 3:
		bt_bars_draw(p, r, sm->vals, 12, utf8);
		return 1;
	case 4:
		bt_progress_draw(p, r, 0.42, "cell 3/14 rep 2/6 ETA 12s", utf8);
		return 1;
	case 5:
		bt_cpu_draw(p, r, 350, 120, 8, utf8);
		return 1;
	case 6:
		bt_box_draw(p, r, "Title", 1, utf8);
		return 1;
	case 7:
		bt_histo_draw(p, r, NULL, utf8);
		return 1;
	case 8: {
		uint64_t many[200];

		for (int i = 0; i < 200; i++)
			many[i] = (uint64_t)i * 37 % 101;
		bt_bars_draw(p, r, many, 200, utf8);
		return 1;
	}
	case 9:
		bt_text_draw(p, r, 0, 1, "wide \xe4\xb8\xad\xe6\x96\x87 text \xc2\xb5s", 0, utf8);
		return 1;
	default:
		return 0;
	}
}

/* --- chart --------------------------------------------------------------- */

static void test_nice_ceiling(void **state)
{
	static const struct {
		double v, want;
	} cases[] = {
		{ 950e3, 1e6 }, { 3.2e6, 5e6 }, { 1e6, 1e6 }, { 1.0, 1.0 }, { 1.5, 2 },
		{ 2.0, 2.0 }, { 2.1, 2.5 }, { 2.5, 2.5 }, { 2.6, 5 }, { 5.01, 10 },
		{ 0.3, 0.5 }, { 7e9, 1e10 }, { 120, 200 }, { 240e3, 250e3 }, { 0, 1 },
		{ -5, 1 }, { NAN, 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double got = bt_chart_nice_ceiling(cases[i].v);

		if (fabs(got - cases[i].want) > 1e-9 * cases[i].want)
			fail_msg("nice_ceiling(%g) = %.17g, want %g", cases[i].v, got, cases[i].want);
	}
}

/*
 * Data max 950K: the top label is "1M" on the first plot row, "0" on the
 * last, and the highest point is drawn in the top plot row.
 */
static void test_chart_axis(void **state)
{
	struct sample sm;
	WINDOW *p = pad_new(20, 60);
	wchar_t buf[64];
	int top_row = -1;

	(void)state;
	sample_init(&sm);
	sm.m.nseries = 1;
	bt_chart_draw(p, (struct bt_rect){ 0, 0, 20, 60 }, &sm.m, 1);
	/* header row: unit and legend */
	assert_non_null(wcsstr(row(p, 0, 0, 60, buf), L"items/s"));
	assert_non_null(wcsstr(buf, L"threads=1"));
	/* header row 0, plot rows 1..17, axis row 18, x labels row 19 */
	assert_int_equal(find_row(p, L"1M\x2524"), 1);
	assert_int_equal(find_row(p, L"  0\x2524"), 20 - 3);
	assert_int_equal(cell(p, 20 - 2, 4), 0x2514);	/* corner: gutter "250K" is 4 wide */
	/* the highest braille dot is in the top plot row */
	for (int y = 0; y < 20 && top_row < 0; y++)
		for (int x = 4; x < 60; x++)
			if (is_braille(cell(p, y, x))) {
				top_row = y;
				break;
			}
	assert_int_equal(top_row, 1);
	/* x labels: min and max */
	assert_non_null(wcsstr(row(p, 19, 0, 60, buf), L"0"));
	assert_non_null(wcsstr(buf, L"9.75"));
	assert_non_null(wcsstr(buf, L"s"));

	/* max 3.2M: ceiling 5M, ticks every 1M */
	for (int i = 0; i < 40; i++)
		sm.y[i] = 3.2e6 * i / 39;
	bt_chart_draw(p, (struct bt_rect){ 0, 0, 20, 60 }, &sm.m, 1);
	assert_int_equal(find_row(p, L"5M\x2524"), 1);
	assert_true(find_row(p, L"4M\x2524") > 1);
	assert_true(find_row(p, L"1M\x2524") > find_row(p, L"4M\x2524"));
	/* the top plot row is 3.2M/5M = 64% up: no dots in the top rows */
	for (int x = 3; x < 60; x++)
		assert_false(is_braille(cell(p, 1, x)));
	delwin(p);
	sample_free(&sm);
}

/*
 * Clicking a chart point (bt_chart_hit): in ASCII a sparse series marks its
 * points with '*'. Each mark hits its own point; two series at the same x
 * are told apart by the row; every cell that hits anything is within
 * BT_CHART_HIT_COLS columns of the point it hits; the header, the y labels
 * and the cells far from every point hit nothing.
 */
static void test_chart_hit(void **state)
{
	double x[7], up[7], down[7];
	struct bt_series s[2] = {
		{ x, up, 7, ROLE_SERIES0, 0, "up" }, { x, down, 7, ROLE_SERIES1, 0, "down" } };
	struct bt_chart_model m = { .yunit = "items/s", .xunit = "threads", .logx = 1,
				    .nseries = 1, .series = s };
	struct bt_rect r = { 0, 0, 20, 60 };
	WINDOW *p = pad_new(20, 60);
	int k, i, marks = 0, col[7];

	(void)state;
	for (int j = 0; j < 7; j++) {
		x[j] = 1 << j;
		up[j] = 1e6 * (j + 1);
		down[j] = 1e6 * (7 - j);
	}
	bt_chart_draw(p, r, &m, 0);
	/* The marks, left to right, are the points in order (row 0: the legend's). */
	for (int cx = 0; cx < 60; cx++)
		for (int cy = 1; cy < 20; cy++) {
			if (cell(p, cy, cx) != '*')
				continue;
			assert_true(marks < 7);
			assert_int_equal(bt_chart_hit(p, r, &m, 0, cy, cx, &k, &i), 1);
			assert_int_equal(k, 0);
			assert_int_equal(i, marks);
			col[marks++] = cx;
		}
	assert_int_equal(marks, 7);
	for (int cy = 0; cy < 20; cy++)
		for (int cx = 0; cx < 60; cx++) {
			if (!bt_chart_hit(p, r, &m, 0, cy, cx, &k, &i))
				continue;
			assert_true(abs(cx - col[i]) <= BT_CHART_HIT_COLS);
			assert_true(cy >= 1);		/* not the header */
			assert_true(cx >= col[0] - BT_CHART_HIT_COLS);
		}
	assert_int_equal(bt_chart_hit(p, r, &m, 0, 0, col[3], &k, &i), 0);	/* header row */
	assert_int_equal(bt_chart_hit(p, r, &m, 0, 5, 0, &k, &i), 0);	/* y labels */
	assert_int_equal(bt_chart_hit(p, r, &m, 0, 5, (col[5] + col[6]) / 2, &k, &i),
			 col[6] - col[5] <= 2 * BT_CHART_HIT_COLS);	/* between two far points */

	/* Two series crossing: at the first x the top mark is "down"'s, the bottom one "up"'s. */
	m.nseries = 2;
	bt_chart_draw(p, r, &m, 0);
	{
		int top = -1, bottom = -1;

		for (int cy = 1; cy < 20; cy++)
			if (cell(p, cy, col[0]) == '*') {
				if (top < 0)
					top = cy;
				bottom = cy;
			}
		assert_true(top >= 0 && bottom > top);
		assert_int_equal(bt_chart_hit(p, r, &m, 0, top, col[0], &k, &i), 1);
		assert_int_equal(k, 1);
		assert_int_equal(i, 0);
		assert_int_equal(bt_chart_hit(p, r, &m, 0, bottom, col[0], &k, &i), 1);
		assert_int_equal(k, 0);
		assert_int_equal(i, 0);
	}
	/* Past the top of a fixed y range (the scaling chart's ideal line sets one): the top row. */
	m.nseries = 1;
	m.ymin = 0;
	m.ymax = 3e6;
	bt_chart_draw(p, r, &m, 0);
	assert_int_equal(bt_chart_hit(p, r, &m, 0, 1, col[6], &k, &i), 1);
	assert_int_equal(k, 0);
	assert_int_equal(i, 6);
	delwin(p);
}

/* The highlighted series is drawn in ROLE_HIGHLIGHT and listed first in the legend. */
static void test_chart_highlight(void **state)
{
	struct sample sm;
	struct bt_theme t;
	WINDOW *p = pad_new(20, 60);
	wchar_t buf[64];
	int found = 0;

	(void)state;
	sample_init(&sm);
	bt_theme_default(&t);
	unsetenv("NO_COLOR");
	bt_theme_apply(&t, 1);
	bt_chart_draw(p, (struct bt_rect){ 0, 0, 20, 60 }, &sm.m, 1);
	row(p, 0, 0, 60, buf);
	assert_true(wcsstr(buf, L"threads=2") < wcsstr(buf, L"threads=1"));
	for (int y = 1; y < 17; y++)
		for (int x = 4; x < 60; x++)
			if (is_braille(cell(p, y, x)) &&
			    (cell_attr(p, y, x) & A_COLOR) == (bt_role_attr(ROLE_HIGHLIGHT) & A_COLOR))
				found++;
	if (has_colors())
		assert_true(found > 10);
	delwin(p);
	sample_free(&sm);
	bt_theme_apply(&t, 0);
}

/* Without colour (NO_COLOR) each series is drawn and named by its own glyph, not by role. */
static void test_chart_glyphs(void **state)
{
	struct sample sm;
	WINDOW *p = pad_new(20, 60);
	wchar_t buf[64];
	int g0 = 0, g1 = 0, braille = 0;

	(void)state;
	assert_int_equal(bt_chart_glyph(0, 1), 0x25cf);
	assert_int_equal(bt_chart_glyph(1, 1), 0x25a0);
	assert_int_equal(bt_chart_glyph(8, 1), 0x25cf);		/* repeats after 8 */
	assert_int_equal(bt_chart_glyph(3, 0), 'x');
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < i; j++)
			assert_true(bt_chart_glyph(i, 1) != bt_chart_glyph(j, 1) &&
				    bt_chart_glyph(i, 0) != bt_chart_glyph(j, 0));
	sample_init(&sm);
	sm.m.glyphs = 1;
	bt_chart_draw(p, (struct bt_rect){ 0, 0, 20, 60 }, &sm.m, 1);
	row(p, 0, 0, 60, buf);
	assert_non_null(wcsstr(buf, L"\u25a0 threads=2"));	/* the legend names each by its glyph */
	assert_non_null(wcsstr(buf, L"\u25cf threads=1"));
	for (int y = 1; y < 17; y++)
		for (int x = 4; x < 60; x++) {
			g0 += cell(p, y, x) == 0x25cf;
			g1 += cell(p, y, x) == 0x25a0;
			braille += is_braille(cell(p, y, x));
		}
	assert_true(g0 > 10 && g1 > 10);
	assert_int_equal(braille, 0);
	delwin(p);
	sample_free(&sm);
}

/*
 * Markers (explore's changes): a vertical line through the plot at each x,
 * labelled on the top plot row up to the next marker; a label with no room
 * keeps its value (after '=').
 */
static void test_chart_markers(void **state)
{
	static const struct bt_chart_marker mk[] = {
		{ 2.5, "threads=4" }, { 5, "lock=spin" }, { 6.5, "pin=compact" },
	};
	struct sample sm;
	WINDOW *p = pad_new(20, 60);
	wchar_t buf[64], *at;
	int col, lines = 0;

	(void)state;
	sample_init(&sm);
	sm.m.nseries = 1;
	sm.m.markers = mk;
	sm.m.nmarkers = 3;
	bt_chart_draw(p, (struct bt_rect){ 0, 0, 20, 60 }, &sm.m, 1);
	row(p, 1, 0, 60, buf);
	assert_non_null(wcsstr(buf, L"\x2502threads=4"));
	assert_non_null(wcsstr(buf, L"\x2502spin"));		/* "lock=spin" has no room before the next */
	assert_null(wcsstr(buf, L"lock=spin"));
	assert_non_null(wcsstr(buf, L"\x2502pin=compact"));
	at = wcsstr(buf, L"\x2502threads=4");
	col = (int)(at - buf);
	assert_true(col > 5);
	for (int y = 1; y < 17; y++)
		lines += cell(p, y, col) == 0x2502;
	assert_true(lines >= 12);		/* the line runs down the plot, around the data */
	delwin(p);
	sample_free(&sm);
}

/* A legend that cannot hold every series counts the rest: "+N more". */
static void test_chart_legend_more(void **state)
{
	struct sample sm;
	struct bt_series ser[14];
	char labels[14][32];
	WINDOW *p = pad_new(12, 80);
	wchar_t buf[96], *more;
	int shown = 0, n = 0;

	(void)state;
	sample_init(&sm);
	for (int i = 0; i < 14; i++) {
		snprintf(labels[i], sizeof(labels[i]), "threads=%d notify=x", i + 1);
		ser[i] = (struct bt_series){ sm.x, sm.y, 40, ROLE_SERIES0, i == 3, labels[i] };
	}
	sm.m.series = ser;
	sm.m.nseries = 14;
	bt_chart_draw(p, (struct bt_rect){ 0, 0, 12, 80 }, &sm.m, 1);
	row(p, 0, 0, 80, buf);
	more = wcsstr(buf, L"+");
	assert_non_null(more);
	assert_int_equal(swscanf(more, L"+%d more", &n), 1);
	for (wchar_t *w = buf; (w = wcsstr(w, L"threads=")) != NULL; w++)
		shown++;
	assert_true(shown >= 1);
	assert_int_equal(shown + n, 14);		/* every series is either shown or counted */
	assert_true(wcsstr(buf, L"threads=4 ") < more);	/* the highlighted one first */
	delwin(p);
	sample_free(&sm);
}

/* Progress within a rep: from the duration, the ops quota, or the announced fixed work. */
static void test_rep_progress(void **state)
{
	struct bt_snapshot s;
	double frac, eta;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.state = BT_RUN_RUNNING;
	s.ncells = 2;
	s.reps_per_cell = 2;
	s.eta_s = -1;
	s.rep_duration_s = 2;
	s.rep_elapsed_s = 0.5;
	assert_true(fabs(bt_live_rep_frac(&s) - 0.25) < 1e-9);
	bt_live_progress(&s, &frac, &eta);
	assert_true(fabs(frac - 0.25 / 4) < 1e-9);
	assert_true(fabs(eta - (1.5 + 3 * 2)) < 1e-9);	/* first rep: its own pace */
	s.rep_duration_s = 0;
	s.rep_ops_quota = 1000;
	s.sample_seq = 1;
	s.last.ops = 600;
	assert_true(fabs(bt_live_rep_frac(&s) - 0.6) < 1e-9);
	s.last.rep = 1;				/* a sample of another rep says nothing */
	assert_true(bt_live_rep_frac(&s) == 0);
	s.last.rep = 0;
	s.rep_ops_quota = 0;
	s.rep_total_ops = 300;
	assert_true(bt_live_rep_frac(&s) == 1);	/* clamped */
	s.rep_total_ops = 0;
	assert_true(bt_live_rep_frac(&s) == 0);	/* nothing says */
	s.cell = 1;
	s.rep = 1;
	s.reps_done = 3;			/* the snapshot's count, whatever the order */
	s.rep_total_ops = 1200;
	s.last.cell = 1;
	s.last.rep = 1;
	s.eta_s = 4;					/* the runner: 1 rep left at 4 s */
	bt_live_progress(&s, &frac, &eta);
	assert_true(fabs(frac - 3.5 / 4) < 1e-9);
	assert_true(fabs(eta - 2) < 1e-9);
	s.state = BT_RUN_DONE;
	bt_live_progress(&s, &frac, &eta);
	assert_true(frac == 1 && eta == 0);
}

/* The scaling chart: log2 x labels at powers of two, the ideal line dashed under the data. */
static void test_chart_scaling(void **state)
{
	struct sample sm;
	WINDOW *p = pad_new(24, 70);
	wchar_t buf[80];

	(void)state;
	sample_init(&sm);
	bt_chart_draw(p, (struct bt_rect){ 0, 0, 24, 70 }, &sm.scaling, 1);
	row(p, 23, 0, 70, buf);
	assert_non_null(wcsstr(buf, L"threads"));
	assert_non_null(wcsstr(buf, L" 1 "));
	assert_non_null(wcsstr(buf, L" 8 "));
	assert_non_null(wcsstr(buf, L"64"));
	/* y fits the series (7M -> 10M), not the ideal line (64M) */
	assert_int_equal(find_row(p, L"10M\x2524"), 1);
	assert_non_null(wcsstr(row(p, 0, 0, 70, buf), L"ideal"));
	delwin(p);
	sample_free(&sm);
}

/* --- histogram --------------------------------------------------------- */

/*
 * 1000 values at 1000 ns and 5 at 1 ms: p50 (and p90, p99) are 1.00us on
 * the row with the longest bar; p99.9 and max are 1.00ms further down.
 */
static void test_histo_markers(void **state)
{
	struct sample sm;
	WINDOW *p = pad_new(16, 70);
	wchar_t buf[80];
	int r50, rmax, best = -1, bestlen = -1;

	(void)state;
	sample_init(&sm);
	bt_histo_draw(p, (struct bt_rect){ 0, 0, 16, 70 }, sm.h, 1);
	assert_non_null(wcsstr(row(p, 0, 0, 70, buf), L"n=1.0"));
	r50 = find_row(p, L"p50");
	rmax = find_row(p, L"max");
	assert_true(r50 >= 1);
	assert_true(rmax > r50);
	assert_non_null(wcsstr(row(p, r50, 0, 70, buf), L"p50/p90/p99 1.00us"));
	assert_non_null(wcsstr(row(p, rmax, 0, 70, buf), L"p99.9/max 1.00ms"));
	/* row labels: the p50 band starts at 1us, the max band at 1ms */
	assert_non_null(wcsstr(row(p, r50, 0, 8, buf), L"1us"));
	assert_non_null(wcsstr(row(p, rmax, 0, 8, buf), L"1ms"));
	/* the longest bar is on the p50 row */
	for (int y = 1; y < 16; y++) {
		int n = count_in_row(p, y, 0, 70, 0x2588);

		if (n > bestlen) {
			bestlen = n;
			best = y;
		}
	}
	assert_int_equal(best, r50);
	assert_true(bestlen > 20);
	/* the max row has a sliver, not a block */
	assert_int_equal(count_in_row(p, rmax, 0, 70, 0x2588), 0);
	assert_int_equal(count_partial(p, rmax, 70), 1);
	/* bands between are empty: no bar glyphs */
	for (int y = r50 + 1; y < rmax; y++)
		assert_int_equal(count_partial(p, y, 70) + count_in_row(p, y, 0, 70, 0x2588), 0);

	/* ASCII: the same rows, '#' bars */
	bt_histo_draw(p, (struct bt_rect){ 0, 0, 16, 70 }, sm.h, 0);
	assert_int_equal(find_row(p, L"p50"), r50);
	assert_true(count_in_row(p, r50, 0, 70, L'#') > 20);
	assert_all_ascii(p, "histo ascii");
	delwin(p);
	sample_free(&sm);
}

static void test_histo_empty_and_short(void **state)
{
	struct bt_hist *h = bt_hist_new();
	WINDOW *p = pad_new(10, 40);

	(void)state;
	assert_non_null(h);
	bt_histo_draw(p, (struct bt_rect){ 0, 0, 10, 40 }, h, 1);
	assert_true(find_row(p, L"no latencies recorded") >= 0);
	/* one row, a range of 9 decades: one band, all markers on it */
	bt_hist_record(h, 10);
	bt_hist_record(h, 10000000000ull);
	bt_histo_draw(p, (struct bt_rect){ 2, 0, 1, 40 }, h, 1);
	assert_int_equal(find_row(p, L"p50"), 2);
	assert_int_equal(find_row(p, L"max"), 2);
	/* three rows, no header: the two values on the first and last band drawn */
	werase(p);
	bt_histo_draw(p, (struct bt_rect){ 5, 0, 3, 60 }, h, 0);
	assert_int_equal(find_row(p, L"p50 10ns"), 5);
	assert_true(find_row(p, L"max 10.0s") > 5);
	delwin(p);
	bt_hist_free(h);
}

/* --- bars -------------------------------------------------------------- */

static void test_bars(void **state)
{
	uint64_t v[4] = { 500, 1000, 0, 250 };
	WINDOW *p = pad_new(6, 40);
	wchar_t buf[48];
	int bw;

	(void)state;
	bt_bars_draw(p, (struct bt_rect){ 0, 0, 6, 40 }, v, 4, 1);
	assert_non_null(wcsstr(row(p, 0, 0, 40, buf), L"fairness 0.00"));
	/* layout: "i vvvvv bar": index width 1, value width 5, bar from column 8 */
	bw = 40 - 8;
	assert_int_equal(count_in_row(p, 2, 8, bw, 0x2588), bw);	/* the largest: full */
	assert_int_equal(cell(p, 2, 39), 0x2588);
	assert_int_equal(count_in_row(p, 1, 8, bw, 0x2588), bw / 2);	/* half */
	assert_int_equal(count_in_row(p, 3, 8, bw, 0x2588), 0);	/* zero: no bar at all */
	assert_int_equal(count_in_row(p, 3, 8, bw, L' '), bw);
	assert_non_null(wcsstr(row(p, 3, 0, 8, buf), L"2     0"));
	assert_non_null(wcsstr(row(p, 2, 0, 8, buf), L"1 1.00K"));

	/* equal workers: fairness 1.00 */
	v[0] = v[1] = v[2] = v[3] = 7;
	bt_bars_draw(p, (struct bt_rect){ 0, 0, 6, 40 }, v, 4, 0);
	assert_non_null(wcsstr(row(p, 0, 0, 40, buf), L"fairness 1.00"));
	for (int y = 1; y <= 4; y++)
		assert_int_equal(count_in_row(p, y, 8, bw, L'#'), bw);
	assert_all_ascii(p, "bars ascii");
	delwin(p);
}

/* More workers than rows: columns, then a sparkline where zero is a visible '0'. */
static void test_bars_many(void **state)
{
	uint64_t v[64];
	WINDOW *p = pad_new(5, 40);
	wchar_t buf[48];

	(void)state;
	for (int i = 0; i < 64; i++)
		v[i] = 100;
	v[5] = 0;
	v[7] = 50;
	bt_bars_draw(p, (struct bt_rect){ 0, 0, 5, 40 }, v, 64, 0);
	/* sparkline: row 1 is "0 " then workers 0.. as digits */
	row(p, 1, 0, 40, buf);
	assert_int_equal(buf[1], L'0');
	assert_int_equal(buf[3 + 5], L'0');	/* "%2d " label: workers start at column 3 */
	assert_int_equal(buf[3 + 0], L'9');
	assert_int_equal(buf[3 + 7], L'5');
	assert_all_ascii(p, "sparkline ascii");
	delwin(p);
}

/* --- progress and CPU ----------------------------------------------------- */

static void test_progress(void **state)
{
	WINDOW *p = pad_new(1, 60);
	wchar_t buf[64];
	int hashes;

	(void)state;
	bt_progress_draw(p, (struct bt_rect){ 0, 0, 1, 60 }, 0.5, "cell 3/14", 0);
	row(p, 0, 0, 60, buf);
	assert_int_equal(buf[0], L'[');
	assert_non_null(wcsstr(buf, L"]  50%  cell 3/14"));
	hashes = count_in_row(p, 0, 0, 60, L'#');
	/* bar width: 60 - ("] " ... " 100%  cell 3/14") - brackets = 60 - 16 - 2 = 42 */
	assert_int_equal(hashes, 21);
	assert_int_equal(count_in_row(p, 0, 0, 60, L'.'), 21);
	bt_progress_draw(p, (struct bt_rect){ 0, 0, 1, 60 }, 1.0, "done", 1);
	assert_non_null(wcsstr(row(p, 0, 0, 60, buf), L"100%  done"));
	assert_int_equal(count_in_row(p, 0, 0, 60, 0x2591), 0);
	delwin(p);
}

static void test_cpu(void **state)
{
	WINDOW *p = pad_new(2, 60);
	wchar_t buf[64];

	(void)state;
	bt_cpu_draw(p, (struct bt_rect){ 0, 0, 2, 60 }, 300, 100, 8, 1);
	row(p, 0, 0, 60, buf);
	assert_non_null(wcsstr(buf, L"user 300%"));
	assert_non_null(wcsstr(buf, L"sys 100%"));
	assert_non_null(wcsstr(buf, L"8 CPUs"));
	/* 300 of 800 -> 22.5 of 60 cells user, 400 of 800 -> 30 cells user + sys */
	assert_int_equal(count_in_row(p, 1, 0, 60, 0x2588), 23);
	assert_int_equal(count_in_row(p, 1, 0, 60, 0x2593), 7);
	assert_int_equal(count_in_row(p, 1, 0, 60, 0x2591), 30);
	delwin(p);
}

/* --- box and text --------------------------------------------------------- */

static void test_box_and_text(void **state)
{
	WINDOW *p = pad_new(6, 20);
	struct bt_rect in;
	wchar_t buf[32];

	(void)state;
	pad_sentinel(p);
	in = bt_box_draw(p, (struct bt_rect){ 1, 2, 4, 14 }, "Latency", 0, 1);
	assert_int_equal(in.y, 2);
	assert_int_equal(in.x, 3);
	assert_int_equal(in.h, 2);
	assert_int_equal(in.w, 12);
	assert_int_equal(cell(p, 1, 2), 0x250c);
	assert_int_equal(cell(p, 4, 15), 0x2518);
	assert_non_null(wcsstr(row(p, 1, 2, 14, buf), L"\x250c\x2500 Latency \x2500\x2500\x2510"));
	assert_int_equal(cell(p, 2, 3), L' ');	/* inside cleared */
	assert_outside_untouched(p, (struct bt_rect){ 1, 2, 4, 14 }, "box");

	/* a title longer than the box is cut, the corners stay */
	bt_box_draw(p, (struct bt_rect){ 0, 0, 3, 9 }, "A very long title", 1, 0);
	assert_non_null(wcsstr(row(p, 0, 0, 9, buf), L"+- A v -+"));

	/* a wide character that does not fit at the edge is left out */
	pad_sentinel(p);
	assert_int_equal(bt_text_draw(p, (struct bt_rect){ 0, 0, 1, 3 }, 0, 0,
				      "a\xe4\xb8\xad\xe6\x96\x87", 0, 1), 3);
	assert_int_equal(cell(p, 0, 0), L'a');
	assert_int_equal(cell(p, 0, 1), 0x4e2d);
	assert_int_equal(cell(p, 0, 3), SENTINEL);
	/* ASCII mode: non-ASCII bytes become '?' */
	assert_int_equal(bt_text_draw(p, (struct bt_rect){ 1, 0, 1, 10 }, 0, 0, "\xc2\xb5s", 0, 0), 3);
	assert_int_equal(cell(p, 1, 0), L'?');
	assert_int_equal(cell(p, 1, 2), L's');
	assert_int_equal(bt_text_width("\xc2\xb5s", 1), 2);
	assert_int_equal(bt_text_width("\xc2\xb5s", 0), 3);
	delwin(p);
}

/*
 * Every widget, at every size from 0x0 up and at offsets that put the rect
 * partly outside the window: no crash, nothing outside the (clipped) rect.
 */
static void test_clipping(void **state)
{
	static const int sizes[] = { 0, 1, 2, 3, 4, 5, 7, 9, 13, 24 };
	static const struct bt_rect odd[] = {
		{ -3, -5, 10, 20 }, { 25, 40, 10, 20 }, { 0, 0, 30, 50 },
		{ 5, 5, -1, -7 }, { 29, 49, 1, 1 }, { 0, 45, 3, 100 },
	};
	struct sample sm;
	WINDOW *p = pad_new(30, 50);
	char what[64];

	(void)state;
	sample_init(&sm);
	for (int k = 0; k < NWIDGETS; k++) {
		for (size_t a = 0; a < sizeof(sizes) / sizeof(sizes[0]); a++) {
			for (size_t b = 0; b < sizeof(sizes) / sizeof(sizes[0]); b++) {
				struct bt_rect r = { 3, 4, sizes[a], sizes[b] * 2 };

				for (int utf8 = 0; utf8 < 2; utf8++) {
					pad_sentinel(p);
					draw_widget(k, p, r, &sm, utf8);
					snprintf(what, sizeof(what), "widget %d utf8 %d", k, utf8);
					assert_outside_untouched(p, r, what);
				}
			}
		}
		/* rects hanging over every edge of the window, and negative sizes */
		for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
			pad_sentinel(p);
			draw_widget(k, p, odd[i], &sm, 1);
			snprintf(what, sizeof(what), "widget %d odd rect %zu", k, i);
			assert_outside_untouched(p, odd[i], what);
		}
	}
	sample_free(&sm);
	delwin(p);
}

/* ASCII mode writes only ASCII, whatever the widget. */
static void test_ascii_only(void **state)
{
	struct sample sm;
	WINDOW *p = pad_new(30, 80);
	char what[32];

	(void)state;
	sample_init(&sm);
	for (int k = 0; k < NWIDGETS; k++) {
		pad_sentinel(p);
		draw_widget(k, p, (struct bt_rect){ 1, 1, 28, 78 }, &sm, 0);
		snprintf(what, sizeof(what), "widget %d", k);
		assert_all_ascii(p, what);
	}
	sample_free(&sm);
	delwin(p);
}

/* --- themes -------------------------------------------------------------- */

static void test_roles(void **state)
{
	(void)state;
	for (int r = 0; r < ROLE_COUNT; r++) {
		const char *n = bt_role_name(r);

		assert_non_null(n);
		assert_int_equal(bt_role_parse(n), r);
	}
	assert_string_equal(bt_role_name(ROLE_P99), "p99");
	assert_string_equal(bt_role_name(ROLE_P999), "p999");
	assert_string_equal(bt_role_name(ROLE_SERIES7), "series7");
	assert_int_equal(bt_role_parse("series8"), -1);
	assert_int_equal(bt_role_parse("P99"), -1);
	assert_int_equal(bt_role_parse(""), -1);
	assert_int_equal(bt_role_parse(NULL), -1);
}

static void theme_path(const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s.theme", BT_SOURCE_THEMES_DIR, name);
}

static void test_shipped_themes(void **state)
{
	static const char *names[] = { "default", "light", "mono", "high-contrast" };
	struct bt_theme t, def;
	struct bt_err err = { { 0 } };
	char path[4096], found[4096];
	char list[32][64];
	int n;

	(void)state;
	bt_theme_default(&def);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		theme_path(names[i], path, sizeof(path));
		if (bt_theme_load(path, &t, &err) != 0)
			fail_msg("%s: %s", path, err.msg);
		assert_true(strlen(t.name) > 0);
		/* every role is set from the file: no role is left at the default by accident */
		if (i == 0)
			assert_memory_equal(&t, &def, sizeof(t));
	}
	/* high-contrast paints everything on black through normal's background */
	theme_path("high-contrast", path, sizeof(path));
	assert_int_equal(bt_theme_load(path, &t, &err), 0);
	assert_int_equal(t.role[ROLE_P50].bg, COLOR_BLACK);
	assert_int_equal(t.role[ROLE_P99].fg, 208);
	assert_int_equal(t.role[ROLE_P99].fg8, 9);
	assert_int_equal(t.role[ROLE_ERROR].bg, COLOR_RED);
	/* mono: attributes only */
	theme_path("mono", path, sizeof(path));
	assert_int_equal(bt_theme_load(path, &t, &err), 0);
	for (int r = 0; r < ROLE_COUNT; r++) {
		assert_int_equal(t.role[r].fg, -1);
		assert_int_equal(t.role[r].bg, -1);
	}
	assert_int_equal(t.role[ROLE_SELECT].attr, A_REVERSE);

	/* finding and listing (XDG dir pointed at an empty place) */
	setenv("XDG_CONFIG_HOME", "/nonexistent-benchtop-test", 1);
	assert_int_equal(bt_theme_find("light", found, sizeof(found)), 0);
	theme_path("light", path, sizeof(path));
	assert_string_equal(found, path);
	assert_int_equal(bt_theme_find("no-such-theme", found, sizeof(found)), -ENOENT);
	assert_int_equal(bt_theme_find(path, found, sizeof(found)), 0);
	n = bt_theme_list(list, 32);
	assert_true(n >= 4);
	for (int i = 1; i < n; i++)
		assert_true(strcmp(list[i - 1], list[i]) < 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int seen = 0;

		for (int k = 0; k < n; k++)
			seen |= strcmp(list[k], names[i]) == 0;
		assert_true(seen);
	}
	unsetenv("XDG_CONFIG_HOME");
}

/* Write text to a temporary theme file; returns its path in buf. */
static void write_theme(char *buf, size_t n, const char *text)
{
	int fd;
	FILE *f;

	snprintf(buf, n, "%s/bt-theme-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(buf);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_broken_themes(void **state)
{
	static const struct {
		const char *text;
		int line;
		const char *want;
	} cases[] = {
		{ "# ok\nname = x\np99 = red\npurple = red\n", 4, "unknown role 'purple'" },
		{ "p50 = green\n\n  p99 = purplish bold\n", 3, "unknown colour 'purplish'" },
		{ "p50 = green on\n", 1, "'on' needs a background colour" },
		{ "p50 = green on mauve\n", 1, "unknown colour 'mauve'" },
		{ "p50 = 256\n", 1, "unknown colour '256'" },
		{ "p50 = 208/130\n", 1, "unknown colour '208/130'" },
		{ "p50 = green blinking\n", 1, "unexpected 'blinking'" },
		{ "this is garbage\n", 1, "expected '<role> = " },
		{ "p50 =\n", 1, "missing colour" },
		{ "name =   \n", 1, "empty name" },
	};
	struct bt_theme t, def;
	struct bt_err err;
	char path[256], want[512];

	(void)state;
	bt_theme_default(&def);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_theme(path, sizeof(path), cases[i].text);
		memset(&t, 0x5a, sizeof(t));
		memset(&err, 0, sizeof(err));
		assert_int_equal(bt_theme_load(path, &t, &err), -EINVAL);
		snprintf(want, sizeof(want), "%s:%d: ", path, cases[i].line);
		if (strncmp(err.msg, want, strlen(want)) != 0 || strstr(err.msg, cases[i].want) == NULL)
			fail_msg("case %zu: got \"%s\", want \"%s%s...\"", i, err.msg, want,
				 cases[i].want);
		assert_memory_equal(&t, &def, sizeof(t));
		unlink(path);
	}
	/* a missing file names the file */
	memset(&err, 0, sizeof(err));
	assert_int_equal(bt_theme_load("/nonexistent/x.theme", &t, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/x.theme"));
	assert_memory_equal(&t, &def, sizeof(t));
}

/* The syntax: fallbacks, bright colours, attributes, comments, inheritance. */
static void test_theme_syntax(void **state)
{
	struct bt_theme t, def;
	struct bt_err err = { { 0 } };
	char path[256];

	(void)state;
	bt_theme_default(&def);
	write_theme(path, sizeof(path),
		    "# a comment\n"
		    "name = Test theme   # trailing comment\n"
		    "normal = white on 234/black\n"
		    "p99 = 208/yellow bold underline\n"
		    "p50 = bright-green\n"
		    "select = reverse\n"
		    "bar = 196\n"
		    "error = default on red\n");
	assert_int_equal(bt_theme_load(path, &t, &err), 0);
	unlink(path);
	assert_string_equal(t.name, "Test theme");
	assert_int_equal(t.role[ROLE_P99].fg, 208);
	assert_int_equal(t.role[ROLE_P99].fg8, COLOR_YELLOW);
	assert_int_equal(t.role[ROLE_P99].attr, A_BOLD | A_UNDERLINE);
	assert_int_equal(t.role[ROLE_P99].bg, 234);	/* inherited from normal */
	assert_int_equal(t.role[ROLE_P99].bg8, COLOR_BLACK);
	assert_int_equal(t.role[ROLE_P50].fg, 10);
	assert_int_equal(t.role[ROLE_P50].fg8, 10);
	assert_int_equal(t.role[ROLE_SELECT].fg, -1);
	assert_int_equal(t.role[ROLE_SELECT].attr, A_REVERSE);
	assert_int_equal(t.role[ROLE_BAR].fg, 196);
	assert_int_equal(t.role[ROLE_BAR].fg8, COLOR_RED);	/* nearest basic colour */
	assert_int_equal(t.role[ROLE_ERROR].fg, -1);
	assert_int_equal(t.role[ROLE_ERROR].bg, COLOR_RED);
	/* not named: the default's colours, normal's background */
	assert_int_equal(t.role[ROLE_TITLE].fg, def.role[ROLE_TITLE].fg);
	assert_int_equal(t.role[ROLE_TITLE].bg, 234);
}

/* NO_COLOR: attributes only; colour: every role has its pair, 8-colour fallbacks used. */
static void test_theme_apply(void **state)
{
	struct bt_theme t;
	short fg, bg;

	(void)state;
	bt_theme_default(&t);
	setenv("NO_COLOR", "1", 1);
	bt_theme_apply(&t, 1);
	for (int r = 0; r < ROLE_COUNT; r++)
		assert_int_equal(bt_role_attr(r) & A_COLOR, 0);
	assert_true(bt_role_attr(ROLE_SELECT) & A_REVERSE);	/* still visible */
	assert_true(bt_role_attr(ROLE_P999) & A_BOLD);
	unsetenv("NO_COLOR");
	bt_theme_apply(&t, 0);
	for (int r = 0; r < ROLE_COUNT; r++)
		assert_int_equal(bt_role_attr(r) & A_COLOR, 0);

	if (!has_colors()) {
		skip();
		return;
	}
	bt_theme_apply(&t, 1);
	for (int r = 0; r < ROLE_COUNT; r++)
		assert_int_equal(PAIR_NUMBER(bt_role_attr(r)), r + 1);
	assert_int_equal(pair_content(ROLE_P99 + 1, &fg, &bg), OK);
	if (COLORS >= 256)
		assert_int_equal(fg, 208);
	else
		assert_int_equal(fg, COLOR_RED);
	assert_true(bt_role_attr(ROLE_TITLE) & A_BOLD);
	bt_theme_apply(&t, 0);
}

/* An 8-colour terminal gets the fallbacks; bright colours fold to bold. */
static void test_theme_8colour(void **state)
{
	struct bt_theme t;
	struct bt_err err;
	char path[4096];
	SCREEN *s8;
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	short fg, bg;

	(void)state;
	assert_non_null(out);
	assert_non_null(in);
	s8 = newterm("xterm", out, in);
	if (s8 == NULL) {
		fclose(out);
		fclose(in);
		skip();
		return;
	}
	start_color();
	if (COLORS != 8) {
		endwin();
		delscreen(s8);
		set_term(scr);
		fclose(out);
		fclose(in);
		skip();
		return;
	}
	theme_path("high-contrast", path, sizeof(path));
	assert_int_equal(bt_theme_load(path, &t, &err), 0);
	bt_theme_apply(&t, 1);
	assert_int_equal(pair_content(ROLE_P99 + 1, &fg, &bg), OK);
	assert_int_equal(fg, COLOR_RED);	/* "208/bright-red": red + bold */
	assert_int_equal(bg, COLOR_BLACK);
	assert_true(bt_role_attr(ROLE_P99) & A_BOLD);
	assert_int_equal(pair_content(ROLE_LABEL + 1, &fg, &bg), OK);
	assert_int_equal(fg, COLOR_CYAN);
	bt_theme_apply(&t, 0);
	endwin();
	delscreen(s8);
	set_term(scr);
	fclose(out);
	fclose(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nice_ceiling),
		cmocka_unit_test(test_chart_axis),
		cmocka_unit_test(test_chart_highlight),
		cmocka_unit_test(test_chart_legend_more),
		cmocka_unit_test(test_chart_markers),
		cmocka_unit_test(test_chart_glyphs),
		cmocka_unit_test(test_chart_hit),
		cmocka_unit_test(test_rep_progress),
		cmocka_unit_test(test_chart_scaling),
		cmocka_unit_test(test_histo_markers),
		cmocka_unit_test(test_histo_empty_and_short),
		cmocka_unit_test(test_bars),
		cmocka_unit_test(test_bars_many),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_cpu),
		cmocka_unit_test(test_box_and_text),
		cmocka_unit_test(test_clipping),
		cmocka_unit_test(test_ascii_only),
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_shipped_themes),
		cmocka_unit_test(test_broken_themes),
		cmocka_unit_test(test_theme_syntax),
		cmocka_unit_test(test_theme_apply),
		cmocka_unit_test(test_theme_8colour),
	};

	return cmocka_run_group_tests(tests, setup_screen, teardown_screen);
}
