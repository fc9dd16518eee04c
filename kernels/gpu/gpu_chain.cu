/* gpu_chain: chains of n dependent instructions of one class per thread, launched as blocks
 * x threads (warps per SM = blocks x threads / 32 / SMs), for issue and completion
 * latencies (the pipeline model). GCHAIN_OP: 0 fadd, 1 ffma, 2 dfma, 3 sin/cos, 4 iadd,
 * 5 global load (pointer chase), 6 shared load (pointer chase). The integer add is inline PTX:
 * the compiler would fold four u + 7 into one u + 28 (tests/ptx.t checks every chain). */
#include "macro/GCHAIN_OP.h"
#include "common.cuh"

#ifndef GCHAIN_OP
#define GCHAIN_OP 1
#endif

struct st {
	long n;
	int blocks, threads;
	unsigned *chase;
	double *sink;
};

static const struct rot_param params[] = {
	{"n", 1024, "dependent instructions per thread"},
	{"blocks", 132, "blocks"},
	{"threads", 32, "threads per block"},
	{nullptr, 0, nullptr}};

static __global__ void chain_kernel(long n, const unsigned *__restrict__ chase, double *sink)
{
#if GCHAIN_OP == 6
	__shared__ unsigned ring[1024];
	for (int i = threadIdx.x; i < 1024; i += blockDim.x)
		ring[i] = (i + 33) & 1023;
	__syncthreads();
#endif
	float f = threadIdx.x * 1e-3f;
	double d = threadIdx.x * 1e-3;
	unsigned u = threadIdx.x & 1023;
	for (long i = 0; i < n; i++) {
#if GCHAIN_OP == 0
		f = f + 1.0001f;
#elif GCHAIN_OP == 1
		f = fmaf(f, 0.9999f, 0.0001f);
#elif GCHAIN_OP == 2
		d = fma(d, 0.9999, 0.0001);
#elif GCHAIN_OP == 3
		f = __sinf(f) + __cosf(f);
#elif GCHAIN_OP == 4
		asm volatile("add.u32 %0, %0, 7;" : "+r"(u));
#elif GCHAIN_OP == 5
		u = chase[u];
#else
		u = ring[u];
#endif
	}
	if (f == -1.0f || d == -1.0 || u == 0xffffffffu)
		*sink = f + d + u; /* never true: keeps every chain alive */
}

static void *init(const struct rot_args *args)
{
	st *s = (st *)calloc(1, sizeof *s);
	if (!s)
		return nullptr;
	s->n = (long)rot_arg(args, "n");
	s->blocks = (int)rot_arg(args, "blocks");
	s->threads = (int)rot_arg(args, "threads");
	s->chase = (unsigned *)dev_alloc(1024 * sizeof(unsigned));
	s->sink = (double *)dev_alloc(sizeof(double));
	if (!s->chase || !s->sink) {
		cudaFree(s->chase), cudaFree(s->sink), free(s);
		return nullptr;
	}
	unsigned ring[1024];
	for (unsigned i = 0; i < 1024; i++)
		ring[i] = (i + 33) & 1023; /* a stride that visits every slot */
	cudaMemcpy(s->chase, ring, sizeof ring, cudaMemcpyHostToDevice);
	return s;
}

static void run(void *p)
{
	st *s = (st *)p;
	chain_kernel<<<s->blocks, s->threads>>>(s->n, s->chase, s->sink);
}

static void dispose(void *p)
{
	st *s = (st *)p;
	cudaFree(s->chase), cudaFree(s->sink), free(s);
}

/* "flops" here counts the chain's instructions (thread-level), whatever their class */
static double ops(const struct rot_args *a)
{
	return rot_arg(a, "n") * rot_arg(a, "blocks") * rot_arg(a, "threads");
}

static double zero(const struct rot_args *a)
{
	return 0;
}

static const struct rot_kernel gpu_chain = {
	"gpu_chain", "dependent instruction chains", params, init, run, nullptr, dispose, nullptr,
	ops, zero, 1, nullptr};
ROT_KERNEL(gpu_chain)
