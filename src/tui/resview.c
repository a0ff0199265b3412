/*
 * resview.c - the results screen: the table the CLI prints (rendered by
 * bt_report_write into lines, scrolled in both directions), the scaling
 * chart (throughput against threads, one line per combination of the other
 * axes, the ideal linear line), a cell picker with that cell's latency
 * histogram and percentiles, and exports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/sessions.h"
#include "core/units.h"
#include "tui/app.h"
#include "workloads/registry.h"

void bt_resview_free(struct bt_app *a)
{
	for (int i = 0; i < a->ntable; i++)
		free(a->table[i]);
	free(a->table);
	a->table = NULL;
	a->ntable = a->table_w = 0;
	a->tscroll = a->thscroll = 0;
	a->cell_sel = 0;
}

/* Render the text table into lines (the same bytes `benchtop show` prints). */
void bt_resview_load(struct bt_app *a)
{
	char *text = NULL, *p, *nl;
	size_t len = 0;
	FILE *f;
	int cap = 0;

	bt_resview_free(a);
	if (a->res == NULL)
		return;
	f = open_memstream(&text, &len);
	if (f == NULL)
		return;
	bt_report_write(f, a->res, BT_FMT_TEXT);
	fclose(f);
	for (p = text; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (a->ntable == cap) {
			char **t;

			cap = cap ? cap * 2 : 32;
			t = realloc(a->table, sizeof(*t) * (size_t)cap);
			if (t == NULL)
				break;
			a->table = t;
		}
		a->table[a->ntable] = nl ? strndup(p, (size_t)(nl - p)) : strdup(p);
		if (a->table[a->ntable] == NULL)
			break;
		if ((int)strlen(a->table[a->ntable]) > a->table_w)
			a->table_w = (int)strlen(a->table[a->ntable]);
		a->ntable++;
		if (nl == NULL)
			break;
	}
	free(text);
	/* Start on the first finished cell. */
	for (int c = 0; c < a->res->ncells; c++) {
		if (a->res->cells[c].done) {
			a->cell_sel = c;
			break;
		}
	}
}

struct res_layout {
	struct bt_rect table, scaling, cell;
	int has_scaling;
};

/*
 * Is the row axis numeric, with at least two values? Then there is a scaling
 * chart, whatever the axis counts (threads, fds, units, block bytes).
 */
static int scaling_groups(const struct bt_results *res, int *ncombos)
{
	int n = 0;

	if (res == NULL || !bt_results_axis_numeric(res, 0))
		return 0;
	if (res->explore) {
		*ncombos = res->ncells;	/* at most a series per segment (explore_series) */
		return 1;
	}
	for (int c = 0; c < res->ncells; c++)
		if (!strcmp(res->cells[c].values[0], res->cells[0].values[0]))
			n++;
	*ncombos = n;
	return res->ncells / n >= 2;
}

static struct res_layout layout(const struct bt_app *a, struct bt_rect area)
{
	struct res_layout L;
	int th = a->ntable + 2, ncombos;

	if (th > area.h * 9 / 20)
		th = area.h * 9 / 20;
	if (th < 6)
		th = 6;
	L.table = (struct bt_rect){ area.y, area.x, th, area.w };
	L.has_scaling = scaling_groups(a->res, &ncombos);
	if (L.has_scaling) {
		int sw = area.w * 11 / 20;

		L.scaling = (struct bt_rect){ area.y + th, area.x, area.h - th, sw };
		L.cell = (struct bt_rect){ area.y + th, area.x + sw, area.h - th, area.w - sw };
	} else {
		L.scaling = (struct bt_rect){ 0, 0, 0, 0 };
		L.cell = (struct bt_rect){ area.y + th, area.x, area.h - th, area.w };
	}
	return L;
}

static int table_rows(const struct bt_app *a)
{
	struct bt_rect area = { 1, 0, a->rows - 2 - (a->status_h > 0 ? a->status_h : 1), a->cols };

	return layout(a, area).table.h - 2;
}

