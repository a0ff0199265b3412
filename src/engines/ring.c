/*
 * ring.c - Dmitry Vyukov's bounded MPMC queue.
 *
 * Each slot carries a sequence number: slot i is free for the push at
 * position pos when seq == pos, and holds the item for the pop at position
 * pos when seq == pos + 1. A push or pop claims its position with one CAS on
 * tail or head; the slot's seq (release/acquire) publishes the item.
 */
#include "engines/ring.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int bt_ring_init(struct bt_ring *r, size_t capacity)
{
	size_t cap = 2;

	while (cap < capacity) {
		if (cap > SIZE_MAX / 2 / sizeof(*r->slots))
			return -ENOMEM;
		cap <<= 1;
	}
	r->slots = malloc(cap * sizeof(*r->slots));
	if (r->slots == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < cap; i++) {
		atomic_init(&r->slots[i].seq, i);
		r->slots[i].item = NULL;
	}
	r->mask = cap - 1;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	return 0;
}

void bt_ring_destroy(struct bt_ring *r)
{
	free(r->slots);
	r->slots = NULL;
}

int bt_ring_push(struct bt_ring *r, void *item)
{
	size_t pos = atomic_load_explicit(&r->tail, memory_order_relaxed);
	struct bt_ring_slot *s;

	for (;;) {
		size_t seq;
		intptr_t dif;

		s = &r->slots[pos & r->mask];
		seq = atomic_load_explicit(&s->seq, memory_order_acquire);
		dif = (intptr_t)seq - (intptr_t)pos;
		if (dif == 0) {
			if (atomic_compare_exchange_weak_explicit(&r->tail, &pos, pos + 1,
								  memory_order_relaxed,
								  memory_order_relaxed))
				break;
		} else if (dif < 0) {
			return -EAGAIN;	/* the slot still holds the item of a lap ago */
		} else {
			pos = atomic_load_explicit(&r->tail, memory_order_relaxed);
		}
	}
	s->item = item;
	atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
	return 0;
}

int bt_ring_pop(struct bt_ring *r, void **item)
{
	size_t pos = atomic_load_explicit(&r->head, memory_order_relaxed);
	struct bt_ring_slot *s;

	for (;;) {
		size_t seq;
		intptr_t dif;

		s = &r->slots[pos & r->mask];
		seq = atomic_load_explicit(&s->seq, memory_order_acquire);
		dif = (intptr_t)seq - (intptr_t)(pos + 1);
		if (dif == 0) {
			if (atomic_compare_exchange_weak_explicit(&r->head, &pos, pos + 1,
								  memory_order_relaxed,
								  memory_order_relaxed))
				break;
		} else if (dif < 0) {
			return -EAGAIN;	/* nothing pushed at this position yet */
		} else {
			pos = atomic_load_explicit(&r->head, memory_order_relaxed);
		}
	}
	*item = s->item;
	atomic_store_explicit(&s->seq, pos + r->mask + 1, memory_order_release);
	return 0;
}
