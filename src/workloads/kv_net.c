/*
 * kv_net.c - the kv workload's network backends: memcached (libmemcached),
 * redis (hiredis) and gearman (libgearman), each behind BT_HAVE_<LIB>; a
 * backend built without its library fails to connect with the package to
 * install (kv.c refuses it earlier, at validation).
 *
 * Errors are sorted into four kinds (kv.h enum kv_ekind): timeout, refused
 * (nothing listening, or not connected), reset (the peer closed or reset the
 * connection mid-request) and protocol (the server answered something
 * unexpected). A request that failed after it was written may still have
 * been applied: res->sent says so, and verify allows for it.
 */
#include "workloads/kv.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#if BT_HAVE_LIBMEMCACHED
#include <libmemcached/memcached.h>
#endif
#if BT_HAVE_HIREDIS
#include <hiredis/hiredis.h>
#endif
#if BT_HAVE_LIBGEARMAN
#include <libgearman/gearman.h>
#endif

#if BT_HAVE_HIREDIS
struct rd_reply {
	int type;
	long long integer;
	size_t len;
	char str[160];		/* the start of a string, status or error reply */
};
#endif

struct kv_conn {
	const struct kv_conf *cf;
#if BT_HAVE_LIBMEMCACHED
	memcached_st *mc;
	/*
	 * Reused by every get: no allocation per reply. Caller-owned (not
	 * allocated by memcached_result_create), so that the fetch that
	 * meets END resets it instead of freeing it.
	 */
	memcached_result_st res_st, *res;
#endif
#if BT_HAVE_HIREDIS
	redisContext *rc;
	redisReader *rr;	/* parses into rep (rd_fns), not into allocated replies */
	struct rd_reply rep;
	char *obuf;		/* requests formatted, not yet sent: [ooff, olen) */
	size_t olen, ooff, ocap;
	int nonblock;		/* kv_loop.c drives the socket */
#endif
#if BT_HAVE_LIBGEARMAN
	gearman_client_st *gc;
#endif
	int dummy;
};

int kv_net_have(enum kv_backend b)
{
	switch (b) {
	case B_MEMCACHED:
		return BT_HAVE_LIBMEMCACHED;
	case B_REDIS:
		return BT_HAVE_HIREDIS;
	case B_GEARMAN:
		return BT_HAVE_LIBGEARMAN;
	default:
		return 1;
	}
}

/* The kind of a failed system call's errno. */
__attribute__((unused)) static int errno_kind(int e)
{
	switch (e) {
	case EAGAIN:
	case ETIMEDOUT:
	case EINPROGRESS:
		return E_TIMEOUT;
	case ECONNREFUSED:
	case ENOENT:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EADDRNOTAVAIL:
		return E_REFUSED;
	case ECONNRESET:
	case EPIPE:
	case ECONNABORTED:
		return E_RESET;
	default:
		return E_PROTOCOL;
	}
}

/* ------------------------------------------------------------- memcached */
#if BT_HAVE_LIBMEMCACHED
static int mc_kind(memcached_st *mc, memcached_return_t r)
{
	switch (r) {
	case MEMCACHED_TIMEOUT:
		return E_TIMEOUT;
	case MEMCACHED_CONNECTION_FAILURE:
	case MEMCACHED_CONNECTION_SOCKET_CREATE_FAILURE:
	case MEMCACHED_SERVER_MARKED_DEAD:
	case MEMCACHED_SERVER_TEMPORARILY_DISABLED:
	case MEMCACHED_HOST_LOOKUP_FAILURE:
	case MEMCACHED_NO_SERVERS:
		return E_REFUSED;
	case MEMCACHED_READ_FAILURE:
	case MEMCACHED_WRITE_FAILURE:
	case MEMCACHED_UNKNOWN_READ_FAILURE:
	case MEMCACHED_CONNECTION_BIND_FAILURE:
		return E_RESET;
	case MEMCACHED_ERRNO: {
		int e = memcached_last_error_errno(mc);

		return e ? errno_kind(e) : E_RESET;
	}
	default:
		return E_PROTOCOL;
	}
}

