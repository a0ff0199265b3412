/*
 * param.c - parsing and describing typed parameter values.
 *
 * Every value the user gives (CLI key=value, a JSON plan, the TUI form) and
 * every default in a schema table goes through bt_param_parse, so the
 * accepted syntax, the canonical text and the error messages are the same
 * everywhere.
 *
 * Conventions beyond param.h:
 *   - A range of min == max == 0 means "no range" (any INT; any
 *     non-negative SIZE or DURATION).
 *   - SIZE and DURATION accept a decimal fraction when the result is a whole
 *     number of bytes / nanoseconds: "1.5K" is 1536, "1.5s" is 1500ms, but
 *     "1.3K" and "1.5ns" are rejected.
 *   - Suffixes, units, ENUM/LIST choices and BOOL words are matched without
 *     regard to case; the canonical text uses the table's spelling.
 */
#include "core/param.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Why a number did not parse, so the caller can say the right thing. */
enum num_status {
	NUM_OK = 0,
	NUM_SYNTAX,	/* not a number of this form */
	NUM_NOUNIT,	/* a duration without unit (and not 0) */
	NUM_INEXACT,	/* a fraction that is not a whole byte / ns */
	NUM_RANGE,	/* does not fit in int64_t */
};

#define ECHO_MAX 64	/* at most this much of a bad value is quoted back */

/*
 * The value as it is quoted in a message: long values are cut to ECHO_MAX
 * bytes and marked with "...", so a message always has room for the
 * explanation that follows.
 */
static const char *echo(const char *text, char *buf, size_t n)
{
	if (strlen(text) < ECHO_MAX || n < ECHO_MAX + 4)
		return text;
	snprintf(buf, n, "%.*s...", ECHO_MAX, text);
	return buf;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b != 0) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * Parse the unsigned decimal number at the start of s ("12", "1.5") and
 * multiply it by mult exactly. *end is set to the first byte after the
 * number. A fraction is allowed only when the product is a whole number.
 * Needs at least one digit before the point and one after it.
 */
static enum num_status parse_scaled(const char *s, int64_t mult, int64_t *out, const char **end)
{
	const char *p = s, *frac, *fend;
	int64_t ip = 0, fp = 0, den = 1, g, r;
	int nfrac;

	if (!is_digit(*p))
		return NUM_SYNTAX;
	for (; is_digit(*p); p++) {
		if (__builtin_mul_overflow(ip, 10, &ip) ||
		    __builtin_add_overflow(ip, *p - '0', &ip))
			return NUM_RANGE;
	}
	if (*p == '.') {
		p++;
		if (!is_digit(*p))
			return NUM_SYNTAX;
		frac = p;
		while (is_digit(*p))
			p++;
		fend = p;
		while (fend > frac && fend[-1] == '0')	/* "1.50" is "1.5" */
			fend--;
		nfrac = (int)(fend - frac);
		if (nfrac > 18)
			return NUM_INEXACT;
		for (; frac < fend; frac++) {
			fp = fp * 10 + (*frac - '0');
			den *= 10;
		}
	}
	*end = p;
	if (__builtin_mul_overflow(ip, mult, &r))
		return NUM_RANGE;
	if (fp != 0) {
		/* fp / den * mult must be whole: reduce den by what mult supplies. */
		g = gcd64(mult, den);
		if (fp % (den / g) != 0)
			return NUM_INEXACT;
		if (__builtin_mul_overflow(fp / (den / g), mult / g, &fp) ||
		    __builtin_add_overflow(r, fp, &r))
			return NUM_RANGE;
	}
	*out = r;
	return NUM_OK;
}

static const struct {
	const char *suffix;
	int64_t mult;
} size_units[] = {
	{ "T", (int64_t)1 << 40 },
	{ "G", (int64_t)1 << 30 },
	{ "M", (int64_t)1 << 20 },
	{ "K", (int64_t)1 << 10 },
};

static enum num_status parse_size(const char *s, int64_t *out)
{
	const char *p, *numend, *end = NULL;
	int64_t mult = 1;
	enum num_status st;
	size_t i;

