/* gpu_cache: bandwidth of the memory level a working set fits in (gpumembench style): every
 * thread reads its slice of a ws-byte buffer `rounds` times. Small ws: L1; up to the L2 size:
 * L2; beyond: HBM. GCACHE_SHARED 1: the same through shared memory (load/store throughput). */
#include "macro/GCACHE_SHARED.h"
#include "common.cuh"

#ifndef GCACHE_SHARED
#define GCACHE_SHARED 0
#endif
#define BLOCK 256

struct st {
	float4 *buf;
	float *sink;
	size_t elems;
	int rounds, blocks;
};

static const struct rot_param params[] = {
	{"ws", 1 << 20, "working set in bytes (per block for shared memory)"},
	{"rounds", 64, "times each element is read"},
	{nullptr, 0, nullptr}};

static __global__ void cache_kernel(const float4 *__restrict__ buf, size_t elems, int rounds, float *sink)
{
	float4 acc = make_float4(0, 0, 0, 0);
#if GCACHE_SHARED
	extern __shared__ float4 sm[]; /* dynamic: 64 KiB is over the 48 KiB static limit */
	for (size_t i = threadIdx.x; i < elems; i += blockDim.x)
		sm[i] = make_float4(i, 0, 0, 0);
	__syncthreads();
	for (int r = 0; r < rounds; r++)
		for (size_t i = threadIdx.x; i < elems; i += blockDim.x) {
			float4 v = sm[i];
			acc.x += v.x, acc.y += v.y, acc.z += v.z, acc.w += v.w;
			v.x += 1.0f; /* a store of the same value is a dead store the compiler drops */
			sm[i] = v;   /* a store for each load: load/store throughput (tests/ptx.t) */
		}
#else
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (int r = 0; r < rounds; r++)
		for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < elems; i += stride) {
			float4 v = __ldcg(&buf[i]); /* cache at L2 only unless the set is tiny */
			acc.x += v.x, acc.y += v.y, acc.z += v.z, acc.w += v.w;
		}
#endif
	if (acc.x + acc.y + acc.z + acc.w == -1.0f)
		*sink = acc.x;
}

static void *init(const struct rot_args *args)
{
	st *s = (st *)calloc(1, sizeof *s);
	if (!s)
		return nullptr;
	size_t ws = (size_t)rot_arg(args, "ws");
	s->elems = ws / sizeof(float4);
	if (GCACHE_SHARED && s->elems > 4096)
		s->elems = 4096;
	s->rounds = (int)rot_arg(args, "rounds");
	/* more than 48 KiB of dynamic shared memory must be asked for (sm_70 and later) */
	if (GCACHE_SHARED && cudaFuncSetAttribute(cache_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
						  (int)(s->elems * sizeof(float4))) != cudaSuccess) {
		free(s);
		errno = EINVAL;
		return nullptr;
	}
	s->blocks = GCACHE_SHARED ? sm_count() * 4 : (int)grid_for(s->elems, BLOCK);
	s->buf = (float4 *)dev_alloc(s->elems * sizeof(float4));
	s->sink = (float *)dev_alloc(sizeof(float));
	if (!s->buf || !s->sink) {
		cudaFree(s->buf), cudaFree(s->sink), free(s);
		return nullptr;
	}
	cudaMemset(s->buf, 0, s->elems * sizeof(float4));
	return s;
}

static void run(void *p)
{
	st *s = (st *)p;
	cache_kernel<<<s->blocks, BLOCK, GCACHE_SHARED ? s->elems * sizeof(float4) : 0>>>(s->buf, s->elems,
										      s->rounds, s->sink);
}

static void dispose(void *p)
{
	st *s = (st *)p;
	cudaFree(s->buf), cudaFree(s->sink), free(s);
}

static double flops(const struct rot_args *a)
{
	double elems = rot_arg(a, "ws") / 16;
	if (GCACHE_SHARED && elems > 4096)
		elems = 4096;
	return 4 * elems * rot_arg(a, "rounds") * (GCACHE_SHARED ? 0 : 1);
}

/* global: ws read `rounds` times; shared: the bytes loaded and stored per block (the number of
 * blocks, 4 per SM, is known only on the device: the kernel reports it as `blocks`) */
static double bytes(const struct rot_args *a)
{
	double ws = rot_arg(a, "ws");
	if (GCACHE_SHARED && ws > 65536)
		ws = 65536;
	return ws * rot_arg(a, "rounds") * (GCACHE_SHARED ? 2 : 1);
}

/* the blocks launched: the shared variant's declared bytes are per block */
static int report(void *p, struct rot_value *out, int max)
{
	st *s = (st *)p;
	if (max < 1)
		return 0;
	out[0].name = "blocks";
	out[0].value = s->blocks;
	return 1;
}

static const struct rot_kernel gpu_cache = {
	"gpu_cache", "cache-level and shared-memory bandwidth", params, init, run, nullptr, dispose,
	nullptr, flops, bytes, 1, nullptr, report};
ROT_KERNEL(gpu_cache)
