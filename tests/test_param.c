/*
 * test_param.c - value parsing, canonical text, messages and splitting.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/param.h"

static const char *const lock_choices[] = { "mutex", "adaptive", "spin", "ticket", NULL };
static const char *const algo_choices[] = { "md5", "sha1", "sha256", NULL };

static int check_not_x(const char *text, struct bt_err *err)
{
	if (strcmp(text, "x") == 0)
		return bt_err_set(err, -EINVAL, "name=x: x is reserved");
	return 0;
}

/* A check that fails without saying why. */
static int check_silent(const char *text, struct bt_err *err)
{
	return strcmp(text, "q") == 0 ? -EINVAL : 0;
}

enum { P_THREADS, P_LOCK, P_BLOCK, P_DURATION, P_VERIFY, P_ALGO, P_NAME, P_REPS, P_ANY,
	P_SILENT, NPARAMS };

static const struct bt_param tab[NPARAMS] = {
	[P_THREADS] = { .name = "threads", .kind = BT_P_INT, .def = "1", .min = 1, .max = 1024,
			.help = "worker threads" },
	[P_LOCK] = { .name = "lock", .kind = BT_P_ENUM, .def = "mutex", .choices = lock_choices },
	[P_BLOCK] = { .name = "block", .kind = BT_P_SIZE, .def = "64K", .min = 16,
		      .max = 16 << 20 },
	[P_DURATION] = { .name = "duration", .kind = BT_P_DURATION, .def = "5ms", .min = 0,
			 .max = 3600LL * 1000000000 },
	[P_VERIFY] = { .name = "verify", .kind = BT_P_BOOL, .def = "on" },
	[P_ALGO] = { .name = "algo", .kind = BT_P_LIST, .def = "md5", .choices = algo_choices },
	[P_NAME] = { .name = "name", .kind = BT_P_STRING, .def = "a", .check = check_not_x },
	[P_REPS] = { .name = "reps", .kind = BT_P_INT, .def = "5", .min = 1, .max = 1000,
		     .flags = BT_PF_NOSWEEP },
	[P_ANY] = { .name = "any", .kind = BT_P_INT, .def = "0" },	/* no range */
	[P_SILENT] = { .name = "silent", .kind = BT_P_STRING, .def = "", .check = check_silent },
};

/* Parse text as tab[i] and expect success with value i and canonical text. */
static void ok(int i, const char *text, int64_t want, const char *canon)
{
	struct bt_value v;
	struct bt_err err = { "" };
	int rc = bt_param_parse(&tab[i], text, &v, &err);

	if (rc != 0)
		fail_msg("%s=%s: unexpected error: %s", tab[i].name, text, err.msg);
	assert_int_equal(v.i, want);
	assert_string_equal(v.text, canon);
}

/* Parse text as tab[i] and expect -EINVAL with exactly msg; out untouched. */
static void bad(int i, const char *text, const char *msg)
{
	struct bt_value v;
	struct bt_err err = { "" };

	memset(&v, 0x5a, sizeof(v));
	assert_int_equal(bt_param_parse(&tab[i], text, &v, &err), -EINVAL);
	assert_string_equal(err.msg, msg);
	assert_int_equal(v.i, 0x5a5a5a5a5a5a5a5aLL);
}

static void test_int(void **state)
{
	ok(P_THREADS, "8", 8, "8");
	ok(P_THREADS, "+8", 8, "8");
	ok(P_THREADS, "1", 1, "1");
	ok(P_THREADS, "1024", 1024, "1024");
	ok(P_THREADS, "0008", 8, "8");
	bad(P_THREADS, "0", "threads=0: must be 1..1024");
	bad(P_THREADS, "1025", "threads=1025: must be 1..1024");
	bad(P_THREADS, "-1", "threads=-1: must be 1..1024");
	bad(P_THREADS, "8x", "threads=8x: must be an integer (1..1024)");
	bad(P_THREADS, "", "threads=: must be an integer (1..1024)");
	bad(P_THREADS, " 8", "threads= 8: must be an integer (1..1024)");
	bad(P_THREADS, "8 ", "threads=8 : must be an integer (1..1024)");
	bad(P_THREADS, "1.5", "threads=1.5: must be an integer (1..1024)");
	bad(P_THREADS, "-", "threads=-: must be an integer (1..1024)");
	bad(P_THREADS, "99999999999999999999", "threads=99999999999999999999: must be 1..1024");
	/* min == max == 0: the whole int64_t range. */
	ok(P_ANY, "-5", -5, "-5");
	ok(P_ANY, "9223372036854775807", INT64_MAX, "9223372036854775807");
	ok(P_ANY, "-9223372036854775808", INT64_MIN, "-9223372036854775808");
	bad(P_ANY, "9223372036854775808",
	    "any=9223372036854775808: must be -9223372036854775808..9223372036854775807");
	bad(P_ANY, "-9223372036854775809",
	    "any=-9223372036854775809: must be -9223372036854775808..9223372036854775807");
}

