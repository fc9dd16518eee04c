/* gpu_intensity: mixbench-style: each thread loads elements, does fpe multiply-adds on each
 * and stores it, so one sweep of fpe walks from the memory roof to the compute roof.
 * GINT_TYPE: 0 fp32, 1 fp64, 2 fp16 (half2: one instruction does two), 3 int32.
 * Each thread keeps CHAINS elements in flight (independent chains: one dependent chain per
 * thread is latency-bound, below the compute roof): four, eight for half2, whose FMAs ptxas
 * spreads over two pipes (four leave half2 below the reference's rate);
 * the multiplier and addend are launch
 * arguments, hoisted out of the loop; the integer multiply-add is inline PTX, since the
 * compiler folds x*3+1 four times over into one x*81+40 (tests/ptx.t checks the PTX). The
 * multiply-add loop is unrolled 32 times: a warp issues one instruction a clock, and fp32 and
 * half2 FMAs need every issue slot, so the loop's counter, compare and branch cost 3 slots in
 * 16 FMAs at the compiler's unroll by 4 (84 % of the roof at best), 3 in 128 here (98 %). */
#include "macro/GINT_BLOCK.h"
#include "macro/GINT_TYPE.h"
#include "common.cuh"

#include <cuda_fp16.h>

#ifndef GINT_TYPE
#define GINT_TYPE 0
#endif
#ifndef GINT_BLOCK
#define GINT_BLOCK 256
#endif
#if GINT_TYPE == 0
typedef float elem;
#define LANES 1
#define MAD(x) (x = fmaf(x, m, c))
#define CONSTANTS(mul, add) (elem)(mul), (elem)(add)
#elif GINT_TYPE == 1
typedef double elem;
#define LANES 1
#define MAD(x) (x = fma(x, m, c))
#define CONSTANTS(mul, add) (elem)(mul), (elem)(add)
#elif GINT_TYPE == 2
typedef __half2 elem;
#define LANES 2
#define MAD(x) (x = __hfma2(x, m, c))
#define CONSTANTS(mul, add) __float2half2_rn(mul), __float2half2_rn(add)
#define CHAINS 8
#else
typedef int elem;
#define LANES 1
#define MAD(x) asm volatile("mad.lo.s32 %0, %0, %1, %2;" : "+r"(x) : "r"(m), "r"(c))
#define CONSTANTS(mul, add) 3, 1
#endif

#ifndef CHAINS
#define CHAINS 4
#endif

struct st {
	elem *a;
	size_t n;
	int fpe;
};

static const struct rot_param params[] = {
	{"n", 1 << 24, "elements (half2 pairs for fp16)"},
	{"fpe", 1, "multiply-adds per element"},
	{nullptr, 0, nullptr}};

static __global__ void intensity_kernel(elem *__restrict__ a, size_t n, int fpe, elem m, elem c)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (; i + (CHAINS - 1) * stride < n; i += CHAINS * stride) { /* CHAINS elements, independent chains */
		elem x[CHAINS];
#pragma unroll
		for (int j = 0; j < CHAINS; j++)
			x[j] = a[i + j * stride];
#pragma unroll 32
		for (int k = 0; k < fpe; k++) {
#pragma unroll
			for (int j = 0; j < CHAINS; j++)
				MAD(x[j]);
		}
#pragma unroll
		for (int j = 0; j < CHAINS; j++)
			a[i + j * stride] = x[j];
	}
	for (; i < n; i += stride) { /* the rest, one at a time */
		elem x = a[i];
		for (int k = 0; k < fpe; k++)
			MAD(x);
		a[i] = x;
	}
}

static void *init(const struct rot_args *args)
{
	st *s = (st *)calloc(1, sizeof *s);
	if (!s)
		return nullptr;
	s->n = (size_t)rot_arg(args, "n");
	s->fpe = (int)rot_arg(args, "fpe");
	s->a = (elem *)dev_alloc(s->n * sizeof(elem));
	if (!s->a) {
		free(s);
		return nullptr;
	}
	cudaMemset(s->a, 0, s->n * sizeof(elem));
	cudaDeviceSynchronize();
	return s;
}

static void run(void *p)
{
	st *s = (st *)p;
	intensity_kernel<<<grid_for((s->n + CHAINS - 1) / CHAINS, GINT_BLOCK), GINT_BLOCK>>>(s->a, s->n, s->fpe,
										 CONSTANTS(0.999f, 0.001f));
}

/* the loads and stores are the same values again: a pass starts from what the last left */
static void reset(void *p)
{
	st *s = (st *)p;
	cudaMemset(s->a, 0, s->n * sizeof(elem));
}

static void dispose(void *p)
{
	st *s = (st *)p;
	cudaFree(s->a), free(s);
}

/* 2 operations per multiply-add and lane (integer ones counted the same way) */
static double flops(const struct rot_args *a)
{
	return 2.0 * LANES * rot_arg(a, "fpe") * rot_arg(a, "n");
}

static double bytes(const struct rot_args *a)
{
	return 2.0 * sizeof(elem) * rot_arg(a, "n");
}

static const struct rot_kernel gpu_intensity = {
	"gpu_intensity", "fpe multiply-adds per loaded element", params, init, run, nullptr, dispose,
	nullptr, flops, bytes, 1, reset};
ROT_KERNEL(gpu_intensity)
