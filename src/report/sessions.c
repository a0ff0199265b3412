/*
 * sessions.c - recorded sessions: cheap summaries for listing, and raw
 * exports (see sessions.h).
 *
 * The summary reader is a second, shallow reader of the recording format.
 * It trusts the shape the writer produces (one compact JSON object per line,
 * the "type" key first) to skip the long rep and sample lines unparsed, and
 * checks only that every line looks like an object. bt_rec_read remains the
 * one full, strict reader: opening a session goes through it.
 */
#include "report/sessions.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "core/clock.h"
#include "core/hist.h"
#include "core/machine.h"
#include "report/csv.h"
#include "core/file.h"
#include "core/recording.h"

#define HEADER_MAX (16u << 20)	/* a header with 4096 cells is well under 1 MiB */
#define KEEP_MAX (1u << 20)	/* longest cell or end line we parse */
#define TAIL_MAX (1u << 20)	/* bytes read from the end of an unscanned file */

/* ---- a line scanner that never holds more than it needs ----------------- */

struct scan {
	FILE *f;
	char chunk[1 << 16];
	size_t pos, len;
	int eof;
	char *line;		/* the kept part of the current line */
	size_t cap;
	size_t kept;		/* bytes kept (<= keep limit) */
	size_t total;		/* the line's full length, newline excluded */
	int has_nl;
	int has_nul;
};

static int fill(struct scan *s)
{
	if (s->pos < s->len)
		return 1;
	if (s->eof)
		return 0;
	s->len = fread(s->chunk, 1, sizeof(s->chunk), s->f);
	s->pos = 0;
	if (s->len == 0) {
		s->eof = 1;
		return 0;
	}
	return 1;
}

static int keep(struct scan *s, const char *p, size_t n, size_t limit)
{
	if (s->kept >= limit)
		return 0;
	if (n > limit - s->kept)
		n = limit - s->kept;
	if (s->kept + n + 1 > s->cap) {
		size_t ncap = (s->kept + n + 1) * 2;
		char *q;

		if (ncap > limit + 1)
			ncap = limit + 1;
		q = realloc(s->line, ncap);
		if (q == NULL)
			return -ENOMEM;
		s->line = q;
		s->cap = ncap;
	}
	memcpy(s->line + s->kept, p, n);
	s->kept += n;
	s->line[s->kept] = '\0';
	return 0;
}

/*
 * Read the next line: its first `limit` bytes are kept in s->line
 * (NUL-terminated), its full length in s->total. Returns 1 for a line, 0 at
 * the end, -errno on a read error or no memory.
 */
static int next_line(struct scan *s, size_t limit)
{
	int any = 0;

	s->kept = s->total = 0;
	s->has_nl = s->has_nul = 0;
	if (s->line != NULL)
		s->line[0] = '\0';
	while (fill(s)) {
		char *start = s->chunk + s->pos;
		size_t avail = s->len - s->pos;
		char *nl = memchr(start, '\n', avail);
		size_t n = nl ? (size_t)(nl - start) : avail;

		any = 1;
		if (memchr(start, '\0', n) != NULL)
			s->has_nul = 1;
		if (keep(s, start, n, limit) < 0)
			return -ENOMEM;
		s->total += n;
		s->pos += n;
		if (nl != NULL) {
			s->pos++;
			s->has_nl = 1;
			break;
		}
	}
	if (ferror(s->f))
		return errno > 0 ? -errno : -EIO;
	if (s->line == NULL && keep(s, "", 0, limit) < 0)
		return -ENOMEM;
	return any;
}

static int blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

/* The line looks like a JSON object: '{' first and '}' last, ignoring blanks. */
static int looks_like_object(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return n > i && s[i] == '{' && s[n - 1] == '}';
}

/* ---- the summary ------------------------------------------------------- */

__attribute__((format(printf, 2, 3)))
static int unreadable(struct bt_session_info *info, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(info->error, sizeof(info->error), fmt, ap);
	va_end(ap);
	info->readable = 0;
	snprintf(info->status, sizeof(info->status), "unreadable");
	return -EINVAL;
}

/* An integer, or a real with an integral value, as bt_rec_read accepts them; 0 or -1. */
static int get_ll(json_t *v, long long *out)
{
	double d;

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	if (!json_is_real(v))
		return -1;
	d = json_real_value(v);
	if (d != floor(d) || fabs(d) >= 9e18)
		return -1;
	*out = (long long)d;
	return 0;
}

