/* broken gpu_scale (tests/ptx.t): 64 accumulators live across the loop with launch bounds of
 * 2048 threads per SM (32 registers): ptxas spills, which the compiled-code checks must catch. */
#include "../../../../kernels/gpu/common.cuh"

struct st {
	float *a;
	size_t n;
};

static const struct rot_param params[] = {{"n", 1 << 20, "elements"}, {nullptr, 0, nullptr}};

static __global__ void __launch_bounds__(1024, 2) spill_kernel(float *a, size_t n)
{
	float acc[64];
#pragma unroll
	for (int k = 0; k < 64; k++)
		acc[k] = a[(threadIdx.x + 97 * k) % n];
	for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
		float x = a[i];
#pragma unroll
		for (int k = 0; k < 64; k++)
			acc[k] = acc[k] * x + (float)k;
	}
	float s = 0;
#pragma unroll
	for (int k = 0; k < 64; k++)
		s += acc[k] * acc[(k + 1) % 64];
	a[threadIdx.x] = s;
}

static void *init(const struct rot_args *args)
{
	st *s = (st *)calloc(1, sizeof *s);
	if (!s)
		return nullptr;
	s->n = (size_t)rot_arg(args, "n");
	s->a = (float *)dev_alloc(s->n * sizeof(float));
	if (!s->a) {
		free(s);
		return nullptr;
	}
	return s;
}

static void run(void *p)
{
	st *s = (st *)p;
	spill_kernel<<<1, 1024>>>(s->a, s->n);
}

static void dispose(void *p)
{
	st *s = (st *)p;
	cudaFree(s->a), free(s);
}

static double flops(const struct rot_args *a)
{
	return 128 * rot_arg(a, "n");
}

static double bytes(const struct rot_args *a)
{
	return 4 * rot_arg(a, "n");
}

static const struct rot_kernel gpu_scale = {"gpu_scale", "spills", params, init,  run, nullptr,
					    dispose,	 nullptr,  flops,  bytes, 1,   nullptr};
ROT_KERNEL(gpu_scale)
