/* gpu_atomics: the shared-memory atomic micro-benchmark of Dong & Pai: on every SM, n warps
 * each issue one atomic warp-instruction at once (c of them CAS, the rest fetch-and-add), with
 * e active threads all on one word. T(n, e, c) is the SM clock from the first warp's start to
 * the last one's completion; it is reported (best over launches, median over SMs) as
 * row.report.cycles. More than 32 warps need two blocks per SM: dynamic shared memory is sized
 * so exactly that many fit, and the blocks meet at a per-SM barrier before they start. */
#include "common.cuh"

#include <climits>
#include <cstring>

#define MAX_SMS 1024

struct st {
	int n, e, c, bps, wpb, sms;
	size_t smem;
	unsigned long long *start, *end, *best;
	unsigned *arrive, *done, *sink;
};

static const struct rot_param params[] = {
    {"n", 32, "atomic warp-instructions per SM (warps), 1 to the SM's maximum"},
    {"e", 32, "active threads per warp, 1 to 32"},
    {"c", 0, "warps that issue CAS instead of fetch-and-add, 0 to n"},
    {nullptr, 0, nullptr}};

static __device__ unsigned smid()
{
	unsigned id;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
	return id;
}

static __global__ void atomics_kernel(int n, int e, int c, int bps, int wpb,
				      unsigned long long *start, unsigned long long *end,
				      unsigned long long *best, unsigned *arrive, unsigned *done,
				      unsigned *sink)
{
	extern __shared__ unsigned word[]; /* word[0] is the target; the rest only fills the SM */
	__shared__ int rank;
	unsigned sm = smid() % MAX_SMS;
	if (threadIdx.x == 0) {
		word[0] = 0;
		rank = (int)atomicAdd(&arrive[sm], 1u);
		long long t = clock64(); /* the blocks of this SM start together (bounded wait) */
		while (*(volatile unsigned *)&arrive[sm] < (unsigned)bps &&
		       clock64() - t < 10000000)
			;
	}
	__syncthreads();
	int warp = threadIdx.x / 32, lane = threadIdx.x % 32, w = rank * wpb + warp;
	unsigned expect = word[0], old = 0;
	__syncthreads();
	unsigned long long t0 = clock64();
	if (w < n && lane < e) {
		if (w < c)
			old = atomicCAS(&word[0], expect, expect + 1);
		else
			old = atomicAdd(&word[0], 1u);
	}
	((volatile unsigned *)word)[1 + threadIdx.x] = old; /* waits for the atomic's result */
	unsigned long long t1 = clock64();
	if (lane == 0 && w < n) {
		atomicMin(&start[sm], t0);
		atomicMax(&end[sm], t1);
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		__threadfence();
		if (atomicAdd(&done[sm], 1u) == (unsigned)bps - 1) { /* the SM's last block */
			unsigned long long s = atomicAdd(&start[sm], 0ull),
					   f = atomicAdd(&end[sm], 0ull);
			if (f > s && f - s < best[sm])
				best[sm] = f - s;
			start[sm] = ULLONG_MAX, end[sm] = 0, done[sm] = 0, arrive[sm] = 0;
			__threadfence();
		}
	}
	if (old == 0xfffffff0u)
		*sink = old;
}

static void dispose(void *p)
{
	st *s = (st *)p;
	cudaFree(s->start), cudaFree(s->end), cudaFree(s->best);
	cudaFree(s->arrive), cudaFree(s->done), cudaFree(s->sink), free(s);
}