int bt_resview_key(struct bt_app *a, int ch)
{
	int ncells = a->res ? a->res->ncells : 0;
	int page = table_rows(a);

	switch (ch) {
	case KEY_UP:
	case 'k':
		if (a->cell_sel > 0)
			a->cell_sel--;
		a->dirty |= DIRTY_CELL | DIRTY_SCALING | DIRTY_TABLE;
		return 1;
	case KEY_DOWN:
	case 'j':
		if (a->cell_sel < ncells - 1)
			a->cell_sel++;
		a->dirty |= DIRTY_CELL | DIRTY_SCALING | DIRTY_TABLE;
		return 1;
	case KEY_NPAGE:
	case 'J':
		if (a->tscroll + page < a->ntable)
			a->tscroll += page > 1 ? page - 1 : 1;
		a->dirty |= DIRTY_TABLE;
		return 1;
	case KEY_PPAGE:
	case 'K':
		a->tscroll -= page > 1 ? page - 1 : 1;
		if (a->tscroll < 0)
			a->tscroll = 0;
		a->dirty |= DIRTY_TABLE;
		return 1;
	case KEY_RIGHT:
	case 'l':
		if (a->thscroll + a->cols - 2 < a->table_w)
			a->thscroll += 8;
		a->dirty |= DIRTY_TABLE;
		return 1;
	case KEY_LEFT:
	case 'h':
		a->thscroll = a->thscroll > 8 ? a->thscroll - 8 : 0;
		a->dirty |= DIRTY_TABLE;
		return 1;
	case KEY_HOME:
	case 'g':
		a->tscroll = a->thscroll = 0;
		a->dirty |= DIRTY_TABLE;
		return 1;
	default:
		return 0;
	}
}

/*
 * Does this table line belong to the selected cell: its row (the first axis
 * value, then '|') or its latency line (its label, then a space)?
 */
static int is_sel_line(const struct bt_app *a, const char *line)
{
	const struct bt_cell *c = &a->res->cells[a->cell_sel];
	size_t n;

	if (a->res->naxes == 0)
		return 0;
	n = strlen(c->label);
	if (n && !strncmp(line, c->label, n) && line[n] == ' ')
		return 1;
	n = strlen(c->values[0]);
	if (!n || strncmp(line, c->values[0], n) || line[n] != ' ')
		return 0;
	line += n;
	while (*line == ' ')
		line++;
	return *line == '|';
}

/*
 * The scaling chart's model: x = the row axis (log2 when all its values are
 * positive), y = median throughput, one series per combination of the other
 * axes (cells c = t * ncombos + k), and cell[k * nt + i] the cell of point i
 * of series k. When the row axis counts workers, the ideal line from the
 * first series' lowest count. 0, or -1 (nothing to draw, or no memory).
 */
struct scaling {
	struct bt_chart_model m;
	struct bt_series *ser, ideal;
	double *xs, *ys, ix[2], iy[2];
	int *cell;
	char (*labels)[128];
	char unit[48];
};

static void scaling_free(struct scaling *sc)
{
	free(sc->ser);
	free(sc->xs);
	free(sc->ys);
	free(sc->cell);
	free(sc->labels);
}

/* 1 when cells a and b have the same values on every axis but the first. */
static int same_rest(const struct bt_results *res, int a, int b)
{
	for (int ax = 1; ax < res->naxes; ax++)
		if (strcmp(res->cells[a].values[ax], res->cells[b].values[ax]) != 0)
			return 0;
	return 1;
}

/*
 * Explore's cells are segments, not a grid: one series per combination of
 * the other axes' values, its points in x order (a value visited twice
 * shows its later segment), cells[] the cell of each point. Returns the
 * number of series.
 */
static int explore_series(const struct bt_results *res, int sel, struct bt_series *ser,
			  double *xs, double *ys, int *cells, char (*labels)[128], int *logx)
{
	int *group = calloc((size_t)res->ncells, sizeof(int)), ng = 0, used = 0;

	if (group == NULL)
		return 0;
	for (int c = 0; c < res->ncells; c++) {
		int g;

		for (g = 0; g < c; g++)
			if (same_rest(res, c, g))
				break;
		group[c] = g < c ? group[g] : ng++;
	}
	for (int k = 0; k < ng; k++) {
		double *x = xs + used, *y = ys + used;
		int *cl = cells + used;
		int n = 0, first = -1;

		for (int c = 0; c < res->ncells; c++) {
			double v;
			int at;

			if (group[c] != k || !res->cells[c].done || res->cells[c].failed ||
			    bt_results_axis_value(res->cells[c].values[0], &v) < 0)
				continue;
			if (first < 0)
				first = c;
			for (at = 0; at < n && x[at] < v; at++)
				;
			if (at == n || x[at] != v) {
				memmove(x + at + 1, x + at, sizeof(*x) * (size_t)(n - at));
				memmove(y + at + 1, y + at, sizeof(*y) * (size_t)(n - at));
				memmove(cl + at + 1, cl + at, sizeof(*cl) * (size_t)(n - at));
				n++;
			}
			x[at] = v;
			y[at] = res->cells[c].ops_s.median;
			cl[at] = c;
			*logx &= v > 0;
		}
		labels[k][0] = '\0';
		for (int ax = 1, o = 0; first >= 0 && ax < res->naxes && o < 128; ax++)
			o += snprintf(labels[k] + o, 128 - (size_t)o, "%s%s", ax > 1 ? " " : "",
				      res->cells[first].values[ax]);
		ser[k] = (struct bt_series){ x, y, n, (enum bt_role)(ROLE_SERIES0 + k % 8),
					     sel >= 0 && sel < res->ncells && group[sel] == k,
					     labels[k][0] ? labels[k] : "median" };
		used += n;
	}
	free(group);
	return ng;
}

