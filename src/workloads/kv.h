/*
 * kv.h - what the kv workload's files share (kv.c: the workload, the
 * in-process table and the blocking client loop; kv_loop.c: the
 * event-driven clients of loops=; kv_net.c: the memcached, redis and
 * gearman backends). Private to src/workloads/kv*.c.
 */
#ifndef BT_WORKLOADS_KV_H
#define BT_WORKLOADS_KV_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bt_config.h"
#include "core/err.h"
#include "engines/spawn.h"
#include "engines/sync.h"
#include "engines/worker.h"

enum kv_backend { B_INPROC, B_MEMCACHED, B_REDIS, B_GEARMAN, B_COUNT };

/*
 * What one request does: increment a counter (creating it at 1 when
 * missing), read a key, or store a value of kv_conf.value_size bytes.
 */
enum kv_req { R_INCR, R_GET, R_SET };

/* Error kinds, in the order of their metrics (kv.c M_TIMEOUT ..). */
enum kv_ekind { E_TIMEOUT, E_REFUSED, E_RESET, E_PROTOCOL, E_COUNT };

/* Where a server is: host:port, or a Unix socket path (port 0). */
struct kv_addr {
	char host[256];
	int port;
};

/* What a client connection needs to know, fixed per cell. */
struct kv_conf {
	enum kv_backend backend;
	struct kv_addr addr;
	int binary;		/* memcached: binary protocol */
	int noreply;		/* memcached */
	char password[128];	/* redis AUTH ("" none) */
	int background;		/* gearman submit=background */
	int timeout_ms;
	char fn_incr[64], fn_get[64];	/* gearman function names (per run) */
	const char *value;	/* R_SET: the value stored, value_size bytes */
	size_t value_size;
};

/*
 * The striped table of the inproc backend, and of benchtop's own gearman
 * worker: open addressing within each stripe, one process-shared lock per
 * stripe. Lives in shared memory; ids are nonzero 64-bit key ids.
 */
#define KV_STRIPES 256

struct kv_slot {
	uint64_t id;
	uint64_t count;
};

struct kv_table {
	uint64_t per_stripe;	/* slots per stripe, a power of two */
	_Atomic uint64_t jobs_done;	/* gearman worker: increments applied */
	struct bt_lock lock[KV_STRIPES];
	struct kv_slot slot[];	/* [KV_STRIPES * per_stripe] */
};

size_t kv_table_size(uint64_t per_stripe);
void kv_table_init(struct kv_table *t, uint64_t per_stripe);
/* Add 1 to id's counter (creating it at 1); the new value, or 0 when full. */
uint64_t kv_table_incr(struct kv_table *t, uint64_t id);
/* id's counter, 0 when absent. */
uint64_t kv_table_get(struct kv_table *t, uint64_t id);
void kv_table_clear(struct kv_table *t);
uint64_t kv_fnv(const char *s, size_t n);

/* One client connection of a network backend (opaque; kv_net.c). */
struct kv_conn;

/*
 * Connect (TCP_NODELAY, timeouts, AUTH); NULL with *kind and msg set on
 * failure. Any thread or process.
 */
struct kv_conn *kv_net_connect(const struct kv_conf *cf, int *kind, char *msg, size_t n);
void kv_net_close(struct kv_conn *c);

/*
 * The result of one request: rc 0 or -1 (then kind and msg say why, and
 * sent says whether it may have reached the server); value: the counter
 * after an increment (0: unknown, e.g. noreply), the number a read found;
 * hit: the read found its key, vlen bytes long. msg is written only when
 * rc is -1.
 */
struct kv_res {
	int rc;
	int kind;
	int sent;
	int created;
	int hit;
	uint64_t value;
	size_t vlen;
	char msg[160];
};

/*
 * Run n requests, ops[i] (enum kv_req) of keys[i], pipelined when n > 1
 * (redis only); res[i] says how each went. When one fails with a
 * connection error the rest of the batch fails with it and the connection
 * must be closed (return value -1).
 */
int kv_net_batch(struct kv_conn *c, int n, const int *ops, char *const *keys, const size_t *lens,
		 struct kv_res *res);

/*
 * The event-driven form of kv_net_batch (redis only, kv_loop.c): the
 * connection's socket made non-blocking, requests queued, written as far
 * as the socket takes them, and replies collected as they arrive.
 * kv_net_send: 0 all written, 1 the rest waits for EPOLLOUT, -1 a
 * connection error (*kind, msg). kv_net_collect: read what has arrived and
 * fill res[*got..n-1]; 0 more to come, 1 all n answered, -1 the connection
 * failed (the unanswered requests failed with it, res says how).
 */
int kv_net_fd(const struct kv_conn *c);
int kv_net_nonblock(struct kv_conn *c);
int kv_net_queue(struct kv_conn *c, int n, const int *ops, char *const *keys, const size_t *lens);
int kv_net_send(struct kv_conn *c, int *kind, char *msg, size_t mn);
int kv_net_collect(struct kv_conn *c, int n, const int *ops, struct kv_res *res, int *got);

/* Store value (vlen bytes) under keys[0..n-1] without timing (op=get's keyspace). 0 or -1 with msg. */
int kv_net_store(struct kv_conn *c, size_t n, char *const *keys, const size_t *lens,
		 const char *value, size_t vlen, char *msg, size_t mn);

/* A round trip after noreply requests: all of them have been processed once it returns 0. */
int kv_net_sync(struct kv_conn *c, char *msg, size_t n);

/*
 * Read back keys[0..n-1] (controller, verify): the sum of their counters,
 * how many exist, and how many of those are not vlen bytes long (vlen 0:
 * not checked). 0 or -1 with msg.
 */
