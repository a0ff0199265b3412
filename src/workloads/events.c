/*
 * events.c - what it costs to ask the kernel which descriptors are ready:
 * select, poll and epoll (level- or edge-triggered) over a set of fds=
 * watched descriptors of which active= are made ready per round.
 *
 * Each waiter (threads=) has its own set of socketpairs or pipes and is its
 * own writer: a round writes one byte into `active` random descriptors,
 * then waits until every one of them has been seen and read. The round's
 * latency runs from "all made ready" to "all read". A round must see
 * exactly what was made ready: an event on a descriptor that was not, or a
 * read of more than the one byte written, fails the rep.
 *
 * The descriptors are made once per cell (cell_setup): 10 000 socketpairs
 * take longer to make than a short rep lasts. The read ends are kept low
 * (the write ends are moved above them) so that select's bitmap covers the
 * watched set and not the writers. Beyond FD_SETSIZE, select gets a bitmap
 * of its own size, as Linux allows (glibc's fd_set is only the default).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "engines/workload.h"

enum { P_THREADS, P_API, P_FDS, P_ACTIVE, P_KIND };
enum { A_SELECT, A_POLL, A_EPOLL, A_EPOLL_ET };
enum { K_SOCKETPAIR, K_PIPE };

static const char *const api_choices[] = { "select", "poll", "epoll", "epoll-et", NULL };
static const char *const kind_choices[] = { "socketpair", "pipe", NULL };

static const struct bt_param params[] = {
	[P_THREADS] = { .name = "threads", .kind = BT_P_INT, .def = "1", .min = 1, .max = 64,
			.help = "waiters, each with its own watched set and its own writer side",
			.ticks = "1,2,4,8", .flags = BT_PF_WORKERS },
	[P_API] = { .name = "api", .kind = BT_P_ENUM, .def = "epoll", .choices = api_choices,
		    .help = "select, poll, epoll (level-triggered) or epoll-et (edge-triggered)" },
	[P_FDS] = { .name = "fds", .kind = BT_P_INT, .def = "1000", .min = 1, .max = 1000000,
		    .help = "descriptors each waiter watches", .ticks = "1,10,100,1000,10000" },
	[P_ACTIVE] = { .name = "active", .kind = BT_P_INT, .def = "1", .min = 1, .max = 1000000,
		       .help = "descriptors made ready per round (at most fds)",
		       .ticks = "1,10,100,1000" },
	[P_KIND] = { .name = "kind", .kind = BT_P_ENUM, .def = "socketpair", .choices = kind_choices,
		     .help = "what a watched descriptor is: an AF_UNIX socketpair or a pipe" },
};

enum { M_WAITS, M_WAIT, M_WATCHED, M_WAIT_FD, M_EVENTS, M_USER, M_SYS, M_COUNT };

static const struct bt_metric metrics[M_COUNT] = {
	[M_WAITS] = { .name = "waits", .unit = "calls", .kind = BT_MK_COUNTER,
		      .help = "select/poll/epoll_wait calls" },
	[M_WAIT] = { .name = "wait", .unit = "ns", .kind = BT_MK_TIME, .den = "waits",
		     .help = "time in one wait call" },
	[M_WATCHED] = { .name = "watched", .unit = "fds", .kind = BT_MK_COUNTER,
			.help = "descriptors watched summed over wait calls (waits x fds)" },
	[M_WAIT_FD] = { .name = "wait_per_fd", .unit = "ns", .kind = BT_MK_TIME, .den = "watched",
			.help = "wait time per watched descriptor" },
	[M_EVENTS] = { .name = "events", .unit = "events", .kind = BT_MK_COUNTER,
		       .help = "ready descriptors seen (checked: exactly rounds x active)" },
	[M_USER] = { .name = "user", .unit = "ns", .kind = BT_MK_TIME, .den = "waits",
		     .help = "user CPU time of the waiters per wait call" },
	[M_SYS] = { .name = "sys", .unit = "ns", .kind = BT_MK_TIME, .den = "waits",
		    .help = "system CPU time of the waiters per wait call" },
};

/* Descriptors beyond the sets and those open already: slack. */
#define EV_SLACK 8
/* A round that has not seen everything after this long has lost an event. */
#define EV_ROUND_TIMEOUT_MS 2000