static void test_size(void **state)
{
	ok(P_BLOCK, "64K", 65536, "64K");
	ok(P_BLOCK, "64k", 65536, "64K");
	ok(P_BLOCK, "1M", 1 << 20, "1M");
	ok(P_BLOCK, "1MiB", 1 << 20, "1M");
	ok(P_BLOCK, "1MB", 1 << 20, "1M");
	ok(P_BLOCK, "1mib", 1 << 20, "1M");
	ok(P_BLOCK, "4096", 4096, "4K");
	ok(P_BLOCK, "100", 100, "100");
	ok(P_BLOCK, "100B", 100, "100");
	ok(P_BLOCK, "1.5K", 1536, "1536");
	ok(P_BLOCK, "0.5M", 512 << 10, "512K");
	ok(P_BLOCK, "1.50K", 1536, "1536");
	ok(P_BLOCK, "16M", 16 << 20, "16M");
	ok(P_BLOCK, "16", 16, "16");
	bad(P_BLOCK, "1.3K", "block=1.3K: must be a whole number of bytes (16..16M)");
	bad(P_BLOCK, "16.5", "block=16.5: must be a whole number of bytes (16..16M)");
	bad(P_BLOCK, "-1", "block=-1: must be a size like 4096, 64K, 1M (16..16M)");
	bad(P_BLOCK, "", "block=: must be a size like 4096, 64K, 1M (16..16M)");
	bad(P_BLOCK, "K", "block=K: must be a size like 4096, 64K, 1M (16..16M)");
	bad(P_BLOCK, "1X", "block=1X: must be a size like 4096, 64K, 1M (16..16M)");
	bad(P_BLOCK, "64iB", "block=64iB: must be a size like 4096, 64K, 1M (16..16M)");
	bad(P_BLOCK, "1KK", "block=1KK: must be a size like 4096, 64K, 1M (16..16M)");
	bad(P_BLOCK, "1..5K", "block=1..5K: must be a size like 4096, 64K, 1M (16..16M)");
	bad(P_BLOCK, "1.K", "block=1.K: must be a size like 4096, 64K, 1M (16..16M)");
	bad(P_BLOCK, ".5K", "block=.5K: must be a size like 4096, 64K, 1M (16..16M)");
	bad(P_BLOCK, "64 K", "block=64 K: must be a size like 4096, 64K, 1M (16..16M)");
	bad(P_BLOCK, "15", "block=15: must be 16..16M");
	bad(P_BLOCK, "17M", "block=17M: must be 16..16M");
	bad(P_BLOCK, "99999999999T", "block=99999999999T: must be 16..16M");
	bad(P_BLOCK, "99999999999999999999", "block=99999999999999999999: must be 16..16M");
}

