/* stream: the shared body of the STREAM-style kernels (sum, fill, copy, scale, add, triad,
 * daxpy). A kernel file defines STREAM_NAME, STREAM_EXPR(a, b, c) (the value stored to a; or
 * STREAM_SUM for the read-only reduction), which arrays it reads, its flops per element,
 * then includes this header. Macros: STREAM_TYPE (double|float), STREAM_NT (1: non-temporal
 * stores), STREAM_UNROLL; ROT_TALLY (1: count the work done, for tests).
 * Counted: sum's flops are n and up to 128 more, adding its partial sums after the loop. */
#include "args.h"
#include "arrays.h"
#include "kernel.h"
#include "tally.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#ifndef STREAM_TYPE
#define STREAM_TYPE double
#endif
#ifndef STREAM_NT
#define STREAM_NT 0
#endif
#ifndef STREAM_UNROLL
#define STREAM_UNROLL 1
#endif
#ifndef STREAM_SUM
#define STREAM_SUM 0
#endif

typedef STREAM_TYPE elem;
#define S ((elem)3)
#define STREAM_BYTES_PER_ELEM                                                                      \
	((STREAM_READS_A + STREAM_READS_B + STREAM_READS_C + !STREAM_SUM) * sizeof(elem))
#define STR_(x) #x
#define UNROLL_PRAGMA(n) _Pragma(STR_(GCC unroll n))

/* vector width of the read-only reduction's partial sums: the widest the flags allow */
#if defined(__AVX512F__)
#define SUM_VBYTES 64
#elif defined(__AVX__)
#define SUM_VBYTES 32
#else
#define SUM_VBYTES 16
#endif

/* out (of type T, half the size of x): the sum of x's two halves */
#define SUM_HALVE(x, T, out)                                                                       \
	T out;                                                                                     \
	{                                                                                          \
		union {                                                                            \
			__typeof__(x) whole;                                                       \
			T half[2];                                                                 \
		} u_ = {x};                                                                        \
		out = u_.half[0] + u_.half[1];                                                     \
	}

/* vector width of the non-temporal variant: the widest the flags allow */
#if STREAM_NT && defined(__AVX512F__)
#define VBYTES 64
#elif STREAM_NT && defined(__AVX__)
#define VBYTES 32
#elif STREAM_NT && defined(__SSE2__)
#define VBYTES 16
#elif STREAM_NT
#error "STREAM_NT=1 needs x86-64 (SSE2 or newer) non-temporal stores"
#endif

enum { A, B, C };

struct stream {
	struct arrays m; /* A, B and C, n each; B and C only where the kernel reads them */
	size_t n;
	double sum;
};

static const struct rot_param params[] = {
    {"n", 1 << 20, "elements per array"},
    {NULL, 0, NULL},
};

/* n elements of each array: from 1 to as many as ROT_ARG_BYTES holds (an array's bytes,
 * rounded to pages, cannot wrap). 0, or -1 with errno EINVAL after saying why on stderr. */
static int elements(const struct rot_args *args, size_t *n)
{
	return rot_arg_range(args, ROT_KSTR(STREAM_NAME), "n", 1, ROT_ARG_BYTES / sizeof(elem),
			     "elements", n);
}

static int check(const struct rot_args *args)
{
	return elements(args, NULL);
}

static void *init(const struct rot_args *args)
{
	size_t n;
	if (elements(args, &n) < 0)
		return NULL;
	size_t bytes = n * sizeof(elem);
	size_t each[] = {bytes, STREAM_READS_B ? bytes : 0, STREAM_READS_C ? bytes : 0};
	struct stream *t = arrays_new(sizeof *t, each, 3);
	if (!t)
		return NULL;
	t->n = n;
	elem *a = t->m.at[A], *b = t->m.at[B], *c = t->m.at[C];
	for (size_t i = 0; i < n; i++) {
		a[i] = 1;
		if (b)
			b[i] = 2;
		if (c)
			c[i] = 0.5;
	}
	return t;
}

#if STREAM_SUM
typedef elem svec __attribute__((vector_size(SUM_VBYTES), aligned(sizeof(elem))));
typedef elem v16 __attribute__((vector_size(16), aligned(sizeof(elem))));
enum { W = SUM_VBYTES / sizeof(elem), V = 8 };

/* The sum of x's lanes as a tree: its halves while wider than 16 bytes, then those lanes. */
static inline __attribute__((always_inline)) elem sum_lanes(svec x)
{
#if SUM_VBYTES == 64
	typedef elem v32 __attribute__((vector_size(32), aligned(sizeof(elem))));
	SUM_HALVE(x, v32, h)
	SUM_HALVE(h, v16, v)
#elif SUM_VBYTES == 32
	SUM_HALVE(x, v16, v)
#else
	v16 v = x;
#endif
	UNROLL_PRAGMA(2)
	for (int half = 8 / sizeof(elem); half >= 1; half /= 2) {
		UNROLL_PRAGMA(2)
		for (int l = 0; l < half; l++)
			v[l] += v[l + half];
	}
	return v[0];
}

/* The sum of a[lo..hi): eight independent partial sums of the widest vector the flags allow, so
 * the loop is bound by its loads (two a cycle in L1), not by the latency of its additions. */
