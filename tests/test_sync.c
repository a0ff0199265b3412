/*
 * test_sync.c - locks count exactly, every lock x notify x wait combination
 * moves a bounded buffer's items exactly once, wake_all wakes everyone, and
 * the separate model's event keeps a signal but loses a pulse.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "engines/sync.h"

#define NTHREADS 8
#define NINCS 20000

struct count_arg {
	struct bt_lock *lock;
	uint64_t *counter;	/* plain: only the lock protects it */
};

static void *count_thread(void *p)
{
	struct count_arg *a = p;

	for (int i = 0; i < NINCS; i++) {
		bt_lock_acquire(a->lock);
		(*a->counter)++;
		bt_lock_release(a->lock);
	}
	return NULL;
}

static void count_with(enum bt_lock_kind kind, int nthreads)
{
	pthread_t th[NTHREADS];
	struct bt_lock lock;
	uint64_t counter = 0;
	struct count_arg a = { &lock, &counter };

	assert_int_equal(bt_lock_init(&lock, kind), 0);
	for (int i = 0; i < nthreads; i++)
		assert_int_equal(pthread_create(&th[i], NULL, count_thread, &a), 0);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	bt_lock_destroy(&lock);
	assert_int_equal(counter, (uint64_t)nthreads * NINCS);
}

static void test_lock_mutex(void **state)
{
	count_with(BT_LOCK_MUTEX, NTHREADS);
}

static void test_lock_adaptive(void **state)
{
	count_with(BT_LOCK_ADAPTIVE, NTHREADS);
}

static void test_lock_spin(void **state)
{
	count_with(BT_LOCK_SPIN, NTHREADS);
}

static void test_lock_ticket(void **state)
{
	count_with(BT_LOCK_TICKET, NTHREADS);
}

static void test_lock_none_one_thread(void **state)
{
	count_with(BT_LOCK_NONE, 1);
}

static void test_names(void **state)
{
	assert_string_equal(bt_lock_names[BT_LOCK_MUTEX], "mutex");
	assert_string_equal(bt_lock_names[BT_LOCK_ADAPTIVE], "adaptive");
	assert_string_equal(bt_lock_names[BT_LOCK_SPIN], "spin");
	assert_string_equal(bt_lock_names[BT_LOCK_TICKET], "ticket");
	assert_string_equal(bt_lock_names[BT_LOCK_NONE], "none");
	assert_null(bt_lock_names[5]);
	assert_string_equal(bt_notify_names[BT_NOTIFY_SIGNAL], "signal");
	assert_string_equal(bt_notify_names[BT_NOTIFY_BROADCAST], "broadcast");
	assert_null(bt_notify_names[2]);
	assert_string_equal(bt_wait_names[BT_WAIT_ATOMIC], "atomic");
	assert_string_equal(bt_wait_names[BT_WAIT_SEPARATE], "separate");
	assert_null(bt_wait_names[2]);
}

/* ---- bounded buffer ---- */

#define NPROD 4
#define NCONS 4
#define CAP 4
#define PER 5000
#define NITEMS (NPROD * PER)
#define SEP_TIMEOUT_NS 200000u	/* 200 us: lost wake-ups cost little */

struct bbuf {
	struct bt_lock lock;
	struct bt_cond not_full, not_empty;
	int items[CAP];
	int head, count;	/* under lock */
	_Atomic int seen[NITEMS];
	_Atomic int next_producer, next_consumer;
};

static void *producer(void *p)
{
	struct bbuf *b = p;
	int id = atomic_fetch_add(&b->next_producer, 1);

	for (int i = 0; i < PER; i++) {
		bt_lock_acquire(&b->lock);
		while (b->count == CAP)
			bt_cond_wait(&b->not_full);
		b->items[(b->head + b->count) % CAP] = id * PER + i;
		b->count++;
		bt_cond_notify(&b->not_empty);
		bt_lock_release(&b->lock);
	}
	return NULL;
}

/* Each consumer takes exactly PER items: the totals match, so no shutdown is needed. */
static void *consumer(void *p)
{
	struct bbuf *b = p;

	for (int i = 0; i < PER; i++) {
		int item;

		bt_lock_acquire(&b->lock);
		while (b->count == 0)
			bt_cond_wait(&b->not_empty);
		item = b->items[b->head];
		b->head = (b->head + 1) % CAP;
		b->count--;
		bt_cond_notify(&b->not_full);
		bt_lock_release(&b->lock);
		atomic_fetch_add(&b->seen[item], 1);
	}
	return NULL;
}

