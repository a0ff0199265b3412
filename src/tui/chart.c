/*
 * chart.c - line chart with labelled axes (throughput over time, scaling).
 *
 * Layout inside the rect (rows shrink away from the bottom at small sizes):
 *
 *   items/s  ━ threads=1  ━ threads=2  ┄ ideal      <- unit and legend
 *      1M ┤        ⢀⡠⠔⠊                              <- plot, y labels at ticks
 *    500K ┤    ⢀⠔⠊
 *       0 ┤⣀⠤⠊
 *         └┬──────────┬─────────┬                     <- x axis with ticks
 *       s  0          10        20                    <- x labels, x unit
 *
 * Series are rasterised into a pixel grid (2x4 braille dots per cell, or one
 * pixel per cell in ASCII), then each cell is drawn once: the work is
 * O(cells + points), fine at 10 Hz.
 */
#include "tui/widgets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

double bt_chart_nice_ceiling(double v)
{
	static const double mant[] = { 1, 2, 2.5, 5, 10 };
	double p;

	if (!(v > 0) || !isfinite(v))
		return 1;
	p = pow(10, floor(log10(v)));
	for (size_t i = 0; i < sizeof(mant) / sizeof(mant[0]); i++) {
		double c = mant[i] * p;

		if (c >= v * (1 - 1e-12))
			return c;
	}
	return 10 * p;
}

/* A 1, 2, 5 x 10^k step at least v (for x ticks). */
static double nice_step(double v)
{
	double p;

	if (!(v > 0) || !isfinite(v))
		return 1;
	p = pow(10, floor(log10(v)));
	if (p >= v * (1 - 1e-12))
		return p;
	if (2 * p >= v)
		return 2 * p;
	if (5 * p >= v)
		return 5 * p;
	return 10 * p;
}

/* An axis label: SI, 3 significant digits, trailing zeros dropped ("1M", "2.5M", "750K"). */
static void fmt_axis(double v, char *buf, size_t n)
{
	char tmp[32];

	if (fabs(v) < 1e-12)
		v = 0;
	bt_fmt_si(v, tmp, sizeof(tmp));
	bt_text_trim_zeros(tmp);
	snprintf(buf, n, "%s", tmp);
}

struct grid {
	int pw, ph;		/* plot size in cells */
	int sx, sy;		/* pixels per cell: 2x4 braille, 1x1 ASCII */
	int utf8;
	unsigned char *dots;	/* series pixels per cell (braille bits / ASCII char) */
	unsigned char *idots;	/* ideal pixels per cell */
	unsigned char *role;	/* role of the series that last drew the cell */
	unsigned char *owner;	/* 1 + index of the series that last drew it (glyphs) */
	int cur;		/* the series being drawn (its index) */
};

int bt_chart_glyph(int i, int utf8)
{
	static const int uni[8] = { 0x25cf, 0x25a0, 0x25b2, 0x25c6, 0x25cb, 0x25a1, 0x25b3, 0x25c7 };
	static const char ascii[8] = { '*', '+', 'o', 'x', '#', '@', '%', '&' };

	i = i < 0 ? 0 : i % 8;
	return utf8 ? uni[i] : ascii[i];
}

static const unsigned char braille_bit[2][4] = {
	{ 0x01, 0x02, 0x04, 0x40 },
	{ 0x08, 0x10, 0x20, 0x80 },
};

/*
 * Set pixel (px, py) for a series (ideal 0) or the ideal line (1). In
 * ASCII the cell keeps a character: the point marker wins over line slopes.
 */
static void grid_set(struct grid *g, int px, int py, int ideal, enum bt_role role, char ch)
{
	int cx = px / g->sx, cy = py / g->sy, i;

	if (px < 0 || py < 0 || cx >= g->pw || cy >= g->ph)
		return;
	i = cy * g->pw + cx;
	if (ideal) {
		g->idots[i] |= g->utf8 ? braille_bit[px % 2][py % 4] : 1;
		return;
	}
	if (g->utf8)
		g->dots[i] |= braille_bit[px % 2][py % 4];
	else if (g->dots[i] != '*' || ch == '*')
		g->dots[i] = (unsigned char)ch;
	g->role[i] = (unsigned char)role;
	g->owner[i] = (unsigned char)(g->cur + 1);
}