/* One waiter's set: its read ends (watched), write ends, and the api's state. */
struct ev_set {
	int n;
	int *rfd, *wfd;			/* [n]: watched, and what to write to make it ready */
	int *own, nown;			/* every descriptor the set opened, to close */
	int epfd;			/* -1 unless epoll */
	struct pollfd *pfd;		/* poll */
	unsigned long *master, *work;	/* select: bitmaps of nbits bits */
	int nbits;			/* select: highest read fd + 1 */
	int *perm;			/* a permutation of 0..n-1: the round's picks */
	unsigned char *want;		/* [n]: made ready this round, not yet seen */
	struct epoll_event *evs;	/* [active] */
	uint64_t events, rounds;	/* what this waiter saw, for verify */
	int dirty;			/* a round was left unfinished: drain before the next rep */
};

struct ev_cell {
	int api, kind, nsets, active;
	struct ev_set *set;
	struct rlimit saved;
	int raised;
};

/* Descriptors open now (for the limit a cell needs): /proc/self/fd's entries. */
static int ev_open_now(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 16;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * Descriptors a cell needs: per waiter, its watched ones, their writers
 * (pipes: one each; socket pairs: none more, but one for an odd count) and
 * an epoll descriptor; plus those open now and a little slack.
 */
static uint64_t ev_need(int64_t threads, int64_t fds, int64_t kind, int open_now)
{
	uint64_t per = (uint64_t)fds + (kind == K_PIPE ? (uint64_t)fds : (uint64_t)(fds & 1)) + 1;

	return (uint64_t)threads * per + (uint64_t)open_now + EV_SLACK;
}

static int ev_check(const struct bt_value *const *p, struct bt_err *err)
{
	struct rlimit rl;
	uint64_t need = ev_need(p[P_THREADS]->i, p[P_FDS]->i, p[P_KIND]->i, ev_open_now());

	if (p[P_ACTIVE]->i > p[P_FDS]->i)
		return bt_err_set(err, -EINVAL, "active=%lld: at most fds=%lld",
				  (long long)p[P_ACTIVE]->i, (long long)p[P_FDS]->i);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
	    need > (uint64_t)rl.rlim_max)
		return bt_err_set(err, -EMFILE,
				  "fds=%lld%s: needs %llu descriptors, the hard limit is %llu (ulimit -Hn)",
				  (long long)p[P_FDS]->i, p[P_THREADS]->i > 1 ? " (per waiter)" : "",
				  (unsigned long long)need, (unsigned long long)rl.rlim_max);
	return 0;
}

static void ev_set_free(struct ev_set *s)
{
	for (int i = 0; i < s->nown; i++)
		close(s->own[i]);
	free(s->own);
	if (s->epfd >= 0)
		close(s->epfd);
	free(s->rfd);
	free(s->wfd);
	free(s->pfd);
	free(s->master);
	free(s->work);
	free(s->perm);
	free(s->want);
	free(s->evs);
	memset(s, 0, sizeof(*s));
	s->epfd = -1;
}

/*
 * One pipe, its write end moved to hi or above so the read ends (the
 * watched set) stay low.
 */
static int ev_pipe(int hi, int *r, int *wr)
{
	int fd[2], moved;

	if (pipe2(fd, O_NONBLOCK | O_CLOEXEC) < 0)
		return -errno;
	moved = fcntl(fd[1], F_DUPFD_CLOEXEC, hi);
	if (moved < 0) {
		int e = -errno;

		close(fd[0]);
		close(fd[1]);
		return e;
	}
	close(fd[1]);
	*r = fd[0];
	*wr = moved;
	return 0;
}

/*
 * The set's descriptors. Pipes: n of them, the read ends watched. Socket
 * pairs: both ends are watched (a byte written into one end makes the
 * other readable), so n watched descriptors take n (+1 when odd), not 2n.
 */
