/*
 * fuzz_driver.h - the part the fuzz targets share: a libFuzzer entry point
 * and, for ordinary builds, a bounded deterministic mutation loop.
 *
 * A target defines FUZZ_NAME and FUZZ_SEED_PREFIX (the corpus files it
 * takes as seeds: "recording", "plan"), includes this file, and defines
 * `static void fuzz_one(const char *path)`, which reads the input from the
 * file at path (the readers under test take files; fuzz_slurp reads it
 * whole) and calls inconsistent() on what must not happen, and
 * `static void fuzz_report(void)`, which prints its counts.
 *
 * Built with clang -fsanitize=fuzzer -DBT_LIBFUZZER, only
 * LLVMFuzzerTestOneInput is provided and libFuzzer drives it. Otherwise main
 * takes the corpus directory (argv[1]), loads every file in it as a seed,
 * and feeds mutated inputs (bit flips, byte inserts and deletes, cuts,
 * line splices between seeds, interesting numbers and tokens) from a fixed
 * PRNG seed, stopping after BT_FUZZ_ITERS inputs (default 20000) or
 * BT_FUZZ_SECONDS seconds (default 20), whichever comes first
 * (BT_FUZZ_SEED picks another sequence for longer hunts). A crash
 * leaves the input that caused it in the file named at start.
 *
 * Limits per input, so that a hang or a blow-up fails the test instead of
 * timing out CI: one input may take BT_FUZZ_INPUT_SECONDS (default 10;
 * SIGALRM then aborts with the input's path) and the process may reach
 * BT_FUZZ_MAX_MB of resident memory (default 1024, checked after every
 * input). Without a sanitizer, RLIMIT_AS stops a runaway allocation at 4x
 * that; under ASan, which reserves terabytes of shadow address space,
 * __asan_default_options sets hard_rss_limit_mb and max_allocation_size_mb
 * to the same end.
 *
 * fuzz_capped_open gives the writer targets a FILE whose output is counted,
 * kept (its first FUZZ_KEEP bytes) and capped: past the cap it aborts.
 */
#ifndef BT_TESTS_FUZZ_DRIVER_H
#define BT_TESTS_FUZZ_DRIVER_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FUZZ_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FUZZ_SANITIZED 1
#endif
#endif

static void fuzz_one(const char *path);

/* The target's: what it counted, printed once the inputs are done. */
static void fuzz_report(void) __attribute__((unused));

/* The input being run, for the messages of the limits. */
static char fuzz_input_path[256];

/*
 * What the code under test did is inconsistent: say what, and where the
 * input is, and abort (the input stays where it is).
 */
__attribute__((format(printf, 1, 2), noreturn, unused))
static void inconsistent(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: inconsistent: ", FUZZ_NAME);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (input: %s)\n", fuzz_input_path);
	abort();
}

/*
 * The input at path, whole (the driver keeps inputs under 1 MiB) and
 * NUL-terminated; *len its size. Aborts when it cannot be read. Free it.
 */
__attribute__((unused))
static char *fuzz_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc((1u << 20) + 1);

	if (f == NULL || buf == NULL) {
		perror(path);
		abort();
	}
	*len = fread(buf, 1, 1u << 20, f);
	if (ferror(f)) {
		perror(path);
		abort();
	}
	fclose(f);
	buf[*len] = '\0';
	return buf;
}

#ifdef FUZZ_SANITIZED
const char *__asan_default_options(void);

/*
 * ASan's own limits (ASAN_OPTIONS still overrides them): a single allocation
 * over 1 GiB, or a resident set over 2 GiB, is reported as an error.
 */
const char *__asan_default_options(void)
{
	return "max_allocation_size_mb=1024:hard_rss_limit_mb=2048";
}
#endif

/* --- a counted, capped output stream -------------------------------------- */

#define FUZZ_KEEP (4u << 20)

struct fuzz_out {
	size_t len, cap;	/* bytes written; the cap past which it aborts */
	char *keep;		/* the first FUZZ_KEEP bytes, NUL-terminated */
	size_t kept;
	const char *what;	/* what writes it, for the message */
};

