/* sha256: the hash behind cache keys, core hashes and cache-file checksums.
 * FIPS 180-4 SHA-256, streaming interface plus a one-call hex helper; on x86 with the SHA
 * extensions, their instructions (several times as fast: every run hashes the core's sources). */
#include "sha256.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_SHANI 1
#endif

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void portable_block(uint32_t *hs, const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = hs[0], b = hs[1], c = hs[2], d = hs[3];
	e = hs[4], f = hs[5], g = hs[6], h = hs[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 =
		    h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	hs[0] += a, hs[1] += b, hs[2] += c, hs[3] += d;
	hs[4] += e, hs[5] += f, hs[6] += g, hs[7] += h;
}

/* n blocks of 64 bytes at p into the state hs. */
static void portable_blocks(uint32_t *hs, const unsigned char *p, size_t n)
{
	for (; n > 0; n--, p += 64)
		portable_block(hs, p);
}

#ifdef HAVE_SHANI
/* The same with the SHA extensions (Intel's "New Instructions Supporting the SHA-256"): the
 * state as ABEF and CDGH, four rounds per sha256rnds2 pair, the schedule by sha256msg1/2. */
__attribute__((target("sha,sse4.1"))) static void shani_blocks(uint32_t *hs, const unsigned char *p,
							       size_t n)
{
	const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&hs[0]), 0xB1); /* CDAB */
	__m128i st1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&hs[4]), 0x1B); /* EFGH */
	__m128i st0 = _mm_alignr_epi8(tmp, st1, 8);					 /* ABEF */
	st1 = _mm_blend_epi16(st1, tmp, 0xF0);						 /* CDGH */
	for (; n > 0; n--, p += 64) {
		__m128i abef = st0, cdgh = st1, w[4];
#pragma GCC unroll 16
		for (int i = 0; i < 16; i++) {
			__m128i x;
			if (i < 4)
				x = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)),
						     swap);
			else /* W[t-16] + s0(W[t-15]) + W[t-7], then + s1(W[t-2]) */
				x = _mm_sha256msg2_epu32(
				    _mm_add_epi32(
					_mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]),
					_mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4)),
				    w[(i + 3) & 3]);
			w[i & 3] = x;
			__m128i m = _mm_add_epi32(x, _mm_loadu_si128((const __m128i *)&K[4 * i]));
			st1 = _mm_sha256rnds2_epu32(st1, st0, m);
			st0 = _mm_sha256rnds2_epu32(st0, st1, _mm_shuffle_epi32(m, 0x0E));
		}
		st0 = _mm_add_epi32(st0, abef);
		st1 = _mm_add_epi32(st1, cdgh);
	}
	tmp = _mm_shuffle_epi32(st0, 0x1B);    /* FEBA */
	st1 = _mm_shuffle_epi32(st1, 0xB1);    /* DCHG */
	st0 = _mm_blend_epi16(tmp, st1, 0xF0); /* DCBA */
	st1 = _mm_alignr_epi8(st1, tmp, 8);    /* ABEF */
	_mm_storeu_si128((__m128i *)&hs[0], st0);
	_mm_storeu_si128((__m128i *)&hs[4], st1);
}

/* Whether this CPU has the SHA extensions (CPUID 7: EBX bit 29) and SSE4.1 (CPUID 1: ECX 19). */
static int has_shani(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 19)))
		return 0;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
}
#endif

static void (*blocks)(uint32_t *, const unsigned char *, size_t);

/* The block function this CPU runs: chosen once. */
static void choose(void)
{
	blocks = portable_blocks;
#ifdef HAVE_SHANI
	if (has_shani())
		blocks = shani_blocks;
#endif
}

void sha256_portable(int on)
{
	choose();
	if (on)
		blocks = portable_blocks;
}

int sha256_accelerated(void)
{
	if (!blocks)
		choose();
	return blocks != portable_blocks;
}

void sha256_init(struct sha256 *s)
{
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(s->h, iv, sizeof iv);
	s->len = 0;
	s->used = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;
	if (!blocks)
		choose();
	s->len += len;
	if (s->used > 0) { /* the buffered block first */
		size_t take = 64 - s->used < len ? 64 - s->used : len;
		memcpy(s->buf + s->used, p, take);
		s->used += take;
		p += take;
		len -= take;
		if (s->used < 64)
			return;
		blocks(s->h, s->buf, 1);
		s->used = 0;
	}
	if (len >= 64) { /* whole blocks straight from the input */
		blocks(s->h, p, len / 64);
		p += len / 64 * 64;
		len %= 64;
	}
	if (len > 0)
		memcpy(s->buf, p, len);
	s->used = len;
}

void sha256_final(struct sha256 *s, unsigned char out[32])
{
	uint64_t bits = s->len * 8;
	unsigned char pad = 0x80, zero = 0, lenbuf[8];
	sha256_update(s, &pad, 1);
	while (s->used != 56)
		sha256_update(s, &zero, 1);
	for (int i = 0; i < 8; i++)
		lenbuf[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(s, lenbuf, 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}

void sha256_tohex(const unsigned char digest[32], char hex[65])
{
	static const char dig[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++) {
		hex[2 * i] = dig[digest[i] >> 4];
		hex[2 * i + 1] = dig[digest[i] & 15];
	}
	hex[64] = '\0';
}

void sha256_hex(const void *data, size_t len, char hex[65])
{
	struct sha256 s;
	unsigned char d[32];
	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final(&s, d);
	sha256_tohex(d, hex);
}