/* The ASCII character for a segment of slope dy/dx in cells (y down). */
static char slope_char(double dx, double dy)
{
	if (fabs(dy) < 0.5 * fabs(dx))
		return '-';
	if (fabs(dy) > 2 * fabs(dx))
		return '|';
	return (dx > 0) == (dy < 0) ? '/' : '\\';
}

/*
 * Clip segment (x0,y0)-(x1,y1) to [0,w]x[0,h] (Liang-Barsky); 0 when
 * nothing is left. Keeps a reference line far above the data cheap.
 */
static int clip_segment(double *x0, double *y0, double *x1, double *y1, double w, double h)
{
	double t0 = 0, t1 = 1, dx = *x1 - *x0, dy = *y1 - *y0;
	double p[4] = { -dx, dx, -dy, dy };
	double q[4] = { *x0, w - *x0, *y0, h - *y0 };

	for (int i = 0; i < 4; i++) {
		if (p[i] == 0) {
			if (q[i] < 0)
				return 0;
			continue;
		}
		double t = q[i] / p[i];

		if (p[i] < 0) {
			if (t > t1)
				return 0;
			if (t > t0)
				t0 = t;
		} else {
			if (t < t0)
				return 0;
			if (t < t1)
				t1 = t;
		}
	}
	*x1 = *x0 + t1 * dx;
	*y1 = *y0 + t1 * dy;
	*x0 = *x0 + t0 * dx;
	*y0 = *y0 + t0 * dy;
	return 1;
}

static void grid_line(struct grid *g, double x0, double y0, double x1, double y1, int ideal,
		      enum bt_role role)
{
	int pwp = g->pw * g->sx, php = g->ph * g->sy;
	char ch = slope_char(x1 - x0, y1 - y0);
	int steps;

	if (!clip_segment(&x0, &y0, &x1, &y1, pwp - 1, php - 1))
		return;
	steps = (int)ceil(fmax(fabs(x1 - x0), fabs(y1 - y0)));
	for (int i = 0; i <= steps; i++) {
		double t = steps ? (double)i / steps : 0;

		/* the ideal line is dashed: two pixels on, two off (one cell in ASCII) */
		if (ideal && ((g->utf8 && (i / 2) % 2) || (!g->utf8 && i % 2)))
			continue;
		grid_set(g, (int)lround(x0 + t * (x1 - x0)), (int)lround(y0 + t * (y1 - y0)),
			 ideal, role, ch);
	}
}

struct frame {
	double xmin, xmax, ymin, ymax;
	int logx;
};

static int xval(const struct frame *f, double x, double *out)
{
	if (!isfinite(x))
		return 0;
	if (f->logx) {
		if (x <= 0)
			return 0;
		x = log2(x);
	}
	*out = x;
	return 1;
}

/* Pixel coordinates of data point (x, y); 0 when it cannot be placed. */
static int to_pixel(const struct frame *f, const struct grid *g, double x, double y, double *px,
		    double *py)
{
	double lx;

	if (!xval(f, x, &lx) || !isfinite(y))
		return 0;
	*px = (lx - f->xmin) / (f->xmax - f->xmin) * (g->pw * g->sx - 1);
	*py = (1 - (y - f->ymin) / (f->ymax - f->ymin)) * (g->ph * g->sy - 1);
	return 1;
}