static void bbuf_run(enum bt_lock_kind lk, enum bt_notify_kind nk, enum bt_wait_kind wk)
{
	struct bbuf *b = calloc(1, sizeof(*b));
	pthread_t th[NPROD + NCONS];

	assert_non_null(b);
	assert_int_equal(bt_lock_init(&b->lock, lk), 0);
	assert_int_equal(bt_cond_init(&b->not_full, &b->lock, nk, wk, SEP_TIMEOUT_NS), 0);
	assert_int_equal(bt_cond_init(&b->not_empty, &b->lock, nk, wk, SEP_TIMEOUT_NS), 0);
	for (int i = 0; i < NCONS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, consumer, b), 0);
	for (int i = 0; i < NPROD; i++)
		assert_int_equal(pthread_create(&th[NCONS + i], NULL, producer, b), 0);
	for (int i = 0; i < NPROD + NCONS; i++)
		pthread_join(th[i], NULL);

	assert_int_equal(b->count, 0);
	for (int i = 0; i < NITEMS; i++)
		if (atomic_load(&b->seen[i]) != 1)
			fail_msg("%s/%s/%s: item %d seen %d times", bt_lock_names[lk],
				 bt_notify_names[nk], bt_wait_names[wk], i, atomic_load(&b->seen[i]));
	if (wk == BT_WAIT_ATOMIC) {
		assert_int_equal(atomic_load(&b->not_full.timeouts), 0);
		assert_int_equal(atomic_load(&b->not_empty.timeouts), 0);
	}
	bt_cond_destroy(&b->not_full);
	bt_cond_destroy(&b->not_empty);
	bt_lock_destroy(&b->lock);
	free(b);
}

static void test_bbuf_all_models(void **state)
{
	for (int lk = BT_LOCK_MUTEX; lk <= BT_LOCK_TICKET; lk++)
		for (int nk = BT_NOTIFY_SIGNAL; nk <= BT_NOTIFY_BROADCAST; nk++)
			for (int wk = BT_WAIT_ATOMIC; wk <= BT_WAIT_SEPARATE; wk++)
				bbuf_run(lk, nk, wk);
}

/* ---- wake_all ---- */

#define NWAITERS 6

struct wake {
	struct bt_lock lock;
	struct bt_cond cond;
	int flag;		/* under lock */
	int waiting;		/* under lock */
	struct bt_cond arrived;	/* waiters announce themselves on it */
};

static void *waiter(void *p)
{
	struct wake *w = p;

	bt_lock_acquire(&w->lock);
	w->waiting++;
	bt_cond_notify(&w->arrived);
	while (!w->flag)
		bt_cond_wait(&w->cond);
	bt_lock_release(&w->lock);
	return NULL;
}

static void wake_all_run(enum bt_lock_kind lk, enum bt_notify_kind nk, enum bt_wait_kind wk)
{
	struct wake w = { .flag = 0 };
	pthread_t th[NWAITERS];

	assert_int_equal(bt_lock_init(&w.lock, lk), 0);
	assert_int_equal(bt_cond_init(&w.cond, &w.lock, nk, wk, SEP_TIMEOUT_NS), 0);
	/* the main thread waits for arrivals with the atomic model: it must not miss them */
	assert_int_equal(bt_cond_init(&w.arrived, &w.lock, BT_NOTIFY_BROADCAST, BT_WAIT_ATOMIC,
				      SEP_TIMEOUT_NS), 0);
	for (int i = 0; i < NWAITERS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, waiter, &w), 0);
	bt_lock_acquire(&w.lock);
	while (w.waiting < NWAITERS)
		bt_cond_wait(&w.arrived);
	w.flag = 1;
	bt_cond_wake_all(&w.cond);
	bt_lock_release(&w.lock);
	for (int i = 0; i < NWAITERS; i++)
		pthread_join(th[i], NULL);
	if (wk == BT_WAIT_ATOMIC)
		assert_int_equal(atomic_load(&w.cond.timeouts), 0);
	bt_cond_destroy(&w.arrived);
	bt_cond_destroy(&w.cond);
	bt_lock_destroy(&w.lock);
}

