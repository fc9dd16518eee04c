/* matvec: y = A x for a dense n x n row-major A, double. MATVEC_ORDER 0: row by row
 * (contiguous); 1: column by column, the lecture's "implementation horror" (stride n).
 * MATVEC_BLOCK: rows per register block (1, 2 or 4; order 0 only). Declared bytes are the
 * lecture's ideal-cache count (A, x and y moved once): (n*n + 2n) * 8. */
#include "args.h"
#include "arrays.h"
#include "kernel.h"
#include "macro/MATVEC_BLOCK.h"
#include "macro/MATVEC_ORDER.h"
#include "macro/ROT_TALLY.h"
#include "tally.h"

#include <stdlib.h>
#include <string.h>

#ifndef MATVEC_ORDER
#define MATVEC_ORDER 0
#endif
#ifndef MATVEC_BLOCK
#define MATVEC_BLOCK 1
#endif

enum { A, X, Y };

struct st {
	struct arrays m; /* A (n x n), X and Y (n each) */
	long n;
};

static const struct rot_param params[] = {{"n", 1000, "matrix order"}, {NULL, 0, NULL}};

/* n: A, x and y together, (n + 1)^2 doubles at most, within ROT_ARG_BYTES: no size wraps */
static int order(const struct rot_args *args, size_t *n)
{
	size_t most = rot_arg_isqrt(ROT_ARG_BYTES / sizeof(double)) - 1;
	return rot_arg_range(args, "matvec", "n", 1, most, "rows", n);
}

static int check(const struct rot_args *args)
{
	return order(args, NULL);
}

static void *init(const struct rot_args *args)
{
	size_t n;
	if (order(args, &n) < 0)
		return NULL;
	size_t vector = n * sizeof(double);
	struct st *s = arrays_new(sizeof *s, (size_t[]){n * vector, vector, vector}, 3);
	if (!s)
		return NULL;
	s->n = (long)n;
	double *a = s->m.at[A], *x = s->m.at[X];
	for (size_t i = 0; i < n * n; i++)
		a[i] = (double)(i % 7) * 0.1;
	for (size_t i = 0; i < n; i++)
		x[i] = 1.0 / (double)(i + 1);
	return s;
}

static void run(void *p)
{
	struct st *s = p;
	const long n = s->n;
	const double *restrict a = s->m.at[A], *restrict x = s->m.at[X];
	double *restrict y = s->m.at[Y];
#if MATVEC_ORDER == 1
	memset(y, 0, (size_t)n * sizeof *y);
	for (long j = 0; j < n; j++)
		for (long i = 0; i < n; i++)
			y[i] += a[i * n + j] * x[j];
#else
	long i = 0;
	for (; i + MATVEC_BLOCK <= n; i += MATVEC_BLOCK) {
		double t[MATVEC_BLOCK] = {0};
		for (long j = 0; j < n; j++) {
			const double xj = x[j];
			for (int b = 0; b < MATVEC_BLOCK; b++)
				t[b] += a[(i + b) * n + j] * xj;
		}
		for (int b = 0; b < MATVEC_BLOCK; b++)
			y[i + b] = t[b];
	}
	for (; i < n; i++) {
		double t = 0;
		for (long j = 0; j < n; j++)
			t += a[i * n + j] * x[j];
		y[i] = t;
	}
#endif
	ROT_TALLY(2.0 * (double)n * (double)n, 0);
}

static double flops(const struct rot_args *a)
{
	double n = rot_arg(a, "n");
	return 2 * n * n;
}

static double bytes(const struct rot_args *a)
{
	double n = rot_arg(a, "n");
	return (n * n + 2 * n) * 8;
}

static const struct rot_kernel matvec = {.name = "matvec",
					 .description = "y = A x, dense, row-major A",
					 .params = params,
					 .init = init,
					 .run = run,
					 .dispose = arrays_dispose,
					 .buffers = arrays_buffers,
					 .flops = flops,
					 .bytes = bytes,
					 .check = check};
ROT_KERNEL(matvec)