static int mc_connect(struct kv_conn *c, int *kind, char *msg, size_t n)
{
	const struct kv_conf *cf = c->cf;
	memcached_return_t r;

	c->mc = memcached_create(NULL);
	if (c->mc == NULL) {
		*kind = E_PROTOCOL;
		snprintf(msg, n, "memcached: out of memory");
		return -1;
	}
	memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_BINARY_PROTOCOL, (uint64_t)cf->binary);
	memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_NOREPLY, (uint64_t)cf->noreply);
	memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_TCP_NODELAY, 1);
	memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_CONNECT_TIMEOUT, (uint64_t)cf->timeout_ms);
	memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_POLL_TIMEOUT, (uint64_t)cf->timeout_ms);
	memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_RCV_TIMEOUT, (uint64_t)cf->timeout_ms * 1000);
	memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_SND_TIMEOUT, (uint64_t)cf->timeout_ms * 1000);
	/* benchtop does its own reconnect backoff: never let the library park the server. */
	memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_RETRY_TIMEOUT, 0);
	memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_SERVER_FAILURE_LIMIT, 0);
	if (cf->addr.port == 0)
		r = memcached_server_add_unix_socket(c->mc, cf->addr.host);
	else
		r = memcached_server_add(c->mc, cf->addr.host, (in_port_t)cf->addr.port);
	if (r == MEMCACHED_SUCCESS) {
		/* libmemcached connects lazily: a version round trip makes it connect now. */
		memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_NOREPLY, 0);
		r = memcached_version(c->mc);
		memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_NOREPLY, (uint64_t)cf->noreply);
	}
	if (r != MEMCACHED_SUCCESS) {
		*kind = mc_kind(c->mc, r);
		snprintf(msg, n, "memcached %s:%d: %s", cf->addr.host, cf->addr.port,
			 memcached_last_error_message(c->mc));
		return -1;
	}
	c->res = memcached_result_create(c->mc, &c->res_st);
	if (c->res == NULL) {
		*kind = E_PROTOCOL;
		snprintf(msg, n, "memcached: out of memory");
		return -1;
	}
	return 0;
}

static void mc_fail(struct kv_conn *c, memcached_return_t r, struct kv_res *res, int sent)
{
	res->rc = -1;
	res->kind = mc_kind(c->mc, r);
	res->sent = sent;
	snprintf(res->msg, sizeof(res->msg), "memcached: %s", memcached_last_error_message(c->mc));
}

/* 1 when r leaves the connection unusable (reconnect), 0 for an answer we did not like. */
static int mc_conn_error(memcached_st *mc, memcached_return_t r)
{
	return mc_kind(mc, r) != E_PROTOCOL;
}

/*
 * A read: mget of the one key and fetch into the connection's own result,
 * whose buffer is reused (memcached_get hands the caller a new allocation
 * per value); the same round trip.
 */
static int mc_get(struct kv_conn *c, const char *key, size_t len, struct kv_res *res)
{
	memcached_return_t r = memcached_mget(c->mc, &key, &len, 1);

	if (r == MEMCACHED_SUCCESS) {
		while (memcached_fetch_result(c->mc, c->res, &r) != NULL) {
			const char *v = memcached_result_value(c->res);
			size_t vl = memcached_result_length(c->res), k = vl < 20 ? vl : 20;
			char num[24];

			memcpy(num, v, k);
			num[k] = '\0';
			res->hit = 1;
			res->vlen = vl;
			res->value = strtoull(num, NULL, 10);
		}
		if (r == MEMCACHED_END || r == MEMCACHED_NOTFOUND || r == MEMCACHED_SUCCESS)
			return 0;
	}
	mc_fail(c, r, res, 1);
	return mc_conn_error(c->mc, r) ? -1 : 0;
}

static int mc_one(struct kv_conn *c, int op, const char *key, size_t len, struct kv_res *res)
{
	memcached_return_t r;
	uint64_t v = 0;

	res->rc = 0;
	res->sent = 0;
	res->created = 0;
	res->hit = 0;
	res->value = 0;
	res->vlen = 0;
	if (op == R_GET)
		return mc_get(c, key, len, res);
	if (op == R_SET) {
		r = memcached_set(c->mc, key, len, c->cf->value, c->cf->value_size, 0, 0);
		if (r == MEMCACHED_SUCCESS || r == MEMCACHED_BUFFERED)
			return 0;
		mc_fail(c, r, res, 1);
		return mc_conn_error(c->mc, r) ? -1 : 0;
	}
	if (c->cf->noreply) {
		/*
		 * No reply means no NOT_FOUND either: the binary protocol's
		 * increment with an initial value creates the key on the server.
		 */
		r = memcached_increment_with_initial(c->mc, key, len, 1, 1, 0, &v);
		if (r != MEMCACHED_SUCCESS && r != MEMCACHED_BUFFERED) {
			mc_fail(c, r, res, 1);
			return mc_conn_error(c->mc, r) ? -1 : 0;
		}
		return 0;
	}
	/* incr; when missing add 1; when the add lost a race, incr again. */
	for (int tries = 0; tries < 3; tries++) {
		r = memcached_increment(c->mc, key, len, 1, &v);
		if (r == MEMCACHED_SUCCESS) {
			res->value = v;
			return 0;
		}
		if (r != MEMCACHED_NOTFOUND)
			break;
		r = memcached_add(c->mc, key, len, "1", 1, 0, 0);
		if (r == MEMCACHED_SUCCESS) {
			res->value = 1;
			res->created = 1;
			return 0;
		}
		if (r != MEMCACHED_NOTSTORED && r != MEMCACHED_DATA_EXISTS)
			break;
	}
	mc_fail(c, r, res, 1);
	return mc_conn_error(c->mc, r) ? -1 : 0;
}
#endif

