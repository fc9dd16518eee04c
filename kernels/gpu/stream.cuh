/* stream: the shared body of the GPU stream kernels (BabelStream's copy, scale, add, triad,
 * dot, plus read-only and write-only), grid-stride loops over n elements. A kernel file sets
 * GSTREAM_NAME, the arrays it reads and writes, its flops per element and GSTREAM_OP(i), or
 * GSTREAM_DOT for a reduction, then includes this. Macros: GSTREAM_TYPE (double|float),
 * GSTREAM_BLOCK (threads per block, 1024 as BabelStream). Launched as BabelStream launches them:
 * one element per thread (the grid covers n); the dot with 8192 threads an SM, so each thread
 * sums many elements before its warp's one atomic. */
#include "common.cuh"

#ifndef GSTREAM_TYPE
#define GSTREAM_TYPE double
#endif
#ifndef GSTREAM_BLOCK
#define GSTREAM_BLOCK 1024
#endif
#ifndef GSTREAM_DOT
#define GSTREAM_DOT 0
#endif
typedef GSTREAM_TYPE elem;

struct gstream {
	elem *a, *b, *c;
	double *sum;
	size_t n;
};

static const struct rot_param params[] = {{"n", 1 << 25, "elements per array"}, {nullptr, 0, nullptr}};

static __global__ void gstream_kernel(elem *__restrict__ a, elem *__restrict__ b,
			       elem *__restrict__ c, double *sum, size_t n)
{
	const elem s = (elem)0.4;
	(void)s;
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
#if GSTREAM_DOT
	double t = 0;
	for (; i < n; i += stride)
		t += GSTREAM_TERM(i);
	for (int o = 16; o > 0; o /= 2)
		t += __shfl_down_sync(0xffffffffu, t, o);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(sum, t);
#else
	for (; i < n; i += stride)
		GSTREAM_OP(i);
#endif
}

static void *init(const struct rot_args *args)
{
	gstream *g = (gstream *)calloc(1, sizeof *g);
	if (!g)
		return nullptr;
	g->n = (size_t)rot_arg(args, "n");
	size_t bytes = g->n * sizeof(elem);
	g->a = (elem *)dev_alloc(bytes);
	g->b = (elem *)dev_alloc(bytes);
	g->c = (elem *)dev_alloc(bytes);
	g->sum = (double *)dev_alloc(sizeof(double));
	if (!g->a || !g->b || !g->c || !g->sum) {
		cudaFree(g->a), cudaFree(g->b), cudaFree(g->c), cudaFree(g->sum), free(g);
		errno = ENOMEM;
		return nullptr;
	}
	cudaMemset(g->a, 0, bytes);
	cudaMemset(g->b, 0, bytes);
	cudaMemset(g->c, 0, bytes);
	cudaDeviceSynchronize();
	return g;
}

static void run(void *state)
{
	gstream *g = (gstream *)state;
	/* the dot: 8192 threads an SM whatever the block size, so the number of atomics stays */
	unsigned grid = GSTREAM_DOT ? grid_threads(g->n, GSTREAM_BLOCK, 8192)
				    : grid_cover(g->n, GSTREAM_BLOCK);
	gstream_kernel<<<grid, GSTREAM_BLOCK>>>(g->a, g->b, g->c, g->sum, g->n);
}

static void dispose(void *state)
{
	gstream *g = (gstream *)state;
	cudaFree(g->a), cudaFree(g->b), cudaFree(g->c), cudaFree(g->sum), free(g);
}

static double flops(const struct rot_args *a)
{
	return GSTREAM_FLOPS * rot_arg(a, "n");
}

/* each array element read or written once; no write-allocate on the GPU */
static double bytes(const struct rot_args *a)
{
	return (double)GSTREAM_ACCESSES * sizeof(elem) * rot_arg(a, "n");
}

static const struct rot_kernel ROT_KSYM(GSTREAM_NAME) = {
	ROT_KSTR(GSTREAM_NAME), GSTREAM_DESCRIPTION, params, init, run, nullptr, dispose, nullptr,
	flops, bytes, 1, nullptr};
ROT_KERNEL(ROT_KSYM(GSTREAM_NAME))
