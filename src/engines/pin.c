/*
 * pin.c - the pin=none|compact|scatter|list:CPUS policies.
 */
#include "engines/pin.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIN_CPU_MAX 1048575	/* largest OS CPU number a list may name */

struct range {
	int lo, hi;
};

static int bad_policy(const char *text, struct bt_err *err)
{
	return bt_err_set(err, -EINVAL,
			  "pin=%s: must be none, compact, scatter or list:CPUS (e.g. list:0,2,4-7)",
			  text);
}

/* One decimal CPU number at *p; advances *p. 0, or -EINVAL / -ERANGE. */
static int parse_cpu(const char **p, int *out)
{
	const char *s = *p;
	long v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (*s - '0');
		if (v > PIN_CPU_MAX)
			return -ERANGE;
		s++;
	}
	*p = s;
	*out = (int)v;
	return 0;
}

/*
 * Parse the CPUS of "list:CPUS" (text is the whole parameter, for messages)
 * into a malloc'd array of ranges. With ranges NULL it only validates.
 * Returns the range count (>= 1) or -EINVAL with err set.
 */
static int parse_list(const char *text, struct range **ranges, struct bt_err *err)
{
	const char *p = text + 5;
	struct range *rs = NULL;
	int n = 0, rc;

	if (*p == '\0')
		return bt_err_set(err, -EINVAL, "pin=%s: empty CPU list (e.g. list:0,2,4-7)", text);
	for (;;) {
		struct range r;

		rc = parse_cpu(&p, &r.lo);
		if (rc == 0) {
			r.hi = r.lo;
			if (*p == '-') {
				p++;
				rc = parse_cpu(&p, &r.hi);
			}
		}
		if (rc == -ERANGE) {
			bt_err_set(err, -EINVAL, "pin=%s: CPU numbers must be 0..%d", text,
				   PIN_CPU_MAX);
			goto fail;
		}
		if (rc != 0 || (*p != ',' && *p != '\0')) {
			bt_err_set(err, -EINVAL,
				   "pin=%s: bad CPU list: expected numbers and ranges like list:0,2,4-7",
				   text);
			goto fail;
		}
		if (r.hi < r.lo) {
			bt_err_set(err, -EINVAL, "pin=%s: range %d-%d is descending", text, r.lo,
				   r.hi);
			goto fail;
		}
		if (ranges != NULL) {
			struct range *nrs = realloc(rs, (size_t)(n + 1) * sizeof(*rs));

			if (nrs == NULL) {
				bt_err_set(err, -ENOMEM, "pin=%s: out of memory", text);
				free(rs);
				return -ENOMEM;
			}
			rs = nrs;
			rs[n] = r;
		}
		n++;
		if (*p == '\0')
			break;
		p++;
	}
	if (ranges != NULL)
		*ranges = rs;
	return n;
fail:
	free(rs);
	return -EINVAL;
}

int bt_pin_check(const char *text, struct bt_err *err)
{
	int rc;

	if (strcmp(text, "none") == 0 || strcmp(text, "compact") == 0 ||
	    strcmp(text, "scatter") == 0)
		return 0;
	if (strncmp(text, "list:", 5) != 0)
		return bad_policy(text, err);
	rc = parse_list(text, NULL, err);
	return rc < 0 ? rc : 0;
}

static int topo_has(const struct bt_topo *t, int os)
{
	for (int i = 0; i < t->ncpus; i++)
		if (t->cpus[i].os == os)
			return 1;
	return 0;
}

/* The allowed CPUs as a compact list, "0-3,8-11", into buf. */
static void format_allowed(const struct bt_topo *t, char *buf, size_t n)
{
	size_t len = 0;
	int i = 0;

	buf[0] = '\0';
	while (i < t->ncpus && len < n) {
		int j = i;

		/* cpus are sorted by os */
		while (j + 1 < t->ncpus && t->cpus[j + 1].os == t->cpus[j].os + 1)
			j++;
		if (j == i)
			len += (size_t)snprintf(buf + len, n - len, "%s%d", len ? "," : "",
						t->cpus[i].os);
		else
			len += (size_t)snprintf(buf + len, n - len, "%s%d-%d", len ? "," : "",
						t->cpus[i].os, t->cpus[j].os);
		i = j + 1;
	}
}

/* The list policy: worker i gets the (i % total)-th CPU of the expanded list. */
static int plan_list(const struct bt_topo *t, const char *text, int n, int *cpus,
		     struct bt_err *err)
{
	struct range *rs = NULL;
	long total = 0;
	int nr, rc = 0;

	nr = parse_list(text, &rs, err);
	if (nr < 0)
		return nr;
	for (int k = 0; k < nr; k++) {
		/* stops at the first missing CPU: at most ncpus + 1 probes per range */
		for (int c = rs[k].lo; c <= rs[k].hi; c++) {
			if (!topo_has(t, c)) {
				char allowed[128];

				format_allowed(t, allowed, sizeof(allowed));
				rc = bt_err_set(err, -EINVAL,
						"pin=%s: CPU %d is not available (allowed: %s)", text,
						c, allowed);
				goto out;
			}
		}
		total += rs[k].hi - rs[k].lo + 1;
	}
	for (int i = 0; i < n; i++) {
		long idx = i % total;
		int k = 0;

		while (idx > rs[k].hi - rs[k].lo) {
			idx -= rs[k].hi - rs[k].lo + 1;
			k++;
		}
		cpus[i] = rs[k].lo + (int)idx;
	}
out:
	free(rs);
	return rc;
}

