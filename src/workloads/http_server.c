/*
 * http_server.c - server=builtin: a small static HTTP/1.1 server with one
 * event loop per thread (http_server.h). What it does per request is what a
 * static file server does once the file is cached: parse the request line
 * and the Connection header, write a prebuilt response. So its cost beyond
 * the kernel's is small, and the api= choice (select, poll, epoll) is what
 * a sweep compares: select and poll hand the kernel the whole set each
 * loop, epoll only what changed.
 */
#include "workloads/http_server.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/proc.h"

#define HS_IN 4096		/* a request's head must fit */

struct hs_conn {
	int fd;			/* -1: free */
	int idx;		/* in the loop's live list */
	int want_out;		/* waiting to write the rest of a response */
	int close_after;
	size_t inlen;
	const char *out;
	size_t outlen, outoff;
	char status[160];	/* a /status/NNN response */
	char in[HS_IN];
};

struct hs_loop {
	struct bt_httpd *h;
	pthread_t thread;
	int started;
	_Atomic int tid;
	int lfd, wake, epfd;
	struct hs_conn **conn;	/* by fd */
	int nconn;		/* slots in conn */
	int *live, nlive, cap_live;
	struct pollfd *pfd;
	int cap_pfd;
	unsigned long *rset, *wset;
	int bits;		/* bitmap size in bits */
};

struct bt_httpd {
	enum bt_httpd_api api;
	int port;
	int nloops;
	struct hs_loop *loop;
	char *resp_ka, *resp_close;
	size_t len_ka, len_close;
};

int bt_httpd_port(const struct bt_httpd *h)
{
	return h->port;
}

void bt_httpd_cpu(const struct bt_httpd *h, uint64_t *user_ns, uint64_t *sys_ns)
{
	*user_ns = *sys_ns = 0;
	for (int i = 0; h != NULL && i < h->nloops; i++) {
		uint64_t u, s;
		int tid = atomic_load(&h->loop[i].tid);

		if (tid > 0 && bt_proc_cpu((int)getpid(), tid, &u, &s) == 0) {
			*user_ns += u;
			*sys_ns += s;
		}
	}
}

static int hs_add(struct hs_loop *l, int fd)
{
	struct hs_conn *c;

	if (fd >= l->nconn) {
		int n = l->nconn ? l->nconn : 256;
		struct hs_conn **nc;

		while (n <= fd)
			n *= 2;
		nc = realloc(l->conn, (size_t)n * sizeof(*nc));
		if (nc == NULL)
			return -ENOMEM;
		memset(nc + l->nconn, 0, (size_t)(n - l->nconn) * sizeof(*nc));
		l->conn = nc;
		l->nconn = n;
	}
	if (l->nlive == l->cap_live) {
		int n = l->cap_live ? l->cap_live * 2 : 256;
		int *nl = realloc(l->live, (size_t)n * sizeof(int));

		if (nl == NULL)
			return -ENOMEM;
		l->live = nl;
		l->cap_live = n;
	}
	c = l->conn[fd];
	if (c == NULL && (c = l->conn[fd] = malloc(sizeof(*c))) == NULL)
		return -ENOMEM;
	c->fd = fd;
	c->inlen = c->outlen = c->outoff = 0;
	c->want_out = c->close_after = 0;
	c->idx = l->nlive;
	l->live[l->nlive++] = fd;
	if (l->h->api == BT_HTTPD_EPOLL) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

		if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
			return -errno;
	}
	return 0;
}

static void hs_close(struct hs_loop *l, struct hs_conn *c)
{
	int last = l->live[l->nlive - 1];

	l->live[c->idx] = last;
	l->conn[last]->idx = c->idx;
	l->nlive--;
	close(c->fd);	/* leaves the epoll set with it */
	c->fd = -1;
}