static void draw_series(struct grid *g, const struct frame *f, const struct bt_series *s,
			int ideal, enum bt_role role)
{
	double px0 = 0, py0 = 0;
	int have = 0;
	int mark = !g->utf8 && !ideal && s->n <= g->pw / 3;

	if (s->x == NULL || s->y == NULL)
		return;
	for (int i = 0; i < s->n; i++) {
		double px, py;

		if (!to_pixel(f, g, s->x[i], s->y[i], &px, &py)) {
			have = 0;
			continue;
		}
		if (have)
			grid_line(g, px0, py0, px, py, ideal, role);
		else
			grid_line(g, px, py, px, py, ideal, role);
		px0 = px;
		py0 = py;
		have = 1;
		if (mark && px >= 0 && py >= 0 && px <= g->pw - 1 && py <= g->ph - 1)
			grid_set(g, (int)lround(px), (int)lround(py), 0, role, '*');
	}
}

/* Fit the frame: x over all series and the ideal, y from 0 to a nice ceiling over the series. */
static void fit(const struct bt_chart_model *m, struct frame *f)
{
	double xlo = INFINITY, xhi = -INFINITY, yhi = 0;

	f->logx = m->logx;
	for (int k = 0; k <= m->nseries; k++) {
		const struct bt_series *s = k < m->nseries ? &m->series[k] : m->ideal;

		if (s == NULL || s->x == NULL || s->y == NULL)
			continue;
		for (int i = 0; i < s->n; i++) {
			double lx;

			if (!xval(f, s->x[i], &lx) || !isfinite(s->y[i]))
				continue;
			xlo = fmin(xlo, lx);
			xhi = fmax(xhi, lx);
			if (k < m->nseries)
				yhi = fmax(yhi, s->y[i]);
		}
	}
	if (m->xmax > m->xmin && xval(f, m->xmin, &f->xmin) && xval(f, m->xmax, &f->xmax)) {
		/* given */
	} else if (xlo <= xhi) {
		f->xmin = xlo;
		f->xmax = xhi;
	} else {
		f->xmin = 0;
		f->xmax = 1;
	}
	if (f->xmax <= f->xmin)
		f->xmax = f->xmin + 1;
	if (m->ymax > m->ymin) {
		f->ymin = m->ymin;
		f->ymax = m->ymax;
	} else {
		f->ymin = 0;
		f->ymax = bt_chart_nice_ceiling(yhi);
	}
}

/*
 * Number of y intervals for a span over ph rows: the most of the nice
 * divisions of the span's mantissa (1: 5, 4, 2; 2: 4, 2; 2.5: 5; 5: 5, 2;
 * anything else: 4, 2) whose tick rows are all distinct, else 1. Ticks
 * stay evenly spaced values whatever the height.
 */
static int y_intervals(double span, int ph, int sy)
{
	static const int k1[] = { 5, 4, 2 }, k2[] = { 4, 2 }, k25[] = { 5 }, k5[] = { 5, 2 },
			 kx[] = { 4, 2 };
	double m = span / pow(10, floor(log10(span)));
	const int *k = kx;
	int nk = 2;

	if (fabs(m - 1) < 1e-9) {
		k = k1;
		nk = 3;
	} else if (fabs(m - 2) < 1e-9) {
		k = k2;
		nk = 2;
	} else if (fabs(m - 2.5) < 1e-9) {
		k = k25;
		nk = 1;
	} else if (fabs(m - 5) < 1e-9) {
		k = k5;
		nk = 2;
	}
	for (int i = 0; i < nk; i++) {
		int last = -1, ok = 1;

		for (int t = k[i]; t >= 0 && ok; t--) {
			int row = (int)lround((1 - (double)t / k[i]) * (ph * sy - 1)) / sy;

			ok = row != last;
			last = row;
		}
		if (ok)
			return k[i];
	}
	return 1;
}

