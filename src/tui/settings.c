/*
 * settings.c - what the workbench remembers between sessions, in one plain
 * file a person can edit: $XDG_CONFIG_HOME/benchtop/settings (else
 * ~/.config/benchtop/settings).
 *
 *   # comment
 *   theme = high-contrast
 *   plan_dir = /home/me/plans
 *   export_dir = /home/me/exports
 *   mouse = off
 *   form.pipeline = threads=1,2,4 units=5000
 *
 * A form line holds the parameters that differ from their defaults, as the
 * command line takes them. A broken file is reported once as file:line and
 * ignored whole: the session starts from the defaults, and quitting writes a
 * good file in its place. No file at all is the first launch.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "front/front.h"
#include "tui/app.h"
#include "workloads/registry.h"

#define SETTINGS_MAX (256u << 10)

/* What the first launch shows: the classic experiment, about half a minute of it. */
static const char first_workload[] = "pipeline";
static const char first_plan[] = "threads=1,2,4,8,16,32,64 notify=signal,broadcast reps=3 warmup=0";

static int settings_path(char *buf, size_t n, int dir_only)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int k;

	if (xdg && *xdg)
		k = snprintf(buf, n, "%s/benchtop%s", xdg, dir_only ? "" : "/settings");
	else if (home && *home)
		k = snprintf(buf, n, "%s/.config/benchtop%s", home, dir_only ? "" : "/settings");
	else
		return -ENOENT;
	return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int workload_index(const char *name)
{
	for (size_t i = 0; i < bt_nworkloads; i++)
		if (strcmp(bt_workloads[i]->name, name) == 0)
			return (int)i;
	return -1;
}

static void forms_free(struct bt_app *a)
{
	for (size_t i = 0; a->set_form && i < bt_nworkloads; i++)
		free(a->set_form[i]);
}

/* Parse one line into a; 0, or -EINVAL with why in err. */
static int settings_line(struct bt_app *a, char *line, struct bt_err *err)
{
	char *eq = strchr(line, '='), *key, *val;

	line = trim(line);
	if (line[0] == '\0' || line[0] == '#')
		return 0;
	if (eq == NULL)
		return bt_err_set(err, -EINVAL, "expected key = value");
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	if (strcmp(key, "theme") == 0) {
		if (val[0] == '\0' || strlen(val) >= sizeof(a->theme_name))
			return bt_err_set(err, -EINVAL, "theme: a theme name");
		snprintf(a->set_theme, sizeof(a->set_theme), "%s", val);
	} else if (strcmp(key, "plan_dir") == 0 || strcmp(key, "export_dir") == 0) {
		char *dst = key[0] == 'p' ? a->plan_dir : a->export_dir;

		if (strlen(val) >= sizeof(a->plan_dir))
			return bt_err_set(err, -EINVAL, "%s: path too long", key);
		snprintf(dst, sizeof(a->plan_dir), "%s", val);
	} else if (strcmp(key, "mouse") == 0) {
		if (strcmp(val, "on") && strcmp(val, "off"))
			return bt_err_set(err, -EINVAL, "mouse: on or off");
		a->mouse_off = !strcmp(val, "off");
	} else if (strncmp(key, "form.", 5) == 0) {
		int w = workload_index(key + 5);

		if (w < 0)
			return bt_err_set(err, -EINVAL, "%s: no such workload", key + 5);
		free(a->set_form[w]);
		if ((a->set_form[w] = strdup(val)) == NULL)
			return bt_err_set(err, -ENOMEM, "out of memory");
	} else {
		return bt_err_set(err, -EINVAL, "unknown setting '%s' (theme, mouse, plan_dir, export_dir, form.WORKLOAD)", key);
	}
	return 0;
}

void bt_settings_load(struct bt_app *a)
{
	struct bt_err err = { "" };
	char path[PATH_MAX], line[8192];
	FILE *f = NULL;
	int rc, lineno = 0;

	a->set_form = calloc(bt_nworkloads, sizeof(*a->set_form));
	if (a->set_form == NULL || settings_path(path, sizeof(path), 0) < 0)
		return;
	if (access(path, F_OK) != 0 && errno == ENOENT) {
		a->set_first = 1;
		return;
	}
	rc = bt_file_open_read(path, SETTINGS_MAX, &f, NULL, &err);
	if (rc < 0) {
		snprintf(a->set_error, sizeof(a->set_error), "settings ignored: %s", err.msg);
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			bt_err_set(&err, -EINVAL, "line longer than %zu bytes", sizeof(line) - 1);
			rc = -EINVAL;
		} else {
			rc = settings_line(a, line, &err);
		}
		if (rc < 0) {
			snprintf(a->set_error, sizeof(a->set_error), "settings ignored: %s:%d: %s", path,
				 lineno, err.msg);
			forms_free(a);
			memset(a->set_form, 0, bt_nworkloads * sizeof(*a->set_form));
			a->set_theme[0] = a->plan_dir[0] = a->export_dir[0] = '\0';
			a->mouse_off = 0;
			break;
		}
	}
	fclose(f);
}

