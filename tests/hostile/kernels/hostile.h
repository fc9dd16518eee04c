/* hostile: shared bits of the hostile test kernels (tests/e2e/hostile.t): one parameter n,
 * zero declared counts, a short busy loop so that a run takes measurable time. */
#ifndef ROT_HOSTILE_H
#define ROT_HOSTILE_H
#include "kernel.h"
#include <stdlib.h>

static const struct rot_param n_param[] = {{"n", 1000, "work units"}, {NULL, 0, NULL}};

static inline double one(const struct rot_args *a)
{
	return rot_arg(a, "n");
}

static inline void busy(long n)
{
	volatile double x = 1.0;
	for (long i = 0; i < n; i++)
		x = x * 0.9999999 + 1e-9;
}

static void *init_any(const struct rot_args *a)
{
	long *n = malloc(sizeof *n);
	if (n)
		*n = (long)rot_arg(a, "n");
	return n;
}

static void dispose_any(void *s)
{
	free(s);
}

#define HOSTILE_KERNEL(k)                                                                          \
	static const struct rot_kernel k = {.name = #k, .params = n_param, .init = init_any,      \
					    .run = run, .dispose = dispose_any, .flops = one,      \
					    .bytes = one};                                         \
	ROT_KERNEL(k)
#endif
