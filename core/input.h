/* input: reads a batch's points (protocol.h: "point ID", PROTOCOL_INPUT keys, "end") into
 * struct point, each key through its entry in one table of readers. */
#ifndef ROT_INPUT_H
#define ROT_INPUT_H

#include "measure.h"

#include <stddef.h>
#include <stdio.h>

#define INPUT_ID_MAX 64 /* bytes of a point's ID, its NUL included */
#define INPUT_LINE 4096 /* bytes of an input line, its newline included */

enum input_key {
#define X(id, key, syntax, meaning) INPUT_##id,
	PROTOCOL_INPUT(X)
#undef X
	    INPUT_COUNT
};

/* Reads the next point of in: skips to its "point ID" line, then reads its settings up to
 * its "end" line. Returns 0 at the end of the input; 1 with *p and id set; -1 with id and
 * err set when its settings were refused (the next call skips the rest of them). */
int input_next_point(FILE *in, struct point *p, char id[INPUT_ID_MAX], char *err, size_t len);

/* The settings of a point before its first line: protocol.h's defaults. */
void input_defaults(struct point *p);

/* Applies one settings line ("KEY VALUE...") to p. 0, or -1 with err. */
int input_line(struct point *p, const char *line, char *err, size_t len);

/* Checks a point whose settings are all read (a kernel given) and settles the run limits
 * (maxRuns at least 1 and at least runs). 0, or -1 with err. */
int input_finish(struct point *p, char *err, size_t len);

#endif