/* Split words on blanks into kv (at most max); returns how many. */
static int split_words(char *s, char **kv, int max)
{
	int n = 0;

	for (char *t = strtok(s, " \t"); t != NULL && n < max; t = strtok(NULL, " \t"))
		kv[n++] = t;
	return n;
}

void bt_settings_form(struct bt_app *a, int w, struct bt_plan *pl)
{
	const char *words = a->set_form ? a->set_form[w] : NULL;
	struct bt_err err = { "" };
	char buf[8192], *kv[BT_PLAN_MAX_PARAMS * 2];
	int n;

	if (words == NULL && a->set_first && strcmp(bt_workloads[w]->name, first_workload) == 0)
		words = first_plan;
	if (words == NULL)
		return;
	snprintf(buf, sizeof(buf), "%s", words);
	n = split_words(buf, kv, (int)(sizeof(kv) / sizeof(kv[0])));
	if (bt_front_set_args(pl, kv, n, &err) < 0)
		bt_app_status(a, ROLE_WARN, "settings: form.%s: %s (defaults kept for the rest)",
			      bt_workloads[w]->name, err.msg);
}

/* The parameters of pl that differ from their defaults, as key=value words. */
static void form_words(const struct bt_plan *pl, char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < pl->nparams; i++) {
		const struct bt_param *p = pl->params[i];
		char val[2048];
		size_t vo = 0;
		int k;

		val[0] = '\0';
		for (int j = 0; j < pl->nvals[i] && vo < sizeof(val); j++) {
			k = snprintf(val + vo, sizeof(val) - vo, "%s%s", j ? "," : "", pl->vals[i][j].text);
			if (k < 0)
				break;
			vo += (size_t)k;
		}
		if (vo >= sizeof(val) || strcmp(val, p->def ? p->def : "") == 0 ||
		    strpbrk(val, " \t\n") != NULL || val[0] == '\0')
			continue;
		k = snprintf(buf + o, n - o, "%s%s=%s", o ? " " : "", p->name, val);
		if (k < 0 || (size_t)k >= n - o) {
			buf[o] = '\0';
			break;
		}
		o += (size_t)k;
	}
}

int bt_settings_save(const struct bt_app *a, struct bt_err *err)
{
	struct bt_file_out o;
	char path[PATH_MAX], dir[PATH_MAX], words[8192];
	int rc;

	if (settings_path(dir, sizeof(dir), 1) < 0 || settings_path(path, sizeof(path), 0) < 0)
		return bt_err_set(err, -ENOENT, "settings: neither XDG_CONFIG_HOME nor HOME is set");
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		char parent[PATH_MAX];
		char *slash;

		/* ~/.config may not exist yet: one level up, then again. */
		snprintf(parent, sizeof(parent), "%s", dir);
		slash = strrchr(parent, '/');
		if (slash != NULL && slash != parent)
			*slash = '\0';
		if ((mkdir(parent, 0777) < 0 && errno != EEXIST) || (mkdir(dir, 0777) < 0 && errno != EEXIST))
			return bt_err_set(err, -errno, "settings: cannot create %s: %s", dir, strerror(errno));
	}
	rc = bt_file_out_open(&o, path, err);
	if (rc < 0)
		return rc;
	fprintf(o.f, "# benchtop settings: written when the workbench quits; edit freely.\n"
		     "# theme = NAME; mouse = on|off; plan_dir, export_dir = folders;\n"
		     "# form.WORKLOAD = key=value ...\n");
	fprintf(o.f, "theme = %s\n", a->theme_name);
	fprintf(o.f, "mouse = %s\n", a->mouse_off ? "off" : "on");
	if (a->plan_dir[0])
		fprintf(o.f, "plan_dir = %s\n", a->plan_dir);
	if (a->export_dir[0])
		fprintf(o.f, "export_dir = %s\n", a->export_dir);
	for (size_t w = 0; w < bt_nworkloads; w++) {
		if (a->plan_ok && a->plan_ok[w]) {
			form_words(&a->plans[w], words, sizeof(words));
			fprintf(o.f, "form.%s = %s\n", bt_workloads[w]->name, words);
		} else if (a->set_form && a->set_form[w]) {
			fprintf(o.f, "form.%s = %s\n", bt_workloads[w]->name, a->set_form[w]);
		}
	}
	return bt_file_out_commit(&o, err);
}

void bt_settings_free(struct bt_app *a)
{
	forms_free(a);
	free(a->set_form);
	a->set_form = NULL;
}