static void copy_str(json_t *o, const char *key, char *buf, size_t n)
{
	json_t *v = json_object_get(o, key);

	if (json_is_string(v))
		snprintf(buf, n, "%s", json_string_value(v));
}

/* "threads=1,2,4 notify=signal,broadcast": each axis with its distinct values in cell order. */
static void axes_summary(json_t *axes, json_t *cells, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t a = 0; json_is_array(axes) && a < json_array_size(axes); a++) {
		json_t *name = json_array_get(axes, a);
		int w, nv = 0;

		if (!json_is_string(name))
			continue;
		w = snprintf(buf + used, n - used, "%s%s=", used ? " " : "", json_string_value(name));
		if (w < 0 || (size_t)w >= n - used)
			goto full;
		used += (size_t)w;
		for (size_t c = 0; json_is_array(cells) && c < json_array_size(cells); c++) {
			json_t *v = json_array_get(json_object_get(json_array_get(cells, c), "values"), a);
			const char *s;
			int seen = 0;

			if (!json_is_string(v))
				continue;
			s = json_string_value(v);
			for (size_t e = 0; e < c && !seen; e++) {
				json_t *u = json_array_get(json_object_get(json_array_get(cells, e), "values"), a);

				seen = json_is_string(u) && strcmp(json_string_value(u), s) == 0;
			}
			if (seen)
				continue;
			w = snprintf(buf + used, n - used, "%s%s", nv++ ? "," : "", s);
			if (w < 0 || (size_t)w >= n - used)
				goto full;
			used += (size_t)w;
		}
	}
	return;
full:
	/* Cut, and say so. */
	if (n >= 4)
		snprintf(buf + n - 4, 4, "...");
}

/* Parse the header line into info; returns the cells' planned reps array (malloc'd) or NULL. */
static int read_header(struct bt_session_info *info, const struct scan *s, int **reps)
{
	json_error_t jerr;
	json_t *hdr, *v, *cells;
	long long ver = 0;
	int ret = 0;

	*reps = NULL;
	if (s->total > s->kept)
		return unreadable(info, "line 1: header longer than %u bytes, not a benchtop recording",
				  HEADER_MAX);
	/* jansson skips a stray NUL byte between tokens, so parse first, as bt_rec_read does. */
	hdr = json_loadb(s->line, s->kept, 0, &jerr);
	if (hdr == NULL) {
		if (s->has_nul)
			return unreadable(info, "binary file, not a benchtop recording");
		if (!s->has_nl)
			return unreadable(info, "line 1: header cut short, nothing recorded");
		return unreadable(info, "line 1: not a benchtop recording (invalid JSON: %s)", jerr.text);
	}
	if (!json_is_object(hdr) || json_object_get(hdr, "benchtop_recording") == NULL) {
		ret = unreadable(info, "line 1: not a benchtop recording (no header)");
		goto out;
	}
	if (get_ll(json_object_get(hdr, "benchtop_recording"), &ver) < 0 || ver < 1) {
		ret = unreadable(info, "line 1: bad recording version");
		goto out;
	}
	if (ver > BT_RECORDING_VERSION) {
		ret = unreadable(info, "line 1: recording version %lld is newer than this benchtop (%d)",
				 ver, BT_RECORDING_VERSION);
		goto out;
	}
	copy_str(hdr, "workload", info->workload, sizeof(info->workload));
	copy_str(hdr, "version", info->version, sizeof(info->version));
	copy_str(json_object_get(hdr, "machine"), "host", info->host, sizeof(info->host));
	v = json_object_get(hdr, "start_unix_ns");
	if (json_is_integer(v) && json_integer_value(v) > 0)
		info->start_unix_ns = (uint64_t)json_integer_value(v);
	cells = json_object_get(hdr, "cells");
	if (json_is_array(cells) && json_array_size(cells) > 0 && json_array_size(cells) <= 1000000) {
		info->ncells = (int)json_array_size(cells);
		*reps = calloc((size_t)info->ncells, sizeof(**reps));
		if (*reps == NULL) {
			ret = -ENOMEM;
			goto out;
		}
		for (int c = 0; c < info->ncells; c++) {
			json_t *r = json_object_get(json_array_get(cells, (size_t)c), "reps");
			long long k = 0;

			(*reps)[c] = get_ll(r, &k) == 0 && k > 0 && k <= INT_MAX ? (int)k : 0;
		}
	}
	info->explore = json_is_true(json_object_get(hdr, "explore"));
	axes_summary(json_object_get(hdr, "axes"), cells, info->axes, sizeof(info->axes));
	bt_results_fixed_of(json_object_get(hdr, "plan"), info->fixed, sizeof(info->fixed));
out:
	json_decref(hdr);
	return ret;
}

