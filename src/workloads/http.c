/*
 * http.c - HTTP/1.1 load on loopback, in closed loop (siege: users=, each
 * sending its next request after the reply and think=) or open loop
 * (httperf --rate / wrk2: rate= requests per second on a fixed schedule),
 * against benchtop's own server (server=builtin, http_server.c), a real
 * nginx it spawns (server=nginx) or an existing one (server=http://...).
 *
 * The client is event-driven: each worker thread drives many connections on
 * one epoll, never one thread per connection. In open loop a request's
 * latency runs from the time the schedule meant to send it, so a stalled
 * server shows in the histogram instead of delaying the measurement
 * (coordinated omission); the time from the actual start is kept as the
 * service metric. idle= connections are opened and held silent, the
 * thousand idle connections that make poll() servers slow.
 *
 * An op is a request finished: a reply, or an error of one of httperf's
 * kinds (client-timo, connrefused, connreset, fd-unavail, addrunavail) or a
 * reply that does not parse (protocol). With ops= the count is exact.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/file.h"
#include "core/pagecache.h"
#include "core/proc.h"
#include "core/which.h"
#include "engines/spawn.h"
#include "engines/workload.h"
#include "workloads/http_server.h"

enum {
	P_SERVER, P_API, P_SERVER_THREADS, P_SIZE, P_USERS, P_THREADS, P_RATE, P_THINK, P_IDLE,
	P_CONN, P_RPC, P_URLS, P_PATH, P_TIMEOUT, P_COUNT
};
enum { C_KEEPALIVE, C_NEW };
enum { SK_BUILTIN, SK_NGINX, SK_URL };

static const char *const api_choices[] = { "select", "poll", "epoll", NULL };
static const char *const conn_choices[] = { "keepalive", "new", NULL };

static int server_check(const char *text, struct bt_err *err);

static const struct bt_param params[] = {
	[P_SERVER] = { .name = "server", .kind = BT_P_STRING, .def = "builtin", .check = server_check,
		       .help = "builtin (benchtop's own), nginx (spawned), or http://127.0.0.1:PORT/path" },
	[P_API] = { .name = "api", .kind = BT_P_ENUM, .def = "epoll", .choices = api_choices,
		    .help = "server=builtin: the server's event loop (select, poll or epoll)" },
	[P_SERVER_THREADS] = { .name = "server_threads", .kind = BT_P_INT, .def = "1", .min = 1,
			       .max = 64, .help = "builtin: event loop threads; nginx: worker_processes" },
	[P_SIZE] = { .name = "size", .kind = BT_P_SIZE, .def = "1704", .min = 0, .max = 64ll << 20,
		     .help = "bytes of the static page (builtin and nginx)",
		     .ticks = "0,1704,16K,256K" },
	[P_USERS] = { .name = "users", .kind = BT_P_INT, .def = "10", .min = 1, .max = 100000,
		      .help = "closed loop: concurrent users, each one request at a time",
		      .ticks = "1,10,50,100,500", .flags = BT_PF_WORKERS },
	[P_THREADS] = { .name = "threads", .kind = BT_P_INT, .def = "1", .min = 1, .max = 64,
			.help = "client threads, each driving its share of the connections on one epoll" },
	[P_RATE] = { .name = "rate", .kind = BT_P_INT, .def = "0", .min = 0, .max = 10000000,
		     .help = "open loop: requests per second on a fixed schedule (0: closed loop)",
		     .ticks = "100,1200,5000,20000" },
	[P_THINK] = { .name = "think", .kind = BT_P_DURATION, .def = "0", .min = 0,
		      .max = 60000000000ll, .help = "closed loop: pause after a reply before the next request" },
	[P_IDLE] = { .name = "idle", .kind = BT_P_INT, .def = "0", .min = 0, .max = 100000,
		     .help = "extra connections opened and held silent", .ticks = "0,100,1000" },
	[P_CONN] = { .name = "conn", .kind = BT_P_ENUM, .def = "keepalive", .choices = conn_choices,
		     .help = "keepalive: reuse connections; new: one connection per request" },
	[P_RPC] = { .name = "requests_per_conn", .kind = BT_P_INT, .def = "0", .min = 0,
		    .max = 1000000000, .help = "keepalive: requests before reconnecting (0: no limit)" },
	[P_URLS] = { .name = "urls", .kind = BT_P_STRING, .def = "",
		     .help = "URL file, siege format: a line per URL or path, repeated lines weigh more" },
	[P_PATH] = { .name = "path", .kind = BT_P_STRING, .def = "",
		     .help = "the path requested when there is no URL file (default: the server URL's, or /)" },
	[P_TIMEOUT] = { .name = "timeout", .kind = BT_P_DURATION, .def = "5s", .min = 1000000,
			.max = 600000000000ll, .help = "a request with no reply after this is a client-timo error" },
};

enum {
	M_CONNS, M_CONNECT, M_REPLIES, M_2XX, M_3XX, M_4XX, M_5XX, M_SERVICE, M_TIMEO, M_REFUSED,
	M_RESET, M_FDUNAVAIL, M_ADDRUNAVAIL, M_PROTO, M_SRV_USER, M_SRV_SYS, M_COUNT
};
_Static_assert(M_COUNT <= BT_METRICS_MAX, "metrics");

static const struct bt_metric metrics[M_COUNT] = {
	[M_CONNS] = { .name = "connections", .unit = "conns", .kind = BT_MK_COUNTER,
		      .help = "connections opened for requests (idle ones not counted)" },
	[M_CONNECT] = { .name = "connect", .unit = "ns", .kind = BT_MK_TIME, .den = "connections",
			.help = "connect time per connection" },
	[M_REPLIES] = { .name = "replies", .unit = "replies", .kind = BT_MK_COUNTER,
			.help = "complete replies" },
	[M_2XX] = { .name = "2xx", .unit = "replies", .kind = BT_MK_COUNTER, .help = "status 200-299" },
	[M_3XX] = { .name = "3xx", .unit = "replies", .kind = BT_MK_COUNTER, .help = "status 300-399" },
	[M_4XX] = { .name = "4xx", .unit = "replies", .kind = BT_MK_COUNTER, .help = "status 400-499" },
	[M_5XX] = { .name = "5xx", .unit = "replies", .kind = BT_MK_COUNTER, .help = "status 500-599" },
	[M_SERVICE] = { .name = "service", .unit = "ns", .kind = BT_MK_TIME, .den = "replies",
			.help = "time from the request's actual start (connect or send) to its reply" },
	[M_TIMEO] = { .name = "client-timo", .unit = "errors", .kind = BT_MK_COUNTER, .error = 1,
		      .help = "no reply within timeout=" },
	[M_REFUSED] = { .name = "connrefused", .unit = "errors", .kind = BT_MK_COUNTER, .error = 1,
			.help = "connection refused" },
	[M_RESET] = { .name = "connreset", .unit = "errors", .kind = BT_MK_COUNTER, .error = 1,
		      .help = "connection reset or closed before the reply ended" },
	[M_FDUNAVAIL] = { .name = "fd-unavail", .unit = "errors", .kind = BT_MK_COUNTER, .error = 1,
			  .help = "out of descriptors (or of open-loop connection slots)" },
	[M_ADDRUNAVAIL] = { .name = "addrunavail", .unit = "errors", .kind = BT_MK_COUNTER,
			    .error = 1, .help = "out of local ports" },
	[M_PROTO] = { .name = "protocol", .unit = "errors", .kind = BT_MK_COUNTER, .error = 1,
		      .help = "a reply that does not parse as HTTP/1.x" },
	[M_SRV_USER] = { .name = "server_user", .unit = "ns", .kind = BT_MK_TIME, .den = "replies",
			 .help = "server user CPU per reply (builtin or spawned nginx)" },
	[M_SRV_SYS] = { .name = "server_sys", .unit = "ns", .kind = BT_MK_TIME, .den = "replies",
			.help = "server system CPU per reply (builtin or spawned nginx)" },
};

#define URLS_MAX_BYTES (4u << 20)
#define URLS_MAX_LINES 100000
#define HTTP_MAX_SERVERS 32

/* ---------------------------------------------------------------- servers */

