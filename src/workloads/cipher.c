/*
 * cipher.c - ECB encryption of one large buffer, serial and with OpenMP: the
 * classic experiment that shows wall time against CPU time.
 *
 * The buffer (size=, default 100 MiB) is cut into work units of grain=
 * bytes (default: one cipher block, 16 bytes for AES, 8 for GOST), each
 * encrypted by one call: EVP_EncryptUpdate for aes-128-ecb, the table-driven
 * GOST 28147-89 of gost89.c for gost89.
 *
 *   serial        one thread, units in order
 *   omp-for       #pragma omp parallel for schedule(static) over the units:
 *                 each thread gets one contiguous range
 *   omp-sections  #pragma omp sections, one section per thread; section k
 *                 does units k, k+T, k+2T, ... (interleaved: neighbouring
 *                 units, and with small units the same cache lines, belong
 *                 to different threads)
 *
 * threads= is the OpenMP team size (refused when OpenMP gives fewer), and
 * each team thread pins itself to the CPU the plan's pin= policy gives it
 * (struct bt_job's team_cpus). The engine runs one worker, which starts the
 * team, so a rep's wall time is the whole pass and its user + sys time is
 * every thread's. The rep's verify text adds what clock() - process CPU
 * time, the classic pitfall - says for the same pass, their ratio (the
 * effective parallelism) and the speedup over the fastest serial rep of the
 * same algo, size and grain seen by this process.
 *
 * Every mode must produce the same ciphertext: verify compares a SHA-256 of
 * it with the one of a single bulk serial encryption, made once per process
 * for each algo and size. Both ciphers are checked against published vectors
 * before anything is measured.
 *
 * buffer= (default 0: the whole size) is the memory the pass goes through.
 * Smaller, it is the way `openssl speed` works: each team thread encrypts
 * one buffer-sized block again and again (its k-th unit at offset k * grain
 * modulo buffer, into its own output block), so the data stays in L1 and
 * the figure is the cipher's, not memory's; size= is still the bytes
 * encrypted and counted. Verify then compares every thread's output block,
 * as far as it got, with a serial encryption of the input block.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <openssl/evp.h>

#include "bt_config.h"
#if BT_HAVE_OPENMP
#include <omp.h>
#endif
#include "core/sysinfo.h"
#include "core/units.h"
#include "engines/pin.h"
#include "engines/workload.h"
#include "workloads/gost89.h"

enum { P_THREADS, P_ALGO, P_MODE, P_SIZE, P_GRAIN, P_BUFFER, P_COUNT };
enum { A_AES128, A_GOST89, A_COUNT };
enum { M_SERIAL, M_FOR, M_SECTIONS };

#define MAX_TEAM 64		/* the sections construct below has this many sections */

static const char *const algo_choices[] = { "aes-128-ecb", "gost89", NULL };
static const char *const mode_choices[] = { "serial", "omp-for", "omp-sections", NULL };
static const size_t block_size[A_COUNT] = { 16, BT_GOST89_BLOCK };

static const struct bt_param params[] = {
	[P_THREADS] = { .name = "threads", .kind = BT_P_INT, .def = "1", .min = 1, .max = MAX_TEAM,
			.help = "OpenMP team size (mode=serial runs on one thread)",
			.ticks = "1,2,4,8,16,32,64",
			.flags = BT_PF_WORKERS },
	[P_ALGO] = { .name = "algo", .kind = BT_P_ENUM, .def = "aes-128-ecb",
		     .choices = algo_choices,
		     .help = "aes-128-ecb (OpenSSL EVP) or gost89 (GOST 28147-89, table lookups)" },
	[P_MODE] = { .name = "mode", .kind = BT_P_ENUM, .def = "serial", .choices = mode_choices,
		     .help = "serial, omp-for (parallel for, static), omp-sections (interleaved units)" },
	[P_SIZE] = { .name = "size", .kind = BT_P_SIZE, .def = "100M", .min = 16,
		     .max = 1ll << 36, .help = "bytes encrypted per rep (a multiple of the block size)" },
	[P_GRAIN] = { .name = "grain", .kind = BT_P_SIZE, .def = "0", .min = 0, .max = 1 << 30,
		      .help = "bytes per work unit, one cipher call each (0: one cipher block)",
		      .ticks = "0,64,1K,16K" },
	[P_BUFFER] = { .name = "buffer", .kind = BT_P_SIZE, .def = "0", .min = 0, .max = 1ll << 36,
		       .help = "memory the pass goes through (0: size=; 16K: one L1-resident block "
			       "re-encrypted per thread, as openssl speed does)",
		       .ticks = "0,16K,1M" },
};

