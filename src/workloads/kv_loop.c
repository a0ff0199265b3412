/*
 * kv_loop.c - the kv workload's event-driven clients (loops=N, redis): each
 * worker is one event loop driving its share of the clients' connections on
 * one epoll, as redis-benchmark and memtier_benchmark do, instead of a
 * thread per client blocked in recv.
 *
 * Why: with a thread per client every request ends in a sleep and a wakeup
 * (a context switch each way); a loop sends on every idle connection, then
 * one epoll_wait returns the replies that have arrived meanwhile. Each
 * client is still its own connection with its own keys, schedule (rate=),
 * pipeline (depth=), reconnect backoff and verify record; a request costs
 * its send and its recv, and the registration for EPOLLIN stays put (an
 * epoll_ctl only while a send would block).
 *
 * Called from kv.c's worker when loops > 0; the worker's thread or process
 * (as=) is the loop.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "engines/workload.h"
#include "workloads/kv.h"

/* One client in a loop. */
struct lconn {
	struct kv_client cl;
	int n;			/* requests in flight (0: idle) */
	int got;		/* of them, answered */
	int out;		/* registered for EPOLLOUT (a send would block) */
	int *ops;		/* [depth] */
	struct kv_res *res;	/* [depth] */
	uint64_t q;		/* the client's next request number */
	uint64_t t1, intended, deadline;
	uint64_t wake;		/* while down: no attempt before this */
};

struct loop {
	struct bt_worker *w;
	struct kv_state *s;
	int ep;
	int nc;
	struct lconn *c;
	uint64_t inflight;	/* requests sent and not yet accounted */
	uint64_t total;		/* requests per client (0: until stop) */
};

static int watch(struct loop *l, struct lconn *c, int op, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u32 = (uint32_t)(c - l->c) };

	return epoll_ctl(l->ep, op, kv_net_fd(c->cl.conn), &ev);
}

static void drop(struct loop *l, struct lconn *c, int kind, const char *msg)
{
	(void)l;		/* closing the socket takes it off the epoll */
	kv_client_drop(&c->cl, kind, msg);
	c->out = 0;
	c->wake = 0;
}

/*
 * Connect a client that has none (kv_client_open: blocking, within
 * timeout=, and only once its backoff has passed), non-blocking from then
 * on and watched for EPOLLIN. 0 connected, -1 not (cl says why).
 */
static int connect_one(struct loop *l, struct lconn *c)
{
	struct kv_client *cl = &c->cl;

	if (kv_client_open(cl) < 0)
		return -1;
	if (kv_net_nonblock(cl->conn) < 0 || watch(l, c, EPOLL_CTL_ADD, EPOLLIN) < 0) {
		char msg[160];

		snprintf(msg, sizeof(msg), "redis: cannot watch the connection: %s", strerror(errno));
		drop(l, c, E_PROTOCOL, msg);
		return -1;
	}
	return 0;
}

/* Account c's batch, answered or failed, at t2; -1 when on_error=stop ends the rep. */
static int finish(struct loop *l, struct lconn *c, uint64_t t2)
{
	struct kv_wres *wr = &l->s->wres[c->cl.id];
	uint64_t base = c->intended ? c->intended : c->t1;
	int n = c->n;

	l->inflight -= (uint64_t)n;
	c->n = 0;
	for (int i = 0; i < n; i++)
		if (kv_account(&c->cl, c->ops[i], &c->res[i], t2 - c->t1, t2 - base, wr) < 0)
			return -1;
	return 0;
}

/* Fail c's batch from its unanswered requests on with one error, close, account. */
static int fail(struct loop *l, struct lconn *c, int kind, const char *msg, uint64_t now)
{
	for (int i = c->got; i < c->n; i++) {
		c->res[i].rc = -1;
		c->res[i].kind = kind;
		c->res[i].sent = 1;
		snprintf(c->res[i].msg, sizeof(c->res[i].msg), "%s", msg);
	}
	drop(l, c, kind, msg);
	return finish(l, c, now);
}

/*
 * Start client c's next batch (up to depth requests, within its own total
 * and the worker's ops= quota), intended at due; -1 when on_error=stop ends
 * the rep. A client whose connection is down waits up to 1 ms and fails
 * the batch with the error that took it down, as the blocking client does.
 */
static int start(struct loop *l, struct lconn *c, uint64_t due, uint64_t now)
{
	struct kv_state *s = l->s;
	struct kv_wres *wr = &s->wres[c->cl.id];
	char kbuf[KV_DEPTH_MAX][KV_KEY_MAX], *keys[KV_DEPTH_MAX], msg[160];
	size_t lens[KV_DEPTH_MAX];
	int n = s->depth, kind, rc;

	if (l->total && (uint64_t)n > l->total - c->q)
		n = (int)(l->total - c->q);
	if (l->w->quota && (uint64_t)n > l->w->quota - l->w->done - l->inflight)
		n = (int)(l->w->quota - l->w->done - l->inflight);
	for (int i = 0; i < n; i++) {
		uint64_t it;

		keys[i] = kbuf[i];
		c->ops[i] = kv_request(s, c->cl.id, c->q + (uint64_t)i, kbuf[i], &lens[i], &it);
		if (c->ops[i] != R_GET || s->op != OP_COUNTER)
			wr->iters = it + 1;
	}
	c->q += (uint64_t)n;
	c->n = n;
	c->got = 0;
	c->t1 = now;
	c->intended = s->period_ns ? due : 0;
	c->deadline = now + (uint64_t)s->cf.timeout_ms * 1000000u;
	l->inflight += (uint64_t)n;
	if (c->cl.conn == NULL && connect_one(l, c) < 0) {
		for (int i = 0; i < n; i++) {
			c->res[i].rc = -1;
			c->res[i].kind = c->cl.down_kind;
			c->res[i].sent = 0;	/* never left: cannot have been applied */
			c->res[i].msg[0] = '\0';
		}
		c->wake = now + 1000000 < c->cl.down_until ? now + 1000000 : c->cl.down_until;
		return finish(l, c, now);
	}
	if (kv_net_queue(c->cl.conn, n, c->ops, keys, lens) < 0)
		return fail(l, c, E_PROTOCOL, "redis: out of memory", now);
	rc = kv_net_send(c->cl.conn, &kind, msg, sizeof(msg));
	if (rc < 0)
		return fail(l, c, kind, msg, now);
	if (rc > 0 && watch(l, c, EPOLL_CTL_MOD, EPOLLIN | EPOLLOUT) == 0)
		c->out = 1;
	return 0;
}

