/* gpu_chain: chains of n dependent instructions of one class per thread, launched as blocks
 * x threads (warps per SM = blocks x threads / 32 / SMs), for issue and completion
 * latencies (the pipeline model). GCHAIN_OP: 0 fadd, 1 ffma, 2 dfma, 3 sin/cos, 4 iadd,
 * 5 global load (pointer chase), 6 shared load (pointer chase). The integer add is inline PTX,
 * an add with carry in and out (addc.cc): nvcc folds four u + 7 into one u + 28 (tests/ptx.t
 * checks every chain), ptxas folds inline add.u32 the same way (less than a cycle an add), and
 * a register addend only makes it pair them (IMAD u = 2 * step + u); a carry chain is one
 * IADD3.X a step.
 * Sixteen steps per loop iteration keep the loop's own instructions (counter, compare, branch)
 * off the chain's time; each block's first thread counts the chain's SM cycles (clock64), best
 * over launches, reported as row.report.cycles (median over blocks): no launch time, no
 * assumption about the clock. */
#include "macro/GCHAIN_OP.h"
#include "common.cuh"

#include <climits>

#ifndef GCHAIN_OP
#define GCHAIN_OP 1
#endif

#define UNROLL 16

struct st {
	long n;
	int blocks, threads;
	unsigned *chase;
	double *sink;
	unsigned long long *best; /* per block: fewest cycles of its chain over the launches */
};

static const struct rot_param params[] = {{"n", 1024, "dependent instructions per thread"},
					  {"blocks", 132, "blocks"},
					  {"threads", 32, "threads per block"},
					  {nullptr, 0, nullptr}};

#if GCHAIN_OP == 0
#define STEP() (f = f + 1.0001f)
#elif GCHAIN_OP == 1
#define STEP() (f = fmaf(f, 0.9999f, 0.0001f))
#elif GCHAIN_OP == 2
#define STEP() (d = fma(d, 0.9999, 0.0001))
#elif GCHAIN_OP == 3
#define STEP() (f = __sinf(f) + __cosf(f))
#elif GCHAIN_OP == 4
#define STEP() asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(u) : "r"(step))
#elif GCHAIN_OP == 5
#define STEP() (u = chase[u])
#else
#define STEP() (u = ring[u])
#endif

static __global__ void chain_kernel(long n, const unsigned *__restrict__ chase, double *sink,
				    unsigned long long *best, unsigned step)
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
	long long t0 = clock64();
	long i = 0;
	for (; i + UNROLL <= n; i += UNROLL) {
#pragma unroll
		for (int k = 0; k < UNROLL; k++)
			STEP();
	}
	for (; i < n; i++)
		STEP();
	/* the end stamp waits for the chain's last result */
	asm volatile("" ::"f"(f), "d"(d), "r"(u));
	long long t1 = clock64();
	if (threadIdx.x == 0)
		atomicMin(&best[blockIdx.x], (unsigned long long)(t1 - t0));
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
	s->best = (unsigned long long *)dev_alloc(s->blocks * sizeof(unsigned long long));
	if (!s->chase || !s->sink || !s->best) {
		cudaFree(s->chase), cudaFree(s->sink), cudaFree(s->best), free(s);
		return nullptr;
	}
	cudaMemset(s->best, 0xff, s->blocks * sizeof(unsigned long long));
	unsigned ring[1024];
	for (unsigned i = 0; i < 1024; i++)
		ring[i] = (i + 33) & 1023; /* a stride that visits every slot */
	cudaMemcpy(s->chase, ring, sizeof ring, cudaMemcpyHostToDevice);
	return s;
}

static void run(void *p)
{
	st *s = (st *)p;
	chain_kernel<<<s->blocks, s->threads>>>(s->n, s->chase, s->sink, s->best, 7);
}

static int cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
	return (x > y) - (x < y);
}

/* cycles: median over the blocks of each block's fastest chain (all n steps), in SM cycles */
static int report(void *p, struct rot_value *out, int max)
{
	st *s = (st *)p;
	int ok = 0;
	unsigned long long *c = (unsigned long long *)malloc(s->blocks * sizeof *c);
	if (max < 1 || !c ||
	    cudaMemcpy(c, s->best, s->blocks * sizeof *c, cudaMemcpyDeviceToHost) != cudaSuccess)
		goto out;
	qsort(c, (size_t)s->blocks, sizeof *c, cmp);
	if (c[0] == ULLONG_MAX)
		goto out;
	out[0] = {"cycles", s->blocks % 2 ? (double)c[s->blocks / 2]
					  : (c[s->blocks / 2 - 1] + c[s->blocks / 2]) / 2.0};
	ok = 1;
out:
	free(c);
	return ok;
}

static void dispose(void *p)
{
	st *s = (st *)p;
	cudaFree(s->chase), cudaFree(s->sink), cudaFree(s->best), free(s);
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

static const struct rot_kernel gpu_chain = {"gpu_chain", "dependent instruction chains",
					    params,	 init,
					    run,	 nullptr,
					    dispose,	 nullptr,
					    ops,	 zero,
					    1,		 nullptr,
					    report};
ROT_KERNEL(gpu_chain)
