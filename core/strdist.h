/* strdist: the edit distance between names, for "did you mean" suggestions: the driver's
 * (config keys, kernels, ...) and the core's (CUPTI metric names). */
#ifndef ROT_STRDIST_H
#define ROT_STRDIST_H

/* Optimal string alignment distance, case-insensitive, any length: insertions, deletions,
 * substitutions and swaps of adjacent letters each cost 1 ("rnus" is one edit from "runs").
 * A very large number when memory runs out. */
int strdist_distance(const char *a, const char *b);

#endif
