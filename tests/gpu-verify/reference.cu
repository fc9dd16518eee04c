/* reference: rot's GPU ceilings measured by a program of its own, built without rot (nvcc
 * alone), for `make gpu-verify` to compare with: triad bandwidth, FMA throughput per precision,
 * the SM clock, dependent-instruction latencies. Prints "name,value,unit" lines.
 * reference --triad-only runs the triad once (for ncu to profile). */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "reference: %s: %s\n", #x, cudaGetErrorString(e_));        \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

static const int REPS = 20;

/* BabelStream's triad: a = b + s*c, one element per thread-iteration */
static __global__ void triad(double *__restrict__ a, const double *__restrict__ b,
			     const double *__restrict__ c, double s, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		a[i] = b[i] + s * c[i];
}

/* eight independent FMA chains per thread; block 0's first thread also counts its SM cycles */
template <typename T> static __global__ void fma8(T *out, int iters, T m, T c, long long *cycles)
{
	T x[8];
	for (int k = 0; k < 8; k++)
		x[k] = out[0] + (T)(threadIdx.x + k);
	long long t0 = clock64();
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int k = 0; k < 8; k++)
			x[k] = x[k] * m + c;
	}
	long long t1 = clock64();
	T sum = x[0];
	for (int k = 1; k < 8; k++)
		sum = sum + x[k];
	if (blockIdx.x == 0 && threadIdx.x == 0)
		*cycles = t1 - t0;
	if ((float)sum == -1.0f)
		out[1] = sum;
}

static __global__ void hfma8(__half2 *out, int iters, __half2 m, __half2 c)
{
	__half2 x[8];
	for (int k = 0; k < 8; k++)
		x[k] = __hadd2(out[0], __float2half2_rn((float)(threadIdx.x + k) * 1e-3f));
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int k = 0; k < 8; k++)
			x[k] = __hfma2(x[k], m, c);
	}
	__half2 sum = x[0];
	for (int k = 1; k < 8; k++)
		sum = __hadd2(sum, x[k]);
	if (__low2float(sum) == -1.0f)
		out[1] = sum;
}

/* one thread, one dependent chain of 1024 steps between two clock reads: cycles per step */
#define CHAIN 1024
static __global__ void latency(int op, const unsigned *chase, long long *cycles, double *sink)
{
	__shared__ unsigned ring[1024];
	for (int i = 0; i < 1024; i++)
		ring[i] = chase[i];
	float f = sink[0];
	double d = sink[0];
	unsigned u = 0, step = (unsigned)sink[0] + 7u; /* ptxas folds or pairs plain adds */
	for (int i = 0; i < CHAIN; i++) /* warm the L1 with the chase */
		u = chase[u];
	long long t0 = clock64();
	switch (op) {
	case 0:
#pragma unroll
		for (int i = 0; i < CHAIN; i++)
			f = f + 1.0001f;
		break;
	case 1:
#pragma unroll
		for (int i = 0; i < CHAIN; i++)
			f = fmaf(f, 0.9999f, 0.0001f);
		break;
	case 2:
#pragma unroll
		for (int i = 0; i < CHAIN; i++)
			d = fma(d, 0.9999, 0.0001);
		break;
	case 3:
#pragma unroll
		for (int i = 0; i < CHAIN; i++)
			asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(u) : "r"(step));
		break;
	case 4:
#pragma unroll 16
		for (int i = 0; i < CHAIN; i++)
			u = ring[u];
		break;
	default:
#pragma unroll 16
		for (int i = 0; i < CHAIN; i++)
			u = __ldca(&chase[u]);
		break;
	}
	asm volatile("" ::"f"(f), "d"(d), "r"(u));
	long long t1 = clock64();
	*cycles = t1 - t0;
	if (f == -1.0f || d == -1.0 || u == 0xffffffffu)
		sink[1] = f + d + u;
}

struct timer {
	cudaEvent_t a, b;
	timer()
	{
		CHECK(cudaEventCreate(&a));
		CHECK(cudaEventCreate(&b));
	}
	void start()
	{
		CHECK(cudaEventRecord(a));
	}
	float stop_ms()
	{
		float ms = 0;
		CHECK(cudaEventRecord(b));
		CHECK(cudaEventSynchronize(b));
		CHECK(cudaEventElapsedTime(&ms, a, b));
		return ms;
	}
};

