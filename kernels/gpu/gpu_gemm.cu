/* gpu_gemm: C += A B for n x n row-major matrices, shared-memory tiles of GGEMM_TILE^2
 * (a teaching kernel, not cuBLAS). GGEMM_TYPE double|float. Declared bytes: the compulsory
 * traffic, A and B read once, C read and written once: 4 n^2 sizeof(type). */
#include "macro/GGEMM_TILE.h"
#include "macro/GGEMM_TYPE.h"
#include "common.cuh"

#ifndef GGEMM_TYPE
#define GGEMM_TYPE float
#endif
#ifndef GGEMM_TILE
#define GGEMM_TILE 16
#endif
typedef GGEMM_TYPE elem;
#define T GGEMM_TILE

struct st {
	elem *a, *b, *c;
	int n;
};

static const struct rot_param params[] = {{"n", 2048, "matrix order"}, {nullptr, 0, nullptr}};

static __global__ void gemm_kernel(const elem *__restrict__ a, const elem *__restrict__ b, elem *c, int n)
{
	__shared__ elem ta[T][T], tb[T][T];
	int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
	elem acc = 0;
	for (int k0 = 0; k0 < n; k0 += T) {
		ta[threadIdx.y][threadIdx.x] = row < n && k0 + threadIdx.x < n ? a[row * n + k0 + threadIdx.x] : 0;
		tb[threadIdx.y][threadIdx.x] = col < n && k0 + threadIdx.y < n ? b[(k0 + threadIdx.y) * n + col] : 0;
		__syncthreads();
		for (int k = 0; k < T; k++)
			acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
		__syncthreads();
	}
	if (row < n && col < n)
		c[row * n + col] += acc;
}

static void *init(const struct rot_args *args)
{
	st *s = (st *)calloc(1, sizeof *s);
	if (!s)
		return nullptr;
	s->n = (int)rot_arg(args, "n");
	size_t bytes = (size_t)s->n * s->n * sizeof(elem);
	s->a = (elem *)dev_alloc(bytes);
	s->b = (elem *)dev_alloc(bytes);
	s->c = (elem *)dev_alloc(bytes);
	if (!s->a || !s->b || !s->c) {
		cudaFree(s->a), cudaFree(s->b), cudaFree(s->c), free(s);
		return nullptr;
	}
	cudaMemset(s->a, 0, bytes);
	cudaMemset(s->b, 0, bytes);
	cudaMemset(s->c, 0, bytes);
	return s;
}

static void run(void *p)
{
	st *s = (st *)p;
	dim3 block(T, T), grid((s->n + T - 1) / T, (s->n + T - 1) / T);
	gemm_kernel<<<grid, block>>>(s->a, s->b, s->c, s->n);
}

static void dispose(void *p)
{
	st *s = (st *)p;
	cudaFree(s->a), cudaFree(s->b), cudaFree(s->c), free(s);
}

static double flops(const struct rot_args *a)
{
	double n = rot_arg(a, "n");
	return 2 * n * n * n;
}

static double bytes(const struct rot_args *a)
{
	double n = rot_arg(a, "n");
	return 4 * n * n * sizeof(elem);
}

static const struct rot_kernel gpu_gemm = {
	"gpu_gemm", "tiled C += A B", params, init, run, nullptr, dispose, nullptr, flops, bytes, 1, nullptr};
ROT_KERNEL(gpu_gemm)