static inline __attribute__((always_inline)) elem sum_range(struct stream *t, size_t lo, size_t hi)
{
	const elem *restrict a = t->m.at[A];
	svec acc[V];
	UNROLL_PRAGMA(8)
	for (int j = 0; j < V; j++)
		acc[j] = (svec){0};
	size_t i = lo;
	for (; i + V * W <= hi; i += V * W) {
		UNROLL_PRAGMA(8) /* the partial sums stay in registers at -O2 too */
		for (int j = 0; j < V; j++)
			acc[j] += *(const svec *)&a[i + (size_t)j * W];
	}
	/* the partial sums added as a tree, log2(V * W) additions deep: the V vectors pairwise,
	 * then the lanes. A chain over the V * W lanes (64 with AVX-512, 4 cycles each) would take
	 * as long as the loop over a 32 KiB array, and the read ceiling would measure it, not the
	 * loads. */
	_Static_assert(V == 8, "the partial sums' tree below has three levels");
	UNROLL_PRAGMA(4) /* each level by hand: a loop over the levels leaves them in memory */
	for (int j = 0; j < 4; j++)
		acc[j] += acc[j + 4];
	acc[0] += acc[2], acc[1] += acc[3];
	acc[0] += acc[1];
	elem s = sum_lanes(acc[0]);
	for (; i < hi; i++)
		s += a[i];
	return s;
}
#elif STREAM_NT
typedef elem vec __attribute__((vector_size(VBYTES)));

/* r stored to p, which is VBYTES-aligned, bypassing the caches */
static inline __attribute__((always_inline)) void nt_store(elem *p, vec r)
{
#if VBYTES == 64
	if (sizeof(elem) == 8)
		_mm512_stream_pd((double *)p, (__m512d)r);
	else
		_mm512_stream_ps((float *)p, (__m512)r);
#elif VBYTES == 32
	if (sizeof(elem) == 8)
		_mm256_stream_pd((double *)p, (__m256d)r);
	else
		_mm256_stream_ps((float *)p, (__m256)r);
#else
	if (sizeof(elem) == 8)
		_mm_stream_pd((double *)p, (__m128d)r);
	else
		_mm_stream_ps((float *)p, (__m128)r);
#endif
}

/* a[lo..hi) stored with non-temporal stores where aligned, plain ones at both ends */
static inline __attribute__((always_inline)) void nt_range(struct stream *t, size_t lo, size_t hi)
{
	elem *restrict a = t->m.at[A];
	const elem *restrict b = t->m.at[B], *restrict c = t->m.at[C];
	const size_t w = VBYTES / sizeof(elem);
	size_t i = lo;
	for (; i < hi && (i % w); i++)
		a[i] = STREAM_EXPR(a[i], b[i], c[i]);
	for (; i + w <= hi; i += w) {
		vec va = STREAM_READS_A ? *(vec *)&a[i] : (vec){0};
		vec vb = STREAM_READS_B ? *(const vec *)&b[i] : (vec){0};
		vec vc = STREAM_READS_C ? *(const vec *)&c[i] : (vec){0};
		/* broadcasts a scalar expression; x - 0.0 is x exactly, so a vector one costs no
		 * addition */
		vec r = STREAM_EXPR(va, vb, vc) - (vec){0};
		(void)va, (void)vb, (void)vc;
		nt_store(&a[i], r);
	}
	for (; i < hi; i++)
		a[i] = STREAM_EXPR(a[i], b[i], c[i]);
	_mm_sfence();
}
#endif

/* One invocation's elements lo..hi, and the work they did tallied (ROT_TALLY). */
static void range(struct stream *t, size_t lo, size_t hi)
{
#if STREAM_SUM
	t->sum += sum_range(t, lo, hi);
#elif STREAM_NT
	nt_range(t, lo, hi);
#else
	elem *restrict a = t->m.at[A];
	const elem *restrict b = t->m.at[B], *restrict c = t->m.at[C];
	(void)b, (void)c;
	UNROLL_PRAGMA(STREAM_UNROLL)
	for (size_t i = lo; i < hi; i++)
		a[i] = STREAM_EXPR(a[i], b[i], c[i]);
#endif
	ROT_TALLY((double)(hi - lo) * STREAM_FLOPS, (double)(hi - lo) * STREAM_BYTES_PER_ELEM);
	ROT_TALLY_WRITTEN(STREAM_SUM ? 0.0 : (double)(hi - lo) * sizeof(elem)); /* a[] stored */
}

static void run(void *state)
{
	struct stream *t = state;
	range(t, 0, t->n);
}

/* thread th of nth takes a contiguous slice starting on a 64-byte boundary */
static void run_thread(void *state, int th, int nth)
{
	struct stream *t = state;
	size_t per = ((t->n + (size_t)nth - 1) / (size_t)nth + 15) & ~(size_t)15;
	size_t lo = per * (size_t)th, hi = lo + per;
	range(t, lo < t->n ? lo : t->n, hi < t->n ? hi : t->n);
}

static double flops(const struct rot_args *a)
{
	return STREAM_FLOPS * rot_arg(a, "n");
}

/* STREAM's convention: each element of each array read or written once; write-allocate
 * traffic (a store's line read first) is not counted. */
static double bytes(const struct rot_args *a)
{
	return (double)STREAM_BYTES_PER_ELEM * rot_arg(a, "n");
}

/* the stored array's share of those bytes: none for the read-only reduction */
static double written(const struct rot_args *a)
{
	return STREAM_SUM ? 0.0 : (double)sizeof(elem) * rot_arg(a, "n");
}

static const struct rot_kernel ROT_KSYM(STREAM_NAME) = {
    .name = ROT_KSTR(STREAM_NAME),
    .description = STREAM_DESCRIPTION,
    .params = params,
    .init = init,
    .run = run,
    .run_thread = run_thread,
    .dispose = arrays_dispose,
    .buffers = arrays_buffers,
    .flops = flops,
    .bytes = bytes,
    .written = written,
    .check = check,
};
ROT_KERNEL(ROT_KSYM(STREAM_NAME))
