/*
 * recorder.h - a worker's latency histogram that a reader can take interval
 * snapshots of without stopping the writer (HdrHistogram's interval recorder
 * with its writer/reader phaser, for one writer).
 *
 * The writer (one worker thread) records into the active histogram inside a
 * critical section marked by the phaser's epoch counters: two atomic
 * increments, no lock. The reader (the sampler, one thread) makes the other
 * histogram active, flips the phase and waits only until the writer has left
 * a critical section it entered before the flip; then the old histogram is
 * the reader's alone to merge and reset. Nobody ever resets a histogram
 * another thread is writing.
 */
#ifndef BT_ENGINES_RECORDER_H
#define BT_ENGINES_RECORDER_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/hist.h"

struct bt_recorder {
	_Alignas(64) _Atomic int64_t start_epoch;
	_Atomic int64_t even_end;
	_Atomic int64_t odd_end;
	_Atomic int active;		/* index of the histogram the writer uses */
	struct bt_hist *h[2];
};

/* 0 or -ENOMEM. */
int bt_recorder_init(struct bt_recorder *r);
void bt_recorder_destroy(struct bt_recorder *r);

/*
 * Initialize r over two empty histograms the caller owns (bt_hist_init_zeroed
 * in a region the engine maps, so that a forked writer and the reader see the
 * same ones). Do not call bt_recorder_destroy on such a recorder.
 */
void bt_recorder_init_with(struct bt_recorder *r, struct bt_hist *h0, struct bt_hist *h1);

/* Writer side: record one value (ns). Wait-free. */
static inline void bt_recorder_record(struct bt_recorder *r, uint64_t v)
{
	int64_t e = atomic_fetch_add_explicit(&r->start_epoch, 1, memory_order_seq_cst);

	bt_hist_record(r->h[atomic_load_explicit(&r->active, memory_order_seq_cst)], v);
	atomic_fetch_add_explicit(e < 0 ? &r->odd_end : &r->even_end, 1, memory_order_release);
}

/*
 * Reader side (one reader thread at a time): swap histograms, wait for the
 * writer to leave the old one, add it into dst (when dst is not NULL) and
 * reset it. Yields the CPU while waiting (the writer may be descheduled).
 */
void bt_recorder_take(struct bt_recorder *r, struct bt_hist *dst);

/*
 * bt_recorder_take for a writer that may die (a worker process killed inside
 * a record): while waiting, gone(arg) is asked now and then, and when it
 * says the writer no longer exists the wait ends. The histogram may then
 * hold a half-made record; the rep it belongs to has failed anyway.
 */
void bt_recorder_take_or(struct bt_recorder *r, struct bt_hist *dst, int (*gone)(void *arg),
			 void *arg);

#endif
