/* process: measures a batch's points in traced children, point after point: a fresh child
 * for a point, or one shared by a run of points while they succeed, each point reported. */
#ifndef ROT_PROCESS_H
#define ROT_PROCESS_H

#include "measure.h"

#include <stdio.h>

/* Called with each point's records as soon as it is done: its index, text, and whether it
 * failed. */
typedef void (*process_done)(void *ctx, int index, const char *text, size_t len, int failed);

/*
 * Measures ps[0..n) in order. A child is forked and traced (PTRACE_O_TRACECLONE | FORK |
 * VFORK | EXEC | EXIT | EXITKILL); the parent keeps a table of its threads, counts their
 * events, kills it after each point's timeout, and reports a fault with the signal, thread
 * and address. One child measures point after point while they succeed (a GPU's context is
 * set up once); a point that fails ends its child and the next point gets a fresh one. The
 * points must be shareable (process_can_share) or n == 1. Each point's records plus
 * `status ok|failed`, `error ...` and thread metadata go to done(). Returns 0 when every
 * point was measured, 1 otherwise.
 */
int process_measure(struct point *ps, int n, process_done done, void *ctx);

/* Whether b can be measured in the child that measured a: both ask for a shared child
 * ("child shared") and count the same events. */
int process_can_share(const struct point *a, const struct point *b);

#endif
