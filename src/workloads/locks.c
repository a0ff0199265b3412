/*
 * locks.c - N threads updating shared counters under one lock: what each
 * lock kind costs under contention, as a function of the critical section's
 * length and of the work done outside it. lock=atomic is the lock-free
 * reference (one atomic fetch_add per counter); lock=none is the null-cost
 * lock, only correct with one thread.
 *
 * verify checks that every counter equals the number of ops exactly: a lock
 * that lets two updates interleave loses one, and shows up here.
 *
 * It runs as threads or as processes (as=): the state lives in
 * bt_job_shared_alloc memory either way, and the lock is process-shared
 * when the workers are processes.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>

#include "engines/sync.h"
#include "engines/workload.h"

enum { P_THREADS, P_LOCK, P_CS, P_OUTSIDE, P_SHARED, P_COUNT };

/* The lock parameter's choices; 0..3 are enum bt_lock_kind's first four. */
enum { L_MUTEX, L_ADAPTIVE, L_SPIN, L_TICKET, L_ATOMIC, L_NONE };
static const char *const lock_choices[] = { BT_LOCK_CHOICES, "atomic", "none", NULL };
_Static_assert((int)L_MUTEX == (int)BT_LOCK_MUTEX && (int)L_TICKET == (int)BT_LOCK_TICKET,
	       "BT_LOCK_CHOICES first");

#define MAX_SHARED 64

static const struct bt_param params[] = {
	[P_THREADS] = { .name = "threads", .kind = BT_P_INT, .def = "4", .min = 1, .max = 1024,
			.help = "threads updating the shared counters",
			.ticks = "1,2,4,8,16,32,64",
			.flags = BT_PF_WORKERS | BT_PF_LIVE | BT_PF_PARK },
	[P_LOCK] = { .name = "lock", .kind = BT_P_ENUM, .def = "mutex", .choices = lock_choices,
		     .help = "lock kind; atomic = lock-free fetch_add, none = no lock (1 thread)",
		     .flags = BT_PF_LIVE },
	[P_CS] = { .name = "cs", .kind = BT_P_INT, .def = "0", .min = 0, .max = 100000,
		   .help = "extra work inside the critical section (dependent arithmetic iterations)",
		   .flags = BT_PF_LIVE },
	[P_OUTSIDE] = { .name = "outside", .kind = BT_P_INT, .def = "0", .min = 0, .max = 100000,
			.help = "work outside the lock per op (local arithmetic iterations)",
			.flags = BT_PF_LIVE },
	[P_SHARED] = { .name = "shared", .kind = BT_P_INT, .def = "1", .min = 1, .max = MAX_SHARED,
		       .help = "shared 8-byte counters updated per op (8 per cache line)" },
};

struct locks_state {
	struct bt_lock lock;
	int mode;			/* L_* */
	int nshared;
	uint64_t cs, outside;
	/*
	 * The shared state. Under a lock it is updated with relaxed loads and
	 * stores (plain moves, no atomic read-modify-write), so a broken lock
	 * loses updates as plain code would; lock=atomic uses fetch_add.
	 */
	_Alignas(64) _Atomic uint64_t counter[MAX_SHARED];
	_Alignas(64) _Atomic uint64_t mix;	/* the critical section's extra work */
	int nworkers;
	uint64_t *ops;			/* [nworkers] after the struct: each worker's ops, at its end */
};

static int locks_check(const struct bt_value *const *p, struct bt_err *err)
{
	if (p[P_LOCK]->i == L_NONE && p[P_THREADS]->i != 1)
		return bt_err_set(err, -EINVAL,
				  "lock=none: only with threads=1 (no lock means lost updates)");
	return 0;
}

static void locks_teardown(struct bt_job *job)
{
	struct locks_state *s = job->state;

	if (s == NULL)
		return;
	if (s->mode != L_ATOMIC)
		bt_lock_destroy(&s->lock);
	job->state = NULL;		/* the memory is the runner's to free */
}