__attribute__((unused))
static ssize_t fuzz_out_write(void *cookie, const char *buf, size_t n)
{
	struct fuzz_out *o = cookie;

	if (o->len + n > o->cap) {
		fprintf(stderr, "%s: output of %s exceeds %zu bytes (input: %s)\n",
			FUZZ_NAME, o->what, o->cap, fuzz_input_path);
		abort();
	}
	if (o->kept < FUZZ_KEEP) {
		size_t k = n < FUZZ_KEEP - o->kept ? n : FUZZ_KEEP - o->kept;

		memcpy(o->keep + o->kept, buf, k);
		o->kept += k;
		o->keep[o->kept] = '\0';
	}
	o->len += n;
	return (ssize_t)n;
}

/*
 * A FILE that counts what is written to it and aborts past cap bytes; o
 * keeps the first FUZZ_KEEP bytes (o->kept < o->len: the rest was counted
 * only). Close with fclose, then free o->keep.
 */
__attribute__((unused))
static FILE *fuzz_capped_open(struct fuzz_out *o, size_t cap, const char *what)
{
	cookie_io_functions_t io = { .write = fuzz_out_write };
	FILE *f;

	memset(o, 0, sizeof(*o));
	o->cap = cap;
	o->what = what;
	o->keep = malloc(FUZZ_KEEP + 1);
	if (o->keep == NULL)
		abort();
	o->keep[0] = '\0';
	f = fopencookie(o, "w", io);
	if (f == NULL)
		abort();
	return f;
}

/* --- limits on one input --------------------------------------------------- */

static unsigned fuzz_input_seconds = 10;
static long fuzz_max_mb = 1024;

__attribute__((unused))
static void fuzz_on_alarm(int sig)
{
	static const char msg[] = FUZZ_NAME ": an input ran past its time limit (a hang?); it is in ";

	(void)sig;
	(void)!write(2, msg, sizeof(msg) - 1);
	(void)!write(2, fuzz_input_path, strlen(fuzz_input_path));
	(void)!write(2, "\n", 1);
	abort();
}

__attribute__((unused))
static void fuzz_limits(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fuzz_on_alarm;
	sigaction(SIGALRM, &sa, NULL);
#ifndef FUZZ_SANITIZED
	{
		rlim_t want = (rlim_t)fuzz_max_mb << 22;	/* 4x, in bytes */
		struct rlimit rl;

		if (getrlimit(RLIMIT_AS, &rl) == 0 && (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > want) &&
		    (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want)) {
			rl.rlim_cur = want;
			setrlimit(RLIMIT_AS, &rl);
		}
	}
#endif
}

/* One input under the limits: a time limit around it, the resident peak after it. */
__attribute__((unused))
static void fuzz_run_one(const char *path)
{
	struct rusage ru;

	alarm(fuzz_input_seconds);
	fuzz_one(path);
	alarm(0);
	if (getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_maxrss / 1024 > fuzz_max_mb) {
		fprintf(stderr, "%s: resident memory reached %ld MB (limit %ld): the input is in %s\n",
			FUZZ_NAME, ru.ru_maxrss / 1024, fuzz_max_mb, path);
		abort();
	}
}

/* Write data to path (replacing it). */
static void fuzz_write(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t off = 0;

	if (fd < 0) {
		perror(path);
		abort();
	}
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);

		if (w <= 0) {
			perror(path);
			abort();
		}
		off += (size_t)w;
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];

	if (path[0] == '\0') {
		snprintf(path, sizeof(path), "/tmp/%s-%d.input", FUZZ_NAME, (int)getpid());
		snprintf(fuzz_input_path, sizeof(fuzz_input_path), "%s", path);
	}
	fuzz_write(path, data, size);
	fuzz_one(path);
	return 0;
}

#ifndef BT_LIBFUZZER

#define FUZZ_MAX_INPUT (1u << 20)
#define FUZZ_MAX_SEEDS 64

struct buf {
	uint8_t *p;
	size_t len;
};

static uint64_t rng_state = 0x5eedf00dcafe1234ull;

/* xorshift64*: small, fast, and the same sequence everywhere. */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static void buf_insert(struct buf *b, size_t at, const void *src, size_t n)
{
	if (b->len + n > FUZZ_MAX_INPUT)
		return;
	memmove(b->p + at + n, b->p + at, b->len - at);
	memcpy(b->p + at, src, n);
	b->len += n;
}

static void buf_erase(struct buf *b, size_t at, size_t n)
{
	if (at + n > b->len)
		n = b->len - at;
	memmove(b->p + at, b->p + at + n, b->len - at - n);
	b->len -= n;
}