static int scaling_build(const struct bt_app *a, struct scaling *sc)
{
	const struct bt_results *res = a->res;
	struct bt_chart_model *m = &sc->m;
	int ncombos = 1, nt, logx = 1;

	memset(sc, 0, sizeof(*sc));
	if (!scaling_groups(res, &ncombos))
		return -1;
	snprintf(sc->unit, sizeof(sc->unit), "%s/s", res->unit);
	nt = res->ncells / ncombos;
	sc->ser = calloc((size_t)ncombos, sizeof(*sc->ser));
	sc->xs = calloc((size_t)res->ncells, sizeof(*sc->xs));
	sc->ys = calloc((size_t)res->ncells, sizeof(*sc->ys));
	sc->cell = calloc((size_t)res->ncells, sizeof(*sc->cell));
	sc->labels = calloc((size_t)ncombos, sizeof(*sc->labels));
	if (sc->ser == NULL || sc->xs == NULL || sc->ys == NULL || sc->cell == NULL ||
	    sc->labels == NULL) {
		scaling_free(sc);
		return -1;
	}
	if (res->explore)
		ncombos = explore_series(res, a->cell_sel, sc->ser, sc->xs, sc->ys, sc->cell, sc->labels,
					 &logx);
	for (int k = 0; k < ncombos && !res->explore; k++) {
		const struct bt_cell *c0 = &res->cells[k];
		char *label = sc->labels[k];
		size_t o = 0;
		int n = 0;

		label[0] = '\0';
		for (int ax = 1; ax < res->naxes && o < sizeof(sc->labels[k]); ax++)
			o += (size_t)snprintf(label + o, sizeof(sc->labels[k]) - o, "%s%s",
					      ax > 1 ? " " : "", c0->values[ax]);
		for (int t = 0; t < nt; t++) {
			const struct bt_cell *c = &res->cells[t * ncombos + k];

			if (!c->done || c->failed ||
			    bt_results_axis_value(c->values[0], &sc->xs[k * nt + n]) < 0)
				continue;
			logx &= sc->xs[k * nt + n] > 0;
			sc->ys[k * nt + n] = c->ops_s.median;
			sc->cell[k * nt + n] = t * ncombos + k;
			n++;
		}
		sc->ser[k].x = sc->xs + k * nt;
		sc->ser[k].y = sc->ys + k * nt;
		sc->ser[k].n = n;
		sc->ser[k].role = (enum bt_role)(ROLE_SERIES0 + k % 8);
		sc->ser[k].highlight = a->cell_sel % ncombos == k;
		sc->ser[k].label = label[0] ? label : "median";
	}
	if (res->axis_workers[0] && sc->ser[0].n > 0 && sc->ser[0].x[0] > 0) {
		double xmax = sc->ser[0].x[sc->ser[0].n - 1], best = 0;

		for (int t = 0; t < nt; t++) {
			double x = 0;

			bt_results_axis_value(res->cells[t * ncombos].values[0], &x);
			if (x > xmax)
				xmax = x;
		}
		sc->ix[0] = sc->ser[0].x[0];
		sc->iy[0] = sc->ser[0].y[0];
		sc->ix[1] = xmax;
		sc->iy[1] = sc->ser[0].y[0] * xmax / sc->ser[0].x[0];
		sc->ideal = (struct bt_series){ sc->ix, sc->iy, 2, ROLE_IDEAL, 0, "ideal" };
		m->ideal = &sc->ideal;
		/*
		 * Show the ideal line's slope without squashing the data: the
		 * y axis goes to twice the best median, or the ideal's end.
		 */
		for (int i = 0; i < res->ncells; i++)
			if (res->cells[i].done && res->cells[i].ops_s.median > best)
				best = res->cells[i].ops_s.median;
		m->ymin = 0;
		m->ymax = bt_chart_nice_ceiling(sc->iy[1] < 2 * best ? sc->iy[1] : 2 * best);
	}
	m->yunit = sc->unit;
	m->xunit = res->axes[0];
	m->logx = logx;
	m->nseries = ncombos;
	m->glyphs = !a->color;
	m->series = sc->ser;
	return 0;
}

