/*
 * compare.h - compare recordings cell by cell, and the statistics behind it.
 *
 * Recording A is the base; every other recording (B, C, ...) is compared
 * with it. Cells are matched by their label (the axis values, "threads=4
 * notify=signal"); a cell found in only some recordings is kept as a row and
 * said to be missing, never dropped. For each matched cell and each other
 * recording K:
 *
 *   - the headline is the ratio of the median throughputs K/A (ops/s of the
 *     counted reps, as in the results table);
 *   - the test is Welch's t-test on the per-rep throughputs (reps are few and
 *     their variances need not be equal), with Welch-Satterthwaite degrees of
 *     freedom and a two-sided p-value from the regularized incomplete beta;
 *   - the 95% confidence interval of the ratio of the mean throughputs comes
 *     from Fieller's theorem with the same t quantile and degrees of freedom,
 *     so the interval contains 1.0 exactly when the t-test does not reject
 *     at 5%: "within noise";
 *   - with fewer than 2 counted reps on a side there is no test ("n<2").
 *
 * Typed metrics (matched by name) are compared the same way, per cell, on
 * the per-rep values that exist (a ratio with den 0 has none); their
 * verdicts read "higher" / "lower" rather than faster / slower.
 *
 * Everything here is deterministic (no resampling) and pure: the structures
 * are built from struct bt_results and can be drawn by any face. Only
 * bt_cmp_write prints, to the FILE it is given.
 */
#ifndef BT_REPORT_COMPARE_H
#define BT_REPORT_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "report/report.h"
#include "core/results.h"

#define BT_CMP_MAX 8		/* recordings in one comparison: A and up to 7 others */

/* ---- statistics ------------------------------------------------------- */

/* Regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1. */
double bt_cmp_betainc(double a, double b, double x);

/* Two-sided tail of Student's t: P(|T| >= |t|) with dof > 0 (non-integer allowed). */
double bt_cmp_t_p2(double t, double dof);

/*
 * The t value whose two-sided tail is alpha: P(|T| >= t) = alpha, for
 * 0 < alpha < 1 and dof > 0 (non-integer allowed). alpha = 0.05 gives the
 * 97.5% quantile used for 95% intervals (12.706... at dof 1).
 */
double bt_cmp_t_quantile(double alpha, double dof);

enum bt_cmp_verdict {
	BT_CMP_NOISE,		/* the 95% CI of the ratio contains 1 */
	BT_CMP_FASTER,		/* K's throughput is higher beyond noise */
	BT_CMP_SLOWER,		/* K's throughput is lower beyond noise */
	BT_CMP_NOTEST,		/* fewer than 2 counted reps on a side */
	BT_CMP_NODATA,		/* the cell is in both, a side has no counted rep */
	BT_CMP_ONLY_A,		/* the cell is in A, not in K */
	BT_CMP_ONLY_K,		/* the cell is in K, not in A */
	BT_CMP_ABSENT,		/* in neither A nor K (only in a third recording) */
};

/* K compared with A on one cell. NAN marks a value that does not exist. */
struct bt_cmp_stat {
	int na, nk;			/* counted reps */
	double median_a, median_k;
	double mean_a, mean_k;
	double sd_a, sd_k;		/* sample standard deviations (n - 1) */
	double ratio;			/* median_k / median_a */
	double ratio_means;		/* mean_k / mean_a */
	double t, dof, p;		/* Welch: (mean_k - mean_a) / se, Welch-Satterthwaite dof, two-sided p */
	double tq;			/* the t quantile the interval used (alpha 0.05, dof) */
	double lo, hi;			/* 95% CI of mean_k / mean_a (Fieller); -INF/INF: unbounded */
	enum bt_cmp_verdict verdict;
};

/*
 * Compare the samples k[0..nk-1] with a[0..na-1] (per-rep throughputs) as
 * described above, filling every field of st (verdict NODATA when a side is
 * empty, NOTEST when a side has one value). With no spread at all on either
 * side the interval is the point ratio_means, and any difference counts.
 */