/* A server=URL value: 127.0.0.1 or localhost, a port, a path. */
static int parse_url(const char *u, struct sockaddr_in *sa, char *path, size_t n)
{
	const char *h = u + 7, *slash, *colon;
	char host[64];
	long port = 80;

	if (strncmp(u, "http://", 7) != 0)
		return -EINVAL;
	slash = strchr(h, '/');
	if (slash == NULL)
		slash = h + strlen(h);
	colon = memchr(h, ':', (size_t)(slash - h));
	if ((size_t)((colon ? colon : slash) - h) >= sizeof(host))
		return -EINVAL;
	snprintf(host, sizeof(host), "%.*s", (int)((colon ? colon : slash) - h), h);
	if (colon != NULL) {
		char *end;

		port = strtol(colon + 1, &end, 10);
		if (end != slash || port < 1 || port > 65535)
			return -EINVAL;
	}
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (strcmp(host, "localhost") == 0)
		strcpy(host, "127.0.0.1");
	if (inet_pton(AF_INET, host, &sa->sin_addr) != 1)
		return -EINVAL;
	if (path != NULL)
		snprintf(path, n, "%s", *slash ? slash : "/");
	return 0;
}

static int server_kind(const char *s)
{
	return strcmp(s, "builtin") == 0 ? SK_BUILTIN : strcmp(s, "nginx") == 0 ? SK_NGINX : SK_URL;
}

static int server_check(const char *text, struct bt_err *err)
{
	struct sockaddr_in sa;

	if (server_kind(text) != SK_URL || parse_url(text, &sa, NULL, 0) == 0)
		return 0;
	return bt_err_set(err, -EINVAL,
			  "server=%s: must be builtin, nginx or http://IPV4-OR-localhost[:PORT][/path]",
			  text);
}

struct http_srv {
	int kind, api, threads;
	int64_t size;
	int port;
	struct bt_httpd *httpd;
	struct bt_spawn sp;
	struct bt_scratch sc;
};

struct http_run {
	int n;
	struct http_srv srv[HTTP_MAX_SERVERS];
	struct rlimit saved;
	int raised;
};

/* Write a file of the scratch directory (a plain name under it), size bytes of text. */
static int scratch_write(struct bt_scratch *sc, const char *name, const char *text, int64_t size,
			 struct bt_err *err)
{
	int fd = openat(sc->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	char buf[4096];
	int64_t left = text ? (int64_t)strlen(text) : size;

	if (fd < 0)
		return bt_err_set(err, -errno, "%s/%s: %s", sc->path, name, strerror(errno));
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)('a' + i % 26);
	while (left > 0) {
		size_t chunk = text ? (size_t)left : (size_t)(left < 4096 ? left : 4096);
		ssize_t w = write(fd, text ? text + (strlen(text) - (size_t)left) : buf, chunk);

		if (w <= 0) {
			int e = w < 0 ? -errno : -EIO;

			close(fd);
			return bt_err_set(err, e, "%s/%s: %s", sc->path, name, strerror(-e));
		}
		left -= w;
	}
	close(fd);
	return 0;
}

