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
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "core/param.h"
#include "core/units.h"

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
		for (int k = 0; k < BT_RES_LAT_CH; k++) {
			bt_hist_free(res->reps[i].ch_hist[k]);
			free(res->reps[i].ch_lat[k].cnt);
		}
		free(res->reps[i].workers);
	}
	free(res->reps);
	free(res->samples);
	for (int c = 0; c < res->ncells; c++) {
		bt_hist_free(res->cells[c].hist);
		for (int k = 0; k < BT_RES_LAT_CH; k++)
			bt_hist_free(res->cells[c].ch_hist[k]);
	}
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

/* l from h: the figures and the sparse buckets. 0 or -ENOMEM. */
static int make_lat(struct bt_rep_lat *l, const struct bt_hist *h)
{
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

	for (int m = 0; m < res->nmetrics && m < BT_RES_METRICS; m++)
		if (res->metrics[m].kind == BT_MI_RATIO)
			r->metric[m] = bt_metric_value(res->metrics, res->nmetrics, r->metric, m);
	if (r->cell < 0 || r->cell >= res->ncells)
		rc = -EINVAL;
	else
		rc = grow((void **)&res->reps, res->nreps, &res->reps_cap, sizeof(*res->reps));
	if (rc == 0)
		rc = make_lat(&r->lat, r->hist);
	for (int k = 0; k < BT_RES_LAT_CH; k++)
		if (rc == 0)
			rc = make_lat(&r->ch_lat[k], r->ch_hist[k]);
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
	/* Extra channels merge under the same rule as the main one. */
	for (int k = 0; k < BT_RES_LAT_CH; k++) {
		struct bt_hist **ch = &res->cells[r->cell].ch_hist[k];

		if (rc == 0 && r->ch_hist[k] != NULL && r->ch_hist[k]->total > 0 && !r->warmup &&
		    r->ok) {
			if (*ch == NULL && (*ch = bt_hist_new()) == NULL)
				rc = -ENOMEM;
			else
				bt_hist_add(*ch, r->ch_hist[k]);
		}
	}
	bt_hist_free(r->hist);
	r->hist = NULL;
	for (int k = 0; k < BT_RES_LAT_CH; k++) {
		bt_hist_free(r->ch_hist[k]);
		r->ch_hist[k] = NULL;
	}
	if (rc < 0) {
		free_verify(v);
		free(r->lat.cnt);
		for (int k = 0; k < BT_RES_LAT_CH; k++)
			free(r->ch_lat[k].cnt);
		free(r->workers);
	} else {
		res->reps[res->nreps] = *r;
		res->reps[res->nreps++].verify = v;
	}
	memset(&r->lat, 0, sizeof(r->lat));
	memset(r->ch_lat, 0, sizeof(r->ch_lat));
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

enum { F_OPS, F_BYTES, F_WALL, F_USER, F_SYS, F_VCSW, F_IVCSW, F_CPU, F_PAR, F_STEAL, F_N };

/*
 * The noise figures of a cell from its counted reps' throughputs x[0..n)
 * (in the order they ran) and their steal figures steal[0..nsteal). Tukey's
 * fences and the bimodality flag need 4 reps; fewer mark nothing. The first
 * counted rep slower than the lower fence is hyperfine's "the first run was
 * slower": a cold cache or a lazy setup the warmup did not cover.
 */
static int cell_noise(struct bt_cell *cell, const double *x, int n, const double *steal, int nsteal)
{
	struct bt_outliers o;
	struct bt_bimodal b;
	signed char *flag = malloc((size_t)n + 1);
	double sum = 0;

	if (flag == NULL)
		return -ENOMEM;
	/* In % of the median, as every table's sd% column shows it (bt_stats_cv divides by the mean). */
	cell->cv_pct = n >= 2 && cell->ops_s.median != 0 ?
		       100.0 * cell->ops_s.stddev / fabs(cell->ops_s.median) : 0;
	cell->ci_pct = cell->ops_s.median != 0 ? 100.0 * cell->ops_s.ci95 / fabs(cell->ops_s.median) : 0;
	cell->out_slow = cell->out_fast = 0;
	memset(flag, 0, (size_t)n + 1);
	bt_stats_outliers(x, n, BT_NOISE_TUKEY_K, &o, flag);
	for (int i = 0; i < n; i++) {
		cell->out_slow += flag[i] < 0;
		cell->out_fast += flag[i] > 0;
	}
	cell->bimodal = bt_stats_bimodal(x, n, BT_NOISE_BIMODAL_GAP, &b);
	for (int i = 0; i < nsteal; i++)
		sum += steal[i];
	cell->steal_pct = nsteal > 0 ? sum / nsteal : -1;
	cell->noise = 0;
	if (n >= 2 && cell->cv_pct > BT_NOISE_CV_PCT)
		cell->noise |= BT_NOISE_SD;
	if (cell->steal_pct > BT_NOISE_STEAL_PCT)
		cell->noise |= BT_NOISE_STEAL;
	if (cell->bimodal)
		cell->noise |= BT_NOISE_BIMODAL;
	if (n > 0 && flag[0] < 0)
		cell->noise |= BT_NOISE_FIRST_SLOW;
	free(flag);
	return 0;
}

/*
 * Cell c's metric summaries over the counted reps of list[0..nlist) (all
 * reps when list is NULL), each over the reps that have a value (a ratio
 * with den 0 has none).
 */
static int summarize_metrics(struct bt_results *res, int c, const int *list, int nlist)
{
	struct bt_cell *cell = &res->cells[c];
	double *buf;

	memset(cell->metric, 0, sizeof(cell->metric));
	if (res->nmetrics <= 0)
		return 0;
	buf = malloc(((size_t)nlist + 1) * sizeof(double));
	if (buf == NULL)
		return -ENOMEM;
	for (int m = 0; m < res->nmetrics && m < BT_RES_METRICS; m++) {
		int n = 0;

		for (int k = 0; k < nlist; k++) {
			const struct bt_rep *r = &res->reps[list != NULL ? list[k] : k];
			double x;

			if (r->cell != c || r->warmup || !r->ok)
				continue;
			x = bt_results_metric_rep(res, r, m);
			if (isfinite(x))
				buf[n++] = x;
		}
		bt_stats_summarize(buf, n, &cell->metric[m]);
	}
	free(buf);
	return 0;
}

/* Cell c's summary from the reps list[0..nlist) (all reps when list is NULL). */
static int summarize(struct bt_results *res, int c, const int *list, int nlist)
{
	struct bt_cell *cell;
	double *v[F_N] = { NULL };
	int n = 0, nsteal = 0, rc = 0;

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
	rc = summarize_metrics(res, c, list, nlist);
	if (rc < 0)
		goto out;

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
		if (r->steal_pct >= 0)
			v[F_STEAL][nsteal++] = r->steal_pct;
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
	rc = cell_noise(cell, v[F_OPS], n, v[F_STEAL], nsteal);
	cell->done = n >= cell->total_reps;
	cell->stop = BT_STOP_FIXED;
	if (cell->ci_target > 0 && n >= BT_AUTO_MIN_REPS && cell->ci_pct <= cell->ci_target) {
		cell->done = 1;
		cell->stop = BT_STOP_CI;
	} else if (cell->ci_target > 0 && cell->done) {
		cell->stop = BT_STOP_CAP;
		cell->noise |= BT_NOISE_CI_WIDE;
	}
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

char *bt_cell_noise_text(const struct bt_cell *cell, char *buf, size_t n)
{
	size_t o = 0;

#define ADD(...) do { \
		int k_ = snprintf(buf + o, n - o, "%s", o ? ", " : ""); \
		if (k_ > 0 && (size_t)k_ < n - o) o += (size_t)k_; \
		k_ = snprintf(buf + o, n - o, __VA_ARGS__); \
		if (k_ > 0) o += (size_t)k_ < n - o ? (size_t)k_ : n - o - 1; \
	} while (0)
	if (n == 0)
		return buf;
	buf[0] = '\0';
	if (cell->noise & BT_NOISE_SD)
		ADD("sd %.1f%%", cell->cv_pct);
	if (cell->noise & BT_NOISE_BIMODAL)
		ADD("bimodal");
	if (cell->noise & BT_NOISE_STEAL)
		ADD("steal %.1f%%", cell->steal_pct);
	if (cell->noise & BT_NOISE_FIRST_SLOW)
		ADD("first rep slow (an outlier: cold start? raise warmup=)");
	if (cell->noise & BT_NOISE_CI_WIDE)
		ADD("ci %.1f%% > %.3g%% at the cap", cell->ci_pct, cell->ci_target);
#undef ADD
	return buf;
}

char *bt_cell_stop_text(const struct bt_cell *cell, char *buf, size_t n)
{
	if (n == 0)
		return buf;
	buf[0] = '\0';
	if (cell->ci_target > 0 && cell->done && cell->stop == BT_STOP_CI)
		snprintf(buf, n, "ci %.1f%% after %d reps", cell->ci_pct, cell->nreps);
	else if (cell->ci_target > 0 && cell->done)
		snprintf(buf, n, "cap %d reached, ci %.1f%%", cell->total_reps, cell->ci_pct);
	return buf;
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

/* The common parameters that say how a cell was measured, not what ran. */
static const char *const run_controls[] = {
	"reps", "warmup", "duration", "ops", "lat", "lat_every", "sample", "rows", NULL,
};

static int is_run_control(const char *name, const json_t *v)
{
	for (int i = 0; run_controls[i]; i++)
		if (strcmp(name, run_controls[i]) == 0)
			return 1;
	/* Their defaults change nothing; anything else is part of the experiment. */
	if (json_is_string(v) && ((strcmp(name, "pin") == 0 && strcmp(json_string_value(v), "none") == 0) ||
				  (strcmp(name, "as") == 0 && (strcmp(json_string_value(v), "threads") == 0 ||
								   strcmp(json_string_value(v), "auto") == 0))))
		return 1;
	return 0;
}

char *bt_results_fixed_of(const struct json_t *plan, char *buf, size_t n)
{
	json_t *params = json_object_get((const json_t *)plan, "params");
	json_t *axes = json_object_get((const json_t *)plan, "axes");
	const char *name;
	json_t *v;
	size_t o = 0;

	if (n == 0)
		return buf;
	buf[0] = '\0';
	/* Written by the plan, which knows the schema (bt_plan_fixed). */
	v = json_object_get((const json_t *)plan, "fixed");
	if (json_is_string(v)) {
		const char *t = json_string_value(v);
		size_t len = strlen(t);

		if (len >= n) {	/* whole values only */
			len = n - 1;
			while (len > 0 && t[len] != ' ')
				len--;
		}
		memcpy(buf, t, len);
		buf[len] = '\0';
		return buf;
	}
	/* A recording from before "fixed": the run controls by name. */
	if (!json_is_object(params))
		return buf;
	json_object_foreach(params, name, v) {
		char val[BT_RES_TEXT];
		int swept = json_is_array(v), k;

		for (size_t a = 0; !swept && json_is_array(axes) && a < json_array_size(axes); a++) {
			const char *an = json_string_value(json_array_get(axes, a));

			swept = an != NULL && strcmp(an, name) == 0;
		}
		if (swept || is_run_control(name, v))
			continue;
		if (json_is_integer(v))
			snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(v));
		else if (json_is_boolean(v))
			snprintf(val, sizeof(val), "%s", json_is_true(v) ? "on" : "off");
		else if (json_is_string(v))
			snprintf(val, sizeof(val), "%s", json_string_value(v));
		else if (json_is_real(v))
			snprintf(val, sizeof(val), "%g", json_real_value(v));
		else
			continue;
		if (strcmp(name, "") == 0 || val[0] == '\0')
			continue;
		k = snprintf(buf + o, n - o, "%s%s=%s", o ? " " : "", name, val);
		if (k < 0 || (size_t)k >= n - o) {
			buf[o] = '\0';	/* no half value: what fits, whole */
			break;
		}
		o += (size_t)k;
	}
	return buf;
}

char *bt_results_fixed(const char *plan_json, char *buf, size_t n)
{
	json_t *plan = plan_json ? json_loads(plan_json, 0, NULL) : NULL;

	if (n > 0)
		buf[0] = '\0';
	if (plan != NULL && n > 0)
		bt_results_fixed_of(plan, buf, n);
	json_decref(plan);
	return buf;
}

char *bt_results_cell_name(const struct bt_results *res, int c, char *buf, size_t n)
{
	if (n == 0)
		return buf;
	buf[0] = '\0';
	if (c >= 0 && c < res->ncells && res->cells[c].label[0])
		snprintf(buf, n, "%s", res->cells[c].label);
	else if (res->naxes == 0)
		bt_results_fixed(res->plan_json, buf, n);
	if (buf[0] == '\0')
		snprintf(buf, n, "%s", res->workload[0] ? res->workload : "cell");
	return buf;
}
