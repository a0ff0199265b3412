/*
 * engine_threads.c - the threads engine: N pthreads in this process (see
 * engine.h). The region is private memory; CPU time is the process's own
 * (getrusage), the sampler thread included, as it always was.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "core/clock.h"
#include "engines/engine.h"

struct tstart {
	struct bt_engine *e;
	int i;
};

struct threads {
	pthread_t *tid;			/* [n] */
	struct tstart *arg;		/* [n] */
	int started;
};

static void *t_map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void t_unmap(void *p, size_t size)
{
	munmap(p, size);
}

static void *thread_main(void *p)
{
	struct tstart *a = p;

	bt_engine_worker_main(a->e, a->i);
	return NULL;
}

static int t_start(struct bt_engine *e, int i, struct bt_err *err)
{
	struct threads *t = e->priv;
	int rc;

	if (t == NULL) {
		t = calloc(1, sizeof(*t));
		if (t != NULL) {
			t->tid = calloc((size_t)e->n, sizeof(*t->tid));
			t->arg = calloc((size_t)e->n, sizeof(*t->arg));
		}
		if (t == NULL || t->tid == NULL || t->arg == NULL) {
			if (t != NULL) {
				free(t->tid);
				free(t->arg);
				free(t);
			}
			return bt_err_set(err, -ENOMEM, "out of memory for %d workers", e->n);
		}
		e->priv = t;
	}
	t->arg[i] = (struct tstart){ .e = e, .i = i };
	rc = pthread_create(&t->tid[i], NULL, thread_main, &t->arg[i]);
	if (rc != 0)
		return bt_err_set(err, -rc, "cannot start worker thread %d of %d: %s", i + 1, e->n,
				  strerror(rc));
	t->started++;
	return 0;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void t_cpu(struct bt_engine *e, struct bt_cpu_mark *m)
{
	struct rusage ru;

	(void)e;
	m->t = bt_now_ns();
	getrusage(RUSAGE_SELF, &ru);
	m->user_s = tv_s(ru.ru_utime);
	m->sys_s = tv_s(ru.ru_stime);
	m->vcsw = (double)ru.ru_nvcsw;
	m->ivcsw = (double)ru.ru_nivcsw;
}

static void t_collect(struct bt_engine *e)
{
	struct threads *t = e->priv;

	for (int i = 0; t != NULL && i < t->started; i++)
		pthread_join(t->tid[i], NULL);
}

static void t_destroy(struct bt_engine *e)
{
	struct threads *t = e->priv;

	if (t == NULL)
		return;
	free(t->tid);
	free(t->arg);
	free(t);
	e->priv = NULL;
}

const struct bt_engine_ops bt_engine_threads = {
	.name = "threads",
	.map = t_map,
	.unmap = t_unmap,
	.start = t_start,
	.cpu = t_cpu,
	.collect = t_collect,
	.destroy = t_destroy,
};
