/*
 * ring.h - bounded lock-free MPMC ring of pointers (Vyukov's bounded queue),
 * the reference point beyond the lock-based sync models. Capacity is a power
 * of two. Push and pop never block: they return -EAGAIN when full / empty;
 * callers decide how to back off.
 */
#ifndef BT_ENGINES_RING_H
#define BT_ENGINES_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct bt_ring_slot {
	_Atomic size_t seq;
	void *item;
};

struct bt_ring {
	_Alignas(64) _Atomic size_t head;	/* next pop */
	_Alignas(64) _Atomic size_t tail;	/* next push */
	_Alignas(64) size_t mask;
	struct bt_ring_slot *slots;
};

/* capacity is rounded up to a power of two (>= 2). 0 or -ENOMEM. */
int bt_ring_init(struct bt_ring *r, size_t capacity);
void bt_ring_destroy(struct bt_ring *r);
int bt_ring_push(struct bt_ring *r, void *item);	/* 0 or -EAGAIN (full) */
int bt_ring_pop(struct bt_ring *r, void **item);	/* 0 or -EAGAIN (empty) */

#endif
