/*
 * theme.c - colour roles and theme files (see theme.h).
 *
 * A theme maps every role to a 256-colour choice and an 8-colour fallback
 * plus attributes. The current mapping lives in one static table that
 * bt_theme_apply fills and bt_role_attr reads: drawing code asks for a role,
 * never for a colour. Parsing starts from the built-in default, so a file
 * that names only some roles inherits the rest.
 */
#include "tui/theme.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_config.h"
#include "core/file.h"

static const char *const role_names[ROLE_COUNT] = {
	[ROLE_NORMAL] = "normal",
	[ROLE_TITLE] = "title",
	[ROLE_BORDER] = "border",
	[ROLE_FOCUS] = "focus",
	[ROLE_SELECT] = "select",
	[ROLE_DIM] = "dim",
	[ROLE_LABEL] = "label",
	[ROLE_VALUE] = "value",
	[ROLE_GOOD] = "good",
	[ROLE_BAD] = "bad",
	[ROLE_WARN] = "warn",
	[ROLE_ERROR] = "error",
	[ROLE_P50] = "p50",
	[ROLE_P90] = "p90",
	[ROLE_P99] = "p99",
	[ROLE_P999] = "p999",
	[ROLE_MAX] = "max",
	[ROLE_BAR] = "bar",
	[ROLE_USER] = "user",
	[ROLE_SYS] = "sys",
	[ROLE_SERIES0] = "series0",
	[ROLE_SERIES1] = "series1",
	[ROLE_SERIES2] = "series2",
	[ROLE_SERIES3] = "series3",
	[ROLE_SERIES4] = "series4",
	[ROLE_SERIES5] = "series5",
	[ROLE_SERIES6] = "series6",
	[ROLE_SERIES7] = "series7",
	[ROLE_HIGHLIGHT] = "highlight",
	[ROLE_IDEAL] = "ideal",
	[ROLE_KEY] = "key",
	[ROLE_FOOTER] = "footer",
};

static const char *const colour_names[8] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

/* The current role -> attribute table; all A_NORMAL until a theme is applied. */
static attr_t current[ROLE_COUNT];

int bt_role_parse(const char *name)
{
	if (name == NULL)
		return -1;
	for (int i = 0; i < ROLE_COUNT; i++)
		if (strcmp(name, role_names[i]) == 0)
			return i;
	return -1;
}

const char *bt_role_name(enum bt_role r)
{
	if ((int)r < 0 || r >= ROLE_COUNT)
		return "?";
	return role_names[r];
}

/*
 * The built-in dark theme. It must stay equal to themes/default.theme
 * (test_widgets checks), so the file documents what a missing theme means.
 */
