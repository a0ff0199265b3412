/*
 * hash.c - OpenSSL EVP digests at `openssl speed` parity, and a file
 * streamed through one digest.
 *
 * mode=blocks: each worker hashes its own buffer of block= bytes again and
 * again. api=oneshot does what `openssl speed -evp ALGO -bytes N` does
 * (apps/speed.c, EVP_Digest_loop): one EVP_Digest() call per block with an
 * EVP_MD fetched once; api=ctx reuses one EVP_MD_CTX per worker
 * (EVP_DigestInit_ex2 + Update + Final), as a long-lived program would.
 *
 * mode=stream: each worker reads a file (file=, or a scratch file of size=
 * that benchtop generates) from its start in chunk= pieces through one
 * digest; a rep is one pass (cut short only by duration= or ops=).
 * cache=cold drops the file from the page cache before each rep
 * (fsync + posix_fadvise DONTNEED, core/pagecache.c), cache=warm reads it in
 * first; the metrics resident and resident_pct say how much of it was in the
 * page cache (mincore) when the rep started: after a cold drop, what the file
 * system would not let go; resident_end and resident_end_pct how much the
 * rep left there (a cold run reads it all back in: 0 before, 100 after).
 *
 * One op is one byte digested (unit "bytes"), so the table reads in bytes/s
 * as openssl speed does; with algo= and block= swept and threads= not, its
 * rows are digests and its columns block sizes: openssl speed's shape.
 *
 * Before a digest is measured it is checked against published test vectors
 * ("" and "abc"); md4 needs OpenSSL's legacy provider and is refused with
 * the reason when that cannot be loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "core/pagecache.h"
#include "engines/workload.h"

enum { P_THREADS, P_ALGO, P_BLOCK, P_API, P_MODE, P_FILE, P_SIZE, P_CHUNK, P_CACHE, P_COUNT };

enum { A_MD5, A_SHA1, A_SHA224, A_SHA256, A_SHA384, A_SHA512, A_SHA3_256, A_BLAKE2B512, A_MD4,
       A_COUNT };
enum { API_ONESHOT, API_CTX };
enum { M_BLOCKS, M_STREAM };
enum { C_WARM, C_COLD };

static const char *const algo_choices[] = { "md5", "sha1", "sha224", "sha256", "sha384",
					    "sha512", "sha3-256", "blake2b512", "md4", NULL };
static const char *const api_choices[] = { "oneshot", "ctx", NULL };
static const char *const mode_choices[] = { "blocks", "stream", NULL };
static const char *const cache_choices[] = { "warm", "cold", NULL };

enum { M_RESIDENT, M_FILE, M_RESIDENT_PCT, M_END, M_END_PCT, M_COUNT };

/* Set once per rep by setup (mode=stream; 0 with mode=blocks). */
static const struct bt_metric metrics[] = {
	[M_RESIDENT] = { .name = "resident", .unit = "bytes", .kind = BT_MK_GAUGE,
			 .agg = BT_MA_MAX,
			 .help = "bytes of the file in the page cache at the rep's start (cold: after the drop)" },
	[M_FILE] = { .name = "file", .unit = "bytes", .kind = BT_MK_GAUGE, .agg = BT_MA_MAX,
		     .help = "size of the streamed file" },
	[M_RESIDENT_PCT] = { .name = "resident_pct", .unit = "%", .kind = BT_MK_RATIO,
			     .num = "resident", .den = "file",
			     .help = "share of the file in the page cache at the rep's start" },
	[M_END] = { .name = "resident_end", .unit = "bytes", .kind = BT_MK_GAUGE,
		    .help = "bytes of the file in the page cache when the rep ended" },
	[M_END_PCT] = { .name = "resident_end_pct", .unit = "%", .kind = BT_MK_RATIO,
			.num = "resident_end", .den = "file",
			.help = "share of the file in the page cache when the rep ended" },
};

