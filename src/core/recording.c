/*
 * recording.c - write and read session recordings (JSON Lines, see
 * recording.h for the format).
 *
 * The writer builds each record as a jansson object, dumps it on one line
 * and writes line and newline with one fwrite followed by fflush, so that a
 * crash leaves at worst one torn line at the end. The reader is strict about
 * what it understands (types, ranges, line numbers in every message) and
 * lenient about what it does not (unknown fields and line types).
 */
#include "core/recording.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "bt_config.h"
#include "core/file.h"

/* ------------------------------------------------------------------ */
/* Paths                                                                */

int bt_rec_default_dir(char *buf, size_t n)
{
	const char *xdg = getenv("XDG_STATE_HOME");
	const char *home;
	int w;

	if (xdg != NULL && xdg[0] == '/') {
		w = snprintf(buf, n, "%s/benchtop/sessions", xdg);
	} else {
		home = getenv("HOME");
		if (home == NULL || home[0] == '\0') {
			struct passwd *pw = getpwuid(getuid());

			home = pw != NULL ? pw->pw_dir : NULL;
		}
		if (home == NULL || home[0] == '\0')
			return -ENOENT;
		w = snprintf(buf, n, "%s/.local/state/benchtop/sessions", home);
	}
	if (w < 0 || (size_t)w >= n)
		return -ENAMETOOLONG;
	return 0;
}

/* Copy src into dst[n] keeping [A-Za-z0-9._-] and turning the rest into '_'. */
static void sanitize(char *dst, size_t n, const char *src)
{
	size_t k = 0;

	if (src == NULL || src[0] == '\0')
		src = "unknown";
	for (; *src != '\0' && k + 1 < n; src++) {
		char c = *src;
		int keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			   (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';

		dst[k++] = keep ? c : '_';
	}
	dst[k] = '\0';
}

static int make_parents(const char *path, struct bt_err *err);

/*
 * "<dir>/YYYYmmdd-HHMMSS-<workload>-<host>.jsonl" in UTC (the header's time
 * is UTC too), with "-2", "-3" ... before the extension when taken. The name
 * is reserved by creating the file, empty, with O_EXCL: two benchtops that
 * start in the same second get two files, and bt_recw_open takes the empty
 * file over without truncating anything.
 */
/*
 * Only an empty regular file goes: a run that failed to start after its
 * name was reserved leaves nothing behind, and whatever has been written
 * there since (or put there by someone else) stays.
 */
int bt_rec_unreserve(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size != 0)
		return -EEXIST;
	return unlink(path) < 0 ? -errno : 0;
}

