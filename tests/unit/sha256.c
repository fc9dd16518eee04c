/* Unit tests for driver/sha256 against the FIPS 180-4 example vectors, in the code this CPU
 * runs (its SHA instructions where it has them) and in the portable code; the two agree on
 * every length around the block size, and streamed in pieces.
 * judges no time */
#include "sha256.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>

static void vectors(const char *how)
{
	char hex[65], name[128];
	sha256_hex("", 0, hex);
	snprintf(name, sizeof name, "%s: empty input", how);
	is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", name);
	sha256_hex("abc", 3, hex);
	snprintf(name, sizeof name, "%s: 'abc'", how);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", name);
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha256_hex(two, strlen(two), hex);
	snprintf(name, sizeof name, "%s: two-block message", how);
	is_str(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", name);
	/* streaming in odd pieces gives the same digest */
	char *mil = malloc(1000000);
	memset(mil, 'a', 1000000);
	struct sha256 s;
	unsigned char d[32];
	sha256_init(&s);
	for (size_t off = 0; off < 1000000; off += 999)
		sha256_update(&s, mil + off, off + 999 <= 1000000 ? 999 : 1000000 - off);
	sha256_final(&s, d);
	sha256_tohex(d, hex);
	snprintf(name, sizeof name, "%s: one million 'a' streamed in 999-byte pieces", how);
	is_str(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", name);
	free(mil);
}

int main(void)
{
	printf("# this CPU's code: %s\n",
	       sha256_accelerated() ? "its SHA instructions" : "the portable code");
	vectors("this CPU's code");
	/* every length from 0 to 300 bytes of varied text: the same digest both ways, whole or
	 * streamed in 7-byte pieces */
	unsigned char buf[300];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	int agree = 1;
	for (size_t n = 0; n <= sizeof buf && agree; n++) {
		char fast[65], slow[65], piece[65];
		unsigned char d[32];
		struct sha256 s;
		sha256_portable(0);
		sha256_hex(buf, n, fast);
		sha256_portable(1);
		sha256_hex(buf, n, slow);
		sha256_portable(0);
		sha256_init(&s);
		for (size_t off = 0; off < n; off += 7)
			sha256_update(&s, buf + off, n - off < 7 ? n - off : 7);
		sha256_final(&s, d);
		sha256_tohex(d, piece);
		if (strcmp(fast, slow) != 0 || strcmp(fast, piece) != 0) {
			printf("# length %zu: %s (this CPU's), %s (portable), %s (streamed)\n", n,
			       fast, slow, piece);
			agree = 0;
		}
	}
	ok(agree,
	   "this CPU's code, the portable code and 7-byte pieces agree on every length 0-300");
	sha256_portable(1);
	vectors("portable code");
	sha256_portable(0);
	return done_testing();
}