char *bt_sessions_plan_text(const struct bt_session_info *s, char *buf, size_t n)
{
	if (!s->readable || (!s->axes[0] && !s->fixed[0]))
		snprintf(buf, n, "%s-", s->explore ? "explore " : "");
	else
		snprintf(buf, n, "%s%s%s%s", s->explore ? "explore " : "", s->axes,
			 s->axes[0] && s->fixed[0] ? " " : "", s->fixed);
	/* A listing is one line per session: a long plan ends in "..." at a value's end. */
	if (strlen(buf) > BT_SESSIONS_PLAN_W && n > BT_SESSIONS_PLAN_W) {
		char *sp = buf + BT_SESSIONS_PLAN_W - 3;

		while (sp > buf && *sp != ' ')
			sp--;
		if (sp == buf)
			sp = buf + BT_SESSIONS_PLAN_W - 3;
		snprintf(sp, 5, "%s...", *sp == ' ' ? " " : "");
	}
	return buf;
}

/* The line's "type", when it starts the way the writer starts every line. */
static int is_type(const char *line, const char *type)
{
	size_t n = strlen(type);

	return strncmp(line, "{\"type\":\"", 9) == 0 && strncmp(line + 9, type, n) == 0 &&
	       line[9 + n] == '"';
}

struct tally {
	int *counted;		/* [ncells]: counted reps (not warmup, ok) */
	unsigned char *any;	/* [ncells]: a rep line was seen */
	unsigned char *failed;	/* [ncells]: a rep failed */
	int *reps;		/* [ncells]: reps planned, from the header */
	int end_seen;
};

/* Explore: a segment line adds a cell of one rep. 0 or -ENOMEM. */
static int add_segment(struct bt_session_info *info, struct tally *t)
{
	int n = info->ncells + 1;
	int *counted = realloc(t->counted, sizeof(int) * (size_t)n);
	unsigned char *any, *failed;
	int *reps;

	if (counted == NULL)
		return -ENOMEM;
	t->counted = counted;
	if ((any = realloc(t->any, (size_t)n)) == NULL)
		return -ENOMEM;
	t->any = any;
	if ((failed = realloc(t->failed, (size_t)n)) == NULL)
		return -ENOMEM;
	t->failed = failed;
	if ((reps = realloc(t->reps, sizeof(int) * (size_t)n)) == NULL)
		return -ENOMEM;
	t->reps = reps;
	counted[n - 1] = 0;
	any[n - 1] = failed[n - 1] = 0;
	reps[n - 1] = 1;
	info->ncells = n;
	return 0;
}

/*
 * Explore: a change line carries the plan of the values visited so far:
 * its axes with their values, and its fixed values, are the session's.
 */
static void take_change(struct bt_session_info *info, json_t *o)
{
	json_t *plan = json_object_get(o, "plan"), *axes = json_object_get(plan, "axes");
	json_t *params = json_object_get(plan, "params");
	size_t used = 0;

	if (!json_is_object(plan))
		return;
	info->axes[0] = '\0';
	for (size_t a = 0; json_is_array(axes) && a < json_array_size(axes); a++) {
		const char *name = json_string_value(json_array_get(axes, a));
		json_t *vals = json_object_get(params, name ? name : "");
		int w;

		if (name == NULL || !json_is_array(vals))
			continue;
		w = snprintf(info->axes + used, sizeof(info->axes) - used, "%s%s=", used ? " " : "",
			     name);
		for (size_t k = 0; w >= 0 && k < json_array_size(vals); k++) {
			json_t *v = json_array_get(vals, k);
			char text[64];

			if (json_is_integer(v))
				snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(v));
			else
				snprintf(text, sizeof(text), "%s", json_is_string(v) ? json_string_value(v) : "?");
			if ((size_t)w < sizeof(info->axes) - used)
				w += snprintf(info->axes + used + w, sizeof(info->axes) - used - (size_t)w,
					      "%s%s", k ? "," : "", text);
		}
		if (w < 0 || (size_t)w >= sizeof(info->axes) - used)
			break;
		used += (size_t)w;
	}
	bt_results_fixed_of(plan, info->fixed, sizeof(info->fixed));
}

