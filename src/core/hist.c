/*
 * hist.c - HDR-style latency histogram (see hist.h).
 *
 * Bucket layout, as in HdrHistogram with 2048 sub-buckets: index i < 2048
 * holds exactly the value i; above that, each further block of 1024 indexes
 * is one power of two (bucket b >= 1) whose sub-bucket s (1024..2047) holds
 * the values [s << b, (s + 1) << b).
 *
 * Everything that walks the counts walks only [index(min), index(max)]: the
 * sampler resets and merges per-worker histograms ten times a second, and a
 * histogram usually occupies a few hundred of its 33 792 slots.
 */
#include "core/hist.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Index of the highest trackable value: nothing is ever counted above it. */
#define LAST_INDEX() bt_hist_index(BT_HIST_HIGHEST)

/* Bucket (power of two) and sub-bucket of index i. */
static void index_split(unsigned i, unsigned *bucket, uint64_t *sub)
{
	if (i < 2 * BT_HIST_HALF) {
		*bucket = 0;
		*sub = i;
	} else {
		*bucket = (i >> BT_HIST_HALF_BITS) - 1;
		*sub = i - (*bucket << BT_HIST_HALF_BITS);
	}
}

uint64_t bt_hist_index_lowest(unsigned i)
{
	unsigned bucket;
	uint64_t sub;

	index_split(i, &bucket, &sub);
	return sub << bucket;
}

uint64_t bt_hist_index_highest(unsigned i)
{
	unsigned bucket;
	uint64_t sub;

	index_split(i, &bucket, &sub);
	return (sub << bucket) + ((uint64_t)1 << bucket) - 1;
}

/*
 * The occupied index range of h, [*lo, *hi]. Returns 0 when h holds nothing
 * (min > max: empty, or a fresh calloc'd struct that never recorded).
 */
static int occupied(const struct bt_hist *h, unsigned *lo, unsigned *hi)
{
	if (h->min > h->max || h->total == 0)
		return 0;
	*lo = bt_hist_index(h->min > BT_HIST_HIGHEST ? BT_HIST_HIGHEST : h->min);
	*hi = bt_hist_index(h->max > BT_HIST_HIGHEST ? BT_HIST_HIGHEST : h->max);
	return 1;
}

/* Clears only the occupied range, so the cost follows the data, not the 270 KiB. */
void bt_hist_reset(struct bt_hist *h)
{
	unsigned lo, hi;

	if (occupied(h, &lo, &hi))
		memset(&h->counts[lo], 0, (size_t)(hi - lo + 1) * sizeof(h->counts[0]));
	h->total = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	h->clamped = 0;
	h->sum = 0;
}

void bt_hist_init_zeroed(struct bt_hist *h)
{
	h->total = 0;
	h->max = 0;
	h->clamped = 0;
	h->sum = 0;
	h->min = UINT64_MAX;
}

/*
 * A histogram is 270 KiB of mostly zeros, and a run makes and frees a few
 * per rep. Mapped pages come zeroed, only the touched ones take memory, and
 * they go back to the system on free; from the heap (where glibc's moving
 * mmap threshold puts them after the first free) each one was zeroed whole
 * and its freed space fragmented the heap, so the resident set grew with
 * every rep of a long sweep.
 */
#if defined(__SANITIZE_ADDRESS__)
#define HIST_HEAP 1	/* ASan: from the heap, inside redzones, so overruns are caught */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HIST_HEAP 1
#endif
#endif

struct bt_hist *bt_hist_new(void)
{
#ifdef HIST_HEAP
	struct bt_hist *h = calloc(1, sizeof(*h));

	if (h == NULL)
		return NULL;
#else
	struct bt_hist *h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (h == MAP_FAILED)
		return NULL;
#endif
	h->min = UINT64_MAX;
	return h;
}

void bt_hist_free(struct bt_hist *h)
{
#ifdef HIST_HEAP
	free(h);
#else
	if (h != NULL)
		munmap(h, sizeof(*h));
#endif
}

