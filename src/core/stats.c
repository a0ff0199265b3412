/*
 * stats.c - statistics over repetitions (see stats.h).
 */
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Two-sided 95% quantiles of Student's t, dof 1..30 (t[0] is dof 1). */
static const double t95_small[30] = {
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

/* Beyond 30: the classic table rows, then the normal quantile at infinity. */
static const struct {
	int dof;
	double t;
} t95_large[] = {
	{ 30, 2.042 }, { 40, 2.021 }, { 60, 2.000 }, { 120, 1.980 },
};

#define T95_INF 1.960

/*
 * Above 30 degrees of freedom, t is interpolated linearly in 1/dof between
 * the table rows (and 1/dof = 0 for infinity), which is how printed tables
 * are meant to be read and is within 0.001 of the exact quantile.
 */
double bt_stats_t95(int dof)
{
	const int nlarge = (int)(sizeof(t95_large) / sizeof(t95_large[0]));

	if (dof < 1)
		dof = 1;
	if (dof <= 30)
		return t95_small[dof - 1];
	for (int k = 0; k + 1 < nlarge; k++) {
		if (dof <= t95_large[k + 1].dof) {
			double x0 = 1.0 / t95_large[k].dof, x1 = 1.0 / t95_large[k + 1].dof;
			double x = 1.0 / dof;

			return t95_large[k].t + (t95_large[k + 1].t - t95_large[k].t) * (x0 - x) / (x0 - x1);
		}
	}
	/* Between the last row and infinity (x = 0). */
	return T95_INF + (t95_large[nlarge - 1].t - T95_INF) * t95_large[nlarge - 1].dof / (double)dof;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The k-th smallest of x (0-based) without allocating: O(n^2), the fallback when malloc fails. */
static double kth_smallest(const double *x, int n, int k)
{
	for (int i = 0; i < n; i++) {
		int less = 0, leq = 0;

		for (int j = 0; j < n; j++) {
			less += x[j] < x[i];
			leq += x[j] <= x[i];
		}
		if (less <= k && k < leq)
			return x[i];
	}
	return x[k];
}

/* Median of x[0..n-1], n >= 1: the middle value, or the mean of the two middle ones. */
static double median(const double *x, int n)
{
	double *s = malloc((size_t)n * sizeof(*s));
	double m;

	if (s == NULL) {
		m = kth_smallest(x, n, n / 2);
		if (n % 2 == 0)
			m = (m + kth_smallest(x, n, n / 2 - 1)) / 2;
		return m;
	}
	memcpy(s, x, (size_t)n * sizeof(*s));
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

void bt_stats_summarize(const double *x, int n, struct bt_summary *s)
{
	double sum = 0, acc = 0;

	memset(s, 0, sizeof(*s));
	if (n <= 0)
		return;
	s->n = n;
	s->min = s->max = x[0];
	for (int i = 0; i < n; i++) {
		sum += x[i];
		if (x[i] < s->min)
			s->min = x[i];
		if (x[i] > s->max)
			s->max = x[i];
	}
	s->mean = sum / n;
	s->median = median(x, n);
	if (n < 2)
		return;
	/* Two passes: the sum of squared deviations, not sum(x^2) - n*mean^2, which cancels. */
	for (int i = 0; i < n; i++)
		acc += (x[i] - s->mean) * (x[i] - s->mean);
	s->stddev = sqrt(acc / (n - 1));
	s->ci95 = bt_stats_t95(n - 1) * s->stddev / sqrt((double)n);
}

double bt_stats_cv(const struct bt_summary *s)
{
	if (s->n < 2 || s->mean == 0)
		return 0;
	return 100.0 * s->stddev / fabs(s->mean);
}

/* Quantile p of sorted s[0..n-1] (type 7). */
static double sorted_quantile(const double *s, int n, double p)
{
	double h, f;
	int i;

	if (p <= 0)
		return s[0];
	if (p >= 1)
		return s[n - 1];
	h = (n - 1) * p;
	i = (int)h;
	f = h - i;
	return i + 1 < n ? s[i] + f * (s[i + 1] - s[i]) : s[i];
}

/* A sorted copy of x, or NULL (n < 1 or out of memory). */
static double *sorted_copy(const double *x, int n)
{
	double *s;

	if (n < 1 || (s = malloc((size_t)n * sizeof(*s))) == NULL)
		return NULL;
	memcpy(s, x, (size_t)n * sizeof(*s));
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	return s;
}

double bt_stats_quantile(const double *x, int n, double p)
{
	double *s = sorted_copy(x, n), q;

	if (s == NULL)
		return n >= 1 ? kth_smallest(x, n, (int)((n - 1) * (p < 0 ? 0 : p > 1 ? 1 : p) + 0.5)) : 0;
	q = sorted_quantile(s, n, p);
	free(s);
	return q;
}

int bt_stats_outliers(const double *x, int n, double k, struct bt_outliers *o, signed char *flag)
{
	double *s;
	int count = 0;

	memset(o, 0, sizeof(*o));
	for (int i = 0; flag != NULL && i < n; i++)
		flag[i] = 0;
	if (n < 4 || (s = sorted_copy(x, n)) == NULL)
		return 0;
	o->q1 = sorted_quantile(s, n, 0.25);
	o->q3 = sorted_quantile(s, n, 0.75);
	free(s);
	o->lo = o->q1 - k * (o->q3 - o->q1);
	o->hi = o->q3 + k * (o->q3 - o->q1);
	for (int i = 0; i < n; i++) {
		int f = x[i] < o->lo ? -1 : x[i] > o->hi ? 1 : 0;

		o->nlow += f < 0;
		o->nhigh += f > 0;
		count += f != 0;
		if (flag != NULL)
			flag[i] = (signed char)f;
	}
	return count;
}

/*
 * Why a gap test and not Sarle's bimodality coefficient (skewness^2 + 1 over
 * kurtosis, flagged above 5/9): a cell has 3 to 10 reps, where skewness and
 * kurtosis estimates swing wildly, and the coefficient fires on one far
 * outlier (high skew) as readily as on two modes - but one outlier is what
 * Tukey's fences already say. A contended lock that settles into one of two
 * states from run to run gives two tight groups far apart: that is exactly
 * what the widest gap between sorted reps shows, with small n, and it tells
 * where the two levels are. Requiring 2 reps a side keeps one outlier out;
 * the relative floor keeps tight cells (1 % apart) from being called bimodal
 * over noise in the last digits.
 */
int bt_stats_bimodal(const double *x, int n, double min_rel, struct bt_bimodal *b)
{
	double *s, spread_lo, spread_hi, med;
	int split = -1;

	memset(b, 0, sizeof(*b));
	if (n < 4 || (s = sorted_copy(x, n)) == NULL)
		return 0;
	/* The widest gap that leaves at least 2 reps on each side (the first, on ties). */
	for (int i = 2; i <= n - 2; i++)
		if (split < 0 || s[i] - s[i - 1] > b->gap) {
			b->gap = s[i] - s[i - 1];
			split = i;
		}
	b->nlow = split;
	b->nhigh = n - split;
	b->low = sorted_quantile(s, split, 0.5);
	b->high = sorted_quantile(s + split, n - split, 0.5);
	spread_lo = s[split - 1] - s[0];
	spread_hi = s[n - 1] - s[split];
	med = fabs(sorted_quantile(s, n, 0.5));
	b->bimodal = b->gap > 0 && b->gap > 2 * (spread_lo > spread_hi ? spread_lo : spread_hi) &&
		     b->gap >= min_rel * med;
	free(s);
	return b->bimodal;
}
