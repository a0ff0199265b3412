/*
 * sync.c - the lock, notify and wait axes of sync.h.
 *
 * Every word that more than one thread touches outside a pthread mutex is a
 * C11 atomic, so the models are clean under ThreadSanitizer. The event of
 * the separate wait model (ev_set, ev_gen) is guarded by ev_mutex.
 */
#include "engines/sync.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

const char *const bt_lock_names[] = { BT_LOCK_CHOICES, "none", NULL };
_Static_assert(BT_LOCK_MUTEX == 0 && BT_LOCK_ADAPTIVE == 1 && BT_LOCK_SPIN == 2 &&
	       BT_LOCK_TICKET == 3 && BT_LOCK_NONE == 4, "BT_LOCK_CHOICES is in enum order");
const char *const bt_notify_names[] = { "signal", "broadcast", NULL };
const char *const bt_wait_names[] = { "atomic", "separate", NULL };

/*
 * Spins before a waiting thread gives its CPU away. benchtop runs up to 64
 * threads on machines with fewer CPUs: a pure spin lock whose holder is
 * descheduled would spin for whole time slices, so spinners yield after
 * this many failed polls. They still show what spinning costs.
 */
#define SPIN_BEFORE_YIELD 1000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

/* One failed poll of a spinning waiter: pause, and yield every so often. */
static inline void spin_backoff(unsigned *spins)
{
	cpu_relax();
	if (++*spins >= SPIN_BEFORE_YIELD) {
		*spins = 0;
		sched_yield();
	}
}

/* FUTEX_WAIT with a relative timeout (NULL: none), or FUTEX_WAKE. */
static long futex(_Atomic uint32_t *uaddr, int op, uint32_t val, const struct timespec *rel)
{
	return syscall(SYS_futex, (uint32_t *)uaddr, op, val, rel, NULL, 0);
}

