/* dgemm: C += A B for dense n x n row-major doubles, a teaching kernel (not a BLAS).
 * DGEMM_BLOCK 0: the naive i-j-k loops; B > 0: B x B tiles with the i-k-j order inside.
 * Declared bytes: the compulsory traffic, A and B read once, C read and written once: 4 n^2 8. */
#include "args.h"
#include "arrays.h"
#include "kernel.h"
#include "macro/DGEMM_BLOCK.h"
#include "macro/ROT_TALLY.h"
#include "tally.h"

#include <stdlib.h>

#ifndef DGEMM_BLOCK
#define DGEMM_BLOCK 0
#endif

enum { A, B, C };

struct st {
	struct arrays m; /* A, B and C, n x n each */
	long n;
};

static const struct rot_param params[] = {{"n", 256, "matrix order"}, {NULL, 0, NULL}};

/* n: the three matrices' bytes together at most ROT_ARG_BYTES, so no size wraps */
static int order(const struct rot_args *args, size_t *n)
{
	size_t most = rot_arg_isqrt(ROT_ARG_BYTES / (3 * sizeof(double)));
	return rot_arg_range(args, "dgemm", "n", 1, most, "rows", n);
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
	size_t cells = n * n, bytes = cells * sizeof(double);
	struct st *s = arrays_new(sizeof *s, (size_t[]){bytes, bytes, bytes}, 3);
	if (!s)
		return NULL;
	s->n = (long)n;
	double *a = s->m.at[A], *b = s->m.at[B];
	for (size_t i = 0; i < cells; i++) {
		a[i] = (double)(i % 5) * 0.01;
		b[i] = (double)(i % 3) * 0.01;
	}
	return s;
}

static void run(void *p)
{
	struct st *s = p;
	const long n = s->n;
	const double *restrict a = s->m.at[A], *restrict b = s->m.at[B];
	double *restrict c = s->m.at[C];
#if DGEMM_BLOCK == 0
	for (long i = 0; i < n; i++)
		for (long j = 0; j < n; j++) {
			double t = c[i * n + j];
			for (long k = 0; k < n; k++)
				t += a[i * n + k] * b[k * n + j];
			c[i * n + j] = t;
		}
#else
	const long B = DGEMM_BLOCK;
	for (long ii = 0; ii < n; ii += B)
		for (long kk = 0; kk < n; kk += B)
			for (long jj = 0; jj < n; jj += B)
				for (long i = ii; i < ii + B && i < n; i++)
					for (long k = kk; k < kk + B && k < n; k++) {
						const double aik = a[i * n + k];
						for (long j = jj; j < jj + B && j < n; j++)
							c[i * n + j] += aik * b[k * n + j];
					}
#endif
	ROT_TALLY(2.0 * (double)n * (double)n * (double)n, 0);
}

static double flops(const struct rot_args *a)
{
	double n = rot_arg(a, "n");
	return 2 * n * n * n;
}

static double bytes(const struct rot_args *a)
{
	double n = rot_arg(a, "n");
	return 4 * n * n * 8;
}

static const struct rot_kernel dgemm = {.name = "dgemm",
					.description = "C += A B, naive or tiled",
					.params = params,
					.init = init,
					.run = run,
					.dispose = arrays_dispose,
					.buffers = arrays_buffers,
					.flops = flops,
					.bytes = bytes,
					.check = check};
ROT_KERNEL(dgemm)
