/* stencil: one Jacobi sweep of the 2D 5-point stencil on an n x n grid of doubles,
 * out = 0.25 * (N + S + E + W) on the interior (4 flops a point); the grids swap each call.
 * Declared bytes: each grid moved once, 2 * n * n * 8. STENCIL_UNROLL unrolls the inner loop. */
#include "args.h"
#include "arrays.h"
#include "kernel.h"
#include "macro/ROT_TALLY.h"
#include "macro/STENCIL_UNROLL.h"
#include "tally.h"

#include <stdlib.h>

#ifndef STENCIL_UNROLL
#define STENCIL_UNROLL 1
#endif
#define STR_(x) #x
#define UNROLL_PRAGMA(n) _Pragma(STR_(GCC unroll n))

enum { IN, OUT };

struct st {
	struct arrays m; /* the grids IN and OUT, n x n each; they swap each call */
	long n;
};

static const struct rot_param params[] = {{"n", 1000, "grid points per side"}, {NULL, 0, NULL}};

/* n: 3 at least (an interior point to sweep); both grids' bytes at most ROT_ARG_BYTES */
static int side(const struct rot_args *args, size_t *n)
{
	size_t most = rot_arg_isqrt(ROT_ARG_BYTES / (2 * sizeof(double)));
	return rot_arg_range(args, "stencil", "n", 3, most, "points a side", n);
}

static int check(const struct rot_args *args)
{
	return side(args, NULL);
}

static void *init(const struct rot_args *args)
{
	size_t n;
	if (side(args, &n) < 0)
		return NULL;
	size_t cells = n * n, bytes = cells * sizeof(double);
	struct st *s = arrays_new(sizeof *s, (size_t[]){bytes, bytes}, 2);
	if (!s)
		return NULL;
	s->n = (long)n;
	double *in = s->m.at[IN], *out = s->m.at[OUT];
	for (size_t i = 0; i < cells; i++)
		in[i] = out[i] = (double)(i % 13);
	return s;
}

static void run(void *p)
{
	struct st *s = p;
	const long n = s->n;
	const double *restrict in = s->m.at[IN];
	double *restrict out = s->m.at[OUT];
	for (long i = 1; i < n - 1; i++) {
		UNROLL_PRAGMA(STENCIL_UNROLL)
		for (long j = 1; j < n - 1; j++)
			out[i * n + j] = 0.25 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] +
						 in[i * n + j - 1] + in[i * n + j + 1]);
	}
	s->m.at[IN] = out;
	s->m.at[OUT] = (double *)in;
	ROT_TALLY(n > 2 ? 4.0 * (double)(n - 2) * (double)(n - 2) : 0, 0);
}

static double flops(const struct rot_args *a)
{
	double n = rot_arg(a, "n");
	return n > 2 ? 4 * (n - 2) * (n - 2) : 0;
}

static double bytes(const struct rot_args *a)
{
	double n = rot_arg(a, "n");
	return 2 * n * n * 8;
}

static const struct rot_kernel stencil = {.name = "stencil",
					  .description = "2D 5-point Jacobi sweep",
					  .params = params,
					  .init = init,
					  .run = run,
					  .dispose = arrays_dispose,
					  .buffers = arrays_buffers,
					  .flops = flops,
					  .bytes = bytes,
					  .check = check};
ROT_KERNEL(stencil)