/* ----------------------------------------------------------------- redis */
#if BT_HAVE_HIREDIS
/*
 * The request path does its own I/O on the socket hiredis connected (and
 * authenticated): commands are formatted straight into the connection's
 * output buffer (RESP needs no format string), sent with one send(), and the
 * replies parsed by a hiredis reader whose object functions fill one
 * struct rd_reply in the connection instead of allocating a redisReply per
 * reply. No allocation per request once the buffers have grown; the
 * controller's commands (PING, AUTH, CONFIG, DEL) still go through
 * redisCommand on connections that never carry requests at the same time.
 */
static void *rd_obj(const redisReadTask *t, int type)
{
	struct rd_reply *r = t->privdata;

	if (t->parent != NULL)	/* an array's element: the array itself is what counts */
		return r;
	r->type = type;
	r->len = 0;
	r->str[0] = '\0';
	return r;
}

static void *rd_string(const redisReadTask *t, char *str, size_t len)
{
	struct rd_reply *r = rd_obj(t, t->type);
	size_t k = len < sizeof(r->str) - 1 ? len : sizeof(r->str) - 1;

	if (t->parent == NULL) {
		memcpy(r->str, str, k);
		r->str[k] = '\0';
		r->len = len;
	}
	return r;
}

#if HIREDIS_MAJOR >= 1
static void *rd_array(const redisReadTask *t, size_t n)
#else
static void *rd_array(const redisReadTask *t, int n)
#endif
{
	(void)n;
	return rd_obj(t, REDIS_REPLY_ARRAY);
}

static void *rd_integer(const redisReadTask *t, long long v)
{
	struct rd_reply *r = rd_obj(t, REDIS_REPLY_INTEGER);

	if (t->parent == NULL)
		r->integer = v;
	return r;
}

static void *rd_nil(const redisReadTask *t)
{
	return rd_obj(t, REDIS_REPLY_NIL);
}

static void rd_free(void *obj)
{
	(void)obj;	/* the reply lives in its connection */
}

static redisReplyObjectFunctions rd_fns = {
	.createString = rd_string,
	.createArray = rd_array,
	.createInteger = rd_integer,
	.createNil = rd_nil,
	.freeObject = rd_free,
};

static int rd_kind(redisContext *rc, int saved_errno)
{
	if (rc->err == REDIS_ERR_EOF)
		return E_RESET;
	if (rc->err == REDIS_ERR_PROTOCOL || rc->err == REDIS_ERR_OOM)
		return E_PROTOCOL;
	if (strstr(rc->errstr, "timed out") || strstr(rc->errstr, "temporarily unavailable"))
		return E_TIMEOUT;
	if (strstr(rc->errstr, "refused") || strstr(rc->errstr, "No such file"))
		return E_REFUSED;
	if (strstr(rc->errstr, "reset") || strstr(rc->errstr, "Broken pipe"))
		return E_RESET;
	return errno_kind(saved_errno);
}

static int rd_connect(struct kv_conn *c, int *kind, char *msg, size_t n)
{
	const struct kv_conf *cf = c->cf;
	struct timeval tv = { cf->timeout_ms / 1000, (cf->timeout_ms % 1000) * 1000 };
	redisReply *rep;

	if (cf->addr.port == 0)
		c->rc = redisConnectUnixWithTimeout(cf->addr.host, tv);
	else
		c->rc = redisConnectWithTimeout(cf->addr.host, cf->addr.port, tv);
	if (c->rc == NULL || c->rc->err) {
		*kind = c->rc ? rd_kind(c->rc, errno) : E_PROTOCOL;
		snprintf(msg, n, "redis %s:%d: %s", cf->addr.host, cf->addr.port,
			 c->rc ? c->rc->errstr : "out of memory");
		return -1;
	}
	redisSetTimeout(c->rc, tv);
	/* One round trip now (like memcached's version): a server that does not answer, or wants AUTH, says so here. */
	if (cf->password[0] == '\0')
		rep = redisCommand(c->rc, "PING");
	else
		rep = redisCommand(c->rc, "AUTH %s", cf->password);
	if (rep == NULL) {
		*kind = rd_kind(c->rc, errno);
		snprintf(msg, n, "redis %s:%d: %s", cf->addr.host, cf->addr.port, c->rc->errstr);
		return -1;
	}
	if (rep->type == REDIS_REPLY_ERROR) {
		*kind = E_PROTOCOL;
		snprintf(msg, n, "redis %s:%d: %s: %s", cf->addr.host, cf->addr.port,
			 cf->password[0] ? "AUTH refused" : "PING refused", rep->str);
		freeReplyObject(rep);
		return -1;
	}
	freeReplyObject(rep);
	c->rr = redisReaderCreateWithFunctions(&rd_fns);
	if (c->rr == NULL) {
		*kind = E_PROTOCOL;
		snprintf(msg, n, "redis: out of memory");
		return -1;
	}
	c->rr->privdata = &c->rep;
	return 0;
}