/*
 * A real nginx on 127.0.0.1: a scratch directory holds its config, pid
 * file, logs, temp paths and the page; it runs in the foreground (daemon
 * off) with master_process on, so bt_spawn stops the master by PID and the
 * master its workers. Retried once on a port taken meanwhile.
 */
static int nginx_start(struct http_srv *s, struct bt_err *err)
{
	char conf[4096], confpath[4200], errlog[4200], log[4200];
	const char *d;
	int rc;

	rc = bt_scratch_create(&s->sc, NULL, "nginx", err);
	if (rc < 0)
		return rc;
	d = s->sc.path;
	if (mkdirat(s->sc.dirfd, "www", 0755) < 0 || mkdirat(s->sc.dirfd, "tmp", 0755) < 0)
		return bt_err_set(err, -errno, "%s: mkdir: %s", d, strerror(errno));
	fchmod(s->sc.dirfd, 0755);	/* workers may run as another user */
	rc = scratch_write(&s->sc, "www/index.html", NULL, s->size, err);
	if (rc < 0)
		return rc;
	snprintf(confpath, sizeof(confpath), "%s/nginx.conf", d);
	snprintf(errlog, sizeof(errlog), "%s/error.log", d);
	snprintf(log, sizeof(log), "%s/nginx.out", d);
	for (int attempt = 0; attempt < 2; attempt++) {
		const char *argv[] = { "nginx", "-p", d, "-c", confpath, "-e", errlog, NULL };

		rc = bt_spawn_free_port(&s->port, err);
		if (rc < 0)
			return rc;
		snprintf(conf, sizeof(conf),
			 "daemon off;\nmaster_process on;\nworker_processes %d;\n%s"
			 "pid %s/nginx.pid;\nerror_log %s warn;\nworker_rlimit_nofile 65536;\n"
			 "events { worker_connections 16384; }\n"
			 "http {\n  access_log off;\n  sendfile on;\n  tcp_nodelay on;\n"
			 "  keepalive_requests 100000000;\n  keepalive_timeout 75s;\n"
			 "  client_body_temp_path %s/tmp/body;\n  proxy_temp_path %s/tmp/proxy;\n"
			 "  fastcgi_temp_path %s/tmp/fastcgi;\n  uwsgi_temp_path %s/tmp/uwsgi;\n"
			 "  scgi_temp_path %s/tmp/scgi;\n  default_type text/html;\n"
			 "  server {\n    listen 127.0.0.1:%d;\n    root %s/www;\n"
			 "    location = / { try_files /index.html =404; }\n  }\n}\n",
			 s->threads, geteuid() == 0 ? "user root root;\n" : "", d, errlog, d, d, d, d,
			 d, s->port, d);
		unlinkat(s->sc.dirfd, "nginx.conf", 0);
		rc = scratch_write(&s->sc, "nginx.conf", conf, 0, err);
		if (rc < 0)
			return rc;
		rc = bt_spawn_start(&s->sp, argv, d, log, err);
		if (rc < 0)
			return rc;
		rc = bt_spawn_wait_tcp(&s->sp, s->port, 5000, err);
		if (rc == 0)
			return 0;
		bt_spawn_stop(&s->sp, 2000);
	}
	return rc;
}

static void srv_stop(struct http_srv *s)
{
	struct bt_err e = { "" };

	bt_httpd_stop(s->httpd);
	s->httpd = NULL;
	if (s->kind == SK_NGINX) {
		bt_spawn_stop(&s->sp, 3000);
		bt_scratch_remove(&s->sc, &e);
	}
}

static void http_run_teardown(struct bt_run_ctx *run)
{
	struct http_run *r = run->state;

	if (r == NULL)
		return;
	for (int i = r->n - 1; i >= 0; i--)
		srv_stop(&r->srv[i]);
	if (r->raised)
		setrlimit(RLIMIT_NOFILE, &r->saved);
	free(r);
	run->state = NULL;
}

static struct http_srv *srv_find(struct http_run *r, const struct bt_value *const *p)
{
	int kind = server_kind(p[P_SERVER]->text);

	for (int i = 0; r != NULL && i < r->n; i++) {
		struct http_srv *s = &r->srv[i];

		if (s->kind == kind && s->threads == p[P_SERVER_THREADS]->i &&
		    s->size == p[P_SIZE]->i && (kind != SK_BUILTIN || s->api == p[P_API]->i))
			return s;
	}
	return NULL;
}

/*
 * One server per distinct (builtin or nginx, api, server_threads, size) of
 * the run's cells, started before the first cell and kept to the last; the
 * soft open-file limit raised to the hard one for the connections.
 */
