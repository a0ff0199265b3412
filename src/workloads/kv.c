/*
 * kv.c - the page-view counter experiment: clients= clients (threads or
 * processes), each with its own connection, each repeating iterations=
 * times "increment the counter of one key (creating it at 1 when missing),
 * then read another key", keys date::blog_id::article_id (blog ids
 * 0..99999, article ids 0..99) under a per-run, per-rep prefix.
 *
 * backend=inproc is a striped hash table in shared memory (no server: the
 * ceiling); memcached, redis and gearman go through their client libraries
 * (kv_net.c) to a server benchtop spawns once per run on 127.0.0.1
 * (server=spawn, engines/spawn.h) or to one given as HOST:PORT or a Unix
 * socket path. With gearman, benchtop's own forked worker process does the
 * counting in shared memory; submit=background sends the increments
 * fire-and-forget (rows so marked by the background metric).
 *
 * op=incr, get and set run one kind of request instead of the pair, the
 * way memcslap and redis-benchmark test (get and set on a keyspace of
 * keys= keys, values of value_size= bytes; get stores them all first).
 * loops=N (redis) drives the clients' connections from N event loops
 * (kv_loop.c) instead of a blocking thread or process per client.
 *
 * One op is one request (an increment, a read or a set). Latency: from the send,
 * or with rate= (open loop, a fixed schedule per client) from the intended
 * send time, so that a stalled server is not hidden (coordinated omission);
 * the service times are kept as the incr_time and read_time metrics.
 *
 * Verify reads back every key the rep touched: the sum of the counters
 * equals the successful increments (an increment that failed after it was
 * sent may or may not have been applied: the sum must then lie between).
 * A server benchtop did not start is never flushed: teardown deletes the
 * rep's keys one by one.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/pagecache.h"
#include "core/which.h"
#include "engines/spawn.h"
#include "engines/workload.h"
#include "workloads/kv.h"

enum { P_BACKEND, P_CLIENTS, P_ITER, P_SERVER, P_PROTOCOL, P_NOREPLY, P_DEPTH, P_PASSWORD,
       P_PERSIST, P_SUBMIT, P_RATE, P_TIMEOUT, P_ON_ERROR, P_OP, P_VALUE_SIZE, P_KEYS, P_LOOPS,
       P_KEY, P_COUNT };

static const char *const backend_choices[] = { "inproc", "memcached", "redis", "gearman", NULL };
static const char *const protocol_choices[] = { "text", "binary", NULL };
static const char *const persist_choices[] = { "none", "aof-everysec", "aof-always", NULL };
static const char *const submit_choices[] = { "do", "background", NULL };
static const char *const on_error_choices[] = { "continue", "stop", NULL };
static const char *const key_choices[] = { "classic", "short", NULL };
static const char *const op_choices[] = { "counter", "incr", "get", "set", NULL };

static int check_server(const char *text, struct bt_err *err);

static const struct bt_param params[] = {
	[P_BACKEND] = { .name = "backend", .kind = BT_P_ENUM, .def = "inproc",
			.choices = backend_choices,
			.help = "where the counters live: in-process table, memcached, redis, gearman",
			.ticks = "inproc,memcached,redis,gearman" },
	[P_CLIENTS] = { .name = "clients", .kind = BT_P_INT, .def = "8", .min = 1, .max = 4096,
			.help = "clients, each with its own connection", .ticks = "1,8,50,200",
			.flags = BT_PF_WORKERS },
	[P_ITER] = { .name = "iterations", .kind = BT_P_INT, .def = "500", .min = 1,
		     .max = 100000000,
		     .help = "per client: increment+read pairs (op=counter) or requests (fixed work; duration= runs instead)" },
	[P_SERVER] = { .name = "server", .kind = BT_P_STRING, .def = "spawn",
		       .help = "spawn (a private server on 127.0.0.1), HOST:PORT or /unix/socket",
		       .check = check_server },
	[P_PROTOCOL] = { .name = "protocol", .kind = BT_P_ENUM, .def = "text",
			 .choices = protocol_choices, .help = "memcached protocol" },
	[P_NOREPLY] = { .name = "noreply", .kind = BT_P_BOOL, .def = "off",
			.help = "memcached: increments without replies (needs protocol=binary)" },
	[P_DEPTH] = { .name = "depth", .kind = BT_P_INT, .def = "1", .min = 1, .max = 512,
		      .help = "redis: requests pipelined per round trip", .ticks = "1,16" },
	[P_PASSWORD] = { .name = "password", .kind = BT_P_STRING, .def = "",
			 .help = "redis AUTH password (spawned server: its requirepass); recorded as given",
			 .flags = BT_PF_QUIET },
	[P_PERSIST] = { .name = "persist", .kind = BT_P_ENUM, .def = "none",
			.choices = persist_choices,
			.help = "redis persistence of a spawned server (memory or append-only file)" },
	[P_SUBMIT] = { .name = "submit", .kind = BT_P_ENUM, .def = "do", .choices = submit_choices,
		       .help = "gearman increments: wait for the job, or background (fire and forget)" },
	[P_RATE] = { .name = "rate", .kind = BT_P_INT, .def = "0", .min = 0, .max = 10000000,
		     .help = "open loop: requests/s per client on a fixed schedule (0: closed loop)" },
	[P_TIMEOUT] = { .name = "timeout", .kind = BT_P_DURATION, .def = "1s", .min = 1000000,
			.max = 60000000000ll, .help = "connect and request timeout" },
	[P_ON_ERROR] = { .name = "on_error", .kind = BT_P_ENUM, .def = "continue",
			 .choices = on_error_choices,
			 .help = "a failed request: count it and go on (reconnecting), or end the rep" },
	[P_OP] = { .name = "op", .kind = BT_P_ENUM, .def = "counter", .choices = op_choices,
		   .help = "counter: increment one key, read another (the classic); incr, get or set only (get/set: memcslap/memtier style, memcached and redis)" },
	[P_VALUE_SIZE] = { .name = "value_size", .kind = BT_P_SIZE, .def = "32", .min = 1,
			   .max = 512 << 10, .help = "op=get|set: bytes per value" },
	[P_KEYS] = { .name = "keys", .kind = BT_P_INT, .def = "10000", .min = 1,
		     .max = 10000000,
		     .help = "op=get|set: the keyspace; op=get stores every key before the rep" },
	[P_LOOPS] = { .name = "loops", .kind = BT_P_INT, .def = "0", .min = 0, .max = 1024,
		      .help = "0: a thread or process per client, blocking I/O (the classic); N: N event loops (as=), each driving its share of the clients' connections on one epoll (redis-benchmark, memtier; redis only)" },
	[P_KEY] = { .name = "key", .kind = BT_P_ENUM, .def = "classic", .choices = key_choices,
		    .help = "classic: bt:RUN:REP:DATE::blog::article (about 45 bytes, the experiment's); short: kHHHHHHHH:ID (about 16 bytes, as redis-benchmark's key:NNNNNNNNNNNN); both unique to the run and rep" },
};

enum { M_INCR, M_READS, M_HITS, M_CREATED, M_TIMEOUT, M_REFUSED, M_RESET, M_PROTOCOL,
       M_CONNECTS, M_CONNECT_TIME, M_INCR_TIME, M_READ_TIME, M_SRV_CPU, M_BACKGROUND,
       M_HIT_PCT, M_SETS, M_COUNT };
_Static_assert(M_COUNT <= BT_METRICS_MAX, "metrics");

static const struct bt_metric metrics[M_COUNT] = {
	[M_INCR] = { .name = "incr", .unit = "ops", .kind = BT_MK_COUNTER,
		     .help = "increments acknowledged (or sent, with noreply/background)" },
	[M_READS] = { .name = "reads", .unit = "ops", .kind = BT_MK_COUNTER,
		      .help = "reads answered" },
	[M_HITS] = { .name = "hits", .unit = "ops", .kind = BT_MK_COUNTER,
		     .help = "reads that found their key" },
	[M_CREATED] = { .name = "created", .unit = "keys", .kind = BT_MK_COUNTER,
			.help = "increments that created their key (at 1)" },
	[M_TIMEOUT] = { .name = "timeout", .unit = "errors", .kind = BT_MK_COUNTER, .error = 1,
			.help = "requests or connects that timed out" },
	[M_REFUSED] = { .name = "refused", .unit = "errors", .kind = BT_MK_COUNTER, .error = 1,
			.help = "requests lost while no connection could be made" },
	[M_RESET] = { .name = "reset", .unit = "errors", .kind = BT_MK_COUNTER, .error = 1,
		      .help = "requests lost to a connection closed or reset by the server" },
	[M_PROTOCOL] = { .name = "protocol", .unit = "errors", .kind = BT_MK_COUNTER, .error = 1,
			 .help = "requests the server answered with an error" },
	[M_CONNECTS] = { .name = "connects", .unit = "conns", .kind = BT_MK_COUNTER,
			 .help = "connections made (one per client, more after failures)" },
	[M_CONNECT_TIME] = { .name = "connect_time", .unit = "ns", .kind = BT_MK_TIME,
			     .den = "connects",
			     .help = "time to connect, per connection (with one round trip)" },
	[M_INCR_TIME] = { .name = "incr_time", .unit = "ns", .kind = BT_MK_TIME, .den = "incr",
			  .help = "service time of an increment (send to reply), mean" },
	[M_READ_TIME] = { .name = "read_time", .unit = "ns", .kind = BT_MK_TIME, .den = "reads",
			  .help = "service time of a read (send to reply), mean" },
	[M_SRV_CPU] = { .name = "server_cpu", .unit = "ns", .kind = BT_MK_TIME,
			.help = "CPU time of the spawned server during the rep (gearman: + benchtop's counting worker)" },
	[M_BACKGROUND] = { .name = "background", .unit = "ops", .kind = BT_MK_COUNTER,
			   .help = "increments submitted fire-and-forget: their cost is not in the clients' time" },
	[M_HIT_PCT] = { .name = "hit_pct", .unit = "%", .kind = BT_MK_RATIO, .num = "hits",
			.den = "reads", .help = "reads that found their key" },
	[M_SETS] = { .name = "sets", .unit = "ops", .kind = BT_MK_COUNTER,
		     .help = "values stored (op=set)" },
};

/* Keys: blog ids 0..99999, article ids 0..99, as in the classic experiment. */
#define BLOGS 100000u
#define ARTICLES 100u

