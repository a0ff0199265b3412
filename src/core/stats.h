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

#endif