static void test_wake_all(void **state)
{
	for (int lk = BT_LOCK_MUTEX; lk <= BT_LOCK_TICKET; lk++)
		for (int nk = BT_NOTIFY_SIGNAL; nk <= BT_NOTIFY_BROADCAST; nk++)
			for (int wk = BT_WAIT_ATOMIC; wk <= BT_WAIT_SEPARATE; wk++)
				wake_all_run(lk, nk, wk);
}

/* ---- event semantics of the separate model, on one thread ---- */

static void test_separate_signal_persists(void **state)
{
	struct bt_lock l;
	struct bt_cond c;

	assert_int_equal(bt_lock_init(&l, BT_LOCK_MUTEX), 0);
	assert_int_equal(bt_cond_init(&c, &l, BT_NOTIFY_SIGNAL, BT_WAIT_SEPARATE, 1000000), 0);
	bt_lock_acquire(&l);
	bt_cond_notify(&c);		/* nobody waits: the event stays set */
	bt_cond_notify(&c);		/* auto-reset: setting twice is still one set */
	bt_cond_wait(&c);		/* consumes it at once */
	assert_int_equal(atomic_load(&c.timeouts), 0);
	bt_cond_wait(&c);		/* nothing left: times out */
	assert_int_equal(atomic_load(&c.timeouts), 1);
	bt_lock_release(&l);
	bt_cond_destroy(&c);
	bt_lock_destroy(&l);
}

static void test_separate_broadcast_pulse_lost(void **state)
{
	struct bt_lock l;
	struct bt_cond c;

	assert_int_equal(bt_lock_init(&l, BT_LOCK_SPIN), 0);
	assert_int_equal(bt_cond_init(&c, &l, BT_NOTIFY_BROADCAST, BT_WAIT_SEPARATE, 1000000), 0);
	bt_lock_acquire(&l);
	bt_cond_notify(&c);		/* a pulse with nobody waiting is lost */
	bt_cond_wait(&c);
	assert_int_equal(atomic_load(&c.timeouts), 1);
	bt_lock_release(&l);
	bt_cond_destroy(&c);
	bt_lock_destroy(&l);
}

/* wait_for returns without a notify in every model; only the separate timeout counts. */
static void test_wait_for_bounded(void **state)
{
	for (int lk = BT_LOCK_MUTEX; lk <= BT_LOCK_TICKET; lk++)
		for (int nk = BT_NOTIFY_SIGNAL; nk <= BT_NOTIFY_BROADCAST; nk++)
			for (int wk = BT_WAIT_ATOMIC; wk <= BT_WAIT_SEPARATE; wk++) {
				struct bt_lock l;
				struct bt_cond c, c2;

				assert_int_equal(bt_lock_init(&l, lk), 0);
				/* separate timeout 1 s, bound 1 ms: the bound ends it, uncounted */
				assert_int_equal(bt_cond_init(&c, &l, nk, wk, 1000000000u), 0);
				/* separate timeout 1 ms, bound 1 s: the timeout ends it, counted */
				assert_int_equal(bt_cond_init(&c2, &l, nk, wk, 1000000u), 0);
				bt_lock_acquire(&l);
				bt_cond_wait_for(&c, 1000000u);
				assert_int_equal(atomic_load(&c.timeouts), 0);
				if (wk == BT_WAIT_SEPARATE) {
					bt_cond_wait_for(&c2, 1000000000u);
					assert_int_equal(atomic_load(&c2.timeouts), 1);
				}
				bt_lock_release(&l);
				bt_cond_destroy(&c2);
				bt_cond_destroy(&c);
				bt_lock_destroy(&l);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_lock_mutex),
		cmocka_unit_test(test_lock_adaptive),
		cmocka_unit_test(test_lock_spin),
		cmocka_unit_test(test_lock_ticket),
		cmocka_unit_test(test_lock_none_one_thread),
		cmocka_unit_test(test_bbuf_all_models),
		cmocka_unit_test(test_wake_all),
		cmocka_unit_test(test_separate_signal_persists),
		cmocka_unit_test(test_separate_broadcast_pulse_lost),
		cmocka_unit_test(test_wait_for_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
