/*
 * cmd_sessions.c - `benchtop sessions`: the recorded sessions, newest first:
 * time, workload, plan (axes, then fixed values), cells done / total, status,
 * host, file. Files that
 * are not readable recordings are listed as "unreadable: <why>", never
 * fatal. The summaries come from report/sessions.h (cheap: no file is read
 * whole unless it is small).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "core/clock.h"
#include "core/recording.h"
#include "report/sessions.h"

struct opts {
	const char *workload;
	const char *dir;
	int json;
};

/* "--opt VALUE" or "--opt=VALUE": the value, or NULL when this is not opt. */
static const char *opt_value(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);

	if (strncmp(argv[*i], opt, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		bt_cli_error("%s needs a value", opt);
		return "";
	}
	return argv[++*i];
}

static int parse(int argc, char **argv, struct opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *v;

		if ((v = opt_value(argc, argv, &i, "--workload")) != NULL) {
			if (!v[0])
				return -1;
			o->workload = v;
		} else if ((v = opt_value(argc, argv, &i, "--dir")) != NULL) {
			if (!v[0])
				return -1;
			o->dir = v;
		} else if ((v = opt_value(argc, argv, &i, "--format")) != NULL) {
			if (!strcmp(v, "json")) {
				o->json = 1;
			} else if (!strcmp(v, "text")) {
				o->json = 0;
			} else {
				if (v[0])
					bt_cli_error("--format=%s: must be text or json", v);
				return -1;
			}
		} else {
			bt_cli_error("sessions: unexpected argument %s (allowed: --workload NAME, --format text|json, --dir DIR)",
				     argv[i]);
			return -1;
		}
	}
	return 0;
}

static void cells_text(const struct bt_session_info *s, char *buf, size_t n)
{
	if (!s->readable)
		snprintf(buf, n, "-");
	else if (s->cells_done < 0)
		snprintf(buf, n, "?/%d", s->ncells);
	else
		snprintf(buf, n, "%d/%d", s->cells_done, s->ncells);
}

static void status_text(const struct bt_session_info *s, char *buf, size_t n)
{
	if (!s->readable)
		snprintf(buf, n, "unreadable: %s", s->error);
	else
		snprintf(buf, n, "%s", s->status);
}

static int col_width(const struct bt_session_info *list, int n, int col, const char *head)
{
	int w = (int)strlen(head);

	for (int i = 0; i < n; i++) {
		char buf[BT_ERR_MAX + 32];
		const struct bt_session_info *s = &list[i];

		switch (col) {
		case 0: snprintf(buf, sizeof(buf), "%s", s->readable ? s->workload : "-"); break;
		case 1: bt_sessions_plan_text(s, buf, sizeof(buf)); break;
		case 2: cells_text(s, buf, sizeof(buf)); break;
		case 3: snprintf(buf, sizeof(buf), "%s", s->readable ? s->status : "unreadable"); break;
		default: snprintf(buf, sizeof(buf), "%s", s->readable && s->host[0] ? s->host : "-"); break;
		}
		if ((int)strlen(buf) > w)
			w = (int)strlen(buf);
	}
	return w;
}

