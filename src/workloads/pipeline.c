/*
 * pipeline.c - the three-stage pipeline (DESIGN.md, catalogue item 1).
 *
 * Producers put messages on queue 1; transmitters move them in blocks of up
 * to `block` messages to queue 2; receivers take them, check their
 * checksums and count them. Each locked queue is a bounded ring guarded by
 * one struct bt_lock with two struct bt_conds (not full, not empty) of the
 * plan's notify and wait models, so every classic strategy is a point in
 * lock x notify x wait; queue=lockfree replaces both queues by bt_rings
 * with sched_yield backoff as the reference point.
 *
 * Workers: ids 0..threads-1 are producers, then the transmitters, then
 * threads receivers. Producer p sends messages p#0 .. p#(units-1); all
 * messages live in one array made by setup, so the hot path never
 * allocates. Shutdown: the last producer to finish closes queue 1 (wakes
 * every transmitter); the last transmitter to finish closes queue 2 (wakes
 * every receiver). A stop raised by the engine (cancel, a failure) makes
 * whoever sees it first set `aborted` and wake every waiter of every
 * condition; waiters re-check after every wait, and atomic-model waits are
 * bounded (GUARD_NS) so that a stop is seen even when the thread that would
 * notify never ran.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engines/ring.h"
#include "engines/sync.h"
#include "engines/workload.h"

enum {
	P_THREADS,
	P_TRANSMITTERS,
	P_UNITS,
	P_BLOCK,
	P_CAPACITY,
	P_LOCK,
	P_NOTIFY,
	P_WAIT,
	P_TIMEOUT,
	P_QUEUE,
	P_MSGSIZE,
};

enum { Q_LOCKED, Q_LOCKFREE };
static const char *const queue_choices[] = { "locked", "lockfree", NULL };
/* The real lock kinds (no none: a pipeline needs a real lock); index = enum bt_lock_kind. */
static const char *const lock_choices[] = { BT_LOCK_CHOICES, NULL };

#define MEM_LIMIT (1ull << 30)		/* messages + bookkeeping made by setup */
#define GUARD_NS 50000000u		/* atomic-model waits re-check stop this often */

static const struct bt_param params[] = {
	[P_THREADS] = { .name = "threads", .kind = BT_P_INT, .def = "4", .min = 1, .max = 1024,
			.help = "producers, and as many receivers", .ticks = "1,2,4,8,16,32,64",
			.flags = BT_PF_WORKERS | BT_PF_LIVE },
	[P_TRANSMITTERS] = { .name = "transmitters", .kind = BT_P_INT, .def = "1", .min = 1,
			     .max = 64, .help = "threads moving blocks from queue 1 to queue 2" },
	[P_UNITS] = { .name = "units", .kind = BT_P_INT, .def = "1000", .min = 1, .max = 10000000,
		      .help = "messages each producer sends" },
	[P_BLOCK] = { .name = "block", .kind = BT_P_INT, .def = "5", .min = 1, .max = 1024,
		      .help = "messages a transmitter moves per transfer" },
	[P_CAPACITY] = { .name = "capacity", .kind = BT_P_INT, .def = "10", .min = 1,
			 .max = 1000000,
			 .help = "messages each queue holds (lockfree: next power of two)" },
	[P_LOCK] = { .name = "lock", .kind = BT_P_ENUM, .def = "mutex", .choices = lock_choices,
		     .help = "the queues' lock (adaptive = spin then block)", .flags = BT_PF_LIVE },
	[P_NOTIFY] = { .name = "notify", .kind = BT_P_ENUM, .def = "signal",
		       .choices = bt_notify_names, .help = "wake one waiter, or all of them",
		       .flags = BT_PF_LIVE },
	[P_WAIT] = { .name = "wait", .kind = BT_P_ENUM, .def = "atomic", .choices = bt_wait_names,
		     .help = "atomic release-and-wait, or release then wait on an event with timeout",
		     .flags = BT_PF_LIVE },
	[P_TIMEOUT] = { .name = "timeout", .kind = BT_P_DURATION, .def = "5ms", .min = 1000,
			.max = 10000000000ll, .help = "event wait timeout of wait=separate" },
	[P_QUEUE] = { .name = "queue", .kind = BT_P_ENUM, .def = "locked", .choices = queue_choices,
		      .help = "locked queues, or lock-free rings (ignores lock, notify, wait)" },
	[P_MSGSIZE] = { .name = "msgsize", .kind = BT_P_SIZE, .def = "64", .min = 8,
			.max = 65536, .help = "payload bytes per message (checksummed)" },
};