static void draw_legend(WINDOW *win, struct bt_rect r, const struct bt_chart_model *m, int x,
			int utf8)
{
	int order[256], n = 0;

	for (int i = 0; i < m->nseries && n < 255; i++)
		if (m->series[i].highlight)
			order[n++] = i;
	for (int i = 0; i < m->nseries && n < 255; i++)
		if (!m->series[i].highlight)
			order[n++] = i;
	if (m->ideal)
		order[n++] = -1;
	for (int k = 0; k < n; k++) {
		const struct bt_series *s = order[k] >= 0 ? &m->series[order[k]] : m->ideal;
		const char *label = s->label ? s->label : "";
		int ideal = order[k] < 0;
		enum bt_role role = ideal ? ROLE_IDEAL : s->highlight ? ROLE_HIGHLIGHT : s->role;
		int need = 2 + bt_text_width(label, utf8);
		char more[32];

		/* What does not fit is counted, so that a long sweep does not look short. */
		snprintf(more, sizeof(more), "+%d more", n - k - 1);
		if (x + need + (k < n - 1 ? (int)strlen(more) : 0) > r.w) {
			snprintf(more, sizeof(more), "+%d more", n - k);
			if (x + (int)strlen(more) <= r.w)
				bt_text_draw(win, r, 0, x, more, bt_role_attr(ROLE_DIM), utf8);
			break;
		}
		bt_cell_draw(win, r, 0, x, ideal ? (utf8 ? 0x2504 : '.') :
			     m->glyphs ? bt_chart_glyph(order[k], utf8) : (utf8 ? 0x2501 : '*'),
			     bt_role_attr(role));
		x += 2;
		x += bt_text_draw(win, r, 0, x, label,
				  bt_role_attr(s->highlight ? ROLE_HIGHLIGHT : ROLE_LABEL), utf8);
		x += 2;
	}
}

/* Column of x value lx in the plot, as the pixels place it. */
static int x_col(const struct frame *f, const struct grid *g, double lx)
{
	double px = (lx - f->xmin) / (f->xmax - f->xmin) * (g->pw * g->sx - 1);

	return (int)lround(px) / g->sx;
}

/*
 * X labels: min and max always (left- and right-aligned to their ticks),
 * then nice ticks that fit with a gap of one column. A unit that did not
 * fit under the y labels follows the max label ("64 threads"). Tick marks
 * go on the axis row for every label drawn.
 */
static void draw_xlabels(WINDOW *win, struct bt_rect plot, int axis_y, int label_y,
			 const struct frame *f, const struct grid *g, const char *unit, int utf8)
{
	unsigned char used[1024] = { 0 };
	double ticks[64];
	int nt = 0, w = plot.w < 1024 ? plot.w : 1024;

	ticks[nt++] = f->xmin;
	ticks[nt++] = f->xmax;
	if (f->logx) {
		for (double k = ceil(f->xmin); k <= f->xmax + 1e-9 && nt < 64; k++)
			ticks[nt++] = k;
	} else {
		double step = nice_step((f->xmax - f->xmin) / (w / 8 > 1 ? w / 8 : 1));

		for (double k = ceil(f->xmin / step); k * step <= f->xmax + step * 1e-9 && nt < 64; k++)
			ticks[nt++] = fabs(k) < 0.5 ? 0 : k * step;
	}
	for (int i = 0; i < nt; i++) {
		char buf[32];
		int c = x_col(f, g, ticks[i]), len, start;

		fmt_axis(f->logx ? exp2(ticks[i]) : ticks[i], buf, sizeof(buf));
		if (i == 1 && unit && *unit && strlen(buf) + strlen(unit) + 2 < sizeof(buf))
			strcat(strcat(buf, " "), unit);
		len = bt_text_width(buf, utf8);
		start = i == 0 ? c : i == 1 ? c - len + 1 : c - len / 2;
		if (start < 0)
			start = 0;
		if (start + len > w)
			start = w - len;
		if (start < 0 || (i >= 2 && (fabs(ticks[i] - f->xmin) < 1e-9 ||
					     fabs(ticks[i] - f->xmax) < 1e-9)))
			continue;
		int lo = start - 1 < 0 ? 0 : start - 1, hi = start + len + 1 > w ? w : start + len + 1;
		int clash = 0;

		for (int x = lo; x < hi; x++)
			clash |= used[x];
		if (clash)
			continue;
		for (int x = start; x < start + len; x++)
			used[x] = 1;
		bt_text_draw(win, plot, label_y, start, buf, bt_role_attr(ROLE_LABEL), utf8);
		if (axis_y >= 0 && c >= 0 && c < w)
			bt_cell_draw(win, plot, axis_y, c, utf8 ? 0x252c : '+', bt_role_attr(ROLE_BORDER));
	}
}