static void hs_interest(struct hs_loop *l, struct hs_conn *c, int out)
{
	if (c->want_out == out)
		return;
	c->want_out = out;
	if (l->h->api == BT_HTTPD_EPOLL) {
		struct epoll_event ev = { .events = out ? EPOLLOUT : EPOLLIN, .data.fd = c->fd };

		epoll_ctl(l->epfd, EPOLL_CTL_MOD, c->fd, &ev);
	}
}

/* Write what is left of the response; 1 done, 0 would block, -1 closed. */
static int hs_flush(struct hs_loop *l, struct hs_conn *c)
{
	while (c->outoff < c->outlen) {
		ssize_t n = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			hs_interest(l, c, 1);
			return 0;
		}
		if (n <= 0) {
			hs_close(l, c);
			return -1;
		}
		c->outoff += (size_t)n;
	}
	hs_interest(l, c, 0);
	if (c->close_after) {
		hs_close(l, c);
		return -1;
	}
	return 1;
}

/* Case-insensitive search for a header line's name and value in the head. */
static int hs_has(const char *head, const char *name, const char *value)
{
	size_t nl = strlen(name);

	for (const char *p = strstr(head, "\r\n"); p != NULL; p = strstr(p + 2, "\r\n")) {
		const char *v = p + 2;

		if (strncasecmp(v, name, nl) == 0 && v[nl] == ':') {
			v += nl + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			return strncasecmp(v, value, strlen(value)) == 0;
		}
	}
	return 0;
}

/* Answer every complete request in the buffer (pipelined ones too). */
static void hs_serve(struct hs_loop *l, struct hs_conn *c)
{
	struct bt_httpd *h = l->h;

	for (;;) {
		char *end, *sp;
		size_t used;
		int v10, code = 200;

		c->in[c->inlen] = '\0';
		end = strstr(c->in, "\r\n\r\n");
		if (end == NULL) {
			if (c->inlen >= HS_IN - 1)
				hs_close(l, c);	/* a head too large: drop the connection */
			return;
		}
		end[2] = '\0';
		used = (size_t)(end + 4 - c->in);
		v10 = strstr(c->in, " HTTP/1.0\r\n") != NULL;
		c->close_after = v10 ? !hs_has(c->in, "Connection", "keep-alive")
				     : hs_has(c->in, "Connection", "close");
		sp = strchr(c->in, ' ');
		if (sp != NULL && strncmp(sp + 1, "/status/", 8) == 0)
			code = atoi(sp + 9);
		if (code != 200 && code >= 100 && code <= 599) {
			c->outlen = (size_t)snprintf(c->status, sizeof(c->status),
						     "HTTP/1.1 %d Status\r\nContent-Length: 3\r\n"
						     "Content-Type: text/plain\r\n%s\r\n%03d",
						     code, c->close_after ? "Connection: close\r\n" : "",
						     code);
			c->out = c->status;
		} else if (c->close_after) {
			c->out = h->resp_close;
			c->outlen = h->len_close;
		} else {
			c->out = h->resp_ka;
			c->outlen = h->len_ka;
		}
		c->outoff = 0;
		memmove(c->in, c->in + used, c->inlen - used);
		c->inlen -= used;
		if (hs_flush(l, c) <= 0)
			return;
	}
}

static void hs_readable(struct hs_loop *l, struct hs_conn *c)
{
	ssize_t n;

	if (c->want_out) {
		hs_flush(l, c);
		return;
	}
	n = recv(c->fd, c->in + c->inlen, HS_IN - 1 - c->inlen, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		hs_close(l, c);
		return;
	}
	c->inlen += (size_t)n;
	hs_serve(l, c);
}