static const struct bt_param params[] = {
	[P_THREADS] = { .name = "threads", .kind = BT_P_INT, .def = "1", .min = 1, .max = 1024,
			.help = "threads, each hashing its own buffer (or the whole file)",
			.ticks = "1,2,4,8,16,32,64",
			.flags = BT_PF_WORKERS },
	[P_ALGO] = { .name = "algo", .kind = BT_P_ENUM, .def = "sha256", .choices = algo_choices,
		     .help = "digest (md4 needs OpenSSL's legacy provider)" },
	[P_BLOCK] = { .name = "block", .kind = BT_P_INT, .def = "8192", .min = 1,
		      .max = 64 << 20, .help = "bytes per digest (mode=blocks), as openssl speed -bytes",
		      .ticks = "16,64,256,1024,8192,16384" },
	[P_API] = { .name = "api", .kind = BT_P_ENUM, .def = "oneshot", .choices = api_choices,
		    .help = "oneshot: EVP_Digest per block (openssl speed); ctx: one reused EVP_MD_CTX" },
	[P_MODE] = { .name = "mode", .kind = BT_P_ENUM, .def = "blocks", .choices = mode_choices,
		     .help = "blocks: digest one block over and over; stream: digest a file in chunks" },
	[P_FILE] = { .name = "file", .kind = BT_P_STRING, .def = "",
		     .help = "mode=stream: file to read (empty: a generated scratch file of size=)" },
	[P_SIZE] = { .name = "size", .kind = BT_P_SIZE, .def = "256M", .min = 1,
		     .max = 1ll << 40, .help = "mode=stream: size of the generated scratch file" },
	[P_CHUNK] = { .name = "chunk", .kind = BT_P_SIZE, .def = "1M", .min = 1, .max = 1ll << 30,
		      .help = "mode=stream: bytes read and digested per op" },
	[P_CACHE] = { .name = "cache", .kind = BT_P_ENUM, .def = "warm", .choices = cache_choices,
		      .help = "mode=stream: warm (read in first) or cold (page cache dropped before each rep)" },
};

/* OpenSSL's names for algo_choices. */
static const char *const ossl_names[A_COUNT] = {
	"MD5", "SHA1", "SHA2-224", "SHA2-256", "SHA2-384", "SHA2-512", "SHA3-256", "BLAKE2B-512",
	"MD4",
};

/*
 * Published test vectors: the digests of "" and of "abc". MD4: RFC 1320;
 * MD5: RFC 1321; SHA-1 and SHA-2: FIPS 180-4 examples (NIST CSRC); SHA3-256:
 * FIPS 202 examples (NIST CSRC); BLAKE2b-512: RFC 7693 appendix A ("abc") and
 * the reference implementation's KAT ("").
 */
static const struct {
	const char *empty, *abc;
} vectors[A_COUNT] = {
	[A_MD5] = { "d41d8cd98f00b204e9800998ecf8427e", "900150983cd24fb0d6963f7d28e17f72" },
	[A_SHA1] = { "da39a3ee5e6b4b0d3255bfef95601890afd80709",
		     "a9993e364706816aba3e25717850c26c9cd0d89d" },
	[A_SHA224] = { "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f",
		       "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7" },
	[A_SHA256] = { "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	[A_SHA384] = { "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da"
		       "274edebfe76f65fbd51ad2f14898b95b",
		       "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
		       "8086072ba1e7cc2358baeca134c825a7" },
	[A_SHA512] = { "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
		       "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
		       "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
		       "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f" },
	[A_SHA3_256] = { "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a",
			 "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532" },
	[A_BLAKE2B512] = { "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
			   "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce",
			   "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
			   "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923" },
	[A_MD4] = { "31d6cfe0d16ae931b73c59d7e0c089c0", "a448017aaf21d8525fc10ae87aa6729d" },
};

/* ---- process-wide, computed once --------------------------------------- */

static pthread_mutex_t once_lock = PTHREAD_MUTEX_INITIALIZER;
static int legacy_tried;			/* under once_lock */
static char legacy_why[BT_ERR_MAX];		/* "" when loaded */
static OSSL_PROVIDER *legacy_prov;		/* kept loaded for the process */
static int vectors_ok[A_COUNT];			/* under once_lock */