/*
 * Keys and published vectors. AES-128: FIPS-197 appendix C.1. GOST: RFC
 * 8891 appendix A.3 (GOST R 34.12-2015 "Magma" = GOST 28147-89 with the
 * param-Z S-boxes), key words K1..K8 and the block as the number a1||a0.
 */
static const unsigned char aes_key[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};
static const unsigned char aes_pt[16] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
	0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
};
static const unsigned char aes_ct[16] = {
	0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
	0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a,
};
static const uint32_t gost_key[8] = {
	0xffeeddcc, 0xbbaa9988, 0x77665544, 0x33221100,
	0xf0f1f2f3, 0xf4f5f6f7, 0xf8f9fafb, 0xfcfdfeff,
};
#define GOST_PT 0xfedcba9876543210ull
#define GOST_CT 0x4ee901e5c2d8ca3dull

/* ---- process-wide caches, under cache_lock ------------------------------ */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static int vectors_ok[A_COUNT];

#define NCACHE 16
/* SHA-256 of the bulk serial ciphertext per (algo, size). */
static struct {
	int used, algo;
	size_t size;
	unsigned char sha[32];
} refs[NCACHE];
static int refs_next;
/* Fastest serial rep per (algo, size, grain), for the speedup. */
static struct {
	int used, algo;
	size_t size, grain, buffer;
	double wall;
} serial_best[NCACHE];
static int serial_next;

/* ---- the job ------------------------------------------------------------- */

struct cipher_state {
	int algo, mode, threads;
	size_t size, grain, nunits;
	size_t buffer;			/* < size: one block per thread, re-encrypted */
	size_t stride;			/* from one thread's output block to the next */
	unsigned char *refct;		/* [buffer] the block's ciphertext (buffer < size) */
	unsigned char *in, *out;	/* mapped (big_alloc): in_len and out_len bytes */
	size_t in_len, out_len;
	struct bt_gost89 gost;
	EVP_CIPHER *evp;
	EVP_CIPHER_CTX **ctx;		/* [threads]: one per team thread */
	unsigned char ref[32];		/* SHA-256 the ciphertext must have */

	/* Written by the worker and its team during the pass. */
	_Atomic int team_seen;		/* omp_get_num_threads() in the region */
	_Atomic int pin_failed;		/* 1 + the team thread that could not pin */
	_Atomic int stopped;		/* the pass was cut short by stop */
	int *cpu_seen;			/* [threads]: CPU of each team thread, -1: not in the team */
	uint64_t *units;		/* [threads]: units each team thread encrypted */
	int *section_thread;		/* [threads]: team thread that ran section k */
	_Atomic int *handoff;		/* [threads]: set (release) by each team thread when done */
	double wall_s, clock_s;
};