int bt_rec_default_path(char *buf, size_t n, const char *dir, const char *workload,
			const char *host, uint64_t unix_ns)
{
	char wl[64], hs[64], stamp[32];
	time_t secs = (time_t)(unix_ns / 1000000000ull);
	struct tm tm;
	int ret;

	if (gmtime_r(&secs, &tm) == NULL)
		return -EINVAL;
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	sanitize(wl, sizeof(wl), workload);
	sanitize(hs, sizeof(hs), host);
	for (int k = 1; k < 10000; k++) {
		char suffix[16] = "";
		int w, fd;

		if (k > 1)
			snprintf(suffix, sizeof(suffix), "-%d", k);
		w = snprintf(buf, n, "%s/%s-%s-%s%s.jsonl", dir, stamp, wl, hs, suffix);
		if (w < 0 || (size_t)w >= n)
			return -ENAMETOOLONG;
		if (k == 1 && (ret = make_parents(buf, NULL)) < 0)
			return ret;
		fd = open(buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* mkdir -p for the directories above path (not path itself). */
static int make_parents(const char *path, struct bt_err *err)
{
	char tmp[4096];
	size_t len = strlen(path);

	if (len >= sizeof(tmp))
		return bt_err_set(err, -ENAMETOOLONG, "%s: path too long", path);
	memcpy(tmp, path, len + 1);
	for (char *p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST) {
			int e = errno;

			return bt_err_set(err, -e, "cannot create directory %s: %s", tmp, strerror(e));
		}
		*p = '/';
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Writer                                                               */

/*
 * Never truncates: a path that does not exist is created exclusively; an
 * existing path is taken only when it is an empty regular file (a name
 * bt_rec_default_path reserved) or a character device (/dev/null). The lock
 * keeps a second benchtop from taking the same empty file.
 */
int bt_recw_open(struct bt_recw *w, const char *path, struct bt_err *err)
{
	struct stat st;
	int fd = -1, ret;

	memset(w, 0, sizeof(*w));
	w->error = -EBADF;
	if (path[0] == '\0')
		return bt_err_set(err, -EINVAL, "the recording path is empty");
	if (strlen(path) >= sizeof(w->path))
		return bt_err_set(err, -ENAMETOOLONG, "%s: path too long", path);
	ret = make_parents(path, err);
	if (ret < 0)
		return ret;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int e = errno;

		return bt_err_set(err, -e, "cannot create %s: %s", path,
				  e == ELOOP ? "a symbolic link (not followed)" : strerror(e));
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		bt_err_set(err, ret, "%s: %s", path, strerror(-ret));
		goto fail;
	}
	if (S_ISREG(st.st_mode)) {
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			ret = bt_err_set(err, -EBUSY, "%s: in use by another benchtop", path);
			goto fail;
		}
		if (fstat(fd, &st) < 0 || st.st_size != 0) {
			ret = bt_err_set(err, -EEXIST,
					 "%s exists: benchtop does not overwrite a recording (remove it or pick another name)",
					 path);
			goto fail;
		}
	} else if (!S_ISCHR(st.st_mode)) {
		ret = bt_err_set(err, -EINVAL, "%s: %s, not a file a recording can be written to",
				 path, bt_file_kind(&st));
		goto fail;
	}
	w->f = fdopen(fd, "w");
	if (w->f == NULL) {
		ret = -errno;
		bt_err_set(err, ret, "cannot open %s: %s", path, strerror(-ret));
		goto fail;
	}
	snprintf(w->path, sizeof(w->path), "%s", path);
	w->error = 0;
	return 0;
fail:
	close(fd);
	return ret;
}

/*
 * The final flush and close are checked like every write: a full disk can
 * first show there. Returns the first error of the whole recording (0 when
 * every line reached the file).
 */
int bt_recw_close(struct bt_recw *w)
{
	int ret = w->error;

	if (w->f != NULL) {
		errno = 0;
		if (fflush(w->f) != 0 && ret == 0)
			ret = errno > 0 ? -errno : -EIO;
		if (fclose(w->f) != 0 && ret == 0)
			ret = errno > 0 ? -errno : -EIO;
	}
	w->f = NULL;
	w->error = ret < 0 ? ret : -EBADF;
	return ret;
}

/* JSON has no NaN or infinity: such values are written as null. */
static json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *ju64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *jstr(const char *s)
{
	return json_string(s != NULL ? s : "");
}

/* Set o[k] = v (taking v); remember in *bad when v or the insertion failed. */
static void put(json_t *o, const char *k, json_t *v, int *bad)
{
	if (v == NULL || json_object_set_new(o, k, v) != 0)
		*bad = 1;
}

/*
 * Write o (consumed) as one line and flush it. The first failure is kept in
 * w->error and returned by every later call, so a recording never continues
 * after a gap the reader could not detect.
 */
static int emit(struct bt_recw *w, json_t *o, int bad)
{
	char *s = NULL;
	size_t len;
	int ret = 0;

	if (w->error < 0) {
		ret = w->error;
		goto out;
	}
	if (o == NULL || bad) {
		ret = -ENOMEM;
		goto fail;
	}
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (s == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	len = strlen(s);
	{
		char *t = realloc(s, len + 2);

		if (t == NULL) {
			ret = -ENOMEM;
			goto fail;
		}
		s = t;
	}
	s[len++] = '\n';
	s[len] = '\0';
	errno = 0;
	if (fwrite(s, 1, len, w->f) != len || fflush(w->f) != 0) {
		ret = errno > 0 ? -errno : -EIO;
		goto fail;
	}
	goto out;
fail:
	w->error = ret;
out:
	free(s);
	json_decref(o);
	return ret;
}

static void fmt_time(uint64_t unix_ns, char *buf, size_t n)
{
	time_t secs = (time_t)(unix_ns / 1000000000ull);
	struct tm tm;

	if (gmtime_r(&secs, &tm) == NULL || strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, n, "unknown");
}

static json_t *machine_json(const struct bt_sysinfo *si, int *bad)
{
	json_t *m = json_object();

	if (m == NULL) {
		*bad = 1;
		return NULL;
	}
	for (size_t i = 0; i < bt_sysinfo_nfields; i++) {
		const struct bt_sysinfo_field *fd = &bt_sysinfo_fields[i];
		const char *p = (const char *)si + fd->off;

		if (fd->kind == 's') {
			put(m, fd->name, json_stringn_nocheck(p, strnlen(p, fd->size)), bad);
		} else if (fd->kind == 'i') {
			int v;

			memcpy(&v, p, sizeof(v));
			put(m, fd->name, json_integer(v), bad);
		} else if (fd->kind == 'd') {
			double v;

			memcpy(&v, p, sizeof(v));
			put(m, fd->name, jreal(v), bad);
		} else {
			uint64_t v;

			memcpy(&v, p, sizeof(v));
			put(m, fd->name, ju64(v), bad);
		}
	}
	return m;
}

/* ---- typed metrics: declared in the header, values by name ---------- */

static const char *const metric_kinds[BT_MI_NKINDS] = { "counter", "gauge", "ratio", "time" };

/*
 * The header's "metrics" array; the declarations are kept in w so that rep
 * and cell lines can name their values.
 */
static json_t *metric_decls_json(struct bt_recw *w, const struct bt_results *res, int *bad)
{
	json_t *arr = json_array();

	if (arr == NULL) {
		*bad = 1;
		return NULL;
	}
	w->nmetrics = res->nmetrics < BT_RES_METRICS ? res->nmetrics : BT_RES_METRICS;
	memcpy(w->metrics, res->metrics, sizeof(w->metrics));
	for (int m = 0; m < w->nmetrics; m++) {
		const struct bt_metric_info *mi = &res->metrics[m];
		json_t *o = json_object();
		int k = mi->kind >= 0 && mi->kind < BT_MI_NKINDS ? mi->kind : BT_MI_GAUGE;

		if (o == NULL) {
			*bad = 1;
			break;
		}
		put(o, "name", jstr(mi->name), bad);
		put(o, "unit", jstr(mi->unit), bad);
		put(o, "kind", json_string(metric_kinds[k]), bad);
		put(o, "error", json_boolean(mi->error), bad);
		put(o, "num", jstr(mi->num), bad);
		put(o, "den", jstr(mi->den), bad);
		put(o, "help", jstr(mi->help), bad);
		if (json_array_append_new(arr, o) != 0)
			*bad = 1;
	}
	return arr;
}

/* A metric value: an integer when it is one (counters), null when it does not exist. */
static json_t *jmetric(double v)
{
	if (isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return jreal(v);
}

/* A rep's "metrics" object: each declared metric by name; ratios derived from their num and den. */
static json_t *metric_values_json(const struct bt_recw *w, const struct bt_rep *r, int *bad)
{
	json_t *o = json_object();

	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	for (int m = 0; m < w->nmetrics; m++) {
		double v = w->metrics[m].kind == BT_MI_RATIO
				   ? bt_metric_value(w->metrics, w->nmetrics, r->metric, m)
				   : r->metric[m];

		put(o, w->metrics[m].name, jmetric(v), bad);
	}
	return o;
}

static json_t *summary_json(const struct bt_summary *s, int *bad);

/* A cell's "metrics" object: each declared metric's summary by name. */
static json_t *metric_summaries_json(const struct bt_recw *w, const struct bt_cell *c, int *bad)
{
	json_t *o = json_object();

	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	for (int m = 0; m < w->nmetrics; m++)
		put(o, w->metrics[m].name, summary_json(&c->metric[m], bad), bad);
	return o;
}

int bt_recw_header(struct bt_recw *w, const struct bt_results *res)
{
	json_t *o = json_object(), *axes, *cells, *plan;
	char when[32];
	int bad = 0;

	if (o == NULL)
		return emit(w, NULL, 1);
	fmt_time(res->start_unix_ns, when, sizeof(when));
	put(o, "type", json_string("header"), &bad);
	put(o, "benchtop_recording", json_integer(BT_RECORDING_VERSION), &bad);
	put(o, "version", jstr(res->version[0] ? res->version : BT_VERSION), &bad);
	put(o, "time", json_string(when), &bad);
	put(o, "start_unix_ns", ju64(res->start_unix_ns), &bad);
	put(o, "workload", jstr(res->workload), &bad);
	put(o, "unit", jstr(res->unit), &bad);
	put(o, "lat_what", jstr(res->lat_what), &bad);
	put(o, "baseline", jstr(res->baseline), &bad);
	put(o, "timer_cost_ns", jreal(res->timer_cost_ns), &bad);
	put(o, "machine", machine_json(&res->machine, &bad), &bad);

	if (res->plan_json != NULL) {
		plan = json_loads(res->plan_json, 0, NULL);
		if (plan == NULL) {
			/* Not a JSON document: a caller bug, but keep the text. */
			plan = json_string(res->plan_json);
		}
	} else {
		plan = json_null();
	}
	put(o, "plan", plan, &bad);

	axes = json_array();
	for (int a = 0; axes != NULL && a < res->naxes; a++)
		if (json_array_append_new(axes, jstr(res->axes[a])) != 0)
			bad = 1;
	put(o, "axes", axes, &bad);
	if (res->nmetrics > 0)
		put(o, "metrics", metric_decls_json(w, res, &bad), &bad);
	w->nch = res->nch < BT_RES_LAT_CH ? res->nch : BT_RES_LAT_CH;
	memcpy(w->ch_names, res->ch_names, sizeof(w->ch_names));
	if (w->nch > 0) {
		axes = json_array();
		for (int k = 0; axes != NULL && k < w->nch; k++)
			if (json_array_append_new(axes, jstr(w->ch_names[k])) != 0)
				bad = 1;
		put(o, "lat_channels", axes, &bad);
	}
	axes = json_array();
	for (int a = 0; axes != NULL && a < res->naxes; a++)
		if (res->axis_workers[a] && json_array_append_new(axes, jstr(res->axes[a])) != 0)
			bad = 1;
	put(o, "worker_axes", axes, &bad);

	cells = json_array();
	for (int c = 0; cells != NULL && c < res->ncells; c++) {
		const struct bt_cell *cell = &res->cells[c];
		json_t *co = json_object(), *vals = json_array();

		if (co == NULL || vals == NULL) {
			json_decref(co);
			json_decref(vals);
			bad = 1;
			break;
		}
		for (int a = 0; a < res->naxes; a++)
			if (json_array_append_new(vals, jstr(cell->values[a])) != 0)
				bad = 1;
		put(co, "index", json_integer(cell->index), &bad);
		put(co, "label", jstr(cell->label), &bad);
		put(co, "values", vals, &bad);
		put(co, "reps", json_integer(cell->total_reps), &bad);
		if (cell->ci_target > 0)	/* reps=auto: reps is the cap */
			put(co, "ci", jreal(cell->ci_target), &bad);
		if (json_array_append_new(cells, co) != 0)
			bad = 1;
	}
	put(o, "cells", cells, &bad);
	return emit(w, o, bad);
}

int bt_recw_sample(struct bt_recw *w, const struct bt_sample *s)
{
	json_t *o = json_object();
	int bad = 0;

	if (o == NULL)
		return emit(w, NULL, 1);
	put(o, "type", json_string("sample"), &bad);
	put(o, "cell", json_integer(s->cell), &bad);
	put(o, "rep", json_integer(s->rep), &bad);
	put(o, "t", jreal(s->t), &bad);
	put(o, "dt", jreal(s->dt), &bad);
	put(o, "ops_s", jreal(s->ops_s), &bad);
	put(o, "bytes_s", jreal(s->bytes_s), &bad);
	put(o, "ops", ju64(s->ops), &bad);
	put(o, "lat_count", ju64(s->lat_count), &bad);
	put(o, "p50", ju64(s->p50), &bad);
	put(o, "p90", ju64(s->p90), &bad);
	put(o, "p99", ju64(s->p99), &bad);
	put(o, "p999", ju64(s->p999), &bad);
	put(o, "max", ju64(s->max), &bad);
	put(o, "cpu_pct", jreal(s->cpu_pct), &bad);
	put(o, "user_pct", jreal(s->user_pct), &bad);
	put(o, "sys_pct", jreal(s->sys_pct), &bad);
	return emit(w, o, bad);
}

/* {"min":..,"max":..,"sum":..,"b":[[index,count],...]}: the non-zero buckets only. */
static json_t *hist_json(const struct bt_hist *h, int *bad)
{
	json_t *o, *b;
	uint32_t idx1;
	uint64_t cnt1;
	uint32_t *idx = NULL;
	uint64_t *cnt = NULL;
	size_t nb;

	if (h == NULL)
		return json_null();
	o = json_object();
	b = json_array();
	if (o == NULL || b == NULL)
		goto fail;
	nb = bt_hist_sparse(h, &idx1, &cnt1, 0);
	if (nb > 0) {
		idx = malloc(nb * sizeof(*idx));
		cnt = malloc(nb * sizeof(*cnt));
		if (idx == NULL || cnt == NULL)
			goto fail;
		nb = bt_hist_sparse(h, idx, cnt, nb);
	}
	for (size_t i = 0; i < nb; i++) {
		json_t *pair = json_array();

		if (pair == NULL || json_array_append_new(pair, json_integer(idx[i])) != 0 ||
		    json_array_append_new(pair, ju64(cnt[i])) != 0 ||
		    json_array_append_new(b, pair) != 0) {
			*bad = 1;
			break;
		}
	}
	put(o, "min", ju64(h->total > 0 ? h->min : 0), bad);
	put(o, "max", ju64(h->max), bad);
	put(o, "sum", jreal(h->sum), bad);
	put(o, "b", b, bad);
	free(idx);
	free(cnt);
	return o;
fail:
	*bad = 1;
	json_decref(o);
	json_decref(b);
	free(idx);
	free(cnt);
	return NULL;
}

/* The same object from a rep's sparse latencies (a rep already in bt_results). */
static json_t *rep_lat_json(const struct bt_rep_lat *l, int *bad)
{
	json_t *o, *b;

	if (l->count == 0)
		return json_null();
	o = json_object();
	b = json_array();
	if (o == NULL || b == NULL) {
		json_decref(o);
		json_decref(b);
		*bad = 1;
		return NULL;
	}
	for (uint32_t i = 0; i < l->n; i++) {
		json_t *pair = json_array();

		if (pair == NULL || json_array_append_new(pair, json_integer(l->idx[i])) != 0 ||
		    json_array_append_new(pair, ju64(l->cnt[i])) != 0 ||
		    json_array_append_new(b, pair) != 0) {
			*bad = 1;
			break;
		}
	}
	put(o, "min", ju64(l->min), bad);
	put(o, "max", ju64(l->max), bad);
	put(o, "sum", jreal(l->sum), bad);
	put(o, "b", b, bad);
	return o;
}

/* A rep's noise figures (results.h): -1 (0 for the frequency) where unknown. */
static json_t *rep_noise_json(const struct bt_rep *r, int *bad)
{
	json_t *o = json_object();

	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	put(o, "steal_pct", jreal(r->steal_pct), bad);
	put(o, "runq", jreal(r->runq), bad);
	put(o, "freq_mhz", jreal(r->freq_mhz), bad);
	put(o, "throttled", jreal(r->throttled), bad);
	return o;
}

int bt_recw_rep(struct bt_recw *w, const struct bt_rep *r)
{
	json_t *o = json_object(), *workers;
	int bad = 0;

	if (o == NULL)
		return emit(w, NULL, 1);
	put(o, "type", json_string("rep"), &bad);
	put(o, "cell", json_integer(r->cell), &bad);
	put(o, "rep", json_integer(r->rep), &bad);
	put(o, "warmup", json_boolean(r->warmup), &bad);
	put(o, "ok", json_boolean(r->ok), &bad);
	put(o, "verify", jstr(r->verify), &bad);
	put(o, "ops", ju64(r->ops), &bad);
	put(o, "bytes", ju64(r->bytes), &bad);
	put(o, "errors", ju64(r->errors), &bad);
	put(o, "wall_s", jreal(r->wall_s), &bad);
	put(o, "user_s", jreal(r->user_s), &bad);
	put(o, "sys_s", jreal(r->sys_s), &bad);
	put(o, "vcsw", jreal(r->vcsw), &bad);
	put(o, "ivcsw", jreal(r->ivcsw), &bad);
	put(o, "ops_s", jreal(r->ops_s), &bad);
	put(o, "bytes_s", jreal(r->bytes_s), &bad);
	put(o, "lat_every", json_integer(r->lat_every), &bad);
	if (r->engine[0])
		put(o, "engine", json_string(r->engine), &bad);
	put(o, "noise", rep_noise_json(r, &bad), &bad);
	put(o, "hist", r->hist != NULL ? hist_json(r->hist, &bad) : rep_lat_json(&r->lat, &bad), &bad);
	if (w->nch > 0) {
		/* Each channel by name, in the main histogram's encoding. */
		json_t *ch = json_object();

		for (int k = 0; ch != NULL && k < w->nch; k++)
			put(ch, w->ch_names[k], r->ch_hist[k] != NULL ? hist_json(r->ch_hist[k], &bad) :
						 rep_lat_json(&r->ch_lat[k], &bad), &bad);
		put(o, "ch_hist", ch, &bad);
	}

	workers = json_array();
	for (int i = 0; workers != NULL && i < r->nworkers; i++) {
		const struct bt_worker_result *wr = &r->workers[i];
		json_t *wo = json_object();

		if (wo == NULL) {
			bad = 1;
			break;
		}
		put(wo, "ops", ju64(wr->ops), &bad);
		put(wo, "cpu_first", json_integer(wr->cpu_first), &bad);
		put(wo, "cpu_last", json_integer(wr->cpu_last), &bad);
		put(wo, "pinned", json_integer(wr->pinned), &bad);
		if (wr->pid > 0)
			put(wo, "pid", json_integer(wr->pid), &bad);
		if (json_array_append_new(workers, wo) != 0)
			bad = 1;
	}
	put(o, "workers", workers, &bad);
	if (w->nmetrics > 0)
		put(o, "metrics", metric_values_json(w, r, &bad), &bad);
	return emit(w, o, bad);
}

static json_t *summary_json(const struct bt_summary *s, int *bad)
{
	json_t *o = json_object();

	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	put(o, "n", json_integer(s->n), bad);
	put(o, "min", jreal(s->min), bad);
	put(o, "median", jreal(s->median), bad);
	put(o, "max", jreal(s->max), bad);
	put(o, "mean", jreal(s->mean), bad);
	put(o, "stddev", jreal(s->stddev), bad);
	put(o, "ci95", jreal(s->ci95), bad);
	return o;
}

static json_t *lat_json(const struct bt_hist *h, int *bad)
{
	json_t *o;

	if (h == NULL)
		return json_null();
	o = json_object();
	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	put(o, "p50", ju64(bt_hist_percentile(h, 50.0)), bad);
	put(o, "p90", ju64(bt_hist_percentile(h, 90.0)), bad);
	put(o, "p99", ju64(bt_hist_percentile(h, 99.0)), bad);
	put(o, "p999", ju64(bt_hist_percentile(h, 99.9)), bad);
	put(o, "max", ju64(h->total > 0 ? h->max : 0), bad);
	put(o, "mean", jreal(bt_hist_mean(h)), bad);
	put(o, "count", ju64(h->total), bad);
	return o;
}

/*
 * A cell's noise figures (results.h), for whoever reads the file without
 * benchtop: a reader recomputes them from the rep lines.
 */
static json_t *cell_noise_json(const struct bt_cell *c, int *bad)
{
	static const char *const stops[] = { "fixed", "ci", "cap" };
	char marks[BT_ERR_MAX];
	json_t *o = json_object();

	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	put(o, "cv_pct", jreal(c->cv_pct), bad);
	put(o, "ci_pct", jreal(c->ci_pct), bad);
	put(o, "steal_pct", jreal(c->steal_pct), bad);
	put(o, "outliers_slow", json_integer(c->out_slow), bad);
	put(o, "outliers_fast", json_integer(c->out_fast), bad);
	put(o, "bimodal", json_boolean(c->bimodal), bad);
	put(o, "marks", jstr(bt_cell_noise_text(c, marks, sizeof(marks))), bad);
	if (c->ci_target > 0) {
		put(o, "ci_target", jreal(c->ci_target), bad);
		put(o, "stop", json_string(stops[c->stop >= 0 && c->stop <= 2 ? c->stop : 0]), bad);
	}
	return o;
}

int bt_recw_cell(struct bt_recw *w, const struct bt_cell *c)
{
	json_t *o = json_object();
	int bad = 0;

	if (o == NULL)
		return emit(w, NULL, 1);
	put(o, "type", json_string("cell"), &bad);
	put(o, "cell", json_integer(c->index), &bad);
	put(o, "label", jstr(c->label), &bad);
	put(o, "nreps", json_integer(c->nreps), &bad);
	put(o, "failed", json_boolean(c->failed), &bad);
	put(o, "ops_s", summary_json(&c->ops_s, &bad), &bad);
	put(o, "bytes_s", summary_json(&c->bytes_s, &bad), &bad);
	put(o, "wall_s", summary_json(&c->wall_s, &bad), &bad);
	put(o, "user_s", summary_json(&c->user_s, &bad), &bad);
	put(o, "sys_s", summary_json(&c->sys_s, &bad), &bad);
	put(o, "vcsw", summary_json(&c->vcsw, &bad), &bad);
	put(o, "ivcsw", summary_json(&c->ivcsw, &bad), &bad);
	put(o, "lat", lat_json(c->hist, &bad), &bad);
	if (w->nch > 0 && c->hist != NULL) {
		json_t *ch = json_object();

		for (int k = 0; ch != NULL && k < w->nch; k++)
			put(ch, w->ch_names[k], lat_json(c->ch_hist[k], &bad), &bad);
		put(o, "ch_lat", ch, &bad);
	}
	put(o, "noise", cell_noise_json(c, &bad), &bad);
	if (w->nmetrics > 0)
		put(o, "metrics", metric_summaries_json(w, c, &bad), &bad);
	return emit(w, o, bad);
}

int bt_recw_end(struct bt_recw *w, const char *status, const char *error)
{
	json_t *o = json_object();
	struct timespec ts;
	char when[32];
	int bad = 0;

	if (o == NULL)
		return emit(w, NULL, 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	fmt_time((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec, when, sizeof(when));
	put(o, "type", json_string("end"), &bad);
	put(o, "status", jstr(status != NULL ? status : "complete"), &bad);
	put(o, "error", jstr(error), &bad);
	put(o, "time", json_string(when), &bad);
	return emit(w, o, bad);
}

/* ------------------------------------------------------------------ */
/* Reader                                                               */

struct rd {
	const char *path;
	long line;
	struct bt_err *err;
	char unknown[BT_ERR_MAX];	/* "type.field" names ignored, deduplicated */
	int nunknown;
	int *counted;		/* [ncells]: counted reps read so far, for the cell lines' check */
	uint64_t lat_total;	/* latencies in all histograms, against BT_REC_MAX_LAT */
};

/* Known top-level fields of each line type; a newer minor version may add more. */
static const char *const known_fields[][26] = {
	{ "header", "type", "benchtop_recording", "version", "time", "start_unix_ns", "workload",
	  "unit", "lat_what", "baseline", "timer_cost_ns", "machine", "plan", "axes", "worker_axes", "cells", "metrics",
	  "lat_channels", NULL },
	{ "sample", "type", "cell", "rep", "t", "dt", "ops_s", "bytes_s", "ops", "lat_count", "p50",
	  "p90", "p99", "p999", "max", "cpu_pct", "user_pct", "sys_pct", NULL },
	{ "rep", "type", "cell", "rep", "warmup", "ok", "verify", "ops", "bytes", "errors", "wall_s",
	  "user_s", "sys_s", "vcsw", "ivcsw", "ops_s", "bytes_s", "lat_every", "hist", "workers",
	  "metrics", "noise", "ch_hist", "engine", NULL },
	{ "cell", "type", "cell", "label", "nreps", "failed", "ops_s", "bytes_s", "wall_s", "user_s",
	  "sys_s", "vcsw", "ivcsw", "lat", "metrics", "noise", "ch_lat", NULL },
	{ "end", "type", "status", "error", "time", NULL },
};

/* Note what this reader ignores, once per name, so `show` can say so. */
static void note_unknown(struct rd *rd, const char *type, const char *field)
{
	char name[128];
	size_t used = strlen(rd->unknown);

	if (field != NULL)
		snprintf(name, sizeof(name), "%s.%s", type, field);
	else
		snprintf(name, sizeof(name), "line type \"%s\"", type);
	for (const char *p = strstr(rd->unknown, name); p != NULL; p = strstr(p + 1, name)) {
		size_t k = strlen(name);

		if ((p == rd->unknown || p[-1] == ' ') && (p[k] == ',' || p[k] == '\0'))
			return;
	}
	if (used + strlen(name) + 3 < sizeof(rd->unknown))
		snprintf(rd->unknown + used, sizeof(rd->unknown) - used, "%s%s", used ? ", " : "",
			 name);
	rd->nunknown++;
}

static void check_fields(struct rd *rd, json_t *o, const char *type)
{
	const char *key;
	json_t *v;

	for (size_t t = 0; t < sizeof(known_fields) / sizeof(known_fields[0]); t++) {
		if (strcmp(known_fields[t][0], type) != 0)
			continue;
		json_object_foreach(o, key, v) {
			int known = 0;

			for (int i = 1; known_fields[t][i] != NULL && !known; i++)
				known = strcmp(known_fields[t][i], key) == 0;
			if (!known)
				note_unknown(rd, type, key);
		}
		return;
	}
	note_unknown(rd, type, NULL);
}

/* Set "path:line: message" and return code. */
__attribute__((format(printf, 3, 4)))
static int rd_fail(struct rd *rd, int code, const char *fmt, ...)
{
	char msg[BT_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return bt_err_set(rd->err, code, "%s:%ld: %s", rd->path, rd->line, msg);
}

/*
 * Field getters. ctx prefixes the field name in messages ("machine.",
 * "workers[2]."). A missing field (or null) leaves *out at its default and
 * is an error only when req is set; a field of the wrong type is always an
 * error, never a silent zero.
 */
static int get_int(struct rd *rd, json_t *o, const char *ctx, const char *key, int req,
		   long long lo, long long hi, long long *out)
{
	json_t *v = json_object_get(o, key);
	long long x;

	if (v == NULL || json_is_null(v)) {
		if (req)
			return rd_fail(rd, -EINVAL, "missing field \"%s%s\"", ctx, key);
		return 0;
	}
	if (json_is_integer(v)) {
		x = json_integer_value(v);
	} else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
		   fabs(json_real_value(v)) < 9e18) {
		x = (long long)json_real_value(v);
	} else {
		return rd_fail(rd, -EINVAL, "field \"%s%s\": expected an integer", ctx, key);
	}
	if (x < lo || x > hi)
		return rd_fail(rd, -EINVAL, "field \"%s%s\": %lld out of range %lld..%lld", ctx, key,
			       x, lo, hi);
	*out = x;
	return 0;
}

static int get_i(struct rd *rd, json_t *o, const char *ctx, const char *key, int req,
		 int lo, int hi, int *out)
{
	long long x = *out;
	int ret = get_int(rd, o, ctx, key, req, lo, hi, &x);

	*out = (int)x;
	return ret;
}

static int get_u64(struct rd *rd, json_t *o, const char *ctx, const char *key, uint64_t *out)
{
	long long x = -1;
	int ret = get_int(rd, o, ctx, key, 0, 0, LLONG_MAX, &x);

	if (ret == 0 && x >= 0)
		*out = (uint64_t)x;
	return ret;
}

static int get_dbl(struct rd *rd, json_t *o, const char *ctx, const char *key, double *out)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_number(v))
		return rd_fail(rd, -EINVAL, "field \"%s%s\": expected a number", ctx, key);
	*out = json_number_value(v);
	return 0;
}

static int get_bool(struct rd *rd, json_t *o, const char *ctx, const char *key, int *out)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return rd_fail(rd, -EINVAL, "field \"%s%s\": expected true or false", ctx, key);
	*out = json_is_true(v);
	return 0;
}

static int get_str(struct rd *rd, json_t *o, const char *ctx, const char *key, char *buf,
		   size_t n)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return rd_fail(rd, -EINVAL, "field \"%s%s\": expected a string", ctx, key);
	snprintf(buf, n, "%s", json_string_value(v));
	return 0;
}

/* Return the array at key (NULL when missing or null), or fail on another type. */
static int get_array(struct rd *rd, json_t *o, const char *key, json_t **out)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return rd_fail(rd, -EINVAL, "field \"%s\": expected an array", key);
	*out = v;
	return 0;
}

static int read_machine(struct rd *rd, json_t *m, struct bt_sysinfo *si)
{
	if (m == NULL || json_is_null(m))
		return 0;
	if (!json_is_object(m))
		return rd_fail(rd, -EINVAL, "field \"machine\": expected an object");
	for (size_t i = 0; i < bt_sysinfo_nfields; i++) {
		const struct bt_sysinfo_field *fd = &bt_sysinfo_fields[i];
		char *p = (char *)si + fd->off;
		int ret;

		if (fd->kind == 's') {
			ret = get_str(rd, m, "machine.", fd->name, p, fd->size);
		} else if (fd->kind == 'i') {
			int v = 0;

			ret = get_i(rd, m, "machine.", fd->name, 0, INT_MIN, INT_MAX, &v);
			memcpy(p, &v, sizeof(v));
		} else if (fd->kind == 'd') {
			double v = -1;	/* not in recordings older than the field: unknown */

			ret = get_dbl(rd, m, "machine.", fd->name, &v);
			memcpy(p, &v, sizeof(v));
		} else {
			uint64_t v = 0;

			ret = get_u64(rd, m, "machine.", fd->name, &v);
			memcpy(p, &v, sizeof(v));
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The cells array of the header: how many, checked before bt_results_init. */
static int header_cells(struct rd *rd, json_t *hdr, json_t **cells)
{
	int ret = get_array(rd, hdr, "cells", cells);

	if (ret < 0)
		return ret;
	if (*cells != NULL && json_array_size(*cells) > BT_REC_MAX_CELLS)
		return rd_fail(rd, -EINVAL, "field \"cells\": %zu cells, past the limit of %d",
			       json_array_size(*cells), BT_REC_MAX_CELLS);
	return 0;
}

/*
 * The header's metric declarations. What this build cannot use is kept out
 * with a note, never an error: a kind it does not know is read as a gauge
 * (the values shown as they are), a declaration beyond BT_RES_METRICS or a
 * second one of a name is dropped (its values are then noted by read_rep).
 */
static int read_metric_decls(struct rd *rd, json_t *hdr, struct bt_results *res)
{
	json_t *arr;
	int ret = get_array(rd, hdr, "metrics", &arr);

	if (ret < 0 || arr == NULL)
		return ret;
	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *o = json_array_get(arr, i);
		struct bt_metric_info mi;
		char ctx[32], kind[32] = "counter", what[96];

		memset(&mi, 0, sizeof(mi));
		snprintf(ctx, sizeof(ctx), "metrics[%zu].", i);
		if (!json_is_object(o))
			return rd_fail(rd, -EINVAL, "field \"metrics[%zu]\": expected an object", i);
		if ((ret = get_str(rd, o, ctx, "name", mi.name, sizeof(mi.name))) < 0 ||
		    (ret = get_str(rd, o, ctx, "unit", mi.unit, sizeof(mi.unit))) < 0 ||
		    (ret = get_str(rd, o, ctx, "kind", kind, sizeof(kind))) < 0 ||
		    (ret = get_bool(rd, o, ctx, "error", &mi.error)) < 0 ||
		    (ret = get_str(rd, o, ctx, "num", mi.num, sizeof(mi.num))) < 0 ||
		    (ret = get_str(rd, o, ctx, "den", mi.den, sizeof(mi.den))) < 0 ||
		    (ret = get_str(rd, o, ctx, "help", mi.help, sizeof(mi.help))) < 0)
			return ret;
		if (mi.name[0] == '\0')
			return rd_fail(rd, -EINVAL, "field \"%sname\": missing or empty", ctx);
		if (res->nmetrics >= BT_RES_METRICS || bt_results_metric_find(res, mi.name) >= 0) {
			note_unknown(rd, "metrics", mi.name);
			continue;
		}
		mi.kind = -1;
		for (int k = 0; k < BT_MI_NKINDS; k++)
			if (strcmp(kind, metric_kinds[k]) == 0)
				mi.kind = k;
		if (mi.kind < 0) {
			snprintf(what, sizeof(what), "%s.kind \"%s\" (shown as a plain number)", mi.name,
				 kind);
			note_unknown(rd, "metrics", what);
			mi.kind = BT_MI_GAUGE;
		}
		res->metrics[res->nmetrics++] = mi;
	}
	return 0;
}

static int read_hist(struct rd *rd, json_t *o, struct bt_hist **out);

/*
 * The header's latency channel names. Past BT_RES_LAT_CH, or a second one
 * of a name, is noted and dropped (its histograms are then noted by
 * read_ch_hists).
 */
static int read_channels(struct rd *rd, json_t *hdr, struct bt_results *res)
{
	json_t *arr;
	int ret = get_array(rd, hdr, "lat_channels", &arr);

	if (ret < 0 || arr == NULL)
		return ret;
	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *s = json_array_get(arr, i);
		int dup = 0;

		if (!json_is_string(s) || json_string_value(s)[0] == '\0')
			return rd_fail(rd, -EINVAL,
				       "field \"lat_channels[%zu]\": expected a non-empty string", i);
		for (int k = 0; k < res->nch; k++)
			dup |= strcmp(res->ch_names[k], json_string_value(s)) == 0;
		if (dup || res->nch >= BT_RES_LAT_CH) {
			note_unknown(rd, "lat_channels", json_string_value(s));
			continue;
		}
		snprintf(res->ch_names[res->nch], sizeof(res->ch_names[0]), "%s",
			 json_string_value(s));
		res->nch++;
	}
	return 0;
}

/*
 * A rep's "ch_hist": each channel's histogram by name, as "hist". A name
 * the header did not declare is noted and ignored.
 */
static int read_ch_hists(struct rd *rd, json_t *o, const struct bt_results *res,
			 struct bt_rep *r)
{
	json_t *co = json_object_get(o, "ch_hist"), *v;
	const char *key;
	int ret;

	if (co == NULL || json_is_null(co))
		return 0;
	if (!json_is_object(co))
		return rd_fail(rd, -EINVAL, "field \"ch_hist\": expected an object");
	json_object_foreach(co, key, v) {
		int k = -1;

		for (int i = 0; i < res->nch; i++)
			if (strcmp(res->ch_names[i], key) == 0)
				k = i;
		if (k < 0 || r->ch_hist[k] != NULL) {
			note_unknown(rd, "rep.ch_hist", key);
			continue;
		}
		if ((ret = read_hist(rd, v, &r->ch_hist[k])) < 0)
			return ret;
	}
	return 0;
}

/*
 * A rep's metric values by name. A name the header did not declare (or this
 * build dropped) is noted and ignored; a ratio's value is derived again by
 * bt_results_add_rep, so what the writer derived is not trusted.
 */
static int read_metric_values(struct rd *rd, json_t *o, const struct bt_results *res,
			      struct bt_rep *r)
{
	json_t *mo = json_object_get(o, "metrics"), *v;
	const char *key;

	if (mo == NULL || json_is_null(mo))
		return 0;
	if (!json_is_object(mo))
		return rd_fail(rd, -EINVAL, "field \"metrics\": expected an object");
	json_object_foreach(mo, key, v) {
		int m = bt_results_metric_find(res, key);

		if (m < 0) {
			note_unknown(rd, "rep.metrics", key);
			continue;
		}
		if (json_is_null(v)) {
			r->metric[m] = NAN;
			continue;
		}
		if (!json_is_number(v))
			return rd_fail(rd, -EINVAL, "field \"metrics.%s\": expected a number or null",
				       key);
		r->metric[m] = json_number_value(v);
	}
	return 0;
}

/*
 * Which axes count workers: the names in "worker_axes". A recording older
 * than that field knew one worker axis, by name: an axis called "threads".
 * This is the only place outside the workloads' tables where that name means
 * anything, and only to read old recordings back as they were shown.
 */
static int read_worker_axes(struct rd *rd, json_t *hdr, struct bt_results *res)
{
	json_t *list, *s;
	size_t i;
	int ret;

	ret = get_array(rd, hdr, "worker_axes", &list);
	if (ret < 0)
		return ret;
	for (int a = 0; a < res->naxes; a++) {
		if (list == NULL) {
			res->axis_workers[a] = strcmp(res->axes[a], "threads") == 0;
			continue;
		}
		json_array_foreach(list, i, s) {
			if (!json_is_string(s))
				return rd_fail(rd, -EINVAL, "field \"worker_axes[%zu]\": expected a string", i);
			if (strcmp(json_string_value(s), res->axes[a]) == 0)
				res->axis_workers[a] = 1;
		}
	}
	return 0;
}

/*
 * Parse line 1 into a freshly initialized res. Everything after the version
 * check assumes this writer's layout but tolerates missing fields.
 */
static int read_header(struct rd *rd, json_t *hdr, struct bt_results *res, int *inited)
{
	json_t *v, *axes, *cells;
	long long ver = 0;
	int ret;

	if (!json_is_object(hdr) || json_object_get(hdr, "benchtop_recording") == NULL)
		return rd_fail(rd, -EINVAL, "not a benchtop recording (no header)");
	ret = get_int(rd, hdr, "", "benchtop_recording", 1, LLONG_MIN, LLONG_MAX, &ver);
	if (ret < 0)
		return ret;
	if (ver > BT_RECORDING_VERSION)
		return rd_fail(rd, -EINVAL, "recording version %lld is newer than this benchtop (%d)",
			       ver, BT_RECORDING_VERSION);
	if (ver < 1)
		return rd_fail(rd, -EINVAL, "bad recording version %lld", ver);
	ret = header_cells(rd, hdr, &cells);
	if (ret < 0)
		return ret;
	ret = get_array(rd, hdr, "axes", &axes);
	if (ret < 0)
		return ret;
	if (axes != NULL && json_array_size(axes) > BT_RES_AXES)
		return rd_fail(rd, -EINVAL, "field \"axes\": %zu axes, at most %d", json_array_size(axes),
			       BT_RES_AXES);

	ret = bt_results_init(res, cells != NULL ? (int)json_array_size(cells) : 0);
	if (ret < 0)
		return rd_fail(rd, ret, "out of memory");
	*inited = 1;
	rd->counted = calloc((size_t)res->ncells + 1, sizeof(*rd->counted));
	if (rd->counted == NULL)
		return rd_fail(rd, -ENOMEM, "out of memory");

	if ((ret = get_str(rd, hdr, "", "version", res->version, sizeof(res->version))) < 0 ||
	    (ret = get_u64(rd, hdr, "", "start_unix_ns", &res->start_unix_ns)) < 0 ||
	    (ret = get_str(rd, hdr, "", "workload", res->workload, sizeof(res->workload))) < 0 ||
	    (ret = get_str(rd, hdr, "", "unit", res->unit, sizeof(res->unit))) < 0 ||
	    (ret = get_str(rd, hdr, "", "lat_what", res->lat_what, sizeof(res->lat_what))) < 0 ||
	    (ret = get_str(rd, hdr, "", "baseline", res->baseline, sizeof(res->baseline))) < 0 ||
	    (ret = get_dbl(rd, hdr, "", "timer_cost_ns", &res->timer_cost_ns)) < 0 ||
	    (ret = read_machine(rd, json_object_get(hdr, "machine"), &res->machine)) < 0)
		return ret;

	v = json_object_get(hdr, "plan");
	if (v != NULL && !json_is_null(v)) {
		res->plan_json = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
					    JSON_ENCODE_ANY);
		if (res->plan_json == NULL)
			return rd_fail(rd, -ENOMEM, "out of memory");
	}

	res->naxes = axes != NULL ? (int)json_array_size(axes) : 0;
	for (int a = 0; a < res->naxes; a++) {
		json_t *s = json_array_get(axes, (size_t)a);

		if (!json_is_string(s))
			return rd_fail(rd, -EINVAL, "field \"axes[%d]\": expected a string", a);
		snprintf(res->axes[a], sizeof(res->axes[a]), "%s", json_string_value(s));
	}
	if ((ret = read_metric_decls(rd, hdr, res)) < 0 || (ret = read_channels(rd, hdr, res)) < 0)
		return ret;
	ret = read_worker_axes(rd, hdr, res);
	if (ret < 0)
		return ret;

	for (int c = 0; c < res->ncells; c++) {
		json_t *co = json_array_get(cells, (size_t)c), *vals;
		struct bt_cell *cell = &res->cells[c];
		char ctx[32];
		int idx = c;

		snprintf(ctx, sizeof(ctx), "cells[%d].", c);
		if (!json_is_object(co))
			return rd_fail(rd, -EINVAL, "field \"cells[%d]\": expected an object", c);
		if ((ret = get_i(rd, co, ctx, "index", 0, 0, INT_MAX, &idx)) < 0)
			return ret;
		if (idx != c)
			return rd_fail(rd, -EINVAL, "field \"%sindex\": %d, expected %d", ctx, idx, c);
		if ((ret = get_str(rd, co, ctx, "label", cell->label, sizeof(cell->label))) < 0 ||
		    (ret = get_i(rd, co, ctx, "reps", 0, 0, BT_REC_MAX_REP_INDEX,
				 &cell->total_reps)) < 0 ||
		    (ret = get_dbl(rd, co, ctx, "ci", &cell->ci_target)) < 0)
			return ret;
		if (!(cell->ci_target >= 0 && cell->ci_target <= 100))
			return rd_fail(rd, -EINVAL, "field \"%sci\": must be 0..100", ctx);
		vals = json_object_get(co, "values");
		if (vals == NULL || json_is_null(vals))
			continue;
		if (!json_is_array(vals))
			return rd_fail(rd, -EINVAL, "field \"%svalues\": expected an array", ctx);
		for (size_t a = 0; a < json_array_size(vals) && a < BT_RES_AXES; a++) {
			json_t *s = json_array_get(vals, a);

			if (!json_is_string(s))
				return rd_fail(rd, -EINVAL, "field \"%svalues[%zu]\": expected a string",
					       ctx, a);
			snprintf(cell->values[a], sizeof(cell->values[a]), "%s", json_string_value(s));
		}
	}
	return 0;
}

/* "cell" and "rep" of a sample or rep line, range-checked against the header. */
static int read_cell_rep(struct rd *rd, json_t *o, const struct bt_results *res, int *cell,
			 int *rep)
{
	int ret = get_i(rd, o, "", "cell", 1, INT_MIN, INT_MAX, cell);

	if (ret < 0)
		return ret;
	if (*cell < 0 || *cell >= res->ncells)
		return rd_fail(rd, -EINVAL, "cell %d out of range (the header has %d cells)", *cell,
			       res->ncells);
	if (rep == NULL)
		return 0;
	ret = get_i(rd, o, "", "rep", 1, INT_MIN, INT_MAX, rep);
	if (ret < 0)
		return ret;
	if (*rep < 0 || *rep > BT_REC_MAX_REP_INDEX)
		return rd_fail(rd, -EINVAL, "rep %d out of range (0..%d)", *rep, BT_REC_MAX_REP_INDEX);
	return 0;
}

static int read_sample(struct rd *rd, json_t *o, struct bt_results *res)
{
	struct bt_sample s;
	int ret;

	memset(&s, 0, sizeof(s));
	if (res->nsamples >= BT_REC_MAX_SAMPLES)
		return rd_fail(rd, -EFBIG, "more than %d sample lines, past the limit",
			       BT_REC_MAX_SAMPLES);
	if ((ret = read_cell_rep(rd, o, res, &s.cell, &s.rep)) < 0 ||
	    (ret = get_dbl(rd, o, "", "t", &s.t)) < 0 ||
	    (ret = get_dbl(rd, o, "", "dt", &s.dt)) < 0 ||
	    (ret = get_dbl(rd, o, "", "ops_s", &s.ops_s)) < 0 ||
	    (ret = get_dbl(rd, o, "", "bytes_s", &s.bytes_s)) < 0 ||
	    (ret = get_u64(rd, o, "", "ops", &s.ops)) < 0 ||
	    (ret = get_u64(rd, o, "", "lat_count", &s.lat_count)) < 0 ||
	    (ret = get_u64(rd, o, "", "p50", &s.p50)) < 0 ||
	    (ret = get_u64(rd, o, "", "p90", &s.p90)) < 0 ||
	    (ret = get_u64(rd, o, "", "p99", &s.p99)) < 0 ||
	    (ret = get_u64(rd, o, "", "p999", &s.p999)) < 0 ||
	    (ret = get_u64(rd, o, "", "max", &s.max)) < 0 ||
	    (ret = get_dbl(rd, o, "", "cpu_pct", &s.cpu_pct)) < 0 ||
	    (ret = get_dbl(rd, o, "", "user_pct", &s.user_pct)) < 0 ||
	    (ret = get_dbl(rd, o, "", "sys_pct", &s.sys_pct)) < 0)
		return ret;
	ret = bt_results_add_sample(res, &s);
	if (ret < 0)
		return rd_fail(rd, ret, "out of memory");
	return 0;
}

/* Rebuild a histogram from its sparse form; *out stays NULL for "hist": null. */
static int read_hist(struct rd *rd, json_t *o, struct bt_hist **out)
{
	json_t *b;
	uint32_t *idx = NULL;
	uint64_t *cnt = NULL;
	uint64_t min = 0, max = 0;
	double sum = 0;
	size_t nb = 0;
	struct bt_hist *h = NULL;
	int ret;

	*out = NULL;
	if (o == NULL || json_is_null(o))
		return 0;
	if (!json_is_object(o))
		return rd_fail(rd, -EINVAL, "field \"hist\": expected an object or null");
	if ((ret = get_u64(rd, o, "hist.", "min", &min)) < 0 ||
	    (ret = get_u64(rd, o, "hist.", "max", &max)) < 0 ||
	    (ret = get_dbl(rd, o, "hist.", "sum", &sum)) < 0)
		return ret;
	b = json_object_get(o, "b");
	if (b != NULL && !json_is_null(b) && !json_is_array(b))
		return rd_fail(rd, -EINVAL, "field \"hist.b\": expected an array");
	nb = b != NULL ? json_array_size(b) : 0;
	if (nb > BT_HIST_LEN)
		return rd_fail(rd, -EINVAL, "field \"hist.b\": %zu buckets, at most %u", nb,
			       (unsigned)BT_HIST_LEN);
	if (nb > 0) {
		idx = malloc(nb * sizeof(*idx));
		cnt = malloc(nb * sizeof(*cnt));
		if (idx == NULL || cnt == NULL) {
			ret = rd_fail(rd, -ENOMEM, "out of memory");
			goto out;
		}
	}
	for (size_t i = 0; i < nb; i++) {
		json_t *pair = json_array_get(b, i);
		json_t *ji = json_array_get(pair, 0), *jc = json_array_get(pair, 1);

		if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_integer(ji) ||
		    !json_is_integer(jc) || json_integer_value(ji) < 0 ||
		    json_integer_value(ji) >= BT_HIST_LEN || json_integer_value(jc) < 0) {
			ret = rd_fail(rd, -EINVAL,
				      "field \"hist.b[%zu]\": expected [index, count] with index 0..%u",
				      i, (unsigned)BT_HIST_LEN - 1);
			goto out;
		}
		idx[i] = (uint32_t)json_integer_value(ji);
		cnt[i] = (uint64_t)json_integer_value(jc);
		/* Totals must not wrap: neither this one nor a cell's merge of many. */
		if (cnt[i] > BT_REC_MAX_LAT - rd->lat_total) {
			ret = rd_fail(rd, -EFBIG,
				      "field \"hist.b[%zu]\": more latencies than the limit of 2^62 in one recording",
				      i);
			goto out;
		}
		rd->lat_total += cnt[i];
	}
	h = bt_hist_new();
	if (h == NULL) {
		ret = rd_fail(rd, -ENOMEM, "out of memory");
		goto out;
	}
	ret = bt_hist_set_sparse(h, idx, cnt, nb, min, max, sum);
	if (ret < 0) {
		ret = rd_fail(rd, ret, "field \"hist\": bucket index out of range");
		goto out;
	}
	*out = h;
	h = NULL;
out:
	bt_hist_free(h);
	free(idx);
	free(cnt);
	return ret;
}