/* The oldest error on this thread's OpenSSL queue as text (and the queue cleared). */
static void ossl_error(char *buf, size_t n)
{
	unsigned long e = ERR_get_error();

	if (e == 0)
		snprintf(buf, n, "no error reported");
	else
		ERR_error_string_n(e, buf, n);
	ERR_clear_error();
}

/*
 * At exit, before OpenSSL's own cleanup (atexit handlers run last-in,
 * first-out, and OpenSSL registered its handler when it initialized): a
 * provider still loaded then is never freed.
 */
static void legacy_unload(void)
{
	OSSL_PROVIDER_unload(legacy_prov);
	legacy_prov = NULL;
}

/*
 * Load OpenSSL's legacy provider (md4) once per process, keeping the default
 * provider available (retain_fallbacks). On failure legacy_why says why.
 * Any thread.
 */
static const char *legacy_load(void)
{
	pthread_mutex_lock(&once_lock);
	if (!legacy_tried) {
		legacy_tried = 1;
		legacy_prov = OSSL_PROVIDER_try_load(NULL, "legacy", 1);
		if (legacy_prov != NULL)
			atexit(legacy_unload);
		if (legacy_prov == NULL) {
			const char *dir = getenv("OPENSSL_MODULES");
			char why[200];

			ossl_error(why, sizeof(why));
			snprintf(legacy_why, sizeof(legacy_why), "%s from %s: %s",
				 "legacy module not loadable", dir ? dir : "the default module directory",
				 why);
		}
	}
	pthread_mutex_unlock(&once_lock);
	return legacy_why[0] ? legacy_why : NULL;
}

static void hex(const unsigned char *d, unsigned n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (unsigned i = 0; i < n; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * n] = '\0';
}

/*
 * Check OpenSSL's md against the published vectors of algo, once per
 * process (the result is cached). 0, or -EIO with err naming the input, what
 * OpenSSL gave and what the vector says.
 */
static int check_vectors(int algo, const EVP_MD *md, struct bt_err *err)
{
	const char *in[2] = { "", "abc" };
	const char *want[2] = { vectors[algo].empty, vectors[algo].abc };
	int rc = 0;

	pthread_mutex_lock(&once_lock);
	for (int i = 0; i < 2 && !vectors_ok[algo]; i++) {
		unsigned char d[EVP_MAX_MD_SIZE];
		char got[2 * EVP_MAX_MD_SIZE + 1];
		unsigned n = 0;

		if (!EVP_Digest(in[i], strlen(in[i]), d, &n, md, NULL)) {
			char why[200];

			ossl_error(why, sizeof(why));
			rc = bt_err_set(err, -EIO, "algo=%s: EVP_Digest failed: %s",
					algo_choices[algo], why);
			break;
		}
		hex(d, n, got);
		if (strcmp(got, want[i]) != 0) {
			rc = bt_err_set(err, -EIO,
					"algo=%s: OpenSSL's digest of \"%s\" is %s, the published vector is %s",
					algo_choices[algo], in[i], got, want[i]);
			break;
		}
		if (i == 1)
			vectors_ok[algo] = 1;
	}
	pthread_mutex_unlock(&once_lock);
	return rc;
}

/*
 * "sha_ni yes, aes-ni yes": the CPU's hash and AES instructions, from cpuid
 * (leaf 7 EBX bit 29: SHA; leaf 1 ECX bit 25: AES-NI). <cpuid.h> serves gcc
 * and clang alike; clang's __builtin_cpu_supports knows no "sha".
 */
static void cpu_note(char *buf, size_t n)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b = 0, c = 0, d;
	int sha = 0, aes = 0;

	if (__get_cpuid(1, &a, &b, &c, &d))
		aes = (c >> 25) & 1;
	if (__get_cpuid_max(0, NULL) >= 7) {
		__cpuid_count(7, 0, a, b, c, d);
		sha = (b >> 29) & 1;
	}
	snprintf(buf, n, "cpu sha_ni %s, aes-ni %s", sha ? "yes" : "no", aes ? "yes" : "no");