static int http_run_setup(struct bt_run_ctx *run, struct bt_err *err)
{
	struct http_run *r = calloc(1, sizeof(*r));
	int rc = 0;

	if (r == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	run->state = r;
	if (getrlimit(RLIMIT_NOFILE, &r->saved) == 0 && r->saved.rlim_cur < r->saved.rlim_max) {
		struct rlimit rl = r->saved;

		rl.rlim_cur = rl.rlim_max;
		r->raised = setrlimit(RLIMIT_NOFILE, &rl) == 0;
	}
	for (int c = 0; c < run->ncells && rc == 0; c++) {
		const struct bt_value *const *p = run->cells[c];
		int kind = server_kind(p[P_SERVER]->text);
		struct http_srv *s;

		if (kind == SK_URL || srv_find(r, p) != NULL)
			continue;
		if (r->n == HTTP_MAX_SERVERS) {
			rc = bt_err_set(err, -E2BIG, "more than %d distinct servers in one run",
					HTTP_MAX_SERVERS);
			break;
		}
		s = &r->srv[r->n++];
		s->kind = kind;
		s->api = (int)p[P_API]->i;
		s->threads = (int)p[P_SERVER_THREADS]->i;
		s->size = p[P_SIZE]->i;
		s->sc.dirfd = -1;
		if (kind == SK_BUILTIN) {
			rc = bt_httpd_start(&s->httpd, (enum bt_httpd_api)s->api, s->threads,
					    (size_t)s->size, err);
			if (rc == 0)
				s->port = bt_httpd_port(s->httpd);
		} else {
			rc = nginx_start(s, err);
		}
	}
	if (rc < 0)
		http_run_teardown(run);
	return rc;
}

/* Server CPU so far: the builtin's threads, or nginx's master and its workers. */
static void srv_cpu(const struct http_srv *s, uint64_t *u, uint64_t *sy)
{
	*u = *sy = 0;
	if (s == NULL)
		return;
	if (s->kind == SK_BUILTIN) {
		bt_httpd_cpu(s->httpd, u, sy);
		return;
	}
	/* nginx's work is in its worker processes: the master and its children. */
	if (s->sp.pid > 0 && !s->sp.exited)
		bt_proc_cpu_tree((int)s->sp.pid, u, sy);
}

/* ---------------------------------------------------------------- cells */

struct http_cell {
	struct http_srv *srv;
	struct sockaddr_in sa;
	char hostport[64];
	int nurls;
	char **req_ka, **req_close;	/* [nurls]: the request texts */
	size_t *len_ka, *len_close;
};

static void http_cell_teardown(struct bt_job *cell)
{
	struct http_cell *c = cell->cell_state;

	if (c == NULL)
		return;
	for (int i = 0; i < c->nurls; i++) {
		free(c->req_ka ? c->req_ka[i] : NULL);
		free(c->req_close ? c->req_close[i] : NULL);
	}
	free(c->req_ka);
	free(c->req_close);
	free(c->len_ka);
	free(c->len_close);
	free(c);
	cell->cell_state = NULL;
}

static int cell_add_url(struct http_cell *c, const char *path, int cap)
{
	char buf[4096];
	int n;

	if (c->nurls == cap)
		return -E2BIG;
	n = snprintf(buf, sizeof(buf), "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: benchtop\r\n\r\n",
		     path, c->hostport);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -E2BIG;
	c->req_ka[c->nurls] = strdup(buf);
	n = snprintf(buf, sizeof(buf),
		     "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: benchtop\r\nConnection: close\r\n\r\n",
		     path, c->hostport);
	c->req_close[c->nurls] = strdup(buf);
	if (!c->req_ka[c->nurls] || !c->req_close[c->nurls])
		return -ENOMEM;
	c->len_ka[c->nurls] = strlen(c->req_ka[c->nurls]);
	c->len_close[c->nurls] = (size_t)n;
	c->nurls++;
	return 0;
}

/*
 * The URL file, siege's format: one URL (http://host/path, whose path is
 * taken: requests go to server=) or path per line, blank lines and # comments
 * skipped, anything after the first blank ignored; a line repeated k times
 * is chosen k times as often.
 */
static int load_urls(struct http_cell *c, const char *file, struct bt_err *err)
{
	char line[4200];
	FILE *f;
	int rc, lineno = 0;

	rc = bt_file_open_read(file, URLS_MAX_BYTES, &f, NULL, err);
	if (rc < 0)
		return rc;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *s = line, *e, *path;

		lineno++;
		while (isspace((unsigned char)*s))
			s++;
		for (e = s; *e && !isspace((unsigned char)*e); e++)
			;
		*e = '\0';
		if (*s == '\0' || *s == '#')
			continue;
		if (strncmp(s, "http://", 7) == 0) {
			path = strchr(s + 7, '/');
			if (path == NULL)
				path = "/";
		} else if (*s == '/') {
			path = s;
		} else {
			rc = bt_err_set(err, -EINVAL, "%s:%d: not a URL or a /path: %.60s", file, lineno, s);
			break;
		}
		rc = cell_add_url(c, path, URLS_MAX_LINES);
		if (rc < 0) {
			bt_err_set(err, rc, "%s:%d: %s", file, lineno,
				   rc == -E2BIG ? "too many lines or a line too long" : "out of memory");
			break;
		}
	}
	fclose(f);
	if (rc == 0 && c->nurls == 0)
		rc = bt_err_set(err, -EINVAL, "%s: no URLs", file);
	return rc;
}