/* Start and length of the line that holds byte at (newline included). */
static void line_at(const struct buf *b, size_t at, size_t *start, size_t *len)
{
	size_t s = at, e = at;

	while (s > 0 && b->p[s - 1] != '\n')
		s--;
	while (e < b->len && b->p[e] != '\n')
		e++;
	if (e < b->len)
		e++;
	*start = s;
	*len = e - s;
}

static const char *const interesting[] = {
	"0", "-1", "1", "2", "255", "65536", "2147483647", "2147483648", "-2147483649",
	"4294967296", "9223372036854775807", "-9223372036854775808", "18446744073709551616",
	"1e308", "-1e308", "1e-320", "0.5", "1.0", "3600000000000", "69631", "69632", "null",
	"true", "false", "\"\"", "\"x\"", "[]", "{}", "[[0,1]]", "[[69631,1]]", "[[-1,1]]",
};

static const char *const tokens[] = {
	"{", "}", "[", "]", ",", ":", "\"", "\n", "\\", "\\u0000", "\xff", "\x00",
	"\"type\":\"rep\",", "\"type\":\"cell\",", "\"type\":\"end\",", "\"type\":\"header\",",
	"\"type\":\"sample\",", "\"cell\":0,", "\"cell\":-1,", "\"cell\":99999,", "\"rep\":0,",
	"\"hist\":{\"min\":1,\"max\":2,\"sum\":3,\"b\":[[1,1]]},", "\"hist\":null,",
	"\"workers\":[{\"ops\":1}],", "\"benchtop_recording\":2,", "\"benchtop_plan\":2,",
	"\"params\":{},", "\"axes\":[\"threads\",\"threads\"],", "\"threads\":[1,2,3],",
	"\"status\":\"complete\",", "\"nreps\":3,", "\"warmup\":true,", "\"ok\":false,",
	"\"values\":[\"1\"],", "\"reps\":1000000,", "\"cells\":[],",
};

/* Replace the run of digits (and sign, dot, exponent) at a random place with an interesting value. */
static void mutate_number(struct buf *b)
{
	size_t at = below(b->len), s, e;
	const char *v = interesting[below(sizeof(interesting) / sizeof(interesting[0]))];

	while (at < b->len && !(b->p[at] >= '0' && b->p[at] <= '9'))
		at++;
	if (at >= b->len)
		return;
	s = e = at;
	while (s > 0 && strchr("0123456789.-+eE", b->p[s - 1]) != NULL)
		s--;
	while (e < b->len && strchr("0123456789.-+eE", b->p[e]) != NULL)
		e++;
	buf_erase(b, s, e - s);
	buf_insert(b, s, v, strlen(v));
}

static void mutate(struct buf *b, const struct buf *seeds, int nseeds)
{
	int kind = (int)below(11);
	size_t at = below(b->len + 1);

	switch (kind) {
	case 0:		/* bit flip */
		if (b->len)
			b->p[below(b->len)] ^= (uint8_t)(1u << below(8));
		break;
	case 1: {	/* insert a byte */
		uint8_t c = (uint8_t)rnd();

		buf_insert(b, at, &c, 1);
		break;
	}
	case 2:		/* delete a few bytes */
		if (b->len)
			buf_erase(b, below(b->len), 1 + below(16));
		break;
	case 3:		/* cut */
		b->len = below(b->len + 1);
		break;
	case 4: {	/* splice a line of another seed in place of one of ours */
		const struct buf *o = &seeds[below((size_t)nseeds)];
		size_t s1, l1, s2, l2;

		if (!b->len || !o->len)
			break;
		line_at(b, below(b->len), &s1, &l1);
		line_at(o, below(o->len), &s2, &l2);
		buf_erase(b, s1, l1);
		buf_insert(b, s1, o->p + s2, l2);
		break;
	}
	case 5: {	/* duplicate a line */
		size_t s, l;
		uint8_t *tmp;

		if (!b->len)
			break;
		line_at(b, below(b->len), &s, &l);
		tmp = malloc(l + 1);
		if (tmp == NULL)
			break;
		memcpy(tmp, b->p + s, l);
		buf_insert(b, s, tmp, l);
		free(tmp);
		break;
	}
	case 6: {	/* delete a line */
		size_t s, l;

		if (!b->len)
			break;
		line_at(b, below(b->len), &s, &l);
		buf_erase(b, s, l);
		break;
	}
	case 7:
	case 8:
		mutate_number(b);
		break;
	case 9: {	/* insert a token */
		const char *t = tokens[below(sizeof(tokens) / sizeof(tokens[0]))];
		size_t n = t[0] ? strlen(t) : 1;

		buf_insert(b, at, t, n);
		break;
	}
	default: {	/* overwrite a byte with a structural one */
		static const char structural[] = "{}[],:\"\n 0-e.";

		if (b->len)
			b->p[below(b->len)] = (uint8_t)structural[below(sizeof(structural) - 1)];
		break;
	}
	}
}

