/*
 * compare.c - compare recordings cell by cell (see compare.h).
 *
 * Why Welch and Fieller: a cell has 3 to 10 reps, the two recordings may
 * come from machines (or parameters) with different spread, so the pooled
 * Student test is the wrong tool; Welch's test with Welch-Satterthwaite
 * degrees of freedom is the standard answer. The question people ask is a
 * ratio ("B is 12% faster"), and Fieller's theorem gives the exact interval
 * of a ratio of two normal means; tested at rho = 1 it is the Welch test
 * itself, so the interval and the test can never disagree. Both are closed
 * forms: the output is the same on every run and every machine.
 *
 * The t distribution is computed, not looked up: Welch's degrees of freedom
 * are not integers. Its tail is the regularized incomplete beta function,
 * evaluated by the modified Lentz continued fraction (Numerical Recipes
 * 6.4; accurate to ~1e-14 here), and quantiles invert it by bisection.
 */
#include "report/compare.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/clock.h"
#include "report/csv.h"
#include "report/grid.h"
#include "core/hist.h"
#include "core/stats.h"
#include "core/sysinfo.h"
#include "core/units.h"

/* ---- statistics ------------------------------------------------------- */

/* Continued fraction for I_x(a, b), valid for x < (a + 1) / (a + b + 2). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-16;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 1000; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* lgamma without the global signgam write (thread-safe; arguments here are > 0). */
static double lgam(double x)
{
	int sign;

	return lgamma_r(x, &sign);
}

