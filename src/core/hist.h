/*
 * hist.h - HDR-style latency histogram.
 *
 * Log-linear buckets as in HdrHistogram: values are nanoseconds, tracked from
 * 1 ns to 1 hour at 3 significant decimal digits (2048 sub-buckets per power
 * of two). Memory is fixed (struct bt_hist is one flat array), recording is
 * O(1) and allocation-free, two histograms merge by adding counts.
 *
 * A bt_hist is single-writer: it has no atomics and no locks. Cross-thread
 * use goes through engines/recorder.h, which swaps histograms under a phaser.
 * The caller owns the memory (struct is about 270 KiB: allocate it, do not
 * put it on a small stack).
 */
#ifndef BT_CORE_HIST_H
#define BT_CORE_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BT_HIST_SIGFIGS 3
#define BT_HIST_SUB_BITS 11			/* 2048 sub-buckets: 3 significant digits */
#define BT_HIST_HALF_BITS (BT_HIST_SUB_BITS - 1)
#define BT_HIST_SUB_MASK ((uint64_t)(1u << BT_HIST_SUB_BITS) - 1)
#define BT_HIST_HALF (1u << BT_HIST_HALF_BITS)	/* 1024 */
#define BT_HIST_HIGHEST 3600000000000ull	/* 1 h in ns: highest trackable value */
#define BT_HIST_BUCKETS 32			/* 2048 << 31 > 1 h */
#define BT_HIST_LEN ((BT_HIST_BUCKETS + 1) * BT_HIST_HALF)

struct bt_hist {
	uint64_t total;		/* number of recorded values */
	uint64_t min;		/* exact smallest value recorded (UINT64_MAX when empty) */
	uint64_t max;		/* exact largest value recorded (after clamping) */
	uint64_t clamped;	/* values above BT_HIST_HIGHEST, recorded as BT_HIST_HIGHEST */
	double sum;		/* exact-ish sum of values, for the mean */
	uint64_t counts[BT_HIST_LEN];
};

/* Index of the bucket that holds v (v already clamped to BT_HIST_HIGHEST). */
static inline unsigned bt_hist_index(uint64_t v)
{
	unsigned bucket = 64u - (unsigned)__builtin_clzll(v | BT_HIST_SUB_MASK) - BT_HIST_SUB_BITS;
	unsigned sub = (unsigned)(v >> bucket);

	return ((bucket + 1u) << BT_HIST_HALF_BITS) + sub - BT_HIST_HALF;
}

/* Record one value in ns. O(1), no allocation, single writer. */
static inline void bt_hist_record(struct bt_hist *h, uint64_t v)
{
	if (v > BT_HIST_HIGHEST) {
		v = BT_HIST_HIGHEST;
		h->clamped++;
	}
	h->counts[bt_hist_index(v)]++;
	h->total++;
	h->sum += (double)v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* Make h empty. */
void bt_hist_reset(struct bt_hist *h);

/*
 * Make caller memory an empty histogram, for histograms that must live in a
 * region the caller maps (a MAP_SHARED one that forked workers write). The
 * counts must already be zero: fresh anonymous mappings and calloc'd memory
 * are, so the 270 KiB are not touched here. Not to be freed with bt_hist_free.
 */
void bt_hist_init_zeroed(struct bt_hist *h);

/* Allocate an empty histogram (NULL on out of memory); free with bt_hist_free. */
struct bt_hist *bt_hist_new(void);
void bt_hist_free(struct bt_hist *h);

/* dst += src. */
void bt_hist_add(struct bt_hist *dst, const struct bt_hist *src);

/* Lowest and highest value that fall in the same bucket as the bucket at index i. */
uint64_t bt_hist_index_lowest(unsigned i);
uint64_t bt_hist_index_highest(unsigned i);

/*
 * Value at percentile p (0..100), HdrHistogram's definition: the smallest
 * recorded bucket whose cumulative count reaches ceil(p/100 * total) (at least
 * 1), reported as the highest value equivalent to that bucket, but never above
 * the exact max nor below the exact min. Values under 2048 ns are exact.
 * Returns 0 for an empty histogram.
 */
uint64_t bt_hist_percentile(const struct bt_hist *h, double p);

/* Mean (exact) and standard deviation (from bucket midpoints); 0 when empty. */
double bt_hist_mean(const struct bt_hist *h);
double bt_hist_stddev(const struct bt_hist *h);

/*
 * Write HdrHistogram's percentile-distribution text format (.hgrm) as
 * HistogramLogProcessor / the online plotter read it. Values are divided by
 * unit_ns (1000.0 writes microseconds). ticks is the number of reporting
 * points per half distance (HdrHistogram uses 5). Returns 0 or -errno.
 */
int bt_hist_write_hgrm(const struct bt_hist *h, FILE *f, double unit_ns, int ticks);

/*
 * Sparse form for recordings: fill idx/cnt with the non-zero buckets, at most
 * cap of them; returns how many non-zero buckets there are (may exceed cap).
 * bt_hist_set_sparse rebuilds counts, total, min, max, sum from such a list
 * (min/max/sum as given, since buckets lose them; a min or max outside the
 * lowest or highest non-zero bucket is replaced by that bucket's edge;
 * clamped is 0); returns -EINVAL on an index above bt_hist_index(1 h),
 * leaving h unchanged.
 */
size_t bt_hist_sparse(const struct bt_hist *h, uint32_t *idx, uint64_t *cnt, size_t cap);
int bt_hist_set_sparse(struct bt_hist *h, const uint32_t *idx, const uint64_t *cnt, size_t n,
		       uint64_t min, uint64_t max, double sum);

#endif
