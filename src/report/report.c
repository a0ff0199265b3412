/*
 * report.c - the results table (see report.h).
 *
 * Text and Markdown share one layout: rows are the values of the first axis,
 * column groups the combinations of the other axes (both in the order they
 * first appear among the cells), six columns per group. Strings are put in a
 * grid first, then column widths are measured and everything is printed
 * aligned. CSV and JSON are one record per cell with the same field names.
 */
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report/csv.h"
#include "report/grid.h"
#include "core/units.h"

int bt_format_parse(const char *s, enum bt_format *out)
{
	static const struct {
		const char *name;
		enum bt_format fmt;
	} names[] = {
		{ "text", BT_FMT_TEXT }, { "markdown", BT_FMT_MARKDOWN }, { "md", BT_FMT_MARKDOWN },
		{ "csv", BT_FMT_CSV }, { "json", BT_FMT_JSON }, { "openssl", BT_FMT_OPENSSL },
	};

	for (size_t i = 0; s != NULL && i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i].name) == 0) {
			*out = names[i].fmt;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- drawing helpers (the grid itself is report/grid.h) ------------------ */

static void spaces(FILE *f, int n)
{
	while (n-- > 0)
		fputc(' ', f);
}

static void chars(FILE *f, int ch, int n)
{
	while (n-- > 0)
		fputc(ch, f);
}

/* ---- layout: rows = first axis, groups = the other axes ----------------- */

/* Seconds as a duration with a fitting unit ("2.74ms"); exact zero as "0". */
static char *fmt_secs(double s, char *buf, size_t n)
{
	if (s == 0) {
		snprintf(buf, n, "0");
		return buf;
	}
	return bt_fmt_ns(s * 1e9, buf, n);
}

#define NCOLS 6		/* throughput, sd%, wall, user, sys, csw */
#define NCOLS_COMPACT 2	/* throughput, sd%: when there are more than 2 groups */

struct layout {
	int nrows, ngroups;
	int ncols;		/* columns per group: NCOLS, or NCOLS_COMPACT for wide sweeps,
				 * then nmcols metric columns */
	int nmcols;		/* metric columns in the table (0: a metrics section below it) */
	int *row_cell;		/* first cell with each row's value */
	int *group_cell;	/* first cell with each group's values */
	int *slot;		/* [nrows * ngroups]: cell index or -1 */
};

static int same_row(const struct bt_results *res, const struct bt_cell *a, const struct bt_cell *b)
{
	return res->naxes < 1 || strcmp(a->values[0], b->values[0]) == 0;
}

static int same_group(const struct bt_results *res, const struct bt_cell *a,
		      const struct bt_cell *b)
{
	for (int i = 1; i < res->naxes && i < BT_RES_AXES; i++)
		if (strcmp(a->values[i], b->values[i]) != 0)
			return 0;
	return 1;
}

/*
 * A workload's typed metrics join the table as columns (medians) while they
 * fit a terminal: up to METRICS_INLINE of them, and only where each group
 * keeps its six columns; otherwise they get their own section under it,
 * one row per cell, like the time and latency sections.
 */
#define METRICS_INLINE 2

static int metrics_inline(const struct bt_results *res, int ncols)
{
	int nm = res->nmetrics < BT_RES_METRICS ? res->nmetrics : BT_RES_METRICS;

	return ncols == NCOLS && nm <= METRICS_INLINE ? nm : 0;
}

/*
 * A metric's column head: its name, and its unit in parentheses where the
 * values do not carry it (times, %, bytes do): "timeouts (waits)".
 */
static void metric_head(const struct bt_metric_info *mi, char *buf, size_t n)
{
	int shown = mi->kind == BT_MI_TIME || strcmp(mi->unit, "%") == 0 ||
		    strcmp(mi->unit, "bytes") == 0 || strcmp(mi->unit, "B") == 0;

	if (mi->unit[0] && !shown)
		snprintf(buf, n, "%s (%s)", mi->name, mi->unit);
	else
		snprintf(buf, n, "%s", mi->name);
}

/* Cell's median of metric m as text; "-" when no counted rep has a value. */
static void metric_median(const struct bt_results *res, const struct bt_cell *cell, int m,
			  char *buf, size_t n)
{
	const struct bt_summary *s = &cell->metric[m];

	bt_results_metric_fmt(&res->metrics[m], s->n > 0 ? s->median : NAN, buf, n);
}

static void layout_free(struct layout *l)
{
	free(l->row_cell);
	free(l->group_cell);
	free(l->slot);
}

static int layout_build(const struct bt_results *res, struct layout *l)
{
	int n = res->ncells > 0 ? res->ncells : 1, rc = 0;
	int *at = malloc(2 * (size_t)n * sizeof(int));	/* row and group of each cell */

	memset(l, 0, sizeof(*l));
	l->row_cell = calloc((size_t)n, sizeof(int));
	l->group_cell = calloc((size_t)n, sizeof(int));
	if (at == NULL || l->row_cell == NULL || l->group_cell == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (int c = 0; c < res->ncells; c++) {
		const struct bt_cell *cell = &res->cells[c];
		int r, g;

		for (r = 0; r < l->nrows; r++)
			if (same_row(res, &res->cells[l->row_cell[r]], cell))
				break;
		if (r == l->nrows)
			l->row_cell[l->nrows++] = c;
		for (g = 0; g < l->ngroups; g++)
			if (same_group(res, &res->cells[l->group_cell[g]], cell))
				break;
		if (g == l->ngroups)
			l->group_cell[l->ngroups++] = c;
		at[2 * c] = r;
		at[2 * c + 1] = g;
	}
	l->slot = malloc(((size_t)l->nrows * (size_t)l->ngroups + 1) * sizeof(int));
	if (l->slot == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < l->nrows * l->ngroups; i++)
		l->slot[i] = -1;
	for (int c = 0; c < res->ncells; c++)
		l->slot[at[2 * c] * l->ngroups + at[2 * c + 1]] = c;
out:
	free(at);
	if (rc < 0)
		layout_free(l);
	/*
	 * More than two column groups do not fit a terminal with six columns
	 * each: then the table keeps throughput and sd%, and the per-cell time
	 * section below it carries wall, user, sys and csw.
	 */
	l->ncols = l->ngroups > 2 ? NCOLS_COMPACT : NCOLS;
	l->nmcols = metrics_inline(res, l->ncols);
	l->ncols += l->nmcols;
	return rc;
}

/* "lock=mutex notify=signal": the cell's values on every axis from 'from' on. */
static void axes_label(const struct bt_results *res, const struct bt_cell *cell, int from,
		       char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int a = from; a < res->naxes && a < BT_RES_AXES && o < n; a++) {
		int k = snprintf(buf + o, n - o, "%s%s=%s", o ? " " : "", res->axes[a],
				 cell->values[a]);

		if (k < 0)
			break;
		o += (size_t)k;
	}
}

/* What a latency line or a CSV row calls a cell. */
static void cell_name(const struct bt_results *res, const struct bt_cell *cell, char *buf,
		      size_t n)
{
	if (cell->label[0])
		snprintf(buf, n, "%s", cell->label);
	else if (res->naxes > 0)
		axes_label(res, cell, 0, buf, n);
	else
		snprintf(buf, n, "%s", res->workload);
}

static const char *status_of(const struct bt_results *res)
{
	return res->status[0] ? res->status : "running";
}

static int max_total_reps(const struct bt_results *res)
{
	int m = 0;

	for (int c = 0; c < res->ncells; c++)
		if (res->cells[c].total_reps > m)
			m = res->cells[c].total_reps;
	return m;
}

static const char *unit_of(const struct bt_results *res)
{
	return res->unit[0] ? res->unit : "ops";
}

/* 1 when some finished cell is marked "!" (then every median keeps a column for the mark). */
static int any_marks(const struct bt_results *res)
{
	for (int c = 0; c < res->ncells; c++)
		if (res->cells[c].done && res->cells[c].noise)
			return 1;
	return 0;
}

/*
 * The six strings of one cell in the table; an unfinished cell shows only
 * "-" or "failed". marks: some cell is marked, so a median without "!" ends
 * in a space and the medians stay aligned.
 */
static void fill_cell(struct bt_grid *g, int r, int c0, const struct bt_cell *cell, int ncols,
		      int marks)
{
	char b[32];

	if (cell == NULL)
		return;
	if (!cell->done) {
		bt_grid_set(g, r, c0, "%s", cell->failed ? "failed" : "-");
		return;
	}
	/* "!": a footnote under the table says what makes the number doubtful (write_marks). */
	bt_grid_set(g, r, c0, "%s%s", bt_fmt_si(cell->ops_s.median, b, sizeof(b)),
		    cell->noise ? "!" : marks ? " " : "");
	if (cell->ops_s.n >= 2 && cell->ops_s.median != 0)
		bt_grid_set(g, r, c0 + 1, "%.1f", 100.0 * cell->ops_s.stddev / fabs(cell->ops_s.median));
	if (ncols < NCOLS)
		return;
	bt_grid_set(g, r, c0 + 2, "%s", fmt_secs(cell->wall_s.median, b, sizeof(b)));
	bt_grid_set(g, r, c0 + 3, "%s", fmt_secs(cell->user_s.median, b, sizeof(b)));
	bt_grid_set(g, r, c0 + 4, "%s", fmt_secs(cell->sys_s.median, b, sizeof(b)));
	bt_grid_set(g, r, c0 + 5, "%s", bt_fmt_si(cell->vcsw.median + cell->ivcsw.median, b, sizeof(b)));
}

/* The metric columns of one cell: from column c0 on, the medians of the first n metrics. */
static void fill_metrics(struct bt_grid *g, int r, int c0, const struct bt_results *res,
			 const struct bt_cell *cell, int n)
{
	for (int m = 0; cell != NULL && cell->done && m < n; m++)
		metric_median(res, cell, m, bt_grid_cell(g, r, c0 + m), BT_GRID_CELL);
}

/*
 * The main table as a grid: row 0 holds the column names (in Markdown the
 * first column of each group also carries the group's label, since a
 * Markdown table has no spanning header row).
 */
static int table_grid(const struct bt_results *res, const struct layout *l, int md,
		      struct bt_grid *g)
{
	static const char *const names[NCOLS] = { NULL, "sd%", "wall", "user", "sys", "csw" };
	int ngroups = l->ngroups > 0 ? l->ngroups : 1, nc = l->ncols, marks = any_marks(res);

	if (bt_grid_init(g, 1 + l->nrows, 1 + nc * ngroups) < 0)
		return -ENOMEM;
	g->group = nc;
	bt_grid_set(g, 0, 0, "%s", res->naxes > 0 ? res->axes[0] : "workload");
	for (int gr = 0; gr < ngroups; gr++) {
		char label[256] = "";

		if (md && l->ngroups > 0 && res->naxes > 1)
			axes_label(res, &res->cells[l->group_cell[gr]], 1, label, sizeof(label));
		for (int k = 0; k < nc; k++) {
			int c = 1 + gr * nc + k;

			g->right[c] = 1;
			if (k == 0)
				bt_grid_set(g, 0, c, "%s%s%s/s", label, label[0] ? " " : "", unit_of(res));
			else if (k >= nc - l->nmcols)
				metric_head(&res->metrics[k - (nc - l->nmcols)], bt_grid_cell(g, 0, c), BT_GRID_CELL);
			else
				bt_grid_set(g, 0, c, "%s", names[k]);
		}
	}
	for (int r = 0; r < l->nrows; r++) {
		const struct bt_cell *first = &res->cells[l->row_cell[r]];

		bt_grid_set(g, 1 + r, 0, "%s", res->naxes > 0 ? first->values[0] : res->workload);
		for (int gr = 0; gr < l->ngroups; gr++) {
			int c = l->slot[r * l->ngroups + gr];

			fill_cell(g, 1 + r, 1 + gr * nc, c >= 0 ? &res->cells[c] : NULL, nc - l->nmcols,
				  marks);
			fill_metrics(g, 1 + r, 1 + gr * nc + nc - l->nmcols, res,
				     c >= 0 ? &res->cells[c] : NULL, l->nmcols);
		}
	}
	if (md)
		bt_grid_md_escape(g);
	bt_grid_measure(g);
	return 0;
}

/* The histogram of channel ch of a cell: 0 the main one, k >= 1 extra channel k. */
static const struct bt_hist *cell_hist(const struct bt_cell *cell, int ch)
{
	return ch == 0 ? cell->hist : ch <= BT_RES_LAT_CH ? cell->ch_hist[ch - 1] : NULL;
}

/*
 * The latency lines of channel ch (0: the main histogram) as a grid, one
 * row per cell. Extra channels record every op, so only the main one says
 * "1/N timed".
 */
static int latency_grid(const struct bt_results *res, int ch, int md, struct bt_grid *g)
{
	static const char *const head[] = {
		"", "p50", "p90", "p99", "p99.9", "max", "mean", "count", "",
	};
	static const double pct[] = { 50, 90, 99, 99.9 };
	const int ncols = (int)(sizeof(head) / sizeof(head[0]));

	if (bt_grid_init(g, 1 + res->ncells, ncols) < 0)
		return -ENOMEM;
	for (int c = 0; c < ncols; c++) {
		bt_grid_set(g, 0, c, "%s", head[c]);
		g->right[c] = c > 0 && c < ncols - 1;
	}
	bt_grid_set(g, 0, 0, "%s", res->naxes > 0 ? "cell" : "workload");
	for (int i = 0; i < res->ncells; i++) {
		const struct bt_cell *cell = &res->cells[i];
		const struct bt_hist *h = cell_hist(cell, ch);
		char b[32];
		int r = 1 + i;

		cell_name(res, cell, bt_grid_cell(g, r, 0), BT_GRID_CELL);
		if (!cell->done || h == NULL || h->total == 0) {
			bt_grid_set(g, r, 1, "-");
			continue;
		}
		for (int k = 0; k < 4; k++)
			bt_grid_set(g, r, 1 + k, "%s", bt_fmt_ns((double)bt_hist_percentile(h, pct[k]), b,
							  sizeof(b)));
		bt_grid_set(g, r, 5, "%s", bt_fmt_ns((double)h->max, b, sizeof(b)));
		bt_grid_set(g, r, 6, "%s", bt_fmt_ns(bt_hist_mean(h), b, sizeof(b)));
		bt_grid_set(g, r, 7, "%" PRIu64, h->total);
		if (ch == 0 && cell->lat_every > 1)
			bt_grid_set(g, r, 8, "(1/%" PRIu32 " timed)", cell->lat_every);
	}
	if (md)
		bt_grid_md_escape(g);
	bt_grid_measure(g);
	return 0;
}

/*
 * The axis speedups are relative to, and its value: the recording's baseline
 * ("mode=serial") when that axis is swept and has that value, else the first
 * value of the row axis when it is numeric, else that of the first worker
 * axis (threads, clients). Returns the axis index, or -1.
 */
static int baseline_axis(const struct bt_results *res, const char **value)
{
	const char *eq = strchr(res->baseline, '=');

	if (eq != NULL) {
		size_t klen = (size_t)(eq - res->baseline);

		for (int a = 0; a < res->naxes; a++) {
			if (strlen(res->axes[a]) != klen || strncmp(res->axes[a], res->baseline, klen))
				continue;
			for (int c = 0; c < res->ncells; c++) {
				if (strcmp(res->cells[c].values[a], eq + 1) == 0) {
					*value = eq + 1;
					return a;
				}
			}
		}
	}
	for (int a = 0; a < res->naxes && res->ncells > 0; a++) {
		if ((a == 0 && bt_results_axis_numeric(res, 0)) || res->axis_workers[a]) {
			*value = res->cells[0].values[a];
			return a;
		}
	}
	return -1;
}

/*
 * Speedup of cell: its median throughput over that of the cell with the same
 * values except the baseline axis at the baseline value. 0 when there is no
 * baseline or it has not finished.
 */
static int cell_speedup(const struct bt_results *res, const struct bt_cell *cell, double *out)
{
	const char *value = NULL;
	int ax = baseline_axis(res, &value);

	if (ax < 0)
		return 0;
	for (int c = 0; c < res->ncells; c++) {
		const struct bt_cell *b = &res->cells[c];
		int same = strcmp(b->values[ax], value) == 0;

		for (int a = 0; a < res->naxes && same; a++)
			same = a == ax || strcmp(b->values[a], cell->values[a]) == 0;
		if (!same)
			continue;
		if (!b->done || b->ops_s.median <= 0)
			return 0;
		*out = cell->ops_s.median / b->ops_s.median;
		return 1;
	}
	return 0;
}

/*
 * The time lines as a grid, one row per cell: wall, user, sys, their ratio
 * (user + sys) / wall, the speedup when there is a baseline, context switches.
 */
static int cpu_grid(const struct bt_results *res, int md, struct bt_grid *g)
{
	const char *value;
	int sp_col = baseline_axis(res, &value) >= 0;	/* speedup needs a baseline */
	const char *head[7] = { "", "wall", "user", "sys", "cpu/wall" };
	int ncols = 5;

	if (sp_col)
		head[ncols++] = "speedup";
	head[ncols++] = "csw";
	if (bt_grid_init(g, 1 + res->ncells, ncols) < 0)
		return -ENOMEM;
	for (int c = 0; c < ncols; c++) {
		bt_grid_set(g, 0, c, "%s", head[c]);
		g->right[c] = c > 0;
	}
	bt_grid_set(g, 0, 0, "%s", res->naxes > 0 ? "cell" : "workload");
	for (int i = 0; i < res->ncells; i++) {
		const struct bt_cell *cell = &res->cells[i];
		int r = 1 + i;
		double sp;
		char b[32];

		cell_name(res, cell, bt_grid_cell(g, r, 0), BT_GRID_CELL);
		if (!cell->done) {
			bt_grid_set(g, r, 1, "-");
			continue;
		}
		bt_grid_set(g, r, 1, "%s", fmt_secs(cell->wall_s.median, b, sizeof(b)));
		bt_grid_set(g, r, 2, "%s", fmt_secs(cell->user_s.median, b, sizeof(b)));
		bt_grid_set(g, r, 3, "%s", fmt_secs(cell->sys_s.median, b, sizeof(b)));
		bt_grid_set(g, r, 4, "%.2fx", cell->par.median);
		if (sp_col && cell_speedup(res, cell, &sp))
			bt_grid_set(g, r, 5, "%.2fx", sp);
		bt_grid_set(g, r, ncols - 1, "%s",
		     bt_fmt_si(cell->vcsw.median + cell->ivcsw.median, b, sizeof(b)));
	}
	if (md)
		bt_grid_md_escape(g);
	bt_grid_measure(g);
	return 0;
}

/*
 * The metrics section, when the metrics are not columns of the table: one
 * row per cell, one column per metric (medians over the counted reps).
 */
static int metrics_grid(const struct bt_results *res, int md, struct bt_grid *g)
{
	int nm = res->nmetrics < BT_RES_METRICS ? res->nmetrics : BT_RES_METRICS;

	if (bt_grid_init(g, 1 + res->ncells, 1 + nm) < 0)
		return -ENOMEM;
	bt_grid_set(g, 0, 0, "%s", res->naxes > 0 ? "cell" : "workload");
	for (int m = 0; m < nm; m++) {
		metric_head(&res->metrics[m], bt_grid_cell(g, 0, 1 + m), BT_GRID_CELL);
		g->right[1 + m] = 1;
	}
	for (int i = 0; i < res->ncells; i++) {
		const struct bt_cell *cell = &res->cells[i];

		cell_name(res, cell, bt_grid_cell(g, 1 + i, 0), BT_GRID_CELL);
		if (!cell->done)
			bt_grid_set(g, 1 + i, 1, "-");
		else
			fill_metrics(g, 1 + i, 1, res, cell, nm);
	}
	if (md)
		bt_grid_md_escape(g);
	bt_grid_measure(g);
	return 0;
}

/* The metrics section in text or Markdown; nothing when the table has them or there are none. */
static int write_metrics_section(FILE *f, const struct bt_results *res, const struct layout *l,
				 int md)
{
	struct bt_grid mg = { 0 };
	int rc;

	if (res->nmetrics <= 0 || l->nmcols > 0)
		return 0;
	rc = metrics_grid(res, md, &mg);
	if (rc == 0) {
		fprintf(f, "\nmetrics per cell (medians over the counted reps)\n%s", md ? "\n" : "");
		if (md) {
			bt_grid_print_md(f, &mg);
		} else {
			bt_grid_print_text(f, &mg);
		}
	}
	bt_grid_free(&mg);
	return rc;
}

/* "time per cell (medians): ...; speedup = ... at mode=serial" */
static void cpu_title(FILE *f, const struct bt_results *res, int md)
{
	const char *value = NULL;
	int ax = baseline_axis(res, &value);

	fprintf(f, "\ntime per cell (medians); cpu/wall = (user + sys) / wall: effective parallelism");
	if (ax >= 0)
		fprintf(f, "; speedup = throughput / that at %s=%s", res->axes[ax], value);
	fprintf(f, "\n%s", md ? "\n" : "");
}

/*
 * True when a cell's check said more than "ok": the workload reported what it
 * verified and ran with (provider, OpenMP team, wait timeouts), worth showing.
 */
static int any_checks(const struct bt_results *res)
{
	for (int c = 0; c < res->ncells; c++)
		if (res->cells[c].nreps > 0 && strcmp(res->cells[c].verify, "ok") != 0)
			return 1;
	return 0;
}

/* "checks (each cell's last rep)" lines: the cell and what its check said. */
static void write_checks(FILE *f, const struct bt_results *res, int md)
{
	char name[BT_GRID_CELL];

	if (!any_checks(res))
		return;
	fprintf(f, "\nchecks (each cell's last rep)\n%s", md ? "\n" : "");
	for (int c = 0; c < res->ncells; c++) {
		const struct bt_cell *cell = &res->cells[c];

		if (cell->nreps == 0)
			continue;
		cell_name(res, cell, name, sizeof(name));
		fprintf(f, "%s%s: %s\n", md ? "- " : "", name, cell->verify);
	}
}

/* The ci= target of a reps=auto session (0: fixed reps). */
static double auto_target(const struct bt_results *res)
{
	for (int c = 0; c < res->ncells; c++)
		if (res->cells[c].ci_target > 0)
			return res->cells[c].ci_target;
	return 0;
}

/*
 * Under the main table: the footnotes of the cells marked "!" (what makes
 * each number doubtful), and under reps=auto how each cell ended.
 */
static void write_marks(FILE *f, const struct bt_results *res, int md)
{
	char name[BT_GRID_CELL], text[BT_ERR_MAX];
	double target = auto_target(res);
	int any = 0;

	for (int c = 0; c < res->ncells; c++) {
		const struct bt_cell *cell = &res->cells[c];

		if (!cell->done || !cell->noise)
			continue;
		if (!any++)
			fprintf(f, "\n! = doubtful: sd%% over %.0f%%, steal over %.0f%%, bimodal reps, a slow first rep, or reps=auto short of ci=\n%s",
				BT_NOISE_CV_PCT, BT_NOISE_STEAL_PCT, md ? "\n" : "");
		cell_name(res, cell, name, sizeof(name));
		fprintf(f, "%s%s: %s\n", md ? "- ! " : "! ", name,
			bt_cell_noise_text(cell, text, sizeof(text)));
	}
	if (target <= 0)
		return;
	fprintf(f, "\nreps=auto: until the 95%% interval is within %.3g%% of the median\n%s", target,
		md ? "\n" : "");
	for (int c = 0; c < res->ncells; c++) {
		const struct bt_cell *cell = &res->cells[c];

		if (!cell->done || cell->ci_target <= 0)
			continue;
		cell_name(res, cell, name, sizeof(name));
		fprintf(f, "%s%s: %s\n", md ? "- " : "", name, bt_cell_stop_text(cell, text, sizeof(text)));
	}
}

/* True when some cell has latencies in extra channel ch. */
static int any_ch_hist(const struct bt_results *res, int ch)
{
	for (int c = 0; c < res->ncells; c++) {
		const struct bt_hist *h = cell_hist(&res->cells[c], ch);

		if (res->cells[c].done && h != NULL && h->total > 0)
			return 1;
	}
	return 0;
}

static int any_hist(const struct bt_results *res)
{
	for (int c = 0; c < res->ncells; c++)
		if (res->cells[c].hist != NULL)
			return 1;
	return 0;
}

/* "fixed: threads=64 work=0": what every cell shares, which no label names. */
static void write_fixed(FILE *f, const struct bt_results *res)
{
	char fixed[512];

	if (bt_results_fixed(res->plan_json, fixed, sizeof(fixed))[0])
		fprintf(f, "fixed: %s\n", fixed);
}

static void write_title(FILE *f, const struct bt_results *res, const struct layout *l)
{
	int reps = max_total_reps(res);

	fprintf(f, "%s - throughput in %s/s (median of %s%d rep%s, sd%% = stddev in %% of it); %s\n",
		res->workload[0] ? res->workload : "results", unit_of(res),
		auto_target(res) > 0 ? "up to " : "", reps,
		reps == 1 ? "" : "s",
		l->ncols - l->nmcols == NCOLS ? "wall, user, sys times and csw (context switches) are medians"
				  : "wall, user, sys and csw per cell below");
	write_fixed(f, res);
}

static void write_status(FILE *f, const struct bt_results *res)
{
	if (strcmp(status_of(res), "complete") == 0)
		return;
	fprintf(f, "\nsession %s: %d of %d cells finished%s%s%s\n", status_of(res),
		bt_results_cells_done(res), res->ncells, res->error[0] ? " (" : "", res->error,
		res->error[0] ? ")" : "");
}


/* One grid in the format asked: text (md 0) or Markdown (md 1). */
static void print_grid(FILE *f, const struct bt_grid *g, int md)
{
	if (md)
		bt_grid_print_md(f, g);
	else
		bt_grid_print_text(f, g);
}

/* Latency block k (0: the main histogram, else extra channel k) under its title. */
static int write_latency_block(FILE *f, const struct bt_results *res, int k, int md)
{
	struct bt_grid lg = { 0 };
	int rc;

	if (k == 0 ? !any_hist(res) : !any_ch_hist(res, k))
		return 0;
	rc = latency_grid(res, k, md, &lg);
	if (rc == 0) {
		if (k == 0)
			fprintf(f, "\nlatency%s%s\n", res->lat_what[0] ? ": " : "", res->lat_what);
		else
			fprintf(f, "\nlatency, %s\n", res->ch_names[k - 1]);
		if (md)
			fputc('\n', f);
		print_grid(f, &lg, md);
	}
	bt_grid_free(&lg);
	return rc;
}

/*
 * What text and Markdown print under the main table, in order: time per
 * cell, metrics, the latency blocks (main, then each channel), the checks
 * and how the session ended.
 */
static int write_sections(FILE *f, const struct bt_results *res, const struct layout *l, int md)
{
	struct bt_grid cg = { 0 };
	int rc;

	rc = cpu_grid(res, md, &cg);
	if (rc == 0) {
		cpu_title(f, res, md);
		print_grid(f, &cg, md);
	}
	bt_grid_free(&cg);
	if (rc < 0)
		return rc;
	rc = write_metrics_section(f, res, l, md);
	for (int k = 0; rc == 0 && k <= res->nch && k <= BT_RES_LAT_CH; k++)
		rc = write_latency_block(f, res, k, md);
	if (rc < 0)
		return rc;
	write_checks(f, res, md);
	write_status(f, res);
	return 0;
}

static int write_text(FILE *f, const struct bt_results *res)
{
	struct layout l;
	struct bt_grid g = { 0 };
	int ngroups, rc;

	if (layout_build(res, &l) < 0)
		return -ENOMEM;
	rc = table_grid(res, &l, 0, &g);
	if (rc < 0)
		goto out;
	ngroups = l.ngroups > 0 ? l.ngroups : 1;

	/* A group label wider than its columns widens the group's last column. */
	if (res->naxes > 1) {
		for (int gr = 0; gr < l.ngroups; gr++) {
			char label[256];
			int span = 2 * (l.ncols - 1);

			axes_label(res, &res->cells[l.group_cell[gr]], 1, label, sizeof(label));
			for (int k = 0; k < l.ncols; k++)
				span += g.w[1 + gr * l.ncols + k];
			if (bt_grid_dwidth(label) > span)
				g.w[(gr + 1) * l.ncols] += bt_grid_dwidth(label) - span;
		}
	}

	write_title(f, res, &l);
	fputc('\n', f);
	if (res->naxes > 1) {
		spaces(f, g.w[0]);
		for (int gr = 0; gr < l.ngroups; gr++) {
			char label[256];
			int span = 2 * (l.ncols - 1);

			for (int k = 0; k < l.ncols; k++)
				span += g.w[1 + gr * l.ncols + k];
			axes_label(res, &res->cells[l.group_cell[gr]], 1, label, sizeof(label));
			fputs(" | ", f);
			bt_grid_pad(f, label, span, 0, gr == l.ngroups - 1);
		}
		fputc('\n', f);
	}
	bt_grid_text_row(f, &g, 0);
	chars(f, '-', g.w[0]);
	for (int gr = 0; gr < ngroups; gr++) {
		int span = 2 * (l.ncols - 1);

		for (int k = 0; k < l.ncols; k++)
			span += g.w[1 + gr * l.ncols + k];
		fputs("-+-", f);
		chars(f, '-', span);
	}
	fputc('\n', f);
	for (int r = 1; r < g.rows; r++)
		bt_grid_text_row(f, &g, r);
	write_marks(f, res, 0);
	rc = write_sections(f, res, &l, 0);
out:
	bt_grid_free(&g);
	layout_free(&l);
	return rc;
}

static int write_markdown(FILE *f, const struct bt_results *res)
{
	struct layout l;
	struct bt_grid g = { 0 };
	int rc;

	if (layout_build(res, &l) < 0)
		return -ENOMEM;
	rc = table_grid(res, &l, 1, &g);
	if (rc < 0)
		goto out;
	write_title(f, res, &l);
	fputc('\n', f);
	bt_grid_print_md(f, &g);
	write_marks(f, res, 1);
	rc = write_sections(f, res, &l, 1);
out:
	bt_grid_free(&g);
	layout_free(&l);
	return rc;
}

/* ---- CSV and JSON: one record per cell ----------------------------------- */

static const char *cell_state(const struct bt_cell *cell)
{
	if (cell->done)
		return "done";
	if (cell->failed)
		return "failed";
	return cell->nreps > 0 ? "partial" : "pending";
}

enum { V_REAL, V_UINT };

/* One numeric field of a cell record; valid is 0 when it has no value yet. */
struct field {
	const char *name;
	int kind;
	int valid;
	double d;
	uint64_t u;
};

#define NFIELDS 25

/*
 * The numeric fields of a cell, in CSV column order. Statistics exist only
 * for a finished cell, latency only when it also has a histogram.
 */
static void cell_fields(const struct bt_results *res, const struct bt_cell *cell, struct field *fl)
{
	double speedup = 0;
	int has_speedup = cell->done && cell_speedup(res, cell, &speedup);
	const struct bt_hist *h = cell->done && cell->hist && cell->hist->total ? cell->hist : NULL;
	const int ok = cell->done;
	int i = 0;

#define REAL(n, v, ok_) fl[i++] = (struct field){ n, V_REAL, (ok_), (v), 0 }
#define UINT(n, v, ok_) fl[i++] = (struct field){ n, V_UINT, (ok_), 0, (v) }
	UINT("reps", (uint64_t)(cell->nreps > 0 ? cell->nreps : 0), 1);
	REAL("ops_s_min", cell->ops_s.min, ok);
	REAL("ops_s_median", cell->ops_s.median, ok);
	REAL("ops_s_max", cell->ops_s.max, ok);
	REAL("ops_s_mean", cell->ops_s.mean, ok);
	REAL("ops_s_stddev", cell->ops_s.stddev, ok);
	REAL("ops_s_ci95", cell->ops_s.ci95, ok);
	REAL("bytes_s_median", cell->bytes_s.median, ok);
	REAL("wall_s", cell->wall_s.median, ok);
	REAL("user_s", cell->user_s.median, ok);
	REAL("sys_s", cell->sys_s.median, ok);
	REAL("cpu_s", cell->cpu_s.median, ok);
	REAL("cpu_per_wall", cell->par.median, ok);
	REAL("speedup", speedup, has_speedup);
	REAL("vcsw", cell->vcsw.median, ok);
	REAL("ivcsw", cell->ivcsw.median, ok);
	UINT("p50_ns", h ? bt_hist_percentile(h, 50) : 0, h != NULL);
	UINT("p90_ns", h ? bt_hist_percentile(h, 90) : 0, h != NULL);
	UINT("p99_ns", h ? bt_hist_percentile(h, 99) : 0, h != NULL);
	UINT("p999_ns", h ? bt_hist_percentile(h, 99.9) : 0, h != NULL);
	UINT("max_ns", h ? h->max : 0, h != NULL);
	REAL("mean_ns", h ? bt_hist_mean(h) : 0, h != NULL);
	UINT("lat_count", h ? h->total : 0, h != NULL);
	UINT("lat_every", cell->lat_every, 1);
	fl[i++] = (struct field){ NULL, 0, 0, 0, 0 };
#undef REAL
#undef UINT
}

/* ---- typed metrics in CSV and JSON: every summary field ------------------- */

static const char *const summary_keys[] = { "n", "min", "median", "max", "mean", "stddev", "ci95" };
#define NSUMMARY ((int)(sizeof(summary_keys) / sizeof(summary_keys[0])))

static double summary_field(const struct bt_summary *s, int k)
{
	const double v[] = { s->n, s->min, s->median, s->max, s->mean, s->stddev, s->ci95 };

	return v[k];
}

static void csv_metric_heads(FILE *f, const struct bt_results *res)
{
	char stem[64], name[80];

	for (int m = 0; m < res->nmetrics && m < BT_RES_METRICS; m++) {
		bt_results_metric_stem(&res->metrics[m], stem, sizeof(stem));
		for (int k = 0; k < NSUMMARY; k++) {
			snprintf(name, sizeof(name), "%s_%s", stem, summary_keys[k]);
			bt_csv_str(f, name, 0);
		}
	}
}

/* A finished cell's metric summaries; empty fields for a cell not done or a metric with no value. */
static void csv_metric_values(FILE *f, const struct bt_results *res, const struct bt_cell *cell)
{
	for (int m = 0; m < res->nmetrics && m < BT_RES_METRICS; m++) {
		const struct bt_summary *s = &cell->metric[m];

		for (int k = 0; k < NSUMMARY; k++) {
			double v = summary_field(s, k);

			bt_csv_num(f, !cell->done || (k > 0 && s->n == 0) ? NAN : v);
		}
	}
}

static int write_csv(FILE *f, const struct bt_results *res)
{
	struct field fl[NFIELDS];
	struct bt_cell dummy = { 0 };

	bt_csv_str(f, "workload", 1);
	for (int a = 0; a < res->naxes && a < BT_RES_AXES; a++)
		bt_csv_str(f, res->axes[a], 0);
	bt_csv_str(f, "state", 0);
	cell_fields(res, &dummy, fl);
	for (int k = 0; fl[k].name; k++)
		bt_csv_str(f, fl[k].name, 0);
	csv_metric_heads(f, res);
	fputc('\n', f);

	for (int c = 0; c < res->ncells; c++) {
		const struct bt_cell *cell = &res->cells[c];

		bt_csv_str(f, res->workload, 1);
		for (int a = 0; a < res->naxes && a < BT_RES_AXES; a++)
			bt_csv_str(f, cell->values[a], 0);
		bt_csv_str(f, cell_state(cell), 0);
		cell_fields(res, cell, fl);
		for (int k = 0; fl[k].name; k++) {
			if (fl[k].kind == V_UINT)
				bt_csv_u64(f, fl[k].u, fl[k].valid);
			else
				bt_csv_num(f, fl[k].valid ? fl[k].d : NAN);
		}
		csv_metric_values(f, res, cell);
		fputc('\n', f);
	}
	return 0;
}

/* json_object_set_new that treats a NULL value (allocation failure, NaN) as an error. */
static int jset(json_t *obj, const char *key, json_t *v)
{
	if (v == NULL)
		return -ENOMEM;
	return json_object_set_new(obj, key, v) == 0 ? 0 : -ENOMEM;
}

static json_t *jreal(double d)
{
	return isfinite(d) ? json_real(d) : json_null();
}

/*
 * A cell's "channels": {"incr": {"p50_ns":.., "count":..}, ...}, the extra
 * latency channels like the main one's fields; null where a channel has none.
 */
static json_t *cell_channels_json(const struct bt_results *res, const struct bt_cell *cell)
{
	json_t *o = json_object();
	int rc = o == NULL ? -ENOMEM : 0;

	for (int k = 1; k <= res->nch && k <= BT_RES_LAT_CH && rc == 0; k++) {
		const struct bt_hist *h = cell_hist(cell, k);
		json_t *c;

		if (!cell->done || h == NULL || h->total == 0) {
			rc = jset(o, res->ch_names[k - 1], json_null());
			continue;
		}
		c = json_object();
		if (c == NULL) {
			rc = -ENOMEM;
			break;
		}
		rc = jset(c, "p50_ns", json_integer((json_int_t)bt_hist_percentile(h, 50)));
		rc = rc ? rc : jset(c, "p90_ns", json_integer((json_int_t)bt_hist_percentile(h, 90)));
		rc = rc ? rc : jset(c, "p99_ns", json_integer((json_int_t)bt_hist_percentile(h, 99)));
		rc = rc ? rc : jset(c, "p999_ns", json_integer((json_int_t)bt_hist_percentile(h, 99.9)));
		rc = rc ? rc : jset(c, "max_ns", json_integer((json_int_t)h->max));
		rc = rc ? rc : jset(c, "mean_ns", jreal(bt_hist_mean(h)));
		rc = rc ? rc : jset(c, "count", json_integer((json_int_t)h->total));
		if (rc < 0) {
			json_decref(c);
			break;
		}
		rc = jset(o, res->ch_names[k - 1], c);	/* takes c, also on failure */
	}
	if (rc < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A cell's "metrics": {"timeouts": {"n":..,"min":..,...}, ...}; values null until it is done. */
static json_t *cell_metrics_json(const struct bt_results *res, const struct bt_cell *cell)
{
	json_t *o = json_object();
	int rc = o == NULL ? -ENOMEM : 0;

	for (int m = 0; m < res->nmetrics && m < BT_RES_METRICS && rc == 0; m++) {
		const struct bt_summary *s = &cell->metric[m];
		json_t *so = json_object();

		rc = so == NULL ? -ENOMEM : 0;
		for (int k = 0; k < NSUMMARY && rc == 0; k++) {
			if (!cell->done)
				rc = jset(so, summary_keys[k], json_null());
			else if (k == 0)
				rc = jset(so, summary_keys[k], json_integer(s->n));
			else
				rc = jset(so, summary_keys[k],
					  s->n > 0 ? jreal(summary_field(s, k)) : json_null());
		}
		if (rc == 0)
			rc = jset(o, res->metrics[m].name, so);
		else
			json_decref(so);
	}
	if (rc == 0)
		return o;
	json_decref(o);
	return NULL;
}

/* The root's "metrics": what each one is (name, unit, kind, what it is made of). */
static json_t *metric_decls_json(const struct bt_results *res)
{
	static const char *const kinds[BT_MI_NKINDS] = { "counter", "gauge", "ratio", "time" };
	json_t *arr = json_array();

	for (int m = 0; arr != NULL && m < res->nmetrics && m < BT_RES_METRICS; m++) {
		const struct bt_metric_info *mi = &res->metrics[m];
		int kind = mi->kind >= 0 && mi->kind < BT_MI_NKINDS ? mi->kind : BT_MI_GAUGE;
		json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:s, s:s, s:s}", "name", mi->name, "unit",
				      mi->kind == BT_MI_TIME ? "ns" : mi->unit, "kind", kinds[kind],
				      "error", mi->error, "num", mi->num, "den", mi->den, "help",
				      mi->help);

		if (o == NULL || json_array_append_new(arr, o) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* A cell's noise figures and marks (results.h), null until it is done. */
static json_t *cell_noise_json(const struct bt_cell *cell)
{
	static const char *const stops[] = { "fixed", "ci", "cap" };
	char text[BT_ERR_MAX];
	json_t *o;
	int rc = 0;

	if (!cell->done)
		return json_null();
	if ((o = json_object()) == NULL)
		return NULL;
	rc = rc ? rc : jset(o, "cv_pct", jreal(cell->cv_pct));
	rc = rc ? rc : jset(o, "ci_pct", jreal(cell->ci_pct));
	rc = rc ? rc : jset(o, "steal_pct", cell->steal_pct >= 0 ? jreal(cell->steal_pct) : json_null());
	rc = rc ? rc : jset(o, "outliers_slow", json_integer(cell->out_slow));
	rc = rc ? rc : jset(o, "outliers_fast", json_integer(cell->out_fast));
	rc = rc ? rc : jset(o, "bimodal", json_boolean(cell->bimodal));
	rc = rc ? rc : jset(o, "first_rep_slow", json_boolean(cell->noise & BT_NOISE_FIRST_SLOW));
	rc = rc ? rc : jset(o, "flagged", json_boolean(cell->noise != 0));
	rc = rc ? rc : jset(o, "marks", json_string(bt_cell_noise_text(cell, text, sizeof(text))));
	if (cell->ci_target > 0) {
		rc = rc ? rc : jset(o, "ci_target", jreal(cell->ci_target));
		rc = rc ? rc : jset(o, "stop", json_string(stops[cell->stop >= 0 && cell->stop <= 2 ? cell->stop : 0]));
		rc = rc ? rc : jset(o, "stop_text", json_string(bt_cell_stop_text(cell, text, sizeof(text))));
	}
	if (rc == 0)
		return o;
	json_decref(o);
	return NULL;
}

static json_t *cell_json(const struct bt_results *res, const struct bt_cell *cell)
{
	struct field fl[NFIELDS];
	char name[256];
	json_t *o = json_object(), *values = json_object();
	int rc = 0;

	if (o == NULL || values == NULL) {
		json_decref(values);
		goto fail;
	}
	cell_name(res, cell, name, sizeof(name));
	for (int a = 0; a < res->naxes && a < BT_RES_AXES && rc == 0; a++)
		rc = jset(values, res->axes[a], json_string(cell->values[a]));
	rc = rc ? rc : jset(o, "index", json_integer(cell->index));
	rc = rc ? rc : jset(o, "label", json_string(name));
	rc = rc ? rc : jset(o, "values", json_incref(values));
	rc = rc ? rc : jset(o, "state", json_string(cell_state(cell)));
	json_decref(values);
	cell_fields(res, cell, fl);
	for (int k = 0; fl[k].name && rc == 0; k++) {
		json_t *v;

		if (!fl[k].valid)
			v = json_null();
		else if (fl[k].kind == V_UINT)
			v = json_integer((json_int_t)fl[k].u);
		else
			v = jreal(fl[k].d);
		rc = jset(o, fl[k].name, v);
	}
	if (rc == 0 && res->nmetrics > 0)
		rc = jset(o, "metrics", cell_metrics_json(res, cell));
	if (rc == 0 && res->nch > 0)
		rc = jset(o, "channels", cell_channels_json(res, cell));
	if (rc == 0)
		rc = jset(o, "noise", cell_noise_json(cell));
	if (rc == 0)
		return o;
fail:
	json_decref(o);
	return NULL;
}

static int write_json(FILE *f, const struct bt_results *res)
{
	json_t *root = json_object(), *axes = json_array(), *cells = json_array();
	int rc = 0;

	if (root == NULL || axes == NULL || cells == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (int a = 0; a < res->naxes && a < BT_RES_AXES && rc == 0; a++)
		if (json_array_append_new(axes, json_string(res->axes[a])) < 0)
			rc = -ENOMEM;
	for (int c = 0; c < res->ncells && rc == 0; c++)
		if (json_array_append_new(cells, cell_json(res, &res->cells[c])) < 0)
			rc = -ENOMEM;
	rc = rc ? rc : jset(root, "workload", json_string(res->workload));
	rc = rc ? rc : jset(root, "unit", json_string(res->unit));
	rc = rc ? rc : jset(root, "lat_what", json_string(res->lat_what));
	rc = rc ? rc : jset(root, "version", json_string(res->version));
	rc = rc ? rc : jset(root, "status", json_string(status_of(res)));
	rc = rc ? rc : jset(root, "error", json_string(res->error));
	rc = rc ? rc : jset(root, "cells_done", json_integer(bt_results_cells_done(res)));
	rc = rc ? rc : jset(root, "axes", json_incref(axes));
	if (rc == 0) {
		char fixed[512];

		rc = jset(root, "fixed", json_string(bt_results_fixed(res->plan_json, fixed, sizeof(fixed))));
	}
	if (rc == 0 && res->nmetrics > 0)
		rc = jset(root, "metrics", metric_decls_json(res));
	rc = rc ? rc : jset(root, "cells", json_incref(cells));
	if (rc == 0 && (json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) < 0 ||
			fputc('\n', f) == EOF))
		rc = -EIO;
out:
	json_decref(axes);
	json_decref(cells);
	json_decref(root);
	return rc;
}

/*
 * Run a text writer into memory, then copy its output to f without the
 * blanks that padding leaves at the end of lines.
 */
static int write_trimmed(FILE *f, const struct bt_results *res,
			 int (*writer)(FILE *, const struct bt_results *))
{
	char *buf = NULL;
	size_t len = 0, i = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc;

	if (m == NULL)
		return -errno;
	rc = writer(m, res);
	if (fclose(m) == EOF && rc == 0)
		rc = -ENOMEM;
	while (rc == 0 && i < len) {
		size_t k = strcspn(buf + i, "\n"), e = k;

		while (e > 0 && buf[i + e - 1] == ' ')
			e--;
		fwrite(buf + i, 1, e, f);
		if (i + k < len)
			fputc('\n', f);
		i += k + 1;
	}
	free(buf);
	return rc;
}

/* True when cells a and b agree on every axis except skip1 and skip2. */
static int agree_except(const struct bt_cell *a, const struct bt_cell *b, int naxes, int skip1,
		      int skip2)
{
	for (int k = 0; k < naxes; k++)
		if (k != skip1 && k != skip2 && strcmp(a->values[k], b->values[k]) != 0)
			return 0;
	return 1;
}

/*
 * `openssl speed`'s shape: rows are the values of the first axis that does
 * not count workers (the digests), columns those of the next one (the block
 * sizes), values the median throughput in 1000s of units per second
 * ("%.2fk"). Any other axes, worker counts included, make one such table each.
 */
static int write_openssl(FILE *f, const struct bt_results *res)
{
	int ra = -1, ca = -1;
	char *printed;

	for (int k = 0; k < res->naxes; k++) {
		if (res->axis_workers[k])
			continue;
		if (ra < 0)
			ra = k;
		else if (ca < 0)
			ca = k;
	}
	printed = calloc((size_t)res->ncells + 1, 1);
	if (printed == NULL)
		return -ENOMEM;
	fprintf(f, "The 'numbers' are in 1000s of %s per second processed.\n", unit_of(res));
	for (int g = 0; g < res->ncells; g++) {
		const struct bt_cell *head = &res->cells[g];
		char label[512] = "";

		if (printed[g])
			continue;
		for (int k = 0; k < res->naxes; k++) {
			if (k == ra || k == ca)
				continue;
			snprintf(label + strlen(label), sizeof(label) - strlen(label), "%s%s=%s",
				 label[0] ? " " : "", res->axes[k], head->values[k]);
		}
		if (label[0])
			fprintf(f, "\n%s\n", label);
		/* Header: the column values of this group's first row (every row has the same). */
		fprintf(f, "%-16s", "type");
		for (int c = g; c < res->ncells; c++) {
			const struct bt_cell *cc = &res->cells[c];

			if (!agree_except(head, cc, res->naxes, ra, ca) ||
			    (ra >= 0 && strcmp(cc->values[ra], head->values[ra]) != 0))
				continue;
			if (ca < 0)
				fprintf(f, " %13s", "");
			else if (strcmp(res->axes[ca], "block") == 0)
				fprintf(f, " %7s bytes", cc->values[ca]);
			else
				fprintf(f, " %13s", cc->values[ca]);
		}
		fputc('\n', f);
		/* One row per row value: its cells in the same order as the header. */
		for (int r = g; r < res->ncells; r++) {
			const struct bt_cell *rc = &res->cells[r];

			if (printed[r] || !agree_except(head, rc, res->naxes, ra, ca))
				continue;
			fprintf(f, "%-16s", ra >= 0 ? rc->values[ra] : res->workload);
			for (int c = r; c < res->ncells; c++) {
				const struct bt_cell *cc = &res->cells[c];

				if (printed[c] || !agree_except(head, cc, res->naxes, ra, ca) ||
				    (ra >= 0 && strcmp(cc->values[ra], rc->values[ra]) != 0))
					continue;
				printed[c] = 1;
				if (cc->done)
					fprintf(f, " %12.2fk", cc->bytes_s.median / 1000.0);
				else
					fprintf(f, " %13s", cc->failed ? "failed" : "-");
			}
			fputc('\n', f);
		}
	}
	free(printed);
	if (strcmp(status_of(res), "complete") != 0)
		fprintf(f, "\nsession %s: %d of %d cells finished\n", status_of(res),
			bt_results_cells_done(res), res->ncells);
	return 0;
}

int bt_report_write(FILE *f, const struct bt_results *res, enum bt_format fmt)
{
	int rc;

	switch (fmt) {
	case BT_FMT_TEXT:
		rc = write_trimmed(f, res, write_text);
		break;
	case BT_FMT_MARKDOWN:
		rc = write_trimmed(f, res, write_markdown);
		break;
	case BT_FMT_CSV:
		rc = write_csv(f, res);
		break;
	case BT_FMT_JSON:
		rc = write_json(f, res);
		break;
	case BT_FMT_OPENSSL:
		rc = write_openssl(f, res);
		break;
	default:
		return -EINVAL;
	}
	if (rc == 0 && (fflush(f) == EOF || ferror(f)))
		rc = -EIO;
	return rc;
}