/* The inside of the scaling chart's box (bt_box_draw's): where a click finds its points. */
static struct bt_rect scaling_inner(struct bt_rect r)
{
	return (struct bt_rect){ r.y + 1, r.x + 1, r.h - 2, r.w - 2 };
}

/*
 * A click on the scaling chart: the point under it (chart.c bt_chart_hit)
 * selects its cell, as a click on the cell's table row does. 1 when hit.
 */
static int click_scaling(struct bt_app *a, struct bt_rect r, int y, int x)
{
	struct scaling sc;
	struct bt_rect in = scaling_inner(r);
	int k, i, hit;

	if (in.h < 4 || in.w < 20 || scaling_build(a, &sc) < 0)
		return 0;
	hit = bt_chart_hit(stdscr, in, &sc.m, a->utf8, y, x, &k, &i);
	if (hit) {
		/* a series' points sit at its x's offset in xs, their cells at the same in cell */
		a->cell_sel = sc.cell[(sc.ser[k].x - sc.xs) + i];
		a->dirty |= DIRTY_TABLE | DIRTY_SCALING | DIRTY_CELL;
	}
	scaling_free(&sc);
	return hit;
}

int bt_resview_click(struct bt_app *a, struct bt_rect area, int y, int x)
{
	struct res_layout L;
	const char *line;
	int i, old;

	if (a->res == NULL)
		return 0;
	L = layout(a, area);
	if (L.has_scaling && y >= L.scaling.y && y < L.scaling.y + L.scaling.h &&
	    x >= L.scaling.x && x < L.scaling.x + L.scaling.w)
		return click_scaling(a, L.scaling, y, x);
	i = a->tscroll + y - (L.table.y + 1);
	if (y <= L.table.y || y >= L.table.y + L.table.h - 1 || i < 0 || i >= a->ntable)
		return 0;
	line = a->table[i];
	old = a->cell_sel;
	/* The first cell whose row this is, as the selection's highlight finds it. */
	for (int c = 0; c < a->res->ncells; c++) {
		a->cell_sel = c;
		if (is_sel_line(a, line)) {
			a->dirty |= DIRTY_TABLE | DIRTY_SCALING | DIRTY_CELL;
			return 1;
		}
	}
	a->cell_sel = old;
	return 0;
}

static void draw_table(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	struct bt_rect in;
	char title[160];

	snprintf(title, sizeof(title), "Results: %s, %s  (PgUp/PgDn, Left/Right scroll)",
		 a->res->workload, a->res->status);
	bt_app_clear(w, r);
	in = bt_box_draw(w, r, title, 0, a->utf8);
	for (int i = 0; i < in.h && a->tscroll + i < a->ntable; i++) {
		const char *line = a->table[a->tscroll + i];
		int len = (int)strlen(line);
		enum bt_role role = ROLE_NORMAL;

		if (a->tscroll + i < 2)
			role = ROLE_LABEL;
		if (is_sel_line(a, line))
			role = ROLE_SELECT;
		/* A cell marked "!" (noisy, bimodal, steal: report.c) and its footnote. */
		if (strstr(line, "interrupted") || strstr(line, "failed") ||
		    (a->tscroll + i >= 2 && strchr(line, '!') != NULL))
			role = ROLE_WARN;
		if (len > a->thscroll)
			bt_app_put(w, in.y + i, in.x, in.w, role, line + a->thscroll);
	}
}

static void draw_scaling(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	const struct bt_results *res = a->res;
	struct scaling sc;
	char title[128];
	struct bt_rect in;

	bt_app_clear(w, r);
	snprintf(title, sizeof(title), "Scaling: median throughput vs %s  (click a point)",
		 res->naxes > 0 ? res->axes[0] : "-");
	if ((int)strlen(title) > r.w - 6)
		snprintf(title, sizeof(title), "Scaling: median throughput vs %s",
			 res->naxes > 0 ? res->axes[0] : "-");
	in = bt_box_draw(w, r, title, 0, a->utf8);
	if (in.h < 4 || in.w < 20 || scaling_build(a, &sc) < 0)
		return;
	bt_chart_draw(w, in, &sc.m, a->utf8);
	scaling_free(&sc);
}

