/*
 * http_server.h - benchtop's own small HTTP/1.1 server (server=builtin of
 * the http workload): static responses on 127.0.0.1, one event loop per
 * thread on select, poll or epoll, keep-alive or close as the client asks.
 *
 * GET /status/NNN answers status NNN (100..599) with a short body; any
 * other path answers 200 with size bytes. Threads of its own, owned by
 * whoever started it (the http workload's run state) and stopped by
 * bt_httpd_stop on every path.
 */
#ifndef BT_WORKLOADS_HTTP_SERVER_H
#define BT_WORKLOADS_HTTP_SERVER_H

#include <stddef.h>
#include <stdint.h>


#include "core/err.h"

enum bt_httpd_api { BT_HTTPD_SELECT, BT_HTTPD_POLL, BT_HTTPD_EPOLL };

struct bt_httpd;

/*
 * Listen on a free port of 127.0.0.1 (SO_REUSEPORT: one listening socket
 * per thread) and start nthreads event loops. 0 or -errno with err set.
 */
int bt_httpd_start(struct bt_httpd **out, enum bt_httpd_api api, int nthreads, size_t size,
		   struct bt_err *err);

int bt_httpd_port(const struct bt_httpd *h);

/* CPU time of the server's threads so far (user and system, ns), from /proc/self/task. */
void bt_httpd_cpu(const struct bt_httpd *h, uint64_t *user_ns, uint64_t *sys_ns);

/* Stop the loops, join them, close every descriptor, free. NULL is fine. */
void bt_httpd_stop(struct bt_httpd *h);


#endif