static int cipher_check(const struct bt_value *const *p, struct bt_err *err)
{
	int algo = (int)p[P_ALGO]->i;
	size_t bs = block_size[algo];
	uint64_t size = (uint64_t)p[P_SIZE]->i, grain = (uint64_t)p[P_GRAIN]->i;
	uint64_t buf = (uint64_t)p[P_BUFFER]->i;

	if (size % bs)
		return bt_err_set(err, -EINVAL, "size=%s: must be a multiple of %s's %zu-byte block",
				  p[P_SIZE]->text, algo_choices[algo], bs);
	if (grain % bs)
		return bt_err_set(err, -EINVAL, "grain=%s: must be 0 or a multiple of %s's %zu-byte block",
				  p[P_GRAIN]->text, algo_choices[algo], bs);
	if (grain > size)
		return bt_err_set(err, -EINVAL, "grain=%s: larger than size=%s", p[P_GRAIN]->text,
				  p[P_SIZE]->text);
	if (buf != 0 && (buf > size || buf % (grain ? grain : bs) || size % (grain ? grain : bs)))
		return bt_err_set(err, -EINVAL,
				  "buffer=%s: must be at most size=%s, and both multiples of the %" PRIu64
				  "-byte unit (grain=, else the block)", p[P_BUFFER]->text,
				  p[P_SIZE]->text, grain ? grain : (uint64_t)bs);
	/* Plaintext and ciphertext (one output block per thread with buffer=) must fit in memory. */
	{
		uint64_t in = buf ? buf : size, need = in + (buf ? buf * (uint64_t)p[P_THREADS]->i : size);
		uint64_t avail = bt_sysinfo_mem_available();
		char nb[32], ab[32];

		if (avail != 0 && need > avail / 10 * 9) {
			bt_fmt_bytes((double)need, nb, sizeof(nb));
			bt_fmt_bytes((double)avail, ab, sizeof(ab));
			return bt_err_set(err, -ENOMEM,
					  "size=%s: needs %s for its plaintext and ciphertext, more than the %s this machine has available",
					  p[P_SIZE]->text, nb, ab);
		}
	}
	return 0;
}

/* The published vector of algo, once per process. */
static int check_vector(int algo, const EVP_CIPHER *evp, struct bt_err *err)
{
	int rc = 0;

	pthread_mutex_lock(&cache_lock);
	if (!vectors_ok[algo] && algo == A_GOST89) {
		struct bt_gost89 g;
		uint64_t c;

		bt_gost89_init(&g, gost_key, bt_gost89_sbox_z);
		c = bt_gost89_encrypt64(&g, GOST_PT);
		if (c != GOST_CT || bt_gost89_decrypt64(&g, c) != GOST_PT)
			rc = bt_err_set(err, -EIO,
					"gost89: RFC 8891 vector gives %016" PRIx64 ", expected %016" PRIx64,
					c, (uint64_t)GOST_CT);
	} else if (!vectors_ok[algo]) {
		EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
		unsigned char ct[32];
		int n = 0;

		if (ctx == NULL || !EVP_EncryptInit_ex2(ctx, evp, aes_key, NULL, NULL) ||
		    !EVP_CIPHER_CTX_set_padding(ctx, 0) ||
		    !EVP_EncryptUpdate(ctx, ct, &n, aes_pt, sizeof(aes_pt)) || n != 16 ||
		    memcmp(ct, aes_ct, 16) != 0)
			rc = bt_err_set(err, -EIO,
					"aes-128-ecb: OpenSSL does not give the FIPS-197 C.1 vector");
		EVP_CIPHER_CTX_free(ctx);
	}
	if (rc == 0)
		vectors_ok[algo] = 1;
	pthread_mutex_unlock(&cache_lock);
	return rc;
}

/*
 * The buffers come straight from mmap: page-aligned, zeroed by the kernel
 * and faulted in as setup writes them in chunks, so a cancel is seen within
 * a chunk. From malloc, a gigabyte buffer could be filled whole inside the
 * allocator (MALLOC_PERTURB_, which meson test sets), where no cancel can
 * reach it.
 */