/* Sort keys for compact and scatter, filled per CPU before sorting. */
struct pin_key {
	int k[4];
	int os;
};

static int key_cmp(const void *a, const void *b)
{
	const struct pin_key *x = a, *y = b;

	for (int i = 0; i < 4; i++)
		if (x->k[i] != y->k[i])
			return x->k[i] < y->k[i] ? -1 : 1;
	return (x->os > y->os) - (x->os < y->os);
}

/*
 * Scatter's domain rank of each CPU: domains are the (package, node) pairs;
 * they are ordered so that consecutive domains are on different packages
 * (the first node of every package, then the second node of every package,
 * ...). rank[i] is the rank of cpus[i]'s domain.
 */
static int domain_ranks(const struct bt_topo *t, int *rank)
{
	struct pin_key *d = calloc((size_t)t->ncpus, sizeof(*d));
	int nd = 0;

	if (d == NULL)
		return -ENOMEM;
	/* distinct (package, node) pairs, as keys (0, package, node) for now */
	for (int i = 0; i < t->ncpus; i++) {
		int j;

		for (j = 0; j < nd; j++)
			if (d[j].k[1] == t->cpus[i].package && d[j].k[2] == t->cpus[i].node)
				break;
		if (j == nd) {
			d[nd].k[1] = t->cpus[i].package;
			d[nd].k[2] = t->cpus[i].node;
			nd++;
		}
	}
	/* k[0] = index of the node among its package's nodes */
	for (int j = 0; j < nd; j++) {
		d[j].k[0] = 0;
		for (int m = 0; m < nd; m++)
			if (d[m].k[1] == d[j].k[1] && d[m].k[2] < d[j].k[2])
				d[j].k[0]++;
		d[j].k[3] = 0;
		d[j].os = 0;
	}
	/* order (index in package, package, node) */
	qsort(d, (size_t)nd, sizeof(*d), key_cmp);
	for (int i = 0; i < t->ncpus; i++)
		for (int j = 0; j < nd; j++)
			if (d[j].k[1] == t->cpus[i].package && d[j].k[2] == t->cpus[i].node)
				rank[i] = j;
	free(d);
	return 0;
}

/*
 * compact: by (core, smt). scatter: by (smt, position of the core in its
 * domain, domain rank): one hardware thread of every core first, taking
 * cores round-robin over the domains, then the second thread of each.
 */
static int plan_order(const struct bt_topo *t, int scatter, int n, int *cpus, struct bt_err *err)
{
	struct pin_key *keys;
	int *rank = NULL;
	int rc = 0;

	if (t == NULL || t->ncpus <= 0)
		return bt_err_set(err, -EINVAL, "pin: no CPU topology available");
	keys = calloc((size_t)t->ncpus, sizeof(*keys));
	rank = calloc((size_t)t->ncpus, sizeof(*rank));
	if (keys == NULL || rank == NULL) {
		rc = bt_err_set(err, -ENOMEM, "pin: out of memory");
		goto out;
	}
	if (scatter && domain_ranks(t, rank) != 0) {
		rc = bt_err_set(err, -ENOMEM, "pin: out of memory");
		goto out;
	}
	for (int i = 0; i < t->ncpus; i++) {
		const struct bt_topo_cpu *c = &t->cpus[i];

		keys[i].os = c->os;
		if (!scatter) {
			keys[i].k[0] = c->core;
			keys[i].k[1] = c->smt;
			continue;
		}
		/* position of this core among the cores with this smt level in its domain */
		keys[i].k[0] = c->smt;
		keys[i].k[1] = 0;
		for (int j = 0; j < t->ncpus; j++) {
			const struct bt_topo_cpu *o = &t->cpus[j];

			if (rank[j] == rank[i] && o->smt == c->smt &&
			    (o->core < c->core || (o->core == c->core && o->os < c->os)))
				keys[i].k[1]++;
		}
		keys[i].k[2] = rank[i];
		keys[i].k[3] = c->core;
	}
	qsort(keys, (size_t)t->ncpus, sizeof(*keys), key_cmp);
	for (int i = 0; i < n; i++)
		cpus[i] = keys[i % t->ncpus].os;
out:
	free(keys);
	free(rank);
	return rc;
}

int bt_pin_plan(const struct bt_topo *t, const char *text, int n, int *cpus, struct bt_err *err)
{
	int rc = bt_pin_check(text, err);

	if (rc != 0)
		return rc;
	if (strcmp(text, "none") == 0) {
		for (int i = 0; i < n; i++)
			cpus[i] = -1;
		return 0;
	}
	if (strcmp(text, "compact") == 0 || strcmp(text, "scatter") == 0)
		return plan_order(t, text[0] == 's', n, cpus, err);
	if (t == NULL || t->ncpus <= 0)
		return bt_err_set(err, -EINVAL, "pin: no CPU topology available");
	return plan_list(t, text, n, cpus, err);
}

int bt_pin_self(int cpu)
{
	cpu_set_t *set;
	size_t size;
	int rc;

	if (cpu < 0)
		return 0;
	set = CPU_ALLOC((size_t)cpu + 1);
	if (set == NULL)
		return -ENOMEM;
	size = CPU_ALLOC_SIZE((size_t)cpu + 1);
	CPU_ZERO_S(size, set);
	CPU_SET_S((size_t)cpu, size, set);
	rc = pthread_setaffinity_np(pthread_self(), size, set);
	CPU_FREE(set);
	return -rc;
}