static int ev_set_make(struct ev_cell *c, struct ev_set *s, int n, int hi, struct bt_err *err)
{
	size_t words;
	int rc = 0;

	s->epfd = -1;
	s->rfd = malloc((size_t)n * sizeof(int));
	s->wfd = malloc((size_t)n * sizeof(int));
	s->own = malloc(((size_t)n * 2 + 1) * sizeof(int));
	s->perm = malloc((size_t)n * sizeof(int));
	s->want = calloc((size_t)n, 1);
	s->evs = calloc((size_t)c->active, sizeof(*s->evs));
	if (!s->rfd || !s->wfd || !s->own || !s->perm || !s->want || !s->evs)
		return bt_err_set(err, -ENOMEM, "out of memory");
	s->n = n;
	for (int i = 0; i < n && rc == 0; i++) {
		if (c->kind == K_PIPE) {
			rc = ev_pipe(hi, &s->rfd[i], &s->wfd[i]);
			if (rc == 0) {
				s->own[s->nown++] = s->rfd[i];
				s->own[s->nown++] = s->wfd[i];
			}
		} else if (i % 2 == 0) {
			int fd[2];

			if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fd) < 0) {
				rc = -errno;
				break;
			}
			s->own[s->nown++] = fd[0];
			s->own[s->nown++] = fd[1];
			s->rfd[i] = fd[0];
			s->wfd[i] = fd[1];
			if (i + 1 < n) {
				s->rfd[i + 1] = fd[1];
				s->wfd[i + 1] = fd[0];
			}
		}
	}
	if (rc < 0)
		return bt_err_set(err, rc, "%s for %d watched descriptors: %s",
				  c->kind == K_PIPE ? "pipe" : "socketpair", n, strerror(-rc));
	for (int i = 0; i < n; i++) {
		s->perm[i] = i;
		if (s->rfd[i] + 1 > s->nbits)
			s->nbits = s->rfd[i] + 1;
	}
	switch (c->api) {
	case A_SELECT:
		words = ((size_t)s->nbits + 8 * sizeof(long) - 1) / (8 * sizeof(long));
		s->master = calloc(words, sizeof(long));
		s->work = calloc(words, sizeof(long));
		if (!s->master || !s->work)
			return bt_err_set(err, -ENOMEM, "out of memory");
		for (int i = 0; i < n; i++)
			s->master[s->rfd[i] / (8 * sizeof(long))] |=
				1ul << (s->rfd[i] % (8 * sizeof(long)));
		break;
	case A_POLL:
		s->pfd = calloc((size_t)n, sizeof(*s->pfd));
		if (!s->pfd)
			return bt_err_set(err, -ENOMEM, "out of memory");
		for (int i = 0; i < n; i++) {
			s->pfd[i].fd = s->rfd[i];
			s->pfd[i].events = POLLIN;
		}
		break;
	default:
		s->epfd = epoll_create1(EPOLL_CLOEXEC);
		if (s->epfd < 0)
			return bt_err_set(err, -errno, "epoll_create1: %s", strerror(errno));
		for (int i = 0; i < n; i++) {
			struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };

			if (c->api == A_EPOLL_ET)
				ev.events |= EPOLLET;
			if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->rfd[i], &ev) < 0)
				return bt_err_set(err, -errno, "epoll_ctl: %s", strerror(errno));
		}
		break;
	}
	return 0;
}

static void ev_cell_teardown(struct bt_job *cell)
{
	struct ev_cell *c = cell->cell_state;

	if (c == NULL)
		return;
	for (int i = 0; c->set != NULL && i < c->nsets; i++)
		ev_set_free(&c->set[i]);
	free(c->set);
	if (c->raised)
		setrlimit(RLIMIT_NOFILE, &c->saved);
	free(c);
	cell->cell_state = NULL;
}

/*
 * Raise the soft open-file limit to what the cell needs (check made sure
 * the hard limit allows it), then make every waiter's set.
 */