/* Append one RESP bulk string ($len\r\ntext\r\n) to p; the end. */
static char *put_bulk(char *p, const char *text, size_t len)
{
	*p++ = '$';
	p = kv_put_dec(p, len);
	*p++ = '\r';
	*p++ = '\n';
	memcpy(p, text, len);
	p += len;
	*p++ = '\r';
	*p++ = '\n';
	return p;
}

int kv_net_queue(struct kv_conn *c, int n, const int *ops, char *const *keys, const size_t *lens)
{
	size_t need = c->olen;
	char *p;

	for (int i = 0; i < n; i++)
		need += 48 + lens[i] + (ops[i] == R_SET ? 24 + c->cf->value_size : 0);
	if (need > c->ocap) {
		size_t cap = c->ocap ? c->ocap : 4096;
		char *nb;

		while (cap < need)
			cap *= 2;
		nb = realloc(c->obuf, cap);
		if (nb == NULL)
			return -1;
		c->obuf = nb;
		c->ocap = cap;
	}
	p = c->obuf + c->olen;
	for (int i = 0; i < n; i++) {
		if (ops[i] == R_SET) {
			memcpy(p, "*3\r\n$3\r\nSET\r\n", 13);
			p = put_bulk(p + 13, keys[i], lens[i]);
			p = put_bulk(p, c->cf->value, c->cf->value_size);
		} else if (ops[i] == R_GET) {
			memcpy(p, "*2\r\n$3\r\nGET\r\n", 13);
			p = put_bulk(p + 13, keys[i], lens[i]);
		} else {
			memcpy(p, "*2\r\n$4\r\nINCR\r\n", 14);
			p = put_bulk(p + 14, keys[i], lens[i]);
		}
	}
	c->olen = (size_t)(p - c->obuf);
	return 0;
}

int kv_net_send(struct kv_conn *c, int *kind, char *msg, size_t mn)
{
	while (c->ooff < c->olen) {
		ssize_t w = send(c->rc->fd, c->obuf + c->ooff, c->olen - c->ooff, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && c->nonblock)
			return 1;
		if (w < 0) {
			*kind = errno_kind(errno);
			snprintf(msg, mn, "redis: send: %s", strerror(errno));
			return -1;
		}
		c->ooff += (size_t)w;
	}
	c->olen = c->ooff = 0;
	return 0;
}

