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

int bt_resview_click(struct bt_app *a, struct bt_rect area, int y)
{
	struct res_layout L;
	const char *line;
	int i, old;

	if (a->res == NULL)
		return 0;
	L = layout(a, area);
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

/*
 * The scaling chart: x = the row axis (log2 when all its values are
 * positive), y = median throughput, one series per combination of the other
 * axes (cells c = t * ncombos + k). When the row axis counts workers, the
 * ideal line from the first series' lowest count.
 */
static void draw_scaling(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	const struct bt_results *res = a->res;
	int ncombos = 1, nt;
	struct bt_series *ser;
	struct bt_series ideal = { 0 };
	struct bt_chart_model m = { 0 };
	double *xs, *ys, ix[2], iy[2];
	char (*labels)[128];
	char unit[48], title[128];
	struct bt_rect in;
	int logx = 1;

	bt_app_clear(w, r);
	snprintf(unit, sizeof(unit), "%s/s", res->unit);
	snprintf(title, sizeof(title), "Scaling: median throughput vs %s",
		 res->naxes > 0 ? res->axes[0] : "-");
	in = bt_box_draw(w, r, title, 0, a->utf8);
	if (in.h < 4 || in.w < 20 || !scaling_groups(res, &ncombos))
		return;
	nt = res->ncells / ncombos;
	ser = calloc((size_t)ncombos, sizeof(*ser));
	xs = calloc((size_t)res->ncells, sizeof(*xs));
	ys = calloc((size_t)res->ncells, sizeof(*ys));
	labels = calloc((size_t)ncombos, sizeof(*labels));
	if (ser == NULL || xs == NULL || ys == NULL || labels == NULL)
		goto out;
	for (int k = 0; k < ncombos; k++) {
		const struct bt_cell *c0 = &res->cells[k];
		size_t o = 0;
		int n = 0;

		labels[k][0] = '\0';
		for (int ax = 1; ax < res->naxes && o < sizeof(labels[k]); ax++)
			o += (size_t)snprintf(labels[k] + o, sizeof(labels[k]) - o, "%s%s", ax > 1 ? " " : "",
					      c0->values[ax]);
		for (int t = 0; t < nt; t++) {
			const struct bt_cell *c = &res->cells[t * ncombos + k];

			if (!c->done || c->failed ||
			    bt_results_axis_value(c->values[0], &xs[k * nt + n]) < 0)
				continue;
			logx &= xs[k * nt + n] > 0;
			ys[k * nt + n] = c->ops_s.median;
			n++;
		}
		ser[k].x = xs + k * nt;
		ser[k].y = ys + k * nt;
		ser[k].n = n;
		ser[k].role = (enum bt_role)(ROLE_SERIES0 + k % 8);
		ser[k].highlight = a->cell_sel % ncombos == k;
		ser[k].label = labels[k][0] ? labels[k] : "median";
	}
	if (res->axis_workers[0] && ser[0].n > 0 && ser[0].x[0] > 0) {
		double xmax = ser[0].x[ser[0].n - 1];

		for (int t = 0; t < nt; t++) {
			double x = 0;

			bt_results_axis_value(res->cells[t * ncombos].values[0], &x);
			if (x > xmax)
				xmax = x;
		}
		ix[0] = ser[0].x[0];
		iy[0] = ser[0].y[0];
		ix[1] = xmax;
		iy[1] = ser[0].y[0] * xmax / ser[0].x[0];
		ideal = (struct bt_series){ ix, iy, 2, ROLE_IDEAL, 0, "ideal" };
		m.ideal = &ideal;
		/*
		 * Show the ideal line's slope without squashing the data: the
		 * y axis goes to twice the best median, or the ideal's end.
		 */
		{
			double best = 0;

			for (int i = 0; i < res->ncells; i++)
				if (res->cells[i].done && res->cells[i].ops_s.median > best)
					best = res->cells[i].ops_s.median;
			m.ymin = 0;
			m.ymax = bt_chart_nice_ceiling(iy[1] < 2 * best ? iy[1] : 2 * best);
		}
	}
	m.yunit = unit;
	m.xunit = res->axes[0];
	m.logx = logx;
	m.nseries = ncombos;
	m.glyphs = !a->color;
	m.series = ser;
	bt_chart_draw(w, in, &m, a->utf8);
out:
	free(ser);
	free(xs);
	free(ys);
	free(labels);
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
	if (c->hist == NULL || c->hist->total == 0) {
		bt_app_put(w, y, in.x, in.w, ROLE_DIM, "no latencies recorded (lat=off)");
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
