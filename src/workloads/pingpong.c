/*
 * pingpong.c - the physical limit of a hand-off: two threads pass a token
 * back and forth, and an op is one round trip (worker 0 sends, worker 1
 * answers). What it measures is how long a wake-up takes under each sync
 * model, next to what the kernel allows (`perf bench sched pipe -T` is
 * sync=pipe; bench/pingpong.sh prints the two side by side).
 *
 *   sync=cond     one lock and a condition per direction, on the lock=,
 *                 notify= and wait= axes of engines/sync.h
 *   sync=spin     a shared word, busy-waited with pause (yield after a
 *                 while, so that an oversubscribed machine still moves)
 *   sync=futex    the same word, slept on with FUTEX_WAIT/FUTEX_WAKE
 *   sync=pipe     a pipe each way, one byte per hand-off
 *   sync=eventfd  an eventfd each way
 *
 * Only worker 0 counts ops, and it runs the whole ops= quota itself (the
 * engine splits a quota over both workers; worker 1 counts nothing). Every
 * hand-off adds one to a token with a plain load and store, so a sync model
 * that let both threads in at once would lose counts: verify checks the
 * token is exactly twice the round trips and worker 1 answered each.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engines/sync.h"
#include "engines/worker.h"
#include "engines/workload.h"

enum { P_SYNC, P_LOCK, P_NOTIFY, P_WAIT, P_TIMEOUT };
enum { S_COND, S_SPIN, S_FUTEX, S_PIPE, S_EVENTFD };

static const char *const sync_choices[] = { "cond", "spin", "futex", "pipe", "eventfd", NULL };
static const char *const lock_choices[] = { BT_LOCK_CHOICES, NULL };

static const struct bt_param params[] = {
	[P_SYNC] = { .name = "sync", .kind = BT_P_ENUM, .def = "cond", .choices = sync_choices,
		     .help = "how the token is handed over: cond (lock=, notify=, wait=), spin, futex, pipe, eventfd",
		     .ticks = "cond,spin,futex,pipe,eventfd", .flags = BT_PF_LIVE },
	[P_LOCK] = { .name = "lock", .kind = BT_P_ENUM, .def = "mutex", .choices = lock_choices,
		     .help = "sync=cond: the lock", .flags = BT_PF_LIVE },
	[P_NOTIFY] = { .name = "notify", .kind = BT_P_ENUM, .def = "signal", .choices = bt_notify_names,
		       .help = "sync=cond: wake one waiter or all", .flags = BT_PF_LIVE },
	[P_WAIT] = { .name = "wait", .kind = BT_P_ENUM, .def = "atomic", .choices = bt_wait_names,
		     .help = "sync=cond: release and wait at once, or release then wait on an event",
		     .flags = BT_PF_LIVE },
	[P_TIMEOUT] = { .name = "timeout", .kind = BT_P_DURATION, .def = "5ms", .min = 1000,
			.max = 1000000000, .help = "sync=cond wait=separate: the event wait's timeout" },
};

/*
 * Failed polls of sync=spin before it yields, as sync.c's spin locks: where
 * both threads share a CPU (a busy 2-CPU machine), a longer spin costs its
 * whole length per hand-off.
 */
#define SPIN_BEFORE_YIELD 1000

/* Whose turn it is (the word of spin and futex; the predicate of cond). */
enum { TURN_PING, TURN_PONG, TURN_QUIT };

struct pp {
	int sync;
	_Alignas(64) _Atomic uint32_t turn;
	_Alignas(64) _Atomic uint64_t token;	/* +1 per hand-off, by a plain load and store */
	uint64_t round_trips;			/* worker 0's, read after the rep */
	uint64_t answers;			/* worker 1's */
	struct bt_lock lock;
	struct bt_cond to_pong, to_ping;
	int have_lock, have_conds;
	int fd_pong[2], fd_ping[2];		/* pipe: [0] read, [1] write; eventfd: [0] only */
};

