/* sha256: the hash behind cache keys, core hashes and cache-file checksums.
 * FIPS 180-4 SHA-256, streaming interface plus a one-call hex helper. */
#ifndef ROT_SHA256_H
#define ROT_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t used;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, unsigned char out[32]);
/* hex must hold 65 bytes. */
void sha256_hex(const void *data, size_t len, char hex[65]);
void sha256_tohex(const unsigned char digest[32], char hex[65]);
/* on: the portable code from now on, even where the CPU has SHA instructions (tests); off:
 * whichever this CPU runs fastest (the default). */
void sha256_portable(int on);
/* Whether the code in use is the CPU's SHA instructions. */
int sha256_accelerated(void);

#endif
