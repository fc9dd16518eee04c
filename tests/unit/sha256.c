/* Unit tests for driver/sha256 against the FIPS 180-4 example vectors.
 * judges no time */
#include "sha256.h"
#include "tap.h"

#include <stdlib.h>

int main(void)
{
	char hex[65];
	sha256_hex("", 0, hex);
	is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "empty input");
	sha256_hex("abc", 3, hex);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "'abc'");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha256_hex(two, strlen(two), hex);
	is_str(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", "two-block message");
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
	is_str(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	       "one million 'a' streamed in 999-byte pieces");
	free(mil);
	return done_testing();
}
