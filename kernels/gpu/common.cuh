/* common: what the GPU kernels share: the kernel API (C linkage), device allocation that
 * reports failure through errno, and the launch geometry of grid-stride loops. */
#ifndef ROT_GPU_COMMON_CUH
#define ROT_GPU_COMMON_CUH
#include "kernel.h"

#include <cerrno>
#include <cstdlib>
#include <cuda_runtime.h>

/* cudaMalloc that maps failure to errno (init returns NULL and the core reports it) */
static inline void *dev_alloc(size_t bytes)
{
	void *p = nullptr;
	if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
		errno = ENOMEM;
		return nullptr;
	}
	return p;
}

static inline int sm_count()
{
	int v = 1;
	cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0);
	return v;
}

/* blocks of `block` threads for one element per thread (at most the grid's limit; a grid-stride
 * loop does the rest) */
static inline unsigned grid_cover(size_t n, unsigned block)
{
	size_t want = (n + block - 1) / block, cap = 0x7fffffff;
	return (unsigned)(want < cap ? (want ? want : 1) : cap);
}

/* blocks of `block` threads for `threads` threads an SM at most (a grid-stride loop does the
 * rest) */
static inline unsigned grid_threads(size_t n, unsigned block, unsigned threads)
{
	size_t want = (n + block - 1) / block, cap = (size_t)sm_count() * (threads > block ? threads / block : 1);
	return (unsigned)(want < cap ? (want ? want : 1) : cap);
}

/* enough blocks of `block` threads to fill every SM several times */
static inline unsigned grid_for(size_t n, unsigned block)
{
	size_t want = (n + block - 1) / block, cap = (size_t)sm_count() * 32;
	return (unsigned)(want < cap ? (want ? want : 1) : cap);
}
#endif