static void count_rep(struct bt_session_info *info, struct tally *t, long long cell, int warmup,
		      int ok)
{
	if (cell < 0 || cell >= info->ncells || t->counted == NULL)
		return;
	t->any[cell] = 1;
	if (!ok)
		t->failed[cell] = 1;
	else if (!warmup)
		t->counted[cell]++;
}

/*
 * A rep line as the writer starts it: {"type":"rep","cell":N,"rep":R,
 * "warmup":B,"ok":B - read from the first bytes, so the histogram that
 * follows is never parsed. 1 when the prefix had that shape.
 */
static int rep_prefix(struct bt_session_info *info, struct tally *t, const char *line)
{
	char warmup[8], ok[8];
	long long cell, rep;
	int used = 0;

	if (sscanf(line, "{\"type\":\"rep\",\"cell\":%lld,\"rep\":%lld,\"warmup\":%5[a-z],\"ok\":%5[a-z]%n",
		   &cell, &rep, warmup, ok, &used) != 4 || used == 0)
		return 0;
	if ((strcmp(warmup, "true") && strcmp(warmup, "false")) ||
	    (strcmp(ok, "true") && strcmp(ok, "false")))
		return 0;
	count_rep(info, t, cell, !strcmp(warmup, "true"), !strcmp(ok, "true"));
	return 1;
}

/*
 * A rep or end line: count it. A line in the writer's shape ("type" first)
 * is recognized by its first bytes, and a rep line counted by its prefix; a
 * line in any other shape (hand-edited, another writer) is parsed whole.
 * Returns 0 for a line that should parse and does not, 1 otherwise.
 */
static int take_line(struct bt_session_info *info, struct tally *t, const char *line, size_t n)
{
	const char *type;
	json_t *o;

	if (info->explore && is_type(line, "segment"))
		return add_segment(info, t) == 0;
	if (strncmp(line, "{\"type\":\"", 9) == 0) {
		if (!is_type(line, "rep") && !is_type(line, "end") &&
		    !(info->explore && is_type(line, "change")))
			return 1;
		if (is_type(line, "rep") && rep_prefix(info, t, line))
			return 1;
	}
	o = json_loadb(line, n, 0, NULL);
	if (o == NULL)
		return 0;
	type = json_string_value(json_object_get(o, "type"));
	if (type != NULL && strcmp(type, "end") == 0) {
		/* As bt_rec_read: the last end line wins; a missing error keeps the earlier one. */
		t->end_seen = 1;
		info->status[0] = '\0';
		copy_str(o, "status", info->status, sizeof(info->status));
		copy_str(o, "error", info->error, sizeof(info->error));
	} else if (type != NULL && strcmp(type, "change") == 0 && info->explore) {
		take_change(info, o);
	} else if (type != NULL && strcmp(type, "rep") == 0) {
		long long c;

		if (get_ll(json_object_get(o, "cell"), &c) == 0)
			count_rep(info, t, c, json_is_true(json_object_get(o, "warmup")),
				  json_is_true(json_object_get(o, "ok")));
	}
	json_decref(o);
	return 1;
}

/* Every line after the header: shape checked, rep and end lines counted, the last one torn? */
static int scan_body(struct bt_session_info *info, struct scan *s, struct tally *t)
{
	long lineno = 1;
	int ret;

	while ((ret = next_line(s, KEEP_MAX)) > 0) {
		int whole = s->total == s->kept;

		lineno++;
		if (blank(s->line, s->kept) && s->total == s->kept)
			continue;
		if (!s->has_nl) {
			/*
			 * The last line, without its newline: where a killed writer
			 * stopped when it does not parse (bt_rec_read keeps what
			 * came before it).
			 */
			json_t *o = whole ? json_loadb(s->line, s->kept, 0, NULL) : NULL;

			if (o == NULL)
				info->torn = 1;
			else
				take_line(info, t, s->line, s->kept);
			json_decref(o);
			continue;
		}
		if (whole && looks_like_object(s->line, s->kept) &&
		    take_line(info, t, s->line, s->kept))
			continue;
		if (!whole && rep_prefix(info, t, s->line))
			continue;	/* a huge rep line: counted by its prefix, not checked */
		if (s->has_nul)
			return unreadable(info, "line %ld: binary data", lineno);
		return unreadable(info, "line %ld: not a JSON object (the file is damaged)", lineno);
	}
	return ret;
}