struct msg {
	uint32_t producer, seq;
	uint64_t stamp;		/* bt_now_ns() when produced; 0: not timed (latency off, or 1 in lat_every) */
	uint64_t sum;		/* over producer, seq and payload */
	unsigned char payload[];
};

struct queue {
	struct bt_lock lock;
	struct bt_cond not_full, not_empty;
	struct msg **buf;	/* [cap] */
	size_t cap, head, count;	/* under lock */
	int writers_left;	/* under lock: producers (q1) or transmitters (q2) still running */
	int closed;		/* under lock: writers_left reached 0 */
	struct bt_ring ring;	/* lockfree */
	_Alignas(64) _Atomic int lf_writers_left;	/* lockfree */
};

struct pl {
	int threads, transmitters, qkind;
	uint32_t units;
	size_t block, msgsize, stride;
	enum bt_wait_kind wait;
	uint64_t guard_ns;	/* bound of waits: GUARD_NS for atomic, 0 for separate */
	unsigned char *msgs;	/* [threads * units] of stride bytes */
	_Atomic uint32_t *seen;	/* [threads * units] */
	struct msg **tblk;	/* [transmitters * block]: each transmitter's block */
	struct queue q1, q2;
	int q_inited;		/* queues to destroy in teardown: 0, 1 or 2 */
	_Alignas(64) _Atomic int aborted;
};

static size_t msg_stride(size_t msgsize)
{
	return (sizeof(struct msg) + msgsize + 63) & ~(size_t)63;
}

static int pl_check(const struct bt_value *const *p, struct bt_err *err)
{
	uint64_t n = (uint64_t)p[P_THREADS]->i * (uint64_t)p[P_UNITS]->i;
	uint64_t bytes = n * (msg_stride((size_t)p[P_MSGSIZE]->i) + sizeof(uint32_t));

	if (bytes > MEM_LIMIT)
		return bt_err_set(err, -EINVAL,
				  "units=%lld: %llu messages (threads x units) of msgsize=%s need "
				  "%.1f GiB (limit 1 GiB): lower units, threads or msgsize",
				  (long long)p[P_UNITS]->i, (unsigned long long)n,
				  p[P_MSGSIZE]->text, (double)bytes / (double)(1ull << 30));
	return 0;
}

static struct msg *msg_at(const struct pl *s, uint32_t producer, uint32_t seq)
{
	return (struct msg *)(s->msgs + ((size_t)producer * s->units + seq) * s->stride);
}

static uint64_t mix64(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

/* The checksum of a message: over its identity and its payload. */
static uint64_t msg_sum(const struct msg *m, size_t n)
{
	uint64_t h = mix64(0xcbf29ce484222325ull, (uint64_t)m->producer << 32 | m->seq);
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t v;

		memcpy(&v, m->payload + i, 8);
		h = mix64(h, v);
	}
	for (; i < n; i++)
		h = mix64(h, m->payload[i]);
	return h;
}

/* The producer's work: a payload that is a function of (producer, seq) only. */
static void msg_fill(struct msg *m, size_t n)
{
	uint64_t x = ((uint64_t)m->producer << 32 | m->seq) * 0x9e3779b97f4a7c15ull + 1;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(m->payload + i, &x, 8);
	}
	for (; i < n; i++)
		m->payload[i] = (unsigned char)(x >> (8 * (i & 7)));
	m->sum = msg_sum(m, n);
}