/* What one reply says about request op. */
static void rd_result(const struct rd_reply *rep, int op, struct kv_res *r)
{
	r->rc = 0;
	r->kind = 0;
	r->sent = 0;
	r->created = 0;
	r->hit = 0;
	r->value = 0;
	r->vlen = 0;
	if (rep->type == REDIS_REPLY_INTEGER && op == R_INCR) {
		r->value = (uint64_t)rep->integer;
		r->created = rep->integer == 1;
	} else if (rep->type == REDIS_REPLY_STRING && op == R_GET) {
		r->hit = 1;
		r->vlen = rep->len;
		r->value = strtoull(rep->str, NULL, 10);
	} else if (rep->type == REDIS_REPLY_NIL && op == R_GET) {
		/* a miss */
	} else if (rep->type == REDIS_REPLY_STATUS && op == R_SET) {
		/* +OK */
	} else {
		r->rc = -1;
		r->kind = E_PROTOCOL;
		r->sent = 1;
		snprintf(r->msg, sizeof(r->msg), "redis: %s",
			 rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected reply");
	}
}

/* Fail requests [from, n) with one connection error. */
static void rd_fail(struct kv_res *res, int from, int n, int kind, const char *what)
{
	for (int j = from; j < n; j++) {
		res[j].rc = -1;
		res[j].kind = kind;
		res[j].sent = 1;
		snprintf(res[j].msg, sizeof(res[j].msg), "%s", what);
	}
}

int kv_net_collect(struct kv_conn *c, int n, const int *ops, struct kv_res *res, int *got)
{
	for (;;) {
		char buf[16384];
		ssize_t r;

		while (*got < n) {
			void *rep = NULL;

			if (redisReaderGetReply(c->rr, &rep) != REDIS_OK) {
				rd_fail(res, *got, n, E_PROTOCOL, "redis: unparsable reply");
				return -1;
			}
			if (rep == NULL)
				break;
			rd_result(&c->rep, ops[*got], &res[*got]);
			(*got)++;
		}
		if (*got == n)
			return 1;
		r = recv(c->rc->fd, buf, sizeof(buf), 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && c->nonblock)
			return 0;
		if (r <= 0) {
			int e = errno;

			if (r == 0)
				rd_fail(res, *got, n, E_RESET, "redis: the server closed the connection");
			else if (e == EAGAIN || e == EWOULDBLOCK)
				rd_fail(res, *got, n, E_TIMEOUT, "redis: no reply within timeout=");
			else
				rd_fail(res, *got, n, errno_kind(e),
					e == ECONNRESET ? "redis: connection reset" : "redis: recv failed");
			return -1;
		}
		if (redisReaderFeed(c->rr, buf, (size_t)r) != REDIS_OK) {
			rd_fail(res, *got, n, E_PROTOCOL, "redis: out of memory");
			return -1;
		}
	}
}

/*
 * Append all n commands, then read the n replies: depth n in flight (the
 * redis-benchmark -P form), on the blocking socket with timeout= as its
 * send and receive timeouts. A connection error fails the rest of the batch.
 */
static int rd_batch(struct kv_conn *c, int n, const int *ops, char *const *keys,
		    const size_t *lens, struct kv_res *res)
{
	int kind = E_PROTOCOL, got = 0;
	char msg[160] = "redis: out of memory";

	if (kv_net_queue(c, n, ops, keys, lens) < 0 || kv_net_send(c, &kind, msg, sizeof(msg)) < 0) {
		rd_fail(res, 0, n, kind, msg);
		return -1;
	}
	return kv_net_collect(c, n, ops, res, &got) < 0 ? -1 : 0;
}
#else
/* Built without hiredis: kv.c refuses loops= before any of these is called. */
int kv_net_queue(struct kv_conn *c, int n, const int *ops, char *const *keys, const size_t *lens)
{
	(void)c, (void)n, (void)ops, (void)keys, (void)lens;
	return -1;
}

int kv_net_send(struct kv_conn *c, int *kind, char *msg, size_t mn)
{
	(void)c;
	*kind = E_PROTOCOL;
	snprintf(msg, mn, "built without hiredis");
	return -1;
}

int kv_net_collect(struct kv_conn *c, int n, const int *ops, struct kv_res *res, int *got)
{
	(void)c, (void)ops;
	for (int i = *got; i < n; i++) {
		res[i].rc = -1;
		res[i].kind = E_PROTOCOL;
		snprintf(res[i].msg, sizeof(res[i].msg), "built without hiredis");
	}
	return -1;
}
#endif

/* --------------------------------------------------------------- gearman */
#if BT_HAVE_LIBGEARMAN
static int gm_kind(gearman_return_t r)
{
	switch (r) {
	case GEARMAN_TIMEOUT:
		return E_TIMEOUT;
	case GEARMAN_COULD_NOT_CONNECT:
	case GEARMAN_NO_SERVERS:
	case GEARMAN_GETADDRINFO:
		return E_REFUSED;
	case GEARMAN_LOST_CONNECTION:
	case GEARMAN_ERRNO:
	case GEARMAN_SEND_IN_PROGRESS:
		return E_RESET;
	default:
		return E_PROTOCOL;
	}
}

static int gm_connect(struct kv_conn *c, int *kind, char *msg, size_t n)
{
	const struct kv_conf *cf = c->cf;
	gearman_return_t r;

	c->gc = gearman_client_create(NULL);
	if (c->gc == NULL) {
		*kind = E_PROTOCOL;
		snprintf(msg, n, "gearman: out of memory");
		return -1;
	}
	gearman_client_set_timeout(c->gc, cf->timeout_ms);
	r = gearman_client_add_server(c->gc, cf->addr.host, (in_port_t)cf->addr.port);
	if (r == GEARMAN_SUCCESS)
		r = gearman_client_echo(c->gc, "bt", 2);	/* connect now, with a round trip */
	if (r != GEARMAN_SUCCESS) {
		*kind = gm_kind(r);
		snprintf(msg, n, "gearmand %s:%d: %s", cf->addr.host, cf->addr.port,
			 gearman_client_error(c->gc));
		return -1;
	}
	return 0;
}

static int gm_one(struct kv_conn *c, int op, const char *key, size_t len, struct kv_res *res)
{
	gearman_return_t r;
	size_t rs = 0;
	char *out;

	memset(res, 0, sizeof(res[0]));
	if (op == R_INCR && c->cf->background) {
		r = gearman_client_do_background(c->gc, c->cf->fn_incr, NULL, key, len, NULL);
		if (r == GEARMAN_SUCCESS)
			return 0;
	} else {
		out = gearman_client_do(c->gc, op == R_GET ? c->cf->fn_get : c->cf->fn_incr, NULL, key,
					len, &rs, &r);
		if (r == GEARMAN_SUCCESS) {
			if (out != NULL && rs > 0 && rs < 32) {
				char num[32];

				memcpy(num, out, rs);
				num[rs] = '\0';
				res->value = strtoull(num, NULL, 10);
				res->hit = 1;
			}
			res->created = op == R_INCR && res->value == 1;
			free(out);
			return 0;
		}
		free(out);
	}
	res->rc = -1;
	res->kind = gm_kind(r);
	res->sent = res->kind != E_REFUSED;
	snprintf(res->msg, sizeof(res->msg), "gearman: %s", gearman_client_error(c->gc));
	return res->kind == E_PROTOCOL ? 0 : -1;
}

/* The counting worker's functions: context is the shared table. */
static void *gw_incr(gearman_job_st *job, void *ctx, size_t *rsize, gearman_return_t *ret)
{
	struct kv_table *t = ctx;
	uint64_t v = kv_table_incr(t, kv_fnv(gearman_job_workload(job),
					     gearman_job_workload_size(job)));
	char *out = malloc(24);

	atomic_fetch_add_explicit(&t->jobs_done, 1, memory_order_release);
	*ret = v ? GEARMAN_SUCCESS : GEARMAN_WORK_FAIL;
	if (out == NULL) {
		*rsize = 0;
		return NULL;
	}
	*rsize = (size_t)snprintf(out, 24, "%" PRIu64, v);
	return out;
}

static void *gw_get(gearman_job_st *job, void *ctx, size_t *rsize, gearman_return_t *ret)
{
	uint64_t v = kv_table_get(ctx, kv_fnv(gearman_job_workload(job),
					      gearman_job_workload_size(job)));
	char *out = v ? malloc(24) : NULL;

	*ret = GEARMAN_SUCCESS;
	*rsize = out ? (size_t)snprintf(out, 24, "%" PRIu64, v) : 0;
	return out;
}

/* The child: serve jobs until killed; reconnect with a pause when gearmand is gone. */
static void gw_main(const struct kv_conf *cf, struct kv_table *t)
{
	gearman_worker_st *gw = gearman_worker_create(NULL);

	if (gw == NULL)
		_exit(1);
	gearman_worker_set_timeout(gw, 200);
	if (gearman_worker_add_server(gw, cf->addr.host, (in_port_t)cf->addr.port) != GEARMAN_SUCCESS ||
	    gearman_worker_add_function(gw, cf->fn_incr, 0, gw_incr, t) != GEARMAN_SUCCESS ||
	    gearman_worker_add_function(gw, cf->fn_get, 0, gw_get, t) != GEARMAN_SUCCESS)
		_exit(1);
	for (;;) {
		gearman_return_t r = gearman_worker_work(gw);

		if (r != GEARMAN_SUCCESS && r != GEARMAN_TIMEOUT && r != GEARMAN_IO_WAIT &&
		    r != GEARMAN_NO_JOBS)
			usleep(50000);
	}
}
#endif

pid_t kv_gearman_worker_start(const struct kv_conf *cf, struct kv_table *t, struct bt_err *err)
{
#if BT_HAVE_LIBGEARMAN
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0)
		return bt_err_set(err, -errno, "gearman worker: cannot fork: %s", strerror(errno));
	if (pid == 0) {
		/* Ends with benchtop, and only benchtop ends it (the terminal's Ctrl-C is the run's). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_DFL);
		gw_main(cf, t);
		_exit(0);
	}
	return pid;
#else
	(void)cf;
	(void)t;
	return bt_err_set(err, -ENOTSUP, "built without libgearman (apt install libgearman-dev)");
#endif
}

/* ---------------------------------------------------------------- common */
struct kv_conn *kv_net_connect(const struct kv_conf *cf, int *kind, char *msg, size_t n)
{
	struct kv_conn *c = calloc(1, sizeof(*c));
	int rc = -1;

	*kind = E_PROTOCOL;
	if (c == NULL) {
		snprintf(msg, n, "out of memory");
		return NULL;
	}
	c->cf = cf;
	switch (cf->backend) {
#if BT_HAVE_LIBMEMCACHED
	case B_MEMCACHED:
		rc = mc_connect(c, kind, msg, n);
		break;
#endif
#if BT_HAVE_HIREDIS
	case B_REDIS:
		rc = rd_connect(c, kind, msg, n);
		break;
#endif
#if BT_HAVE_LIBGEARMAN
	case B_GEARMAN:
		rc = gm_connect(c, kind, msg, n);
		break;
#endif
	default:
		snprintf(msg, n, "backend not built in");
		break;
	}
	if (rc < 0) {
		kv_net_close(c);
		return NULL;
	}
	return c;
}

void kv_net_close(struct kv_conn *c)
{
	if (c == NULL)
		return;
#if BT_HAVE_LIBMEMCACHED
	if (c->res)
		memcached_result_free(c->res);
	if (c->mc)
		memcached_free(c->mc);
#endif
#if BT_HAVE_HIREDIS
	if (c->rc)
		redisFree(c->rc);
	if (c->rr)
		redisReaderFree(c->rr);
	free(c->obuf);
#endif
#if BT_HAVE_LIBGEARMAN
	if (c->gc)
		gearman_client_free(c->gc);
#endif
	free(c);
}

int kv_net_batch(struct kv_conn *c, int n, const int *ops, char *const *keys, const size_t *lens,
		 struct kv_res *res)
{
	switch (c->cf->backend) {
#if BT_HAVE_HIREDIS
	case B_REDIS:
		return rd_batch(c, n, ops, keys, lens, res);
#endif
#if BT_HAVE_LIBMEMCACHED
	case B_MEMCACHED:
		for (int i = 0; i < n; i++)
			if (mc_one(c, ops[i], keys[i], lens[i], &res[i]) < 0)
				return -1;
		return 0;
#endif
#if BT_HAVE_LIBGEARMAN
	case B_GEARMAN:
		for (int i = 0; i < n; i++)
			if (gm_one(c, ops[i], keys[i], lens[i], &res[i]) < 0)
				return -1;
		return 0;
#endif
	default:
		(void)ops;
		(void)keys;
		(void)lens;
		for (int i = 0; i < n; i++) {
			res[i].rc = -1;
			res[i].kind = E_PROTOCOL;
		}
		return -1;
	}
}

int kv_net_fd(const struct kv_conn *c)
{
#if BT_HAVE_HIREDIS
	if (c->cf->backend == B_REDIS)
		return c->rc->fd;
#endif
	(void)c;
	return -1;
}

int kv_net_nonblock(struct kv_conn *c)
{
#if BT_HAVE_HIREDIS
	if (c->cf->backend == B_REDIS) {
		int fl = fcntl(c->rc->fd, F_GETFL);

		if (fl < 0 || fcntl(c->rc->fd, F_SETFL, fl | O_NONBLOCK) < 0)
			return -1;
		c->nonblock = 1;
		return 0;
	}
#endif
	(void)c;
	return -1;
}

int kv_net_sync(struct kv_conn *c, char *msg, size_t n)
{
#if BT_HAVE_LIBMEMCACHED
	if (c->cf->backend == B_MEMCACHED) {
		memcached_return_t r;

		memcached_flush_buffers(c->mc);
		memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_NOREPLY, 0);
		r = memcached_version(c->mc);
		memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_NOREPLY, (uint64_t)c->cf->noreply);
		if (r != MEMCACHED_SUCCESS) {
			snprintf(msg, n, "memcached: %s", memcached_last_error_message(c->mc));
			return -1;
		}
	}
#endif
	(void)c;
	(void)msg;
	(void)n;
	return 0;
}

