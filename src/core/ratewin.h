/*
 * ratewin.h - the rate over fixed windows of a rep's samples: httperf's
 * "reply rate [replies/s]: min avg max stddev (N samples)".
 *
 * httperf takes a rate sample every 5 s; benchtop's sampler already keeps a
 * series of ops/s, one per sample= interval (default 100 ms), that the live
 * chart draws and the recording holds. The runner summarizes exactly that
 * series (window = the sample interval), so the figures can be recomputed
 * from a recording's sample lines, and sample=5s gives httperf's windows.
 */
#ifndef BT_CORE_RATEWIN_H
#define BT_CORE_RATEWIN_H

#include "core/results.h"

/*
 * Group the samples s[0..n-1] of one rep (in order; those of another cell or
 * rep than s[0]'s are skipped) into consecutive windows of whole samples:
 * a window closes once its samples' dt add up to window_s less half a
 * sample interval (sample_s), so that sampler jitter neither splits nor
 * merges windows. Each window's rate is its ops (from the cumulative
 * s->ops) over its time; a trailing window shorter than that (the rep's
 * last, partial interval) is left out, as httperf leaves out a partial
 * sample. out: n windows, min / mean / max and the sample standard
 * deviation (n - 1; 0 for one window) of the rates; all 0 when n is 0.
 * sample_s <= 0 takes window_s; window_s <= 0 gives no windows.
 */
void bt_rate_windows(const struct bt_sample *s, int n, double window_s, double sample_s,
		     struct bt_rate_stats *out);

#endif