/* ---- stop ---- */

static int leaving(struct pl *s, const struct bt_worker *w)
{
	return atomic_load_explicit(&s->aborted, memory_order_relaxed) ||
	       bt_worker_stop_raised(w);
}

static void wake_queue(struct queue *q)
{
	bt_lock_acquire(&q->lock);
	bt_cond_wake_all(&q->not_full);
	bt_cond_wake_all(&q->not_empty);
	bt_lock_release(&q->lock);
}

/*
 * Everyone leaves: mark aborted (verify then says so) and wake every waiter
 * of every condition. The first caller wakes; call without holding a queue
 * lock.
 */
static void pl_abort(struct pl *s)
{
	if (atomic_exchange(&s->aborted, 1) != 0)
		return;
	if (s->qkind == Q_LOCKED) {
		wake_queue(&s->q1);
		wake_queue(&s->q2);
	}
}

/* ---- locked queues ---- */

/* k items changed: wake k waiters (signal) or all of them once (broadcast). */
static void notify_n(struct bt_cond *c, size_t k)
{
	if (c->notify == BT_NOTIFY_BROADCAST)
		k = 1;
	while (k-- > 0)
		bt_cond_notify(c);
}

/* Put all n messages, waiting for room as needed. 0, or -1 when leaving. */
static int q_put(struct pl *s, struct bt_worker *w, struct queue *q, struct msg *const *m,
		 size_t n)
{
	bt_lock_acquire(&q->lock);
	while (n > 0) {
		size_t k;

		for (;;) {
			if (leaving(s, w)) {
				bt_lock_release(&q->lock);
				pl_abort(s);
				return -1;
			}
			if (q->count < q->cap)
				break;
			bt_cond_wait_for(&q->not_full, s->guard_ns);
		}
		k = q->cap - q->count;
		if (k > n)
			k = n;
		for (size_t i = 0; i < k; i++)
			q->buf[(q->head + q->count + i) % q->cap] = m[i];
		q->count += k;
		m += k;
		n -= k;
		notify_n(&q->not_empty, k);
	}
	bt_lock_release(&q->lock);
	return 0;
}

/*
 * Take up to max messages into out, waiting while the queue is empty and
 * open. Returns how many; 0 when the queue is closed and drained or when
 * leaving (then aborted is set).
 */
static size_t q_get(struct pl *s, struct bt_worker *w, struct queue *q, struct msg **out,
		    size_t max)
{
	size_t k;

	bt_lock_acquire(&q->lock);
	for (;;) {
		if (leaving(s, w)) {
			bt_lock_release(&q->lock);
			pl_abort(s);
			return 0;
		}
		if (q->count > 0)
			break;
		if (q->closed) {
			bt_lock_release(&q->lock);
			return 0;
		}
		bt_cond_wait_for(&q->not_empty, s->guard_ns);
	}
	k = q->count < max ? q->count : max;
	for (size_t i = 0; i < k; i++)
		out[i] = q->buf[(q->head + i) % q->cap];
	q->head = (q->head + k) % q->cap;
	q->count -= k;
	notify_n(&q->not_full, k);
	bt_lock_release(&q->lock);
	return k;
}

/* A writer of q is done; the last one closes q and wakes every reader. */
static void q_writer_done(struct pl *s, struct queue *q)
{
	if (s->qkind == Q_LOCKFREE) {
		atomic_fetch_sub_explicit(&q->lf_writers_left, 1, memory_order_acq_rel);
		return;
	}
	bt_lock_acquire(&q->lock);
	if (--q->writers_left == 0) {
		q->closed = 1;
		bt_cond_wake_all(&q->not_empty);
	}
	bt_lock_release(&q->lock);
}

