#include "engines/recorder.h"

#include <errno.h>
#include <sched.h>

int bt_recorder_init(struct bt_recorder *r)
{
	atomic_init(&r->start_epoch, 0);
	atomic_init(&r->even_end, 0);
	atomic_init(&r->odd_end, INT64_MIN);
	atomic_init(&r->active, 0);
	r->h[0] = bt_hist_new();
	r->h[1] = bt_hist_new();
	if (r->h[0] == NULL || r->h[1] == NULL) {
		bt_recorder_destroy(r);
		return -ENOMEM;
	}
	return 0;
}

void bt_recorder_init_with(struct bt_recorder *r, struct bt_hist *h0, struct bt_hist *h1)
{
	atomic_init(&r->start_epoch, 0);
	atomic_init(&r->even_end, 0);
	atomic_init(&r->odd_end, INT64_MIN);
	atomic_init(&r->active, 0);
	r->h[0] = h0;
	r->h[1] = h1;
}

void bt_recorder_destroy(struct bt_recorder *r)
{
	bt_hist_free(r->h[0]);
	bt_hist_free(r->h[1]);
	r->h[0] = r->h[1] = NULL;
}

/*
 * The reader half of HdrHistogram's writer/reader phaser. After making the
 * spare histogram active, flip the phase: the epoch counter restarts at the
 * other phase's origin and we learn how many writers entered the old phase;
 * once as many have left, no writer can still be inside the old histogram.
 */
void bt_recorder_take(struct bt_recorder *r, struct bt_hist *dst)
{
	bt_recorder_take_or(r, dst, NULL, NULL);
}

void bt_recorder_take_or(struct bt_recorder *r, struct bt_hist *dst, int (*gone)(void *arg),
			 void *arg)
{
	unsigned polls = 0;
	int old = atomic_load_explicit(&r->active, memory_order_seq_cst);
	int64_t start, at_flip, origin;
	_Atomic int64_t *ended;

	atomic_store_explicit(&r->active, !old, memory_order_seq_cst);

	start = atomic_load_explicit(&r->start_epoch, memory_order_seq_cst);
	if (start >= 0) {			/* even phase ends: next is odd */
		origin = INT64_MIN;
		atomic_store_explicit(&r->odd_end, INT64_MIN, memory_order_seq_cst);
		ended = &r->even_end;
	} else {
		origin = 0;
		atomic_store_explicit(&r->even_end, 0, memory_order_seq_cst);
		ended = &r->odd_end;
	}
	at_flip = atomic_exchange_explicit(&r->start_epoch, origin, memory_order_seq_cst);
	while (atomic_load_explicit(ended, memory_order_acquire) != at_flip) {
		if (gone != NULL && (++polls & 1023) == 0 && gone(arg))
			break;
		sched_yield();
	}

	if (dst != NULL)
		bt_hist_add(dst, r->h[old]);
	bt_hist_reset(r->h[old]);
}