/* A file too big to scan: look only at its last line. */
static int scan_tail(struct bt_session_info *info, FILE *f, struct tally *t)
{
	char *buf = malloc(TAIL_MAX + 1), *start;
	size_t n, end;
	long off = info->size > TAIL_MAX ? (long)(info->size - TAIL_MAX) : 0;

	if (buf == NULL)
		return -ENOMEM;
	if (fseek(f, off, SEEK_SET) < 0) {
		free(buf);
		return -errno;
	}
	n = fread(buf, 1, TAIL_MAX, f);
	buf[n] = '\0';
	end = n;
	if (end > 0 && buf[end - 1] != '\n') {
		/* The last line has no newline: torn unless it parses. */
		char *p = memrchr(buf, '\n', end);
		size_t from = p ? (size_t)(p - buf) + 1 : 0;
		json_t *o = json_loadb(buf + from, end - from, 0, NULL);

		if (o != NULL) {
			json_decref(o);
			take_line(info, t, buf + from, end - from);
			goto out;
		}
		info->torn = 1;
		end = from;
	}
	while (end > 0 && (buf[end - 1] == '\n' || buf[end - 1] == '\r'))
		end--;
	buf[end] = '\0';
	start = memrchr(buf, '\n', end);
	start = start ? start + 1 : buf;
	take_line(info, t, start, (size_t)(buf + end - start));
out:
	free(buf);
	info->cells_done = -1;
	return 0;
}

int bt_sessions_probe(const char *path, struct bt_session_info *info)
{
	struct scan s = { 0 };
	struct tally t = { 0 };
	struct stat st;
	struct bt_err err = { "" };
	FILE *f;
	int ret;

	memset(info, 0, sizeof(*info));
	snprintf(info->path, sizeof(info->path), "%s", path);
	snprintf(info->name, sizeof(info->name), "%s",
		 strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	info->cells_done = -1;
	/* Non-blocking open and a type check: a FIFO here must not hang the listing. */
	ret = bt_file_open_read(path, 0, &f, &st, &err);
	if (ret < 0) {
		size_t pl = strlen(path);

		unreadable(info, "%s", strncmp(err.msg, path, pl) == 0 && err.msg[pl] == ':' ?
			   err.msg + pl + 2 : err.msg);
		return ret;
	}
	info->size = (uint64_t)st.st_size;
	info->start_unix_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
			      (uint64_t)st.st_mtim.tv_nsec;
	if (st.st_size == 0) {
		ret = unreadable(info, "empty file, not a benchtop recording");
		goto out;
	}
	s.f = f;
	ret = next_line(&s, HEADER_MAX);
	if (ret < 0) {
		unreadable(info, "%s", strerror(-ret));
		goto out;
	}
	ret = read_header(info, &s, &t.reps);
	if (ret < 0)
		goto out;
	if (info->ncells > 0) {
		t.counted = calloc((size_t)info->ncells, sizeof(*t.counted));
		t.any = calloc((size_t)info->ncells, 1);
		t.failed = calloc((size_t)info->ncells, 1);
		if (t.counted == NULL || t.any == NULL || t.failed == NULL) {
			ret = unreadable(info, "out of memory");
			goto out;
		}
	}
	if (st.st_size > BT_SESSIONS_SCAN_MAX)
		ret = scan_tail(info, f, &t);
	else
		ret = scan_body(info, &s, &t);
	if (ret < 0) {
		if (info->readable == 0 && strcmp(info->status, "unreadable") != 0)
			unreadable(info, "%s", strerror(-ret));
		goto out;
	}
	info->readable = 1;
	if (st.st_size <= BT_SESSIONS_SCAN_MAX) {
		info->cells_done = 0;
		/* As bt_results_summarize_cell: done when the counted reps reach the plan. */
		for (int c = 0; c < info->ncells; c++) {
			info->cells_done += t.any[c] && t.counted[c] >= t.reps[c];
			info->cells_failed += t.failed[c];
		}
	}
	if (!t.end_seen) {
		snprintf(info->status, sizeof(info->status), "interrupted");
		snprintf(info->error, sizeof(info->error),
			 "recording ends without an end line (the run was killed or crashed)");
	} else if (info->torn) {
		snprintf(info->status, sizeof(info->status), "interrupted");
		if (info->error[0] == '\0')
			snprintf(info->error, sizeof(info->error),
				 "the last line of the recording is cut short");
	} else if (info->status[0] == '\0') {
		snprintf(info->status, sizeof(info->status), "complete");
	}
	ret = 0;
out:
	free(s.line);
	free(t.counted);
	free(t.any);
	free(t.failed);
	free(t.reps);
	fclose(f);
	return ret;
}

/* ---- the list ------------------------------------------------------------- */

static int newest_first(const void *pa, const void *pb)
{
	const struct bt_session_info *a = pa, *b = pb;

	if (a->start_unix_ns != b->start_unix_ns)
		return a->start_unix_ns > b->start_unix_ns ? -1 : 1;
	return -strcmp(a->name, b->name);
}

static int is_jsonl(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 6 && strcmp(name + n - 6, ".jsonl") == 0;
}

int bt_sessions_list(const char *dir, const char *workload, struct bt_session_info **out,
		     int *n, struct bt_err *err)
{
	struct bt_session_info *list = NULL;
	int len = 0, cap = 0, ret = 0;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	*n = 0;
	d = opendir(dir);
	if (d == NULL) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		return bt_err_set(err, ret, "%s: %s", dir, strerror(-ret));
	}
	while ((de = readdir(d)) != NULL) {
		char path[4096];
		struct stat st;

		if (!is_jsonl(de->d_name))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (stat(path, &st) < 0 || S_ISDIR(st.st_mode))
			continue;
		if (len == cap) {
			int ncap = cap ? cap * 2 : 32;
			struct bt_session_info *p = realloc(list, (size_t)ncap * sizeof(*list));

			if (p == NULL) {
				ret = bt_err_set(err, -ENOMEM, "out of memory");
				goto out;
			}
			list = p;
			cap = ncap;
		}
		bt_sessions_probe(path, &list[len]);
		if (workload != NULL &&
		    (!list[len].readable || strcmp(list[len].workload, workload) != 0))
			continue;
		len++;
	}
	qsort(list, (size_t)len, sizeof(*list), newest_first);
out:
	closedir(d);
	if (ret < 0) {
		free(list);
		return ret;
	}
	*out = list;
	*n = len;
	return 0;
}