/* ---- lock-free queues ---- */

static int lf_put(struct pl *s, struct bt_worker *w, struct queue *q, struct msg *m)
{
	while (bt_ring_push(&q->ring, m) != 0) {
		if (leaving(s, w)) {
			pl_abort(s);
			return -1;
		}
		sched_yield();
	}
	return 0;
}

/*
 * One message, yielding while the ring is empty. NULL when the writers are
 * all done and the ring is drained, or when leaving. A writer's last push
 * happens before its decrement, so a pop after reading 0 sees every message.
 */
static struct msg *lf_get(struct pl *s, struct bt_worker *w, struct queue *q)
{
	void *m;

	for (;;) {
		if (bt_ring_pop(&q->ring, &m) == 0)
			return m;
		if (atomic_load_explicit(&q->lf_writers_left, memory_order_acquire) == 0)
			return bt_ring_pop(&q->ring, &m) == 0 ? m : NULL;
		if (leaving(s, w)) {
			pl_abort(s);
			return NULL;
		}
		sched_yield();
	}
}

/* ---- the three stages ---- */

static int producer(struct pl *s, struct bt_worker *w, uint32_t p)
{
	for (uint32_t seq = 0; seq < s->units; seq++) {
		struct msg *m = msg_at(s, p, seq);

		if (leaving(s, w)) {
			pl_abort(s);
			return 0;
		}
		m->producer = p;
		m->seq = seq;
		msg_fill(m, s->msgsize);
		m->stamp = bt_lat_stamp(w, seq);	/* 1 in lat_every messages; 0: not timed */
		if (s->qkind == Q_LOCKFREE ? lf_put(s, w, &s->q1, m) : q_put(s, w, &s->q1, &m, 1))
			return 0;
	}
	q_writer_done(s, &s->q1);
	return 0;
}

/*
 * Gather a block of up to `block` messages from queue 1 (fewer only when
 * queue 1 is closed and drained), then put it on queue 2 in one transfer.
 */
static int transmitter(struct pl *s, struct bt_worker *w, int t)
{
	struct msg **blk = s->tblk + (size_t)t * s->block;

	for (;;) {
		size_t n = 0;

		while (n < s->block) {
			size_t k;

			if (s->qkind == Q_LOCKFREE) {
				blk[n] = lf_get(s, w, &s->q1);
				k = blk[n] != NULL;
			} else {
				k = q_get(s, w, &s->q1, blk + n, s->block - n);
			}
			if (k == 0)
				break;
			n += k;
		}
		if (atomic_load_explicit(&s->aborted, memory_order_relaxed))
			return 0;
		if (s->qkind == Q_LOCKFREE) {
			for (size_t i = 0; i < n; i++)
				if (lf_put(s, w, &s->q2, blk[i]) < 0)
					return 0;
		} else if (n > 0 && q_put(s, w, &s->q2, blk, n) < 0) {
			return 0;
		}
		if (n < s->block)
			break;
	}
	q_writer_done(s, &s->q2);
	return 0;
}

static int receiver(struct pl *s, struct bt_worker *w)
{
	for (;;) {
		struct msg *m;
		uint64_t now;

		if (s->qkind == Q_LOCKFREE)
			m = lf_get(s, w, &s->q2);
		else if (q_get(s, w, &s->q2, &m, 1) == 0)
			m = NULL;
		if (m == NULL)
			return 0;
		if (m->producer >= (uint32_t)s->threads || m->seq >= s->units) {
			pl_abort(s);
			return bt_worker_fail(w, "message with bad header: producer %u seq %u",
					      m->producer, m->seq);
		}
		if (msg_sum(m, s->msgsize) != m->sum) {
			pl_abort(s);
			return bt_worker_fail(w, "message p%u#%u: bad checksum", m->producer,
					      m->seq);
		}
		if (m->stamp != 0) {	/* stamped only with latency on */
			now = bt_now_ns();
			bt_lat_record(w, now - m->stamp);
		}
		atomic_fetch_add_explicit(&s->seen[(size_t)m->producer * s->units + m->seq], 1,
					  memory_order_relaxed);
		bt_worker_ops(w, 1);
		bt_worker_bytes(w, s->msgsize);
	}
}