int main(int argc, char **argv)
{
	int dev = 0, sms = 0, clock_khz = 0, mem_khz = 0, bus = 0, major = 0, minor = 0;
	cudaDeviceProp prop;
	bool triad_only = argc > 1 && strcmp(argv[1], "--triad-only") == 0;
	CHECK(cudaGetDeviceProperties(&prop, dev));
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
	CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev));
	CHECK(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev));
	CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
	CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
	timer tm;

	size_t n = (size_t)1 << 27;
	double *a, *b, *c;
	CHECK(cudaMalloc(&a, n * sizeof(double)));
	CHECK(cudaMalloc(&b, n * sizeof(double)));
	CHECK(cudaMalloc(&c, n * sizeof(double)));
	CHECK(cudaMemset(a, 0, n * sizeof(double)));
	CHECK(cudaMemset(b, 0, n * sizeof(double)));
	CHECK(cudaMemset(c, 0, n * sizeof(double)));
	unsigned tgrid = (unsigned)((n + 1023) / 1024);
	if (triad_only) {
		triad<<<tgrid, 1024>>>(a, b, c, 0.4, n);
		CHECK(cudaDeviceSynchronize());
		printf("triad_elements,%zu,elements\n", n);
		return 0;
	}
	printf("device,%s,name\nsms,%d,count\ncc,%d.%d,version\nclock_khz,%d,kHz\nmem_clock_khz,%d,"
	       "kHz\nbus_width,%d,bit\n",
	       prop.name, sms, major, minor, clock_khz, mem_khz, bus);

	float best = 1e30f;
	for (int r = 0; r < REPS; r++) {
		tm.start();
		triad<<<tgrid, 1024>>>(a, b, c, 0.4, n);
		float ms = tm.stop_ms();
		best = ms < best ? ms : best;
	}
	CHECK(cudaGetLastError());
	printf("triad,%.1f,GB/s\ntriad_elements,%zu,elements\n",
	       3.0 * sizeof(double) * n / (best * 1e-3) / 1e9, n);
	cudaFree(a), cudaFree(b), cudaFree(c);

	/* 4 blocks of 256 threads per SM, a few times over */
	int blocks = sms * 4 * 4, threads = 256, iters = 4096;
	double fl = 2.0 * 8 * iters * (double)blocks * threads;
	void *buf;
	long long *cyc, cycles = 0;
	CHECK(cudaMalloc(&buf, 64));
	CHECK(cudaMemset(buf, 0, 64));
	CHECK(cudaMalloc(&cyc, sizeof(long long)));
	best = 1e30f;
	float best32 = 1e30f;
	for (int r = 0; r < REPS; r++) {
		tm.start();
		fma8<double><<<blocks, threads>>>((double *)buf, iters, 0.999, 0.001, cyc);
		float ms = tm.stop_ms();
		best = ms < best ? ms : best;
		tm.start();
		fma8<float><<<blocks, threads>>>((float *)buf, iters, 0.999f, 0.001f, cyc);
		ms = tm.stop_ms();
		best32 = ms < best32 ? ms : best32;
	}
	CHECK(cudaGetLastError());
	printf("fp64_fma,%.1f,GFLOP/s\n", fl / (best * 1e-3) / 1e9);
	printf("fp32_fma,%.1f,GFLOP/s\n", fl / (best32 * 1e-3) / 1e9);
	/* the SM clock under FMA load: one block per SM for milliseconds, its cycles over its time
	 */
	tm.start();
	fma8<float><<<sms, 1024>>>((float *)buf, 65536, 0.999f, 0.001f, cyc);
	float ms = tm.stop_ms();
	CHECK(cudaMemcpy(&cycles, cyc, sizeof cycles, cudaMemcpyDeviceToHost));
	printf("sm_clock,%.0f,Hz\n", (double)cycles / (ms * 1e-3));
	best = 1e30f;
	for (int r = 0; r < REPS; r++) {
		tm.start();
		hfma8<<<blocks, threads>>>((__half2 *)buf, iters, __float2half2_rn(0.999f),
					   __float2half2_rn(0.001f));
		float ms = tm.stop_ms();
		best = ms < best ? ms : best;
	}
	CHECK(cudaGetLastError());
	printf("fp16_fma,%.1f,GFLOP/s\n", 2.0 * fl / (best * 1e-3) / 1e9); /* half2: two lanes */

	unsigned ring[1024], *chase;
	for (unsigned i = 0; i < 1024; i++)
		ring[i] = (i + 33) & 1023;
	CHECK(cudaMalloc(&chase, sizeof ring));
	CHECK(cudaMemcpy(chase, ring, sizeof ring, cudaMemcpyHostToDevice));
	const char *names[] = {"fadd", "ffma", "dfma", "iadd", "shared load", "global load (L1)"};
	for (int op = 0; op < 6; op++) {
		long long fewest = -1;
		for (int r = 0; r < 5; r++) {
			latency<<<1, 1>>>(op, chase, cyc, (double *)buf);
			CHECK(cudaMemcpy(&cycles, cyc, sizeof cycles, cudaMemcpyDeviceToHost));
			fewest = fewest < 0 || cycles < fewest ? cycles : fewest;
		}
		printf("latency %s,%.2f,cycles\n", names[op], (double)fewest / CHAIN);
	}
	return 0;
}