	/* Find the suffix first: the number is scaled by it exactly. */
	p = s;
	while (is_digit(*p) || *p == '.')
		p++;
	if (p == s)
		return NUM_SYNTAX;
	numend = p;
	for (i = 0; i < sizeof(size_units) / sizeof(size_units[0]); i++) {
		if (strncasecmp(p, size_units[i].suffix, 1) == 0) {
			mult = size_units[i].mult;
			p++;
			break;
		}
	}
	/* Then an optional "B" (any size) or "iB" (only after a suffix). */
	if (strcasecmp(p, "B") == 0 || (mult > 1 && strcasecmp(p, "iB") == 0))
		p += strlen(p);
	if (*p != '\0')
		return NUM_SYNTAX;
	st = parse_scaled(s, mult, out, &end);
	if (st == NUM_OK && end != numend)	/* "1..5K" */
		return NUM_SYNTAX;
	return st;
}

static const struct {
	const char *unit;
	int64_t ns;
} dur_units[] = {
	{ "h", 3600LL * 1000000000 },
	{ "m", 60LL * 1000000000 },
	{ "s", 1000000000 },
	{ "ms", 1000000 },
	{ "us", 1000 },
	{ "ns", 1 },
};

#define NDUR_UNITS (sizeof(dur_units) / sizeof(dur_units[0]))

static enum num_status parse_duration(const char *s, int64_t *ns)
{
	const char *p = s, *end = NULL;
	enum num_status st;
	int64_t v;
	size_t i;

	while (is_digit(*p) || *p == '.')
		p++;
	if (p == s)
		return NUM_SYNTAX;
	if (*p == '\0') {
		/* Only zero may go without a unit; "0.0" is zero too. */
		st = parse_scaled(s, 1000000000, &v, &end);
		if (st == NUM_SYNTAX || (st == NUM_OK && end != p))
			return NUM_SYNTAX;
		if (st == NUM_OK && v == 0) {
			*ns = 0;
			return NUM_OK;
		}
		return NUM_NOUNIT;
	}
	for (i = 0; i < NDUR_UNITS; i++) {
		if (strcasecmp(p, dur_units[i].unit) == 0) {
			st = parse_scaled(s, dur_units[i].ns, &v, &end);
			if (st == NUM_OK && end != p)	/* "1..5s" */
				return NUM_SYNTAX;
			if (st == NUM_OK)
				*ns = v;
			return st;
		}
	}
	return NUM_SYNTAX;
}

int bt_parse_size(const char *s, int64_t *out)
{
	return parse_size(s, out) == NUM_OK ? 0 : -EINVAL;
}

int bt_parse_duration(const char *s, int64_t *ns)
{
	return parse_duration(s, ns) == NUM_OK ? 0 : -EINVAL;
}

/* Decimal integer with an optional sign and nothing else around it. */
static enum num_status parse_int(const char *s, int64_t *out)
{
	const char *p = s;
	int neg = 0;
	int64_t v = 0;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (!is_digit(*p))
		return NUM_SYNTAX;
	for (; is_digit(*p); p++) {
		int d = *p - '0';

		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, neg ? -d : d, &v))
			return NUM_RANGE;
	}
	if (*p != '\0')
		return NUM_SYNTAX;
	*out = v;
	return NUM_OK;
}

/* Canonical size text: the largest suffix that divides exactly ("64K"). */
static void fmt_size(int64_t v, char *buf, size_t n)
{
	size_t i;

	for (i = 0; v != 0 && i < sizeof(size_units) / sizeof(size_units[0]); i++) {
		if (v % size_units[i].mult == 0) {
			snprintf(buf, n, "%lld%s", (long long)(v / size_units[i].mult),
				 size_units[i].suffix);
			return;
		}
	}
	snprintf(buf, n, "%lld", (long long)v);
}

/* Canonical duration text: the largest unit that divides exactly ("5ms"); 0 is "0". */
static void fmt_duration(int64_t ns, char *buf, size_t n)
{
	size_t i;

	for (i = 0; ns != 0 && i < NDUR_UNITS; i++) {
		if (ns % dur_units[i].ns == 0) {
			snprintf(buf, n, "%lld%s", (long long)(ns / dur_units[i].ns),
				 dur_units[i].unit);
			return;
		}
	}
	snprintf(buf, n, "%lld", (long long)ns);
}