#else
	snprintf(buf, n, "cpu crypto extensions not probed");
#endif
}

/*
 * The scratch file for mode=stream without file=: created in a scratch
 * directory (core/pagecache.h) under $TMPDIR, else /var/tmp, as an
 * anonymous file (O_TMPFILE), so it never outlives the process (not even a
 * killed one); the directory is removed as soon as the file is written. It is kept open for the process and reused by
 * every rep of the same size; each rep dup()s the descriptor. digests[a]
 * caches the digest of its content per algorithm.
 */
static struct {
	int fd;				/* -1: none */
	uint64_t size;
	int have[A_COUNT];
	unsigned char digest[A_COUNT][EVP_MAX_MD_SIZE];
	unsigned len[A_COUNT];
} scratch = { .fd = -1 };

/* ---- the job --------------------------------------------------------- */

struct hash_local {
	_Alignas(64) unsigned char *buf;	/* block or chunk */
	EVP_MD_CTX *ctx;
	unsigned char md[EVP_MAX_MD_SIZE];	/* the worker's last (blocks) or final (stream) digest */
	unsigned mdlen;
	unsigned char want[EVP_MAX_MD_SIZE];	/* blocks: the buffer's digest, from setup */
	int complete;				/* stream: the whole file was digested */
	uint64_t bytes;
};

struct hash_state {
	int algo, api, mode, cache;
	size_t block, chunk;
	int nworkers;
	EVP_MD *md;
	struct hash_local *loc;			/* [nworkers] */
	int fd;					/* stream */
	uint64_t fsize;
	int have_want;				/* stream: want/wantlen is the file's digest */
	unsigned char want[EVP_MAX_MD_SIZE];
	unsigned wantlen;
	uint64_t resident;			/* stream: bytes in the page cache at start */
	char provider[64];
};

static int hash_check(const struct bt_value *const *p, struct bt_err *err)
{
	const char *file = p[P_FILE]->text;
	struct stat st;

	if (p[P_ALGO]->i == A_MD4) {
		const char *why = legacy_load();

		if (why != NULL)
			return bt_err_set(err, -ENOTSUP,
					  "algo=md4: unavailable: OpenSSL's legacy provider could not be loaded (%s)",
					  why);
	}
	if (p[P_MODE]->i == M_BLOCKS && file[0])
		return bt_err_set(err, -EINVAL, "file=%s: only with mode=stream", file);
	if (p[P_MODE]->i == M_STREAM && file[0]) {
		if (stat(file, &st) < 0)
			return bt_err_set(err, -EINVAL, "file=%s: %s", file, strerror(errno));
		if (!S_ISREG(st.st_mode))
			return bt_err_set(err, -EINVAL, "file=%s: not a regular file", file);
		if (access(file, R_OK) < 0)
			return bt_err_set(err, -EINVAL, "file=%s: %s", file, strerror(errno));
	}
	return 0;
}

static void hash_teardown(struct bt_job *job)
{
	struct hash_state *s = job->state;

	if (s == NULL)
		return;
	for (int i = 0; s->loc != NULL && i < s->nworkers; i++) {
		free(s->loc[i].buf);
		EVP_MD_CTX_free(s->loc[i].ctx);
	}
	free(s->loc);
	EVP_MD_free(s->md);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	job->state = NULL;
}