static void pass_token(struct pp *p)
{
	uint64_t t = atomic_load_explicit(&p->token, memory_order_relaxed);

	atomic_store_explicit(&p->token, t + 1, memory_order_relaxed);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static long futex(_Atomic uint32_t *addr, int op, uint32_t val)
{
	return syscall(SYS_futex, (uint32_t *)addr, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

/* spin and futex: wait until turn leaves 'from'; returns the new turn. */
static uint32_t word_wait(struct pp *p, uint32_t from)
{
	uint32_t t;

	for (unsigned spins = 0; (t = atomic_load_explicit(&p->turn, memory_order_acquire)) == from;) {
		if (p->sync == S_FUTEX) {
			futex(&p->turn, FUTEX_WAIT, from);
		} else if (++spins < SPIN_BEFORE_YIELD) {
			cpu_relax();
		} else {
			spins = 0;
			sched_yield();
		}
	}
	return t;
}

static void word_set(struct pp *p, uint32_t to)
{
	atomic_store_explicit(&p->turn, to, memory_order_release);
	if (p->sync == S_FUTEX)
		futex(&p->turn, FUTEX_WAKE, 1);
}

/* cond: wait (lock held) until turn leaves 'from'. */
static uint32_t cond_wait(struct pp *p, struct bt_cond *c, uint32_t from)
{
	uint32_t t;

	while ((t = atomic_load_explicit(&p->turn, memory_order_relaxed)) == from)
		bt_cond_wait(c);
	return t;
}

static void cond_set(struct pp *p, struct bt_cond *c, uint32_t to)
{
	bt_lock_acquire(&p->lock);
	atomic_store_explicit(&p->turn, to, memory_order_relaxed);
	bt_cond_notify(c);
	bt_lock_release(&p->lock);
}

/* pipe and eventfd: send one hand-off (quit: the last one) and receive one. */
static int fd_send(struct pp *p, int fd, int quit)
{
	uint64_t v = quit ? 2 : 1;
	char b = quit ? 'q' : 'p';
	ssize_t n;

	do
		n = p->sync == S_PIPE ? write(fd, &b, 1) : write(fd, &v, sizeof(v));
	while (n < 0 && errno == EINTR);
	return n > 0 ? 0 : -1;
}

/* 1: a hand-off, 0: quit, -1: an error. */
static int fd_recv(struct pp *p, int fd)
{
	uint64_t v = 0;
	char b = 0;
	ssize_t n;

	do
		n = p->sync == S_PIPE ? read(fd, &b, 1) : read(fd, &v, sizeof(v));
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -1;
	return p->sync == S_PIPE ? b == 'p' : v == 1;
}

static int pp_setup(struct bt_job *job, struct bt_err *err)
{
	struct pp *p = calloc(1, sizeof(*p));
	int rc = 0;

	if (p == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	p->sync = (int)bt_job_param(job, P_SYNC)->i;
	p->fd_pong[0] = p->fd_pong[1] = p->fd_ping[0] = p->fd_ping[1] = -1;
	atomic_init(&p->turn, TURN_PING);
	atomic_init(&p->token, 0);
	job->state = p;
	job->nworkers = 2;
	job->counted_first = 0;
	job->counted_n = 1;
	switch (p->sync) {
	case S_COND:
		if (bt_lock_init(&p->lock, (enum bt_lock_kind)bt_job_param(job, P_LOCK)->i) != 0)
			return bt_err_set(err, -ENOMEM, "cannot create the lock");
		p->have_lock = 1;
		for (int k = 0; k < 2 && rc == 0; k++)
			rc = bt_cond_init(k ? &p->to_ping : &p->to_pong, &p->lock,
					  (enum bt_notify_kind)bt_job_param(job, P_NOTIFY)->i,
					  (enum bt_wait_kind)bt_job_param(job, P_WAIT)->i,
					  (uint64_t)bt_job_param(job, P_TIMEOUT)->i);
		if (rc != 0)
			return bt_err_set(err, -ENOMEM, "cannot create the conditions");
		p->have_conds = 1;
		break;
	case S_PIPE:
		if (pipe2(p->fd_pong, O_CLOEXEC) < 0 || pipe2(p->fd_ping, O_CLOEXEC) < 0)
			return bt_err_set(err, -errno, "pipe: %s", strerror(errno));
		break;
	case S_EVENTFD:
		if ((p->fd_pong[0] = eventfd(0, EFD_CLOEXEC)) < 0 ||
		    (p->fd_ping[0] = eventfd(0, EFD_CLOEXEC)) < 0)
			return bt_err_set(err, -errno, "eventfd: %s", strerror(errno));
		p->fd_pong[1] = p->fd_pong[0];
		p->fd_ping[1] = p->fd_ping[0];
		break;
	default:
		break;
	}
	return 0;
}

static void pp_teardown(struct bt_job *job)
{
	struct pp *p = job->state;

	if (p == NULL)
		return;
	if (p->have_conds) {
		bt_cond_destroy(&p->to_pong);
		bt_cond_destroy(&p->to_ping);
	}
	if (p->have_lock)
		bt_lock_destroy(&p->lock);
	for (int k = 0; k < 2; k++) {
		if (p->fd_pong[k] >= 0 && (k == 0 || p->fd_pong[1] != p->fd_pong[0]))
			close(p->fd_pong[k]);
		if (p->fd_ping[k] >= 0 && (k == 0 || p->fd_ping[1] != p->fd_ping[0]))
			close(p->fd_ping[k]);
	}
	free(p);
	job->state = NULL;
}

/* Worker 0: one round trip per op, until its own quota (all of ops=) or stop. */
static int ping(struct bt_worker *w, struct pp *p)
{
	uint64_t quota = w->job->ops;
	int rc = 0;

	while (!bt_worker_stop_raised(w) && (quota == 0 || p->round_trips < quota)) {
		uint64_t t = bt_lat_begin(w);

		pass_token(p);
		if (p->sync == S_COND) {
			cond_set(p, &p->to_pong, TURN_PONG);
			bt_lock_acquire(&p->lock);
			cond_wait(p, &p->to_ping, TURN_PONG);
			bt_lock_release(&p->lock);
		} else if (p->sync == S_SPIN || p->sync == S_FUTEX) {
			word_set(p, TURN_PONG);
			word_wait(p, TURN_PONG);
		} else if (fd_send(p, p->fd_pong[1], 0) < 0 || fd_recv(p, p->fd_ping[0]) != 1) {
			rc = bt_worker_fail(w, "%s: %s", sync_choices[p->sync], strerror(errno));
			break;
		}
		bt_lat_end(w, t);
		p->round_trips++;
		bt_worker_ops(w, 1);
	}
	/* Worker 1 waits for the ball: tell it the game is over. */
	if (p->sync == S_COND)
		cond_set(p, &p->to_pong, TURN_QUIT);
	else if (p->sync == S_SPIN || p->sync == S_FUTEX)
		word_set(p, TURN_QUIT);
	else
		fd_send(p, p->fd_pong[1], 1);
	return rc;
}

/* Worker 1: answer every hand-off until worker 0 says quit. */
static int pong(struct bt_worker *w, struct pp *p)
{
	for (;;) {
		uint32_t t;

		if (p->sync == S_COND) {
			bt_lock_acquire(&p->lock);
			t = cond_wait(p, &p->to_pong, TURN_PING);
			bt_lock_release(&p->lock);
		} else if (p->sync == S_SPIN || p->sync == S_FUTEX) {
			t = word_wait(p, TURN_PING);
		} else {
			int r = fd_recv(p, p->fd_pong[0]);

			if (r < 0)
				return bt_worker_fail(w, "%s: %s", sync_choices[p->sync], strerror(errno));
			t = r ? TURN_PONG : TURN_QUIT;
		}
		if (t == TURN_QUIT)
			return 0;
		pass_token(p);
		p->answers++;
		if (p->sync == S_COND)
			cond_set(p, &p->to_ping, TURN_PING);
		else if (p->sync == S_SPIN || p->sync == S_FUTEX)
			word_set(p, TURN_PING);
		else if (fd_send(p, p->fd_ping[1], 0) < 0)
			return bt_worker_fail(w, "%s: %s", sync_choices[p->sync], strerror(errno));
	}
}

static int pp_worker(struct bt_worker *w)
{
	struct pp *p = w->job->state;

	return w->id == 0 ? ping(w, p) : pong(w, p);
}

static int pp_verify(struct bt_job *job, struct bt_err *err)
{
	const struct pp *p = job->state;
	uint64_t token = atomic_load(&p->token);

	if (p->answers != p->round_trips || token != 2 * p->round_trips)
		return bt_err_set(err, -EIO, "%llu round trips, %llu answers, token %llu (expected %llu)",
				  (unsigned long long)p->round_trips, (unsigned long long)p->answers,
				  (unsigned long long)token, 2 * (unsigned long long)p->round_trips);
	if (job->ops && p->round_trips != job->ops)
		return bt_err_set(err, -EIO, "%llu round trips of ops=%llu",
				  (unsigned long long)p->round_trips, (unsigned long long)job->ops);
	return 0;
}

const struct bt_workload bt_wl_pingpong = {
	.name = "pingpong",
	.group = "threads",
	.title = "two threads hand a token back and forth: the cost of a wake-up per sync model",
	.unit = "round trips",
	.lat_what = "one round trip",
	.params = params,
	.nparams = sizeof(params) / sizeof(params[0]),
	.stop_default = "duration=1s",
	.setup = pp_setup,
	.worker = pp_worker,
	.verify = pp_verify,
	.teardown = pp_teardown,
};
