/*
 * gost89.c - GOST 28147-89 with four precomputed lookup tables (see gost89.h).
 */
#include "workloads/gost89.h"

#include <endian.h>
#include <string.h>

/* RFC 8891 section 4.1, Pi_0 .. Pi_7 (id-tc26-gost-28147-param-Z). */
const uint8_t bt_gost89_sbox_z[8][16] = {
	{ 12, 4, 6, 2, 10, 5, 11, 9, 14, 8, 13, 7, 0, 3, 15, 1 },
	{ 6, 8, 2, 3, 9, 10, 5, 12, 1, 14, 4, 7, 11, 13, 0, 15 },
	{ 11, 3, 5, 8, 2, 15, 10, 13, 14, 1, 7, 4, 12, 9, 6, 0 },
	{ 12, 8, 2, 1, 13, 4, 15, 6, 7, 0, 10, 5, 3, 14, 9, 11 },
	{ 7, 15, 5, 10, 8, 1, 6, 13, 0, 9, 3, 14, 11, 4, 2, 12 },
	{ 5, 13, 15, 6, 9, 2, 12, 10, 11, 7, 8, 1, 4, 3, 14, 0 },
	{ 8, 14, 2, 5, 6, 9, 1, 12, 15, 4, 11, 0, 13, 10, 3, 7 },
	{ 1, 7, 14, 13, 0, 5, 8, 3, 4, 15, 10, 6, 9, 12, 11, 2 },
};

static inline uint32_t rol32(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

/* K1..K8 three times, then K8..K1 (encryption); the reverse for decryption. */
static const uint8_t enc_order[32] = {
	0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7,
	0, 1, 2, 3, 4, 5, 6, 7, 7, 6, 5, 4, 3, 2, 1, 0,
};

void bt_gost89_init(struct bt_gost89 *g, const uint32_t key[8], const uint8_t sbox[8][16])
{
	memcpy(g->k, key, sizeof(g->k));
	for (int i = 0; i < 32; i++) {
		g->enc[i] = key[enc_order[i]];
		g->dec[i] = key[enc_order[31 - i]];
	}
	for (int j = 0; j < 4; j++) {
		for (uint32_t b = 0; b < 256; b++) {
			uint32_t v = (uint32_t)sbox[2 * j + 1][b >> 4] << 4 | sbox[2 * j][b & 15];

			g->t[j][b] = rol32(v << (8 * j), 11);
		}
	}
}

/* The round function: substitute the nibbles of x, rotate left by 11. */
static inline uint32_t f(const struct bt_gost89 *g, uint32_t x)
{
	return g->t[0][x & 255] ^ g->t[1][(x >> 8) & 255] ^ g->t[2][(x >> 16) & 255] ^
	       g->t[3][x >> 24];
}

/*
 * 32 rounds without swapping the halves: x starts as a0, y as a1; odd
 * rounds update y, even rounds x. The last round of the cipher (G*, no swap)
 * then falls out as an ordinary even round, and the result is x||y.
 * Decryption is the same network with the round keys reversed.
 */
static inline uint64_t rounds(const struct bt_gost89 *g, uint64_t block, const uint32_t *rk)
{
	uint32_t x = (uint32_t)block, y = (uint32_t)(block >> 32);

	for (int i = 0; i < 32; i += 2) {
		y ^= f(g, x + rk[i]);
		x ^= f(g, y + rk[i + 1]);
	}
	return (uint64_t)x << 32 | y;
}

uint64_t bt_gost89_encrypt64(const struct bt_gost89 *g, uint64_t block)
{
	return rounds(g, block, g->enc);
}

uint64_t bt_gost89_decrypt64(const struct bt_gost89 *g, uint64_t block)
{
	return rounds(g, block, g->dec);
}

static inline void ecb(const struct bt_gost89 *g, const uint8_t *in, uint8_t *out,
		       size_t nblocks, const uint32_t *rk)
{
	for (size_t i = 0; i < nblocks; i++) {
		uint64_t b;

		memcpy(&b, in + 8 * i, 8);
		b = htole64(rounds(g, le64toh(b), rk));
		memcpy(out + 8 * i, &b, 8);
	}
}

void bt_gost89_ecb_encrypt(const struct bt_gost89 *g, const uint8_t *in, uint8_t *out,
			   size_t nblocks)
{
	ecb(g, in, out, nblocks, g->enc);
}

void bt_gost89_ecb_decrypt(const struct bt_gost89 *g, const uint8_t *in, uint8_t *out,
			   size_t nblocks)
{
	ecb(g, in, out, nblocks, g->dec);
}