/* c's socket has something: the rest of a send, replies, or a close. */
static int ready(struct loop *l, struct lconn *c, uint32_t events, uint64_t now)
{
	char msg[160];
	int kind, rc;

	if (c->cl.conn == NULL)
		return 0;
	if (c->n == 0) {
		/* Nothing asked: the server closed the connection (or spoke out of turn). */
		char b;
		ssize_t r = recv(kv_net_fd(c->cl.conn), &b, 1, MSG_PEEK | MSG_DONTWAIT);

		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			drop(l, c, E_RESET, "redis: the server closed the connection");
		else if (r > 0)
			drop(l, c, E_PROTOCOL, "redis: a reply to no request");
		return 0;
	}
	if (c->out && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
		rc = kv_net_send(c->cl.conn, &kind, msg, sizeof(msg));
		if (rc < 0)
			return fail(l, c, kind, msg, now);
		if (rc == 0 && watch(l, c, EPOLL_CTL_MOD, EPOLLIN) == 0)
			c->out = 0;
	}
	if (!(events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
		return 0;
	rc = kv_net_collect(c->cl.conn, c->n, c->ops, c->res, &c->got);
	if (rc == 0)
		return 0;
	if (rc < 0) {
		int i = c->n - 1;

		drop(l, c, c->res[i].kind, c->res[i].msg);
	}
	return finish(l, c, now);
}

int kv_loop_worker(struct bt_worker *w)
{
	struct kv_state *s = w->job->state;
	struct loop l = { .w = w, .s = s, .ep = -1 };
	int nw = w->nworkers, per = s->nclients / nw, extra = s->nclients % nw;
	int first = w->id * per + (w->id < extra ? w->id : extra), rc = 0;
	uint64_t t0 = bt_now_ns(), last_scan = t0;
	struct epoll_event ev[256];

	l.nc = per + (w->id < extra);
	l.total = s->iterations * kv_per_iter(s);
	l.c = calloc((size_t)l.nc, sizeof(*l.c));
	l.ep = epoll_create1(EPOLL_CLOEXEC);
	if (l.c == NULL || l.ep < 0) {
		rc = bt_worker_fail(w, "out of memory or descriptors for an event loop");
		goto out;
	}
	for (int i = 0; i < l.nc; i++) {
		struct lconn *c = &l.c[i];

		c->cl = (struct kv_client){ .w = w, .s = s, .id = first + i };
		c->ops = calloc((size_t)s->depth, sizeof(*c->ops));
		c->res = calloc((size_t)s->depth, sizeof(*c->res));
		if (c->ops == NULL || c->res == NULL) {
			rc = bt_worker_fail(w, "out of memory for %d clients", l.nc);
			goto out;
		}
	}
	for (;;) {
		uint64_t now = bt_now_ns(), soonest = now + 10000000;
		int busy = 0, n;
		/* Once stopping, no new batch: the ones in flight are answered or time out. */
		int stopping = bt_worker_stop_raised(w) || (w->quota && w->done >= w->quota);

		if (stopping && l.inflight == 0)
			break;
		for (int i = 0; i < l.nc; i++) {
			struct lconn *c = &l.c[i];
			uint64_t due;

			if (c->n > 0) {
				busy = 1;
				if (c->deadline < soonest)
					soonest = c->deadline;
				continue;
			}
			if (stopping || (l.total && c->q >= l.total))
				continue;
			busy = 1;
			if (w->quota && w->done + l.inflight >= w->quota)
				continue;
			due = s->period_ns ? t0 + c->q * s->period_ns : now;
			if (c->cl.conn == NULL && c->wake > due)
				due = c->wake;
			if (due > now) {
				if (due < soonest)
					soonest = due;
				continue;
			}
			if (start(&l, c, due, now) < 0) {
				rc = -EIO;
				goto out;
			}
		}
		if (!busy)
			break;
		n = bt_epoll_wait_ns(l.ep, ev, 256, soonest > now ? soonest - now : 0);
		now = bt_now_ns();
		for (int i = 0; i < n; i++)
			if (ready(&l, &l.c[ev[i].data.u32], ev[i].events, now) < 0) {
				rc = -EIO;
				goto out;
			}
		if (now - last_scan >= 10000000) {
			last_scan = now;
			for (int i = 0; i < l.nc; i++) {
				struct lconn *c = &l.c[i];

				if (c->n > 0 && c->cl.conn != NULL && now >= c->deadline &&
				    fail(&l, c, E_TIMEOUT, "redis: no reply within timeout=", now) < 0) {
					rc = -EIO;
					goto out;
				}
			}
		}
	}
out:
	for (int i = 0; l.c != NULL && i < l.nc; i++) {
		kv_net_close(l.c[i].cl.conn);
		free(l.c[i].ops);
		free(l.c[i].res);
	}
	free(l.c);
	if (l.ep >= 0)
		close(l.ep);
	return rc;
}