double bt_cmp_betainc(double a, double b, double x)
{
	double front;

	if (!(x > 0))
		return 0;
	if (!(x < 1))
		return 1;
	front = exp(lgam(a + b) - lgam(a) - lgam(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(a, b, x) / a;
	return 1 - front * betacf(b, a, 1 - x) / b;
}

double bt_cmp_t_p2(double t, double dof)
{
	if (isnan(t) || !(dof > 0))
		return NAN;
	if (isinf(t))
		return 0;
	return bt_cmp_betainc(dof / 2, 0.5, dof / (dof + t * t));
}

/*
 * Bisection on x = dof / (dof + t^2) in (0, 1), where the two-sided tail
 * I_x(dof/2, 1/2) rises monotonically from 0 to 1; 200 halvings reach the
 * resolution of a double, and always take the same steps.
 */
double bt_cmp_t_quantile(double alpha, double dof)
{
	double lo = 0, hi = 1;

	if (!(alpha > 0 && alpha < 1) || !(dof > 0))
		return NAN;
	for (int i = 0; i < 200; i++) {
		double mid = lo + (hi - lo) / 2;

		if (mid <= lo || mid >= hi)
			break;
		if (bt_cmp_betainc(dof / 2, 0.5, mid) < alpha)
			lo = mid;
		else
			hi = mid;
	}
	return sqrt(dof * (1 - hi) / hi);
}

static void mean_sd(const double *x, int n, double *mean, double *sd)
{
	double sum = 0, acc = 0;

	for (int i = 0; i < n; i++)
		sum += x[i];
	*mean = n > 0 ? sum / n : NAN;
	*sd = NAN;
	if (n < 2)
		return;
	for (int i = 0; i < n; i++)
		acc += (x[i] - *mean) * (x[i] - *mean);
	*sd = sqrt(acc / (n - 1));
}

static double div_or_nan(double x, double y)
{
	return y != 0 && isfinite(x) && isfinite(y) ? x / y : NAN;
}

void bt_cmp_samples(const double *a, int na, const double *k, int nk, struct bt_cmp_stat *st)
{
	struct bt_summary sa, sk;
	double va, vk, se2, qa, fa, fb, fc;

	memset(st, 0, sizeof(*st));
	st->na = na > 0 ? na : 0;
	st->nk = nk > 0 ? nk : 0;
	bt_stats_summarize(a, st->na, &sa);
	bt_stats_summarize(k, st->nk, &sk);
	st->median_a = st->na ? sa.median : NAN;
	st->median_k = st->nk ? sk.median : NAN;
	mean_sd(a, st->na, &st->mean_a, &st->sd_a);
	mean_sd(k, st->nk, &st->mean_k, &st->sd_k);
	st->ratio = div_or_nan(st->median_k, st->median_a);
	st->ratio_means = div_or_nan(st->mean_k, st->mean_a);
	st->t = st->dof = st->p = st->tq = st->lo = st->hi = NAN;
	if (st->na == 0 || st->nk == 0) {
		st->verdict = BT_CMP_NODATA;
		return;
	}
	if (st->na < 2 || st->nk < 2) {
		st->verdict = BT_CMP_NOTEST;
		return;
	}

	va = st->sd_a * st->sd_a / st->na;
	vk = st->sd_k * st->sd_k / st->nk;
	se2 = va + vk;
	if (se2 == 0) {
		/* No spread at all: the means are exact, any difference is real. */
		st->dof = st->na + st->nk - 2;
		st->tq = bt_cmp_t_quantile(0.05, st->dof);
		st->lo = st->hi = st->ratio_means;
		if (st->mean_k == st->mean_a) {
			st->t = 0;
			st->p = 1;
			st->verdict = BT_CMP_NOISE;
		} else {
			st->t = st->mean_k > st->mean_a ? INFINITY : -INFINITY;
			st->p = 0;
			st->verdict = st->mean_k > st->mean_a ? BT_CMP_FASTER : BT_CMP_SLOWER;
		}
		return;
	}
	st->t = (st->mean_k - st->mean_a) / sqrt(se2);
	/* Welch-Satterthwaite, with the variances as shares of se2 so nothing overflows. */
	{
		double wa = va / se2, wk = vk / se2;

		st->dof = 1.0 / (wa * wa / (st->na - 1) + wk * wk / (st->nk - 1));
	}
	st->p = bt_cmp_t_p2(st->t, st->dof);
	st->tq = bt_cmp_t_quantile(0.05, st->dof);
	if (!isfinite(st->t) || !isfinite(st->tq) || !isfinite(se2)) {
		/* Magnitudes no throughput has (beyond 1e150): no test rather than a wrong one. */
		st->verdict = BT_CMP_NOTEST;
		return;
	}

	/*
	 * Fieller: rho is in the interval when
	 * (mean_k - rho mean_a)^2 <= tq^2 (vk + rho^2 va), i.e.
	 * fa rho^2 - 2 fb rho + fc <= 0. With fa > 0 (A's mean is clearly
	 * not zero) that is the bounded interval between the roots; otherwise
	 * the set is unbounded and only the t-test decides.
	 */
	qa = st->tq * st->tq;
	fa = st->mean_a * st->mean_a - qa * va;
	fb = st->mean_a * st->mean_k;
	fc = st->mean_k * st->mean_k - qa * vk;
	if (fa > 0) {
		double disc = fb * fb - fa * fc;
		double r = sqrt(disc > 0 ? disc : 0);

		st->lo = (fb - r) / fa;
		st->hi = (fb + r) / fa;
		if (st->lo <= 1.0 && 1.0 <= st->hi)
			st->verdict = BT_CMP_NOISE;
		else
			st->verdict = st->mean_k > st->mean_a ? BT_CMP_FASTER : BT_CMP_SLOWER;
	} else {
		st->lo = -INFINITY;
		st->hi = INFINITY;
		if (fabs(st->t) <= st->tq)
			st->verdict = BT_CMP_NOISE;
		else
			st->verdict = st->mean_k > st->mean_a ? BT_CMP_FASTER : BT_CMP_SLOWER;
	}
}

/* ---- plan differences ----------------------------------------------- */

/* Growable text for "line\nline" lists. */
struct text {
	char *s;
	size_t len, cap;
	int n;
	int oom;
};

__attribute__((format(printf, 2, 3)))
static void text_line(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int need;

	if (t->oom)
		return;
	va_start(ap, fmt);
	need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (need < 0) {
		t->oom = 1;
		return;
	}
	if (t->len + (size_t)need + 2 > t->cap) {
		size_t ncap = (t->len + (size_t)need + 2) * 2;
		char *p = realloc(t->s, ncap);

		if (p == NULL) {
			t->oom = 1;
			return;
		}
		t->s = p;
		t->cap = ncap;
	}
	if (t->n > 0)
		t->s[t->len++] = '\n';
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)need;
	t->n++;
}

/* Finish a text: "" when empty; -ENOMEM when any step failed. */
static int text_done(struct text *t, char **out)
{
	if (!t->oom && t->s == NULL) {
		t->s = strdup("");
		t->oom = t->s == NULL;
	}
	if (t->oom) {
		free(t->s);
		*out = NULL;
		return -ENOMEM;
	}
	*out = t->s;
	return t->n;
}

/* A JSON value as compact text, malloc'd; "(absent)" for NULL. */
static char *jtext(const json_t *v)
{
	if (v == NULL)
		return strdup("(absent)");
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
}

static void diff_value(struct text *t, const char *key, const json_t *va, const json_t *vb)
{
	char *sa, *sb;

	if (va == NULL && vb == NULL)	/* absent from both: no difference */
		return;
	if (va != NULL && vb != NULL && json_equal((json_t *)va, (json_t *)vb))
		return;
	sa = jtext(va);
	sb = jtext(vb);
	if (sa == NULL || sb == NULL)
		t->oom = 1;
	else
		text_line(t, "%s: %s -> %s", key, sa, sb);
	free(sa);
	free(sb);
}

int bt_cmp_plan_diff(const struct bt_results *a, const struct bt_results *b, char **buf)
{
	struct text t = { 0 };
	json_t *ja = a->plan_json ? json_loads(a->plan_json, 0, NULL) : NULL;
	json_t *jb = b->plan_json ? json_loads(b->plan_json, 0, NULL) : NULL;
	json_t *pa, *pb, *v;
	const char *key;

	if (strcmp(a->workload, b->workload) != 0)
		text_line(&t, "workload: %s -> %s", a->workload, b->workload);
	if (!json_is_object(ja) || !json_is_object(jb)) {
		if (json_is_object(ja) || json_is_object(jb))
			text_line(&t, "plan: %s -> %s", json_is_object(ja) ? "recorded" : "not recorded",
				  json_is_object(jb) ? "recorded" : "not recorded");
		goto out;
	}
	pa = json_object_get(ja, "params");
	pb = json_object_get(jb, "params");
	if (!json_is_object(pa) || !json_is_object(pb)) {
		diff_value(&t, "params", pa, pb);
		goto out;
	}
	json_object_foreach(pa, key, v)
		diff_value(&t, key, v, json_object_get(pb, key));
	json_object_foreach(pb, key, v)
		if (json_object_get(pa, key) == NULL)
			diff_value(&t, key, NULL, v);
out:
	json_decref(ja);
	json_decref(jb);
	return text_done(&t, buf);
}

/* ---- building the rows ---------------------------------------------- */

/* The counted reps (not warmup, verified) of cell c: their ops/s into x; returns how many. */
static int cell_values(const struct bt_results *res, int c, double *x)
{
	int n = 0;

	for (int i = 0; i < res->nreps; i++) {
		const struct bt_rep *r = &res->reps[i];

		if (r->cell == c && !r->warmup && r->ok)
			x[n++] = r->ops_s;
	}
	return n;
}

/* The counted reps of cell c that have a value of metric m (index in res): into x; returns how many. */
static int cell_metric_values(const struct bt_results *res, int c, int m, double *x)
{
	int n = 0;

	for (int i = 0; m >= 0 && i < res->nreps; i++) {
		const struct bt_rep *r = &res->reps[i];
		double v;

		if (r->cell != c || r->warmup || !r->ok)
			continue;
		v = bt_results_metric_rep(res, r, m);
		if (isfinite(v))
			x[n++] = v;
	}
	return n;
}

/* The metrics compared: A's, then those only in B, C, ... by name; where each one is in each recording. */
static void collect_metrics(struct bt_cmp *c)
{
	for (int i = 0; i < c->nres; i++) {
		const struct bt_results *res = c->res[i];

		for (int m = 0; m < res->nmetrics && m < BT_RES_METRICS; m++) {
			int k;

			for (k = 0; k < c->nmetrics; k++)
				if (strcmp(c->metrics[k].name, res->metrics[m].name) == 0)
					break;
			if (k == c->nmetrics && c->nmetrics < BT_RES_METRICS)
				c->metrics[c->nmetrics++] = res->metrics[m];
		}
	}
	for (int i = 0; i < c->nres; i++)
		for (int k = 0; k < c->nmetrics; k++)
			c->midx[i][k] = bt_results_metric_find(c->res[i], c->metrics[k].name);
}

/* Each metric of one row: medians per recording and the test against A. */
static void fill_row_metrics(struct bt_cmp *c, struct bt_cmp_row *row, double *xa, double *xk)
{
	for (int m = 0; m < c->nmetrics; m++) {
		int na = 0;

		for (int i = 0; i < c->nres; i++) {
			int n = row->cell[i] >= 0 ? cell_metric_values(c->res[i], row->cell[i],
								       c->midx[i][m], i == 0 ? xa : xk)
						  : 0;
			struct bt_summary s;

			bt_stats_summarize(i == 0 ? xa : xk, n, &s);
			row->mmedian[m][i] = n > 0 ? s.median : NAN;
			if (i == 0) {
				na = n;
				continue;
			}
			bt_cmp_samples(xa, na, xk, n, &row->mst[m][i]);
			if (row->cell[0] < 0 && row->cell[i] < 0)
				row->mst[m][i].verdict = BT_CMP_ABSENT;
			else if (row->cell[i] < 0)
				row->mst[m][i].verdict = BT_CMP_ONLY_A;
			else if (row->cell[0] < 0)
				row->mst[m][i].verdict = BT_CMP_ONLY_K;
		}
	}
}

static int find_row(const struct bt_cmp *c, const char *label)
{
	for (int r = 0; r < c->nrows; r++)
		if (strcmp(c->rows[r].label, label) == 0)
			return r;
	return -1;
}

/* Place every cell of every recording in a row, matching by label. */
static int place_cells(struct bt_cmp *c)
{
	int total = 0, cap;

	for (int i = 0; i < c->nres; i++)
		total += c->res[i]->ncells;
	cap = total > 0 ? total : 1;
	c->rows = calloc((size_t)cap, sizeof(*c->rows));
	if (c->rows == NULL)
		return -ENOMEM;
	for (int i = 0; i < c->nres; i++) {
		const struct bt_results *res = c->res[i];

		for (int k = 0; k < res->ncells; k++) {
			const char *label = res->cells[k].label;
			int r = find_row(c, label);

			if (r >= 0 && c->rows[r].cell[i] >= 0)
				r = -1;	/* a duplicate label in one recording: its own row */
			if (r < 0) {
				struct bt_cmp_row *row = &c->rows[c->nrows];

				r = c->nrows++;
				snprintf(row->label, sizeof(row->label), "%s", label);
				for (int j = 0; j < BT_CMP_MAX; j++)
					row->cell[j] = -1;
			}
			c->rows[r].cell[i] = k;
		}
	}
	return 0;
}

static void fill_row(struct bt_cmp *c, struct bt_cmp_row *row, double *xa, double *xk)
{
	int na = 0;

	for (int i = 0; i < c->nres; i++) {
		const struct bt_results *res = c->res[i];
		int n = row->cell[i] >= 0 ? cell_values(res, row->cell[i], i == 0 ? xa : xk) : 0;
		struct bt_summary s;

		row->n[i] = n;
		bt_stats_summarize(i == 0 ? xa : xk, n, &s);
		row->median[i] = n > 0 ? s.median : NAN;
		if (row->cell[i] >= 0) {
			const struct bt_hist *h = res->cells[row->cell[i]].hist;

			if (h != NULL && h->total > 0) {
				row->has_lat[i] = 1;
				row->p50[i] = bt_hist_percentile(h, 50.0);
				row->p99[i] = bt_hist_percentile(h, 99.0);
			}
		}
		if (i == 0) {
			na = n;
			continue;
		}
		bt_cmp_samples(xa, na, xk, n, &row->st[i]);
		/* Missing on a side: the numbers of the other side stay, the verdict says so. */
		if (row->cell[0] < 0 && row->cell[i] < 0)
			row->st[i].verdict = BT_CMP_ABSENT;
		else if (row->cell[i] < 0)
			row->st[i].verdict = BT_CMP_ONLY_A;
		else if (row->cell[0] < 0)
			row->st[i].verdict = BT_CMP_ONLY_K;
	}
}

int bt_cmp_build(struct bt_cmp *c, const struct bt_results *const *res, int n)
{
	double *xa = NULL, *xk = NULL;
	int maxreps = 1, ret;

	memset(c, 0, sizeof(*c));
	if (n < 2 || n > BT_CMP_MAX)
		return -EINVAL;
	c->nres = n;
	for (int i = 0; i < n; i++) {
		c->res[i] = res[i];
		if (res[i]->nreps > maxreps)
			maxreps = res[i]->nreps;
	}
	for (int i = 1; i < n; i++) {
		size_t sz = 4096;

		c->machine_diff[i] = malloc(sz);
		if (c->machine_diff[i] == NULL)
			return -ENOMEM;
		c->nmachine_diff[i] = bt_sysinfo_diff(&res[0]->machine, &res[i]->machine,
						      c->machine_diff[i], sz);
		ret = bt_cmp_plan_diff(res[0], res[i], &c->plan_diff[i]);
		if (ret < 0)
			return ret;
		c->nplan_diff[i] = ret;
	}
	ret = place_cells(c);
	if (ret < 0)
		return ret;
	xa = malloc((size_t)maxreps * sizeof(*xa));
	xk = malloc((size_t)maxreps * sizeof(*xk));
	if (xa == NULL || xk == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	collect_metrics(c);
	for (int r = 0; r < c->nrows; r++) {
		fill_row(c, &c->rows[r], xa, xk);
		fill_row_metrics(c, &c->rows[r], xa, xk);
	}
	ret = 0;
out:
	free(xa);
	free(xk);
	return ret;
}

void bt_cmp_destroy(struct bt_cmp *c)
{
	for (int i = 0; i < BT_CMP_MAX; i++) {
		free(c->machine_diff[i]);
		free(c->plan_diff[i]);
	}
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

void bt_cmp_verdict_text(const struct bt_cmp *c, const struct bt_cmp_row *row, int k, char *buf,
			 size_t n)
{
	const struct bt_cmp_stat *st = &row->st[k];

	(void)c;
	switch (st->verdict) {
	case BT_CMP_NOISE:
		snprintf(buf, n, "within noise");
		break;
	case BT_CMP_FASTER:
		snprintf(buf, n, "faster");
		break;
	case BT_CMP_SLOWER:
		snprintf(buf, n, "slower");
		break;
	case BT_CMP_NOTEST:
		snprintf(buf, n, "n<2: no test");
		break;
	case BT_CMP_NODATA:
		snprintf(buf, n, "no reps in %c", st->na == 0 ? 'A' : bt_cmp_letter(k));
		break;
	case BT_CMP_ONLY_A:
		snprintf(buf, n, "only in A");
		break;
	case BT_CMP_ONLY_K:
		snprintf(buf, n, "only in %c", bt_cmp_letter(k));
		break;
	default:
		snprintf(buf, n, "-");
		break;
	}
}

/* ---- writing ------------------------------------------------------------ */

static const char *verdict_key(enum bt_cmp_verdict v)
{
	static const char *const keys[] = {
		[BT_CMP_NOISE] = "within_noise", [BT_CMP_FASTER] = "faster",
		[BT_CMP_SLOWER] = "slower", [BT_CMP_NOTEST] = "no_test",
		[BT_CMP_NODATA] = "no_reps", [BT_CMP_ONLY_A] = "only_in_a",
		[BT_CMP_ONLY_K] = "only_in_other", [BT_CMP_ABSENT] = "absent",
	};

	return (unsigned)v < sizeof(keys) / sizeof(keys[0]) ? keys[v] : "absent";
}

static const char *unit_of(const struct bt_results *res)
{
	return res->unit[0] ? res->unit : "ops";
}

static const char *status_of(const struct bt_results *res)
{
	return res->status[0] ? res->status : "running";
}

/* Measure g and print it as text or, escaped, as a Markdown table. */
static void print_grid(FILE *f, struct bt_grid *g, int md)
{
	if (md)
		bt_grid_md_escape(g);
	bt_grid_measure(g);
	if (md)
		bt_grid_print_md(f, g);
	else
		bt_grid_print_text(f, g);
}

static void fmt_lat(char *buf, size_t n, const struct bt_cmp_row *row, int i)
{
	if (!row->has_lat[i])
		snprintf(buf, n, "-");
	else
		bt_fmt_ns((double)row->p50[i], buf, n);
}

static void fmt_lat99(char *buf, size_t n, const struct bt_cmp_row *row, int i)
{
	if (!row->has_lat[i])
		snprintf(buf, n, "-");
	else
		bt_fmt_ns((double)row->p99[i], buf, n);
}

/* Relative change of a latency percentile: "+12%", "-3%", "-" when either is missing. */
static void fmt_delta(char *buf, size_t n, const struct bt_cmp_row *row, int k, int p99)
{
	double a, b;

	if (!row->has_lat[0] || !row->has_lat[k]) {
		snprintf(buf, n, "-");
		return;
	}
	a = (double)(p99 ? row->p99[0] : row->p50[0]);
	b = (double)(p99 ? row->p99[k] : row->p50[k]);
	if (a == 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%+.0f%%", 100.0 * (b - a) / a);
}

static void fmt_ci(char *buf, size_t n, const struct bt_cmp_stat *st)
{
	if (isnan(st->lo) || isnan(st->hi))
		snprintf(buf, n, "-");
	else if (isinf(st->lo) || isinf(st->hi))
		snprintf(buf, n, "unbounded");
	else
		snprintf(buf, n, "%.3f..%.3f", st->lo, st->hi);
}

/* A metric's verdict: like throughput's, but "higher" and "lower" (more is not always better). */
static void metric_verdict_text(const struct bt_cmp *c, const struct bt_cmp_row *row, int m, int k,
				char *buf, size_t n)
{
	struct bt_cmp_row tmp;

	if (row->mst[m][k].verdict == BT_CMP_FASTER || row->mst[m][k].verdict == BT_CMP_SLOWER) {
		snprintf(buf, n, "%s", row->mst[m][k].verdict == BT_CMP_FASTER ? "higher" : "lower");
		return;
	}
	tmp.st[k] = row->mst[m][k];
	bt_cmp_verdict_text(c, &tmp, k, buf, n);
}

/*
 * The metrics under the throughput table: one row per cell and metric,
 * A's median, then for each other recording its median, the ratio, the
 * 95% CI and the verdict, like the throughput columns.
 */
static int metrics_table(FILE *f, const struct bt_cmp *c, int md)
{
	struct bt_grid g = { 0 };
	int cols = 3 + 4 * (c->nres - 1), r = 1;

	if (c->nmetrics == 0)
		return 0;
	if (bt_grid_init(&g, 1 + c->nrows * c->nmetrics, cols) < 0) {
		bt_grid_free(&g);
		return -ENOMEM;
	}
	bt_grid_set(&g, 0, 0, "cell");
	bt_grid_set(&g, 0, 1, "metric");
	bt_grid_set(&g, 0, 2, "A");
	g.right[2] = 1;
	for (int k = 1; k < c->nres; k++) {
		int c0 = 3 + 4 * (k - 1);
		char L = bt_cmp_letter(k);

		bt_grid_set(&g, 0, c0, "%c", L);
		bt_grid_set(&g, 0, c0 + 1, "%c/A", L);
		bt_grid_set(&g, 0, c0 + 2, "95%% CI");
		bt_grid_set(&g, 0, c0 + 3, "%c vs A", L);
		g.right[c0] = g.right[c0 + 1] = g.right[c0 + 2] = 1;
	}
	for (int i = 0; i < c->nrows; i++) {
		const struct bt_cmp_row *row = &c->rows[i];

		for (int m = 0; m < c->nmetrics; m++, r++) {
			const struct bt_metric_info *mi = &c->metrics[m];

			bt_grid_set(&g, r, 0, "%s", row->label[0] ? row->label
					     : c->res[0]->workload[0] ? c->res[0]->workload : "-");
			if (mi->unit[0] && mi->kind != BT_MI_TIME && strcmp(mi->unit, "%") != 0)
				bt_grid_set(&g, r, 1, "%s (%s)", mi->name, mi->unit);
			else
				bt_grid_set(&g, r, 1, "%s", mi->name);
			bt_results_metric_fmt(mi, row->mmedian[m][0], bt_grid_cell(&g, r, 2), BT_GRID_CELL);
			for (int k = 1; k < c->nres; k++) {
				const struct bt_cmp_stat *st = &row->mst[m][k];
				int c0 = 3 + 4 * (k - 1);

				bt_results_metric_fmt(mi, row->mmedian[m][k], bt_grid_cell(&g, r, c0),
						      BT_GRID_CELL);
				if (isnan(st->ratio))
					bt_grid_set(&g, r, c0 + 1, "-");
				else
					bt_grid_set(&g, r, c0 + 1, "%.3f", st->ratio);
				fmt_ci(bt_grid_cell(&g, r, c0 + 2), BT_GRID_CELL, st);
				metric_verdict_text(c, row, m, k, bt_grid_cell(&g, r, c0 + 3), BT_GRID_CELL);
			}
		}
	}
	fprintf(f, "\nmetrics, median of the counted reps; K/A, 95%% CI as above; "
		"higher / lower = beyond noise\n\n");
	print_grid(f, &g, md);
	bt_grid_free(&g);
	return 0;
}

/* Columns: cell; A: ops/s p50 p99; each K: ops/s K/A CI verdict p50 dp50 p99 dp99. */
#define A_COLS 3
#define K_COLS 8

static int table(FILE *f, const struct bt_cmp *c, int md)
{
	const struct bt_results *a = c->res[0];
	struct bt_grid g = { 0 };
	int cols = 1 + A_COLS + K_COLS * (c->nres - 1);

	if (bt_grid_init(&g, 1 + c->nrows, cols) < 0) {
		bt_grid_free(&g);
		return -ENOMEM;
	}
	/* Numbers right-aligned; the cell and the verdicts read from the left. */
	for (int col = 1; col < cols; col++)
		g.right[col] = col <= A_COLS || (col - 1 - A_COLS) % K_COLS != 3;
	bt_grid_set(&g, 0, 0, "cell");
	bt_grid_set(&g, 0, 1, "A %s/s", unit_of(a));
	bt_grid_set(&g, 0, 2, "A p50");
	bt_grid_set(&g, 0, 3, "A p99");
	for (int k = 1; k < c->nres; k++) {
		int c0 = 1 + A_COLS + K_COLS * (k - 1);
		char L = bt_cmp_letter(k);

		bt_grid_set(&g, 0, c0, "%c %s/s", L, unit_of(a));
		bt_grid_set(&g, 0, c0 + 1, "%c/A", L);
		bt_grid_set(&g, 0, c0 + 2, "95%% CI");
		bt_grid_set(&g, 0, c0 + 3, "%c vs A", L);
		bt_grid_set(&g, 0, c0 + 4, "%c p50", L);
		bt_grid_set(&g, 0, c0 + 5, "dp50");
		bt_grid_set(&g, 0, c0 + 6, "%c p99", L);
		bt_grid_set(&g, 0, c0 + 7, "dp99");
	}
	for (int r = 0; r < c->nrows; r++) {
		const struct bt_cmp_row *row = &c->rows[r];
		char b[64];

		bt_grid_set(&g, 1 + r, 0, "%s", row->label[0] ? row->label : (a->workload[0] ? a->workload : "-"));
		for (int i = 0; i < c->nres; i++) {
			int c0 = i == 0 ? 1 : 1 + A_COLS + K_COLS * (i - 1);
			const struct bt_cmp_stat *st = &row->st[i];

			if (isnan(row->median[i]))
				bt_grid_set(&g, 1 + r, c0, "-");
			else
				bt_grid_set(&g, 1 + r, c0, "%s", bt_fmt_si(row->median[i], b, sizeof(b)));
			if (i == 0) {
				fmt_lat(bt_grid_cell(&g, 1 + r, 2), BT_GRID_CELL, row, 0);
				fmt_lat99(bt_grid_cell(&g, 1 + r, 3), BT_GRID_CELL, row, 0);
				continue;
			}
			if (isnan(st->ratio))
				bt_grid_set(&g, 1 + r, c0 + 1, "-");
			else
				bt_grid_set(&g, 1 + r, c0 + 1, "%.3f", st->ratio);
			fmt_ci(bt_grid_cell(&g, 1 + r, c0 + 2), BT_GRID_CELL, st);
			bt_cmp_verdict_text(c, row, i, bt_grid_cell(&g, 1 + r, c0 + 3), BT_GRID_CELL);
			fmt_lat(bt_grid_cell(&g, 1 + r, c0 + 4), BT_GRID_CELL, row, i);
			fmt_delta(bt_grid_cell(&g, 1 + r, c0 + 5), BT_GRID_CELL, row, i, 0);
			fmt_lat99(bt_grid_cell(&g, 1 + r, c0 + 6), BT_GRID_CELL, row, i);
			fmt_delta(bt_grid_cell(&g, 1 + r, c0 + 7), BT_GRID_CELL, row, i, 1);
		}
	}
	print_grid(f, &g, md);
	bt_grid_free(&g);
	return metrics_table(f, c, md);
}

/* "null threads=2 work=0, 2026-11-30T01:02:03Z, host vm, complete (2/2 cells)" */
static void describe(const struct bt_results *res, char *buf, size_t n)
{
	char when[32], fixed[256];

	bt_format_utc(res->start_unix_ns, when, sizeof(when));
	bt_results_fixed(res->plan_json, fixed, sizeof(fixed));
	snprintf(buf, n, "%s%s%s, %s, host %s, %s (%d/%d cells)",
		 res->workload[0] ? res->workload : "?", fixed[0] ? " " : "", fixed, when, res->machine.host[0] ? res->machine.host : "?", status_of(res),
		 bt_results_cells_done(res), res->ncells);
}

/* Each line of a '\n'-joined list, indented (text) or as a bullet (Markdown). */
static void print_lines(FILE *f, const char *lines, int md)
{
	const char *p = lines;

	while (*p) {
		size_t k = strcspn(p, "\n");

		fprintf(f, "%s%.*s\n", md ? "- " : "  ", (int)k, p);
		p += k;
		if (*p == '\n')
			p++;
	}
}

static int write_text(FILE *f, const struct bt_cmp *c, const char *const *names, int md)
{
	const struct bt_results *a = c->res[0];
	char d[512];

	for (int i = 0; i < c->nres; i++) {
		describe(c->res[i], d, sizeof(d));
		fprintf(f, "%s%c: %s%s%s (%s)\n", md ? "- " : "", bt_cmp_letter(i), md ? "`" : "",
			names && names[i] ? names[i] : "?", md ? "`" : "", d);
	}
	for (int k = 1; k < c->nres; k++) {
		char L = bt_cmp_letter(k);

		fputc('\n', f);
		if (c->nplan_diff[k] == 0) {
			fprintf(f, "plan differences, A -> %c: none\n", L);
		} else {
			fprintf(f, "plan differences, A -> %c:\n%s", L, md ? "\n" : "");
			print_lines(f, c->plan_diff[k], md);
		}
		if (md)
			fputc('\n', f);
		if (c->nmachine_diff[k] == 0) {
			fprintf(f, "machine differences, A -> %c: none\n", L);
		} else {
			fprintf(f, "machine differences, A -> %c:\n%s", L, md ? "\n" : "");
			print_lines(f, c->machine_diff[k], md);
		}
	}
	fprintf(f, "\nthroughput in %s/s, median of the counted reps; K/A = ratio of the medians; "
		"95%% CI = interval of the ratio of the means (Welch's t, Fieller); "
		"within noise = the interval contains 1; dp50, dp99 = latency change\n\n",
		unit_of(a));
	return table(f, c, md);
}


static int write_csv(FILE *f, const struct bt_cmp *c)
{
	fputs("cell,base,other,n_base,n_other,median_base,median_other,mean_base,mean_other,"
	      "sd_base,sd_other,ratio,ratio_means,ci_lo,ci_hi,t,dof,p,verdict,"
	      "p50_base_ns,p50_other_ns,p99_base_ns,p99_other_ns", f);
	for (int m = 0; m < c->nmetrics; m++) {
		static const char *const sfx[] = { "median_base", "median_other", "ratio", "ci_lo",
						   "ci_hi", "p", "verdict" };
		char name[96];

		for (size_t k = 0; k < sizeof(sfx) / sizeof(sfx[0]); k++) {
			snprintf(name, sizeof(name), "%s_%s", c->metrics[m].name, sfx[k]);
			bt_csv_str(f, name, 0);
		}
	}
	fputc('\n', f);
	for (int r = 0; r < c->nrows; r++) {
		const struct bt_cmp_row *row = &c->rows[r];

		for (int k = 1; k < c->nres; k++) {
			const struct bt_cmp_stat *st = &row->st[k];
			char L[2] = { bt_cmp_letter(k), '\0' };
			const double nums[] = { row->n[0], row->n[k], row->median[0], row->median[k],
						st->mean_a, st->mean_k, st->sd_a, st->sd_k, st->ratio,
						st->ratio_means, st->lo, st->hi, st->t, st->dof, st->p };

			bt_csv_str(f, row->label, 1);
			bt_csv_str(f, "A", 0);
			bt_csv_str(f, L, 0);
			bt_csv_nums(f, nums, sizeof(nums) / sizeof(nums[0]));
			bt_csv_str(f, verdict_key(st->verdict), 0);
			for (int p99 = 0; p99 < 2; p99++) {
				for (int i = 0; i < 2; i++) {
					int j = i == 0 ? 0 : k;

					bt_csv_u64(f, p99 ? row->p99[j] : row->p50[j], row->has_lat[j]);
				}
			}
			for (int m = 0; m < c->nmetrics; m++) {
				const struct bt_cmp_stat *ms = &row->mst[m][k];
				const double mn[] = { row->mmedian[m][0], row->mmedian[m][k], ms->ratio,
						      ms->lo, ms->hi, ms->p };

				bt_csv_nums(f, mn, sizeof(mn) / sizeof(mn[0]));
				bt_csv_str(f, verdict_key(ms->verdict), 0);
			}
			fputc('\n', f);
		}
	}
	return 0;
}

/*
 * A JSON string that never fails on bad UTF-8 (a path given on the command
 * line, a name cut mid-character by a fixed buffer): such bytes become '?'.
 */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s ? s : "");
	char *copy;

	if (j != NULL || s == NULL)
		return j;
	copy = strdup(s);
	if (copy == NULL)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

/* A number for JSON: null when it does not exist or is infinite. */
static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Append a '\n'-joined list as an array of strings. */
static json_t *jlines(const char *lines)
{
	json_t *arr = json_array();
	const char *p = lines ? lines : "";

	while (arr != NULL && *p) {
		size_t k = strcspn(p, "\n");

		char *line = strndup(p, k);

		json_array_append_new(arr, jstr(line));
		free(line);
		p += k;
		if (*p == '\n')
			p++;
	}
	return arr;
}

static json_t *jlat(const struct bt_cmp_row *row, int i, int p99)
{
	if (!row->has_lat[i])
		return json_null();
	return json_integer((json_int_t)(p99 ? row->p99[i] : row->p50[i]));
}

/* {"timeouts": {"median_a":..,"median":..,"n_a":..,"n":..,"ratio":..,"ci_lo":..,...}, ...} */
static json_t *jmetrics(const struct bt_cmp *c, const struct bt_cmp_row *row, int k)
{
	json_t *o = json_object();

	for (int m = 0; o != NULL && m < c->nmetrics; m++) {
		const struct bt_cmp_stat *st = &row->mst[m][k];
		char text[64];
		json_t *mo = json_object();

		if (mo == NULL)
			break;
		metric_verdict_text(c, row, m, k, text, sizeof(text));
		json_object_set_new(mo, "median_a", jnum(row->mmedian[m][0]));
		json_object_set_new(mo, "median", jnum(row->mmedian[m][k]));
		json_object_set_new(mo, "n_a", json_integer(st->na));
		json_object_set_new(mo, "n", json_integer(st->nk));
		json_object_set_new(mo, "ratio", jnum(st->ratio));
		json_object_set_new(mo, "ci_lo", isinf(st->lo) ? json_string("-inf") : jnum(st->lo));
		json_object_set_new(mo, "ci_hi", isinf(st->hi) ? json_string("inf") : jnum(st->hi));
		json_object_set_new(mo, "p", jnum(st->p));
		json_object_set_new(mo, "verdict", json_string(verdict_key(st->verdict)));
		json_object_set_new(mo, "verdict_text", jstr(text));
		json_object_set_new(o, c->metrics[m].name, mo);
	}
	return o;
}

static int write_json(FILE *f, const struct bt_cmp *c, const char *const *names)
{
	json_t *root = json_object(), *recs = json_array(), *diffs = json_array();
	json_t *cells = json_array();
	int rc = 0;

	if (root == NULL || recs == NULL || diffs == NULL || cells == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < c->nres; i++) {
		const struct bt_results *res = c->res[i];
		char L[2] = { bt_cmp_letter(i), '\0' }, when[32];

		bt_format_utc(res->start_unix_ns, when, sizeof(when));
		json_array_append_new(recs, json_pack("{s:s, s:o, s:o, s:s, s:o, s:s, s:i, s:i}",
			"name", L, "path", jstr(names && names[i] ? names[i] : ""),
			"workload", jstr(res->workload), "time", when, "host", jstr(res->machine.host),
			"status", status_of(res), "cells_done", bt_results_cells_done(res),
			"cells", res->ncells));
		if (i == 0)
			continue;
		json_array_append_new(diffs, json_pack("{s:s, s:s, s:o, s:o}", "base", "A", "other", L,
			"plan", jlines(c->plan_diff[i]), "machine", jlines(c->machine_diff[i])));
	}
	for (int r = 0; r < c->nrows; r++) {
		const struct bt_cmp_row *row = &c->rows[r];
		json_t *cell = json_object(), *cmps = json_array();

		if (cell == NULL || cmps == NULL) {
			json_decref(cell);
			json_decref(cmps);
			rc = -ENOMEM;
			goto out;
		}
		json_object_set_new(cell, "label", jstr(row->label));
		json_object_set_new(cell, "in_a", json_boolean(row->cell[0] >= 0));
		json_object_set_new(cell, "n_a", json_integer(row->n[0]));
		json_object_set_new(cell, "median_a", jnum(row->median[0]));
		json_object_set_new(cell, "p50_a_ns", jlat(row, 0, 0));
		json_object_set_new(cell, "p99_a_ns", jlat(row, 0, 1));
		for (int k = 1; k < c->nres; k++) {
			const struct bt_cmp_stat *st = &row->st[k];
			char L[2] = { bt_cmp_letter(k), '\0' }, text[64];
			json_t *o = json_object();

			if (o == NULL) {
				rc = -ENOMEM;
				break;
			}
			bt_cmp_verdict_text(c, row, k, text, sizeof(text));
			json_object_set_new(o, "other", json_string(L));
			json_object_set_new(o, "in_other", json_boolean(row->cell[k] >= 0));
			json_object_set_new(o, "n", json_integer(row->n[k]));
			json_object_set_new(o, "median", jnum(row->median[k]));
			json_object_set_new(o, "mean_a", jnum(st->mean_a));
			json_object_set_new(o, "mean", jnum(st->mean_k));
			json_object_set_new(o, "sd_a", jnum(st->sd_a));
			json_object_set_new(o, "sd", jnum(st->sd_k));
			json_object_set_new(o, "ratio", jnum(st->ratio));
			json_object_set_new(o, "ratio_means", jnum(st->ratio_means));
			json_object_set_new(o, "ci_lo", isinf(st->lo) ? json_string("-inf") : jnum(st->lo));
			json_object_set_new(o, "ci_hi", isinf(st->hi) ? json_string("inf") : jnum(st->hi));
			json_object_set_new(o, "t", isinf(st->t) ? json_string(st->t > 0 ? "inf" : "-inf")
							       : jnum(st->t));
			json_object_set_new(o, "dof", jnum(st->dof));
			json_object_set_new(o, "p", jnum(st->p));
			json_object_set_new(o, "verdict", json_string(verdict_key(st->verdict)));
			json_object_set_new(o, "verdict_text", jstr(text));
			json_object_set_new(o, "p50_ns", jlat(row, k, 0));
			json_object_set_new(o, "p99_ns", jlat(row, k, 1));
			if (c->nmetrics > 0)
				json_object_set_new(o, "metrics", jmetrics(c, row, k));
			json_array_append_new(cmps, o);
		}
		json_object_set_new(cell, "comparisons", cmps);
		json_array_append_new(cells, cell);
		if (rc < 0)
			goto out;
	}
	json_object_set_new(root, "unit", jstr(unit_of(c->res[0])));
	json_object_set_new(root, "test", json_string("welch-t, fieller 95% ci of the ratio of means"));
	json_object_set_new(root, "recordings", json_incref(recs));
	json_object_set_new(root, "differences", json_incref(diffs));
	json_object_set_new(root, "cells", json_incref(cells));
	if (json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) < 0 ||
	    fputc('\n', f) == EOF)
		rc = -EIO;
out:
	json_decref(recs);
	json_decref(diffs);
	json_decref(cells);
	json_decref(root);
	return rc;
}

int bt_cmp_write(FILE *f, const struct bt_cmp *c, const char *const *names, enum bt_format fmt)
{
	int rc;

	switch (fmt) {
	case BT_FMT_MARKDOWN:
		rc = write_text(f, c, names, 1);
		break;
	case BT_FMT_CSV:
		rc = write_csv(f, c);
		break;
	case BT_FMT_JSON:
		rc = write_json(f, c, names);
		break;
	default:
		rc = write_text(f, c, names, 0);
		break;
	}
	if (rc == 0 && ferror(f))
		rc = -EIO;
	return rc;
}