static int read_workers(struct rd *rd, json_t *o, struct bt_rep *r)
{
	json_t *arr;
	int ret = get_array(rd, o, "workers", &arr);

	if (ret < 0 || arr == NULL || json_array_size(arr) == 0)
		return ret;
	if (json_array_size(arr) > BT_REC_MAX_WORKERS)
		return rd_fail(rd, -EINVAL, "field \"workers\": %zu workers, past the limit of %d",
			       json_array_size(arr), BT_REC_MAX_WORKERS);
	r->workers = calloc(json_array_size(arr), sizeof(*r->workers));
	if (r->workers == NULL)
		return rd_fail(rd, -ENOMEM, "out of memory");
	r->nworkers = (int)json_array_size(arr);
	for (int i = 0; i < r->nworkers; i++) {
		json_t *wo = json_array_get(arr, (size_t)i);
		struct bt_worker_result *wr = &r->workers[i];
		char ctx[32];

		snprintf(ctx, sizeof(ctx), "workers[%d].", i);
		wr->cpu_first = wr->cpu_last = wr->pinned = -1;
		wr->pid = 0;
		if (!json_is_object(wo))
			return rd_fail(rd, -EINVAL, "field \"workers[%d]\": expected an object", i);
		if ((ret = get_u64(rd, wo, ctx, "ops", &wr->ops)) < 0 ||
		    (ret = get_i(rd, wo, ctx, "cpu_first", 0, -1, INT_MAX, &wr->cpu_first)) < 0 ||
		    (ret = get_i(rd, wo, ctx, "cpu_last", 0, -1, INT_MAX, &wr->cpu_last)) < 0 ||
		    (ret = get_i(rd, wo, ctx, "pinned", 0, -1, INT_MAX, &wr->pinned)) < 0 ||
		    (ret = get_i(rd, wo, ctx, "pid", 0, 0, INT_MAX, &wr->pid)) < 0)
			return ret;
	}
	return 0;
}

