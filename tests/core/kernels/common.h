/* common: shared bits of the test-only kernels (never shipped, never in the kernel list):
 * a parameter list with one "n" and zero counts. */
#ifndef ROT_TEST_COMMON_H
#define ROT_TEST_COMMON_H
#include "kernel.h"
#include <stdlib.h>

static const struct rot_param n_param[] = {{"n", 1000, "work units"}, {NULL, 0, NULL}};

static inline double zero_count(const struct rot_args *a)
{
	(void)a;
	return 0;
}

/* a register-only busy loop: n iterations of a dependent multiply-add chain */
static inline double spin(long n)
{
	volatile double sink;
	double x = 1.0;
	for (long i = 0; i < n; i++)
		x = x * 0.9999999 + 1e-9;
	sink = x;
	return sink;
}
#endif