static int locks_setup(struct bt_job *job, struct bt_err *err)
{
	struct locks_state *s;
	int rc, n;

	rc = locks_check(job->params, err);
	if (rc < 0)
		return rc;
	n = (int)bt_job_param(job, P_THREADS)->i;
	s = bt_job_shared_alloc(job, sizeof(*s) + sizeof(*s->ops) * (size_t)n);
	if (s == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	s->mode = (int)bt_job_param(job, P_LOCK)->i;
	s->nshared = (int)bt_job_param(job, P_SHARED)->i;
	s->cs = (uint64_t)bt_job_param(job, P_CS)->i;
	s->outside = (uint64_t)bt_job_param(job, P_OUTSIDE)->i;
	s->nworkers = n;
	for (int i = 0; i < MAX_SHARED; i++)
		atomic_init(&s->counter[i], 0);
	atomic_init(&s->mix, 1);
	s->ops = (uint64_t *)(s + 1);
	if (s->mode != L_ATOMIC) {
		rc = bt_lock_init_pshared(&s->lock, s->mode == L_NONE ? BT_LOCK_NONE
								      : (enum bt_lock_kind)s->mode,
					  job->pshared);
		if (rc < 0)
			return bt_err_set(err, rc, "cannot create the lock");
	}
	job->state = s;
	job->nworkers = s->nworkers;
	return 0;
}

/* n iterations of a dependent multiply-add chain: work the compiler cannot drop. */
static inline uint64_t spin_work(uint64_t x, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	__asm__ volatile("" : "+r"(x));
	return x;
}

/* Under the lock: bump every shared counter and run the critical section's work. */
static inline void locked_update(struct locks_state *s)
{
	for (int i = 0; i < s->nshared; i++) {
		uint64_t v = atomic_load_explicit(&s->counter[i], memory_order_relaxed);

		atomic_store_explicit(&s->counter[i], v + 1, memory_order_relaxed);
	}
	if (s->cs) {
		uint64_t m = atomic_load_explicit(&s->mix, memory_order_relaxed);

		atomic_store_explicit(&s->mix, spin_work(m, s->cs), memory_order_relaxed);
	}
}

static int locks_worker(struct bt_worker *w)
{
	struct locks_state *s = w->job->state;
	uint64_t local = (uint64_t)w->id + 1;

	while (!bt_worker_stopping(w)) {
		uint64_t t;

		if (s->outside)
			local = spin_work(local, s->outside);
		t = bt_lat_begin(w);
		if (s->mode == L_ATOMIC) {
			for (int i = 0; i < s->nshared; i++)
				atomic_fetch_add_explicit(&s->counter[i], 1, memory_order_relaxed);
			/* no critical section: its work is done on a local */
			if (s->cs)
				local = spin_work(local, s->cs);
		} else {
			bt_lock_acquire(&s->lock);
			locked_update(s);
			bt_lock_release(&s->lock);
		}
		bt_lat_end(w, t);
		bt_worker_ops(w, 1);
	}
	s->ops[w->id] = w->done;
	return 0;
}

static int locks_verify(struct bt_job *job, struct bt_err *err)
{
	struct locks_state *s = job->state;
	uint64_t ops = 0;

	for (int i = 0; i < s->nworkers; i++)
		ops += s->ops[i];
	for (int i = 0; i < s->nshared; i++) {
		uint64_t v = atomic_load_explicit(&s->counter[i], memory_order_relaxed);

		if (v == ops)
			continue;
		if (s->nshared == 1)
			return bt_err_set(err, -EIO, "lost updates: counter %llu != %llu ops",
					  (unsigned long long)v, (unsigned long long)ops);
		return bt_err_set(err, -EIO, "lost updates: counter[%d] %llu != %llu ops", i,
				  (unsigned long long)v, (unsigned long long)ops);
	}
	return 0;
}

const struct bt_workload bt_wl_locks = {
	.name = "locks",
	.group = "threads",
	.title = "threads updating shared counters under each lock kind",
	.unit = "updates",
	.lat_what = "lock acquire + critical section",
	.params = params,
	.nparams = sizeof(params) / sizeof(params[0]),
	.stop_default = "duration=1s",
	.engines = BT_ENGINES_THREADS | BT_ENGINES_PROCESSES,
	.check = locks_check,
	.setup = locks_setup,
	.worker = locks_worker,
	.verify = locks_verify,
	.teardown = locks_teardown,
};
