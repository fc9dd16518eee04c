/* intensity: a[i] = f(b[i]) where f is fpe dependent multiply-adds, so the flops per loaded
 * element is a runtime parameter and one sweep walks from the memory roof to the compute roof
 * (like ERT and mixbench). INTENSITY_TYPE (double|float), INTENSITY_ILP (vectors in flight). */
#include "args.h"
#include "arrays.h"
#include "kernel.h"
#include "macro/INTENSITY_ILP.h"
#include "macro/INTENSITY_TYPE.h"
#include "macro/ROT_TALLY.h"
#include "tally.h"

#include <limits.h>
#include <stdlib.h>

#ifndef INTENSITY_TYPE
#define INTENSITY_TYPE double
#endif
#ifndef INTENSITY_ILP
#define INTENSITY_ILP 8
#endif
#if defined(__AVX512F__)
#define VBYTES 64
#elif defined(__AVX__)
#define VBYTES 32
#else
#define VBYTES 16
#endif

typedef INTENSITY_TYPE elem;
typedef elem vec __attribute__((vector_size(VBYTES)));
#define LANES ((long)(VBYTES / sizeof(elem)))

enum { A, B };

struct st {
	struct arrays m; /* A and B, n each */
	long n, fpe;
};

static const struct rot_param params[] = {
    {"n", 1 << 20, "elements"},
    {"fpe", 1, "multiply-adds per element (2 flops each)"},
    {NULL, 0, NULL},
};

/* n: both arrays' bytes together at most ROT_ARG_BYTES; fpe 0 makes a copy */
static int sizes(const struct rot_args *args, size_t *n, size_t *fpe)
{
	if (rot_arg_range(args, "intensity", "n", 1, ROT_ARG_BYTES / (2 * sizeof(elem)), "elements",
			  n) < 0)
		return -1;
	return rot_arg_range(args, "intensity", "fpe", 0, LONG_MAX, "multiply-adds", fpe);
}

static int check(const struct rot_args *args)
{
	return sizes(args, NULL, NULL);
}

static void *init(const struct rot_args *args)
{
	size_t n, fpe;
	if (sizes(args, &n, &fpe) < 0)
		return NULL;
	size_t bytes = n * sizeof(elem);
	struct st *s = arrays_new(sizeof *s, (size_t[]){bytes, bytes}, 2);
	if (!s)
		return NULL;
	s->n = (long)n;
	s->fpe = (long)fpe;
	elem *b = s->m.at[B];
	for (long i = 0; i < s->n; i++)
		b[i] = (elem)(i % 100) * (elem)0.01;
	return s;
}

static void range(struct st *s, long lo, long hi)
{
	const elem m = (elem)0.999, c = (elem)0.001;
	long i = lo, fpe = s->fpe;
	elem *a = s->m.at[A];
	const elem *b = s->m.at[B];
	for (; i + INTENSITY_ILP * LANES <= hi; i += INTENSITY_ILP * LANES) {
		vec v[INTENSITY_ILP];
		for (int j = 0; j < INTENSITY_ILP; j++)
			v[j] = *(const vec *)&b[i + j * LANES];
		for (long k = 0; k < fpe; k++)
			for (int j = 0; j < INTENSITY_ILP; j++)
				v[j] = v[j] * m + c;
		for (int j = 0; j < INTENSITY_ILP; j++)
			*(vec *)&a[i + j * LANES] = v[j];
	}
	for (; i < hi; i++) {
		elem x = b[i];
		for (long k = 0; k < fpe; k++)
			x = x * m + c;
		a[i] = x;
	}
	ROT_TALLY(2.0 * (double)fpe * (double)(hi - lo), 2.0 * sizeof(elem) * (double)(hi - lo));
}

static void run(void *p)
{
	struct st *s = p;
	range(s, 0, s->n);
}

static void run_thread(void *p, int th, int nth)
{
	struct st *s = p;
	long chunk = INTENSITY_ILP * LANES;
	long per = ((s->n + nth - 1) / nth + chunk - 1) / chunk * chunk;
	long lo = per * th, hi = lo + per;
	range(s, lo < s->n ? lo : s->n, hi < s->n ? hi : s->n);
}

static double flops(const struct rot_args *a)
{
	return 2.0 * rot_arg(a, "fpe") * rot_arg(a, "n");
}

static double bytes(const struct rot_args *a)
{
	return 2.0 * sizeof(elem) * rot_arg(a, "n");
}

static const struct rot_kernel intensity = {
    .name = "intensity",
    .description = "a[i] = fpe multiply-adds of b[i]",
    .params = params,
    .init = init,
    .run = run,
    .run_thread = run_thread,
    .dispose = arrays_dispose,
    .buffers = arrays_buffers,
    .flops = flops,
    .bytes = bytes,
    .check = check,
};
ROT_KERNEL(intensity)