/*
 * Under the cell's headline, what the text report shows in its own blocks:
 * a line per extra latency channel ("incr  p50 ..  n=8000") and the error
 * kinds (medians over the counted reps, as the metrics block). Lines that
 * leave the histogram fewer than 4 rows are not drawn. Returns the rows used.
 */
static int extra_lines(WINDOW *w, struct bt_rect in, const struct bt_app *a, const struct bt_cell *c)
{
	const struct bt_results *res = a->res;
	char line[512], v[64];
	int y = 0, room = in.h - 1 - 4, nerr = 0;
	size_t o;

	for (int k = 0; k < res->nch && k < BT_RES_LAT_CH && y < room; k++) {
		if (c->ch_hist[k] == NULL || c->ch_hist[k]->total == 0)
			continue;
		bt_live_ch_text(res->ch_names[k], c->ch_hist[k], in.w >= 70, line, sizeof(line));
		bt_app_put(w, in.y + 1 + y++, in.x, in.w, ROLE_NORMAL, line);
	}
	o = (size_t)snprintf(line, sizeof(line), "errors (median per rep):");
	for (int m = 0; m < res->nmetrics && m < BT_RES_METRICS; m++) {
		if (!res->metrics[m].error)
			continue;
		nerr++;
		if (c->metric[m].n == 0 || !(c->metric[m].median > 0) || o >= sizeof(line))
			continue;
		o += (size_t)snprintf(line + o, sizeof(line) - o, " %s %s", res->metrics[m].name,
				      bt_fmt_si(c->metric[m].median, v, sizeof(v)));
	}
	if (nerr > 0 && y < room) {
		int none = strchr(line, ':')[1] == '\0';

		bt_app_put(w, in.y + 1 + y++, in.x, in.w, none ? ROLE_DIM : ROLE_WARN,
			   none ? "errors: none" : line);
	}
	return y;
}

/*
 * The cell's ratio metrics (medians) in one line, "resident_pct 0.0%
 * resident_end_pct 100.0%": a cold file run's page-cache residency when the
 * rep began and when it ended, a cache's hit ratio. "" when it has none.
 */
static void cell_ratios(const struct bt_results *res, const struct bt_cell *c, char *buf, size_t n)
{
	size_t o = 0;
	char v[32];

	buf[0] = '\0';
	for (int m = 0; m < res->nmetrics && m < BT_RES_METRICS && o < n; m++) {
		if (res->metrics[m].kind != BT_MI_RATIO || c->metric[m].n == 0)
			continue;
		o += (size_t)snprintf(buf + o, n - o, "%s%s %s", o ? "  " : "", res->metrics[m].name,
				      bt_results_metric_fmt(&res->metrics[m], c->metric[m].median, v,
							    sizeof(v)));
	}
}

