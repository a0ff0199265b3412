/*
 * kv.h - what the kv workload's files share (kv.c: the workload, the
 * in-process table and the client loop; kv_net.c: the memcached, redis and
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
#include "engines/sync.h"

enum kv_backend { B_INPROC, B_MEMCACHED, B_REDIS, B_GEARMAN, B_COUNT };

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
 * after an increment (0: unknown, e.g. noreply), the read's value (0: miss).
 */
struct kv_res {
	int rc;
	int kind;
	int sent;
	int created;
	uint64_t value;
	char msg[160];
};

/*
 * Run n requests, ops[i] 0 = increment, 1 = read, of keys[i], pipelined
 * when n > 1 (redis only); res[i] says how each went. When one fails with
 * a connection error the rest of the batch fails with it and the
 * connection must be closed (return value -1).
 */
int kv_net_batch(struct kv_conn *c, int n, const int *ops, char *const *keys, const size_t *lens,
		 struct kv_res *res);

/* A round trip after noreply requests: all of them have been processed once it returns 0. */
int kv_net_sync(struct kv_conn *c, char *msg, size_t n);

/* Sum of the counters of keys[0..n-1] (controller, verify). 0 or -1 with msg. */
int kv_net_sum(struct kv_conn *c, size_t n, char *const *keys, const size_t *lens, uint64_t *sum,
	       char *msg, size_t mn);
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

#endif
