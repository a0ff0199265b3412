/*
 * histo.c - horizontal latency histogram on log-spaced bands.
 *
 *   n=10.0K  mean 1.10us
 *      1us ███████████████████████████▉ 9.99K   p50/p90/p99 1.00us
 *     10us
 *    100us
 *      1ms ▏ 10                                 p99.9/max 1.00ms
 *
 * Band edges come from the 1-2-5 family of series (R20, R10, R5, 1-2-5,
 * 1-3, decades, several decades per band): the finest one whose bands from
 * min to max fit the rows is used, so edges read as round numbers. A
 * bucket counts in the band of the value bt_hist_percentile reports for it
 * (its highest equivalent value, clamped to the exact min and max), so a
 * percentile marker always sits on the row that holds its bucket's count,
 * and "max 1.00ms" is on the row labelled 1ms.
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

#define MAX_BANDS 256

static const unsigned short r20[] = { 100, 112, 125, 140, 160, 180, 200, 224, 250, 280,
				      315, 355, 400, 450, 500, 560, 630, 710, 800, 900 };
static const unsigned short r10[] = { 100, 125, 160, 200, 250, 315, 400, 500, 630, 800 };
static const unsigned short r5[] = { 100, 160, 250, 400, 630 };
static const unsigned short r3[] = { 100, 200, 500 };
static const unsigned short r2[] = { 100, 300 };
static const unsigned short r1[] = { 100 };

static const struct band_series {
	const unsigned short *mant;	/* mantissas x 100 within one step of decades */
	int n;
	int decades;			/* decades per cycle of mant */
} series_opts[] = {
	{ r20, 20, 1 }, { r10, 10, 1 }, { r5, 5, 1 }, { r3, 3, 1 }, { r2, 2, 1 },
	{ r1, 1, 1 }, { r1, 1, 2 }, { r1, 1, 3 }, { r1, 1, 4 }, { r1, 1, 7 }, { r1, 1, 14 },
};

/* Edge j of a series in ns, rounded up to whole ns (integer arithmetic: 1.12 x 10^3 is 1120). */
static uint64_t edge_value(const struct band_series *s, int j)
{
	unsigned dec = (unsigned)(j / s->n) * (unsigned)s->decades;
	uint64_t m = s->mant[j % s->n], p = 1;

	if (dec > 19)
		return UINT64_MAX;
	for (unsigned k = 0; k < dec; k++)
		p *= 10;
	if (dec >= 2)
		return m * (p / 100);
	return (m * p + 99) / 100;
}

/*
 * Fill edges[0..nb] so that band b is [edges[b], edges[b+1]), edges[0] <=
 * lo and edges[nb] > hi. Returns nb, or -1 when more than max bands.
 */
static int make_edges(const struct band_series *s, uint64_t lo, uint64_t hi, uint64_t *edges,
		      int max)
{
	uint64_t prev = 0;
	int n = 1;

	edges[0] = 0;
	for (int j = 0;; j++) {
		uint64_t e = edge_value(s, j);

		if (e == prev)
			continue;
		prev = e;
		if (e <= lo) {
			edges[0] = e;
			continue;
		}
		if (n > max)
			return -1;
		edges[n++] = e;
		if (e > hi || e == UINT64_MAX)
			return n - 1;
	}
}

