/* triad: STREAM's triad, a[i] = b[i] + s * c[i] in double precision.
 * 2 flops and 24 bytes (two loads, one store; write-allocate not counted) per element. */
#include "kernel.h"

#include <stdlib.h>

#include "macro/TRIAD_UNROLL.h"
#ifndef TRIAD_UNROLL
#define TRIAD_UNROLL 1
#endif

#define STR_(x) #x
#define UNROLL_PRAGMA(n) _Pragma(STR_(GCC unroll n))

struct triad {
	double *a, *b, *c;
	size_t n;
};

static const struct rot_param params[] = {
	{"n", 1 << 20, "elements per array"},
	{NULL, 0, NULL},
};

static void *init(const struct rot_args *args)
{
	struct triad *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->n = (size_t)rot_arg(args, "n");
	t->a = rot_alloc(t->n * sizeof(double));
	t->b = rot_alloc(t->n * sizeof(double));
	t->c = rot_alloc(t->n * sizeof(double));
	if (!t->a || !t->b || !t->c) {
		free(t->a), free(t->b), free(t->c), free(t);
		return NULL;
	}
	for (size_t i = 0; i < t->n; i++) {
		t->b[i] = 1.0;
		t->c[i] = 2.0;
	}
	return t;
}

static void triad_range(struct triad *t, size_t lo, size_t hi)
{
	double *restrict a = t->a;
	const double *restrict b = t->b, *restrict c = t->c;
	const double s = 3.0;
	UNROLL_PRAGMA(TRIAD_UNROLL)
	for (size_t i = lo; i < hi; i++)
		a[i] = b[i] + s * c[i];
}

static void run(void *state)
{
	struct triad *t = state;
	triad_range(t, 0, t->n);
}

/* thread `th` of `nth` takes its contiguous slice; slices start on cache-line boundaries */
static void run_thread(void *state, int th, int nth)
{
	struct triad *t = state;
	size_t per = (t->n / (size_t)nth + 7) & ~(size_t)7;
	size_t lo = per * (size_t)th, hi = lo + per;
	triad_range(t, lo < t->n ? lo : t->n, hi < t->n ? hi : t->n);
}

static void dispose(void *state)
{
	struct triad *t = state;
	free(t->a), free(t->b), free(t->c), free(t);
}

static int buffers(void *state, struct rot_buffer *out, int max)
{
	struct triad *t = state;
	size_t bytes = t->n * sizeof(double);
	if (max < 3)
		return 0;
	out[0] = (struct rot_buffer){t->a, bytes};
	out[1] = (struct rot_buffer){t->b, bytes};
	out[2] = (struct rot_buffer){t->c, bytes};
	return 3;
}

static double flops(const struct rot_args *a)
{
	return 2.0 * rot_arg(a, "n");
}

static double bytes(const struct rot_args *a)
{
	return 24.0 * rot_arg(a, "n");
}

static const struct rot_kernel triad = {
	.name = "triad",
	.description = "a[i] = b[i] + s*c[i], double",
	.params = params,
	.init = init,
	.run = run,
	.run_thread = run_thread,
	.dispose = dispose,
	.buffers = buffers,
	.flops = flops,
	.bytes = bytes,
};
ROT_KERNEL(triad)