void bt_theme_default(struct bt_theme *t)
{
	static const struct {
		enum bt_role r;
		short fg, fg8, bg, bg8;
		attr_t attr;
	} def[] = {
		{ ROLE_NORMAL, -1, -1, -1, -1, 0 },
		{ ROLE_TITLE, 117, COLOR_CYAN, -1, -1, A_BOLD },
		{ ROLE_BORDER, 240, COLOR_BLUE, -1, -1, 0 },
		{ ROLE_FOCUS, 81, COLOR_CYAN, -1, -1, A_BOLD },
		{ ROLE_SELECT, 16, COLOR_BLACK, 74, COLOR_CYAN, 0 },
		{ ROLE_DIM, 244, COLOR_WHITE, -1, -1, A_DIM },
		{ ROLE_LABEL, 248, COLOR_WHITE, -1, -1, 0 },
		{ ROLE_VALUE, 255, COLOR_WHITE, -1, -1, A_BOLD },
		{ ROLE_GOOD, 114, COLOR_GREEN, -1, -1, 0 },
		{ ROLE_BAD, 203, COLOR_RED, -1, -1, A_BOLD },
		{ ROLE_WARN, 221, COLOR_YELLOW, -1, -1, 0 },
		{ ROLE_ERROR, 203, COLOR_RED, -1, -1, A_BOLD },
		{ ROLE_P50, 114, COLOR_GREEN, -1, -1, 0 },
		{ ROLE_P90, 221, COLOR_YELLOW, -1, -1, 0 },
		{ ROLE_P99, 208, COLOR_RED, -1, -1, 0 },
		{ ROLE_P999, 203, COLOR_RED, -1, -1, A_BOLD },
		{ ROLE_MAX, 176, COLOR_MAGENTA, -1, -1, A_BOLD },
		{ ROLE_BAR, 74, COLOR_CYAN, -1, -1, 0 },
		{ ROLE_USER, 114, COLOR_GREEN, -1, -1, 0 },
		{ ROLE_SYS, 203, COLOR_RED, -1, -1, 0 },
		{ ROLE_SERIES0, 75, COLOR_CYAN, -1, -1, 0 },
		{ ROLE_SERIES1, 114, COLOR_GREEN, -1, -1, 0 },
		{ ROLE_SERIES2, 221, COLOR_YELLOW, -1, -1, 0 },
		{ ROLE_SERIES3, 176, COLOR_MAGENTA, -1, -1, 0 },
		{ ROLE_SERIES4, 80, COLOR_BLUE, -1, -1, 0 },
		{ ROLE_SERIES5, 209, COLOR_RED, -1, -1, 0 },
		{ ROLE_SERIES6, 147, COLOR_WHITE, -1, -1, 0 },
		{ ROLE_SERIES7, 186, COLOR_YELLOW, -1, -1, A_BOLD },
		{ ROLE_HIGHLIGHT, 231, COLOR_WHITE, -1, -1, A_BOLD },
		{ ROLE_IDEAL, 244, COLOR_WHITE, -1, -1, A_DIM },
		{ ROLE_KEY, 81, COLOR_CYAN, -1, -1, A_BOLD },
		{ ROLE_FOOTER, 250, COLOR_WHITE, -1, -1, 0 },
	};

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "Default dark");
	for (size_t i = 0; i < sizeof(def) / sizeof(def[0]); i++) {
		struct bt_role_style *s = &t->role[def[i].r];

		s->fg = def[i].fg;
		s->fg8 = def[i].fg8;
		s->bg = def[i].bg;
		s->bg8 = def[i].bg8;
		s->attr = def[i].attr;
	}
}

/* --- parsing ------------------------------------------------------------ */

/*
 * The basic colour (0..7) nearest to xterm colour c (16..255), for a number
 * given without a fallback. The cube levels are 0, 95, 135, 175, 215, 255;
 * a channel counts as "on" from 135 up, greys split at the middle.
 */
static short nearest8(int c)
{
	int r, g, b;

	if (c < 16)
		return (short)(c & 7);
	if (c >= 232)
		return c >= 244 ? COLOR_WHITE : COLOR_BLACK;
	c -= 16;
	r = c / 36;
	g = (c / 6) % 6;
	b = c % 6;
	if (r == g && g == b)
		return r >= 3 ? COLOR_WHITE : COLOR_BLACK;
	return (short)((r >= 2 ? 1 : 0) | (g >= 2 ? 2 : 0) | (b >= 2 ? 4 : 0));
}

/*
 * One colour word: default, a name, bright-<name>, or 0..255. Returns 0
 * and the colour (-1 for default) or -1 when the word is none of these.
 */
static int parse_colour1(const char *s, short *c)
{
	char *end;
	long v;
	int bright = 0;

	if (strcmp(s, "default") == 0) {
		*c = -1;
		return 0;
	}
	if (s[0] >= '0' && s[0] <= '9') {
		errno = 0;
		v = strtol(s, &end, 10);
		if (*end != '\0' || errno || v < 0 || v > 255)
			return -1;
		*c = (short)v;
		return 0;
	}
	if (strncmp(s, "bright-", 7) == 0) {
		bright = 8;
		s += 7;
	}
	for (int i = 0; i < 8; i++) {
		if (strcmp(s, colour_names[i]) == 0) {
			*c = (short)(i + bright);
			return 0;
		}
	}
	return -1;
}

/*
 * A colour spec "208/yellow", "yellow" or "208": the 256-colour choice and
 * the 8/16-colour fallback. The fallback must be a name, default or 0..15;
 * a lone number above 15 gets the nearest basic colour.
 */