static int ev_cell_setup(struct bt_job *cell, struct bt_err *err)
{
	struct ev_cell *c = calloc(1, sizeof(*c));
	int threads = (int)bt_job_param(cell, P_THREADS)->i;
	int n = (int)bt_job_param(cell, P_FDS)->i;
	uint64_t need = ev_need(threads, n, bt_job_param(cell, P_KIND)->i, ev_open_now());
	struct rlimit rl;
	int rc = 0, hi;

	if (c == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	cell->cell_state = c;
	c->api = (int)bt_job_param(cell, P_API)->i;
	c->kind = (int)bt_job_param(cell, P_KIND)->i;
	c->active = (int)bt_job_param(cell, P_ACTIVE)->i;
	if (getrlimit(RLIMIT_NOFILE, &c->saved) < 0) {
		rc = bt_err_set(err, -errno, "getrlimit: %s", strerror(errno));
		goto out;
	}
	if (c->saved.rlim_cur != RLIM_INFINITY && need > (uint64_t)c->saved.rlim_cur) {
		if (c->saved.rlim_max != RLIM_INFINITY && need > (uint64_t)c->saved.rlim_max) {
			rc = bt_err_set(err, -EMFILE,
					"fds=%d: needs %llu descriptors, the hard limit is %llu (ulimit -Hn)",
					n, (unsigned long long)need,
					(unsigned long long)c->saved.rlim_max);
			goto out;
		}
		rl = c->saved;
		rl.rlim_cur = (rlim_t)need;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			rc = bt_err_set(err, -errno, "setrlimit(RLIMIT_NOFILE, %llu): %s",
					(unsigned long long)need, strerror(errno));
			goto out;
		}
		c->raised = 1;
	}
	/* Pipes: the write ends go above every read end of every set. */
	hi = (int)((uint64_t)threads * (uint64_t)n + (uint64_t)ev_open_now() + EV_SLACK);
	c->set = calloc((size_t)threads, sizeof(*c->set));
	if (c->set == NULL) {
		rc = bt_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	c->nsets = threads;
	for (int i = 0; i < threads; i++)
		c->set[i].epfd = -1;
	for (int i = 0; i < threads && rc == 0; i++)
		rc = ev_set_make(c, &c->set[i], n, hi, err);
out:
	if (rc < 0)
		ev_cell_teardown(cell);
	return rc;
}

/* Read whatever a set still holds (a rep cut short mid-round) and forget the round. */
static void ev_drain(struct ev_set *s)
{
	char buf[64];

	for (int i = 0; i < s->n; i++) {
		while (read(s->rfd[i], buf, sizeof(buf)) > 0)
			;
		s->want[i] = 0;
	}
	s->dirty = 0;
}

static int ev_setup(struct bt_job *job, struct bt_err *err)
{
	struct ev_cell *c = job->cell_state;

	(void)err;
	for (int i = 0; i < c->nsets; i++) {
		if (c->set[i].dirty)
			ev_drain(&c->set[i]);
		c->set[i].events = c->set[i].rounds = 0;
	}
	job->nworkers = c->nsets;
	job->state = c;
	return 0;
}

static void ev_teardown(struct bt_job *job)
{
	job->state = NULL;
}

static inline uint64_t ev_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Account one ready descriptor i: it must have been made ready this round
 * and hold exactly the one byte written. Returns 1 when it counted, or
 * bt_worker_fail's code.
 */
static int ev_seen(struct bt_worker *w, struct ev_set *s, int i)
{
	char buf[64];
	ssize_t r;

	if (i < 0 || i >= s->n || !s->want[i])
		return bt_worker_fail(w, "spurious event: descriptor %d was not made ready",
				      i >= 0 && i < s->n ? s->rfd[i] : i);
	r = read(s->rfd[i], buf, sizeof(buf));
	if (r != 1)
		return bt_worker_fail(w, "descriptor %d: read %zd bytes (%s), want 1", s->rfd[i], r,
				      r < 0 ? strerror(errno) : "not one byte");
	s->want[i] = 0;
	return 1;
}

/* One wait call on the set; returns descriptors seen (>= 0) or a failure (< 0). */
static int ev_wait(struct bt_worker *w, struct ev_cell *c, struct ev_set *s)
{
	const int lbits = 8 * sizeof(long);
	int got = 0, n, rc;

	switch (c->api) {
	case A_SELECT: {
		struct timeval tv = { EV_ROUND_TIMEOUT_MS / 1000, 0 };
		size_t words = ((size_t)s->nbits + lbits - 1) / lbits;

		memcpy(s->work, s->master, words * sizeof(long));
		n = select(s->nbits, (fd_set *)s->work, NULL, NULL, &tv);
		if (n < 0)
			return errno == EINTR ? 0 : bt_worker_fail(w, "select: %s", strerror(errno));
		for (int i = 0; i < s->n && got < n; i++)
			if (s->work[s->rfd[i] / lbits] & (1ul << (s->rfd[i] % lbits))) {
				if ((rc = ev_seen(w, s, i)) < 0)
					return rc;
				got++;
			}
		break;
	}
	case A_POLL:
		n = poll(s->pfd, (nfds_t)s->n, EV_ROUND_TIMEOUT_MS);
		if (n < 0)
			return errno == EINTR ? 0 : bt_worker_fail(w, "poll: %s", strerror(errno));
		for (int i = 0; i < s->n && got < n; i++)
			if (s->pfd[i].revents) {
				if (!(s->pfd[i].revents & POLLIN))
					return bt_worker_fail(w, "poll: descriptor %d revents 0x%x",
							      s->rfd[i], s->pfd[i].revents);
				if ((rc = ev_seen(w, s, i)) < 0)
					return rc;
				got++;
			}
		break;
	default:
		n = epoll_wait(s->epfd, s->evs, c->active, EV_ROUND_TIMEOUT_MS);
		if (n < 0)
			return errno == EINTR ? 0 : bt_worker_fail(w, "epoll_wait: %s", strerror(errno));
		for (int k = 0; k < n; k++) {
			if ((rc = ev_seen(w, s, (int)s->evs[k].data.u32)) < 0)
				return rc;
			got++;
		}
		break;
	}
	if (n == 0)
		return -ETIMEDOUT;
	return got;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
}

static int ev_worker(struct bt_worker *w)
{
	struct ev_cell *c = w->job->state;
	struct ev_set *s = &c->set[w->id];
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1);
	struct rusage ru0, ru1;
	int rc = 0;

	getrusage(RUSAGE_THREAD, &ru0);
	while (!bt_worker_stopping(w)) {
		int left = c->active;
		uint64_t t;

		/* Partial Fisher-Yates: the round's active descriptors are perm[0..active-1]. */
		s->dirty = 1;
		for (int k = 0; k < c->active; k++) {
			int j = k + (int)(ev_rand(&x) % (uint64_t)(s->n - k));
			int tmp = s->perm[k];

			s->perm[k] = s->perm[j];
			s->perm[j] = tmp;
			s->want[s->perm[k]] = 1;
			if (write(s->wfd[s->perm[k]], "x", 1) != 1) {
				rc = bt_worker_fail(w, "write to descriptor %d: %s", s->wfd[s->perm[k]],
						    strerror(errno));
				goto out;
			}
		}
		t = bt_lat_begin(w);
		while (left > 0) {
			uint64_t a = bt_now_ns(), b;
			int got = ev_wait(w, c, s);

			b = bt_now_ns();
			bt_worker_count(w, M_WAITS, 1);
			bt_worker_count(w, M_WAIT, b - a);
			bt_worker_count(w, M_WATCHED, (uint64_t)s->n);
			bt_worker_count(w, M_WAIT_FD, b - a);
			if (got == -ETIMEDOUT) {
				rc = bt_worker_fail(w, "%d of %d ready descriptors never reported (%d ms)",
						    left, c->active, EV_ROUND_TIMEOUT_MS);
				goto out;
			}
			if (got < 0) {
				rc = got;
				goto out;
			}
			if (got > left) {
				rc = bt_worker_fail(w, "%d events for %d ready descriptors", got, left);
				goto out;
			}
			left -= got;
			s->events += (uint64_t)got;
			bt_worker_count(w, M_EVENTS, (uint64_t)got);
		}
		bt_lat_end(w, t);
		s->dirty = 0;
		s->rounds++;
		bt_worker_ops(w, 1);
	}
out:
	getrusage(RUSAGE_THREAD, &ru1);
	bt_worker_count(w, M_USER, tv_ns(&ru1.ru_utime) - tv_ns(&ru0.ru_utime));
	bt_worker_count(w, M_SYS, tv_ns(&ru1.ru_stime) - tv_ns(&ru0.ru_stime));
	return rc;
}

