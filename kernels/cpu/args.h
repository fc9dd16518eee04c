/* args: the range checks of the CPU kernels' parameters, for their init: a value out of range
 * (a fraction too) is refused on stderr ("KERNEL: NAME must be a whole number from A to B UNIT,
 * not V") with errno EINVAL. */
#ifndef ROT_ARGS_H
#define ROT_ARGS_H

#include "kernel.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>

/* The most bytes a kernel's buffers span together: rounded up to pages, a size cannot wrap. */
#define ROT_ARG_BYTES (SIZE_MAX / 2)

/* Parameter name of kernel k as a whole number from lo to hi (hi at most SIZE_MAX / 2): 0 with
 * it in *v (v NULL: a check, the value not kept), or -1 with errno EINVAL after saying why on
 * stderr (the user sees the kernel's last lines there). NaN and a fraction are refused (the
 * declared counts use the value as given, the buffers would hold its whole part). */
static inline int rot_arg_range(const struct rot_args *a, const char *k, const char *name,
				size_t lo, size_t hi, const char *unit, size_t *v)
{
	double x = rot_arg(a, name);
	/* (double)hi may round up: the cast back, defined up to 2^63, says whether x passed hi */
	if (!(x >= (double)lo && x <= (double)hi) || (size_t)x > hi || x != (double)(size_t)x) {
		fprintf(stderr, "%s: %s must be a whole number from %zu to %zu %s, not %.15g\n", k,
			name, lo, hi, unit, x);
		errno = EINVAL;
		return -1;
	}
	if (v)
		*v = (size_t)x;
	return 0;
}

/* The largest r with r * r <= x: the most rows of a square matrix in x cells. */
static inline size_t rot_arg_isqrt(size_t x)
{
	size_t r = 0;
	for (int b = (int)sizeof x * 4 - 1; b >= 0; b--) {
		size_t t = r | (size_t)1 << b;
		if (t <= x / t)
			r = t;
	}
	return r;
}

#endif