static int parse_colour(const char *s, short *c, short *c8)
{
	char buf[64];
	const char *slash = strchr(s, '/');

	if (slash == NULL) {
		if (parse_colour1(s, c) < 0)
			return -1;
		*c8 = *c > 15 ? nearest8(*c) : *c;
		return 0;
	}
	if ((size_t)(slash - s) >= sizeof(buf))
		return -1;
	memcpy(buf, s, (size_t)(slash - s));
	buf[slash - s] = '\0';
	if (parse_colour1(buf, c) < 0 || parse_colour1(slash + 1, c8) < 0 || *c8 > 15)
		return -1;
	return 0;
}

static int parse_attr(const char *s, attr_t *a)
{
	static const struct {
		const char *name;
		attr_t attr;
	} attrs[] = {
		{ "bold", A_BOLD },
		{ "dim", A_DIM },
		{ "reverse", A_REVERSE },
		{ "underline", A_UNDERLINE },
	};

	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		if (strcmp(s, attrs[i].name) == 0) {
			*a |= attrs[i].attr;
			return 0;
		}
	}
	return -1;
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

#define COLOURS_ALLOWED "default, black, red, green, yellow, blue, magenta, cyan, white, " \
	"bright-<colour>, 0..255, or 0..255/<colour>"

/*
 * Parse the value of one role line into *s: "<fg> [on <bg>] [attrs...]".
 * The foreground may be left out when attributes follow ("reverse").
 * *has_bg tells whether "on" was given. Errors go to err without position.
 */
static int parse_style(char *v, struct bt_role_style *s, int *has_bg, struct bt_err *err)
{
	char *save = NULL, *tok;
	int ntok = 0;

	s->fg = s->fg8 = -1;
	s->bg = s->bg8 = -1;
	s->attr = 0;
	*has_bg = 0;
	for (tok = strtok_r(v, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save), ntok++) {
		if (strcmp(tok, "on") == 0) {
			if (*has_bg)
				return bt_err_set(err, -EINVAL, "'on' given twice");
			tok = strtok_r(NULL, " \t", &save);
			if (tok == NULL)
				return bt_err_set(err, -EINVAL, "'on' needs a background colour");
			if (parse_colour(tok, &s->bg, &s->bg8) < 0)
				return bt_err_set(err, -EINVAL, "unknown colour '%s' (%s)",
						  tok, COLOURS_ALLOWED);
			*has_bg = 1;
			continue;
		}
		if (parse_attr(tok, &s->attr) == 0)
			continue;
		if (ntok == 0) {
			if (parse_colour(tok, &s->fg, &s->fg8) < 0)
				return bt_err_set(err, -EINVAL, "unknown colour '%s' (%s)",
						  tok, COLOURS_ALLOWED);
			continue;
		}
		return bt_err_set(err, -EINVAL,
				  "unexpected '%s' (after the colour: on <colour>, bold, dim, reverse, underline)",
				  tok);
	}
	if (ntok == 0)
		return bt_err_set(err, -EINVAL, "missing colour (%s)", COLOURS_ALLOWED);
	return 0;
}

/*
 * The theme in stream f (NULL: an empty one), named path in messages.
 * Roles that give no "on <bg>" take normal's background, so a theme that
 * paints the whole screen ("normal = white on black") needs to say it once.
 */