static int pl_worker(struct bt_worker *w)
{
	struct pl *s = w->job->state;

	if (w->id < s->threads)
		return producer(s, w, (uint32_t)w->id);
	if (w->id < s->threads + s->transmitters)
		return transmitter(s, w, w->id - s->threads);
	return receiver(s, w);
}

/* ---- setup, verify, teardown ---- */

static int queue_init(struct pl *s, struct queue *q, const struct bt_job *job, int writers)
{
	enum bt_lock_kind lk = (enum bt_lock_kind)bt_job_param(job, P_LOCK)->i;
	enum bt_notify_kind nk = (enum bt_notify_kind)bt_job_param(job, P_NOTIFY)->i;
	uint64_t timeout = (uint64_t)bt_job_param(job, P_TIMEOUT)->i;
	size_t cap = (size_t)bt_job_param(job, P_CAPACITY)->i;
	int rc;

	q->cap = cap;
	q->head = q->count = 0;
	q->writers_left = writers;
	q->closed = 0;
	atomic_init(&q->lf_writers_left, writers);
	if (s->qkind == Q_LOCKFREE)
		return bt_ring_init(&q->ring, cap);
	q->buf = calloc(cap, sizeof(*q->buf));
	if (q->buf == NULL)
		return -ENOMEM;
	rc = bt_lock_init(&q->lock, lk);
	if (rc < 0)
		goto out_buf;
	rc = bt_cond_init(&q->not_full, &q->lock, nk, s->wait, timeout);
	if (rc < 0)
		goto out_lock;
	rc = bt_cond_init(&q->not_empty, &q->lock, nk, s->wait, timeout);
	if (rc < 0)
		goto out_cond;
	return 0;
out_cond:
	bt_cond_destroy(&q->not_full);
out_lock:
	bt_lock_destroy(&q->lock);
out_buf:
	free(q->buf);
	return rc;
}

static void queue_destroy(struct pl *s, struct queue *q)
{
	if (s->qkind == Q_LOCKFREE) {
		bt_ring_destroy(&q->ring);
		return;
	}
	bt_cond_destroy(&q->not_empty);
	bt_cond_destroy(&q->not_full);
	bt_lock_destroy(&q->lock);
	free(q->buf);
}

static void pl_teardown(struct bt_job *job)
{
	struct pl *s = job->state;

	if (s == NULL)
		return;
	if (s->q_inited >= 2)
		queue_destroy(s, &s->q2);
	if (s->q_inited >= 1)
		queue_destroy(s, &s->q1);
	free(s->msgs);
	free(s->seen);
	free(s->tblk);
	free(s);
	job->state = NULL;
}