static void *init(const struct rot_args *args)
{
	st *s = (st *)calloc(1, sizeof *s);
	if (!s)
		return nullptr;
	s->n = (int)rot_arg(args, "n");
	s->e = (int)rot_arg(args, "e");
	s->c = (int)rot_arg(args, "c");
	int max_threads = 2048, smem_sm = 0, smem_block = 0;
	cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, 0);
	cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0);
	cudaDeviceGetAttribute(&smem_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
	s->sms = sm_count();
	if (s->n < 1 || s->n > max_threads / 32 || s->e < 1 || s->e > 32 || s->c < 0 ||
	    s->c > s->n) {
		free(s);
		errno = EINVAL;
		return nullptr;
	}
	s->bps = s->n > 32 ? 2 : 1;
	s->wpb = (s->n + s->bps - 1) / s->bps;
	/* room for bps blocks per SM and not one more */
	s->smem = (size_t)smem_sm / (s->bps + 1) + 1024;
	if (s->smem > (size_t)smem_block)
		s->smem = (size_t)smem_block;
	if (s->smem < (size_t)(1 + 32 * s->wpb) * sizeof(unsigned))
		s->smem = (size_t)(1 + 32 * s->wpb) * sizeof(unsigned);
	cudaFuncSetAttribute(atomics_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
			     (int)s->smem);
	int fit = 0;
	cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, atomics_kernel, 32 * s->wpb, s->smem);
	size_t per = MAX_SMS * sizeof(unsigned long long); /* %smid need not be below sms */
	s->start = (unsigned long long *)dev_alloc(per);
	s->end = (unsigned long long *)dev_alloc(per);
	s->best = (unsigned long long *)dev_alloc(per);
	s->arrive = (unsigned *)dev_alloc(MAX_SMS * sizeof(unsigned));
	s->done = (unsigned *)dev_alloc(MAX_SMS * sizeof(unsigned));
	s->sink = (unsigned *)dev_alloc(sizeof(unsigned));
	if (fit != s->bps || !s->start || !s->end || !s->best || !s->arrive || !s->done ||
	    !s->sink) {
		int nomem = fit == s->bps;
		dispose(s);
		errno = nomem ? ENOMEM : EINVAL; /* the SM cannot hold exactly bps blocks */
		return nullptr;
	}
	cudaMemset(s->start, 0xff, per);
	cudaMemset(s->end, 0, per);
	cudaMemset(s->best, 0xff, per);
	cudaMemset(s->arrive, 0, MAX_SMS * sizeof(unsigned));
	cudaMemset(s->done, 0, MAX_SMS * sizeof(unsigned));
	return s;
}

static void run(void *p)
{
	st *s = (st *)p;
	atomics_kernel<<<s->bps * s->sms, 32 * s->wpb, s->smem>>>(s->n, s->e, s->c, s->bps, s->wpb,
								  s->start, s->end, s->best,
								  s->arrive, s->done, s->sink);
}

static int cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
	return x < y ? -1 : x > y;
}

/* cycles: median over the SMs of each SM's best T; cyclesMin: the smallest; sms: SMs seen */
static int report(void *p, struct rot_value *out, int max)
{
	st *s = (st *)p;
	unsigned long long best[MAX_SMS];
	int k = 0;
	if (max < 3 ||
	    cudaMemcpy(best, s->best, sizeof best, cudaMemcpyDeviceToHost) != cudaSuccess)
		return 0;
	for (int i = 0; i < MAX_SMS; i++)
		if (best[i] != ULLONG_MAX)
			best[k++] = best[i];
	if (k == 0)
		return 0;
	qsort(best, (size_t)k, sizeof *best, cmp);
	out[0] = {"cycles", k % 2 ? (double)best[k / 2] : (best[k / 2 - 1] + best[k / 2]) / 2.0};
	out[1] = {"cyclesMin", (double)best[0]};
	out[2] = {"sms", (double)k};
	return 3;
}

/* no floating-point work and no memory traffic: the result is the report */
static double zero(const struct rot_args *a)
{
	return 0;
}

static const struct rot_kernel gpu_atomics = {"gpu_atomics",
					      "shared-memory atomic service time T(n, e, c)",
					      params,
					      init,
					      run,
					      nullptr,
					      dispose,
					      nullptr,
					      zero,
					      zero,
					      1,
					      nullptr,
					      report};
ROT_KERNEL(gpu_atomics)
