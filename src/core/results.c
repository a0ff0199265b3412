/*
 * results.c - what a run produced (see results.h).
 *
 * Not thread-safe: the runner calls these under its own lock.
 */
#include "core/results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

int bt_results_init(struct bt_results *res, int ncells)
{
	memset(res, 0, sizeof(*res));
	if (ncells < 0)
		return -EINVAL;
	if (ncells > 0) {
		res->cells = calloc((size_t)ncells, sizeof(*res->cells));
		if (res->cells == NULL)
			return -ENOMEM;
	}
	res->ncells = ncells;
	for (int c = 0; c < ncells; c++)
		res->cells[c].index = c;
	return 0;
}

void bt_results_destroy(struct bt_results *res)
{
	for (int i = 0; i < res->nreps; i++) {
		bt_hist_free(res->reps[i].hist);
		free(res->reps[i].workers);
	}
	free(res->reps);
	free(res->samples);
	for (int c = 0; c < res->ncells; c++)
		bt_hist_free(res->cells[c].hist);
	free(res->cells);
	free(res->plan_json);
	memset(res, 0, sizeof(*res));
}

/* Make room for one more element in *arr (of *len, capacity *cap), doubling. */
static int grow(void **arr, int len, int *cap, size_t size)
{
	void *p;
	int ncap;

	if (len < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	p = realloc(*arr, (size_t)ncap * size);
	if (p == NULL)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/*
 * Ownership of r->hist and r->workers always moves, also on failure (then
 * they are freed here), and both are set to NULL in *r: a caller that
 * ignores the return value neither leaks nor double-frees.
 */
int bt_results_add_rep(struct bt_results *res, struct bt_rep *r)
{
	int rc = 0;

	for (int m = 0; m < res->nmetrics && m < BT_RES_METRICS; m++)
		if (res->metrics[m].kind == BT_MI_RATIO)
			r->metric[m] = bt_metric_value(res->metrics, res->nmetrics, r->metric, m);
	if (r->cell < 0 || r->cell >= res->ncells)
		rc = -EINVAL;
	else
		rc = grow((void **)&res->reps, res->nreps, &res->reps_cap, sizeof(*res->reps));
	if (rc < 0) {
		bt_hist_free(r->hist);
		free(r->workers);
	} else {
		res->reps[res->nreps++] = *r;
	}
	r->hist = NULL;
	r->workers = NULL;
	return rc;
}

int bt_results_add_sample(struct bt_results *res, const struct bt_sample *s)
{
	int rc = grow((void **)&res->samples, res->nsamples, &res->samples_cap,
		      sizeof(*res->samples));

	if (rc < 0)
		return rc;
	res->samples[res->nsamples++] = *s;
	return 0;
}

static int find_in(const struct bt_metric_info *mi, int nm, const char *name)
{
	for (int m = 0; name != NULL && name[0] && m < nm && m < BT_RES_METRICS; m++)
		if (strcmp(mi[m].name, name) == 0)
			return m;
	return -1;
}

int bt_results_metric_find(const struct bt_results *res, const char *name)
{
	return find_in(res->metrics, res->nmetrics, name);
}

/*
 * A ratio is computed from its num and den every time, never read back from
 * its own slot: a recording holds the derived value too, but a reader that
 * trusted it would show what an older or newer writer thought. 0/0 and x/0
 * have no value (NAN): a cell with no lookups has no hit ratio, not 0%.
 */
double bt_metric_value(const struct bt_metric_info *mis, int nm, const double *metric, int m)
{
	const struct bt_metric_info *mi;
	int num, den;
	double v;

	if (m < 0 || m >= nm || m >= BT_RES_METRICS)
		return NAN;
	mi = &mis[m];
	den = find_in(mis, nm, mi->den);
	if (mi->kind == BT_MI_RATIO) {
		num = find_in(mis, nm, mi->num);
		if (num < 0 || den < 0 || num == m || den == m || metric[den] == 0)
			return NAN;
		v = metric[num] / metric[den];
		return strcmp(mi->unit, "%") == 0 ? 100.0 * v : v;
	}
	if (mi->kind == BT_MI_TIME && mi->den[0]) {
		if (den < 0 || den == m || metric[den] == 0)
			return NAN;
		return metric[m] / metric[den];
	}
	return metric[m];
}

double bt_results_metric_rep(const struct bt_results *res, const struct bt_rep *r, int m)
{
	return bt_metric_value(res->metrics, res->nmetrics, r->metric, m);
}

char *bt_results_metric_fmt(const struct bt_metric_info *mi, double v, char *buf, size_t n)
{
	char b[32];

	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (mi->kind == BT_MI_TIME)
		bt_fmt_ns(v, buf, n);
	else if (strcmp(mi->unit, "%") == 0)
		snprintf(buf, n, "%.1f%%", v);
	else if (strcmp(mi->unit, "bytes") == 0 || strcmp(mi->unit, "B") == 0)
		bt_fmt_bytes(v, buf, n);
	else if (v == floor(v) && fabs(v) < 1e4)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%s", bt_fmt_si(v, b, sizeof(b)));
	return buf;
}

enum { F_OPS, F_BYTES, F_WALL, F_USER, F_SYS, F_VCSW, F_IVCSW, F_CPU, F_PAR, F_N };

/*
 * Cell c's metric summaries over its counted reps, each over the reps that
 * have a value (a ratio with den 0 has none). *buf is scratch for the caller
 * to free.
 */
static int summarize_metrics(struct bt_results *res, int c, double **buf)
{
	struct bt_cell *cell = &res->cells[c];

	memset(cell->metric, 0, sizeof(cell->metric));
	if (res->nmetrics <= 0)
		return 0;
	*buf = malloc(((size_t)res->nreps + 1) * sizeof(double));
	if (*buf == NULL)
		return -ENOMEM;
	for (int m = 0; m < res->nmetrics && m < BT_RES_METRICS; m++) {
		int n = 0;

		for (int i = 0; i < res->nreps; i++) {
			const struct bt_rep *r = &res->reps[i];
			double x;

			if (r->cell != c || r->warmup || !r->ok)
				continue;
			x = bt_results_metric_rep(res, r, m);
			if (isfinite(x))
				(*buf)[n++] = x;
		}
		bt_stats_summarize(*buf, n, &cell->metric[m]);
	}
	return 0;
}

int bt_results_summarize_cell(struct bt_results *res, int c)
{
	struct bt_cell *cell;
	double *v[F_N] = { NULL };
	double *mv = NULL;
	int n = 0, rc = 0, have_hist = 0;

	if (c < 0 || c >= res->ncells)
		return -EINVAL;
	cell = &res->cells[c];
	for (int f = 0; f < F_N; f++) {
		v[f] = malloc(((size_t)res->nreps + 1) * sizeof(double));
		if (v[f] == NULL) {
			rc = -ENOMEM;
			goto out;
		}
	}
	rc = summarize_metrics(res, c, &mv);
	if (rc < 0)
		goto out;
	if (cell->hist == NULL) {
		for (int i = 0; i < res->nreps && !have_hist; i++) {
			const struct bt_rep *r = &res->reps[i];

			have_hist = r->cell == c && !r->warmup && r->ok && r->hist != NULL;
		}
		if (have_hist && (cell->hist = bt_hist_new()) == NULL) {
			rc = -ENOMEM;
			goto out;
		}
	} else {
		bt_hist_reset(cell->hist);
	}

	cell->failed = 0;
	cell->lat_every = 0;
	have_hist = 0;
	for (int i = 0; i < res->nreps; i++) {
		const struct bt_rep *r = &res->reps[i];

		if (r->cell != c)
			continue;
		if (!r->ok)
			cell->failed = 1;
		if (r->warmup || !r->ok)
			continue;
		v[F_OPS][n] = r->ops_s;
		v[F_BYTES][n] = r->bytes_s;
		v[F_WALL][n] = r->wall_s;
		v[F_USER][n] = r->user_s;
		v[F_SYS][n] = r->sys_s;
		v[F_VCSW][n] = r->vcsw;
		v[F_IVCSW][n] = r->ivcsw;
		v[F_CPU][n] = r->user_s + r->sys_s;
		v[F_PAR][n] = r->wall_s > 0 ? (r->user_s + r->sys_s) / r->wall_s : 0;
		n++;
		if (r->hist != NULL) {
			bt_hist_add(cell->hist, r->hist);
			have_hist = 1;
		}
		if (r->lat_every > cell->lat_every)
			cell->lat_every = r->lat_every;
		snprintf(cell->verify, sizeof(cell->verify), "%s", r->verify);
	}
	if (!have_hist) {
		bt_hist_free(cell->hist);
		cell->hist = NULL;
	}
	bt_stats_summarize(v[F_OPS], n, &cell->ops_s);
	bt_stats_summarize(v[F_BYTES], n, &cell->bytes_s);
	bt_stats_summarize(v[F_WALL], n, &cell->wall_s);
	bt_stats_summarize(v[F_USER], n, &cell->user_s);
	bt_stats_summarize(v[F_SYS], n, &cell->sys_s);
	bt_stats_summarize(v[F_VCSW], n, &cell->vcsw);
	bt_stats_summarize(v[F_IVCSW], n, &cell->ivcsw);
	bt_stats_summarize(v[F_CPU], n, &cell->cpu_s);
	bt_stats_summarize(v[F_PAR], n, &cell->par);
	cell->nreps = n;
	cell->done = n >= cell->total_reps;
out:
	for (int f = 0; f < F_N; f++)
		free(v[f]);
	free(mv);
	return rc;
}

int bt_results_cells_done(const struct bt_results *res)
{
	int n = 0;

	for (int c = 0; c < res->ncells; c++)
		n += res->cells[c].done != 0;
	return n;
}

/*
 * Times are ns whatever their declared unit says, and "%" is no character
 * for a column name; the unit's characters other than letters and digits
 * are left out.
 */
char *bt_results_metric_stem(const struct bt_metric_info *mi, char *buf, size_t n)
{
	const char *u = mi->kind == BT_MI_TIME ? "ns" : strcmp(mi->unit, "%") == 0 ? "pct" : mi->unit;
	size_t o;

	snprintf(buf, n, "%s%s", mi->name, u[0] ? "_" : "");
	o = strlen(buf);
	for (; *u && o + 1 < n; u++)
		if ((*u >= 'a' && *u <= 'z') || (*u >= 'A' && *u <= 'Z') || (*u >= '0' && *u <= '9'))
			buf[o++] = *u;
	buf[o] = '\0';
	return buf;
}