static struct timespec ns_to_ts(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	return ts;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int bt_lock_init(struct bt_lock *l, enum bt_lock_kind kind)
{
	return bt_lock_init_pshared(l, kind, 0);
}

int bt_lock_init_pshared(struct bt_lock *l, enum bt_lock_kind kind, int pshared)
{
	pthread_mutexattr_t a;
	int rc;

	l->kind = kind;
	atomic_init(&l->word, 0);
	atomic_init(&l->next, 0);
	atomic_init(&l->serving, 0);
	if (kind != BT_LOCK_MUTEX && kind != BT_LOCK_ADAPTIVE)
		return 0;
	rc = pthread_mutexattr_init(&a);
	if (rc != 0)
		return -rc;
	rc = pthread_mutexattr_settype(&a, kind == BT_LOCK_ADAPTIVE ? PTHREAD_MUTEX_ADAPTIVE_NP
								    : PTHREAD_MUTEX_NORMAL);
	if (rc == 0 && pshared)
		rc = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (rc == 0)
		rc = pthread_mutex_init(&l->mutex, &a);
	pthread_mutexattr_destroy(&a);
	return -rc;
}

void bt_lock_destroy(struct bt_lock *l)
{
	if (l->kind == BT_LOCK_MUTEX || l->kind == BT_LOCK_ADAPTIVE)
		pthread_mutex_destroy(&l->mutex);
}

void bt_lock_acquire(struct bt_lock *l)
{
	unsigned spins = 0;
	uint32_t my;

	switch (l->kind) {
	case BT_LOCK_MUTEX:
	case BT_LOCK_ADAPTIVE:
		pthread_mutex_lock(&l->mutex);
		break;
	case BT_LOCK_SPIN:
		/* Test and test-and-set: poll with plain loads, swap only when free. */
		for (;;) {
			if (atomic_exchange_explicit(&l->word, 1, memory_order_acquire) == 0)
				return;
			while (atomic_load_explicit(&l->word, memory_order_relaxed) != 0)
				spin_backoff(&spins);
		}
	case BT_LOCK_TICKET:
		/*
		 * Proportional backoff: a waiter d tickets from the head
		 * yields after SPIN_BEFORE_YIELD / d polls. FIFO hand-off at
		 * oversubscription needs the next ticket's owner on a CPU;
		 * the waiters behind it get out of its way sooner.
		 */
		my = atomic_fetch_add_explicit(&l->next, 1, memory_order_relaxed);
		for (;;) {
			uint32_t d = my - atomic_load_explicit(&l->serving, memory_order_acquire);

			if (d == 0)
				break;
			cpu_relax();
			if (++spins >= SPIN_BEFORE_YIELD / d) {
				spins = 0;
				sched_yield();
			}
		}
		break;
	case BT_LOCK_NONE:
		break;
	}
}

void bt_lock_release(struct bt_lock *l)
{
	uint32_t s;

	switch (l->kind) {
	case BT_LOCK_MUTEX:
	case BT_LOCK_ADAPTIVE:
		pthread_mutex_unlock(&l->mutex);
		break;
	case BT_LOCK_SPIN:
		atomic_store_explicit(&l->word, 0, memory_order_release);
		break;
	case BT_LOCK_TICKET:
		/* Only the holder writes serving. */
		s = atomic_load_explicit(&l->serving, memory_order_relaxed);
		atomic_store_explicit(&l->serving, s + 1, memory_order_release);
		break;
	case BT_LOCK_NONE:
		break;
	}
}

/*
 * Every primitive is initialized whatever the model, so that
 * bt_cond_wake_all can poke all of them and destroy is uniform.
 */
int bt_cond_init(struct bt_cond *c, struct bt_lock *l, enum bt_notify_kind n, enum bt_wait_kind w,
		 uint64_t timeout_ns)
{
	pthread_condattr_t a;
	int rc;

	c->lock = l;
	c->notify = n;
	c->wait = w;
	c->timeout_ns = timeout_ns;
	c->ev_set = 0;
	c->ev_gen = 0;
	atomic_init(&c->seq, 0);
	atomic_init(&c->nwaiters, 0);
	atomic_init(&c->timeouts, 0);

	rc = pthread_condattr_init(&a);
	if (rc != 0)
		return -rc;
	rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	if (rc != 0)
		goto out_attr;
	rc = pthread_cond_init(&c->cond, &a);
	if (rc != 0)
		goto out_attr;
	rc = pthread_mutex_init(&c->ev_mutex, NULL);
	if (rc != 0)
		goto out_cond;
	rc = pthread_cond_init(&c->ev_cond, &a);
	if (rc != 0)
		goto out_mutex;
	pthread_condattr_destroy(&a);
	return 0;

out_mutex:
	pthread_mutex_destroy(&c->ev_mutex);
out_cond:
	pthread_cond_destroy(&c->cond);
out_attr:
	pthread_condattr_destroy(&a);
	return -rc;
}

void bt_cond_destroy(struct bt_cond *c)
{
	pthread_cond_destroy(&c->ev_cond);
	pthread_mutex_destroy(&c->ev_mutex);
	pthread_cond_destroy(&c->cond);
}

static int lock_is_mutex(const struct bt_lock *l)
{
	return l->kind == BT_LOCK_MUTEX || l->kind == BT_LOCK_ADAPTIVE;
}

/*
 * The separate model: the caller's lock is already released. Wait on the
 * event until it is set (signal: consume it), a pulse or a wake-all moves
 * ev_gen, or timeout_ns passes (counted). A notify that came before we got
 * here is lost for broadcast, and kept by ev_set for signal. A max_ns bound
 * shorter than timeout_ns ends the wait early without counting.
 */
static void wait_event(struct bt_cond *c, uint64_t max_ns)
{
	int counts = max_ns == 0 || c->timeout_ns <= max_ns;
	struct timespec dl = ns_to_ts(mono_ns() + (counts ? c->timeout_ns : max_ns));
	uint64_t gen;
	int rc = 0;

	pthread_mutex_lock(&c->ev_mutex);
	gen = c->ev_gen;
	while (c->ev_gen == gen && !(c->notify == BT_NOTIFY_SIGNAL && c->ev_set)) {
		rc = pthread_cond_timedwait(&c->ev_cond, &c->ev_mutex, &dl);
		if (rc == ETIMEDOUT)
			break;
	}
	if (c->notify == BT_NOTIFY_SIGNAL && c->ev_set)
		c->ev_set = 0;
	else if (rc == ETIMEDOUT && counts)
		atomic_fetch_add_explicit(&c->timeouts, 1, memory_order_relaxed);
	pthread_mutex_unlock(&c->ev_mutex);
}

void bt_cond_wait_for(struct bt_cond *c, uint64_t max_ns)
{
	struct bt_lock *l = c->lock;
	struct timespec ts;
	uint32_t seq;

	if (c->wait == BT_WAIT_SEPARATE) {
		bt_lock_release(l);
		wait_event(c, max_ns);
		bt_lock_acquire(l);
		return;
	}
	if (lock_is_mutex(l)) {
		if (max_ns == 0) {
			pthread_cond_wait(&c->cond, &l->mutex);
		} else {
			ts = ns_to_ts(mono_ns() + max_ns);
			pthread_cond_timedwait(&c->cond, &l->mutex, &ts);
		}
		return;
	}
	/*
	 * spin/ticket (and none): seq is read under the lock and bumped by
	 * notifiers under the lock, so a notify between our release and the
	 * futex wait changes it and FUTEX_WAIT returns at once. nwaiters is
	 * raised under the lock too, so a notifier that holds the lock and
	 * reads it as zero knows nobody can be between release and FUTEX_WAIT.
	 */
	atomic_fetch_add_explicit(&c->nwaiters, 1, memory_order_relaxed);
	seq = atomic_load_explicit(&c->seq, memory_order_acquire);
	bt_lock_release(l);
	ts = ns_to_ts(max_ns);
	futex(&c->seq, FUTEX_WAIT_PRIVATE, seq, max_ns ? &ts : NULL);
	atomic_fetch_sub_explicit(&c->nwaiters, 1, memory_order_relaxed);
	bt_lock_acquire(l);
}

void bt_cond_wait(struct bt_cond *c)
{
	bt_cond_wait_for(c, 0);
}

static void event_notify(struct bt_cond *c, int all)
{
	pthread_mutex_lock(&c->ev_mutex);
	if (all) {
		c->ev_gen++;
		if (c->notify == BT_NOTIFY_SIGNAL)
			c->ev_set = 1;
		pthread_cond_broadcast(&c->ev_cond);
	} else if (c->notify == BT_NOTIFY_SIGNAL) {
		c->ev_set = 1;
		pthread_cond_signal(&c->ev_cond);
	} else {
		c->ev_gen++;
		pthread_cond_broadcast(&c->ev_cond);
	}
	pthread_mutex_unlock(&c->ev_mutex);
}

static void seq_wake(struct bt_cond *c, int all)
{
	atomic_fetch_add_explicit(&c->seq, 1, memory_order_release);
	futex(&c->seq, FUTEX_WAKE_PRIVATE, all ? INT_MAX : 1, NULL);
}

/*
 * The futex model skips the FUTEX_WAKE system call when nobody waits, as
 * pthread_cond_signal does, so that spin and ticket locks are not charged a
 * system call per notify that mutexes do not pay.
 */
void bt_cond_notify(struct bt_cond *c)
{
	int all = c->notify == BT_NOTIFY_BROADCAST;

	if (c->wait == BT_WAIT_SEPARATE)
		event_notify(c, 0);
	else if (lock_is_mutex(c->lock))
		(all ? pthread_cond_broadcast : pthread_cond_signal)(&c->cond);
	else if (atomic_load_explicit(&c->nwaiters, memory_order_relaxed) != 0)
		seq_wake(c, all);
}

/*
 * Whatever the model, wake everyone who waits now: the condition variable,
 * the futex word and the event all get a wake-all. A separate-model waiter
 * that has released the lock but not yet reached the event misses it and
 * returns at its timeout; shutdown predicates are re-checked then.
 */
void bt_cond_wake_all(struct bt_cond *c)
{
	pthread_cond_broadcast(&c->cond);
	seq_wake(c, 1);
	event_notify(c, 1);
}
