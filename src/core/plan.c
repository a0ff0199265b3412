/*
 * plan.c - parameter values of a run, sweep axes, cells, plan files.
 *
 * Every change to a plan is all-or-nothing: bt_plan_set parses and checks
 * the new values before it replaces the old ones, and bt_plan_apply_json
 * works on a copy that replaces the plan only when the whole file applied.
 *
 * Plan file details beyond plan.h:
 *   - bt_plan_to_json writes INT values as JSON integers, BOOL values as
 *     true/false and everything else as canonical strings; a sweep is an
 *     array. The reader accepts any of these for any kind (a number becomes
 *     its decimal text, true/false become on/off).
 *   - A JSON string is one value, never split on commas: a sweep is written
 *     as an array. This keeps string values with commas exact.
 *   - The writer adds "axes": ["threads", "lock"], the sweep order, so that
 *     loading a plan gives the same axes in the same order even though
 *     "params" is written in table order. It is optional on input; names
 *     in it that are not swept are ignored. The row axis (BT_PF_ROWS) is
 *     first in it and stays first on input whatever the list says.
 */
#include "core/plan.h"
#include "core/file.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define PLAN_VERSION 1
#define PLAN_FILE_MAX (16 << 20)	/* a plan is a few KB; refuse anything huge */

void bt_plan_destroy(struct bt_plan *pl)
{
	int i;

	for (i = 0; i < pl->nparams; i++)
		free(pl->vals[i]);
	memset(pl, 0, sizeof(*pl));
}

int bt_plan_init(struct bt_plan *pl, const char *workload,
		 const struct bt_param *common, size_t ncommon,
		 const struct bt_param *wl, size_t nwl, struct bt_err *err)
{
	const struct bt_param *p;
	size_t i;
	int rc, j;

	memset(pl, 0, sizeof(*pl));
	pl->ncells = 1;
	if (strlen(workload) >= sizeof(pl->workload))
		return bt_err_set(err, -EINVAL, "%.64s...: workload name too long", workload);
	snprintf(pl->workload, sizeof(pl->workload), "%s", workload);
	if (ncommon + nwl > BT_PLAN_MAX_PARAMS)
		return bt_err_set(err, -EINVAL, "%s: %zu parameters (at most %d)", workload,
				  ncommon + nwl, BT_PLAN_MAX_PARAMS);

	for (i = 0; i < ncommon + nwl; i++) {
		p = i < ncommon ? &common[i] : &wl[i - ncommon];
		for (j = 0; j < pl->nparams; j++) {
			if (strcmp(pl->params[j]->name, p->name) == 0) {
				rc = bt_err_set(err, -EINVAL, "%s: parameter %s is declared twice",
						workload, p->name);
				goto fail;
			}
		}
		pl->vals[pl->nparams] = calloc(1, sizeof(struct bt_value));
		if (pl->vals[pl->nparams] == NULL) {
			rc = bt_err_set(err, -ENOMEM, "out of memory");
			goto fail;
		}
		pl->params[pl->nparams] = p;
		pl->nvals[pl->nparams] = 1;
		pl->nparams++;
		rc = bt_param_parse(p, p->def ? p->def : "", pl->vals[pl->nparams - 1], err);
		if (rc) {
			bt_err_prefix(err, "%s: bad default", workload);
			goto fail;
		}
	}
	return 0;
fail:
	bt_plan_destroy(pl);
	return rc;
}

int bt_plan_index(const struct bt_plan *pl, const char *name)
{
	int i;

	for (i = 0; i < pl->nparams; i++) {
		if (strcmp(pl->params[i]->name, name) == 0)
			return i;
	}
	return -1;
}

int bt_plan_find_flag(const struct bt_plan *pl, unsigned flag)
{
	int i;

	for (i = 0; i < pl->nparams; i++) {
		if (pl->params[i]->flags & flag)
			return i;
	}
	return -1;
}

/*
 * The sweep order from the order the axes were given: the same, except that
 * the axis named rows (when it is one) moves to the front.
 */