/* server= syntax: spawn, HOST:PORT or an absolute socket path. */
static int parse_server(const char *text, struct kv_addr *a, struct bt_err *err)
{
	const char *colon = strrchr(text, ':');
	char *end;
	long port;

	memset(a, 0, sizeof(*a));
	if (strcmp(text, "spawn") == 0)
		return 0;
	if (text[0] == '/') {
		if (strlen(text) >= sizeof(a->host))
			return bt_err_set(err, -EINVAL, "server=%s: path too long", text);
		snprintf(a->host, sizeof(a->host), "%s", text);
		return 0;
	}
	if (colon == NULL || colon == text || (size_t)(colon - text) >= sizeof(a->host))
		return bt_err_set(err, -EINVAL,
				  "server=%s: must be spawn, HOST:PORT or /path/to/socket", text);
	port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || port < 1 || port > 65535)
		return bt_err_set(err, -EINVAL, "server=%s: port must be 1..65535", text);
	snprintf(a->host, sizeof(a->host), "%.*s", (int)(colon - text), text);
	a->port = (int)port;
	return 0;
}

static int check_server(const char *text, struct bt_err *err)
{
	struct kv_addr a;

	return parse_server(text, &a, err);
}

/* The server binary and its Debian package, per backend (gearmand is in sbin). */
static const char *const server_prog[B_COUNT] = { NULL, "memcached", "redis-server", "gearmand" };
static const char *const server_pkg[B_COUNT] = { NULL, "memcached", "redis-server",
						 "gearman-job-server" };
static const char *const lib_pkg[B_COUNT] = { NULL, "libmemcached-dev", "libhiredis-dev",
					      "libgearman-dev" };

static int find_server(enum kv_backend b, char *path, size_t n)
{
	if (bt_which(server_prog[b], path, n) == 0)
		return 0;
	if (b == B_GEARMAN && bt_which("/usr/sbin/gearmand", path, n) == 0)
		return 0;
	return -ENOENT;
}

/* Why backend b cannot run with this server= (NULL: it can). */
static const char *backend_missing(enum kv_backend b, int spawn, char *buf, size_t n)
{
	char path[512];

	if (b == B_INPROC)
		return NULL;
	if (!kv_net_have(b)) {
		snprintf(buf, n, "backend=%s: built without its client library (apt install %s, then rebuild)",
			 backend_choices[b], lib_pkg[b]);
		return buf;
	}
	if (spawn && find_server(b, path, sizeof(path)) < 0) {
		snprintf(buf, n, "backend=%s server=spawn: %s is not installed (apt install %s)",
			 backend_choices[b], server_prog[b], server_pkg[b]);
		return buf;
	}
	return NULL;
}