/* Aligned columns; the last two (status detail is in STATUS, FILE last) are not padded. */
static void print_text(const struct bt_session_info *list, int n, const char *dir,
		       const char *workload)
{
	int ww = col_width(list, n, 0, "WORKLOAD"), wa = col_width(list, n, 1, "PLAN");
	int wc = col_width(list, n, 2, "CELLS"), wh = col_width(list, n, 4, "HOST");
	int ws = col_width(list, n, 3, "STATUS");

	if (n == 0) {
		printf("no recorded sessions%s%s in %s\n", workload ? " of " : "",
		       workload ? workload : "", dir);
		return;
	}
	printf("%-20s  %-*s  %-*s  %*s  %-*s  %-*s  %s\n", "TIME", ww, "WORKLOAD", wa, "PLAN", wc,
	       "CELLS", ws, "STATUS", wh, "HOST", "FILE");
	for (int i = 0; i < n; i++) {
		const struct bt_session_info *s = &list[i];
		char when[32], cells[32], status[BT_ERR_MAX + 32], plan[520];

		bt_format_utc(s->start_unix_ns, when, sizeof(when));
		bt_sessions_plan_text(s, plan, sizeof(plan));
		cells_text(s, cells, sizeof(cells));
		status_text(s, status, sizeof(status));
		if (!s->readable) {
			/* The reason may be long: it goes last, after the file. */
			printf("%-20s  %-*s  %-*s  %*s  %-*s  %-*s  %s  (%s)\n", when, ww, "-", wa, "-",
			       wc, cells, ws, "unreadable", wh, "-", s->name, s->error);
			continue;
		}
		printf("%-20s  %-*s  %-*s  %*s  %-*s  %-*s  %s\n", when, ww, s->workload, wa,
		       plan, wc, cells, ws, status, wh,
		       s->host[0] ? s->host : "-", s->name);
	}
}

/* A JSON string that never fails on bad UTF-8 (odd file names): such bytes become '?'. */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j != NULL)
		return j;
	copy = strdup(s);
	if (copy == NULL)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

static int print_json(const struct bt_session_info *list, int n)
{
	json_t *arr = json_array();
	int rc = 0;

	if (arr == NULL)
		return -ENOMEM;
	for (int i = 0; i < n && rc == 0; i++) {
		const struct bt_session_info *s = &list[i];
		char when[32], status[BT_ERR_MAX + 32];
		json_t *o;

		bt_format_utc(s->start_unix_ns, when, sizeof(when));
		status_text(s, status, sizeof(status));
		o = json_pack("{s:o, s:o, s:s, s:I, s:o, s:o, s:o, s:o, s:i, s:o, s:i, s:o, s:o, s:b, s:o, s:I}",
			      "path", jstr(s->path), "file", jstr(s->name), "time", when,
			      "start_unix_ns", (json_int_t)s->start_unix_ns,
			      "workload", jstr(s->workload), "host", jstr(s->host), "axes", jstr(s->axes),
			      "fixed", jstr(s->fixed), "cells", s->ncells,
			      "cells_done", s->cells_done >= 0 ? json_integer(s->cells_done) : json_null(),
			      "cells_failed", s->cells_failed, "status", jstr(s->readable ? s->status : status),
			      "error", jstr(s->error), "readable", s->readable, "version", jstr(s->version),
			      "size", (json_int_t)s->size);
		if (o != NULL && s->explore && json_object_set_new(o, "explore", json_true()) < 0)
			rc = -ENOMEM;
		if (o == NULL || json_array_append_new(arr, o) < 0)
			rc = -ENOMEM;
	}
	if (rc == 0 && (json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0 ||
			fputc('\n', stdout) == EOF))
		rc = -EIO;
	json_decref(arr);
	return rc;
}

int bt_cmd_sessions(int argc, char **argv)
{
	struct opts o = { 0 };
	struct bt_session_info *list = NULL;
	struct bt_err err = { "" };
	char dir[4096];
	int n = 0;

	if (parse(argc, argv, &o) < 0)
		return BT_EXIT_USAGE;
	if (o.dir != NULL) {
		snprintf(dir, sizeof(dir), "%s", o.dir);
	} else if (bt_rec_default_dir(dir, sizeof(dir)) < 0) {
		bt_cli_error("cannot find the sessions directory (set XDG_STATE_HOME or HOME, or use --dir DIR)");
		return BT_EXIT_FAILED;
	}
	if (bt_sessions_list(dir, o.workload, &list, &n, &err) < 0) {
		bt_cli_error("%s", err.msg);
		return BT_EXIT_FAILED;
	}
	if (o.json) {
		if (print_json(list, n) < 0) {
			free(list);
			bt_cli_error("cannot write the list");
			return BT_EXIT_FAILED;
		}
	} else {
		print_text(list, n, dir, o.workload);
	}
	free(list);
	return BT_EXIT_OK;
}