/* Read all of fd (from offset 0) through md into out, or just read it when md is NULL. */
static int read_through(int fd, uint64_t size, const EVP_MD *md, unsigned char *out,
			unsigned *outlen, struct bt_err *err)
{
	const size_t bufsz = 1 << 20;
	unsigned char *buf = malloc(bufsz);
	EVP_MD_CTX *ctx = md ? EVP_MD_CTX_new() : NULL;
	uint64_t off = 0;
	int rc = 0;

	if (buf == NULL || (md != NULL && ctx == NULL)) {
		rc = bt_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (ctx != NULL && !EVP_DigestInit_ex2(ctx, md, NULL)) {
		rc = bt_err_set(err, -EIO, "EVP_DigestInit_ex2 failed");
		goto out;
	}
	while (off < size) {
		ssize_t r = pread(fd, buf, size - off < bufsz ? (size_t)(size - off) : bufsz,
				  (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = bt_err_set(err, -EIO, "reading the file: %s",
					r < 0 ? strerror(errno) : "it is shorter than it was");
			goto out;
		}
		if (ctx != NULL && !EVP_DigestUpdate(ctx, buf, (size_t)r)) {
			rc = bt_err_set(err, -EIO, "EVP_DigestUpdate failed");
			goto out;
		}
		off += (uint64_t)r;
	}
	if (ctx != NULL && !EVP_DigestFinal_ex(ctx, out, outlen))
		rc = bt_err_set(err, -EIO, "EVP_DigestFinal_ex failed");
out:
	EVP_MD_CTX_free(ctx);
	free(buf);
	return rc;
}

/* Digest the scratch file's content on its way to the disk. */
struct fill_digest {
	EVP_MD_CTX *ctx;
	int failed;
};

static void digest_written(const unsigned char *buf, size_t n, void *arg)
{
	struct fill_digest *fd = arg;

	if (!fd->failed && !EVP_DigestUpdate(fd->ctx, buf, n))
		fd->failed = 1;
}

/*
 * Make (or reuse) the scratch file of size bytes, with the digest of its
 * content under s->algo; return a dup of its descriptor in *fdp. Called
 * under once_lock.
 */
static int scratch_get(struct hash_state *s, uint64_t size, int *fdp, struct bt_err *err)
{
	struct bt_scratch sc = { .dirfd = -1 };
	struct fill_digest fdg = { 0 };
	struct bt_err rerr;
	int fd = -1, rc = 0, rrc;

	if (scratch.fd >= 0 && scratch.size == size)
		goto have;
	if (scratch.fd >= 0)
		close(scratch.fd);
	memset(&scratch, 0, sizeof(scratch));
	scratch.fd = -1;

	fdg.ctx = EVP_MD_CTX_new();
	if (fdg.ctx == NULL || !EVP_DigestInit_ex2(fdg.ctx, s->md, NULL)) {
		rc = bt_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	rc = bt_scratch_create(&sc, NULL, "hash", err);
	if (rc < 0)
		goto out;
	/* Anonymous: nothing of it outlives the process, not even a killed one. */
	rc = bt_scratch_file(&sc, NULL, size, 0x9e3779b97f4a7c15ull, digest_written, &fdg, &fd,
			     err);
	rrc = bt_scratch_remove(&sc, &rerr);
	if (rc == 0 && rrc < 0)
		rc = bt_err_set(err, rrc, "%s", rerr.msg);
	if (rc < 0)
		goto out;
	if (fdg.failed || !EVP_DigestFinal_ex(fdg.ctx, scratch.digest[s->algo],
					      &scratch.len[s->algo])) {
		rc = bt_err_set(err, -EIO, "algo=%s: digest of the scratch file failed",
				algo_choices[s->algo]);
		goto out;
	}
	scratch.have[s->algo] = 1;
	scratch.fd = fd;
	scratch.size = size;
	fd = -1;
have:
	if (!scratch.have[s->algo]) {
		rc = read_through(scratch.fd, scratch.size, s->md, scratch.digest[s->algo],
				  &scratch.len[s->algo], err);
		if (rc < 0)
			goto out;
		scratch.have[s->algo] = 1;
	}
	memcpy(s->want, scratch.digest[s->algo], scratch.len[s->algo]);
	s->wantlen = scratch.len[s->algo];
	s->have_want = 1;
	*fdp = fcntl(scratch.fd, F_DUPFD_CLOEXEC, 0);
	if (*fdp < 0)
		rc = bt_err_set(err, -errno, "dup: %s", strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	EVP_MD_CTX_free(fdg.ctx);
	return rc;
}

/*
 * mode=stream: open (or make) the file and put its pages where cache= says;
 * the rep's metrics say how much of it is resident now.
 */
static int stream_setup(struct hash_state *s, struct bt_job *job, struct bt_err *err)
{
	const char *file = bt_job_param(job, P_FILE)->text;
	int rc;

	if (file[0]) {
		struct stat st;

		s->fd = open(file, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0)
			return bt_err_set(err, -errno, "file=%s: %s", file, strerror(errno));
		if (fstat(s->fd, &st) < 0 || !S_ISREG(st.st_mode))
			return bt_err_set(err, -EINVAL, "file=%s: not a regular file", file);
		s->fsize = (uint64_t)st.st_size;
	} else {
		pthread_mutex_lock(&once_lock);
		rc = scratch_get(s, (uint64_t)bt_job_param(job, P_SIZE)->i, &s->fd, err);
		pthread_mutex_unlock(&once_lock);
		if (rc < 0)
			return rc;
		s->fsize = (uint64_t)bt_job_param(job, P_SIZE)->i;
	}
	if (s->cache == C_COLD) {
		rc = bt_pagecache_drop(s->fd, &s->resident, err);
		if (rc < 0)
			return rc;
	} else {
		rc = bt_pagecache_resident(s->fd, &s->resident, err);
		if (rc == 0 && s->resident < s->fsize)
			rc = read_through(s->fd, s->fsize, NULL, NULL, NULL, err);
		if (rc == 0)
			rc = bt_pagecache_resident(s->fd, &s->resident, err);
		if (rc < 0)
			return rc;
	}
	bt_job_metric(job, M_RESIDENT, s->resident);
	bt_job_metric(job, M_FILE, s->fsize);
	return 0;
}

static int hash_setup(struct bt_job *job, struct bt_err *err)
{
	struct hash_state *s;
	const OSSL_PROVIDER *prov;
	int rc;

	rc = hash_check(job->params, err);
	if (rc < 0)
		return rc;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	job->state = s;
	s->fd = -1;
	s->algo = (int)bt_job_param(job, P_ALGO)->i;
	s->api = (int)bt_job_param(job, P_API)->i;
	s->mode = (int)bt_job_param(job, P_MODE)->i;
	s->cache = (int)bt_job_param(job, P_CACHE)->i;
	s->block = (size_t)bt_job_param(job, P_BLOCK)->i;
	s->chunk = (size_t)bt_job_param(job, P_CHUNK)->i;
	s->nworkers = (int)bt_job_param(job, P_THREADS)->i;

	s->md = EVP_MD_fetch(NULL, ossl_names[s->algo], NULL);
	if (s->md == NULL) {
		char why[200];

		ossl_error(why, sizeof(why));
		rc = bt_err_set(err, -ENOTSUP, "algo=%s: OpenSSL has no %s: %s",
				algo_choices[s->algo], ossl_names[s->algo], why);
		goto fail;
	}
	prov = EVP_MD_get0_provider(s->md);
	snprintf(s->provider, sizeof(s->provider), "%s",
		 prov ? OSSL_PROVIDER_get0_name(prov) : "built-in");
	rc = check_vectors(s->algo, s->md, err);
	if (rc < 0)
		goto fail;

	s->loc = aligned_alloc(64, sizeof(*s->loc) * (size_t)s->nworkers);
	if (s->loc == NULL) {
		rc = bt_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	memset(s->loc, 0, sizeof(*s->loc) * (size_t)s->nworkers);
	for (int i = 0; i < s->nworkers; i++) {
		struct hash_local *l = &s->loc[i];
		size_t n = s->mode == M_BLOCKS ? s->block : s->chunk;

		l->buf = aligned_alloc(64, (n + 63) & ~(size_t)63);
		l->ctx = EVP_MD_CTX_new();
		if (l->buf == NULL || l->ctx == NULL) {
			rc = bt_err_set(err, -ENOMEM, "out of memory for %d buffers of %zu bytes",
					s->nworkers, n);
			goto fail;
		}
		if (s->mode == M_BLOCKS) {
			uint64_t x = 0x243f6a8885a308d3ull + (uint64_t)i;
			unsigned len;

			bt_pagecache_fill(l->buf, n, &x);
			/* The reference, through the incremental API in two pieces. */
			if (!EVP_DigestInit_ex2(l->ctx, s->md, NULL) ||
			    !EVP_DigestUpdate(l->ctx, l->buf, n / 2) ||
			    !EVP_DigestUpdate(l->ctx, l->buf + n / 2, n - n / 2) ||
			    !EVP_DigestFinal_ex(l->ctx, l->want, &len)) {
				rc = bt_err_set(err, -EIO, "algo=%s: digest failed", algo_choices[s->algo]);
				goto fail;
			}
		}
	}
	if (s->mode == M_STREAM && (rc = stream_setup(s, job, err)) < 0)
		goto fail;
	job->nworkers = s->nworkers;
	return 0;
fail:
	hash_teardown(job);
	return rc;
}

/* mode=blocks: the same block, one digest per op, until stopped. */
static int blocks_worker(struct bt_worker *w, struct hash_state *s, struct hash_local *l)
{
	const size_t n = s->block;
	const unsigned char *buf = l->buf;
	const EVP_MD *md = s->md;
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned len = 0;

	if (s->api == API_ONESHOT) {
		while (!bt_worker_stopping(w)) {
			uint64_t t = bt_lat_begin(w);

			if (!EVP_Digest(buf, n, d, &len, md, NULL))
				return bt_worker_fail(w, "algo=%s: EVP_Digest failed", algo_choices[s->algo]);
			bt_lat_end(w, t);
			bt_worker_ops(w, n);
			bt_worker_bytes(w, n);
		}
	} else {
		EVP_MD_CTX *ctx = l->ctx;

		while (!bt_worker_stopping(w)) {
			uint64_t t = bt_lat_begin(w);

			if (!EVP_DigestInit_ex2(ctx, md, NULL) || !EVP_DigestUpdate(ctx, buf, n) ||
			    !EVP_DigestFinal_ex(ctx, d, &len))
				return bt_worker_fail(w, "algo=%s: digest failed", algo_choices[s->algo]);
			bt_lat_end(w, t);
			bt_worker_ops(w, n);
			bt_worker_bytes(w, n);
		}
	}
	memcpy(l->md, d, len);
	l->mdlen = len;
	return 0;
}

/* mode=stream: one pass over the file, chunk by chunk, through one digest. */
static int stream_worker(struct bt_worker *w, struct hash_state *s, struct hash_local *l)
{
	uint64_t off = 0;

	if (!EVP_DigestInit_ex2(l->ctx, s->md, NULL))
		return bt_worker_fail(w, "algo=%s: EVP_DigestInit_ex2 failed", algo_choices[s->algo]);
	while (off < s->fsize && !bt_worker_stopping(w)) {
		size_t want = s->fsize - off < s->chunk ? (size_t)(s->fsize - off) : s->chunk;
		uint64_t t = bt_lat_begin(w);
		ssize_t r = pread(s->fd, l->buf, want, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return bt_worker_fail(w, "reading at %llu: %s", (unsigned long long)off,
					      strerror(errno));
		if (r == 0)
			return bt_worker_fail(w, "the file ended at %llu of %llu bytes",
					      (unsigned long long)off, (unsigned long long)s->fsize);
		if (!EVP_DigestUpdate(l->ctx, l->buf, (size_t)r))
			return bt_worker_fail(w, "algo=%s: EVP_DigestUpdate failed",
					      algo_choices[s->algo]);
		bt_lat_end(w, t);
		off += (uint64_t)r;
		bt_worker_ops(w, (uint64_t)r);
		bt_worker_bytes(w, (uint64_t)r);
	}
	l->bytes = off;
	if (off == s->fsize) {
		if (!EVP_DigestFinal_ex(l->ctx, l->md, &l->mdlen))
			return bt_worker_fail(w, "algo=%s: EVP_DigestFinal_ex failed",
					      algo_choices[s->algo]);
		l->complete = 1;
	}
	return 0;
}

static int hash_worker(struct bt_worker *w)
{
	struct hash_state *s = w->job->state;
	struct hash_local *l = &s->loc[w->id];

	return s->mode == M_BLOCKS ? blocks_worker(w, s, l) : stream_worker(w, s, l);
}

/*
 * Blocks: each worker's last digest is its buffer's reference digest (a
 * worker that did no op has none). Stream: every complete pass gives the
 * same digest, the scratch file's known one when generated. On success the
 * message (the rep's verify text) says which OpenSSL and provider ran and
 * whether the CPU has SHA / AES instructions; for a stream, the file's
 * digest (the page cache state is in the resident metrics).
 */
static int hash_verify(struct bt_job *job, struct bt_err *err)
{
	struct hash_state *s = job->state;
	char cpu[64], got[2 * EVP_MAX_MD_SIZE + 1], want[2 * EVP_MAX_MD_SIZE + 1];
	uint64_t end = 0;
	int complete = 0;

	cpu_note(cpu, sizeof(cpu));
	if (s->mode == M_BLOCKS) {
		for (int i = 0; i < s->nworkers; i++) {
			const struct hash_local *l = &s->loc[i];

			if (l->mdlen == 0)
				continue;
			if ((int)l->mdlen != EVP_MD_get_size(s->md) ||
			    memcmp(l->md, l->want, l->mdlen) != 0) {
				hex(l->md, l->mdlen, got);
				hex(l->want, (unsigned)EVP_MD_get_size(s->md), want);
				return bt_err_set(err, -EIO, "worker %d: digest %s, expected %s", i, got,
						  want);
			}
		}
		bt_err_set(err, 0, "ok: %s, %s, provider %s; %s", algo_choices[s->algo],
			   OpenSSL_version(OPENSSL_VERSION), s->provider, cpu);
		return 0;
	}
	for (int i = 0; i < s->nworkers; i++) {
		const struct hash_local *l = &s->loc[i];
		const unsigned char *ref = s->want;

		if (!l->complete)
			continue;
		if (!s->have_want) {
			/* A file of unknown content: every pass must agree with the first. */
			for (int j = 0; j <= i; j++) {
				if (s->loc[j].complete) {
					ref = s->loc[j].md;
					break;
				}
			}
		}
		if (memcmp(l->md, ref, l->mdlen) != 0) {
			hex(l->md, l->mdlen, got);
			hex(ref, l->mdlen, want);
			return bt_err_set(err, -EIO, "worker %d: file digest %s, expected %s", i, got,
					  want);
		}
		if (complete++ == 0)
			hex(l->md, l->mdlen, got);
	}
	if (complete == 0)
		snprintf(got, sizeof(got), "not verified: no pass finished");
	if (bt_pagecache_resident(s->fd, &end, err) < 0)
		return -EIO;
	bt_job_metric(job, M_END, end);
	/* How much was resident is a metric (resident, resident_pct), not part of the check. */
	bt_err_set(err, 0, "ok: %s, %s, provider %s; %s; %s%s",
		   algo_choices[s->algo], OpenSSL_version(OPENSSL_VERSION), s->provider, cpu,
		   complete ? "digest " : "", got);
	return 0;
}

const struct bt_workload bt_wl_hash = {
	.name = "hash",
	.group = "crypto",
	.title = "OpenSSL digests over blocks (openssl speed parity) or streaming a file",
	.unit = "bytes",
	.lat_what = "one block digested (mode=stream: one chunk read + digested)",
	.params = params,
	.nparams = P_COUNT,
	.metrics = metrics,
	.nmetrics = M_COUNT,
	.stop_default = "duration=1s",
	.check = hash_check,
	.setup = hash_setup,
	.worker = hash_worker,
	.verify = hash_verify,
	.teardown = hash_teardown,
};