/* Adds only src's occupied range. */
void bt_hist_add(struct bt_hist *dst, const struct bt_hist *src)
{
	unsigned lo, hi;

	if (!occupied(src, &lo, &hi))
		return;
	for (unsigned i = lo; i <= hi; i++)
		dst->counts[i] += src->counts[i];
	dst->total += src->total;
	dst->clamped += src->clamped;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

/*
 * Nearest rank of percentile p among total values: ceil(p/100 * total), at
 * least 1. The product is shrunk by a few ulps first so that a p whose
 * decimal form is exact (99.9 of 1000 values) is not pushed to the next rank
 * by binary rounding, as HdrHistogram does with its nextAfter.
 */
static uint64_t rank_of(double p, uint64_t total)
{
	double f = p / 100.0 * (double)total;
	uint64_t rank;

	f *= 1.0 - 4 * DBL_EPSILON;
	rank = (uint64_t)ceil(f);
	if (rank < 1)
		rank = 1;
	if (rank > total)
		rank = total;
	return rank;
}

uint64_t bt_hist_percentile(const struct bt_hist *h, double p)
{
	unsigned lo, hi;
	uint64_t rank, cum = 0;

	if (!occupied(h, &lo, &hi))
		return 0;
	if (!(p > 0))	/* also NaN */
		return h->min;
	if (p >= 100)
		return h->max;
	rank = rank_of(p, h->total);
	for (unsigned i = lo; i <= hi; i++) {
		cum += h->counts[i];
		if (cum >= rank)
			return clamp_u64(bt_hist_index_highest(i), h->min, h->max);
	}
	return h->max;
}

double bt_hist_mean(const struct bt_hist *h)
{
	if (h->total == 0)
		return 0;
	return h->sum / (double)h->total;
}

/*
 * Population standard deviation with each value taken at its bucket's
 * midpoint (HdrHistogram's median equivalent value), around the exact mean.
 */
double bt_hist_stddev(const struct bt_hist *h)
{
	unsigned lo, hi;
	double mean, acc = 0;

	if (!occupied(h, &lo, &hi))
		return 0;
	mean = bt_hist_mean(h);
	for (unsigned i = lo; i <= hi; i++) {
		uint64_t low, size;
		double d;

		if (h->counts[i] == 0)
			continue;
		low = bt_hist_index_lowest(i);
		size = bt_hist_index_highest(i) - low + 1;
		d = (double)(low + size / 2) - mean;
		acc += d * d * (double)h->counts[i];
	}
	return sqrt(acc / (double)h->total);
}

/*
 * The percentile distribution exactly as HdrHistogram's
 * outputPercentileDistribution (HistogramLogProcessor) prints it, and with
 * its percentile iterator: the reporting level starts at 0 and advances in
 * steps of 100 / (ticks * 2^(floor(log2(100 / (100 - level))) + 1)), so each
 * halving of the distance to 100% gets `ticks` rows; a row is printed at the
 * first non-empty bucket whose cumulative percentage reaches the level; once
 * all values are seen a last row at percentile 1.0 follows. One difference:
 * row values are clamped to the exact [min, max] like bt_hist_percentile, so
 * the file and benchtop's tables agree (HdrHistogram does not keep exact
 * extremes and prints bucket upper edges).
 */
int bt_hist_write_hgrm(const struct bt_hist *h, FILE *f, double unit_ns, int ticks)
{
	unsigned lo, hi, last = 0;
	uint64_t cum = 0;
	double level = 0.0;

	if (ticks < 1 || !(unit_ns > 0))
		return -EINVAL;
	if (fprintf(f, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
		    "1/(1-Percentile)") < 0)
		return -EIO;
	if (occupied(h, &lo, &hi)) {
		for (unsigned i = lo; i <= hi && cum < h->total; i++) {
			double value;

			if (h->counts[i] == 0)
				continue;
			cum += h->counts[i];
			last = i;
			value = (double)clamp_u64(bt_hist_index_highest(i), h->min, h->max) / unit_ns;
			while (100.0 * (double)cum / (double)h->total >= level) {
				double step;

				if (fprintf(f, "%12.3f %2.12f %10" PRIu64 " %14.2f\n", value,
					    level / 100.0, cum, 1.0 / (1.0 - level / 100.0)) < 0)
					return -EIO;
				step = 100.0 / ((double)ticks *
						pow(2.0, floor(log(100.0 / (100.0 - level)) / log(2.0)) + 1.0));
				if (cum >= h->total)
					break;
				/*
				 * With a huge total, cum/total rounds to 1.0 while
				 * cum < total, and the step shrinks below what a
				 * double near 100 can add: the level no longer moves.
				 * Past that point no level is left to report; the
				 * closing 1.0 row follows.
				 */
				if (!(level + step > level) || level + step >= 100.0) {
					level = INFINITY;
					break;
				}
				level += step;
			}
		}
		if (fprintf(f, "%12.3f %2.12f %10" PRIu64 "\n",
			    (double)clamp_u64(bt_hist_index_highest(last), h->min, h->max) / unit_ns,
			    1.0, cum) < 0)
			return -EIO;
	}
	if (fprintf(f, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n",
		    bt_hist_mean(h) / unit_ns, bt_hist_stddev(h) / unit_ns) < 0 ||
	    fprintf(f, "#[Max     = %12.3f, Total count    = %12" PRIu64 "]\n",
		    (double)h->max / unit_ns, h->total) < 0 ||
	    fprintf(f, "#[Buckets = %12d, SubBuckets     = %12d]\n",
		    BT_HIST_BUCKETS, 2 * BT_HIST_HALF) < 0)
		return -EIO;
	return 0;
}

size_t bt_hist_sparse(const struct bt_hist *h, uint32_t *idx, uint64_t *cnt, size_t cap)
{
	unsigned lo, hi;
	size_t n = 0;

	if (!occupied(h, &lo, &hi))
		return 0;
	for (unsigned i = lo; i <= hi; i++) {
		if (h->counts[i] == 0)
			continue;
		if (n < cap) {
			idx[n] = i;
			cnt[n] = h->counts[i];
		}
		n++;
	}
	return n;
}

/*
 * Validates every index before touching h, so h is unchanged on -EINVAL.
 * min and max are kept as given when they fall in the lowest and highest
 * non-zero bucket; otherwise (a damaged or hand-made list) they are taken
 * from the buckets, because reset and add rely on [min, max] covering every
 * non-zero count.
 */
int bt_hist_set_sparse(struct bt_hist *h, const uint32_t *idx, const uint64_t *cnt, size_t n,
		       uint64_t min, uint64_t max, double sum)
{
	unsigned lo = UINT32_MAX, hi = 0;

	for (size_t k = 0; k < n; k++) {
		if (idx[k] > LAST_INDEX())
			return -EINVAL;
		if (cnt[k] == 0)
			continue;
		if (idx[k] < lo)
			lo = idx[k];
		if (idx[k] > hi)
			hi = idx[k];
	}
	bt_hist_reset(h);
	if (lo > hi)
		return 0;
	for (size_t k = 0; k < n; k++) {
		h->counts[idx[k]] += cnt[k];
		h->total += cnt[k];
	}
	if (min > BT_HIST_HIGHEST || bt_hist_index(min) != lo)
		min = bt_hist_index_lowest(lo);
	if (max > BT_HIST_HIGHEST || bt_hist_index(max) != hi)
		max = bt_hist_index_highest(hi) > BT_HIST_HIGHEST ? BT_HIST_HIGHEST :
		      bt_hist_index_highest(hi);
	h->min = min;
	h->max = max;
	h->sum = sum;
	return 0;
}
