/* escape: %XX escaping of text that travels as one token of the protocol (an application's
 * arguments, a region's name): every byte that is not a letter, digit or one of _.-/:,+@ */
#ifndef ROT_ESCAPE_H
#define ROT_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Writes s escaped to out; a first digit, sign or dot escaped too, so the text is never read
 * back as a number. */
void escape_write(FILE *out, const char *s, size_t n);

/* Decodes s into out (at most size bytes, NUL included): its length, or -1 when a % is not
 * followed by two hex digits, or out is too small. */
int escape_decode(const char *s, char *out, size_t size);

#endif