/* The markers' columns, or -1 for one outside the x range. */
static int marker_col(const struct frame *f, const struct grid *g, double x)
{
	double lx;

	if (!xval(f, x, &lx) || lx < f->xmin || lx > f->xmax)
		return -1;
	return x_col(f, g, lx);
}

static void draw_markers(WINDOW *win, struct bt_rect plot, const struct bt_chart_model *m,
			 const struct frame *f, const struct grid *g)
{
	for (int k = 0; k < m->nmarkers; k++) {
		const struct bt_chart_marker *mk = &m->markers[k];
		int col = marker_col(f, g, mk->x), end = g->pw;
		const char *label = mk->label, *eq;

		if (col < 0 || col >= g->pw)
			continue;
		for (int y = 0; y < g->ph; y++) {
			size_t i = (size_t)y * g->pw + col;

			if (!g->dots[i] && !g->idots[i])
				bt_cell_draw(win, plot, y, col, g->utf8 ? 0x2502 : '|',
					     bt_role_attr(ROLE_DIM));
		}
		for (int j = k + 1; j < m->nmarkers; j++) {
			int c = marker_col(f, g, m->markers[j].x);

			if (c > col) {
				end = c;
				break;
			}
		}
		if (label == NULL)
			continue;
		if (bt_text_width(label, g->utf8) > end - col - 1 && (eq = strchr(label, '=')) != NULL)
			label = eq + 1;
		if (bt_text_width(label, g->utf8) <= end - col - 1)
			bt_text_draw(win, plot, 0, col + 1, label, bt_role_attr(ROLE_LABEL), g->utf8);
	}
}

/*
 * Where bt_chart_draw puts things in r (clipped to win): the frame, the
 * y label gutter, the header row, the plot rect and the pixel grid's size.
 * The drawing and the hit test (bt_chart_hit) share it, so a click finds
 * a point where it was drawn. 0, or -1 when there is no plot to speak of.
 */
struct geom {
	struct bt_chart_model mm;	/* the model with nseries made sane */
	struct frame f;
	struct bt_rect c, plot;
	int gut, header, xaxis, xlabels, yaxis, xunit_in_gutter;
	char ylab[6][32];
};

static int geom(WINDOW *win, struct bt_rect r, const struct bt_chart_model *model, int utf8,
		struct geom *G, struct grid *g)
{
	const struct bt_chart_model *m = &G->mm;

	memset(G, 0, sizeof(*G));
	G->c = bt_rect_clip(win, r);
	if (G->c.h < 1 || G->c.w < 1 || model == NULL)
		return -1;
	G->mm = *model;
	if (G->mm.series == NULL || G->mm.nseries < 0)
		G->mm.nseries = 0;
	fit(m, &G->f);

	/* the gutter fits the widest label of the finest division */
	for (int i = 0; i <= 5; i++) {
		int len;

		fmt_axis(G->f.ymin + (G->f.ymax - G->f.ymin) * i / 5, G->ylab[0], sizeof(G->ylab[0]));
		len = (int)strlen(G->ylab[0]);
		if (len > G->gut)
			G->gut = len;
		fmt_axis(G->f.ymin + (G->f.ymax - G->f.ymin) * i / 4, G->ylab[0], sizeof(G->ylab[0]));
		len = (int)strlen(G->ylab[0]);
		if (i <= 4 && len > G->gut)
			G->gut = len;
	}

