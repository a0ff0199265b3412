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
