/*
 * results.c - what a run produced (see results.h).
 *
 * Not thread-safe: the runner calls these under its own lock.
 */
#include "core/results.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/param.h"

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

enum { F_OPS, F_BYTES, F_WALL, F_USER, F_SYS, F_VCSW, F_IVCSW, F_CPU, F_PAR, F_N };

int bt_results_summarize_cell(struct bt_results *res, int c)
{
	struct bt_cell *cell;
	double *v[F_N] = { NULL };
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
	return rc;
}

int bt_results_cells_done(const struct bt_results *res)
{
	int n = 0;

	for (int c = 0; c < res->ncells; c++)
		n += res->cells[c].done != 0;
	return n;
}

int bt_results_axis_value(const char *text, double *out)
{
	char *end;
	int64_t v;
	double d;

	if (text[0] == '\0')
		return -EINVAL;
	d = strtod(text, &end);
	if (*end == '\0' && isfinite(d)) {
		*out = d;
		return 0;
	}
	if (bt_parse_size(text, &v) == 0 || bt_parse_duration(text, &v) == 0) {
		*out = (double)v;
		return 0;
	}
	return -EINVAL;
}

int bt_results_axis_numeric(const struct bt_results *res, int a)
{
	double x;
	int distinct = 0;

	if (a < 0 || a >= res->naxes || res->ncells < 2)
		return 0;
	for (int c = 0; c < res->ncells; c++) {
		if (bt_results_axis_value(res->cells[c].values[a], &x) < 0)
			return 0;
		distinct |= strcmp(res->cells[c].values[a], res->cells[0].values[a]) != 0;
	}
	return distinct;
}