struct kv_sum {
	uint64_t sum, present, badlen;
};
int kv_net_sum(struct kv_conn *c, size_t n, char *const *keys, const size_t *lens, size_t vlen,
	       struct kv_sum *out, char *msg, size_t mn);
/* Delete keys[0..n-1] (cleanup on a server benchtop did not start). */
int kv_net_delete(struct kv_conn *c, size_t n, char *const *keys, const size_t *lens);
/* redis: CONFIG SET appendonly/appendfsync for persist= on a spawned server. */
int kv_net_redis_persist(struct kv_conn *c, int persist, char *msg, size_t n);

/*
 * benchtop's own gearman worker: a forked child that applies the increments
 * and reads to t (shared memory) until it is killed. The child's PID or -errno.
 */
pid_t kv_gearman_worker_start(const struct kv_conf *cf, struct kv_table *t, struct bt_err *err);

/* 1 when the backend's client library is built in. */
int kv_net_have(enum kv_backend b);

/* ------------------------------------------- the rep, for kv.c and kv_loop.c */
#define KV_KEY_MAX 96
#define KV_DEPTH_MAX 512

/* op= (kv.c op_choices): what a client's requests are. */
enum kv_op { OP_COUNTER, OP_INCR, OP_GET, OP_SET };

/* What each client reports for verify (shared memory, one per client). */
struct kv_wres {
	uint64_t incr_ok;	/* increments acknowledged, or sent (noreply/background) */
	uint64_t incr_maybe;	/* failed after being sent: may have been applied */
	uint64_t iters;		/* iterations begun: their increment (or set) keys are touched */
	uint64_t reads_ok;	/* reads answered */
	uint64_t hits;		/* of them, found their key */
	uint64_t badlen;	/* op=get: hits whose value was not value_size bytes */
	uint64_t sets_ok, sets_failed;
	int synced;		/* noreply: the closing round trip succeeded */
	_Alignas(64) char pad[1];
};

struct kv_server;

/* One rep (job->state): fixed once the workers start, read by all of them. */
struct kv_state {
	struct kv_conf cf;
	enum kv_backend backend;
	enum kv_op op;
	unsigned rep;		/* rep_seq: in the key prefix */
	char prefix[64];
	size_t prefix_len;
	int short_keys;		/* key=short: prefix:id, not prefix::blog::article */
	uint64_t seed;
	uint64_t iterations;	/* per client; 0 with duration= */
	uint64_t keys;		/* op=get|set: the keyspace */
	char *value;		/* op=get|set: value_size bytes */
	int depth;
	uint64_t period_ns;	/* rate=: ns between a client's requests; 0 closed loop */
	int stop_on_error;
	struct kv_table *table;	/* inproc: the rep's table; gearman: the worker's */
	struct kv_wres *wres;	/* [nclients] */
	int nclients;
	int loops;		/* 0: a worker per client; else the workers are event loops */
	uint64_t gw_cpu0;
	const struct kv_server *srv;	/* the spawned server, or NULL */
	pid_t gw_pid;
};

/* A client's connection: reconnect with backoff after a failure. */
struct kv_client {
	struct bt_worker *w;
	struct kv_state *s;
	struct kv_conn *conn;
	int id;			/* 0..clients-1: whose keys */
	uint64_t down_until;	/* no connect attempt before this */
	uint64_t backoff;	/* ns, doubles to 100 ms */
	int down_kind;		/* the error a request gets while down */
	char down_msg[200];
};

/* Requests per iteration: 2 (increment, read) for op=counter, else 1. */
static inline uint64_t kv_per_iter(const struct kv_state *s)
{
	return s->op == OP_COUNTER ? 2 : 1;
}

/*
 * Client c's request number q (0, 1, ...): its kind (enum kv_req), its key
 * text in key (KV_KEY_MAX bytes) and its length, and the iteration it
 * belongs to. Pure: any worker, any time.
 */
int kv_request(const struct kv_state *s, int client, uint64_t q, char *key, size_t *len,
	       uint64_t *iter);

/*
 * lat_ns of a request whose latencies are not recorded: the in-process
 * backend's requests take ~200 ns, and two histogram records each (the main
 * one and the operation's channel) cost 8-10 % of that, so it records 1 in
 * lat_every of them (bt_lat_stamp); a server's requests are all recorded.
 */
#define KV_UNTIMED UINT64_MAX

/* Append the decimal digits of v to p (no terminator); returns the end. Keys and RESP lengths. */
static inline char *kv_put_dec(char *p, uint64_t v)
{
	char t[20];
	int k = 0;

	do
		t[k++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (k > 0)
		*p++ = t[--k];
	return p;
}

/*
 * Count one request's outcome (ops, latency from lat_ns unless KV_UNTIMED,
 * service time, per-kind metrics, the client's kv_wres); -1 when
 * on_error=stop ends the rep. The worker that owns cl.
 */
int kv_account(struct kv_client *cl, int op, const struct kv_res *r, uint64_t service_ns,
	       uint64_t lat_ns, struct kv_wres *wr);

/*
 * Connect cl when it has no connection and its backoff has passed (no
 * waiting): 0 connected (connects and connect_time counted), -1 not (the
 * backoff doubles to 100 ms; down_kind and down_msg say why).
 */
int kv_client_open(struct kv_client *cl);

/* Close cl's connection after kind of error; no new one before the backoff. */
void kv_client_drop(struct kv_client *cl, int kind, const char *msg);

/* The event-loop worker (loops=, kv_loop.c): drives its share of the clients on one epoll. */
int kv_loop_worker(struct bt_worker *w);

#endif
