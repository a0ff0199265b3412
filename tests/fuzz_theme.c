/*
 * fuzz_theme.c - fuzz the theme parser: bt_theme_load (the file) and
 * bt_theme_parse (the same parser over a buffer).
 *
 * Properties checked on every input, besides "no crash, no sanitizer
 * report":
 *   - the file and the buffer give the same result: return code, message
 *     (with the name in place of the path) and theme;
 *   - a failure comes with a message that starts with the file's name and
 *     leaves the built-in default theme;
 *   - a theme that loads is in range: colours -1..255, fallbacks -1..15,
 *     only the four attributes, a name;
 *   - it round-trips: written back as a theme file (every role with its
 *     colour, fallback, background and attributes), it parses to the same
 *     theme.
 * An inconsistency aborts with the reason (the input stays in the file the
 * driver names).
 *
 * Usage: fuzz_theme CORPUS_DIR (seeds: theme-*; see fuzz_driver.h);
 * or clang -fsanitize=fuzzer,address -DBT_LIBFUZZER for libFuzzer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "tui/theme.h"

#define FUZZ_NAME "fuzz_theme"
#define FUZZ_SEED_PREFIX "theme"

#include "fuzz_driver.h"

static long n_ok, n_rejected;

/* The first difference between two themes, or NULL. */
static const char *theme_diff(const struct bt_theme *a, const struct bt_theme *b)
{
	static char what[96];

	if (strcmp(a->name, b->name) != 0)
		return "name";
	for (int i = 0; i < ROLE_COUNT; i++) {
		const struct bt_role_style *x = &a->role[i], *y = &b->role[i];

		if (x->fg != y->fg || x->bg != y->bg || x->fg8 != y->fg8 || x->bg8 != y->bg8 ||
		    x->attr != y->attr) {
			snprintf(what, sizeof(what), "role %s: %d/%d on %d/%d %#x vs %d/%d on %d/%d %#x",
				 bt_role_name(i), x->fg, x->fg8, x->bg, x->bg8, (unsigned)x->attr,
				 y->fg, y->fg8, y->bg, y->bg8, (unsigned)y->attr);
			return what;
		}
	}
	return NULL;
}

static void check_range(const struct bt_theme *t)
{
	const attr_t known = A_BOLD | A_DIM | A_REVERSE | A_UNDERLINE;

	if (strnlen(t->name, sizeof(t->name)) == sizeof(t->name) || t->name[0] == '\0')
		inconsistent("name empty or not terminated");
	for (int i = 0; i < ROLE_COUNT; i++) {
		const struct bt_role_style *s = &t->role[i];

		if (s->fg < -1 || s->fg > 255 || s->bg < -1 || s->bg > 255 ||
		    s->fg8 < -1 || s->fg8 > 15 || s->bg8 < -1 || s->bg8 > 15 || (s->attr & ~known))
			inconsistent("role %s out of range: %d/%d on %d/%d %#x", bt_role_name(i),
				     s->fg, s->fg8, s->bg, s->bg8, (unsigned)s->attr);
	}
}

static int put_colour(char *buf, size_t n, short c, short c8)
{
	char a[16], b[16];

	snprintf(a, sizeof(a), c < 0 ? "default" : "%d", c);
	snprintf(b, sizeof(b), c8 < 0 ? "default" : "%d", c8);
	return snprintf(buf, n, "%s/%s", a, b);
}

/* t as a theme file, every role spelled out. */
static size_t theme_write(const struct bt_theme *t, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "name = %s\n", t->name);

	for (int i = 0; i < ROLE_COUNT && len < n; i++) {
		const struct bt_role_style *s = &t->role[i];
		char fg[40], bg[40];

		put_colour(fg, sizeof(fg), s->fg, s->fg8);
		put_colour(bg, sizeof(bg), s->bg, s->bg8);
		len += (size_t)snprintf(buf + len, n - len, "%s = %s on %s%s%s%s%s\n",
					bt_role_name(i), fg, bg,
					s->attr & A_BOLD ? " bold" : "", s->attr & A_DIM ? " dim" : "",
					s->attr & A_REVERSE ? " reverse" : "",
					s->attr & A_UNDERLINE ? " underline" : "");
	}
	return len < n ? len : n;
}

static void fuzz_one(const char *path)
{
	struct bt_theme def, tf, tb, tr;
	struct bt_err ef = { "" }, eb = { "" }, er = { "" };
	char *text = NULL, *out = NULL, msg[BT_ERR_MAX + 16];
	size_t len = 0;
	int rf, rb, rr;
	const char *d;

	text = fuzz_slurp(path, &len);

	bt_theme_default(&def);
	rf = bt_theme_load(path, &tf, &ef);
	rb = bt_theme_parse(text, len, path, &tb, &eb);
	if (rf != rb || strcmp(ef.msg, eb.msg) != 0)
		inconsistent("file: %d '%s'; buffer: %d '%s'", rf, ef.msg, rb, eb.msg);
	if ((d = theme_diff(&tf, &tb)) != NULL)
		inconsistent("file and buffer give different themes: %s", d);
	if (rf < 0) {
		n_rejected++;
		snprintf(msg, sizeof(msg), "%s:", path);
		if (ef.msg[0] == '\0' || strncmp(ef.msg, msg, strlen(msg)) != 0)
			inconsistent("a failure without a message naming the file: '%s'", ef.msg);
		if ((d = theme_diff(&tf, &def)) != NULL)
			inconsistent("a failure leaves another theme than the default: %s", d);
		goto out;
	}
	n_ok++;
	check_range(&tf);

	/* Written back and parsed again: the same theme (a name's trailing blanks are trimmed). */
	out = malloc(64 * 1024);
	if (out == NULL)
		abort();
	{
		size_t n = strlen(tf.name);

		while (n > 0 && (tf.name[n - 1] == ' ' || tf.name[n - 1] == '\t' ||
				 tf.name[n - 1] == '\r'))
			tf.name[--n] = '\0';
		if (n == 0 || strchr(tf.name, '#') != NULL || strchr(tf.name, '\n') != NULL)
			goto out;	/* not expressible as a name line */
	}
	len = theme_write(&tf, out, 64 * 1024);
	rr = bt_theme_parse(out, len, "round-trip", &tr, &er);
	if (rr < 0)
		inconsistent("written back, it fails: %s\n%s", er.msg, out);
	if ((d = theme_diff(&tf, &tr)) != NULL)
		inconsistent("written back, it differs: %s", d);
out:
	free(out);
	free(text);
}

static void fuzz_report(void)
{
	printf("%s: %ld parsed and round-tripped, %ld rejected with a message\n", FUZZ_NAME, n_ok,
	       n_rejected);
}