static int parse_stream(FILE *f, const char *path, struct bt_theme *t, struct bt_err *err)
{
	struct bt_theme nt;
	int has_bg[ROLE_COUNT] = { 0 };
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, ret = 0;

	bt_theme_default(t);
	bt_theme_default(&nt);
	while (f != NULL && getline(&line, &cap, f) >= 0) {
		char *s, *eq, *key, *val;
		int role, hb;
		struct bt_role_style st;

		lineno++;
		s = line;
		if ((eq = strchr(s, '#')) != NULL)
			*eq = '\0';
		s = trim(s);
		if (*s == '\0')
			continue;
		eq = strchr(s, '=');
		if (eq == NULL) {
			ret = bt_err_set(err, -EINVAL, "%s:%d: expected '<role> = <colour> [on <colour>] [bold|dim|reverse|underline]', got '%.40s'",
					 path, lineno, s);
			goto out;
		}
		*eq = '\0';
		key = trim(s);
		val = trim(eq + 1);
		if (strcmp(key, "name") == 0) {
			if (*val == '\0') {
				ret = bt_err_set(err, -EINVAL, "%s:%d: empty name", path, lineno);
				goto out;
			}
			snprintf(nt.name, sizeof(nt.name), "%s", val);
			continue;
		}
		role = bt_role_parse(key);
		if (role < 0) {
			ret = bt_err_set(err, -EINVAL, "%s:%d: unknown role '%.40s' (normal, title, border, ..., series0..series7, see theme.h)",
					 path, lineno, key);
			goto out;
		}
		ret = parse_style(val, &st, &hb, err);
		if (ret < 0) {
			bt_err_prefix(err, "%s:%d", path, lineno);
			goto out;
		}
		nt.role[role] = st;
		has_bg[role] = hb;
	}
	if (f != NULL && ferror(f)) {
		ret = bt_err_set(err, -EIO, "%s: read error", path);
		goto out;
	}
	for (int i = 0; i < ROLE_COUNT; i++) {
		if (i != ROLE_NORMAL && !has_bg[i]) {
			nt.role[i].bg = nt.role[ROLE_NORMAL].bg;
			nt.role[i].bg8 = nt.role[ROLE_NORMAL].bg8;
		}
	}
	*t = nt;
out:
	free(line);
	return ret;
}

int bt_theme_load(const char *path, struct bt_theme *t, struct bt_err *err)
{
	FILE *f;
	int ret;

	bt_theme_default(t);
	/* Non-blocking and type-checked: a FIFO as a theme must not hang start-up. */
	ret = bt_file_open_read(path, BT_FILE_MAX_THEME, &f, NULL, err);
	if (ret < 0)
		return ret;
	ret = parse_stream(f, path, t, err);
	fclose(f);
	return ret;
}

/* The same parser over a buffer (fmemopen), for tests and the fuzz target. */
int bt_theme_parse(const char *text, size_t len, const char *name, struct bt_theme *t,
		   struct bt_err *err)
{
	FILE *f = NULL;
	int ret;

	if (len > 0 && (f = fmemopen((void *)(uintptr_t)text, len, "r")) == NULL) {
		int e = errno;

		bt_theme_default(t);
		return bt_err_set(err, -e, "%s: %s", name, strerror(e));
	}
	ret = parse_stream(f, name, t, err);
	if (f != NULL)
		fclose(f);
	return ret;
}

/* --- finding theme files ----------------------------------------------- */

/* The directories searched, in order; returns how many were filled. */
static int theme_dirs(char dirs[3][PATH_MAX])
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	int n = 0;

	if (xdg && *xdg)
		snprintf(dirs[n++], PATH_MAX, "%s/benchtop/themes", xdg);
	else if (home && *home)
		snprintf(dirs[n++], PATH_MAX, "%s/.config/benchtop/themes", home);
	snprintf(dirs[n++], PATH_MAX, "%s", BT_SOURCE_THEMES_DIR);
	snprintf(dirs[n++], PATH_MAX, "%s", BT_THEMES_DIR);
	return n;
}

/*
 * A name with a '/' is taken as a path as it is (so "--theme ./x.theme"
 * works); otherwise NAME.theme is looked for in the theme directories.
 */
