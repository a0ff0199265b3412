/*
 * test_ring.c - the bounded MPMC ring: FIFO on one thread, -EAGAIN when full
 * and empty, capacity rounding, and exactly-once delivery with 4 producers
 * and 4 consumers.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "engines/ring.h"

static void test_fifo_full_empty(void **state)
{
	struct bt_ring r;
	void *item = NULL;

	assert_int_equal(bt_ring_init(&r, 8), 0);
	assert_int_equal(r.mask, 7);
	assert_int_equal(bt_ring_pop(&r, &item), -EAGAIN);
	/* several laps, so that slot sequence numbers wrap past the capacity */
	for (int lap = 0; lap < 5; lap++) {
		for (uintptr_t i = 1; i <= 8; i++)
			assert_int_equal(bt_ring_push(&r, (void *)(i + 100 * lap)), 0);
		assert_int_equal(bt_ring_push(&r, (void *)1), -EAGAIN);
		for (uintptr_t i = 1; i <= 8; i++) {
			assert_int_equal(bt_ring_pop(&r, &item), 0);
			assert_ptr_equal(item, (void *)(i + 100 * lap));
		}
		assert_int_equal(bt_ring_pop(&r, &item), -EAGAIN);
	}
	/* interleaved: a half-full ring keeps order */
	assert_int_equal(bt_ring_push(&r, (void *)1), 0);
	assert_int_equal(bt_ring_push(&r, (void *)2), 0);
	assert_int_equal(bt_ring_pop(&r, &item), 0);
	assert_ptr_equal(item, (void *)1);
	assert_int_equal(bt_ring_push(&r, (void *)3), 0);
	assert_int_equal(bt_ring_pop(&r, &item), 0);
	assert_ptr_equal(item, (void *)2);
	assert_int_equal(bt_ring_pop(&r, &item), 0);
	assert_ptr_equal(item, (void *)3);
	bt_ring_destroy(&r);
}

static void test_capacity_rounding(void **state)
{
	struct bt_ring r;
	void *item;
	int n = 0;

	assert_int_equal(bt_ring_init(&r, 0), 0);
	assert_int_equal(r.mask, 1);
	bt_ring_destroy(&r);
	assert_int_equal(bt_ring_init(&r, 5), 0);
	assert_int_equal(r.mask, 7);
	while (bt_ring_push(&r, &n) == 0)
		n++;
	assert_int_equal(n, 8);
	while (bt_ring_pop(&r, &item) == 0)
		n--;
	assert_int_equal(n, 0);
	bt_ring_destroy(&r);
}

#define NPROD 4
#define NCONS 4
#define PER 50000
#define NITEMS (NPROD * PER)

struct mpmc {
	struct bt_ring ring;
	_Atomic int next_id;
	_Atomic int consumed;
	_Atomic int seen[NITEMS];
	_Atomic int order_errors;
};

/* Items are index + 1 (never NULL). */
static void *producer(void *p)
{
	struct mpmc *m = p;
	int id = atomic_fetch_add(&m->next_id, 1);

	for (int i = 0; i < PER; i++) {
		uintptr_t v = (uintptr_t)(id * PER + i) + 1;

		while (bt_ring_push(&m->ring, (void *)v) != 0)
			sched_yield();
	}
	return NULL;
}

/* Takes until all items are consumed; checks each producer's items come in order. */
static void *consumer(void *p)
{
	struct mpmc *m = p;
	int last[NPROD];

	for (int i = 0; i < NPROD; i++)
		last[i] = -1;
	while (atomic_load(&m->consumed) < NITEMS) {
		void *item;
		int v;

		if (bt_ring_pop(&m->ring, &item) != 0) {
			sched_yield();
			continue;
		}
		v = (int)((uintptr_t)item - 1);
		if (v % PER <= last[v / PER])
			atomic_fetch_add(&m->order_errors, 1);
		last[v / PER] = v % PER;
		atomic_fetch_add(&m->seen[v], 1);
		atomic_fetch_add(&m->consumed, 1);
	}
	return NULL;
}

static void test_mpmc_exactly_once(void **state)
{
	struct mpmc *m = calloc(1, sizeof(*m));
	pthread_t th[NPROD + NCONS];
	void *item;

	assert_non_null(m);
	assert_int_equal(bt_ring_init(&m->ring, 64), 0);
	for (int i = 0; i < NCONS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, consumer, m), 0);
	for (int i = 0; i < NPROD; i++)
		assert_int_equal(pthread_create(&th[NCONS + i], NULL, producer, m), 0);
	for (int i = 0; i < NPROD + NCONS; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(atomic_load(&m->consumed), NITEMS);
	for (int i = 0; i < NITEMS; i++)
		if (atomic_load(&m->seen[i]) != 1)
			fail_msg("item %d seen %d times", i, atomic_load(&m->seen[i]));
	/* one producer's items are pushed in order; one consumer pops them in order */
	assert_int_equal(atomic_load(&m->order_errors), 0);
	assert_int_equal(bt_ring_pop(&m->ring, &item), -EAGAIN);
	bt_ring_destroy(&m->ring);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_full_empty),
		cmocka_unit_test(test_capacity_rounding),
		cmocka_unit_test(test_mpmc_exactly_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