	G->header = G->c.h >= 4;
	G->xaxis = G->c.h >= 3;
	G->xlabels = G->c.h >= 5;
	G->yaxis = G->c.w >= G->gut + 6;
	G->xunit_in_gutter = G->yaxis && m->xunit && bt_text_width(m->xunit, utf8) <= G->gut - 1;
	G->plot.y = G->c.y + G->header;
	G->plot.h = G->c.h - G->header - G->xaxis - G->xlabels;
	G->plot.x = G->yaxis ? G->c.x + G->gut + 1 : G->c.x;
	G->plot.w = G->yaxis ? G->c.w - G->gut - 1 : G->c.w;
	memset(g, 0, sizeof(*g));
	g->pw = G->plot.w;
	g->ph = G->plot.h;
	g->utf8 = utf8;
	g->sx = utf8 ? 2 : 1;
	g->sy = utf8 ? 4 : 1;
	return 0;
}

int bt_chart_hit(WINDOW *win, struct bt_rect r, const struct bt_chart_model *model, int utf8,
		 int y, int x, int *series, int *point)
{
	struct geom G;
	struct grid g;
	int best = -1;
	double bestd = 0;

	if (geom(win, r, model, utf8, &G, &g) < 0 || G.plot.h < 1 || G.plot.w < 1)
		return 0;
	/* The plot and its x axis row: a point on the bottom row is clicked from below too. */
	if (y < G.plot.y || y > G.plot.y + G.plot.h - 1 + G.xaxis || x < G.plot.x ||
	    x >= G.plot.x + G.plot.w)
		return 0;
	for (int k = 0; k < G.mm.nseries; k++) {
		const struct bt_series *s = &G.mm.series[k];

		for (int i = 0; s->x != NULL && s->y != NULL && i < s->n; i++) {
			double px, py, d;
			int col, row;

			if (!to_pixel(&G.f, &g, s->x[i], s->y[i], &px, &py) || px < 0 ||
			    px > g.pw * g.sx - 1)
				continue;
			/* A point above or below the range is clicked where its line leaves the plot. */
			py = py < 0 ? 0 : py > g.ph * g.sy - 1 ? g.ph * g.sy - 1 : py;
			col = G.plot.x + (int)lround(px) / g.sx;
			row = G.plot.y + (int)lround(py) / g.sy;
			if (abs(col - x) > BT_CHART_HIT_COLS)
				continue;
			/* A row is about twice as tall as a column is wide. */
			d = (double)(col - x) * (col - x) + 4.0 * (row - y) * (row - y);
			if (best < 0 || d < bestd) {
				best = k;
				bestd = d;
				*series = k;
				*point = i;
			}
		}
	}
	return best >= 0;
}