int bt_theme_find(const char *name, char *path, size_t n)
{
	char dirs[3][PATH_MAX];
	int nd;

	if (name == NULL || *name == '\0' || n == 0)
		return -ENOENT;
	if (strchr(name, '/')) {
		if (access(name, R_OK) != 0)
			return -ENOENT;
		snprintf(path, n, "%s", name);
		return 0;
	}
	nd = theme_dirs(dirs);
	for (int i = 0; i < nd; i++) {
		char p[PATH_MAX + 80];

		snprintf(p, sizeof(p), "%s/%s.theme", dirs[i], name);
		if (access(p, R_OK) == 0) {
			snprintf(path, n, "%s", p);
			return 0;
		}
	}
	return -ENOENT;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

int bt_theme_list(char names[][64], int max)
{
	char dirs[3][PATH_MAX];
	int nd, n = 0, out = 0;

	if (max <= 0)
		return 0;
	nd = theme_dirs(dirs);
	for (int i = 0; i < nd && n < max; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;

		if (d == NULL)
			continue;
		while ((e = readdir(d)) != NULL && n < max) {
			size_t len = strlen(e->d_name);

			if (len <= 6 || len - 6 >= 64 || e->d_name[0] == '.' ||
			    strcmp(e->d_name + len - 6, ".theme") != 0)
				continue;
			memcpy(names[n], e->d_name, len - 6);
			names[n][len - 6] = '\0';
			n++;
		}
		closedir(d);
	}
	qsort(names, (size_t)n, sizeof(names[0]), cmp_name);
	for (int i = 0; i < n; i++) {
		if (out > 0 && strcmp(names[out - 1], names[i]) == 0)
			continue;
		if (out != i)
			memcpy(names[out], names[i], sizeof(names[0]));
		out++;
	}
	return out;
}

/* --- applying ----------------------------------------------------------- */

/*
 * A theme colour for this terminal: -1 stays default (or becomes white/black
 * when the terminal cannot do default colours), colours the terminal lacks
 * fold onto 0..7, a folded bright foreground gets A_BOLD instead.
 */
static short term_colour(short c, int fg, int have_default, attr_t *bold)
{
	if (c < 0)
		return have_default ? -1 : (fg ? COLOR_WHITE : COLOR_BLACK);
	if (c >= COLORS) {
		if (c >= 8 && c < 16 && fg)
			*bold |= A_BOLD;
		c = c < 16 ? (short)(c - 8) : nearest8(c);
	}
	return c;
}

/*
 * Without colours some roles would vanish (a selected row is only a
 * background colour in most themes); they keep a visible attribute.
 */
static attr_t no_colour_attr(enum bt_role r, attr_t a)
{
	if (a != 0)
		return a;
	switch (r) {
	case ROLE_SELECT:
		return A_REVERSE;
	case ROLE_TITLE:
	case ROLE_FOCUS:
	case ROLE_HIGHLIGHT:
	case ROLE_KEY:
	case ROLE_ERROR:
	case ROLE_BAD:
	case ROLE_MAX:
		return A_BOLD;
	case ROLE_DIM:
	case ROLE_IDEAL:
		return A_DIM;
	default:
		return a;
	}
}

void bt_theme_apply(const struct bt_theme *t, int use_color)
{
	const char *nc = getenv("NO_COLOR");
	int have_default = 0, c256;

	if (nc && *nc)
		use_color = 0;
	if (use_color && (!has_colors() || COLORS < 8 || COLOR_PAIRS <= ROLE_COUNT))
		use_color = 0;
	if (!use_color) {
		/*
		 * After start_color() pair 0 is white on black; give the
		 * terminal its own colours back so no colour is ever sent.
		 */
		if (has_colors())
			use_default_colors();
		for (int i = 0; i < ROLE_COUNT; i++)
			current[i] = no_colour_attr(i, t->role[i].attr);
		return;
	}
	have_default = use_default_colors() == OK;
	c256 = COLORS >= 256;
	for (int i = 0; i < ROLE_COUNT; i++) {
		const struct bt_role_style *s = &t->role[i];
		attr_t a = s->attr;
		short fg = term_colour(c256 ? s->fg : s->fg8, 1, have_default, &a);
		short bg = term_colour(c256 ? s->bg : s->bg8, 0, have_default, &a);

		if (init_pair((short)(i + 1), fg, bg) == OK)
			a |= COLOR_PAIR(i + 1);
		current[i] = a;
	}
}

attr_t bt_role_attr(enum bt_role r)
{
	if ((int)r < 0 || r >= ROLE_COUNT)
		return A_NORMAL;
	return current[r];
}
