/* gpu_hist: per-channel histograms of an RGBA image (4 x 8-bit channels) built in shared
 * memory with atomics, then merged into global memory (Dong & Pai, Listings 1 and 2).
 * GHIST_REORDER 0: channels in order; 1: the channel order rotated by thread id, so threads
 * of a warp hit different bins on solid images. Parameter random: 0 solid image, 1 uniform.
 * A dummy read of each atomic's result keeps ATOMS.ADD (not ATOMS.POPC.INC), as the paper did. */
#include "macro/GHIST_BLOCK.h"
#include "macro/GHIST_REORDER.h"
#include "common.cuh"

#include <cstdint>

#ifndef GHIST_REORDER
#define GHIST_REORDER 0
#endif
#ifndef GHIST_BLOCK
#define GHIST_BLOCK 512
#endif
#define CHANNELS 4
#define BINS 256

struct st {
	uint8_t *in;
	unsigned *hist, *sink;
	size_t pixels;
	int random;
};

static const struct rot_param params[] = {
	{"pixels", 1 << 22, "image size in pixels"},
	{"random", 0, "0: solid image, 1: uniformly random channels"},
	{nullptr, 0, nullptr}};

static __global__ void hist_kernel(const uint8_t *__restrict__ in, size_t n, unsigned *hist, unsigned *sink)
{
	__shared__ unsigned smem[CHANNELS * BINS];
	for (int i = threadIdx.x; i < CHANNELS * BINS; i += blockDim.x)
		smem[i] = 0;
	__syncthreads();
	unsigned seen = 0;
	size_t nt = (size_t)gridDim.x * blockDim.x;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += nt) {
		unsigned offsets[CHANNELS];
		for (int c = 0; c < CHANNELS; ++c)
			offsets[c] = in[i * CHANNELS + c];
		for (int c = 0; c < CHANNELS; ++c) {
#if GHIST_REORDER
			int chan = (c + threadIdx.x % CHANNELS) % CHANNELS;
#else
			int chan = c;
#endif
			seen += atomicAdd(&smem[BINS * chan + offsets[chan]], 1u);
		}
	}
	__syncthreads();
	for (int i = threadIdx.x; i < CHANNELS * BINS; i += blockDim.x)
		if (smem[i])
			atomicAdd(&hist[i], smem[i]);
	if (seen == 0xffffffffu)
		*sink = seen;
}

static void *init(const struct rot_args *args)
{
	st *s = (st *)calloc(1, sizeof *s);
	if (!s)
		return nullptr;
	s->pixels = (size_t)rot_arg(args, "pixels");
	s->random = (int)rot_arg(args, "random");
	size_t bytes = s->pixels * CHANNELS;
	s->in = (uint8_t *)dev_alloc(bytes);
	s->hist = (unsigned *)dev_alloc(CHANNELS * BINS * sizeof(unsigned));
	s->sink = (unsigned *)dev_alloc(sizeof(unsigned));
	uint8_t *host = (uint8_t *)malloc(bytes);
	if (!s->in || !s->hist || !s->sink || !host) {
		cudaFree(s->in), cudaFree(s->hist), cudaFree(s->sink), free(host), free(s);
		errno = ENOMEM;
		return nullptr;
	}
	uint32_t x = 2463534242u; /* xorshift: the same "random" image every time */
	for (size_t i = 0; i < bytes; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		host[i] = s->random ? (uint8_t)x : (uint8_t)(i % CHANNELS * 40 + 7);
	}
	cudaMemcpy(s->in, host, bytes, cudaMemcpyHostToDevice);
	cudaMemset(s->hist, 0, CHANNELS * BINS * sizeof(unsigned));
	free(host);
	return s;
}

static void run(void *p)
{
	st *s = (st *)p;
	hist_kernel<<<grid_for(s->pixels, GHIST_BLOCK), GHIST_BLOCK>>>(s->in, s->pixels, s->hist, s->sink);
}

static void reset(void *p)
{
	st *s = (st *)p;
	cudaMemset(s->hist, 0, CHANNELS * BINS * sizeof(unsigned));
}

static void dispose(void *p)
{
	st *s = (st *)p;
	cudaFree(s->in), cudaFree(s->hist), cudaFree(s->sink), free(s);
}

/* "flops": one shared-memory atomic per channel and pixel */
static double atomics(const struct rot_args *a)
{
	return CHANNELS * rot_arg(a, "pixels");
}

/* the image read once (the histograms are small and stay in L2) */
static double bytes(const struct rot_args *a)
{
	return CHANNELS * rot_arg(a, "pixels");
}

static const struct rot_kernel gpu_hist = {
	"gpu_hist", "RGBA histogram with shared-memory atomics", params, init, run, nullptr, dispose,
	nullptr, atomics, bytes, 1, reset};
ROT_KERNEL(gpu_hist)