/* A rep's "noise" object; absent in older recordings (the figures stay unknown). */
static int read_rep_noise(struct rd *rd, json_t *n, struct bt_rep *r)
{
	int ret;

	if (n == NULL || json_is_null(n))
		return 0;
	if (!json_is_object(n))
		return rd_fail(rd, -EINVAL, "field \"noise\": expected an object");
	if ((ret = get_dbl(rd, n, "noise.", "steal_pct", &r->steal_pct)) < 0 ||
	    (ret = get_dbl(rd, n, "noise.", "runq", &r->runq)) < 0 ||
	    (ret = get_dbl(rd, n, "noise.", "freq_mhz", &r->freq_mhz)) < 0 ||
	    (ret = get_dbl(rd, n, "noise.", "throttled", &r->throttled)) < 0)
		return ret;
	return 0;
}

static int read_rep(struct rd *rd, json_t *o, struct bt_results *res)
{
	struct bt_rep r;
	char verify[BT_ERR_MAX] = "";	/* bt_results_add_rep copies it */
	long long lat_every = 0;
	int ret;

	memset(&r, 0, sizeof(r));
	r.verify = verify;
	r.steal_pct = r.runq = r.throttled = -1;	/* older recordings: unknown */
	if (res->nreps >= BT_REC_MAX_REPS)
		return rd_fail(rd, -EFBIG, "more than %d rep lines, past the limit", BT_REC_MAX_REPS);
	if ((ret = read_cell_rep(rd, o, res, &r.cell, &r.rep)) < 0 ||
	    (ret = get_bool(rd, o, "", "warmup", &r.warmup)) < 0 ||
	    (ret = get_bool(rd, o, "", "ok", &r.ok)) < 0 ||
	    (ret = get_str(rd, o, "", "verify", verify, sizeof(verify))) < 0 ||
	    (ret = get_str(rd, o, "", "engine", r.engine, sizeof(r.engine))) < 0 ||
	    (ret = get_u64(rd, o, "", "ops", &r.ops)) < 0 ||
	    (ret = get_u64(rd, o, "", "bytes", &r.bytes)) < 0 ||
	    (ret = get_u64(rd, o, "", "errors", &r.errors)) < 0 ||
	    (ret = get_dbl(rd, o, "", "wall_s", &r.wall_s)) < 0 ||
	    (ret = get_dbl(rd, o, "", "user_s", &r.user_s)) < 0 ||
	    (ret = get_dbl(rd, o, "", "sys_s", &r.sys_s)) < 0 ||
	    (ret = get_dbl(rd, o, "", "vcsw", &r.vcsw)) < 0 ||
	    (ret = get_dbl(rd, o, "", "ivcsw", &r.ivcsw)) < 0 ||
	    (ret = get_dbl(rd, o, "", "ops_s", &r.ops_s)) < 0 ||
	    (ret = get_dbl(rd, o, "", "bytes_s", &r.bytes_s)) < 0 ||
	    (ret = get_int(rd, o, "", "lat_every", 0, 0, UINT32_MAX, &lat_every)) < 0 ||
	    (ret = read_hist(rd, json_object_get(o, "hist"), &r.hist)) < 0 ||
	    (ret = read_workers(rd, o, &r)) < 0 ||
	    (ret = read_rep_noise(rd, json_object_get(o, "noise"), &r)) < 0 ||
	    (ret = read_metric_values(rd, o, res, &r)) < 0 ||
	    (ret = read_ch_hists(rd, o, res, &r)) < 0)
		goto fail;
	r.lat_every = (uint32_t)lat_every;
	if (!r.warmup && r.ok)
		rd->counted[r.cell]++;
	ret = bt_results_add_rep(res, &r);
	if (ret < 0) {
		ret = rd_fail(rd, ret, "out of memory");
		goto fail;
	}
	return 0;
fail:
	bt_hist_free(r.hist);
	for (int k = 0; k < BT_RES_LAT_CH; k++)
		bt_hist_free(r.ch_hist[k]);
	free(r.workers);
	return ret;
}

