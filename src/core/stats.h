/*
 * stats.h - statistics over repetitions.
 */
#ifndef BT_CORE_STATS_H
#define BT_CORE_STATS_H

struct bt_summary {
	int n;
	double min, median, max, mean;
	double stddev;	/* sample standard deviation (n - 1); 0 when n < 2 */
	double ci95;	/* half-width of the 95% confidence interval of the mean,
			 * Student's t with n - 1 degrees of freedom; 0 when n < 2 */
};

/* Summarize x[0..n-1] (x is not modified; n may be 0: all fields 0). */
void bt_stats_summarize(const double *x, int n, struct bt_summary *s);

/* Two-sided 95% quantile of Student's t with dof degrees of freedom (dof >= 1). */
double bt_stats_t95(int dof);

/*
 * Per-cell noise figures over the reps of one cell. None of them allocates
 * more than a copy of x; all leave x unchanged; all are pure (callable from
 * any thread). The runner and the tables use them to say, where the number
 * is, that a cell's reps did not agree.
 */

/* Coefficient of variation of s in %: 100 * stddev / |mean|; 0 when n < 2 or mean is 0. */
double bt_stats_cv(const struct bt_summary *s);

/*
 * The p-quantile (0 <= p <= 1) of x[0..n-1], n >= 1, by linear interpolation
 * between order statistics (Hyndman & Fan type 7, numpy's and R's default):
 * h = (n - 1) p, x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
 */
double bt_stats_quantile(const double *x, int n, double p);

/* Tukey's fences of one cell: which reps lie outside [q1 - k IQR, q3 + k IQR]. */
struct bt_outliers {
	double q1, q3;		/* quartiles (type 7) */
	double lo, hi;		/* the fences */
	int nlow, nhigh;	/* reps below lo, above hi */
};

/*
 * Mark the reps of x[0..n-1] outside Tukey's fences with factor k (1.5 is
 * Tukey's "outlier", 3 his "far out"): flag[i] (when flag is not NULL) is
 * -1 below, +1 above, 0 inside. Fewer than 4 reps have no quartiles worth
 * the name: no rep is marked (o's fields are 0). Returns the number marked.
 */
int bt_stats_outliers(const double *x, int n, double k, struct bt_outliers *o, signed char *flag);

/* Two groups of reps with a clear gap between them (see bt_stats_bimodal). */
struct bt_bimodal {
	int bimodal;		/* 1: the reps fall in two separate groups */
	int nlow, nhigh;	/* reps in the lower and the upper group */
	double low, high;	/* each group's median */
	double gap;		/* the widest gap between sorted neighbours */
};

/*
 * The bimodality flag of one cell. x is sorted (a copy); the widest gap
 * between neighbours splits it into a lower and an upper group. The cell is
 * bimodal when each group has at least 2 reps, the gap is more than twice
 * the wider group's range, and the gap is at least min_rel (e.g. 0.05) of
 * the median. Needs n >= 4 (else bimodal = 0 with the groups unset).
 * Returns b->bimodal.
 */
int bt_stats_bimodal(const double *x, int n, double min_rel, struct bt_bimodal *b);

#endif