#define SUM_BATCH 512

int kv_net_sum(struct kv_conn *c, size_t n, char *const *keys, const size_t *lens, size_t vlen,
	       struct kv_sum *out, char *msg, size_t mn)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i += SUM_BATCH) {
		size_t k = n - i < SUM_BATCH ? n - i : SUM_BATCH;

		(void)k;
		(void)vlen;
		switch (c->cf->backend) {
#if BT_HAVE_LIBMEMCACHED
		case B_MEMCACHED: {
			memcached_return_t r;

			memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_NOREPLY, 0);
			r = memcached_mget(c->mc, (const char *const *)(keys + i), lens + i, k);
			if (r != MEMCACHED_SUCCESS) {
				snprintf(msg, mn, "memcached: %s", memcached_last_error_message(c->mc));
				return -1;
			}
			while (memcached_fetch_result(c->mc, c->res, &r) != NULL) {
				size_t l = memcached_result_length(c->res), m = l < 20 ? l : 20;
				char num[24];

				memcpy(num, memcached_result_value(c->res), m);
				num[m] = '\0';
				out->present++;
				out->badlen += vlen != 0 && l != vlen;
				out->sum += strtoull(num, NULL, 10);
			}
			if (r != MEMCACHED_END && r != MEMCACHED_SUCCESS && r != MEMCACHED_NOTFOUND) {
				snprintf(msg, mn, "memcached: %s", memcached_last_error_message(c->mc));
				return -1;
			}
			break;
		}
#endif
#if BT_HAVE_HIREDIS
		case B_REDIS: {
			int ops[SUM_BATCH];
			struct kv_res res[SUM_BATCH];

			for (size_t j = 0; j < k; j++)
				ops[j] = R_GET;
			if (rd_batch(c, (int)k, ops, keys + i, lens + i, res) < 0) {
				snprintf(msg, mn, "%s", res[k - 1].msg);
				return -1;
			}
			for (size_t j = 0; j < k; j++) {
				if (res[j].rc < 0) {
					snprintf(msg, mn, "%s", res[j].msg);
					return -1;
				}
				out->present += res[j].hit;
				out->badlen += res[j].hit && vlen != 0 && res[j].vlen != vlen;
				out->sum += res[j].value;
			}
			break;
		}
#endif
		default:
			snprintf(msg, mn, "no read-back for this backend");
			return -1;
		}
	}
	return 0;
}