static int http_cell_setup(struct bt_job *cell, struct bt_err *err)
{
	const struct bt_value *const *p = cell->params;
	struct http_cell *c = calloc(1, sizeof(*c));
	int kind = server_kind(p[P_SERVER]->text), rc = 0, cap = URLS_MAX_LINES;
	char path[2048] = "/";

	if (c == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	cell->cell_state = c;
	c->req_ka = calloc((size_t)cap, sizeof(char *));
	c->req_close = calloc((size_t)cap, sizeof(char *));
	c->len_ka = calloc((size_t)cap, sizeof(size_t));
	c->len_close = calloc((size_t)cap, sizeof(size_t));
	if (!c->req_ka || !c->req_close || !c->len_ka || !c->len_close) {
		rc = bt_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (kind == SK_URL) {
		parse_url(p[P_SERVER]->text, &c->sa, path, sizeof(path));
	} else {
		c->srv = srv_find(cell->run_state, p);
		if (c->srv == NULL) {
			rc = bt_err_set(err, -ENOENT, "server=%s was not started", p[P_SERVER]->text);
			goto out;
		}
		c->sa.sin_family = AF_INET;
		c->sa.sin_port = htons((uint16_t)c->srv->port);
		c->sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	}
	snprintf(c->hostport, sizeof(c->hostport), "%s:%d", inet_ntoa(c->sa.sin_addr),
		 ntohs(c->sa.sin_port));
	if (p[P_URLS]->text[0]) {
		rc = load_urls(c, p[P_URLS]->text, err);
	} else {
		rc = cell_add_url(c, p[P_PATH]->text[0] ? p[P_PATH]->text : path, cap);
		if (rc < 0)
			bt_err_set(err, rc, "path=%s: too long", p[P_PATH]->text);
	}
out:
	if (rc < 0)
		http_cell_teardown(cell);
	return rc;
}

static int http_check(const struct bt_value *const *p, struct bt_err *err)
{
	char buf[256];
	const char *why;

	if (server_kind(p[P_SERVER]->text) == SK_NGINX &&
	    (why = bt_which_missing("nginx", "nginx", buf, sizeof(buf))) != NULL)
		return bt_err_set(err, -ENOENT, "server=nginx: %s", why);
	if (p[P_PATH]->text[0] && p[P_PATH]->text[0] != '/')
		return bt_err_set(err, -EINVAL, "path=%s: must start with /", p[P_PATH]->text);
	if (p[P_RATE]->i == 0 && p[P_THREADS]->i > p[P_USERS]->i)
		return bt_err_set(err, -EINVAL, "threads=%lld: more client threads than users=%lld",
				  (long long)p[P_THREADS]->i, (long long)p[P_USERS]->i);
	return 0;
}

/* ---------------------------------------------------------------- reps */

struct http_rep {
	struct http_cell *cell;
	int rate, conn_new, idle;
	int64_t rpc;
	uint64_t think_ns, timeout_ns;
	int users;
	uint64_t srv_u0, srv_s0;
};

static int http_setup(struct bt_job *job, struct bt_err *err)
{
	struct http_rep *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	r->cell = job->cell_state;
	r->rate = (int)bt_job_param(job, P_RATE)->i;
	r->conn_new = bt_job_param(job, P_CONN)->i == C_NEW;
	r->rpc = bt_job_param(job, P_RPC)->i;
	r->think_ns = (uint64_t)bt_job_param(job, P_THINK)->i;
	r->timeout_ns = (uint64_t)bt_job_param(job, P_TIMEOUT)->i;
	r->idle = (int)bt_job_param(job, P_IDLE)->i;
	r->users = (int)bt_job_param(job, P_USERS)->i;
	job->nworkers = (int)bt_job_param(job, P_THREADS)->i;
	job->state = r;
	srv_cpu(r->cell->srv, &r->srv_u0, &r->srv_s0);
	return 0;
}

/*
 * The server's CPU over the rep, as rep-level metrics; then the errors as a
 * result. A spawned nginx that died fails the rep (as kv's spawned servers
 * do), and so does a rep in which no request got a reply; a rep with some
 * errors goes on, as httperf's run does, and its check line says how many
 * of which kind.
 */
static int http_verify(struct bt_job *job, struct bt_err *err)
{
	struct http_rep *r = job->state;
	struct http_srv *srv = r->cell->srv;
	const uint64_t *m = job->workers_metric;
	char kinds[200] = "";
	uint64_t u, s, nerr = 0;
	size_t o = 0;

	if (srv != NULL) {
		srv_cpu(srv, &u, &s);
		bt_job_metric(job, M_SRV_USER, u - r->srv_u0);
		bt_job_metric(job, M_SRV_SYS, s - r->srv_s0);
	}
	if (srv != NULL && srv->kind == SK_NGINX && !bt_spawn_alive(&srv->sp)) {
		char msg[BT_ERR_MAX - 64];

		bt_spawn_describe(&srv->sp, msg, sizeof(msg));
		return bt_err_set(err, -EIO, "the spawned server died during the rep: %s", msg);
	}
	for (int k = 0; m != NULL && k < M_COUNT; k++) {
		if (!metrics[k].error || m[k] == 0)
			continue;
		nerr += m[k];
		if (o < sizeof(kinds))
			o += (size_t)snprintf(kinds + o, sizeof(kinds) - o, "%s%s %llu", o ? ", " : "",
					      metrics[k].name, (unsigned long long)m[k]);
	}
	if (nerr == 0)
		return 0;
	if (m[M_REPLIES] == 0)
		return bt_err_set(err, -EIO, "no request got a reply (%llu failed: %s)",
				  (unsigned long long)nerr, kinds);
	bt_err_set(err, 0, "%llu of %llu requests failed: %s", (unsigned long long)nerr,
		   (unsigned long long)(nerr + m[M_REPLIES]), kinds);
	return 0;
}

static void http_teardown(struct bt_job *job)
{
	free(job->state);
	job->state = NULL;
}

/* ---------------------------------------------------------------- client */

enum { S_FREE, S_CONNECTING, S_SENDING, S_READING, S_WAIT, S_POOL, S_IDLE };

#define HC_HEAD 8192

struct hc {
	int fd;
	int state;
	int nreq;		/* requests on this connection */
	int url;
	int close_after;	/* the request asked for close, or the reply said so */
	int head_done;
	int status;
	int64_t body_left;	/* -1: until the server closes */
	const char *req;
	size_t reqlen, reqoff;
	uint64_t t_int, t_start, t_conn, deadline, wake;
	uint32_t ev;		/* the events fd is registered for (0: not registered) */
	size_t hlen;
	char head[HC_HEAD];
};

struct hcl {
	struct bt_worker *w;
	struct http_rep *r;
	struct http_cell *c;
	int ep;
	struct hc *conn;
	int nconn;		/* request slots: users (closed) or the open loop's pool */
	int nidle;		/* idle ones after them */
	uint64_t issued, quota;
	uint64_t rnd;
	char scratch[65536];
};

static uint64_t hc_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Register h's fd for events. The registration is kept across requests: a
 * kept-alive connection stays on EPOLLIN from its first request to its
 * close, and only a send that would block switches it to EPOLLOUT and back,
 * so a request costs its send and recv and no epoll_ctl (wrk pays two).
 */
static void hc_ctl(struct hcl *l, struct hc *h, int op, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u32 = (uint32_t)(h - l->conn) };

	if (op == EPOLL_CTL_MOD && h->ev == events)
		return;
	if (epoll_ctl(l->ep, op, h->fd, &ev) == 0)
		h->ev = events;
}

static void hc_close(struct hc *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	h->ev = 0;
	h->nreq = 0;
}

/* Where a request slot goes once its request is over (reply or error). */
static void hc_next(struct hcl *l, struct hc *h, uint64_t now, uint64_t pause)
{
	if (l->r->rate == 0) {
		h->state = S_WAIT;
		h->wake = now + pause;
	} else {
		h->state = h->fd >= 0 ? S_POOL : S_FREE;
	}
	if (h->fd >= 0)
		hc_ctl(l, h, EPOLL_CTL_MOD, EPOLLIN);	/* a close by the server shows */
}

/* A request ends in error of kind m: the connection goes, the op counts. */
static void hc_fail(struct hcl *l, struct hc *h, int m, uint64_t now)
{
	bt_worker_error(l->w, m);
	bt_worker_ops(l->w, 1);
	hc_close(h);
	/* A closed-loop user waits a little before retrying, so refusals do not spin. */
	hc_next(l, h, now, l->r->think_ns > 1000000 ? l->r->think_ns : 1000000);
}

static int errno_kind(int e)
{
	switch (e) {
	case ECONNREFUSED:
		return M_REFUSED;
	case EMFILE:
	case ENFILE:
	case ENOBUFS:
	case ENOMEM:
		return M_FDUNAVAIL;
	case EADDRNOTAVAIL:
	case EADDRINUSE:
		return M_ADDRUNAVAIL;
	case ETIMEDOUT:
		return M_TIMEO;
	default:
		return M_RESET;
	}
}

static void hc_send(struct hcl *l, struct hc *h, uint64_t now)
{
	while (h->reqoff < h->reqlen) {
		ssize_t n = send(h->fd, h->req + h->reqoff, h->reqlen - h->reqoff, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			h->state = S_SENDING;
			hc_ctl(l, h, EPOLL_CTL_MOD, EPOLLOUT);
			return;
		}
		if (n <= 0) {
			hc_fail(l, h, errno_kind(errno), now);
			return;
		}
		h->reqoff += (size_t)n;
	}
	h->state = S_READING;
	h->hlen = 0;
	h->head_done = 0;
	hc_ctl(l, h, EPOLL_CTL_MOD, EPOLLIN);
}

/* Open a connection for slot h (a request slot or an idle one). 0, or an error kind. */
static int hc_connect(struct hcl *l, struct hc *h, uint64_t now)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
	struct epoll_event ev = { .events = EPOLLOUT, .data.u32 = (uint32_t)(h - l->conn) };

	if (fd < 0)
		return errno_kind(errno);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	h->fd = fd;
	h->nreq = 0;
	h->t_conn = now;
	if (connect(fd, (const struct sockaddr *)&l->c->sa, sizeof(l->c->sa)) < 0 &&
	    errno != EINPROGRESS) {
		int k = errno_kind(errno);

		hc_close(h);
		return k;
	}
	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		hc_close(h);
		return M_FDUNAVAIL;
	}
	h->ev = EPOLLOUT;
	return 0;
}

