/*
 * gost89.h - the GOST 28147-89 block cipher (64-bit block, 256-bit key, 32
 * rounds of a Feistel network), written for the cipher workload.
 *
 * The round function is f(x) = S(x + k) <<< 11, where S substitutes each of
 * the eight 4-bit nibbles through its own S-box. Here the eight S-boxes are
 * merged pairwise into four 256-entry tables of 32-bit words with the 11-bit
 * rotation already applied, so one round is four table lookups, three XORs
 * and an add: the classic fast software form.
 *
 * Notation follows RFC 8891 (GOST R 34.12-2015 "Magma", which is GOST
 * 28147-89 with the S-boxes of bt_gost89_sbox_z): a block is the 64-bit
 * number a1||a0, the key the eight 32-bit words K1..K8. On byte buffers each
 * 8-byte block is that number stored little-endian, the byte order of the
 * classic GOST 28147-89 implementations (N1 = bytes 0..3).
 *
 * A struct bt_gost89 is read-only after bt_gost89_init: any number of
 * threads may encrypt with one at the same time.
 */
#ifndef BT_WORKLOADS_GOST89_H
#define BT_WORKLOADS_GOST89_H

#include <stddef.h>
#include <stdint.h>

#define BT_GOST89_BLOCK 8

struct bt_gost89 {
	uint32_t k[8];			/* K1..K8 */
	uint32_t enc[32], dec[32];	/* round keys in the order the rounds use them */
	uint32_t t[4][256];		/* t[j][b]: nibbles 2j, 2j+1 = byte b, substituted, <<< 11 */
};

/*
 * The S-boxes of id-tc26-gost-28147-param-Z (RFC 7836), the ones fixed by
 * GOST R 34.12-2015 / RFC 8891 section 4.1: sbox[i][v] is Pi_i(v), i = 0 for
 * the least significant nibble.
 */
extern const uint8_t bt_gost89_sbox_z[8][16];

/* Expand key words K1..K8 and an S-box set into g. */
void bt_gost89_init(struct bt_gost89 *g, const uint32_t key[8], const uint8_t sbox[8][16]);

/* Encrypt / decrypt one block given as the number a1||a0. */
uint64_t bt_gost89_encrypt64(const struct bt_gost89 *g, uint64_t block);
uint64_t bt_gost89_decrypt64(const struct bt_gost89 *g, uint64_t block);

/*
 * ECB over nblocks 8-byte blocks (little-endian, see above). in and out may
 * be the same buffer; no alignment needed.
 */
void bt_gost89_ecb_encrypt(const struct bt_gost89 *g, const uint8_t *in, uint8_t *out,
			   size_t nblocks);
void bt_gost89_ecb_decrypt(const struct bt_gost89 *g, const uint8_t *in, uint8_t *out,
			   size_t nblocks);

#endif