/* Band holding v: the last b with edges[b] <= v. */
static int band_of(const uint64_t *edges, int nb, uint64_t v)
{
	int lo = 0, hi = nb - 1;

	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;

		if (edges[mid] <= v)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* A duration with trailing zeros dropped: "1us", "1.6us", "315ns". */
static void fmt_edge(uint64_t ns, char *buf, size_t n)
{
	char tmp[32];

	bt_fmt_ns((double)ns, tmp, sizeof(tmp));
	bt_text_trim_zeros(tmp);
	snprintf(buf, n, "%s", tmp);
}

struct marker {
	const char *name;
	enum bt_role role;
	uint64_t v;
	int band;
	char text[16];
};

/*
 * Draw (or, with draw 0, only measure) the markers of band b: names that
 * share a value are joined ("p50/p90 1.00us"), groups are two spaces apart.
 */
static int draw_markers(WINDOW *win, struct bt_rect r, int y, int x, const struct marker *mk,
			int nmk, int b, int draw)
{
	int col = 0, first = 1;

	for (int i = 0; i < nmk; i++) {
		if (mk[i].band != b)
			continue;
		if (!first)
			col += draw ? bt_text_draw(win, r, y, x + col, "  ", 0, 0) : 2;
		first = 0;
		for (int k = i; k < nmk && mk[k].band == b && strcmp(mk[k].text, mk[i].text) == 0; k++) {
			if (k > i)
				col += draw ? bt_text_draw(win, r, y, x + col, "/",
							   bt_role_attr(ROLE_DIM), 0) : 1;
			col += draw ? bt_text_draw(win, r, y, x + col, mk[k].name,
						   bt_role_attr(mk[k].role), 0) :
				(int)strlen(mk[k].name);
			i = k;
		}
		if (draw) {
			col += bt_text_draw(win, r, y, x + col, " ", 0, 0);
			col += bt_text_draw(win, r, y, x + col, mk[i].text, bt_role_attr(mk[i].role), 0);
		} else {
			col += 1 + (int)strlen(mk[i].text);
		}
	}
	return col;
}

/* Cells of an ASCII bar of units/8: rounded, at least one for a non-zero count. */
static int ascii_cells(int units)
{
	int n = (units + 4) / 8;

	return units > 0 && n == 0 ? 1 : n;
}

/* The value bucket i stands for: as bt_hist_percentile reports it. */
static uint64_t bucket_value(const struct bt_hist *h, unsigned i)
{
	uint64_t v = bt_hist_index_highest(i);

	return v < h->min ? h->min : v > h->max ? h->max : v;
}

/* A bar of units/8 cells: full blocks and one partial eighth (ASCII: '#' per cell). */
static void draw_bar(WINDOW *win, struct bt_rect r, int y, int x, int units, attr_t a, int utf8)
{
	static const wchar_t eighth[8] = { 0, 0x258f, 0x258e, 0x258d, 0x258c, 0x258b, 0x258a, 0x2589 };
	int full = units / 8, part = units % 8;

	if (!utf8) {
		for (int i = 0; i < ascii_cells(units); i++)
			bt_cell_draw(win, r, y, x + i, '#', a);
		return;
	}
	for (int i = 0; i < full; i++)
		bt_cell_draw(win, r, y, x + i, 0x2588, a);
	if (part)
		bt_cell_draw(win, r, y, x + full, eighth[part], a);
}

void bt_histo_draw(WINDOW *win, struct bt_rect r, const struct bt_hist *h, int utf8)
{
	static const struct {
		const char *name;
		enum bt_role role;
		double p;	/* percentile; < 0 for max */
	} mdef[] = {
		{ "p50", ROLE_P50, 50 }, { "p90", ROLE_P90, 90 }, { "p99", ROLE_P99, 99 },
		{ "p99.9", ROLE_P999, 99.9 }, { "max", ROLE_MAX, -1 },
	};
	struct bt_rect c = bt_rect_clip(win, r);
	uint64_t edges[MAX_BANDS + 1], counts[MAX_BANDS] = { 0 }, maxc = 0;
	char labels[MAX_BANDS][16];
	struct marker mk[5];
	unsigned ilo, ihi;
	int header, rows, nb = -1, all = 0, lw = 0, mw = 0, cw = 0, bw, x_bar, x_mk, showc;

	bt_rect_fill(win, c, bt_role_attr(ROLE_NORMAL));
	if (c.h < 1 || c.w < 1)
		return;
	if (h == NULL || h->total == 0 || h->min > h->max) {
		const char *msg = "no latencies recorded";
		int len = (int)strlen(msg);

		bt_text_draw(win, c, c.h / 2, c.w > len ? (c.w - len) / 2 : 0, msg,
			     bt_role_attr(ROLE_DIM), 0);
		return;
	}

	header = c.h >= 4;
	rows = c.h - header;
	if (rows > MAX_BANDS)
		rows = MAX_BANDS;
	ilo = bt_hist_index(h->min);
	ihi = bt_hist_index(h->max);
	if (ihi >= BT_HIST_LEN)
		ihi = BT_HIST_LEN - 1;
	for (size_t k = 0; k < sizeof(series_opts) / sizeof(series_opts[0]) && nb < 0; k++)
		nb = make_edges(&series_opts[k], bucket_value(h, ilo), bucket_value(h, ihi),
				edges, rows);
	if (nb < 1) {
		/* a single row that cannot hold one band of the range: everything in it */
		nb = 1;
		edges[0] = h->min;
		edges[1] = UINT64_MAX;
		all = 1;
	}

	/* one walk over the occupied buckets */
	for (unsigned i = ilo, b = 0; i <= ihi; i++) {
		uint64_t v;

		if (h->counts[i] == 0)
			continue;
		v = bucket_value(h, i);
		while ((int)b + 1 < nb && edges[b + 1] <= v)
			b++;
		counts[b] += h->counts[i];
	}
	for (int b = 0; b < nb; b++) {
		int len;

		if (counts[b] > maxc)
			maxc = counts[b];
		fmt_edge(edges[b], labels[b], sizeof(labels[b]));
		len = (int)strlen(labels[b]);
		if (len > lw)
			lw = len;
	}
	if (all) {
		snprintf(labels[0], sizeof(labels[0]), "%s", "all");
		lw = 3;
	}

	for (int i = 0; i < 5; i++) {
		mk[i].name = mdef[i].name;
		mk[i].role = mdef[i].role;
		mk[i].v = mdef[i].p < 0 ? h->max : bt_hist_percentile(h, mdef[i].p);
		mk[i].band = band_of(edges, nb, mk[i].v);
		bt_fmt_ns((double)mk[i].v, mk[i].text, sizeof(mk[i].text));
	}
	for (int b = 0; b < nb; b++) {
		int m = draw_markers(win, c, 0, 0, mk, 5, b, 0);

		if (m > mw)
			mw = m;
	}

	if (header) {
		char tmp[32];
		int x = 0;

		x += bt_text_draw(win, c, 0, x, "n=", bt_role_attr(ROLE_LABEL), 0);
		x += bt_text_draw(win, c, 0, x, fmt_count(h->total, tmp, sizeof(tmp)),
				  bt_role_attr(ROLE_VALUE), 0);
		x += bt_text_draw(win, c, 0, x, "  mean ", bt_role_attr(ROLE_LABEL), 0);
		bt_text_draw(win, c, 0, x, bt_fmt_ns(bt_hist_mean(h), tmp, sizeof(tmp)),
			     bt_role_attr(ROLE_VALUE), 0);
	}

	/* columns: label, bar (+ count), markers right-aligned */
	x_bar = lw + 1;
	x_mk = c.w - mw;
	bw = x_mk - 1 - x_bar;
	cw = 6;
	showc = bw >= cw + 6;
	if (showc)
		bw -= cw;
	if (bw < 0)
		bw = 0;
	if (x_mk < x_bar)
		x_mk = x_bar;
	for (int b = 0; b < nb && b < rows; b++) {
		int y = header + b, units = 0;

		bt_text_draw(win, c, y, lw - (int)strlen(labels[b]), labels[b],
			     bt_role_attr(ROLE_LABEL), 0);
		if (counts[b] && maxc) {
			units = (int)((double)counts[b] * bw * 8 / (double)maxc + 0.5);
			if (units < 1)
				units = 1;
			draw_bar(win, c, y, x_bar, units, bt_role_attr(ROLE_BAR), utf8);
		}
		if (showc && counts[b]) {
			char tmp[32];
			int x = x_bar + (utf8 ? (units + 7) / 8 : ascii_cells(units)) + 1;

			fmt_count(counts[b], tmp, sizeof(tmp));
			bt_text_draw(win, c, y, x, tmp, bt_role_attr(ROLE_DIM), 0);
		}
		draw_markers(win, c, y, x_mk, mk, 5, b, 1);
	}
}