/* A cell line is a check: its rep count must match what the rep lines gave. */
static int read_cell(struct rd *rd, json_t *o, struct bt_results *res)
{
	int c = 0, nreps = -1, ret;

	if ((ret = read_cell_rep(rd, o, res, &c, NULL)) < 0 ||
	    (ret = get_i(rd, o, "", "nreps", 0, 0, INT_MAX, &nreps)) < 0)
		return ret;
	/* Counted as the rep lines came: summarizing here made the reader cells x reps. */
	if (nreps >= 0 && nreps != rd->counted[c])
		return rd_fail(rd, -EINVAL, "cell %d says %d reps, but its rep lines give %d", c,
			       nreps, rd->counted[c]);
	return 0;
}

static int read_end(struct rd *rd, json_t *o, struct bt_results *res)
{
	char status[sizeof(res->status)] = "";
	int ret;

	if ((ret = get_str(rd, o, "", "status", status, sizeof(status))) < 0 ||
	    (ret = get_str(rd, o, "", "error", res->error, sizeof(res->error))) < 0)
		return ret;
	snprintf(res->status, sizeof(res->status), "%s", status[0] ? status : "complete");
	return 0;
}

/* Dispatch one parsed line after the header. Unknown types are skipped. */
static int read_line(struct rd *rd, json_t *o, struct bt_results *res, int *end_seen)
{
	const char *type;

	if (!json_is_object(o))
		return rd_fail(rd, -EINVAL, "not a JSON object");
	if (!json_is_string(json_object_get(o, "type")))
		return rd_fail(rd, -EINVAL, "field \"type\": missing or not a string");
	type = json_string_value(json_object_get(o, "type"));
	if (strcmp(type, "header") != 0)
		check_fields(rd, o, type);
	if (strcmp(type, "sample") == 0)
		return read_sample(rd, o, res);
	if (strcmp(type, "rep") == 0)
		return read_rep(rd, o, res);
	if (strcmp(type, "cell") == 0)
		return read_cell(rd, o, res);
	if (strcmp(type, "end") == 0) {
		*end_seen = 1;
		return read_end(rd, o, res);
	}
	if (strcmp(type, "header") == 0)
		return rd_fail(rd, -EINVAL, "a second header");
	return 0;
}