void bt_cmp_samples(const double *a, int na, const double *k, int nk, struct bt_cmp_stat *st);

/* ---- recordings ------------------------------------------------------- */

/* One row: a cell label and where it is in each recording. */
struct bt_cmp_row {
	char label[256];
	int cell[BT_CMP_MAX];		/* cell index in recording i, -1 when absent */
	int has_lat[BT_CMP_MAX];	/* 1: the cell has a merged latency histogram with values */
	uint64_t p50[BT_CMP_MAX], p99[BT_CMP_MAX];	/* ns, of the merged histogram */
	double median[BT_CMP_MAX];	/* median ops/s in recording i; NAN when no rep */
	int n[BT_CMP_MAX];		/* counted reps in recording i */
	struct bt_cmp_stat st[BT_CMP_MAX];	/* st[i] for i >= 1: recording i vs A; st[0] unused */
	/*
	 * Typed metrics (bt_cmp.metrics order): the per-rep values of the
	 * counted reps compared like throughput (median ratio, Welch, Fieller).
	 */
	double mmedian[BT_RES_METRICS][BT_CMP_MAX];	/* NAN when no rep has a value */
	struct bt_cmp_stat mst[BT_RES_METRICS][BT_CMP_MAX];	/* [m][i], i >= 1 */
};

struct bt_cmp {
	int nres;
	const struct bt_results *res[BT_CMP_MAX];	/* borrowed: must outlive the comparison */
	int nrows;
	struct bt_cmp_row *rows;	/* owned: A's cells in order, then cells new in B, C, ... */
	int nmetrics;			/* A's metrics, then those only in B, C, ... (by name) */
	struct bt_metric_info metrics[BT_RES_METRICS];
	int midx[BT_CMP_MAX][BT_RES_METRICS];	/* metric m's index in recording i, -1 absent */
	char *machine_diff[BT_CMP_MAX];	/* owned, [i] for i >= 1: bt_sysinfo_diff(A, i) lines, "" when same */
	int nmachine_diff[BT_CMP_MAX];
	char *plan_diff[BT_CMP_MAX];	/* owned, [i] for i >= 1: "key: a -> b" lines, "" when same */
	int nplan_diff[BT_CMP_MAX];
};

/*
 * Build the comparison of res[1..n-1] with res[0] (2 <= n <= BT_CMP_MAX).
 * The results are borrowed. 0, -EINVAL (bad n), -ENOMEM. Free with
 * bt_cmp_destroy (also after a failure).
 */
int bt_cmp_build(struct bt_cmp *c, const struct bt_results *const *res, int n);
void bt_cmp_destroy(struct bt_cmp *c);

/*
 * The plan differences of two recordings as "key: a -> b" lines joined by
 * '\n' (workload, then each parameter of a's plan in order, then those only
 * in b's), values as compact JSON ("[1,2]", "\"mutex\"", "(absent)").
 * Returns the number of differences, or -ENOMEM; buf is malloc'd (caller
 * frees), "" when the plans agree.
 */
int bt_cmp_plan_diff(const struct bt_results *a, const struct bt_results *b, char **buf);

/* Letter of recording i in messages: 'A', 'B', ... */
static inline char bt_cmp_letter(int i)
{
	return (char)('A' + i);
}

/*
 * The verdict as a person reads it: "within noise", "faster", "slower",
 * "n<2: no test", "no reps in B", "only in A", "only in C", "-".
 * k is the recording the stat compares with A.
 */
void bt_cmp_verdict_text(const struct bt_cmp *c, const struct bt_cmp_row *row, int k, char *buf,
			 size_t n);

/*
 * Write the comparison: text and Markdown (the recordings, their plan and
 * machine differences, then the table), CSV (one row per cell and other
 * recording, every number) or JSON. names[i] is how recording i is called
 * (its path). 0 or -errno.
 */
int bt_cmp_write(FILE *f, const struct bt_cmp *c, const char *const *names, enum bt_format fmt);

#endif