/* The effective inclusive range of p (see the "no range" convention above). */
static void range_of(const struct bt_param *p, int64_t *lo, int64_t *hi)
{
	*lo = p->min;
	*hi = p->max;
	if (p->min == 0 && p->max == 0) {
		*lo = p->kind == BT_P_INT ? INT64_MIN : 0;
		*hi = INT64_MAX;
	}
}

static void fmt_range(const struct bt_param *p, char *buf, size_t n)
{
	char a[32], b[32];
	int64_t lo, hi;

	range_of(p, &lo, &hi);
	if (p->kind == BT_P_SIZE) {
		fmt_size(lo, a, sizeof(a));
		fmt_size(hi, b, sizeof(b));
	} else if (p->kind == BT_P_DURATION) {
		fmt_duration(lo, a, sizeof(a));
		fmt_duration(hi, b, sizeof(b));
	} else {
		snprintf(a, sizeof(a), "%lld", (long long)lo);
		snprintf(b, sizeof(b), "%lld", (long long)hi);
	}
	snprintf(buf, n, "%s..%s", a, b);
}

/* choices joined by sep into buf (truncated to n). */
static void join_choices(const char *const *choices, const char *sep, char *buf, size_t n)
{
	size_t len = 0;
	int i;

	if (n == 0)
		return;
	buf[0] = '\0';
	for (i = 0; choices != NULL && choices[i] != NULL && len < n; i++) {
		int w = snprintf(buf + len, n - len, "%s%s", i ? sep : "", choices[i]);

		if (w < 0)
			break;
		len += (size_t)w;
	}
}

void bt_param_allowed(const struct bt_param *p, char *buf, size_t n)
{
	char tmp[BT_ERR_MAX];

	switch (p->kind) {
	case BT_P_INT:
		if (p->min == 0 && p->max == 0)
			snprintf(buf, n, "integer");
		else
			fmt_range(p, buf, n);
		if (p->zero_word != NULL) {
			size_t len = strlen(buf);

			snprintf(buf + len, n > len ? n - len : 0, "|%s", p->zero_word);
		}
		break;
	case BT_P_SIZE:
	case BT_P_DURATION:
		fmt_range(p, buf, n);
		break;
	case BT_P_ENUM:
		join_choices(p->choices, "|", buf, n);
		break;
	case BT_P_LIST:
		join_choices(p->choices, "|", tmp, sizeof(tmp));
		snprintf(buf, n, "%s, joined by +", tmp);
		break;
	case BT_P_BOOL:
		snprintf(buf, n, "on|off");
		break;
	case BT_P_STRING:
	default:
		snprintf(buf, n, "text");
		break;
	}
}

const char *bt_pkind_name(enum bt_pkind k)
{
	switch (k) {
	case BT_P_INT:
		return "int";
	case BT_P_SIZE:
		return "size";
	case BT_P_DURATION:
		return "duration";
	case BT_P_ENUM:
		return "enum";
	case BT_P_LIST:
		return "list";
	case BT_P_BOOL:
		return "bool";
	case BT_P_STRING:
		return "string";
	}
	return "?";
}

const struct bt_param *bt_param_find(const struct bt_param *tab, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(tab[i].name, name) == 0)
			return &tab[i];
	}
	return NULL;
}

/* Index of word in a NULL-terminated choice list (any case), or -1. */
static int choice_index(const char *const *choices, const char *word, size_t len)
{
	int i;

	for (i = 0; choices != NULL && choices[i] != NULL; i++) {
		if (strlen(choices[i]) == len && strncasecmp(choices[i], word, len) == 0)
			return i;
	}
	return -1;
}

/*
 * The numeric kinds share one shape of messages: syntax errors show an
 * example of the form and the range in parentheses, range errors only the
 * range ("threads=0: must be 1..1024").
 */
