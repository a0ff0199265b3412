/*
 * ratewin.c - rate statistics over windows of a rep's samples (ratewin.h).
 */
#include "core/ratewin.h"

#include <math.h>
#include <string.h>

void bt_rate_windows(const struct bt_sample *s, int n, double window_s, double sample_s,
		     struct bt_rate_stats *out)
{
	double acc_t = 0, sum = 0, mean = 0, m2 = 0;
	uint64_t ops0 = 0;
	int cell = n > 0 ? s[0].cell : 0, rep = n > 0 ? s[0].rep : 0;

	memset(out, 0, sizeof(*out));
	out->window_s = window_s;
	if (!(window_s > 0))
		return;
	if (!(sample_s > 0))
		sample_s = window_s;
	for (int i = 0; i < n; i++) {
		double r, d;

		if (s[i].cell != cell || s[i].rep != rep || !(s[i].dt > 0))
			continue;
		acc_t += s[i].dt;
		if (acc_t < window_s - sample_s / 2)
			continue;
		/* A window: the ops since the last one closed, over its time. */
		r = (double)(s[i].ops - ops0) / acc_t;
		ops0 = s[i].ops;
		acc_t = 0;
		if (out->n == 0 || r < out->min)
			out->min = r;
		if (out->n == 0 || r > out->max)
			out->max = r;
		sum += r;
		out->n++;
		/* Welford's update: the spread without the cancellation of sum of squares. */
		d = r - mean;
		mean += d / out->n;
		m2 += d * (r - mean);
	}
	if (out->n == 0)
		return;
	out->avg = sum / out->n;
	out->sd = out->n > 1 && m2 > 0 ? sqrt(m2 / (out->n - 1)) : 0;
}
