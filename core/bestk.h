/* bestk: the best-k stop rule: repeat until the k fastest runs lie within a relative
 * epsilon of each other, or a maximum number of runs is reached. */
#ifndef ROT_BESTK_H
#define ROT_BESTK_H

#include <stddef.h>

struct bestk {
	int k;
	double epsilon;
	int min_runs, max_runs;
};

/* Relative spread (t_k - t_1) / t_1 of the k smallest of t[0..n); -1 when n < k. */
double bestk_spread(const double *t, size_t n, int k);

/* 1 when enough runs were made and the k fastest agree, 0 to go on. */
int bestk_converged(const struct bestk *r, const double *t, size_t n);

#endif