static unsigned char *big_alloc(size_t n)
{
	void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void big_free(unsigned char *p, size_t n)
{
	if (p != NULL)
		munmap(p, n ? n : 1);
}

static void cipher_teardown(struct bt_job *job)
{
	struct cipher_state *s = job->state;

	if (s == NULL)
		return;
	for (int i = 0; s->ctx != NULL && i < s->threads; i++)
		EVP_CIPHER_CTX_free(s->ctx[i]);
	free(s->ctx);
	EVP_CIPHER_free(s->evp);
	big_free(s->in, s->in_len);
	big_free(s->out, s->out_len);
	free(s->refct);
	free(s->cpu_seen);
	free(s->units);
	free(s->section_thread);
	free(s->handoff);
	free(s);
	job->state = NULL;
}

/* Encrypt len bytes of in into out with team thread tid's context. */
static inline int encrypt_span(struct cipher_state *s, int tid, const unsigned char *in,
			       unsigned char *out, size_t len)
{
	if (s->algo == A_GOST89) {
		bt_gost89_ecb_encrypt(&s->gost, in, out, len / BT_GOST89_BLOCK);
		return 0;
	}
	for (size_t done = 0; done < len;) {
		size_t n = len - done < (1u << 30) ? len - done : (1u << 30);
		int outl = 0;

		if (!EVP_EncryptUpdate(s->ctx[tid], out + done, &outl, in + done, (int)n) ||
		    (size_t)outl != n)
			return -EIO;
		done += n;
	}
	return 0;
}

/* Unit u, team thread tid's k-th: in place, or at k's offset in tid's block (buffer=). */
static inline int encrypt_unit(struct cipher_state *s, int tid, size_t u, size_t k)
{
	size_t off = u * s->grain, len = s->size - off < s->grain ? s->size - off : s->grain;

	if (s->buffer < s->size) {
		off = k * s->grain % s->buffer;
		return encrypt_span(s, tid, s->in + off, s->out + (size_t)tid * s->stride + off, len);
	}
	return encrypt_span(s, tid, s->in + off, s->out + off, len);
}

static void sha256(const unsigned char *p, size_t n, unsigned char out[32])
{
	EVP_Digest(p, n, out, NULL, EVP_sha256(), NULL);
}

/* A chunk of the setup's own bulk work: a cancel is seen within one. */
#define SETUP_CHUNK (64u << 20)

/* The whole buffer encrypted into s->out, 64 MiB at a time, giving up on cancel. */
static int encrypt_chunked(struct cipher_state *s, const struct bt_job *job, struct bt_err *err)
{
	for (size_t off = 0; off < s->size; off += SETUP_CHUNK) {
		size_t len = s->size - off < SETUP_CHUNK ? s->size - off : SETUP_CHUNK;

		if (bt_job_cancelled(job))
			return bt_err_set(err, -EINTR, "cancelled");
		if (encrypt_span(s, 0, s->in + off, s->out + off, len) < 0)
			return bt_err_set(err, -EIO, "%s: encryption failed", algo_choices[s->algo]);
	}
	return 0;
}

/*
 * The SHA-256 every mode's ciphertext must have: from the cache, or made by
 * one bulk encryption of the whole buffer into s->out (which setup clears
 * afterwards).
 */
static int reference(struct cipher_state *s, const struct bt_job *job, struct bt_err *err)
{
	int rc = 0, i;

	pthread_mutex_lock(&cache_lock);
	for (i = 0; i < NCACHE; i++)
		if (refs[i].used && refs[i].algo == s->algo && refs[i].size == s->size)
			break;
	if (i < NCACHE) {
		memcpy(s->ref, refs[i].sha, 32);
	} else if ((rc = encrypt_chunked(s, job, err)) < 0) {
		;
	} else {
		sha256(s->out, s->size, s->ref);
		i = refs_next++ % NCACHE;
		refs[i].used = 1;
		refs[i].algo = s->algo;
		refs[i].size = s->size;
		memcpy(refs[i].sha, s->ref, 32);
	}
	pthread_mutex_unlock(&cache_lock);
	return rc;
}

/* buffer=: the input block's ciphertext, kept whole (it is small) for verify. */
static int block_reference(struct cipher_state *s, struct bt_err *err)
{
	if ((s->refct = malloc(s->buffer)) == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	if (encrypt_span(s, 0, s->in, s->refct, s->buffer) < 0)
		return bt_err_set(err, -EIO, "%s: encryption failed", algo_choices[s->algo]);
	return 0;
}

static int cipher_setup(struct bt_job *job, struct bt_err *err)
{
	struct cipher_state *s;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t alloc;
	int rc;

	rc = cipher_check(job->params, err);
	if (rc < 0)
		return rc;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	job->state = s;
	s->algo = (int)bt_job_param(job, P_ALGO)->i;
	s->mode = (int)bt_job_param(job, P_MODE)->i;
	s->threads = (int)bt_job_param(job, P_THREADS)->i;
	s->size = (size_t)bt_job_param(job, P_SIZE)->i;
	s->grain = (size_t)bt_job_param(job, P_GRAIN)->i;
	if (s->grain == 0)
		s->grain = block_size[s->algo];
	s->buffer = (size_t)bt_job_param(job, P_BUFFER)->i;
	if (s->buffer == 0)
		s->buffer = s->size;
	s->nunits = (s->size + s->grain - 1) / s->grain;

	if (s->algo == A_AES128) {
		s->evp = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL);
		if (s->evp == NULL) {
			rc = bt_err_set(err, -ENOTSUP, "aes-128-ecb: OpenSSL has no AES-128-ECB");
			goto fail;
		}
	}
	rc = check_vector(s->algo, s->evp, err);
	if (rc < 0)
		goto fail;
	bt_gost89_init(&s->gost, gost_key, bt_gost89_sbox_z);

	/* buffer=: one input block, one output block per team thread, each on its own lines. */
	alloc = (s->buffer + 63) & ~(size_t)63;
	s->stride = alloc;
	s->in = big_alloc(alloc);
	s->in_len = alloc;
	if (s->buffer < s->size)
		alloc *= (size_t)s->threads;
	s->out = big_alloc(alloc);
	s->out_len = alloc;
	s->ctx = calloc((size_t)s->threads, sizeof(*s->ctx));
	s->cpu_seen = calloc((size_t)s->threads, sizeof(*s->cpu_seen));
	s->units = calloc((size_t)s->threads, sizeof(*s->units));
	s->section_thread = calloc((size_t)s->threads, sizeof(*s->section_thread));
	s->handoff = calloc((size_t)s->threads, sizeof(*s->handoff));
	if (s->in == NULL || s->out == NULL || s->ctx == NULL || s->cpu_seen == NULL ||
	    s->units == NULL || s->section_thread == NULL || s->handoff == NULL) {
		rc = bt_err_set(err, -ENOMEM, "out of memory for two buffers of %zu bytes", s->size);
		goto fail;
	}
	for (int i = 0; i < s->threads; i++) {
		s->cpu_seen[i] = -1;
		s->section_thread[i] = -1;
		atomic_init(&s->handoff[i], 0);
		if (s->algo != A_AES128)
			continue;
		s->ctx[i] = EVP_CIPHER_CTX_new();
		if (s->ctx[i] == NULL || !EVP_EncryptInit_ex2(s->ctx[i], s->evp, aes_key, NULL, NULL) ||
		    !EVP_CIPHER_CTX_set_padding(s->ctx[i], 0)) {
			rc = bt_err_set(err, -EIO, "aes-128-ecb: cannot set up a cipher context");
			goto fail;
		}
	}
	atomic_init(&s->team_seen, 0);
	atomic_init(&s->pin_failed, 0);
	atomic_init(&s->stopped, 0);

	/* The plaintext is the same every rep; the output is cleared (and so faulted in). */
	for (size_t i = 0; i < s->buffer; i += 8) {
		uint64_t v;

		if (i % SETUP_CHUNK == 0 && bt_job_cancelled(job)) {
			rc = bt_err_set(err, -EINTR, "cancelled");
			goto fail;
		}

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		v = x * 2685821657736338717ull;
		memcpy(s->in + i, &v, s->buffer - i < 8 ? s->buffer - i : 8);
	}
	rc = s->buffer < s->size ? block_reference(s, err) : reference(s, job, err);
	if (rc < 0)
		goto fail;
	for (size_t off = 0; off < alloc; off += SETUP_CHUNK) {
		if (bt_job_cancelled(job)) {
			rc = bt_err_set(err, -EINTR, "cancelled");
			goto fail;
		}
		memset(s->out + off, 0, alloc - off < SETUP_CHUNK ? alloc - off : SETUP_CHUNK);
	}

	job->nworkers = 1;
	job->team = s->mode == M_SERIAL ? 0 : s->threads;
	return 0;
fail:
	cipher_teardown(job);
	return rc;
}

#if BT_HAVE_OPENMP
/* Stop is checked once every this many units (a relaxed load; the pass is abandoned). */
#define STOP_EVERY 4096

/* Each team thread, first thing in the region: note the team, pin, note the CPU. */
static void team_enter(struct cipher_state *s, const struct bt_job *job, int tid)
{
	int want = -1;

	if (tid == 0)
		atomic_store_explicit(&s->team_seen, omp_get_num_threads(), memory_order_relaxed);
	if (job->team_cpus != NULL && tid < job->team)
		want = job->team_cpus[tid];
	if (bt_pin_self(want) < 0)
		atomic_store_explicit(&s->pin_failed, tid + 1, memory_order_relaxed);
	s->cpu_seen[tid] = sched_getcpu();
}

/*
 * Each team thread, last thing: publish what it did (its units, its
 * ciphertext, its reads of the region's shared variables, which live on the
 * worker's stack) with a release store the worker acquires right after the
 * region. The region's closing barrier already orders all that; this makes
 * the order visible to ThreadSanitizer, which cannot see inside libgomp.
 */
static void team_leave(struct cipher_state *s, int tid)
{
	atomic_store_explicit(&s->handoff[tid], 1, memory_order_release);
}

static void serial_pass(struct cipher_state *s, struct bt_worker *w, int *bad)
{
	for (size_t u = 0; u < s->nunits; u++) {
		if (u % STOP_EVERY == 0 && bt_worker_stop_raised(w)) {
			atomic_store(&s->stopped, 1);
			return;
		}
		if (encrypt_unit(s, 0, u, u) < 0) {
			*bad = 1;
			return;
		}
	}
	s->units[0] = s->nunits;
}

static void for_pass(struct cipher_state *s, struct bt_worker *w, int *bad)
{
	_Atomic int fail = 0;

#pragma omp parallel num_threads(s->threads)
	{
		int tid = omp_get_thread_num(), quit = 0;
		uint64_t done = 0;

		team_enter(s, w->job, tid);
#pragma omp for schedule(static)
		for (size_t u = 0; u < s->nunits; u++) {
			if (u % STOP_EVERY == 0 && bt_worker_stop_raised(w))
				quit = 1;
			if (quit)
				continue;
			if (encrypt_unit(s, tid, u, done) < 0) {
				atomic_store(&fail, 1);
				quit = 1;
			}
			done++;
		}
		if (quit && !atomic_load(&fail))
			atomic_store(&s->stopped, 1);
		s->units[tid] = done;
		team_leave(s, tid);
	}
	*bad = atomic_load(&fail);
}

/* Section k: units k, k+T, k+2T, ... on whichever team thread runs it. */
static void section(struct cipher_state *s, struct bt_worker *w, int k, _Atomic int *fail)
{
	int tid = omp_get_thread_num();
	uint64_t done = 0;

	if (k >= s->threads)
		return;
	s->section_thread[k] = tid;
	for (size_t u = (size_t)k, i = 0; u < s->nunits; u += (size_t)s->threads, i++) {
		if (i % STOP_EVERY == 0 && bt_worker_stop_raised(w)) {
			atomic_store(&s->stopped, 1);
			break;
		}
		if (encrypt_unit(s, tid, u, s->units[tid] + i) < 0) {
			atomic_store(fail, 1);
			break;
		}
		done++;
	}
	s->units[tid] += done;
}

#define SEC(k) _Pragma("omp section") section(s, w, (k), &fail);
#define SEC8(k) SEC(k) SEC(k + 1) SEC(k + 2) SEC(k + 3) SEC(k + 4) SEC(k + 5) SEC(k + 6) SEC(k + 7)

static void sections_pass(struct cipher_state *s, struct bt_worker *w, int *bad)
{
	_Atomic int fail = 0;

#pragma omp parallel num_threads(s->threads)
	{
		int tid = omp_get_thread_num();

		team_enter(s, w->job, tid);
		/* MAX_TEAM sections; those numbered threads= and up return at once. */
#pragma omp sections
		{
			SEC8(0) SEC8(8) SEC8(16) SEC8(24) SEC8(32) SEC8(40) SEC8(48) SEC8(56)
		}
		team_leave(s, tid);
	}
	*bad = atomic_load(&fail);
}

static int cipher_worker(struct bt_worker *w)
{
	struct cipher_state *s = w->job->state;
	clock_t c0, c1;
	uint64_t t0, t1, lt;
	int bad = 0, team, pf;

	omp_set_dynamic(0);		/* threads= is the team size, not a hint */
	lt = bt_lat_begin(w);
	c0 = clock();
	t0 = bt_now_ns();
	if (s->mode == M_SERIAL)
		serial_pass(s, w, &bad);
	else if (s->mode == M_FOR)
		for_pass(s, w, &bad);
	else
		sections_pass(s, w, &bad);
	team = atomic_load_explicit(&s->team_seen, memory_order_relaxed);
	/* Set by every team thread before the region ended: acquire what they did. */
	for (int i = 0; i < team && i < s->threads; i++)
		(void)atomic_load_explicit(&s->handoff[i], memory_order_acquire);
	t1 = bt_now_ns();
	c1 = clock();
	bt_lat_end(w, lt);
	s->wall_s = (double)(t1 - t0) / 1e9;
	s->clock_s = (double)(c1 - c0) / CLOCKS_PER_SEC;

	if (s->mode != M_SERIAL) {
		if (team != s->threads)
			return bt_worker_fail(w,
					      "OpenMP ran a team of %d threads, not threads=%d (OMP_THREAD_LIMIT?)",
					      team, s->threads);
		pf = atomic_load_explicit(&s->pin_failed, memory_order_relaxed);
		if (pf)
			return bt_worker_fail(w, "cannot pin OpenMP thread %d to CPU %d", pf - 1,
					      w->job->team_cpus[pf - 1]);
	}
	if (bad)
		return bt_worker_fail(w, "%s: encryption failed", algo_choices[s->algo]);
	if (atomic_load(&s->stopped))
		return 0;
	bt_worker_ops(w, s->size);
	bt_worker_bytes(w, s->size);
	return 0;
}

#else
/*
 * Built without OpenMP (meson -Dopenmp=disabled, or no OpenMP support
 * found): every mode runs in an OpenMP worker, so the workload registers as
 * unavailable and the runner refuses it before setup.
 */
static const char *cipher_unavailable(void)
{
	return "built without OpenMP (apt install libgcc-12-dev, or libomp-dev for clang; "
	       "then rebuild with -Dopenmp=enabled)";
}

static int cipher_worker(struct bt_worker *w)
{
	return bt_worker_fail(w, "%s", cipher_unavailable());
}
#endif

/* Remember a serial pass; return the fastest serial wall time known for s's shape (0: none). */
static double serial_wall(const struct cipher_state *s)
{
	double best = 0;
	int i;

	pthread_mutex_lock(&cache_lock);
	for (i = 0; i < NCACHE; i++)
		if (serial_best[i].used && serial_best[i].algo == s->algo &&
		    serial_best[i].size == s->size && serial_best[i].grain == s->grain &&
		    serial_best[i].buffer == s->buffer)
			break;
	if (s->mode == M_SERIAL) {
		if (i == NCACHE) {
			i = serial_next++ % NCACHE;
			serial_best[i].used = 1;
			serial_best[i].algo = s->algo;
			serial_best[i].size = s->size;
			serial_best[i].grain = s->grain;
			serial_best[i].buffer = s->buffer;
			serial_best[i].wall = s->wall_s;
		} else if (s->wall_s < serial_best[i].wall) {
			serial_best[i].wall = s->wall_s;
		}
	}
	if (i < NCACHE)
		best = serial_best[i].wall;
	pthread_mutex_unlock(&cache_lock);
	return best;
}

/* Typed metrics: how the pass ran (the verify line only says whether it encrypted right). */
enum { CM_TEAM, CM_CPUS, CM_CLOCK, CM_SECTIONS, CM_SPEEDUP, CM_COUNT };

static const struct bt_metric metrics[CM_COUNT] = {
	[CM_TEAM] = { .name = "team", .unit = "threads", .kind = BT_MK_GAUGE,
		      .help = "OpenMP team that ran the pass (1: serial)" },
	[CM_CPUS] = { .name = "cpus", .unit = "cpus", .kind = BT_MK_GAUGE,
		      .help = "distinct CPUs the team threads started on" },
	[CM_CLOCK] = { .name = "clock", .unit = "ns", .kind = BT_MK_TIME,
		       .help = "CPU time clock() saw over the pass (the clock() pitfall: not wall time)" },
	[CM_SECTIONS] = { .name = "max_sections", .unit = "sections", .kind = BT_MK_GAUGE,
			  .help = "omp-sections: most sections one thread ran (1: one each)" },
	[CM_SPEEDUP] = { .name = "speedup_pct", .unit = "%", .kind = BT_MK_GAUGE,
			 .help = "serial wall time of this algo and size over this pass's, in %" },
};

/*
 * buffer=: every unit encrypted once, and each team thread's output block,
 * as far as its units reached, equal to the serial encryption of the input
 * block.
 */
static int block_verify(const struct cipher_state *s, struct bt_err *err)
{
	uint64_t done = 0;

	for (int t = 0; t < s->threads; t++) {
		size_t cover = s->units[t] * s->grain < s->buffer ? s->units[t] * s->grain : s->buffer;

		done += s->units[t];
		if (memcmp(s->out + (size_t)t * s->stride, s->refct, cover) != 0)
			return bt_err_set(err, -EIO,
					  "%s %s buffer=%zu: thread %d's block differs from the serial reference",
					  algo_choices[s->algo], mode_choices[s->mode], s->buffer, t);
	}
	if (done != s->nunits)
		return bt_err_set(err, -EIO, "%s %s buffer=%zu: %" PRIu64 " units encrypted, not %zu",
				  algo_choices[s->algo], mode_choices[s->mode], s->buffer, done, s->nunits);
	return 0;
}

/*
 * The ciphertext must hash to the reference; that is all the verify line
 * says. How the pass ran (team, the CPUs it started on, clock()'s CPU time,
 * sections per thread, the speedup over the fastest serial pass seen) goes
 * into the rep's metrics.
 */
static int cipher_verify(struct bt_job *job, struct bt_err *err)
{
	struct cipher_state *s = job->state;
	unsigned char sha[32];
	double best;
	int ncpus = 0, most = 0;

	if (atomic_load(&s->stopped))
		return bt_err_set(err, -EINTR, "stopped before the pass was done");
	if (s->buffer < s->size) {
		int rc = block_verify(s, err);

		if (rc < 0)
			return rc;
	} else if (sha256(s->out, s->size, sha), memcmp(sha, s->ref, 32) != 0) {
		uint64_t missing = s->nunits;

		for (int i = 0; i < s->threads; i++)
			missing -= s->units[i] < missing ? s->units[i] : missing;
		return bt_err_set(err, -EIO,
				  "%s %s: ciphertext differs from the serial reference (%" PRIu64 " of %zu units not encrypted)",
				  algo_choices[s->algo], mode_choices[s->mode], missing, s->nunits);
	}
	for (int i = 0; i < s->threads && s->mode != M_SERIAL; i++) {
		int seen = 0;

		for (int j = 0; j < i && !seen; j++)
			seen = s->cpu_seen[j] == s->cpu_seen[i];
		ncpus += !seen && s->cpu_seen[i] >= 0;
	}
	for (int k = 0; k < s->threads && s->mode == M_SECTIONS; k++) {
		int n = 0;

		for (int j = 0; j < s->threads; j++)
			n += s->section_thread[j] == k;
		most = n > most ? n : most;
	}
	bt_job_metric(job, CM_TEAM, s->mode == M_SERIAL ? 1 : (uint64_t)s->threads);
	bt_job_metric(job, CM_CPUS, (uint64_t)ncpus);
	bt_job_metric(job, CM_CLOCK, (uint64_t)llround(s->clock_s * 1e9));
	bt_job_metric(job, CM_SECTIONS, (uint64_t)most);
	best = serial_wall(s);
	if (best > 0 && s->wall_s > 0)
		bt_job_metric(job, CM_SPEEDUP, (uint64_t)llround(100.0 * best / s->wall_s));
	return 0;
}

const struct bt_workload bt_wl_cipher = {
	.name = "cipher",
	.group = "crypto",
	.title = "ECB encryption of a buffer: serial vs OpenMP, wall vs CPU time",
	.unit = "bytes",
	.lat_what = "one pass over the buffer",
	.params = params,
	.nparams = P_COUNT,
	.metrics = metrics,
	.nmetrics = CM_COUNT,
	.stop_default = NULL,
	.baseline = "mode=serial",
	.check = cipher_check,
	.setup = cipher_setup,
	.worker = cipher_worker,
#if !BT_HAVE_OPENMP
	.unavailable = cipher_unavailable,
#endif
	.verify = cipher_verify,
	.teardown = cipher_teardown,
};
