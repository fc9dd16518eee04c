/* escape: %XX escaping of text that travels as one token of the protocol (an application's
 * arguments, a region's name): every byte that is not a letter, digit or one of _.-/:,+@ */
#include "escape.h"

#include <string.h>

static int plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("_.-/:,+@", c) != NULL);
}

void escape_write(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (plain(c) && !(i == 0 && strchr("0123456789+-.", c)))
			fputc(c, out);
		else
			fprintf(out, "%%%02X", c);
	}
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int escape_decode(const char *s, char *out, size_t size)
{
	size_t n = 0;
	for (; *s; s++) {
		int c = (unsigned char)*s;
		if (c == '%') {
			int hi = hex(s[1]), lo = hi >= 0 ? hex(s[2]) : -1;
			if (lo < 0)
				return -1;
			c = hi * 16 + lo;
			s += 2;
		}
		if (n + 1 >= size)
			return -1;
		out[n++] = (char)c;
	}
	out[n] = '\0';
	return (int)n;
}