static int pl_setup(struct bt_job *job, struct bt_err *err)
{
	struct pl *s;
	size_t n;
	int rc;

	rc = pl_check(job->params, err);
	if (rc < 0)
		return rc;
	s = aligned_alloc(64, sizeof(*s));
	if (s == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	memset(s, 0, sizeof(*s));
	job->state = s;
	s->threads = (int)bt_job_param(job, P_THREADS)->i;
	s->transmitters = (int)bt_job_param(job, P_TRANSMITTERS)->i;
	s->units = (uint32_t)bt_job_param(job, P_UNITS)->i;
	s->block = (size_t)bt_job_param(job, P_BLOCK)->i;
	s->msgsize = (size_t)bt_job_param(job, P_MSGSIZE)->i;
	s->stride = msg_stride(s->msgsize);
	s->qkind = (int)bt_job_param(job, P_QUEUE)->i;
	s->wait = (enum bt_wait_kind)bt_job_param(job, P_WAIT)->i;
	s->guard_ns = s->wait == BT_WAIT_SEPARATE ? 0 : GUARD_NS;
	atomic_init(&s->aborted, 0);

	n = (size_t)s->threads * s->units;
	s->msgs = aligned_alloc(64, n * s->stride);
	s->seen = calloc(n, sizeof(*s->seen));
	s->tblk = calloc((size_t)s->transmitters * s->block, sizeof(*s->tblk));
	if (s->msgs == NULL || s->seen == NULL || s->tblk == NULL) {
		rc = bt_err_set(err, -ENOMEM, "out of memory for %zu messages", n);
		goto fail;
	}
	/* touch every page now, so that the run does not pay the page faults */
	memset(s->msgs, 0, n * s->stride);
	if (queue_init(s, &s->q1, job, s->threads) < 0) {
		rc = bt_err_set(err, -ENOMEM, "cannot create queue 1");
		goto fail;
	}
	s->q_inited = 1;
	if (queue_init(s, &s->q2, job, s->transmitters) < 0) {
		rc = bt_err_set(err, -ENOMEM, "cannot create queue 2");
		goto fail;
	}
	s->q_inited = 2;
	job->nworkers = 2 * s->threads + s->transmitters;
	job->counted_first = s->threads + s->transmitters;	/* the receivers count items */
	job->counted_n = s->threads;
	job->total_ops = (uint64_t)n;	/* every message is received once */
	return 0;
fail:
	pl_teardown(job);
	return rc;
}

static uint64_t pl_timeouts(const struct pl *s)
{
	if (s->qkind == Q_LOCKFREE)
		return 0;
	return atomic_load(&s->q1.not_full.timeouts) + atomic_load(&s->q1.not_empty.timeouts) +
	       atomic_load(&s->q2.not_full.timeouts) + atomic_load(&s->q2.not_empty.timeouts);
}

/* Typed metrics: what the sync model cost beyond throughput. */
enum { PM_TIMEOUTS, PM_COUNT };

static const struct bt_metric metrics[PM_COUNT] = {
	[PM_TIMEOUTS] = { .name = "timeouts", .unit = "waits", .kind = BT_MK_COUNTER,
			  .help = "waits that ended by timeout (wait=separate): what that model costs" },
};

/*
 * Every message received exactly once. The waits that ended by timeout
 * (wait=separate) are the rep's timeouts metric.
 */
static int pl_verify(struct bt_job *job, struct bt_err *err)
{
	struct pl *s = job->state;
	size_t n = (size_t)s->threads * s->units;

	if (atomic_load(&s->aborted)) {
		uint64_t got = 0;

		for (size_t i = 0; i < n; i++)
			got += atomic_load_explicit(&s->seen[i], memory_order_relaxed) != 0;
		return bt_err_set(err, -ECANCELED, "cancelled: %llu of %zu messages received",
				  (unsigned long long)got, n);
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t c = atomic_load_explicit(&s->seen[i], memory_order_relaxed);

		if (c != 1)
			return bt_err_set(err, -EIO, "message p%zu#%zu received %u times",
					  i / s->units, i % s->units, c);
	}
	bt_job_metric(job, PM_TIMEOUTS, pl_timeouts(s));
	return 0;
}

const struct bt_workload bt_wl_pipeline = {
	.name = "pipeline",
	.group = "threads",
	.title = "producers -> transmitters -> receivers over two bounded queues",
	.unit = "items",
	.lat_what = "end-to-end per message (produced -> received)",
	.params = params,
	.nparams = sizeof(params) / sizeof(params[0]),
	.metrics = metrics,
	.nmetrics = PM_COUNT,
	.stop_default = NULL,
	.check = pl_check,
	.setup = pl_setup,
	.worker = pl_worker,
	.verify = pl_verify,
	.teardown = pl_teardown,
};