static void order_axes(const struct bt_plan *pl, const int *given, int naxes, const char *rows,
		       int *axes)
{
	int a, t;

	memcpy(axes, given, (size_t)naxes * sizeof(*axes));
	for (a = 1; rows != NULL && rows[0] && a < naxes; a++) {
		if (strcmp(pl->params[axes[a]]->name, rows) == 0) {
			t = axes[a];
			memmove(axes + 1, axes, (size_t)a * sizeof(*axes));
			axes[0] = t;
			return;
		}
	}
}

/* The value of the BT_PF_ROWS parameter: the name of the row axis, or NULL. */
static const char *rows_name(const struct bt_plan *pl)
{
	int r = bt_plan_find_flag(pl, BT_PF_ROWS);

	return r >= 0 ? pl->vals[r][0].text : NULL;
}

int bt_plan_check(const struct bt_plan *pl, struct bt_err *err)
{
	int r = bt_plan_find_flag(pl, BT_PF_ROWS);
	const char *rows = r >= 0 ? pl->vals[r][0].text : "";
	char list[256] = "";
	size_t len = 0;
	int a, w;

	/* The row axis, when swept, is first (order_axes). */
	if (rows[0] == '\0' || (pl->naxes > 0 && strcmp(pl->params[pl->axes[0]]->name, rows) == 0))
		return 0;
	for (a = 0; a < pl->naxes && len < sizeof(list); a++) {
		w = snprintf(list + len, sizeof(list) - len, "%s%s", a ? ", " : "",
			     pl->params[pl->axes[a]]->name);
		if (w > 0)
			len += (size_t)w;
	}
	return bt_err_set(err, -EINVAL, "%s=%s: %s is not swept (%s%s)", pl->params[r]->name,
			  rows, rows, pl->naxes ? "swept: " : "nothing is swept", list);
}

/* Text shown for a value in messages: cut so the explanation still fits. */
static const char *cut(const char *text, char *buf, size_t n)
{
	if (strlen(text) < 64 || n < 68)
		return text;
	snprintf(buf, n, "%.64s...", text);
	return buf;
}

/*
 * Replace the values of parameter idx by texts[0..n-1] (n >= 1). shown_full
 * is the whole value as the user gave it, quoted (cut) in messages. Checks
 * NOSWEEP, the value/axis/cell limits and duplicates, and keeps the axis
 * order rule. The plan is changed only on success.
 */