static int kv_check(const struct bt_value *const *p, struct bt_err *err)
{
	enum kv_backend b = (enum kv_backend)p[P_BACKEND]->i;
	int spawn = strcmp(p[P_SERVER]->text, "spawn") == 0;
	char why[256];
	struct kv_addr a;

	if (backend_missing(b, spawn, why, sizeof(why)) != NULL)
		return bt_err_set(err, -ENOTSUP, "%s", why);
	if (parse_server(p[P_SERVER]->text, &a, err) < 0)
		return -EINVAL;
	if (p[P_NOREPLY]->i && b == B_MEMCACHED && p[P_PROTOCOL]->i != 1)
		return bt_err_set(err, -EINVAL,
				  "noreply=on needs protocol=binary (text incr cannot create a missing key without a reply)");
	if (p[P_DEPTH]->i > 1 && b != B_REDIS)
		return bt_err_set(err, -EINVAL, "depth=%s: pipelining is for backend=redis",
				  p[P_DEPTH]->text);
	if (p[P_LOOPS]->i > 0 && b != B_REDIS)
		return bt_err_set(err, -EINVAL,
				  "loops=%s: event loops are for backend=redis (the other client libraries block)",
				  p[P_LOOPS]->text);
	if (p[P_LOOPS]->i > p[P_CLIENTS]->i)
		return bt_err_set(err, -EINVAL, "loops=%s: more event loops than clients=%s",
				  p[P_LOOPS]->text, p[P_CLIENTS]->text);
	if ((p[P_OP]->i == OP_GET || p[P_OP]->i == OP_SET) && b != B_MEMCACHED && b != B_REDIS)
		return bt_err_set(err, -EINVAL, "op=%s: values are for backend=memcached or redis",
				  p[P_OP]->text);
	if (p[P_NOREPLY]->i && (p[P_OP]->i == OP_GET || p[P_OP]->i == OP_SET))
		return bt_err_set(err, -EINVAL, "noreply=on applies to increments (op=counter or incr)");
	if (p[P_RATE]->i && p[P_DEPTH]->i > 1)
		return bt_err_set(err, -EINVAL, "rate= schedules single requests: use depth=1");
	if (p[P_PERSIST]->i && b == B_REDIS && !spawn)
		return bt_err_set(err, -EINVAL,
				  "persist=%s applies to a spawned redis (server=spawn); benchtop does not reconfigure a server it did not start",
				  p[P_PERSIST]->text);
	if (b == B_GEARMAN && a.host[0] == '/')
		return bt_err_set(err, -EINVAL, "server=%s: gearman speaks TCP only",
				  p[P_SERVER]->text);
	return 0;
}

/* ------------------------------------------------------- the inproc table */
size_t kv_table_size(uint64_t per_stripe)
{
	return sizeof(struct kv_table) + KV_STRIPES * per_stripe * sizeof(struct kv_slot);
}