/* Start a request on slot h, meant to be sent at t_int. */
static void hc_start(struct hcl *l, struct hc *h, uint64_t t_int, uint64_t now)
{
	int close_it, k;

	l->issued++;
	h->url = l->c->nurls > 1 ? (int)(hc_rand(&l->rnd) % (uint64_t)l->c->nurls) : 0;
	close_it = l->r->conn_new || (l->r->rpc > 0 && h->nreq + 1 >= l->r->rpc);
	h->close_after = close_it;
	h->req = close_it ? l->c->req_close[h->url] : l->c->req_ka[h->url];
	h->reqlen = close_it ? l->c->len_close[h->url] : l->c->len_ka[h->url];
	h->reqoff = 0;
	h->t_int = t_int;
	h->t_start = now;
	h->deadline = now + l->r->timeout_ns;
	if (h->fd >= 0) {
		hc_send(l, h, now);
		return;
	}
	k = hc_connect(l, h, now);
	if (k != 0) {
		hc_fail(l, h, k, now);
		return;
	}
	h->state = S_CONNECTING;
}

/*
 * The extra latency channels: each reply's service time from its actual
 * send (without rate='s queueing, unlike the main histogram) and each
 * connection's connect time, every one recorded (times the loop takes anyway).
 */
enum { CH_RESPONSE = 1, CH_CONNECT = 2 };
static const char *const http_lat_channels[] = { "response", "connect", NULL };

static void hc_done(struct hcl *l, struct hc *h, uint64_t now)
{
	struct bt_worker *w = l->w;
	int cls = h->status / 100;

	bt_worker_count(w, M_REPLIES, 1);
	if (cls >= 2 && cls <= 5)
		bt_worker_count(w, M_2XX + cls - 2, 1);
	bt_worker_count(w, M_SERVICE, now - h->t_start);
	bt_lat_record_ch(w, CH_RESPONSE, now - h->t_start);
	bt_lat_record(w, now - (l->r->rate ? h->t_int : h->t_start));
	bt_worker_ops(w, 1);
	h->nreq++;
	if (h->close_after)
		hc_close(h);
	hc_next(l, h, now, l->r->think_ns);
}