static int set_values(struct bt_plan *pl, int idx, char *const *texts, int n,
		      const char *shown_full, struct bt_err *err)
{
	const struct bt_param *p = pl->params[idx];
	struct bt_value *v = NULL;
	int axes[BT_PLAN_MAX_AXES + 1], given[BT_PLAN_MAX_AXES + 1];
	int naxes = 0, a, i, j, rc;
	int64_t cells = 1;
	char sbuf[80];
	const char *shown = cut(shown_full, sbuf, sizeof(sbuf));

	if (n > 1 && (p->flags & BT_PF_NOSWEEP))
		return bt_err_set(err, -EINVAL, "%s=%s: %s takes one value", p->name, shown,
				  p->name);
	if (n > BT_PLAN_MAX_VALUES)
		return bt_err_set(err, -EINVAL, "%s=%s: %d values (at most %d)", p->name, shown,
				  n, BT_PLAN_MAX_VALUES);
	v = calloc((size_t)n, sizeof(*v));
	if (v == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		rc = bt_param_parse(p, texts[i], &v[i], err);
		if (rc)
			goto fail;
		for (j = 0; j < i; j++) {
			if (strcmp(v[j].text, v[i].text) == 0) {
				rc = bt_err_set(err, -EINVAL, "%s=%s: %s is given twice", p->name,
						shown, v[i].text);
				goto fail;
			}
		}
	}

	if ((p->flags & BT_PF_ROWS) && v[0].text[0] && bt_plan_index(pl, v[0].text) < 0) {
		/*
		 * rows= names the axis that makes the table's rows; a count given
		 * there was meant for a workload's own row count (sql's nrows=).
		 */
		if (strspn(v[0].text, "0123456789") == strlen(v[0].text) && bt_plan_index(pl, "nrows") >= 0)
			rc = bt_err_set(err, -EINVAL,
					"%s=%s: rows= names the axis that makes the table's rows; "
					"%s's row count is nrows= (nrows=%s)",
					p->name, shown, pl->workload, shown);
		else
			rc = bt_err_set(err, -EINVAL,
					"%s=%s: %s has no parameter %s (see benchtop list %s)",
					p->name, shown, pl->workload, shown, pl->workload);
		goto fail;
	}
	/* The axes as given: keep the position of an existing axis, append a new one. */
	for (a = 0; a < pl->naxes; a++) {
		if (pl->given[a] != idx || n > 1)
			given[naxes++] = pl->given[a];
	}
	if (n > 1 && pl->nvals[idx] == 1) {
		if (naxes == BT_PLAN_MAX_AXES) {
			rc = bt_err_set(err, -EINVAL,
					"%s=%s: too many swept parameters (at most %d)",
					p->name, shown, BT_PLAN_MAX_AXES);
			goto fail;
		}
		given[naxes++] = idx;
	}
	order_axes(pl, given, naxes, (p->flags & BT_PF_ROWS) ? v[0].text : rows_name(pl), axes);
	for (a = 0; a < naxes; a++)
		cells *= axes[a] == idx ? n : pl->nvals[axes[a]];
	if (cells > BT_PLAN_MAX_CELLS) {
		rc = bt_err_set(err, -EINVAL, "%s=%s: the sweep would have %lld cells (at most %d)",
				p->name, shown, (long long)cells, BT_PLAN_MAX_CELLS);
		goto fail;
	}

	free(pl->vals[idx]);
	pl->vals[idx] = v;
	pl->nvals[idx] = n;
	memcpy(pl->axes, axes, sizeof(pl->axes));
	memcpy(pl->given, given, sizeof(pl->given));
	pl->naxes = naxes;
	pl->ncells = (int)cells;
	return 0;
fail:
	free(v);
	return rc;
}

int bt_plan_set(struct bt_plan *pl, const char *key, const char *text, struct bt_err *err)
{
	char sbuf[80], *empty = (char *)"";
	char **tok = NULL;
	int idx, n, rc;

	idx = bt_plan_index(pl, key);
	if (idx < 0)
		return bt_err_set(err, -EINVAL,
				  "%s: unknown parameter of %s (see benchtop list %s)",
				  cut(key, sbuf, sizeof(sbuf)), pl->workload, pl->workload);
	/* An empty STRING is a value (e.g. to clear it), not an empty sweep. */
	if (text[0] == '\0' && pl->params[idx]->kind == BT_P_STRING)
		return set_values(pl, idx, &empty, 1, text, err);
	n = bt_param_split(text, &tok);
	if (n == -ENOMEM)
		return bt_err_set(err, -ENOMEM, "out of memory");
	if (n < 0)
		return bt_err_set(err, -EINVAL, "%s=%s: empty value", key,
				  cut(text, sbuf, sizeof(sbuf)));
	rc = set_values(pl, idx, tok, n, text, err);
	bt_param_tokens_free(tok, n);
	return rc;
}