static void hs_accept(struct hs_loop *l)
{
	for (;;) {
		int fd = accept4(l->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1;

		if (fd < 0)
			return;	/* EAGAIN, or out of descriptors: the backlog waits */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (hs_add(l, fd) < 0)
			close(fd);
	}
}

/* Handle descriptor fd reported ready; 1 when it was the stop signal. */
static int hs_event(struct hs_loop *l, int fd)
{
	if (fd == l->wake)
		return 1;
	if (fd == l->lfd)
		hs_accept(l);
	else if (fd < l->nconn && l->conn[fd] != NULL && l->conn[fd]->fd == fd)
		hs_readable(l, l->conn[fd]);
	return 0;
}

static int hs_bits(struct hs_loop *l, int maxfd)
{
	if (maxfd < l->bits)
		return 0;
	int bits = l->bits ? l->bits : 1024;
	while (bits <= maxfd)
		bits *= 2;
	free(l->rset);
	free(l->wset);
	l->rset = malloc((size_t)bits / 8);
	l->wset = malloc((size_t)bits / 8);
	if (!l->rset || !l->wset)
		return -ENOMEM;
	l->bits = bits;
	return 0;
}

#define LB (8 * (int)sizeof(long))
#define SETB(set, fd) ((set)[(fd) / LB] |= 1ul << ((fd) % LB))
#define HASB(set, fd) (((set)[(fd) / LB] >> ((fd) % LB)) & 1ul)

/* One wait and its events; 1 when stopped. */
static int hs_once(struct hs_loop *l)
{
	int n, stop = 0;

	if (l->h->api == BT_HTTPD_EPOLL) {
		struct epoll_event ev[256];

		n = epoll_wait(l->epfd, ev, 256, -1);
		for (int i = 0; i < n; i++)
			stop |= hs_event(l, ev[i].data.fd);
		return stop;
	}
	if (l->h->api == BT_HTTPD_POLL) {
		int np = l->nlive + 2;

		if (np > l->cap_pfd) {
			struct pollfd *p = realloc(l->pfd, (size_t)np * 2 * sizeof(*p));

			if (p == NULL)
				return 1;
			l->pfd = p;
			l->cap_pfd = np * 2;
		}
		l->pfd[0] = (struct pollfd){ .fd = l->wake, .events = POLLIN };
		l->pfd[1] = (struct pollfd){ .fd = l->lfd, .events = POLLIN };
		for (int i = 0; i < l->nlive; i++) {
			struct hs_conn *c = l->conn[l->live[i]];

			l->pfd[i + 2] = (struct pollfd){ .fd = c->fd,
							 .events = c->want_out ? POLLOUT : POLLIN };
		}
		n = poll(l->pfd, (nfds_t)np, -1);
		for (int i = 0; i < np && n > 0; i++)
			if (l->pfd[i].revents) {
				n--;
				stop |= hs_event(l, l->pfd[i].fd);
			}
		return stop;
	}
	/* select: bitmaps as large as the highest descriptor needs (Linux takes any size). */
	int maxfd = l->wake > l->lfd ? l->wake : l->lfd;

	for (int i = 0; i < l->nlive; i++)
		if (l->live[i] > maxfd)
			maxfd = l->live[i];
	if (hs_bits(l, maxfd) < 0)
		return 1;
	memset(l->rset, 0, (size_t)(maxfd / LB + 1) * sizeof(long));
	memset(l->wset, 0, (size_t)(maxfd / LB + 1) * sizeof(long));
	SETB(l->rset, l->wake);
	SETB(l->rset, l->lfd);
	for (int i = 0; i < l->nlive; i++) {
		struct hs_conn *c = l->conn[l->live[i]];

		if (c->want_out)
			SETB(l->wset, c->fd);
		else
			SETB(l->rset, c->fd);
	}
	n = select(maxfd + 1, (fd_set *)l->rset, (fd_set *)l->wset, NULL, NULL);
	if (n <= 0)
		return 0;
	for (int fd = 0; fd <= maxfd; fd++)
		if (HASB(l->rset, fd) || HASB(l->wset, fd))
			stop |= hs_event(l, fd);
	return stop;
}

static void *hs_main(void *arg)
{
	struct hs_loop *l = arg;

	atomic_store(&l->tid, (int)gettid());
	while (!hs_once(l))
		;
	return NULL;
}

static void hs_loop_free(struct hs_loop *l)
{
	for (int i = 0; i < l->nlive; i++)
		close(l->live[i]);
	for (int i = 0; i < l->nconn; i++)
		free(l->conn[i]);
	free(l->conn);
	free(l->live);
	free(l->pfd);
	free(l->rset);
	free(l->wset);
	if (l->lfd >= 0)
		close(l->lfd);
	if (l->wake >= 0)
		close(l->wake);
	if (l->epfd >= 0)
		close(l->epfd);
}

void bt_httpd_stop(struct bt_httpd *h)
{
	if (h == NULL)
		return;
	for (int i = 0; i < h->nloops; i++) {
		struct hs_loop *l = &h->loop[i];

		if (l->started) {
			uint64_t one = 1;

			if (write(l->wake, &one, sizeof(one)) < 0)
				pthread_cancel(l->thread);
			pthread_join(l->thread, NULL);
		}
		hs_loop_free(l);
	}
	free(h->loop);
	free(h->resp_ka);
	free(h->resp_close);
	free(h);
}

static char *hs_response(size_t size, int close_it, size_t *len)
{
	char head[256];
	int hl = snprintf(head, sizeof(head),
			  "HTTP/1.1 200 OK\r\nServer: benchtop\r\nContent-Type: text/html\r\n"
			  "Content-Length: %zu\r\n%s\r\n",
			  size, close_it ? "Connection: close\r\n" : "");
	char *r = malloc((size_t)hl + size);

	if (r == NULL)
		return NULL;
	memcpy(r, head, (size_t)hl);
	for (size_t i = 0; i < size; i++)
		r[hl + i] = (char)('a' + i % 26);
	*len = (size_t)hl + size;
	return r;
}

static int hs_listen(int *port, int *fdp)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)*port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 4096) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &al) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	*port = ntohs(a.sin_port);
	*fdp = fd;
	return 0;
}