static int parse_number(const struct bt_param *p, const char *text, struct bt_value *v,
			const char *shown, struct bt_err *err)
{
	char range[80];
	enum num_status st;
	int64_t lo, hi;

	fmt_range(p, range, sizeof(range));
	if (p->kind == BT_P_INT && p->zero_word != NULL) {
		size_t len = strlen(range);

		snprintf(range + len, sizeof(range) - len, " or %s", p->zero_word);
	}
	if (p->kind == BT_P_INT)
		st = parse_int(text, &v->i);
	else if (p->kind == BT_P_SIZE)
		st = parse_size(text, &v->i);
	else
		st = parse_duration(text, &v->i);

	switch (st) {
	case NUM_OK:
		break;
	case NUM_NOUNIT:
		return bt_err_set(err, -EINVAL, "%s=%s: needs a unit (ns, us, ms, s, m, h)",
				  p->name, shown);
	case NUM_INEXACT:
		return bt_err_set(err, -EINVAL, "%s=%s: must be a whole number of %s (%s)",
				  p->name, shown,
				  p->kind == BT_P_SIZE ? "bytes" : "nanoseconds", range);
	case NUM_RANGE:
		return bt_err_set(err, -EINVAL, "%s=%s: must be %s", p->name, shown, range);
	case NUM_SYNTAX:
	default:
		if (p->kind == BT_P_INT)
			return bt_err_set(err, -EINVAL, "%s=%s: must be an integer (%s)",
					  p->name, shown, range);
		if (p->kind == BT_P_SIZE)
			return bt_err_set(err, -EINVAL,
					  "%s=%s: must be a size like 4096, 64K, 1M (%s)",
					  p->name, shown, range);
		return bt_err_set(err, -EINVAL, "%s=%s: must be a duration like 500ms, 2s (%s)",
				  p->name, shown, range);
	}

	range_of(p, &lo, &hi);
	if (v->i < lo || v->i > hi)
		return bt_err_set(err, -EINVAL, "%s=%s: must be %s", p->name, shown, range);
	if (p->kind == BT_P_INT)
		snprintf(v->text, sizeof(v->text), "%lld", (long long)v->i);
	else if (p->kind == BT_P_SIZE)
		fmt_size(v->i, v->text, sizeof(v->text));
	else
		fmt_duration(v->i, v->text, sizeof(v->text));
	return 0;
}

/* '+'-joined choices to a mask; canonical text in choice order, no duplicates. */
static int parse_list(const struct bt_param *p, const char *text, struct bt_value *v,
		      const char *shown, struct bt_err *err)
{
	char allowed[BT_ERR_MAX];
	const char *s = text;
	uint64_t mask = 0;
	size_t len = 0;
	int i, nch = 0;

	while (p->choices != NULL && p->choices[nch] != NULL)
		nch++;
	if (nch == 0 || nch > 64)
		return bt_err_set(err, -EINVAL, "%s: a list parameter needs 1..64 choices",
				  p->name);
	for (;;) {
		const char *plus = strchr(s, '+');
		size_t wl = plus ? (size_t)(plus - s) : strlen(s);

		i = choice_index(p->choices, s, wl);
		if (i < 0) {
			join_choices(p->choices, ", ", allowed, sizeof(allowed));
			return bt_err_set(err, -EINVAL,
					  "%s=%s: must be one or more of %s joined by +",
					  p->name, shown, allowed);
		}
		mask |= (uint64_t)1 << i;
		if (plus == NULL)
			break;
		s = plus + 1;
	}
	v->i = (int64_t)mask;
	v->text[0] = '\0';
	for (i = 0; i < nch; i++) {
		if (mask & ((uint64_t)1 << i)) {
			int w = snprintf(v->text + len, sizeof(v->text) - len, "%s%s",
					 len ? "+" : "", p->choices[i]);

			if (w < 0 || (size_t)w >= sizeof(v->text) - len)
				return bt_err_set(err, -EINVAL, "%s=%s: too long", p->name, shown);
			len += (size_t)w;
		}
	}
	return 0;
}

int bt_param_parse(const struct bt_param *p, const char *text, struct bt_value *out,
		   struct bt_err *err)
{
	static const char *const yes[] = { "on", "true", "yes", "1", NULL };
	static const char *const no[] = { "off", "false", "no", "0", NULL };
	char ebuf[ECHO_MAX + 8], allowed[BT_ERR_MAX];
	const char *shown = echo(text, ebuf, sizeof(ebuf));
	struct bt_value v;
	int i, rc;