/* ---- exports ------------------------------------------------------------- */



struct rep_ref {
	const struct bt_rep *r;
	int order;
};

static int by_cell_rep(const void *pa, const void *pb)
{
	const struct rep_ref *a = pa, *b = pb;

	if (a->r->cell != b->r->cell)
		return a->r->cell < b->r->cell ? -1 : 1;
	if (a->r->rep != b->r->rep)
		return a->r->rep < b->r->rep ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

int bt_sessions_export_csv(FILE *f, const struct bt_results *res)
{
	static const char *const cols[] = {
		"rep", "warmup", "ok", "verify", "ops", "bytes", "errors", "wall_s", "user_s",
		"sys_s", "vcsw", "ivcsw", "ops_s", "bytes_s", "lat_every", "p50_ns", "p90_ns",
		"p99_ns", "p999_ns", "max_ns", "mean_ns", "lat_count",
	};
	struct rep_ref *refs = calloc((size_t)res->nreps + 1, sizeof(*refs));

	if (refs == NULL)
		return -ENOMEM;
	for (int i = 0; i < res->nreps; i++) {
		refs[i].r = &res->reps[i];
		refs[i].order = i;
	}
	qsort(refs, (size_t)res->nreps, sizeof(*refs), by_cell_rep);

	bt_csv_str(f, "cell", 1);
	for (int a = 0; a < res->naxes && a < BT_RES_AXES; a++)
		bt_csv_str(f, res->axes[a], 0);
	for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++)
		bt_csv_str(f, cols[k], 0);
	for (int m = 0; m < res->nmetrics && m < BT_RES_METRICS; m++) {
		char stem[64];

		bt_csv_str(f, bt_results_metric_stem(&res->metrics[m], stem, sizeof(stem)), 0);
	}
	fputc('\n', f);
	for (int i = 0; i < res->nreps; i++) {
		const struct bt_rep *r = refs[i].r;
		const struct bt_cell *cell = &res->cells[r->cell];
		const struct bt_rep_lat *h = r->lat.count > 0 ? &r->lat : NULL;

		fprintf(f, "%d", r->cell);
		for (int a = 0; a < res->naxes && a < BT_RES_AXES; a++)
			bt_csv_str(f, cell->values[a], 0);
		const double times[] = { r->wall_s, r->user_s, r->sys_s, r->vcsw, r->ivcsw, r->ops_s,
					 r->bytes_s };

		fprintf(f, ",%d,%d,%d", r->rep, r->warmup ? 1 : 0, r->ok ? 1 : 0);
		bt_csv_str(f, r->verify, 0);
		bt_csv_u64(f, r->ops, 1);
		bt_csv_u64(f, r->bytes, 1);
		bt_csv_u64(f, r->errors, 1);
		bt_csv_nums(f, times, sizeof(times) / sizeof(times[0]));
		bt_csv_u64(f, r->lat_every, 1);
		/* The latency fields, empty when latency was off. */
		bt_csv_u64(f, h ? h->p50 : 0, h != NULL);
		bt_csv_u64(f, h ? h->p90 : 0, h != NULL);
		bt_csv_u64(f, h ? h->p99 : 0, h != NULL);
		bt_csv_u64(f, h ? h->p999 : 0, h != NULL);
		bt_csv_u64(f, h ? h->max : 0, h != NULL);
		bt_csv_num(f, h ? h->mean : NAN);
		bt_csv_u64(f, h ? h->count : 0, h != NULL);
		/* Each metric as shown: a ratio derived, a time per event; empty when it has no value. */
		for (int m = 0; m < res->nmetrics && m < BT_RES_METRICS; m++)
			bt_csv_num(f, bt_results_metric_rep(res, r, m));
		fputc('\n', f);
	}
	free(refs);
	return ferror(f) ? -EIO : 0;
}