static void test_parse_size_helper(void **state)
{
	int64_t v = -7;

	assert_int_equal(bt_parse_size("1G", &v), 0);
	assert_int_equal(v, 1LL << 30);
	assert_int_equal(bt_parse_size("2T", &v), 0);
	assert_int_equal(v, 2LL << 40);
	assert_int_equal(bt_parse_size("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(bt_parse_size("8EiB", &v), -EINVAL);
	assert_int_equal(bt_parse_size("-1", &v), -EINVAL);
	assert_int_equal(bt_parse_size("9000000T", &v), -EINVAL);	/* overflows int64 */
	assert_int_equal(v, 0);
}

static void test_duration(void **state)
{
	ok(P_DURATION, "5ms", 5000000, "5ms");
	ok(P_DURATION, "1.5s", 1500000000, "1500ms");
	ok(P_DURATION, "250us", 250000, "250us");
	ok(P_DURATION, "100ns", 100, "100ns");
	ok(P_DURATION, "2m", 120000000000LL, "2m");
	ok(P_DURATION, "1h", 3600000000000LL, "1h");
	ok(P_DURATION, "0", 0, "0");
	ok(P_DURATION, "0.0", 0, "0");
	ok(P_DURATION, "0ms", 0, "0");
	ok(P_DURATION, "60s", 60000000000LL, "1m");
	ok(P_DURATION, "5000000ns", 5000000, "5ms");
	ok(P_DURATION, "1500ms", 1500000000, "1500ms");
	ok(P_DURATION, "0.5m", 30000000000LL, "30s");
	ok(P_DURATION, "5MS", 5000000, "5ms");
	ok(P_DURATION, "1.000005ms", 1000005, "1000005ns");
	ok(P_DURATION, "0.000000001s", 1, "1ns");
}

static void test_duration_errors(void **state)
{
	bad(P_DURATION, "-1", "duration=-1: must be a duration like 500ms, 2s (0..1h)");
	bad(P_DURATION, "5", "duration=5: needs a unit (ns, us, ms, s, m, h)");
	bad(P_DURATION, "1.5", "duration=1.5: needs a unit (ns, us, ms, s, m, h)");
	bad(P_DURATION, "", "duration=: must be a duration like 500ms, 2s (0..1h)");
	bad(P_DURATION, "ms", "duration=ms: must be a duration like 500ms, 2s (0..1h)");
	bad(P_DURATION, "5 ms", "duration=5 ms: must be a duration like 500ms, 2s (0..1h)");
	bad(P_DURATION, "5sec", "duration=5sec: must be a duration like 500ms, 2s (0..1h)");
	bad(P_DURATION, "1..5s", "duration=1..5s: must be a duration like 500ms, 2s (0..1h)");
	bad(P_DURATION, "2h", "duration=2h: must be 0..1h");
	bad(P_DURATION, "61m", "duration=61m: must be 0..1h");
	bad(P_DURATION, "99999999999h", "duration=99999999999h: must be 0..1h");
	bad(P_DURATION, "1.5ns",
	    "duration=1.5ns: must be a whole number of nanoseconds (0..1h)");
}

static void test_parse_duration_helper(void **state)
{
	int64_t ns = -7;

	assert_int_equal(bt_parse_duration("1.25us", &ns), 0);
	assert_int_equal(ns, 1250);
	assert_int_equal(bt_parse_duration("0", &ns), 0);
	assert_int_equal(ns, 0);
	assert_int_equal(bt_parse_duration("5", &ns), -EINVAL);
	assert_int_equal(bt_parse_duration("-5ms", &ns), -EINVAL);
	assert_int_equal(bt_parse_duration("0.1ns", &ns), -EINVAL);
	assert_int_equal(ns, 0);
}

static void test_enum(void **state)
{
	ok(P_LOCK, "mutex", 0, "mutex");
	ok(P_LOCK, "spin", 2, "spin");
	ok(P_LOCK, "ticket", 3, "ticket");
	ok(P_LOCK, "Adaptive", 1, "adaptive");
	bad(P_LOCK, "bogus", "lock=bogus: must be one of mutex, adaptive, spin, ticket");
	bad(P_LOCK, "", "lock=: must be one of mutex, adaptive, spin, ticket");
	bad(P_LOCK, "mutexx", "lock=mutexx: must be one of mutex, adaptive, spin, ticket");
	bad(P_LOCK, "mute", "lock=mute: must be one of mutex, adaptive, spin, ticket");
}

static void test_list(void **state)
{
	ok(P_ALGO, "md5", 1, "md5");
	ok(P_ALGO, "sha256+md5", 5, "md5+sha256");
	ok(P_ALGO, "md5+md5", 1, "md5");
	ok(P_ALGO, "sha256+sha1+md5+sha1", 7, "md5+sha1+sha256");
	ok(P_ALGO, "SHA1", 2, "sha1");
	bad(P_ALGO, "md5+bogus", "algo=md5+bogus: must be one or more of md5, sha1, sha256 joined by +");
	bad(P_ALGO, "md5++sha1", "algo=md5++sha1: must be one or more of md5, sha1, sha256 joined by +");
	bad(P_ALGO, "md5+", "algo=md5+: must be one or more of md5, sha1, sha256 joined by +");
	bad(P_ALGO, "", "algo=: must be one or more of md5, sha1, sha256 joined by +");
}

static void test_list_too_many_choices(void **state)
{
	static char names[65][8];
	const char *choices[66];
	struct bt_param p = { .name = "wide", .kind = BT_P_LIST };
	struct bt_value v;
	struct bt_err err;
	int i;

	for (i = 0; i < 65; i++) {
		snprintf(names[i], sizeof(names[i]), "c%d", i);
		choices[i] = names[i];
	}
	choices[65] = NULL;
	p.choices = choices;
	assert_int_equal(bt_param_parse(&p, "c1", &v, &err), -EINVAL);
	assert_string_equal(err.msg, "wide: a list parameter needs 1..64 choices");
	/* 64 choices is the most a mask holds, and the last bit works. */
	choices[64] = NULL;
	assert_int_equal(bt_param_parse(&p, "c63+c0", &v, &err), 0);
	assert_true((uint64_t)v.i == ((1ULL << 63) | 1));
	assert_string_equal(v.text, "c0+c63");
}

static void test_bool(void **state)
{
	static const char *const on[] = { "on", "true", "yes", "1", "ON", "Yes" };
	static const char *const off[] = { "off", "false", "no", "0", "OFF", "False" };
	size_t i;

	for (i = 0; i < sizeof(on) / sizeof(on[0]); i++)
		ok(P_VERIFY, on[i], 1, "on");
	for (i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		ok(P_VERIFY, off[i], 0, "off");
	bad(P_VERIFY, "maybe", "verify=maybe: must be on or off");
	bad(P_VERIFY, "", "verify=: must be on or off");
	bad(P_VERIFY, "2", "verify=2: must be on or off");
}

static void test_string(void **state)
{
	char s[300], msg[BT_ERR_MAX];

	ok(P_NAME, "hello world", 0, "hello world");
	ok(P_NAME, "", 0, "");
	ok(P_NAME, "xx", 0, "xx");
	bad(P_NAME, "x", "name=x: x is reserved");
	bad(P_SILENT, "q", "silent=q: not allowed");
	ok(P_SILENT, "r", 0, "r");

	memset(s, 'a', 255);
	s[255] = '\0';
	ok(P_NAME, s, 0, s);
	s[255] = 'a';
	s[256] = '\0';
	snprintf(msg, sizeof(msg), "name=%.64s...: too long (at most 255 bytes)", s);
	bad(P_NAME, s, msg);
}

static void test_long_value_is_cut_in_message(void **state)
{
	char s[200], msg[BT_ERR_MAX];

	memset(s, '9', 150);
	s[150] = '\0';
	snprintf(msg, sizeof(msg), "threads=%.64s...: must be 1..1024", s);
	bad(P_THREADS, s, msg);
}

static void test_defaults_parse(void **state)
{
	struct bt_value v;
	struct bt_err err;
	int i;

	for (i = 0; i < NPARAMS; i++)
		assert_int_equal(bt_param_parse(&tab[i], tab[i].def, &v, &err), 0);
	assert_int_equal(bt_param_parse(&tab[P_BLOCK], tab[P_BLOCK].def, &v, NULL), 0);
	assert_int_equal(bt_param_parse(&tab[P_BLOCK], "1", &v, NULL), -EINVAL);
}

/* Split text and compare with the expected tokens (n of them). */
static void split_is(const char *text, int n, ...)
{
	char **tok = NULL;
	va_list ap;
	int got, i;

	got = bt_param_split(text, &tok);
	assert_int_equal(got, n);
	va_start(ap, n);
	for (i = 0; i < n; i++)
		assert_string_equal(tok[i], va_arg(ap, const char *));
	va_end(ap);
	bt_param_tokens_free(tok, got);
}

static void test_split(void **state)
{
	char **tok = (char **)&tok;

	split_is("8", 1, "8");
	split_is("1,2,4,8", 4, "1", "2", "4", "8");
	split_is("none,list:0,2,4-7,compact", 3, "none", "list:0,2,4-7", "compact");
	split_is("list:0,2,4-7", 1, "list:0,2,4-7");
	split_is("list:0-3,list:4-7", 2, "list:0-3", "list:4-7");
	split_is("list:0,a", 2, "list:0", "a");
	split_is("list:", 1, "list:");
	split_is("mutex,adaptive", 2, "mutex", "adaptive");
	split_is("a+b,c", 2, "a+b", "c");

	assert_int_equal(bt_param_split("1,,2", &tok), -EINVAL);
	assert_null(tok);
	assert_int_equal(bt_param_split("1,2,", &tok), -EINVAL);
	assert_int_equal(bt_param_split(",1", &tok), -EINVAL);
	assert_int_equal(bt_param_split("", &tok), -EINVAL);
	assert_int_equal(bt_param_split(",", &tok), -EINVAL);
	assert_int_equal(bt_param_split("list:0,2,", &tok), -EINVAL);
	assert_null(tok);
	bt_param_tokens_free(NULL, 0);
}

static void test_find(void **state)
{
	assert_ptr_equal(bt_param_find(tab, NPARAMS, "lock"), &tab[P_LOCK]);
	assert_ptr_equal(bt_param_find(tab, NPARAMS, "threads"), &tab[P_THREADS]);
	assert_null(bt_param_find(tab, NPARAMS, "Lock"));
	assert_null(bt_param_find(tab, NPARAMS, "bogus"));
	assert_null(bt_param_find(tab, 0, "threads"));
}

static void test_allowed(void **state)
{
	char buf[128];

	bt_param_allowed(&tab[P_THREADS], buf, sizeof(buf));
	assert_string_equal(buf, "1..1024");
	bt_param_allowed(&tab[P_LOCK], buf, sizeof(buf));
	assert_string_equal(buf, "mutex|adaptive|spin|ticket");
	bt_param_allowed(&tab[P_BLOCK], buf, sizeof(buf));
	assert_string_equal(buf, "16..16M");
	bt_param_allowed(&tab[P_DURATION], buf, sizeof(buf));
	assert_string_equal(buf, "0..1h");
	bt_param_allowed(&tab[P_VERIFY], buf, sizeof(buf));
	assert_string_equal(buf, "on|off");
	bt_param_allowed(&tab[P_ALGO], buf, sizeof(buf));
	assert_string_equal(buf, "md5|sha1|sha256, joined by +");
	bt_param_allowed(&tab[P_NAME], buf, sizeof(buf));
	assert_string_equal(buf, "text");
	bt_param_allowed(&tab[P_ANY], buf, sizeof(buf));
	assert_string_equal(buf, "integer");
	/* A short buffer is cut, still terminated. */
	bt_param_allowed(&tab[P_LOCK], buf, 8);
	assert_string_equal(buf, "mutex|a");
}

static void test_kind_names(void **state)
{
	assert_string_equal(bt_pkind_name(BT_P_INT), "int");
	assert_string_equal(bt_pkind_name(BT_P_SIZE), "size");
	assert_string_equal(bt_pkind_name(BT_P_DURATION), "duration");
	assert_string_equal(bt_pkind_name(BT_P_ENUM), "enum");
	assert_string_equal(bt_pkind_name(BT_P_LIST), "list");
	assert_string_equal(bt_pkind_name(BT_P_BOOL), "bool");
	assert_string_equal(bt_pkind_name(BT_P_STRING), "string");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_parse_size_helper),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_duration_errors),
		cmocka_unit_test(test_parse_duration_helper),
		cmocka_unit_test(test_enum),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_list_too_many_choices),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_string),
		cmocka_unit_test(test_long_value_is_cut_in_message),
		cmocka_unit_test(test_defaults_parse),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_allowed),
		cmocka_unit_test(test_kind_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