static int blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return 0;
	return 1;
}

/*
 * getline with a ceiling: a line longer than max is not read into memory
 * (*too_long set, the rest of it skipped). Returns the length, -1 at the
 * end of the file.
 */
static ssize_t get_line_max(char **buf, size_t *cap, size_t max, FILE *f, int *too_long)
{
	size_t len = 0;
	int c = EOF;

	*too_long = 0;
	while ((c = getc_unlocked(f)) != EOF) {
		if (len + 2 > *cap) {
			size_t ncap = *cap ? *cap * 2 : 4096;
			char *p;

			if (ncap > max + 2)
				ncap = max + 2;
			if (len + 2 > ncap) {
				*too_long = 1;
				while (c != '\n' && (c = getc_unlocked(f)) != EOF)
					;
				return (ssize_t)len;
			}
			p = realloc(*buf, ncap);
			if (p == NULL)
				return -2;
			*buf = p;
			*cap = ncap;
		}
		(*buf)[len++] = (char)c;
		if (c == '\n')
			break;
	}
	if (len == 0 && c == EOF)
		return -1;
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

/*
 * The reader. The file is taken line by line: a line that does not parse is
 * an error, except the last one when it has no newline: that is where a
 * killed writer stopped (torn), and everything before it is kept.
 */
int bt_rec_read(const char *path, struct bt_results *res, struct bt_err *err)
{
	struct rd rd = { .path = path, .line = 0, .err = err };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int inited = 0, end_seen = 0, ret = 0, too_long = 0;
	FILE *f;

	memset(res, 0, sizeof(*res));
	ret = bt_file_open_read(path, BT_FILE_MAX_RECORDING, &f, NULL, err);
	if (ret < 0)
		return ret;
	while ((len = get_line_max(&line, &cap, BT_REC_MAX_LINE, f, &too_long)) >= 0) {
		int has_nl = len > 0 && line[len - 1] == '\n';
		json_error_t jerr;
		json_t *o;

		rd.line++;
		if (too_long) {
			ret = rd_fail(&rd, -EFBIG, "line longer than the limit of %u MiB",
				      BT_REC_MAX_LINE >> 20);
			goto out;
		}
		if (has_nl)
			len--;
		if (rd.line > 1 && blank(line, (size_t)len))
			continue;
		o = json_loadb(line, (size_t)len, 0, &jerr);
		if (o == NULL) {
			if (!inited) {
				ret = rd_fail(&rd, -EINVAL, "not a benchtop recording");
				goto out;
			}
			if (!has_nl) {
				res->torn = 1;
				break;
			}
			ret = rd_fail(&rd, -EINVAL, "invalid JSON: %s", jerr.text);
			goto out;
		}
		if (!inited) {
			ret = read_header(&rd, o, res, &inited);
			if (ret == 0)
				check_fields(&rd, o, "header");
		}
		else
			ret = read_line(&rd, o, res, &end_seen);
		json_decref(o);
		if (ret < 0)
			goto out;
	}
	if (len == -2) {
		ret = rd_fail(&rd, -ENOMEM, "out of memory");
		goto out;
	}
	if (ferror(f)) {
		int e = errno;

		ret = bt_err_set(err, -e, "%s: %s", path, strerror(e));
		goto out;
	}
	if (rd.line == 0) {
		ret = bt_err_set(err, -EINVAL, "%s: empty file, not a benchtop recording", path);
		goto out;
	}

	if ((ret = bt_results_summarize_all(res)) < 0) {
		bt_err_set(err, ret, "%s: cannot summarize the cells", path);
		goto out;
	}
	if (rd.nunknown > 0)
		snprintf(res->note, sizeof(res->note),
			 "ignored what this benchtop does not know (written by a newer one?): %s",
			 rd.unknown);
	if (!end_seen) {
		snprintf(res->status, sizeof(res->status), "interrupted");
		snprintf(res->error, sizeof(res->error),
			 "recording ends without an end line (the run was killed or crashed)");
	} else if (res->torn) {
		snprintf(res->status, sizeof(res->status), "interrupted");
		if (res->error[0] == '\0')
			snprintf(res->error, sizeof(res->error),
				 "the last line of the recording is cut short");
	}
out:
	free(line);
	free(rd.counted);
	fclose(f);
	if (ret < 0) {
		if (inited)
			bt_results_destroy(res);
		memset(res, 0, sizeof(*res));
	}
	return ret;
}