int kv_net_store(struct kv_conn *c, size_t n, char *const *keys, const size_t *lens,
		 const char *value, size_t vlen, char *msg, size_t mn)
{
	(void)keys;
	(void)lens;
	(void)value;
	(void)vlen;
	switch (c->cf->backend) {
#if BT_HAVE_LIBMEMCACHED
	case B_MEMCACHED: {
		/* Buffered noreply sets, then one round trip: the server has stored them all. */
		int rc;

		memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_NOREPLY, 1);
		memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_BUFFER_REQUESTS, 1);
		for (size_t i = 0; i < n; i++) {
			memcached_return_t r = memcached_set(c->mc, keys[i], lens[i], value, vlen, 0, 0);

			if (r != MEMCACHED_SUCCESS && r != MEMCACHED_BUFFERED) {
				snprintf(msg, mn, "memcached: storing op=get's keys: %s",
					 memcached_last_error_message(c->mc));
				return -1;
			}
		}
		rc = kv_net_sync(c, msg, mn);
		memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_BUFFER_REQUESTS, 0);
		return rc;
	}
#endif
#if BT_HAVE_HIREDIS
	case B_REDIS: {
		struct kv_conf cf = *c->cf;
		const struct kv_conf *saved = c->cf;
		int rc = 0;

		cf.value = value;
		cf.value_size = vlen;
		c->cf = &cf;
		for (size_t i = 0; i < n && rc == 0; i += SUM_BATCH) {
			size_t k = n - i < SUM_BATCH ? n - i : SUM_BATCH;
			int ops[SUM_BATCH];
			struct kv_res res[SUM_BATCH];

			for (size_t j = 0; j < k; j++)
				ops[j] = R_SET;
			rc = rd_batch(c, (int)k, ops, keys + i, lens + i, res);
			for (size_t j = 0; j < k && rc == 0; j++)
				rc = res[j].rc;
			if (rc < 0)
				for (size_t j = 0; j < k; j++)
					if (res[j].rc < 0) {
						snprintf(msg, mn, "storing op=get's keys: %s", res[j].msg);
						break;
					}
		}
		c->cf = saved;
		return rc;
	}
