/* gpu_fault: a GPU kernel that stores through a null pointer (tests/gpu.t, with a device): an
 * illegal address, a CUDA error that can leave its context unusable. Its point must fail with
 * the error named, and the GPU points after it in the same run must be measured (a fresh
 * child: every failure stays the failing point's own). */
#include "../../../../kernels/gpu/common.cuh"

struct st {
	size_t n;
};

static const struct rot_param params[] = {{"n", 1024, "threads, each storing one int"},
					   {nullptr, 0, nullptr}};

static __global__ void fault_kernel(int *p, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = (int)i;
}

static void *init(const struct rot_args *args)
{
	st *s = (st *)calloc(1, sizeof *s);
	if (s)
		s->n = (size_t)rot_arg(args, "n");
	return s;
}

static void run(void *p)
{
	st *s = (st *)p;
	fault_kernel<<<grid_cover(s->n, 256), 256>>>(nullptr, s->n);
}

static void dispose(void *p) { free(p); }

static double flops(const struct rot_args *) { return 0; }

static double bytes(const struct rot_args *a) { return 4.0 * rot_arg(a, "n"); }

static const struct rot_kernel gpu_fault = {
	"gpu_fault", "stores through a null pointer", params, init, run, nullptr, dispose,
	nullptr, flops, bytes, 1, nullptr};
ROT_KERNEL(gpu_fault)