void kv_table_init(struct kv_table *t, uint64_t per_stripe)
{
	t->per_stripe = per_stripe;
	for (int i = 0; i < KV_STRIPES; i++)
		bt_lock_init_pshared(&t->lock[i], BT_LOCK_MUTEX, 1);
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t kv_fnv(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

/* The slot of id in its stripe (lock held): its own, or the empty one it would take; NULL: full. */
static struct kv_slot *table_find(struct kv_table *t, uint64_t h, uint64_t id)
{
	struct kv_slot *s = t->slot + (h % KV_STRIPES) * t->per_stripe;
	uint64_t mask = t->per_stripe - 1;

	for (uint64_t i = 0, j = (h >> 8) & mask; i <= mask; i++, j = (j + 1) & mask)
		if (s[j].id == id || s[j].id == 0)
			return &s[j];
	return NULL;
}

uint64_t kv_table_incr(struct kv_table *t, uint64_t id)
{
	uint64_t h = mix64(id), v = 0;
	struct bt_lock *l = &t->lock[h % KV_STRIPES];
	struct kv_slot *s;

	bt_lock_acquire(l);
	s = table_find(t, h, id);
	if (s != NULL) {
		s->id = id;
		v = ++s->count;
	}
	bt_lock_release(l);
	return v;
}

uint64_t kv_table_get(struct kv_table *t, uint64_t id)
{
	uint64_t h = mix64(id), v = 0;
	struct bt_lock *l = &t->lock[h % KV_STRIPES];
	struct kv_slot *s;

	bt_lock_acquire(l);
	s = table_find(t, h, id);
	if (s != NULL && s->id == id)
		v = s->count;
	bt_lock_release(l);
	return v;
}

void kv_table_clear(struct kv_table *t)
{
	memset(t->slot, 0, KV_STRIPES * t->per_stripe * sizeof(struct kv_slot));
	atomic_store(&t->jobs_done, 0);
}

/* --------------------------------------------------------- the run level */
struct kv_server {
	int used;		/* some cell uses this backend */
	int spawned;		/* benchtop started it (may flush it, need not clean up) */
	struct bt_spawn sp;
	struct kv_addr addr;	/* where the spawned one listens */
};

/* The gearman worker's table: run-long, sized for GW_SLOTS keys per rep. */
#define GW_PER_STRIPE 8192u

struct kv_run {
	char runid[24];		/* in every key and gearman function name */
	char date[12];		/* YYYYMMDD, the date:: part of the keys */
	unsigned rep_seq;	/* reps so far: each rep's keys are its own */
	struct bt_scratch scratch;
	int have_scratch;
	struct kv_server srv[B_COUNT];
	pid_t gw_pid;		/* benchtop's gearman worker; 0 none */
	struct kv_table *gw_table;	/* mmap'd, shared with it */
	size_t gw_size;
	struct kv_conf gw_conf;
	uint64_t gw_submitted;	/* background increments sent so far, all reps */
};

static int spawn_one(struct kv_run *rs, enum kv_backend b, const char *password,
		     struct bt_err *err)
{
	struct kv_server *s = &rs->srv[b];
	char prog[512], port_s[16], log[4200], pidf[4200], aof_dir[4200];
	int rc = 0;

	if (find_server(b, prog, sizeof(prog)) < 0)
		return bt_err_set(err, -ENOENT, "%s is not installed (apt install %s)",
				  server_prog[b], server_pkg[b]);
	snprintf(log, sizeof(log), "%s/%s.log", rs->scratch.path, server_prog[b]);
	snprintf(pidf, sizeof(pidf), "%s/%s.pid", rs->scratch.path, server_prog[b]);
	snprintf(aof_dir, sizeof(aof_dir), "%s", rs->scratch.path);
	for (int attempt = 0; attempt < 3; attempt++) {
		const char *argv[BT_SPAWN_ARGS];
		int port, n = 0;

		rc = bt_spawn_free_port(&port, err);
		if (rc < 0)
			return rc;
		snprintf(port_s, sizeof(port_s), "%d", port);
		argv[n++] = prog;
		if (b == B_MEMCACHED) {
			const char *a[] = { "-l", "127.0.0.1", "-p", port_s, "-U", "0", "-t", "4",
					    "-c", "8192", "-m", "1024" };

			for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
				argv[n++] = a[i];
			if (geteuid() == 0) {
				argv[n++] = "-u";
				argv[n++] = "root";
			}
		} else if (b == B_REDIS) {
			const char *a[] = { "--port", port_s, "--bind", "127.0.0.1", "--save", "",
					    "--appendonly", "no", "--dir", aof_dir, "--daemonize",
					    "no", "--logfile", "" };

			for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
				argv[n++] = a[i];
			if (password[0]) {
				argv[n++] = "--requirepass";
				argv[n++] = password;
			}
		} else {
			const char *a[] = { "-L", "127.0.0.1", "-p", port_s, "-t", "4",
					    "--verbose=ERROR", "-l", log, "-P", pidf };

			for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
				argv[n++] = a[i];
		}
		argv[n] = NULL;
		rc = bt_spawn_start(&s->sp, argv, rs->scratch.path, log, err);
		if (rc < 0)
			return rc;
		rc = bt_spawn_wait_tcp(&s->sp, port, 10000, err);
		if (rc == 0) {
			s->spawned = 1;
			snprintf(s->addr.host, sizeof(s->addr.host), "127.0.0.1");
			s->addr.port = port;
			return 0;
		}
		bt_spawn_stop(&s->sp, 1000);
		if (strstr(err->msg, "in use") == NULL)
			break;
	}
	return rc;
}

static void kv_run_teardown(struct bt_run_ctx *run)
{
	struct kv_run *rs = run->state;
	struct bt_err err = { "" };

	if (rs == NULL)
		return;
	if (rs->gw_pid > 0) {
		kill(rs->gw_pid, SIGKILL);
		while (waitpid(rs->gw_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	for (int b = B_COUNT - 1; b > 0; b--)
		if (rs->srv[b].spawned)
			bt_spawn_stop(&rs->srv[b].sp, 2000);
	if (rs->gw_table != NULL)
		munmap(rs->gw_table, rs->gw_size);
	if (rs->have_scratch)
		bt_scratch_remove(&rs->scratch, &err);
	free(rs);
	run->state = NULL;
}

/* Where cell p's backend listens: the spawned server, or server=. */
static void cell_addr(const struct kv_run *rs, const struct bt_value *const *p, struct kv_addr *a)
{
	struct bt_err err = { "" };

	if (strcmp(p[P_SERVER]->text, "spawn") == 0)
		*a = rs->srv[p[P_BACKEND]->i].addr;
	else
		parse_server(p[P_SERVER]->text, a, &err);
}

static void conf_of(const struct kv_run *rs, const struct bt_value *const *p, struct kv_conf *cf)
{
	memset(cf, 0, sizeof(*cf));
	cf->backend = (enum kv_backend)p[P_BACKEND]->i;
	cell_addr(rs, p, &cf->addr);
	cf->binary = p[P_PROTOCOL]->i == 1;
	cf->noreply = (int)p[P_NOREPLY]->i;
	snprintf(cf->password, sizeof(cf->password), "%s", p[P_PASSWORD]->text);
	cf->background = p[P_SUBMIT]->i == 1;
	cf->timeout_ms = (int)(p[P_TIMEOUT]->i / 1000000);
	cf->value_size = (size_t)p[P_VALUE_SIZE]->i;
	snprintf(cf->fn_incr, sizeof(cf->fn_incr), "bt_incr_%s", rs->runid);
	snprintf(cf->fn_get, sizeof(cf->fn_get), "bt_get_%s", rs->runid);
}

/*
 * One server per distinct backend that a cell wants spawned, and benchtop's
 * gearman worker when a cell uses gearman. What it started it stops in
 * run_teardown, also after a failure here.
 */
static int kv_run_setup(struct bt_run_ctx *run, struct bt_err *err)
{
	struct kv_run *rs = calloc(1, sizeof(*rs));
	time_t now = time(NULL);
	struct tm tm;
	int rc = 0, need_scratch = 0;

	if (rs == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	run->state = rs;
	rs->scratch.dirfd = -1;
	snprintf(rs->runid, sizeof(rs->runid), "%x%llx", (unsigned)getpid(),
		 (unsigned long long)(bt_unix_ns() / 1000000) & 0xffffffull);
	localtime_r(&now, &tm);
	strftime(rs->date, sizeof(rs->date), "%Y%m%d", &tm);
	for (int c = 0; c < run->ncells; c++) {
		const struct bt_value *const *p = run->cells[c];
		enum kv_backend b = (enum kv_backend)p[P_BACKEND]->i;

		rs->srv[b].used = 1;
		if (b != B_INPROC && strcmp(p[P_SERVER]->text, "spawn") == 0)
			need_scratch = 1;
	}
	if (need_scratch) {
		rc = bt_scratch_create(&rs->scratch, NULL, "kv", err);
		if (rc < 0)
			goto out;
		rs->have_scratch = 1;
	}
	for (int b = 1; b < B_COUNT && rc == 0; b++) {
		for (int c = 0; c < run->ncells; c++) {
			const struct bt_value *const *p = run->cells[c];

			if (p[P_BACKEND]->i == b && strcmp(p[P_SERVER]->text, "spawn") == 0) {
				rc = spawn_one(rs, (enum kv_backend)b, p[P_PASSWORD]->text, err);
				break;
			}
		}
	}
	if (rc < 0)
		goto out;
	for (int c = 0; c < run->ncells; c++) {
		const struct bt_value *const *p = run->cells[c];

		if (p[P_BACKEND]->i != B_GEARMAN)
			continue;
		rs->gw_size = kv_table_size(GW_PER_STRIPE);
		rs->gw_table = mmap(NULL, rs->gw_size, PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (rs->gw_table == MAP_FAILED) {
			rs->gw_table = NULL;
			rc = bt_err_set(err, -ENOMEM, "gearman worker table: out of memory");
			goto out;
		}
		kv_table_init(rs->gw_table, GW_PER_STRIPE);
		conf_of(rs, p, &rs->gw_conf);
		rc = kv_gearman_worker_start(&rs->gw_conf, rs->gw_table, err);
		if (rc < 0)
			goto out;
		rs->gw_pid = rc;
		rc = 0;
		break;
	}
out:
	if (rc < 0)
		kv_run_teardown(run);
	return rc;
}

/* -------------------------------------------------------- the cell level */
/*
 * Check that the cell's server answers (one connection from the controller,
 * within timeout=), so that an unreachable address is one clear line before
 * any client starts; set a spawned redis's persistence.
 */
static int kv_cell_setup(struct bt_job *cell, struct bt_err *err)
{
	const struct bt_value *const *p = cell->params;
	struct kv_run *rs = cell->run_state;
	struct kv_conf cf;
	struct kv_conn *c;
	char msg[256];
	int kind, rc = 0;

	if (p[P_BACKEND]->i == B_INPROC)
		return 0;
	conf_of(rs, p, &cf);
	c = kv_net_connect(&cf, &kind, msg, sizeof(msg));
	if (c == NULL)
		return bt_err_set(err, -EIO, "%s%s", msg,
				  kind == E_TIMEOUT ? " (no answer within timeout=)" : "");
	if (p[P_BACKEND]->i == B_REDIS && rs->srv[B_REDIS].spawned &&
	    kv_net_redis_persist(c, (int)p[P_PERSIST]->i, msg, sizeof(msg)) < 0)
		rc = bt_err_set(err, -EIO, "%s", msg);
	kv_net_close(c);
	return rc;
}

/* --------------------------------------------------------- the rep level */
/* Key id of request (client, iteration, op): blog * ARTICLES + article. */
static uint32_t key_id(const struct kv_state *s, int client, uint64_t iter, int op)
{
	uint64_t h = mix64(s->seed ^ ((uint64_t)client << 40) ^ (iter << 1) ^ (uint64_t)op);

	return (uint32_t)((h % BLOGS) * ARTICLES + (h >> 40) % ARTICLES);
}

/*
 * prefix::blog::article (key=classic) or prefix:id (key=short), its length
 * (KV_KEY_MAX bytes are room for it: no snprintf per request).
 */
static size_t key_text(const struct kv_state *s, uint32_t id, char *buf)
{
	char *p = buf;

	memcpy(p, s->prefix, s->prefix_len);
	p += s->prefix_len;
	*p++ = ':';
	if (s->short_keys) {
		p = kv_put_dec(p, id);
		*p = '\0';
		return (size_t)(p - buf);
	}
	*p++ = ':';
	p = kv_put_dec(p, id / ARTICLES);
	*p++ = ':';
	*p++ = ':';
	p = kv_put_dec(p, id % ARTICLES);
	*p = '\0';
	return (size_t)(p - buf);
}

/*
 * The key id of client c's iteration it, request kind op: op=counter and
 * incr draw from every blog and article; op=get and set from the keyspace
 * 0..keys-1.
 */
static uint32_t key_of(const struct kv_state *s, int client, uint64_t it, int op)
{
	uint32_t id = key_id(s, client, it, s->op == OP_COUNTER && op == R_GET);

	return s->op == OP_GET || s->op == OP_SET ? (uint32_t)(id % s->keys) : id;
}

int kv_request(const struct kv_state *s, int client, uint64_t q, char *key, size_t *len,
	       uint64_t *iter)
{
	static const int req_of[] = { [OP_INCR] = R_INCR, [OP_GET] = R_GET, [OP_SET] = R_SET };
	int op = s->op == OP_COUNTER ? (q & 1 ? R_GET : R_INCR) : req_of[s->op];

	*iter = s->op == OP_COUNTER ? q >> 1 : q;
	*len = key_text(s, key_of(s, client, *iter, op), key);
	return op;
}

/* The inproc table's id of key id in rep s->rep. */
static uint64_t inproc_id(const struct kv_state *s, uint32_t id)
{
	return ((uint64_t)s->rep << 32 | id) + 1;
}

static uint64_t cpu_ticks_ns(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long ut = 0, st = 0;
	FILE *f;
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), f) != NULL && (p = strrchr(buf, ')')) != NULL)
		sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st);
	fclose(f);
	return (ut + st) * (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
}

/* Server CPU so far, ns (spawned server + the gearman worker). */
static uint64_t server_cpu_ns(const struct kv_state *s)
{
	struct bt_spawn_cpu c = { 0, 0 };
	uint64_t ns = 0;

	if (s->srv != NULL && bt_spawn_cpu(&s->srv->sp, &c) == 0)
		ns = (uint64_t)((c.user_s + c.sys_s) * 1e9);
	if (s->gw_pid > 0)
		ns += cpu_ticks_ns(s->gw_pid);
	return ns;
}

/*
 * Wait until benchtop's gearman worker has applied every background
 * increment sent so far (at most 30 s): the queue has drained.
 */
static int gearman_drain(struct kv_run *rs, uint64_t maybe, struct bt_err *err)
{
	uint64_t t0 = bt_now_ns(), last = 0, t_last = t0;

	/*
	 * Jobs whose submission failed after it was sent may still run: wait
	 * for them too, until the count has not moved for 300 ms.
	 */
	for (;;) {
		uint64_t done = atomic_load(&rs->gw_table->jobs_done);

		if (done >= rs->gw_submitted + maybe)
			break;
		if (done != last) {
			last = done;
			t_last = bt_now_ns();
		}
		if (done >= rs->gw_submitted && bt_now_ns() - t_last > 300000000)
			break;
		if (bt_now_ns() - t0 > 30000000000ull)
			return bt_err_set(err, -ETIMEDOUT,
					  "gearman queue did not drain in 30 s: %" PRIu64 " of %" PRIu64
					  " increments applied",
					  atomic_load(&rs->gw_table->jobs_done), rs->gw_submitted);
		usleep(1000);
	}
	return 0;
}

static int store_keyspace(struct kv_state *s, struct bt_err *err);

static int kv_setup(struct bt_job *job, struct bt_err *err)
{
	const struct bt_value *const *p = job->params;
	struct kv_run *rs = job->run_state;
	struct kv_state *s = calloc(1, sizeof(*s));
	int rc = 0;

	if (s == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	job->state = s;
	s->backend = (enum kv_backend)p[P_BACKEND]->i;
	s->op = (enum kv_op)p[P_OP]->i;
	conf_of(rs, p, &s->cf);
	s->rep = ++rs->rep_seq;
	s->short_keys = p[P_KEY]->i == 1;
	if (s->short_keys) {
		/* the run id and rep folded into 32 bits: short, still this run's own */
		uint64_t h = 1469598103934665603ull;

		for (const char *c = rs->runid; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
		s->prefix_len = (size_t)snprintf(s->prefix, sizeof(s->prefix), "k%08x",
						 (unsigned)(mix64(h ^ s->rep) >> 32));
	} else {
		s->prefix_len = (size_t)snprintf(s->prefix, sizeof(s->prefix), "bt:%s:%u:%s",
						 rs->runid, s->rep, rs->date);
	}
	if (s->prefix_len >= sizeof(s->prefix))
		s->prefix_len = sizeof(s->prefix) - 1;
	s->seed = mix64(bt_unix_ns() ^ s->rep);
	s->nclients = (int)p[P_CLIENTS]->i;
	s->loops = (int)p[P_LOOPS]->i;
	job->nworkers = s->loops ? s->loops : s->nclients;
	s->iterations = job->duration_ns || job->ops ? 0 : (uint64_t)p[P_ITER]->i;
	s->keys = (uint64_t)p[P_KEYS]->i;
	s->depth = (int)p[P_DEPTH]->i;
	s->period_ns = p[P_RATE]->i ? 1000000000ull / (uint64_t)p[P_RATE]->i : 0;
	s->stop_on_error = p[P_ON_ERROR]->i == 1;
	if (s->iterations)
		job->total_ops = s->iterations * kv_per_iter(s) * (uint64_t)s->nclients;
	s->wres = bt_job_shared_alloc(job, sizeof(*s->wres) * (size_t)s->nclients);
	if (s->wres == NULL) {
		rc = bt_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (s->op == OP_GET || s->op == OP_SET) {
		/* The value: printable bytes, the same for every request. */
		s->value = malloc(s->cf.value_size);
		if (s->value == NULL) {
			rc = bt_err_set(err, -ENOMEM, "value_size=%zu: out of memory", s->cf.value_size);
			goto out;
		}
		for (size_t i = 0; i < s->cf.value_size; i++)
			s->value[i] = (char)('a' + i % 26);
		s->cf.value = s->value;
	}
	if (s->backend == B_INPROC) {
		/* Room for every increment key twice over (duration=: 4M slots). */
		uint64_t want = s->iterations ? s->iterations * (uint64_t)s->nclients : 1u << 21;
		uint64_t per = 16;

		if (want > BLOGS * ARTICLES)
			want = BLOGS * ARTICLES;
		while (per * KV_STRIPES < 2 * want)
			per <<= 1;
		s->table = bt_job_shared_alloc(job, kv_table_size(per));
		if (s->table == NULL) {
			rc = bt_err_set(err, -ENOMEM, "inproc table: out of memory");
			goto out;
		}
		kv_table_init(s->table, per);
	}
	if (s->backend == B_GEARMAN) {
		uint64_t want = s->iterations * (uint64_t)s->nclients;

		if (s->iterations == 0 || want > GW_PER_STRIPE * KV_STRIPES / 2) {
			rc = bt_err_set(err, -EINVAL,
					"backend=gearman: at most %u increments per rep (clients x iterations); duration= is not supported",
					GW_PER_STRIPE * KV_STRIPES / 2);
			goto out;
		}
		rc = gearman_drain(rs, 0, err);
		if (rc < 0)
			goto out;
		kv_table_clear(rs->gw_table);
		rs->gw_submitted = 0;
		s->table = rs->gw_table;
		s->gw_pid = rs->gw_pid;
	}
	if (s->backend != B_INPROC && rs->srv[s->backend].spawned)
		s->srv = &rs->srv[s->backend];
	if (s->op == OP_GET) {
		rc = store_keyspace(s, err);
		if (rc < 0)
			goto out;
	}
	s->gw_cpu0 = server_cpu_ns(s);
out:
	return rc;
}

static const int kind_metric[E_COUNT] = { M_TIMEOUT, M_REFUSED, M_RESET, M_PROTOCOL };

/* Sleep until t (CLOCK_MONOTONIC ns) in slices, returning early when stop is raised. */
static void sleep_until(struct bt_worker *w, uint64_t t)
{
	for (;;) {
		uint64_t now = bt_now_ns(), d;
		struct timespec ts;

		if (now >= t || bt_worker_stop_raised(w))
			return;
		d = t - now > 10000000 ? 10000000 : t - now;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)d;
		nanosleep(&ts, NULL);
	}
}

int kv_client_open(struct kv_client *cl)
{
	uint64_t t = bt_now_ns();
	char msg[200];
	int kind;

	if (cl->conn != NULL)
		return 0;
	if (t < cl->down_until)
		return -1;
	cl->conn = kv_net_connect(&cl->s->cf, &kind, msg, sizeof(msg));
	if (cl->conn != NULL) {
		bt_worker_count(cl->w, M_CONNECTS, 1);
		bt_worker_count(cl->w, M_CONNECT_TIME, bt_now_ns() - t);
		cl->backoff = 0;
		return 0;
	}
	cl->backoff = cl->backoff ? cl->backoff * 2 : 1000000;
	if (cl->backoff > 100000000)
		cl->backoff = 100000000;
	cl->down_until = bt_now_ns() + cl->backoff;
	cl->down_kind = kind;
	snprintf(cl->down_msg, sizeof(cl->down_msg), "%s", msg);
	return -1;
}

/*
 * Make sure the client is connected. While the server is down, a request
 * waits at most 1 ms and fails (counted as the error that took it down),
 * and a new connection is tried only once the backoff has passed: a dead
 * server costs errors, not a hang.
 */
static int client_connect(struct kv_client *cl)
{
	uint64_t now = bt_now_ns();

	if (cl->conn != NULL)
		return 0;
	if (now < cl->down_until)
		sleep_until(cl->w, now + 1000000 < cl->down_until ? now + 1000000 : cl->down_until);
	return kv_client_open(cl);
}

void kv_client_drop(struct kv_client *cl, int kind, const char *msg)
{
	kv_net_close(cl->conn);
	cl->conn = NULL;
	cl->down_kind = kind;
	snprintf(cl->down_msg, sizeof(cl->down_msg), "%s", msg);
	cl->backoff = cl->backoff ? cl->backoff : 1000000;
	cl->down_until = bt_now_ns() + cl->backoff;
}

/*
 * The extra latency channels: each answered request's service time (from
 * its actual send, so without rate='s queueing) by operation, beside the
 * main histogram of every request from its intended send.
 */
enum { CH_INCR = 1, CH_READ = 2, CH_SET = 3 };
static const char *const kv_lat_channels[] = { "incr", "read", "set", NULL };

int kv_account(struct kv_client *cl, int op, const struct kv_res *r, uint64_t service_ns,
	       uint64_t lat_ns, struct kv_wres *wr)
{
	struct bt_worker *w = cl->w;
	int timed = lat_ns != KV_UNTIMED;

	if (r->rc < 0) {
		if (op == R_INCR && r->sent)
			wr->incr_maybe++;
		if (op == R_SET)
			wr->sets_failed++;
		bt_worker_error(w, kind_metric[r->kind]);
		if (cl->s->stop_on_error) {
			bt_worker_fail(w, "client %d: %s (on_error=stop)", cl->id,
				       r->msg[0] ? r->msg : cl->down_msg);
			return -1;
		}
		return 0;
	}
	if (timed)
		bt_lat_record(w, lat_ns);
	bt_worker_ops(w, 1);
	if (op == R_INCR) {
		wr->incr_ok++;
		bt_worker_count(w, M_INCR, 1);
		bt_worker_count(w, M_INCR_TIME, service_ns);
		if (timed)
			bt_lat_record_ch(w, CH_INCR, service_ns);
		if (r->created)
			bt_worker_count(w, M_CREATED, 1);
		if (cl->s->cf.background && cl->s->backend == B_GEARMAN)
			bt_worker_count(w, M_BACKGROUND, 1);
	} else if (op == R_SET) {
		wr->sets_ok++;
		bt_worker_count(w, M_SETS, 1);
		if (timed)
			bt_lat_record_ch(w, CH_SET, service_ns);
	} else {
		wr->reads_ok++;
		bt_worker_count(w, M_READS, 1);
		bt_worker_count(w, M_READ_TIME, service_ns);
		if (timed)
			bt_lat_record_ch(w, CH_READ, service_ns);
		if (r->hit) {
			wr->hits++;
			wr->badlen += cl->s->op == OP_GET && r->vlen != cl->s->cf.value_size;
			bt_worker_count(w, M_HITS, 1);
		}
	}
	return 0;
}

static int worker_inproc(struct bt_worker *w, struct kv_state *s, struct kv_wres *wr)
{
	uint64_t t0 = bt_now_ns(), per = kv_per_iter(s);
	struct kv_client cl = { .w = w, .s = s, .id = w->id };
	int timed = 0;

	for (uint64_t r = 0; s->iterations ? r < s->iterations * per : !bt_worker_stopping(w); r++) {
		uint64_t iter = s->op == OP_COUNTER ? r >> 1 : r, intended = 0, t1, t2, lat;
		int op = s->op == OP_COUNTER ? (int)(r & 1) : R_INCR;
		uint64_t id = inproc_id(s, key_id(s, w->id, iter, op));
		struct kv_res res = { 0 };

		if (bt_worker_stop_raised(w))
			break;
		if (s->period_ns) {
			intended = t0 + r * s->period_ns;
			sleep_until(w, intended);
		}
		if (op == R_INCR)
			wr->iters = iter + 1;
		t1 = bt_now_ns();
		if (op == R_INCR) {
			res.value = kv_table_incr(s->table, id);
			res.created = res.value == 1;
			if (res.value == 0) {
				res.rc = -1;
				res.kind = E_PROTOCOL;
				snprintf(res.msg, sizeof(res.msg), "inproc table full");
			}
		} else {
			res.value = kv_table_get(s->table, id);
			res.hit = res.value != 0;
		}
		t2 = bt_now_ns();
		/* sampled by iteration: the counter's increment and read are recorded as a pair */
		if (s->op != OP_COUNTER || op == R_INCR)
			timed = bt_lat_stamp(w, iter) != 0;
		lat = timed ? t2 - (intended ? intended : t1) : KV_UNTIMED;
		if (kv_account(&cl, op, &res, t2 - t1, lat, wr) < 0)
			return -EIO;
	}
	return 0;
}

/* One client per worker, blocking I/O: the classic form (loops=0). */
static int kv_worker(struct bt_worker *w)
{
	struct kv_state *s = w->job->state;
	struct kv_wres *wr = &s->wres[w->id];
	struct kv_client cl = { .w = w, .s = s, .id = w->id };
	uint64_t t0, r = 0, total = s->iterations * kv_per_iter(s);
	int rc = 0;

	if (s->loops)
		return kv_loop_worker(w);
	if (s->backend == B_INPROC)
		return worker_inproc(w, s, wr);
	t0 = bt_now_ns();
	while (total ? r < total : !bt_worker_stopping(w)) {
		int n = s->depth, ops[KV_DEPTH_MAX];
		char kbuf[KV_DEPTH_MAX][KV_KEY_MAX], *keys[KV_DEPTH_MAX];
		size_t lens[KV_DEPTH_MAX];
		struct kv_res res[KV_DEPTH_MAX];
		uint64_t intended = 0, t1, t2;

		if (bt_worker_stop_raised(w))
			break;
		if (total && (uint64_t)n > total - r)
			n = (int)(total - r);
		for (int i = 0; i < n; i++) {
			uint64_t it;

			keys[i] = kbuf[i];
			ops[i] = kv_request(s, w->id, r + (uint64_t)i, kbuf[i], &lens[i], &it);
			if (ops[i] != R_GET || s->op != OP_COUNTER)
				wr->iters = it + 1;
		}
		if (s->period_ns) {
			intended = t0 + r * s->period_ns;
			sleep_until(w, intended);
		}
		t1 = bt_now_ns();
		if (client_connect(&cl) < 0) {
			for (int i = 0; i < n; i++) {
				struct kv_res down = { .rc = -1, .kind = cl.down_kind };

				if (kv_account(&cl, ops[i], &down, 0, 0, wr) < 0)
					return -EIO;
			}
			r += (uint64_t)n;
			continue;
		}
		if (kv_net_batch(cl.conn, n, ops, keys, lens, res) < 0) {
			for (int i = n - 1; i >= 0; i--)
				if (res[i].rc < 0) {
					kv_client_drop(&cl, res[i].kind, res[i].msg);
					break;
				}
		}
		t2 = bt_now_ns();
		for (int i = 0; i < n; i++)
			if (kv_account(&cl, ops[i], &res[i], t2 - t1, t2 - (intended ? intended : t1),
				       wr) < 0) {
				rc = -EIO;
				goto out;
			}
		r += (uint64_t)n;
	}
	/* noreply: one round trip, after which the server has processed them all. */
	if (s->cf.noreply && cl.conn != NULL) {
		char msg[200];

		wr->synced = kv_net_sync(cl.conn, msg, sizeof(msg)) == 0;
	}
out:
	kv_net_close(cl.conn);
	return rc;
}

/* Every distinct key the rep's increments used, as sorted ids; the count or -ENOMEM. */
static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The distinct keys the rep touched, as sorted ids: the increments' (or
 * op=set's) keys of every iteration begun; op=get: the whole keyspace it
 * stored. The count, or -ENOMEM.
 */
static long touched_keys(const struct kv_state *s, uint32_t **out)
{
	uint64_t n = 0, k = 0;
	int op = s->op == OP_SET ? R_SET : R_INCR;
	uint32_t *ids;

	if (s->op == OP_GET) {
		ids = malloc(sizeof(*ids) * s->keys);
		if (ids == NULL)
			return -ENOMEM;
		for (uint64_t i = 0; i < s->keys; i++)
			ids[i] = (uint32_t)i;
		*out = ids;
		return (long)s->keys;
	}
	for (int c = 0; c < s->nclients; c++)
		n += s->wres[c].iters;
	ids = malloc(sizeof(*ids) * (n ? n : 1));
	if (ids == NULL)
		return -ENOMEM;
	for (int c = 0; c < s->nclients; c++)
		for (uint64_t i = 0; i < s->wres[c].iters; i++)
			ids[k++] = key_of(s, c, i, op);
	qsort(ids, n, sizeof(*ids), cmp_u32);
	k = 0;
	for (uint64_t i = 0; i < n; i++)
		if (k == 0 || ids[k - 1] != ids[i])
			ids[k++] = ids[i];
	*out = ids;
	return (long)k;
}

/* Texts of keys ids[0..n-1] for the client libraries: one malloc'd block. */
static int key_texts(const struct kv_state *s, const uint32_t *ids, long n, char ***keys,
		     size_t **lens, char **block)
{
	*keys = malloc(sizeof(**keys) * (size_t)(n ? n : 1));
	*lens = malloc(sizeof(**lens) * (size_t)(n ? n : 1));
	*block = malloc((size_t)KV_KEY_MAX * (size_t)(n ? n : 1));
	if (*keys == NULL || *lens == NULL || *block == NULL)
		return -ENOMEM;
	for (long i = 0; i < n; i++) {
		(*keys)[i] = *block + (size_t)i * KV_KEY_MAX;
		(*lens)[i] = key_text(s, ids[i], (*keys)[i]);
	}
	return 0;
}

/*
 * op=get: store a value under every key of the keyspace before the rep
 * (the controller's own connection; not timed), as memcslap loads its keys
 * before its get test.
 */
static int store_keyspace(struct kv_state *s, struct bt_err *err)
{
	uint32_t *ids = NULL;
	char **keys = NULL, *block = NULL, msg[256];
	size_t *lens = NULL;
	long n = touched_keys(s, &ids);
	struct kv_conn *c = NULL;
	int kind, rc = 0;

	if (n < 0 || key_texts(s, ids, n, &keys, &lens, &block) < 0) {
		rc = bt_err_set(err, -ENOMEM, "op=get keys=%" PRIu64 ": out of memory", s->keys);
		goto out;
	}
	c = kv_net_connect(&s->cf, &kind, msg, sizeof(msg));
	if (c == NULL || kv_net_store(c, (size_t)n, keys, lens, s->value, s->cf.value_size, msg,
				      sizeof(msg)) < 0)
		rc = bt_err_set(err, -EIO, "%s", msg);
out:
	kv_net_close(c);
	free(ids);
	free(keys);
	free(lens);
	free(block);
	return rc;
}

/* op=get: every answered read found its value, value_size bytes long. */
static int verify_get(const struct kv_state *s, struct bt_err *err)
{
	uint64_t reads = 0, hits = 0, badlen = 0;

	for (int c = 0; c < s->nclients; c++) {
		reads += s->wres[c].reads_ok;
		hits += s->wres[c].hits;
		badlen += s->wres[c].badlen;
	}
	if (hits != reads || badlen != 0)
		return bt_err_set(err, -EIO,
				  "%" PRIu64 " reads answered: %" PRIu64 " found their key (all %" PRIu64
				  " were stored), %" PRIu64 " values not %zu bytes",
				  reads, hits, s->keys, badlen, s->cf.value_size);
	return bt_err_set(err, 0,
			  "%" PRIu64 " reads answered, every one found its %zu-byte value (keyspace %" PRIu64 ")",
			  reads, s->cf.value_size, s->keys);
}

/* op=set: every key a set reached holds a value of value_size bytes. */
static int verify_set(const struct kv_state *s, long n, const struct kv_sum *sum, struct bt_err *err)
{
	uint64_t ok = 0, failed = 0;

	for (int c = 0; c < s->nclients; c++) {
		ok += s->wres[c].sets_ok;
		failed += s->wres[c].sets_failed;
	}
	if (sum->badlen != 0 || sum->present > (uint64_t)n || (failed == 0 && sum->present != (uint64_t)n))
		return bt_err_set(err, -EIO,
				  "%ld keys set, %" PRIu64 " read back, %" PRIu64 " not %zu bytes long",
				  n, sum->present, sum->badlen, s->cf.value_size);
	return bt_err_set(err, 0,
			  "%" PRIu64 " sets to %ld keys: %" PRIu64 " read back, each %zu bytes%s", ok, n,
			  sum->present, s->cf.value_size,
			  failed ? " (some sets failed: their keys may be missing)" : "");
}

static int kv_verify(struct bt_job *job, struct bt_err *err)
{
	struct kv_state *s = job->state;
	struct kv_run *rs = job->run_state;
	uint64_t ok = 0, maybe = 0, sum = 0, reqs = 0;
	struct kv_sum ks = { 0, 0, 0 };
	uint32_t *ids = NULL;
	char **keys = NULL, *block = NULL, msg[256] = "";
	size_t *lens = NULL;
	long n;
	int rc = 0, unsynced = 0;

	for (int c = 0; c < s->nclients; c++) {
		ok += s->wres[c].incr_ok;
		maybe += s->wres[c].incr_maybe;
		unsynced += s->cf.noreply && !s->wres[c].synced;
		reqs += s->wres[c].iters;
	}
	if (ok == 0 && reqs > 0 && (s->op == OP_COUNTER || s->op == OP_INCR)) {
		rc = bt_err_set(err, -EIO, "no increment succeeded (%" PRIu64 " tried): see the error counters",
				reqs);
		goto out;
	}
	if (s->backend == B_GEARMAN) {
		rs->gw_submitted = ok;
		rc = gearman_drain(rs, maybe, err);
		if (rc < 0)
			goto out;
	}
	bt_job_metric(job, M_SRV_CPU, server_cpu_ns(s) - s->gw_cpu0);
	if (s->srv != NULL && !bt_spawn_alive((struct bt_spawn *)&s->srv->sp)) {
		bt_spawn_describe(&s->srv->sp, msg, sizeof(msg));
		rc = bt_err_set(err, -EIO, "the spawned server died during the rep: %s", msg);
		goto out;
	}
	if (s->op == OP_GET) {
		rc = verify_get(s, err);
		goto out;
	}
	n = touched_keys(s, &ids);
	if (n < 0 || key_texts(s, ids, n < 0 ? 0 : n, &keys, &lens, &block) < 0) {
		rc = bt_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (s->backend == B_INPROC || s->backend == B_GEARMAN) {
		for (long i = 0; i < n; i++)
			sum += s->backend == B_INPROC ? kv_table_get(s->table, inproc_id(s, ids[i]))
						      : kv_table_get(s->table, kv_fnv(keys[i], lens[i]));
	} else {
		int kind;
		struct kv_conn *c = kv_net_connect(&s->cf, &kind, msg, sizeof(msg));

		if (c == NULL) {
			rc = bt_err_set(err, -EIO, "cannot read back: %s", msg);
			goto out;
		}
		rc = kv_net_sum(c, (size_t)n, keys, lens, s->op == OP_SET ? s->cf.value_size : 0, &ks,
				msg, sizeof(msg));
		kv_net_close(c);
		if (rc < 0) {
			rc = bt_err_set(err, -EIO, "cannot read back: %s", msg);
			goto out;
		}
		sum = ks.sum;
	}
	if (s->op == OP_SET) {
		rc = verify_set(s, n, &ks, err);
		goto out;
	}
	if (sum < ok || sum > ok + maybe) {
		rc = bt_err_set(err, -EIO,
				"%ld keys read back: counters sum to %" PRIu64 ", expected %" PRIu64
				"%s (%" PRIu64 " failed after being sent)",
				n, sum, ok, maybe ? " or up to that plus the failed" : "", maybe);
		goto out;
	}
	if (s->cf.noreply && s->backend == B_MEMCACHED)
		bt_err_set(err, 0,
			   "%ld keys read back, sum %" PRIu64 " = %" PRIu64 " increments sent with noreply "
			   "(per-request success and created are not known; %d clients could not sync)",
			   n, sum, ok, unsynced);
	else if (s->cf.background && s->backend == B_GEARMAN)
		bt_err_set(err, 0,
			   "%ld keys read back after the queue drained, sum %" PRIu64 " = %" PRIu64
			   " background increments (the clients never saw a count; created not known)",
			   n, sum, ok);
	else
		bt_err_set(err, 0, "%ld keys read back, sum %" PRIu64 " = %" PRIu64 " increments%s", n,
			   sum, ok, maybe ? " (+ failed ones that were applied)" : "");
out:
	free(ids);
	free(keys);
	free(lens);
	free(block);
	return rc;
}

/* Delete the rep's keys from a server benchtop did not start (it never flushes one). */
static void kv_teardown(struct bt_job *job)
{
	struct kv_state *s = job->state;

	if (s == NULL)
		return;
	if (s->backend != B_INPROC && s->backend != B_GEARMAN && s->srv == NULL && s->wres != NULL) {
		uint32_t *ids = NULL;
		char **keys = NULL, *block = NULL, msg[256];
		size_t *lens = NULL;
		long n = touched_keys(s, &ids);
		int kind;

		if (n > 0 && key_texts(s, ids, n, &keys, &lens, &block) == 0) {
			struct kv_conn *c = kv_net_connect(&s->cf, &kind, msg, sizeof(msg));

			if (c != NULL)
				kv_net_delete(c, (size_t)n, keys, lens);
			kv_net_close(c);
		}
		free(ids);
		free(keys);
		free(lens);
		free(block);
	}
	free(s->value);
	free(s);
	job->state = NULL;
}

static const char *const spawnable[] = { "memcached", "redis-server", "gearmand", NULL };

const struct bt_workload bt_wl_kv = {
	.name = "kv",
	.group = "kv",
	.title = "page-view counters: increment one key, read another (inproc, memcached, redis, gearman)",
	.unit = "requests",
	.lat_what = "per request from its send; rate=: from its intended send (CO-corrected)",
	.lat_channels = kv_lat_channels,
	.servers = spawnable,
	.params = params,
	.nparams = P_COUNT,
	.metrics = metrics,
	.nmetrics = M_COUNT,
	/* Fixed work by default (iterations=); duration= runs instead. ops=0 is no rule. */
	.stop_default = "ops=0",
	.baseline = NULL,
	/* never unavailable: inproc always runs; check() names a missing library or server */
	.check = kv_check,
	.engines = BT_ENGINES_THREADS | BT_ENGINES_PROCESSES,
	.run_setup = kv_run_setup,
	.run_teardown = kv_run_teardown,
	.cell_setup = kv_cell_setup,
	.setup = kv_setup,
	.worker = kv_worker,
	.verify = kv_verify,
	.teardown = kv_teardown,
};