#endif
	default:
		(void)n;
		snprintf(msg, mn, "no values for this backend");
		return -1;
	}
}

int kv_net_delete(struct kv_conn *c, size_t n, char *const *keys, const size_t *lens)
{
	switch (c->cf->backend) {
#if BT_HAVE_LIBMEMCACHED
	case B_MEMCACHED: {
		char msg[64];

		/* noreply deletes, then one round trip: the server has done them all. */
		memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_NOREPLY, 1);
		for (size_t i = 0; i < n; i++)
			memcached_delete(c->mc, keys[i], lens[i], 0);
		return kv_net_sync(c, msg, sizeof(msg));
	}
#endif
#if BT_HAVE_HIREDIS
	case B_REDIS:
		for (size_t i = 0; i < n; i += SUM_BATCH) {
			size_t k = n - i < SUM_BATCH ? n - i : SUM_BATCH;
			const char *argv[SUM_BATCH + 1];
			size_t argl[SUM_BATCH + 1];
			redisReply *rep;

			argv[0] = "DEL";
			argl[0] = 3;
			for (size_t j = 0; j < k; j++) {
				argv[j + 1] = keys[i + j];
				argl[j + 1] = lens[i + j];
			}
			rep = redisCommandArgv(c->rc, (int)k + 1, argv, argl);
			if (rep == NULL)
				return -1;
			freeReplyObject(rep);
		}
		return 0;
#endif
	default:
		(void)n;
		(void)keys;
		(void)lens;
		return 0;
	}
}

int kv_net_redis_persist(struct kv_conn *c, int persist, char *msg, size_t n)
{
#if BT_HAVE_HIREDIS
	static const char *const fsync[] = { "everysec", "everysec", "always" };
	redisReply *rep;

	rep = redisCommand(c->rc, "CONFIG SET appendonly %s", persist ? "yes" : "no");
	if (rep == NULL || rep->type == REDIS_REPLY_ERROR)
		goto fail;
	freeReplyObject(rep);
	rep = redisCommand(c->rc, "CONFIG SET appendfsync %s", fsync[persist]);
	if (rep == NULL || rep->type == REDIS_REPLY_ERROR)
		goto fail;
	freeReplyObject(rep);
	return 0;
fail:
	snprintf(msg, n, "redis CONFIG SET: %s", rep ? rep->str : c->rc->errstr);
	if (rep)
		freeReplyObject(rep);
	return -1;
#else
	(void)c;
	(void)persist;
	snprintf(msg, n, "built without hiredis");
	return -1;
#endif
}