static int load_seeds(const char *dir, struct buf *seeds)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), nseeds = 0;

	if (n < 0) {
		fprintf(stderr, "%s: %s: %s\n", FUZZ_NAME, dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && nseeds < FUZZ_MAX_SEEDS &&
		    strncmp(names[i]->d_name, FUZZ_SEED_PREFIX, strlen(FUZZ_SEED_PREFIX)) == 0 &&
		    stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode) && (size_t)st.st_size < FUZZ_MAX_INPUT &&
		    (f = fopen(path, "rb")) != NULL) {
			seeds[nseeds].p = malloc(FUZZ_MAX_INPUT);
			if (seeds[nseeds].p != NULL) {
				seeds[nseeds].len = fread(seeds[nseeds].p, 1, FUZZ_MAX_INPUT, f);
				nseeds++;
			}
			fclose(f);
		}
		free(names[i]);
	}
	free(names);
	return nseeds;
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v != NULL && v[0] ? strtol(v, NULL, 10) : def;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct buf seeds[FUZZ_MAX_SEEDS], cur;
	long iters = env_long("BT_FUZZ_ITERS", 20000), secs = env_long("BT_FUZZ_SECONDS", 20);
	char path[256];
	const char *tmp = getenv("TMPDIR");
	double t0 = now_s();
	long i;
	int nseeds;

	if (getenv("BT_FUZZ_SEED") != NULL)	/* another sequence, for longer hunts */
		rng_state ^= (uint64_t)env_long("BT_FUZZ_SEED", 0) * 0x9e3779b97f4a7c15ull;
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	nseeds = load_seeds(argv[1], seeds);
	if (nseeds <= 0) {
		fprintf(stderr, "%s: no seed files in %s\n", FUZZ_NAME, argv[1]);
		return 1;
	}
	fuzz_input_seconds = (unsigned)env_long("BT_FUZZ_INPUT_SECONDS", 10);
	fuzz_max_mb = env_long("BT_FUZZ_MAX_MB", 1024);
	fuzz_limits();
	cur.p = malloc(FUZZ_MAX_INPUT);
	if (cur.p == NULL) {
		fprintf(stderr, "%s: out of memory (BT_FUZZ_MAX_MB=%ld)\n", FUZZ_NAME, fuzz_max_mb);
		return 1;
	}
	/* Thousands of small writes: a RAM file system when there is one. */
	if (tmp == NULL || tmp[0] == '\0')
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(path, sizeof(path), "%s/%s-%d.input", tmp, FUZZ_NAME, (int)getpid());
	snprintf(fuzz_input_path, sizeof(fuzz_input_path), "%s", path);
	printf("%s: %d seeds from %s; each input goes through %s (left there on a crash)\n",
	       FUZZ_NAME, nseeds, argv[1], path);
	fflush(stdout);

	/* The seeds themselves first, unchanged. */
	for (i = 0; i < nseeds; i++) {
		fuzz_write(path, seeds[i].p, seeds[i].len);
		fuzz_run_one(path);
	}
	for (; i < iters; i++) {
		const struct buf *s = &seeds[below((size_t)nseeds)];
		int nmut = below(2) ? 1 : 1 + (int)below(8);	/* half the inputs: one change */

		if ((i & 63) == 0 && now_s() - t0 > (double)secs)
			break;
		memcpy(cur.p, s->p, s->len);
		cur.len = s->len;
		for (int k = 0; k < nmut; k++)
			mutate(&cur, seeds, nseeds);
		fuzz_write(path, cur.p, cur.len);
		fuzz_run_one(path);
	}
	unlink(path);
	fuzz_report();
	printf("%s: %ld inputs, 0 crashes (%.1f s; limits per input: %u s, %ld MB)\n",
	       FUZZ_NAME, i, now_s() - t0, fuzz_input_seconds, fuzz_max_mb);
	free(cur.p);
	for (int k = 0; k < nseeds; k++)
		free(seeds[k].p);
	return 0;
}

#endif /* BT_LIBFUZZER */

#endif