int bt_plan_set_arg(struct bt_plan *pl, const char *arg, struct bt_err *err)
{
	const char *eq = strchr(arg, '=');
	char sbuf[80], *key;
	int rc;

	if (eq == NULL)
		return bt_err_set(err, -EINVAL, "%s: missing '=' (expected key=value)",
				  cut(arg, sbuf, sizeof(sbuf)));
	if (eq == arg)
		return bt_err_set(err, -EINVAL, "%s: missing parameter name before '='",
				  cut(arg, sbuf, sizeof(sbuf)));
	key = strndup(arg, (size_t)(eq - arg));
	if (key == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	rc = bt_plan_set(pl, key, eq + 1, err);
	free(key);
	return rc;
}

void bt_plan_cell_coords(const struct bt_plan *pl, int c, int *idx)
{
	int a, n;

	for (a = pl->naxes - 1; a >= 0; a--) {
		n = pl->nvals[pl->axes[a]];
		idx[a] = c % n;
		c /= n;
	}
}

void bt_plan_cell(const struct bt_plan *pl, int c, const struct bt_value **out)
{
	int idx[BT_PLAN_MAX_AXES];
	int a, i;

	for (i = 0; i < pl->nparams; i++)
		out[i] = &pl->vals[i][0];
	bt_plan_cell_coords(pl, c, idx);
	for (a = 0; a < pl->naxes; a++)
		out[pl->axes[a]] = &pl->vals[pl->axes[a]][idx[a]];
}

void bt_plan_cell_label(const struct bt_plan *pl, int c, char *buf, size_t n)
{
	int idx[BT_PLAN_MAX_AXES];
	size_t len = 0;
	int a, w, i;

	if (n == 0)
		return;
	buf[0] = '\0';
	bt_plan_cell_coords(pl, c, idx);
	for (a = 0; a < pl->naxes && len < n; a++) {
		i = pl->axes[a];
		w = snprintf(buf + len, n - len, "%s%s=%s", a ? " " : "", pl->params[i]->name,
			     pl->vals[i][idx[a]].text);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

/* One value as JSON: INT as an integer, BOOL as true/false, the rest as text. */
static json_t *value_json(const struct bt_param *p, const struct bt_value *v)
{
	if (p->kind == BT_P_INT && p->zero_word != NULL && v->i == 0)
		return json_string(v->text);	/* "auto": 0 may be outside the range */
	if (p->kind == BT_P_INT)
		return json_integer(v->i);
	if (p->kind == BT_P_BOOL)
		return json_boolean(v->i);
	return json_string(v->text);
}

/* Build the JSON document; NULL on allocation failure or invalid UTF-8 text. */
void bt_plan_fixed(const struct bt_plan *pl, char *buf, size_t n)
{
	size_t o = 0;

	if (n == 0)
		return;
	buf[0] = '\0';
	for (int i = 0; i < pl->nparams; i++) {
		const struct bt_param *p = pl->params[i];
		const char *text = pl->vals[i][0].text;
		int k;

		if (pl->nvals[i] != 1 || (p->flags & BT_PF_NOSWEEP) || text[0] == '\0')
			continue;
		if ((p->flags & BT_PF_QUIET) && p->def != NULL && strcmp(text, p->def) == 0)
			continue;
		k = snprintf(buf + o, n - o, "%s%s=%s", o ? " " : "", p->name, text);
		if (k < 0 || (size_t)k >= n - o) {
			buf[o] = '\0';	/* no half value: what fits, whole */
			return;
		}
		o += (size_t)k;
	}
}

static json_t *plan_json(const struct bt_plan *pl)
{
	char fixed[1024];

	json_t *root, *params, *axes, *val;
	int i, j;

	root = json_object();
	params = json_object();
	axes = json_array();
	if (root == NULL || params == NULL || axes == NULL)
		goto fail;
	if (json_object_set_new(root, "benchtop_plan", json_integer(PLAN_VERSION)) ||
	    json_object_set_new(root, "workload", json_string(pl->workload)) ||
	    json_object_set(root, "axes", axes) ||
	    json_object_set(root, "params", params))
		goto fail;
	bt_plan_fixed(pl, fixed, sizeof(fixed));
	if (json_object_set_new(root, "fixed", json_string(fixed)))
		goto fail;
	for (i = 0; i < pl->naxes; i++) {
		if (json_array_append_new(axes, json_string(pl->params[pl->axes[i]]->name)))
			goto fail;
	}
	for (i = 0; i < pl->nparams; i++) {
		if (pl->nvals[i] == 1) {
			val = value_json(pl->params[i], &pl->vals[i][0]);
		} else {
			val = json_array();
			for (j = 0; val != NULL && j < pl->nvals[i]; j++) {
				if (json_array_append_new(val, value_json(pl->params[i],
									  &pl->vals[i][j]))) {
					json_decref(val);
					val = NULL;
				}
			}
		}
		if (json_object_set_new(params, pl->params[i]->name, val))
			goto fail;
	}
	json_decref(axes);
	json_decref(params);
	return root;
fail:
	json_decref(axes);
	json_decref(params);
	json_decref(root);
	return NULL;
}

char *bt_plan_to_json(const struct bt_plan *pl)
{
	json_t *root = plan_json(pl);
	char *s;

	if (root == NULL)
		return NULL;
	s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return s;
}

int bt_plan_save(const struct bt_plan *pl, const char *path, struct bt_err *err)
{
	char *s = bt_plan_to_json(pl);
	struct bt_file_out fo;
	int rc;

	if (s == NULL)
		return bt_err_set(err, -EINVAL, "%s: cannot encode the plan as JSON", path);
	/* Never truncating what it did not create: a new file, or a regular one replaced by rename. */
	rc = bt_file_out_open(&fo, path, err);
	if (rc < 0)
		goto out;
	if (fputs(s, fo.f) == EOF || fputc('\n', fo.f) == EOF) {
		rc = errno ? -errno : -EIO;
		bt_file_out_abort(&fo);
		bt_err_set(err, rc, "%s: cannot write: %s", path, strerror(-rc));
		goto out;
	}
	rc = bt_file_out_commit(&fo, err);
out:
	free(s);
	return rc;
}

/*
 * Read a whole file into a malloc'd, NUL-terminated buffer. Errors name the
 * file and say why (strerror).
 */
static int read_file(const char *path, char **out, size_t *outlen, struct bt_err *err)
{
	size_t len = 0, cap = 4096, got;
	char *buf, *nb;
	FILE *f;
	int rc;

	*out = NULL;
	/* Non-blocking and type-checked: a FIFO or a device as a plan must not hang start-up. */
	rc = bt_file_open_read(path, PLAN_FILE_MAX, &f, NULL, err);
	if (rc == -ENOENT || rc == -EACCES)
		return bt_err_set(err, rc, "%s: cannot open: %s", path, strerror(-rc));
	if (rc < 0)
		return rc;
	buf = malloc(cap);
	if (buf == NULL) {
		fclose(f);
		return bt_err_set(err, -ENOMEM, "out of memory");
	}
	for (;;) {
		if (len + 1 == cap) {
			if (cap >= PLAN_FILE_MAX) {
				rc = bt_err_set(err, -EFBIG, "%s: too large for a plan", path);
				goto fail;
			}
			nb = realloc(buf, cap * 2);
			if (nb == NULL) {
				rc = bt_err_set(err, -ENOMEM, "out of memory");
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		got = fread(buf + len, 1, cap - 1 - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		rc = errno ? -errno : -EIO;
		bt_err_set(err, rc, "%s: cannot read: %s", path, strerror(-rc));
		goto fail;
	}
	fclose(f);
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
fail:
	fclose(f);
	free(buf);
	return rc;
}

static const char *json_type_name(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a bool";
	case JSON_NULL:
		return "null";
	}
	return "?";
}

/*
 * Parse a plan document and check its envelope: an object with a supported
 * "benchtop_plan" version and a "workload" string. On success *rootp holds
 * the document (caller decrefs) and *workload points into it.
 */
static int plan_parse(const char *text, size_t len, const char *origin, json_t **rootp,
		      const char **workload, struct bt_err *err)
{
	json_error_t jerr;
	json_t *root, *ver, *wl;
	json_int_t v;

	*rootp = NULL;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL)
		return bt_err_set(err, -EINVAL, "%s:%d:%d: %s", origin, jerr.line, jerr.column,
				  jerr.text);
	if (!json_is_object(root)) {
		bt_err_set(err, -EINVAL, "%s: a plan must be a JSON object, not %s", origin,
			   json_type_name(root));
		goto fail;
	}
	ver = json_object_get(root, "benchtop_plan");
	if (ver == NULL) {
		bt_err_set(err, -EINVAL, "%s: not a benchtop plan (no \"benchtop_plan\" version)",
			   origin);
		goto fail;
	}
	if (!json_is_integer(ver) || json_integer_value(ver) < 1) {
		bt_err_set(err, -EINVAL, "%s: \"benchtop_plan\" must be a version number >= 1",
			   origin);
		goto fail;
	}
	v = json_integer_value(ver);
	if (v > PLAN_VERSION) {
		bt_err_set(err, -EINVAL, "%s: plan version %" JSON_INTEGER_FORMAT
			   " is newer than this benchtop (%d)", origin, v, PLAN_VERSION);
		goto fail;
	}
	wl = json_object_get(root, "workload");
	if (wl == NULL) {
		bt_err_set(err, -EINVAL, "%s: \"workload\" is missing", origin);
		goto fail;
	}
	if (!json_is_string(wl)) {
		bt_err_set(err, -EINVAL, "%s: \"workload\" must be a string, not %s", origin,
			   json_type_name(wl));
		goto fail;
	}
	*workload = json_string_value(wl);
	*rootp = root;
	return 0;
fail:
	json_decref(root);
	return -EINVAL;
}

int bt_plan_file_workload(const char *path, char *workload, size_t n, struct bt_err *err)
{
	const char *wl;
	json_t *root;
	size_t len;
	char *text;
	int rc;

	rc = read_file(path, &text, &len, err);
	if (rc)
		return rc;
	rc = plan_parse(text, len, path, &root, &wl, err);
	free(text);
	if (rc)
		return rc;
	if (strlen(wl) >= n)
		rc = bt_err_set(err, -EINVAL, "%s: workload name too long", path);
	else
		snprintf(workload, n, "%s", wl);
	json_decref(root);
	return rc;
}

/*
 * A JSON scalar as the text the user would have typed: integers in decimal,
 * reals in the shortest form that reads back the same ("4" for 4.0), bools
 * as on/off. NULL for other types.
 */
static const char *scalar_text(const json_t *j, char *buf, size_t n)
{
	double d;
	int prec;

	switch (json_typeof(j)) {
	case JSON_STRING:
		return json_string_value(j);
	case JSON_INTEGER:
		snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
		return buf;
	case JSON_REAL:
		d = json_real_value(j);
		for (prec = 1; prec <= 17; prec++) {
			snprintf(buf, n, "%.*g", prec, d);
			if (strtod(buf, NULL) == d)
				break;
		}
		return buf;
	case JSON_TRUE:
		return "on";
	case JSON_FALSE:
		return "off";
	default:
		return NULL;
	}
}

/* Set one parameter from its JSON value (scalar or array of scalars). */
static int apply_value(struct bt_plan *pl, const char *key, const json_t *val,
		       struct bt_err *err)
{
	char bufs[BT_PLAN_MAX_VALUES][32];
	char *texts[BT_PLAN_MAX_VALUES];
	char shown[256], sbuf[80];
	size_t n, i, len = 0;
	const json_t *el;
	int idx;

	idx = bt_plan_index(pl, key);
	if (idx < 0)
		return bt_err_set(err, -EINVAL,
				  "%s: unknown parameter of %s (see benchtop list %s)",
				  cut(key, sbuf, sizeof(sbuf)), pl->workload, pl->workload);
	if (!json_is_array(val)) {
		texts[0] = (char *)scalar_text(val, bufs[0], sizeof(bufs[0]));
		if (texts[0] == NULL)
			return bt_err_set(err, -EINVAL,
					  "%s: must be a string, number, bool or array, not %s",
					  key, json_type_name(val));
		return set_values(pl, idx, texts, 1, texts[0], err);
	}
	n = json_array_size(val);
	if (n == 0)
		return bt_err_set(err, -EINVAL, "%s: an empty array has no value", key);
	if (n > BT_PLAN_MAX_VALUES)
		return bt_err_set(err, -EINVAL, "%s: %zu values (at most %d)", key, n,
				  BT_PLAN_MAX_VALUES);
	shown[0] = '\0';
	json_array_foreach(val, i, el) {
		texts[i] = (char *)scalar_text(el, bufs[i], sizeof(bufs[i]));
		if (texts[i] == NULL)
			return bt_err_set(err, -EINVAL,
					  "%s: values of a sweep must be strings, numbers or bools, not %s",
					  key, json_type_name(el));
		if (len < sizeof(shown)) {
			int w = snprintf(shown + len, sizeof(shown) - len, "%s%s", i ? "," : "",
					 texts[i]);

			if (w > 0)
				len += (size_t)w;
		}
	}
	return set_values(pl, idx, texts, (int)n, shown, err);
}

/*
 * Reorder the axes by the optional "axes" list: listed axes first, in that
 * order, then the others as they were; the row axis stays first.
 */
static int apply_axes(struct bt_plan *pl, const json_t *list, const char *origin,
		      struct bt_err *err)
{
	int axes[BT_PLAN_MAX_AXES], used[BT_PLAN_MAX_AXES] = { 0 };
	const json_t *el;
	int naxes = 0, a, idx;
	size_t i;

	if (list == NULL)
		return 0;
	if (!json_is_array(list))
		return bt_err_set(err, -EINVAL, "%s: \"axes\" must be an array of parameter names",
				  origin);
	json_array_foreach(list, i, el) {
		if (!json_is_string(el))
			return bt_err_set(err, -EINVAL,
					  "%s: \"axes\" must be an array of parameter names", origin);
		idx = bt_plan_index(pl, json_string_value(el));
		for (a = 0; idx >= 0 && a < pl->naxes; a++) {
			if (pl->axes[a] == idx && !used[a]) {
				used[a] = 1;
				axes[naxes++] = idx;
			}
		}
	}
	for (a = 0; a < pl->naxes; a++) {
		if (!used[a])
			axes[naxes++] = pl->axes[a];
	}
	memcpy(pl->given, axes, (size_t)naxes * sizeof(*axes));
	order_axes(pl, pl->given, naxes, rows_name(pl), pl->axes);
	return 0;
}

/* A deep copy of src (the value arrays are duplicated). */
static int plan_clone(struct bt_plan *dst, const struct bt_plan *src)
{
	int i;

	*dst = *src;
	for (i = 0; i < src->nparams; i++) {
		dst->vals[i] = malloc((size_t)src->nvals[i] * sizeof(struct bt_value));
		if (dst->vals[i] == NULL) {
			dst->nparams = i;
			bt_plan_destroy(dst);
			return -ENOMEM;
		}
		memcpy(dst->vals[i], src->vals[i], (size_t)src->nvals[i] * sizeof(struct bt_value));
	}
	return 0;
}

int bt_plan_apply_json(struct bt_plan *pl, const char *json_text, const char *origin,
		       struct bt_err *err)
{
	struct bt_plan tmp;
	const char *wl, *key;
	json_t *root, *params, *val;
	int rc;

	if (origin == NULL)
		origin = "plan";
	rc = plan_parse(json_text, strlen(json_text), origin, &root, &wl, err);
	if (rc)
		return rc;
	if (strcmp(wl, pl->workload) != 0) {
		rc = bt_err_set(err, -EINVAL, "%s: the plan is for workload %s, not %s", origin,
				wl, pl->workload);
		goto out;
	}
	params = json_object_get(root, "params");
	if (params == NULL || !json_is_object(params)) {
		rc = bt_err_set(err, -EINVAL, "%s: \"params\" must be an object%s%s", origin,
				params ? ", not " : "", params ? json_type_name(params) : "");
		goto out;
	}
	rc = plan_clone(&tmp, pl);
	if (rc) {
		bt_err_set(err, rc, "out of memory");
		goto out;
	}
	json_object_foreach(params, key, val) {
		rc = apply_value(&tmp, key, val, err);
		if (rc) {
			bt_err_prefix(err, "%s", origin);
			bt_plan_destroy(&tmp);
			goto out;
		}
	}
	rc = apply_axes(&tmp, json_object_get(root, "axes"), origin, err);
	if (rc) {
		bt_plan_destroy(&tmp);
		goto out;
	}
	bt_plan_destroy(pl);
	*pl = tmp;
out:
	json_decref(root);
	return rc;
}

int bt_plan_load(struct bt_plan *pl, const char *path, struct bt_err *err)
{
	size_t len;
	char *text;
	int rc;

	rc = read_file(path, &text, &len, err);
	if (rc)
		return rc;
	if (strlen(text) != len) {
		free(text);
		return bt_err_set(err, -EINVAL, "%s: contains a NUL byte", path);
	}
	rc = bt_plan_apply_json(pl, text, path, err);
	free(text);
	return rc;
}