/* Every waiter saw exactly active events per finished round: none lost, none spurious. */
static int ev_verify(struct bt_job *job, struct bt_err *err)
{
	struct ev_cell *c = job->state;

	for (int i = 0; i < c->nsets; i++) {
		struct ev_set *s = &c->set[i];

		if (s->events != s->rounds * (uint64_t)c->active)
			return bt_err_set(err, -EIO,
					  "waiter %d: %llu events seen in %llu rounds of %d made ready",
					  i, (unsigned long long)s->events,
					  (unsigned long long)s->rounds, c->active);
	}
	return 0;
}

const struct bt_workload bt_wl_events = {
	.name = "events",
	.group = "events",
	.title = "select vs poll vs epoll: the cost of asking which descriptors are ready",
	.unit = "rounds",
	.lat_what = "a round: active descriptors made ready -> every one seen and read",
	.params = params,
	.nparams = sizeof(params) / sizeof(params[0]),
	.metrics = metrics,
	.nmetrics = M_COUNT,
	.stop_default = "duration=1s",
	.check = ev_check,
	.cell_setup = ev_cell_setup,
	.cell_teardown = ev_cell_teardown,
	.setup = ev_setup,
	.worker = ev_worker,
	.verify = ev_verify,
	.teardown = ev_teardown,
};