	memset(&v, 0, sizeof(v));
	if (p->kind == BT_P_INT && p->zero_word != NULL && strcasecmp(text, p->zero_word) == 0) {
		v.i = 0;
		snprintf(v.text, sizeof(v.text), "%s", p->zero_word);
		*out = v;
		return 0;
	}
	switch (p->kind) {
	case BT_P_INT:
	case BT_P_SIZE:
	case BT_P_DURATION:
		rc = parse_number(p, text, &v, shown, err);
		if (rc)
			return rc;
		break;
	case BT_P_ENUM:
		i = choice_index(p->choices, text, strlen(text));
		if (i < 0) {
			join_choices(p->choices, ", ", allowed, sizeof(allowed));
			return bt_err_set(err, -EINVAL, "%s=%s: must be one of %s",
					  p->name, shown, allowed);
		}
		v.i = i;
		snprintf(v.text, sizeof(v.text), "%s", p->choices[i]);
		break;
	case BT_P_LIST:
		rc = parse_list(p, text, &v, shown, err);
		if (rc)
			return rc;
		break;
	case BT_P_BOOL:
		if (choice_index(yes, text, strlen(text)) >= 0)
			v.i = 1;
		else if (choice_index(no, text, strlen(text)) >= 0)
			v.i = 0;
		else
			return bt_err_set(err, -EINVAL, "%s=%s: must be on or off", p->name, shown);
		snprintf(v.text, sizeof(v.text), "%s", v.i ? "on" : "off");
		break;
	case BT_P_STRING:
		if (strlen(text) >= sizeof(v.text))
			return bt_err_set(err, -EINVAL, "%s=%s: too long (at most %zu bytes)",
					  p->name, shown, sizeof(v.text) - 1);
		if (p->check != NULL) {
			struct bt_err cerr;

			/* A check that forgets to say why still gives a message. */
			bt_err_set(&cerr, 0, "%s=%s: not allowed", p->name, shown);
			rc = p->check(text, &cerr);
			if (rc) {
				if (err != NULL)
					*err = cerr;
				return rc;
			}
		}
		snprintf(v.text, sizeof(v.text), "%s", text);
		break;
	default:
		return bt_err_set(err, -EINVAL, "%s: unknown parameter kind %d", p->name,
				  (int)p->kind);
	}
	*out = v;
	return 0;
}

/* "0,2,4-7": the pieces that continue a "list:" token. */
static int is_numeric_piece(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || !is_digit(s[0]))
		return 0;
	for (i = 0; i < len; i++) {
		if (!is_digit(s[i]) && s[i] != '-')
			return 0;
	}
	return 1;
}

void bt_param_tokens_free(char **tokens, int n)
{
	int i;

	if (tokens == NULL)
		return;
	for (i = 0; i < n; i++)
		free(tokens[i]);
	free(tokens);
}

/*
 * Split on commas, gluing the numeric pieces after a "list:" piece back on.
 * Every piece must be non-empty, so "1,,2", ",1" and "1," are errors, and
 * so is "" (one empty piece).
 */
int bt_param_split(const char *text, char ***tokens)
{
	size_t cap = 1, len = strlen(text), i, start;
	char **tok;
	int n = 0;

	*tokens = NULL;
	for (i = 0; i < len; i++)
		cap += text[i] == ',';
	tok = calloc(cap, sizeof(*tok));
	if (tok == NULL)
		return -ENOMEM;

	start = 0;
	while (start <= len) {
		size_t end = start;

		while (end < len && text[end] != ',')
			end++;
		if (end == start)
			goto bad;
		if (end - start >= 5 && strncmp(text + start, "list:", 5) == 0) {
			/* Absorb following numeric pieces: "list:0,2,4-7". */
			while (end < len) {
				size_t next = end + 1, e2 = next;

				while (e2 < len && text[e2] != ',')
					e2++;
				if (!is_numeric_piece(text + next, e2 - next))
					break;
				end = e2;
			}
		}
		tok[n] = strndup(text + start, end - start);
		if (tok[n] == NULL) {
			bt_param_tokens_free(tok, n);
			return -ENOMEM;
		}
		n++;
		start = end + 1;
	}
	*tokens = tok;
	return n;
bad:
	bt_param_tokens_free(tok, n);
	return -EINVAL;
}
