/*
 * sync.h - synchronization models as three independent axes.
 *
 *   lock   = mutex | adaptive | spin | ticket | none
 *            mutex: pthread_mutex (normal); adaptive: glibc's
 *            PTHREAD_MUTEX_ADAPTIVE_NP (spin a while, then block - the
 *            CRITICAL_SECTION-with-spin-count equivalent); spin: test and
 *            test-and-set with pause; ticket: FIFO ticket lock with pause;
 *            none: no-op (null cost, only correct for one thread).
 *   notify = signal | broadcast     wake one waiter, or all of them
 *   wait   = atomic | separate
 *            atomic: release the lock and wait in one step with no lost
 *            wake-up (pthread_cond_wait for mutex/adaptive; a futex sequence
 *            word read under the lock for spin/ticket);
 *            separate: release the lock, then wait on an event with a timeout
 *            (default 5 ms), then re-acquire - the classic
 *            ReleaseMutex + WaitForSingleObject pattern, where a notify that
 *            lands between release and wait is lost until the timeout.
 *            For notify=signal the event is auto-reset (a set persists until
 *            one waiter consumes it); for broadcast it is a pulse that wakes
 *            only threads already waiting.
 *
 * A struct bt_cond is a condition attached to one struct bt_lock; each may
 * be used by any number of threads. The waits count timeouts, which the
 * workloads report (they are the cost of the separate model).
 */
#ifndef BT_ENGINES_SYNC_H
#define BT_ENGINES_SYNC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "core/err.h"

enum bt_lock_kind { BT_LOCK_MUTEX, BT_LOCK_ADAPTIVE, BT_LOCK_SPIN, BT_LOCK_TICKET, BT_LOCK_NONE };
enum bt_notify_kind { BT_NOTIFY_SIGNAL, BT_NOTIFY_BROADCAST };
enum bt_wait_kind { BT_WAIT_ATOMIC, BT_WAIT_SEPARATE };

/*
 * The names of the real lock kinds, in enum order (BT_LOCK_MUTEX ..
 * BT_LOCK_TICKET), written once here: a parameter table that offers its own
 * list builds it from this, e.g. { BT_LOCK_CHOICES, "atomic", NULL }, so a
 * choice index up to BT_LOCK_TICKET is the enum bt_lock_kind.
 */
#define BT_LOCK_CHOICES "mutex", "adaptive", "spin", "ticket"

/* NULL-terminated choice lists in enum order, for parameter tables. */
extern const char *const bt_lock_names[];	/* BT_LOCK_CHOICES, then none */
extern const char *const bt_notify_names[];	/* signal broadcast */
extern const char *const bt_wait_names[];	/* atomic separate */

struct bt_lock {
	enum bt_lock_kind kind;
	pthread_mutex_t mutex;		/* MUTEX, ADAPTIVE */
	_Atomic uint32_t word;		/* SPIN: 0 free / 1 held */
	_Atomic uint32_t next, serving;	/* TICKET */
};

struct bt_cond {
	struct bt_lock *lock;
	enum bt_notify_kind notify;
	enum bt_wait_kind wait;
	uint64_t timeout_ns;		/* SEPARATE */
	pthread_cond_t cond;		/* ATOMIC with MUTEX/ADAPTIVE */
	_Atomic uint32_t seq;		/* ATOMIC with SPIN/TICKET: futex word */
	_Atomic uint32_t nwaiters;	/* ATOMIC with SPIN/TICKET: waiters (skip idle wakes) */
	/* SEPARATE: the event */
	pthread_mutex_t ev_mutex;
	pthread_cond_t ev_cond;
	int ev_set;			/* signal: auto-reset state */
	uint64_t ev_gen;		/* broadcast: pulse generation */
	_Atomic uint64_t timeouts;	/* waits that ended by timeout */
};

int bt_lock_init(struct bt_lock *l, enum bt_lock_kind kind);
/*
 * A lock that workers in different processes share (as=processes): l must
 * live in memory they all map (bt_job_shared_alloc). Mutexes are made
 * PTHREAD_PROCESS_SHARED (adaptive keeps its spin-then-block type); spin and
 * ticket are plain atomics in that memory and need nothing more.
 */
int bt_lock_init_pshared(struct bt_lock *l, enum bt_lock_kind kind, int pshared);
void bt_lock_destroy(struct bt_lock *l);
void bt_lock_acquire(struct bt_lock *l);
void bt_lock_release(struct bt_lock *l);

int bt_cond_init(struct bt_cond *c, struct bt_lock *l, enum bt_notify_kind n, enum bt_wait_kind w,
		 uint64_t timeout_ns);
void bt_cond_destroy(struct bt_cond *c);

/*
 * Called with c->lock held; returns with it held. May return spuriously (or
 * on timeout in the separate model): callers re-check their predicate in a
 * loop.
 */
void bt_cond_wait(struct bt_cond *c);

/*
 * bt_cond_wait that also returns after about max_ns when nobody notifies
 * (0 = no bound). A safety net for shutdown paths that must notice a stop
 * flag even when the thread that would notify never runs; a return at
 * max_ns is not counted in timeouts (the separate model's own timeout_ns
 * still is, when it comes first).
 */
void bt_cond_wait_for(struct bt_cond *c, uint64_t max_ns);

/* Wake one (signal) or all (broadcast) waiters per c->notify. Call with the lock held. */
void bt_cond_notify(struct bt_cond *c);

/*
 * Wake all waiters whatever the model (used to shut down). Call with the
 * lock held, after changing what the waiters' predicate reads, as for
 * notify: otherwise an atomic-model waiter can miss it.
 */
void bt_cond_wake_all(struct bt_cond *c);

#endif