void bt_sessions_hgrm_name(const struct bt_results *res, int c, char *buf, size_t n)
{
	const char *label = c >= 0 && c < res->ncells ? res->cells[c].label : "";
	char clean[101];
	size_t k = 0;

	for (const char *p = label; *p && k + 1 < sizeof(clean); p++) {
		char ch = *p;
		int ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
			 (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';

		clean[k++] = ok ? ch : '_';
	}
	clean[k] = '\0';
	snprintf(buf, n, "cell-%d-%s.hgrm", c, k ? clean : "all");
}

/* mkdir -p dir; then dir must be a directory (not a file or a link to one that was there). */
static int make_dirs(const char *dir, struct bt_err *err)
{
	struct stat st;
	char tmp[4096];
	size_t len = strlen(dir);

	if (len == 0 || len >= sizeof(tmp))
		return bt_err_set(err, -ENAMETOOLONG, "%s: bad directory name", dir);
	memcpy(tmp, dir, len + 1);
	for (char *p = tmp + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		{
			char save = *p;

			*p = '\0';
			if (mkdir(tmp, 0755) < 0 && errno != EEXIST) {
				int e = errno;

				return bt_err_set(err, -e, "cannot create directory %s: %s", tmp,
						  strerror(e));
			}
			*p = save;
		}
		if (*p == '\0')
			break;
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return bt_err_set(err, -ENOTDIR, "%s: not a directory", dir);
	return 0;
}

/*
 * One .hgrm per cell that has latencies, DIR/PREFIXcell-N-label.hgrm, each
 * created exclusively or replacing a regular file by rename (no symlink
 * followed). Returns how many were written, or negative errno with err set.
 */
static int write_hgrm_cells(const struct bt_results *res, const char *dir, const char *prefix,
			    void (*cb)(const char *path, void *arg), void *arg, struct bt_err *err)
{
	int written = 0, ret;

	for (int c = 0; c < res->ncells; c++) {
		const struct bt_hist *h = res->cells[c].hist;
		char name[160], path[4096];
		struct bt_file_out fo;

		if (h == NULL || h->total == 0)
			continue;
		bt_sessions_hgrm_name(res, c, name, sizeof(name));
		if (snprintf(path, sizeof(path), "%s/%s%s", dir, prefix, name) >= (int)sizeof(path))
			return bt_err_set(err, -ENAMETOOLONG, "%s/%s%s: path too long", dir, prefix, name);
		ret = bt_file_out_open(&fo, path, err);
		if (ret < 0)
			return ret;
		ret = bt_hist_write_hgrm(h, fo.f, 1000.0, 5);
		if (ret < 0) {
			bt_file_out_abort(&fo);
			return bt_err_set(err, ret, "cannot write %s: %s", path, strerror(-ret));
		}
		ret = bt_file_out_commit(&fo, err);
		if (ret < 0)
			return ret;
		written++;
		if (cb != NULL)
			cb(path, arg);
	}
	return written;
}

int bt_sessions_export_hgrm(const struct bt_results *res, const char *dir,
			    void (*cb)(const char *path, void *arg), void *arg, struct bt_err *err)
{
	int ret;

	ret = make_dirs(dir, err);
	if (ret < 0)
		return ret;
	return write_hgrm_cells(res, dir, "", cb, arg, err);
}

void bt_sessions_write_header(FILE *f, const struct bt_results *res, enum bt_format fmt,
			      const char *origin)
{
	const char *lead = fmt == BT_FMT_MARKDOWN ? "" : "# ";
	const struct bt_sysinfo *m = &res->machine;
	char when[32], check[256];

	if (fmt != BT_FMT_TEXT && fmt != BT_FMT_MARKDOWN)
		return;
	bt_format_utc(res->start_unix_ns, when, sizeof(when));
	fprintf(f, "%s%s on %s: %s, %d CPUs (%d cores x %d), governor %s; %s; benchtop %s; %s\n",
		lead, res->workload, m->host, m->cpu_model, m->allowed_cpus, m->physical_cores,
		m->smt, m->governor, m->kernel, res->version, when);
	fprintf(f, "%scpu flags: %s; %s; %s; timer read %.1f ns\n", lead,
		m->cpu_flags[0] ? m->cpu_flags : "-", m->compiler, m->openssl, res->timer_cost_ns);
	bt_machine_summary(m, res->timer_cost_ns, check, sizeof(check));
	fprintf(f, "%smachine check: %s (benchtop doctor)\n", lead, check);
	if (origin != NULL)
		fprintf(f, "%srecording: %s\n", lead, origin);
	if (res->explore) {
		/* What changed when: the segments below are the stretches between. */
		fprintf(f, "%sexplore: %d segment%s", lead, res->ncells, res->ncells == 1 ? "" : "s");
		for (int i = 0; i < res->nchanges; i++)
			fprintf(f, "%s %.1fs %s=%s", i ? "," : "; changes:", res->changes[i].t,
				res->changes[i].key, res->changes[i].value);
		fputc('\n', f);
	}
	fputc('\n', f);
}

void bt_sessions_export_base(const char *path, const char *workload, char *buf, size_t n)
{
	const char *slash = path != NULL ? strrchr(path, '/') : NULL;
	const char *name = slash != NULL ? slash + 1 : path;
	size_t len;

	if (name == NULL || name[0] == '\0') {
		snprintf(buf, n, "benchtop-%s", workload);
		return;
	}
	snprintf(buf, n, "%s", name);
	len = strlen(buf);
	if (len > 6 && !strcmp(buf + len - 6, ".jsonl"))
		buf[len - 6] = '\0';
}

/* One file of the set: write(f, res) through bt_file_out, then cb. */
static int export_one(const char *path, const struct bt_results *res, int kind,
		      void (*cb)(const char *path, void *arg), void *arg, struct bt_err *err)
{
	struct bt_file_out fo;
	int ret;

	ret = bt_file_out_open(&fo, path, err);
	if (ret < 0)
		return ret;
	if (kind == 'm') {
		bt_sessions_write_header(fo.f, res, BT_FMT_MARKDOWN, NULL);
		ret = bt_report_write(fo.f, res, BT_FMT_MARKDOWN);
	} else if (kind == 'j') {
		ret = bt_report_write(fo.f, res, BT_FMT_JSON);
	} else {
		ret = bt_sessions_export_csv(fo.f, res);
	}
	if (ret < 0) {
		bt_file_out_abort(&fo);
		return bt_err_set(err, ret, "cannot write %s: %s", path, strerror(-ret));
	}
	ret = bt_file_out_commit(&fo, err);
	if (ret < 0)
		return ret;
	if (cb != NULL)
		cb(path, arg);
	return 0;
}

int bt_sessions_export_set(const struct bt_results *res, const char *dir, const char *base,
			   void (*cb)(const char *path, void *arg), void *arg, struct bt_err *err)
{
	static const struct { const char *ext; int kind; } tables[] = {
		{ "md", 'm' }, { "csv", 'c' }, { "json", 'j' },
	};
	char path[4096];
	char prefix[300];
	int ret;

	ret = make_dirs(dir, err);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		if (snprintf(path, sizeof(path), "%s/%s.%s", dir, base, tables[i].ext) >= (int)sizeof(path))
			return bt_err_set(err, -ENAMETOOLONG, "%s/%s: path too long", dir, base);
		ret = export_one(path, res, tables[i].kind, cb, arg, err);
		if (ret < 0)
			return ret;
	}
	snprintf(prefix, sizeof(prefix), "%s-", base);
	return write_hgrm_cells(res, dir, prefix, cb, arg, err);
}
