/*
 * results.c - what a run produced (see results.h).
 *
 * Not thread-safe: the runner calls these under its own lock.
 */
#include "core/results.h"

#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

const char bt_rep_ok[] = "ok";

static void free_verify(const char *v)
{
	if (v != NULL && v != bt_rep_ok)
		free((char *)(uintptr_t)v);
}

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
		free_verify(res->reps[i].verify);
		free(res->reps[i].lat.cnt);	/* idx lives in the same block */
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

/* r->lat from r->hist: the figures and the sparse buckets. 0 or -ENOMEM. */
static int make_lat(struct bt_rep *r)
{
	struct bt_rep_lat *l = &r->lat;
	const struct bt_hist *h = r->hist;
	size_t n;

	memset(l, 0, sizeof(*l));
	if (h == NULL || h->total == 0)
		return 0;
	n = bt_hist_sparse(h, NULL, NULL, 0);
	/* One block, counts first (aligned), then the indexes: one malloc a rep, not two. */
	l->cnt = malloc(n * (sizeof(*l->cnt) + sizeof(*l->idx)));
	if (l->cnt == NULL) {
		memset(l, 0, sizeof(*l));
		return -ENOMEM;
	}
	l->idx = (uint32_t *)(l->cnt + n);
	l->n = (uint32_t)bt_hist_sparse(h, l->idx, l->cnt, n);
	l->count = h->total;
	l->min = h->min;
	l->max = h->max;
	l->sum = h->sum;
	l->mean = bt_hist_mean(h);
	l->p50 = bt_hist_percentile(h, 50);
	l->p90 = bt_hist_percentile(h, 90);
	l->p99 = bt_hist_percentile(h, 99);
	l->p999 = bt_hist_percentile(h, 99.9);
	return 0;
}

void bt_rep_lat_add(struct bt_hist *dst, const struct bt_rep_lat *l)
{
	if (l->count == 0)
		return;
	for (uint32_t k = 0; k < l->n; k++)
		dst->counts[l->idx[k]] += l->cnt[k];
	dst->total += l->count;
	dst->sum += l->sum;
	if (l->min < dst->min)
		dst->min = l->min;
	if (l->max > dst->max)
		dst->max = l->max;
}

/*
 * Ownership of r->hist and r->workers always moves, also on failure (then
 * they are freed here), and both are set to NULL in *r: a caller that
 * ignores the return value neither leaks nor double-frees.
 */
int bt_results_add_rep(struct bt_results *res, struct bt_rep *r)
{
	struct bt_cell *cell;
	const char *v = NULL;
	int rc = 0;

	if (r->cell < 0 || r->cell >= res->ncells)
		rc = -EINVAL;
	else
		rc = grow((void **)&res->reps, res->nreps, &res->reps_cap, sizeof(*res->reps));
	if (rc == 0)
		rc = make_lat(r);
	if (rc == 0) {
		/* Every "ok" shares one string; anything more is copied. */
		v = r->verify != NULL ? r->verify : r->ok ? bt_rep_ok : "failed";
		v = strcmp(v, bt_rep_ok) == 0 ? bt_rep_ok : strdup(v);
		if (v == NULL)
			rc = -ENOMEM;
	}
	if (rc == 0 && r->hist != NULL && r->hist->total > 0 && !r->warmup && r->ok) {
		cell = &res->cells[r->cell];
		if (cell->hist == NULL && (cell->hist = bt_hist_new()) == NULL)
			rc = -ENOMEM;
		else
			bt_hist_add(cell->hist, r->hist);
	}
	bt_hist_free(r->hist);
	r->hist = NULL;
	if (rc < 0) {
		free_verify(v);
		free(r->lat.cnt);
		free(r->workers);
	} else {
		res->reps[res->nreps] = *r;
		res->reps[res->nreps++].verify = v;
	}
	memset(&r->lat, 0, sizeof(r->lat));
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

/* Cell c's summary from the reps list[0..nlist) (all reps when list is NULL). */
static int summarize(struct bt_results *res, int c, const int *list, int nlist)
{
	struct bt_cell *cell;
	double *v[F_N] = { NULL };
	int n = 0, rc = 0;

	if (c < 0 || c >= res->ncells)
		return -EINVAL;
	cell = &res->cells[c];
	for (int f = 0; f < F_N; f++) {
		v[f] = malloc(((size_t)nlist + 1) * sizeof(double));
		if (v[f] == NULL) {
			rc = -ENOMEM;
			goto out;
		}
	}

	cell->failed = 0;
	cell->lat_every = 0;
	for (int k = 0; k < nlist; k++) {
		const struct bt_rep *r = &res->reps[list != NULL ? list[k] : k];

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
		if (r->lat_every > cell->lat_every)
			cell->lat_every = r->lat_every;
		snprintf(cell->verify, sizeof(cell->verify), "%s", r->verify);
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

int bt_results_summarize_cell(struct bt_results *res, int c)
{
	return summarize(res, c, NULL, res->nreps);
}

/* A counting sort of the reps by cell, then each cell from its own list. */
int bt_results_summarize_all(struct bt_results *res)
{
	int *start = calloc((size_t)res->ncells + 1, sizeof(int));
	int *list = malloc(((size_t)res->nreps + 1) * sizeof(int));
	int *fill = calloc((size_t)res->ncells + 1, sizeof(int));
	int rc = 0;

	if (start == NULL || list == NULL || fill == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < res->nreps; i++)
		start[res->reps[i].cell + 1]++;
	for (int c = 0; c < res->ncells; c++)
		start[c + 1] += start[c];
	for (int i = 0; i < res->nreps; i++) {
		int c = res->reps[i].cell;

		list[start[c] + fill[c]++] = i;
	}
	for (int c = 0; c < res->ncells && rc == 0; c++)
		if (fill[c] > 0)
			rc = summarize(res, c, list + start[c], fill[c]);
out:
	free(start);
	free(list);
	free(fill);
	return rc;
}

int bt_results_cells_done(const struct bt_results *res)
{
	int n = 0;

	for (int c = 0; c < res->ncells; c++)
		n += res->cells[c].done != 0;
	return n;
}