/* Parse a reply's head; 0 when whole, 1 when more is needed, -1 when it does not parse. */
static int hc_head(struct hc *h, size_t *used)
{
	char *end, *p;
	int v10, minor, code;

	h->head[h->hlen] = '\0';
	end = strstr(h->head, "\r\n\r\n");
	if (end == NULL)
		return h->hlen >= HC_HEAD - 1 ? -1 : 1;
	*used = (size_t)(end + 4 - h->head);
	end[2] = '\0';
	/* "HTTP/1.x NNN": read by hand, sscanf was the parse's largest part (perf) */
	p = h->head;
	if (strncmp(p, "HTTP/1.", 7) != 0 || !isdigit((unsigned char)p[7]) || p[8] != ' ' ||
	    !isdigit((unsigned char)p[9]) || !isdigit((unsigned char)p[10]) ||
	    !isdigit((unsigned char)p[11]))
		return -1;
	minor = p[7] - '0';
	code = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	if (code < 100 || code > 599)
		return -1;
	v10 = minor == 0;
	h->status = code;
	h->body_left = -1;
	for (p = strstr(h->head, "\r\n"); p != NULL && p[2]; p = strstr(p + 2, "\r\n")) {
		const char *v = p + 2;

		if (strncasecmp(v, "Content-Length:", 15) == 0) {
			h->body_left = strtoll(v + 15, NULL, 10);
			if (h->body_left < 0)
				return -1;
		} else if (strncasecmp(v, "Connection:", 11) == 0) {
			v += 11;
			while (*v == ' ')
				v++;
			if (strncasecmp(v, "close", 5) == 0)
				h->close_after = 1;
			else if (strncasecmp(v, "keep-alive", 10) == 0)
				v10 = 0;
		} else if (strncasecmp(v, "Transfer-Encoding:", 18) == 0) {
			return -1;	/* chunked: not for a static page */
		}
	}
	if (v10)
		h->close_after = 1;
	if (code == 204 || code == 304 || code < 200)
		h->body_left = 0;
	if (h->body_left < 0)
		h->close_after = 1;	/* the body ends where the connection does */
	h->head_done = 1;
	return 0;
}