int bt_httpd_start(struct bt_httpd **out, enum bt_httpd_api api, int nthreads, size_t size,
		   struct bt_err *err)
{
	struct bt_httpd *h = calloc(1, sizeof(*h));
	int rc = 0;

	*out = NULL;
	if (h == NULL || (h->loop = calloc((size_t)nthreads, sizeof(*h->loop))) == NULL) {
		free(h);
		return bt_err_set(err, -ENOMEM, "out of memory");
	}
	h->api = api;
	h->nloops = nthreads;
	for (int i = 0; i < nthreads; i++)
		h->loop[i].lfd = h->loop[i].wake = h->loop[i].epfd = -1;
	h->resp_ka = hs_response(size, 0, &h->len_ka);
	h->resp_close = hs_response(size, 1, &h->len_close);
	if (!h->resp_ka || !h->resp_close) {
		rc = bt_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < nthreads; i++) {
		struct hs_loop *l = &h->loop[i];

		l->h = h;
		rc = hs_listen(&h->port, &l->lfd);
		if (rc < 0) {
			bt_err_set(err, rc, "builtin server: listen on 127.0.0.1:%d: %s", h->port,
				   strerror(-rc));
			goto out;
		}
		l->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (l->wake < 0) {
			rc = bt_err_set(err, -errno, "eventfd: %s", strerror(errno));
			goto out;
		}
		if (api == BT_HTTPD_EPOLL) {
			struct epoll_event ev = { .events = EPOLLIN };

			l->epfd = epoll_create1(EPOLL_CLOEXEC);
			ev.data.fd = l->lfd;
			if (l->epfd < 0 || epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->lfd, &ev) < 0) {
				rc = bt_err_set(err, -errno, "epoll: %s", strerror(errno));
				goto out;
			}
			ev.data.fd = l->wake;
			epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->wake, &ev);
		}
	}
	for (int i = 0; i < nthreads; i++) {
		rc = -pthread_create(&h->loop[i].thread, NULL, hs_main, &h->loop[i]);
		if (rc < 0) {
			bt_err_set(err, rc, "builtin server: thread: %s", strerror(-rc));
			goto out;
		}
		h->loop[i].started = 1;
	}
out:
	if (rc < 0)
		bt_httpd_stop(h);
	else
		*out = h;
	return rc;
}
