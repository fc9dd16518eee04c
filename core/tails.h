/* tails: the ends of what a program wrote, kept as they come through a pipe. errtail: a
 * kernel's stderr, its last 2 KiB, written as its last 20 whole lines for a point's result;
 * outtail: an application's stdout, its last 16 KiB. */
#ifndef ROT_TAILS_H
#define ROT_TAILS_H

#include <stddef.h>
#include <stdio.h>

#define ERRTAIL_KEEP 2048 /* bytes kept */
#define ERRTAIL_LINES 20  /* lines written */

struct errtail {
	char buf[ERRTAIL_KEEP];
	size_t len;   /* bytes in buf */
	size_t total; /* bytes written since the last clear */
};

/* Keeps the last ERRTAIL_KEEP bytes of what was kept and data[0..n). */
void errtail_add(struct errtail *e, const char *data, size_t n);

/* Reads what the pipe fd holds now (non-blocking). 0, or -1 at its end or on an error. */
int errtail_read(struct errtail *e, int fd);

/* Writes the last ERRTAIL_LINES lines, "stderr LINE" each, control bytes as '?'; a line the
 * 2 KiB cut into is left out. */
void errtail_write(const struct errtail *e, FILE *out);

void errtail_clear(struct errtail *e);

#define OUTTAIL_KEEP 16384

/* The last bytes an application wrote to its stdout. */
struct outtail {
	char buf[OUTTAIL_KEEP];
	size_t len, total;
};

/* Reads what the pipe fd holds now (non-blocking) into o. 0, or -1 at its end or on an error. */
int outtail_read(struct outtail *o, int fd);

#endif