static void hc_readable(struct hcl *l, struct hc *h, uint64_t now)
{
	for (;;) {
		ssize_t n;

		if (!h->head_done) {
			size_t used = 0;
			int pr;

			n = recv(h->fd, h->head + h->hlen, HC_HEAD - 1 - h->hlen, 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				return;
			if (n <= 0) {
				hc_fail(l, h, n == 0 ? M_RESET : errno_kind(errno), now);
				return;
			}
			bt_worker_bytes(l->w, (uint64_t)n);
			h->hlen += (size_t)n;
			pr = hc_head(h, &used);
			if (pr < 0) {
				hc_fail(l, h, M_PROTO, now);
				return;
			}
			if (pr > 0)
				continue;
			if (h->body_left >= 0) {
				int64_t extra = (int64_t)(h->hlen - used);

				if (extra > h->body_left) {
					hc_fail(l, h, M_PROTO, now);	/* more than the reply */
					return;
				}
				h->body_left -= extra;
			}
		} else {
			n = recv(h->fd, l->scratch, sizeof(l->scratch), 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				return;
			if (n == 0 && h->body_left < 0) {
				hc_done(l, h, now);	/* the body ended with the connection */
				return;
			}
			if (n <= 0) {
				hc_fail(l, h, n == 0 ? M_RESET : errno_kind(errno), now);
				return;
			}
			bt_worker_bytes(l->w, (uint64_t)n);
			if (h->body_left >= 0) {
				if (n > h->body_left) {
					hc_fail(l, h, M_PROTO, now);
					return;
				}
				h->body_left -= n;
			}
		}
		if (h->body_left == 0) {
			hc_done(l, h, now);
			return;
		}
	}
}

static void hc_event(struct hcl *l, struct hc *h, uint32_t events, uint64_t now)
{
	int e = 0;
	socklen_t el = sizeof(e);

	switch (h->state) {
	case S_CONNECTING:
		getsockopt(h->fd, SOL_SOCKET, SO_ERROR, &e, &el);
		if (e != 0) {
			hc_fail(l, h, errno_kind(e), now);
			return;
		}
		bt_worker_count(l->w, M_CONNS, 1);
		bt_worker_count(l->w, M_CONNECT, now - h->t_conn);
		bt_lat_record_ch(l->w, CH_CONNECT, now - h->t_conn);
		hc_send(l, h, now);
		return;
	case S_SENDING:
		hc_send(l, h, now);
		return;
	case S_READING:
		hc_readable(l, h, now);
		return;
	case S_IDLE:
		if (events & EPOLLOUT) {	/* connected: hold it, listening for a close */
			getsockopt(h->fd, SOL_SOCKET, SO_ERROR, &e, &el);
			if (e == 0) {
				hc_ctl(l, h, EPOLL_CTL_MOD, EPOLLIN);
				return;
			}
		}
		hc_close(h);
		return;
	default:
		/* A kept-alive connection between requests: the server closed it. */
		hc_close(h);
		if (h->state == S_POOL)
			h->state = S_FREE;
		return;
	}
}

/* Requests past their deadline are client-timo errors. */
static void hc_expire(struct hcl *l, uint64_t now)
{
	for (int i = 0; i < l->nconn; i++) {
		struct hc *h = &l->conn[i];

		if ((h->state == S_CONNECTING || h->state == S_SENDING || h->state == S_READING) &&
		    now >= h->deadline)
			hc_fail(l, h, M_TIMEO, now);
	}
}

/* A slot for the next open-loop request: a pooled connection first, else a free slot. */
static struct hc *hc_slot(struct hcl *l, int *hint)
{
	struct hc *free_slot = NULL;

	for (int k = 0; k < l->nconn; k++) {
		int i = (*hint + k) % l->nconn;
		struct hc *h = &l->conn[i];

		if (h->state == S_POOL) {
			*hint = i + 1;
			return h;
		}
		if (h->state == S_FREE && free_slot == NULL)
			free_slot = h;
		if (free_slot != NULL && l->r->conn_new)
			break;
	}
	return free_slot;
}

static int http_worker(struct bt_worker *w)
{
	struct http_rep *r = w->job->state;
	struct hcl *l = calloc(1, sizeof(*l));
	struct epoll_event ev[256];
	uint64_t now = bt_now_ns(), next_send = 0, interval = 0, last_scan = now;
	int nw = w->nworkers, hint = 0, rc = 0;

	if (l == NULL)
		return bt_worker_fail(w, "out of memory");
	l->w = w;
	l->r = r;
	l->c = r->cell;
	l->rnd = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1);
	l->quota = w->quota;
	if (r->rate == 0) {
		l->nconn = r->users / nw + (w->id < r->users % nw);
	} else {
		/* Enough slots for the rate over a timeout, as httperf opens what it needs. */
		double per = (double)r->rate / nw * ((double)r->timeout_ns / 1e9) + 16;

		l->nconn = per > 20000 ? 20000 : (int)per;
		interval = (uint64_t)(1e9 * nw / r->rate);
		next_send = now + (uint64_t)w->id * (uint64_t)(1e9 / r->rate);
	}
	l->nidle = r->idle / nw + (w->id < r->idle % nw);
	l->conn = calloc((size_t)(l->nconn + l->nidle), sizeof(*l->conn));
	l->ep = epoll_create1(EPOLL_CLOEXEC);
	if (l->conn == NULL || l->ep < 0) {
		rc = bt_worker_fail(w, "out of memory or descriptors for %d connections",
				    l->nconn + l->nidle);
		goto out;
	}
	for (int i = 0; i < l->nconn + l->nidle; i++) {
		l->conn[i].fd = -1;
		l->conn[i].state = S_FREE;
		l->conn[i].wake = now;
		if (r->rate == 0 && i < l->nconn)
			l->conn[i].state = S_WAIT;
	}
	for (int i = l->nconn; i < l->nconn + l->nidle; i++) {
		int k = hc_connect(l, &l->conn[i], now);

		if (k != 0) {
			rc = bt_worker_fail(w, "idle connection %d of %d: %s", i - l->nconn + 1,
					    l->nidle, metrics[k].name);
			goto out;
		}
		l->conn[i].state = S_IDLE;
	}
	for (;;) {
		uint64_t wait_ns = 10000000, soonest = UINT64_MAX;
		int n;

		now = bt_now_ns();
		if (bt_worker_stop_raised(w) || (l->quota != 0 && w->done >= l->quota))
			break;
		if (l->quota == 0 || l->issued < l->quota) {
			if (r->rate == 0) {
				for (int i = 0; i < l->nconn && (l->quota == 0 || l->issued < l->quota); i++) {
					struct hc *h = &l->conn[i];

					if (h->state == S_WAIT && h->wake <= now)
						hc_start(l, h, now, now);
					else if (h->state == S_WAIT && h->wake < soonest)
						soonest = h->wake;
				}
				if (soonest != UINT64_MAX && soonest - now < wait_ns)
					wait_ns = soonest - now;
			} else {
				while (next_send <= now && (l->quota == 0 || l->issued < l->quota)) {
					struct hc *h = hc_slot(l, &hint);

					if (h == NULL) {
						l->issued++;
						bt_worker_error(w, M_FDUNAVAIL);
						bt_worker_ops(w, 1);
					} else {
						hc_start(l, h, next_send, now);
					}
					next_send += interval;
				}
				if (next_send > now && next_send - now < wait_ns)
					wait_ns = next_send - now;
			}
		}
		n = bt_epoll_wait_ns(l->ep, ev, 256, wait_ns);
		now = bt_now_ns();
		for (int i = 0; i < n; i++)
			hc_event(l, &l->conn[ev[i].data.u32], ev[i].events, now);
		if (now - last_scan >= 10000000) {
			hc_expire(l, now);
			last_scan = now;
		}
	}
out:
	if (l->conn != NULL)
		for (int i = 0; i < l->nconn + l->nidle; i++)
			hc_close(&l->conn[i]);
	if (l->ep >= 0)
		close(l->ep);
	free(l->conn);
	free(l);
	return rc;
}

static const char *const spawnable[] = { "nginx", NULL };

const struct bt_workload bt_wl_http = {
	.name = "http",
	.group = "events",
	.title = "HTTP/1.1 load, closed loop (users=) or open loop (rate=), on builtin, nginx or a URL",
	.unit = "requests",
	.lat_what = "closed loop: request start -> reply; open loop (rate=): intended send -> reply "
		    "(coordinated omission corrected; service is from the actual start)",
	.lat_channels = http_lat_channels,
	.rate_what = "reply rate",
	.servers = spawnable,
	.params = params,
	.nparams = P_COUNT,
	.metrics = metrics,
	.nmetrics = M_COUNT,
	.stop_default = "duration=2s",
	.check = http_check,
	.run_setup = http_run_setup,
	.run_teardown = http_run_teardown,
	.cell_setup = http_cell_setup,
	.cell_teardown = http_cell_teardown,
	.setup = http_setup,
	.worker = http_worker,
	.verify = http_verify,
	.teardown = http_teardown,
};