static void draw_cell(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	const struct bt_results *res = a->res;
	const struct bt_cell *c;
	struct bt_rect in, hr;
	char title[320], b[6][32], ratios[256];
	int pl, y;

	bt_app_clear(w, r);
	if (res->ncells == 0)
		return;
	c = &res->cells[a->cell_sel];
	{
		char name[256];

		snprintf(title, sizeof(title), "Cell %d/%d: %s  (Up/Down)", a->cell_sel + 1, res->ncells,
			 bt_results_cell_name(res, a->cell_sel, name, sizeof(name)));
	}
	in = bt_box_draw(w, r, title, 1, a->utf8);
	if (in.h < 4)
		return;
	if (!c->done) {
		bt_app_put(w, in.y, in.x, in.w, c->failed ? ROLE_ERROR : ROLE_DIM,
			   c->failed ? "failed (see the status line)" : "not finished");
		return;
	}
	{
		char why[BT_ERR_MAX];

		/* A doubtful cell says why on selection (results.h bt_cell.noise). */
		bt_app_putf(w, in.y, in.x, in.w, c->noise ? ROLE_WARN : ROLE_VALUE,
			    "%s %s/s  sd %.1f%%  wall %s%s%s",
			    bt_fmt_si(c->ops_s.median, b[0], 32), res->unit,
			    c->ops_s.median ? 100.0 * c->ops_s.stddev / c->ops_s.median : 0.0,
			    bt_fmt_ns(c->wall_s.median * 1e9, b[1], 32), c->noise ? "  ! " : "",
			    c->noise ? bt_cell_noise_text(c, why, sizeof(why)) : "");
	}
	cell_ratios(res, c, ratios, sizeof(ratios));
	y = in.y + 1;
	if (ratios[0])
		bt_app_put(w, y++, in.x, in.w, ROLE_NORMAL, ratios);
	/* The channels and error kinds from row y (extra_lines starts under its rect's top). */
	y += extra_lines(w, (struct bt_rect){ y - 1, in.x, in.h - (y - 1 - in.y), in.w }, a, c);
	if (c->hist == NULL || c->hist->total == 0) {
		bt_app_put(w, y, in.x, in.w, ROLE_DIM, c->lat_every == 0 ?
			   "no latencies recorded (lat=off)" : "no latencies recorded (no op completed)");
		return;
	}
	bt_fmt_ns((double)bt_hist_percentile(c->hist, 50), b[0], 32);
	bt_fmt_ns((double)bt_hist_percentile(c->hist, 90), b[1], 32);
	bt_fmt_ns((double)bt_hist_percentile(c->hist, 99), b[2], 32);
	bt_fmt_ns((double)bt_hist_percentile(c->hist, 99.9), b[3], 32);
	bt_fmt_ns((double)c->hist->max, b[4], 32);
	if (in.w >= 56) {
		bt_app_putf(w, y, in.x, in.w, ROLE_NORMAL, "p50 %s  p90 %s  p99 %s  p99.9 %s  max %s",
			    b[0], b[1], b[2], b[3], b[4]);
		pl = 1;
	} else {
		bt_app_putf(w, y, in.x, in.w, ROLE_NORMAL, "p50 %s  p90 %s  p99 %s", b[0], b[1], b[2]);
		bt_app_putf(w, y + 1, in.x, in.w, ROLE_NORMAL, "p99.9 %s  max %s", b[3], b[4]);
		pl = 2;
	}
	hr = (struct bt_rect){ y + pl, in.x, in.h - (y - in.y) - pl, in.w };
	bt_histo_draw(w, hr, c->hist, a->utf8);
}

void bt_resview_draw(WINDOW *w, const struct bt_app *a, unsigned dirty, struct bt_rect area)
{
	struct res_layout L;

	if (a->res == NULL) {
		if (dirty & DIRTY_TABLE) {
			bt_app_clear(w, area);
			bt_app_put(w, area.y + 1, area.x + 2, area.w - 4, ROLE_DIM, "no results yet: r runs the sweep");
		}
		return;
	}
	L = layout(a, area);
	if (dirty & DIRTY_TABLE)
		draw_table(w, L.table, a);
	if (L.has_scaling && (dirty & DIRTY_SCALING))
		draw_scaling(w, L.scaling, a);
	if (dirty & DIRTY_CELL)
		draw_cell(w, L.cell, a);
}

/* The folder `e` offers: the last one used, else the recording's, else ".". */
void bt_resview_export_dir(const struct bt_app *a, char *buf, size_t n)
{
	const char *rec = a->res_path[0] ? a->res_path : a->record_path;
	const char *slash = strrchr(rec, '/');

	if (a->export_dir[0])
		snprintf(buf, n, "%s", a->export_dir);
	else if (slash != NULL && slash > rec)
		snprintf(buf, n, "%.*s", (int)(slash - rec), rec);
	else
		snprintf(buf, n, ".");
}

/*
 * e, once the prompt gave a folder: the file set `benchtop export --format
 * all --out DIR` writes (bt_sessions_export_set), named after the recording
 * the results came from (a replay's, or the run's; benchtop-WORKLOAD when
 * nothing was recorded). The folder is remembered (settings: export_dir).
 */
void bt_resview_export(struct bt_app *a, const char *dir)
{
	const struct bt_results *res = a->res;
	struct bt_err err = { "" };
	char base[256];
	int nh;

	if (res == NULL) {
		bt_app_status(a, ROLE_WARN, "nothing to export yet");
		return;
	}
	bt_sessions_export_base(a->res_path[0] ? a->res_path : a->record_path, res->workload,
				base, sizeof(base));
	nh = bt_sessions_export_set(res, dir, base, NULL, NULL, &err);
	if (nh < 0) {
		bt_app_status(a, ROLE_ERROR, "%s", err.msg);
		return;
	}
	snprintf(a->export_dir, sizeof(a->export_dir), "%s", dir);
	bt_app_status(a, ROLE_GOOD, "exported %s.md .csv .json and %d .hgrm (us) to %s", base, nh, dir);
}