void bt_chart_draw(WINDOW *win, struct bt_rect r, const struct bt_chart_model *model, int utf8)
{
	struct geom G;
	const struct bt_chart_model *m = &G.mm;
	struct grid g = { 0 };
	struct frame f;
	struct bt_rect c, plot;
	char ylab[6][32];
	double yv[6];
	int ny, gut, header, xaxis, xlabels, yaxis, npix = 0, xunit_in_gutter;
	attr_t border = bt_role_attr(ROLE_BORDER), label = bt_role_attr(ROLE_LABEL);

	c = bt_rect_clip(win, r);
	bt_rect_fill(win, c, bt_role_attr(ROLE_NORMAL));
	if (geom(win, r, model, utf8, &G, &g) < 0)
		return;
	f = G.f;
	plot = G.plot;
	gut = G.gut;
	header = G.header;
	xaxis = G.xaxis;
	xlabels = G.xlabels;
	yaxis = G.yaxis;
	xunit_in_gutter = G.xunit_in_gutter;

	if (header) {
		struct bt_rect hr = { c.y, c.x, 1, c.w };
		int x = bt_text_draw(win, hr, 0, 0, m->yunit, label, utf8);

		draw_legend(win, hr, m, x ? x + 2 : 0, utf8);
	}
	if (plot.h < 1 || plot.w < 1)
		return;

	g.dots = calloc((size_t)g.pw * g.ph, 4);
	if (g.dots == NULL)
		return;
	g.idots = g.dots + (size_t)g.pw * g.ph;
	g.role = g.idots + (size_t)g.pw * g.ph;
	g.owner = g.role + (size_t)g.pw * g.ph;

	ny = y_intervals(f.ymax - f.ymin, g.ph, g.sy);
	for (int i = 0; i <= ny; i++) {
		yv[i] = f.ymin + (f.ymax - f.ymin) * i / ny;
		fmt_axis(yv[i], ylab[i], sizeof(ylab[i]));
	}

	if (m->ideal)
		draw_series(&g, &f, m->ideal, 1, ROLE_IDEAL);
	for (int i = 0; i < m->nseries; i++)
		if (!m->series[i].highlight) {
			g.cur = i;
			draw_series(&g, &f, &m->series[i], 0, m->series[i].role);
		}
	for (int i = 0; i < m->nseries; i++)
		if (m->series[i].highlight) {
			g.cur = i;
			draw_series(&g, &f, &m->series[i], 0, ROLE_HIGHLIGHT);
		}

	for (int y = 0; y < g.ph; y++) {
		for (int x = 0; x < g.pw; x++) {
			size_t i = (size_t)y * g.pw + x;

			if (g.dots[i] && m->glyphs) {
				bt_cell_draw(win, plot, y, x, bt_chart_glyph(g.owner[i] - 1, utf8),
					     bt_role_attr(g.role[i]));
				npix++;
			} else if (g.dots[i]) {
				bt_cell_draw(win, plot, y, x, utf8 ? 0x2800 + g.dots[i] : g.dots[i],
					     bt_role_attr(g.role[i]));
				npix++;
			} else if (g.idots[i]) {
				bt_cell_draw(win, plot, y, x, utf8 ? 0x2800 + g.idots[i] : '.',
					     bt_role_attr(ROLE_IDEAL));
				npix++;
			}
		}
	}
	draw_markers(win, plot, m, &f, &g);
	if (npix == 0 && plot.w >= 7)
		bt_text_draw(win, plot, plot.h / 2, (plot.w - 7) / 2, "no data",
			     bt_role_attr(ROLE_DIM), utf8);

	if (yaxis) {
		struct bt_rect ax = { plot.y, c.x, plot.h + xaxis + xlabels, gut + 1 };
		unsigned char *used = g.idots;	/* reuse: one flag per plot row */

		memset(used, 0, (size_t)g.ph);
		for (int y = 0; y < plot.h; y++)
			bt_cell_draw(win, ax, y, gut, utf8 ? 0x2502 : '|', border);
		/* the ceiling and 0 first, then what fits between them */
		for (int k = 0; k <= ny; k++) {
			int i = k == 0 ? ny : k == 1 ? 0 : k - 1;
			double fy = (1 - (yv[i] - f.ymin) / (f.ymax - f.ymin)) * (g.ph * g.sy - 1);
			int row = (int)lround(fy) / g.sy;

			if (row < 0 || row >= g.ph || used[row])
				continue;
			used[row] = 1;
			bt_text_draw(win, ax, row, gut - (int)strlen(ylab[i]), ylab[i], label, 0);
			bt_cell_draw(win, ax, row, gut, utf8 ? 0x2524 : '+', border);
		}
		if (xaxis)
			bt_cell_draw(win, ax, plot.h, gut, utf8 ? 0x2514 : '+', border);
		if (xlabels && xunit_in_gutter)
			bt_text_draw(win, ax, plot.h + 1, gut - 1 - bt_text_width(m->xunit, utf8),
				     m->xunit, label, utf8);
	}
	if (xaxis) {
		struct bt_rect ar = { plot.y, plot.x, plot.h + 1 + xlabels, plot.w };

		for (int x = 0; x < plot.w; x++)
			bt_cell_draw(win, ar, plot.h, x, utf8 ? 0x2500 : '-', border);
		draw_xlabels(win, ar, plot.h, xlabels ? plot.h + 1 : -1, &f, &g,
			     xunit_in_gutter ? NULL : m->xunit, utf8);
	}
	free(g.dots);
}
