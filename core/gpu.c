/* gpu: the CUDA runtime side of the measuring core (built only when a point has a GPU kernel):
 * the device's availability, properties and identity, event timing and L2 flushing. */
#include "gpu.h"
#include "gpuprof.h"

#include <cuda_runtime_api.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int gpu_available(char *err, size_t len)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0) {
		snprintf(err, len, "no CUDA device: %s",
			 e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports 0 devices");
		return -1;
	}
	e = cudaSetDevice(0);
	if (e == cudaSuccess)
		e = cudaFree(NULL); /* creates the primary context now, not inside a timed run */
	if (e != cudaSuccess) {
		snprintf(err, len, "no CUDA device: %s", cudaGetErrorString(e));
		return -1;
	}
	return 0;
}

static int attr(enum cudaDeviceAttr a)
{
	int v = -1;
	cudaDeviceGetAttribute(&v, a, 0);
	return v;
}

void gpu_info(FILE *out)
{
	static char *text; /* asked once per process: the device does not change under a child */
	static size_t len;
	if (!text) {
		struct cudaDeviceProp p;
		int drv = 0, rt = 0;
		FILE *f = open_memstream(&text, &len);
		if (!f)
			return;
		if (cudaGetDeviceProperties(&p, 0) == cudaSuccess) {
			fprintf(f, "meta gpuName %s\nmeta gpuCC %d.%d\n", p.name, p.major, p.minor);
			fprintf(f, "meta gpuGlobalMem %zu\nmeta gpuSharedPerSM %zu\n",
				p.totalGlobalMem, p.sharedMemPerMultiprocessor);
			fprintf(f, "meta gpuMaxWarpsPerSM %d\n",
				p.maxThreadsPerMultiProcessor / 32);
		}
		fprintf(f, "meta gpuSMs %d\nmeta gpuClockKHz %d\nmeta gpuMemClockKHz %d\n",
			attr(cudaDevAttrMultiProcessorCount), attr(cudaDevAttrClockRate),
			attr(cudaDevAttrMemoryClockRate));
		fprintf(f, "meta gpuBusWidth %d\nmeta gpuL2 %d\n",
			attr(cudaDevAttrGlobalMemoryBusWidth), attr(cudaDevAttrL2CacheSize));
		cudaDriverGetVersion(&drv);
		cudaRuntimeGetVersion(&rt);
		fprintf(f, "meta cudaDriver %d\nmeta cudaRuntime %d\n", drv, rt);
		if (gpuprof_chip_name())
			fprintf(f, "meta gpuChip %s\n", gpuprof_chip_name());
		fclose(f);
	}
	fwrite(text, 1, len, out);
}

double gpu_time(const struct rot_kernel *k, void *state, long reps, char *err, size_t len)
{
	cudaEvent_t a, b;
	float ms = 0;
	double ns = -1;
	if (cudaEventCreate(&a) != cudaSuccess || cudaEventCreate(&b) != cudaSuccess) {
		snprintf(err, len, "cudaEventCreate failed");
		return -1;
	}
	cudaEventRecord(a, 0);
	for (long i = 0; i < reps; i++)
		k->run(state);
	cudaEventRecord(b, 0);
	cudaError_t e = cudaEventSynchronize(b);
	if (e == cudaSuccess)
		e = cudaGetLastError();
	if (e == cudaSuccess && cudaEventElapsedTime(&ms, a, b) == cudaSuccess)
		ns = (double)ms * 1e6;
	else
		snprintf(err, len, "kernel '%s' failed on the GPU: %s", k->name,
			 cudaGetErrorString(e));
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	return ns;
}

int gpu_flush_l2(char *err, size_t len)
{
	static void *scratch;
	static size_t bytes;
	if (!scratch) {
		int l2 = attr(cudaDevAttrL2CacheSize);
		bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
		if (cudaMalloc(&scratch, bytes) != cudaSuccess) {
			snprintf(err, len, "cannot allocate the L2 flush buffer (%zu bytes)",
				 bytes);
			scratch = NULL;
			return -1;
		}
	}
	static int round;
	cudaMemset(scratch, ++round & 0xff, bytes);
	cudaError_t e = cudaDeviceSynchronize();
	if (e != cudaSuccess) {
		snprintf(err, len, "L2 flush failed: %s", cudaGetErrorString(e));
		return -1;
	}
	return 0;
}

int gpu_identity(FILE *out)
{
	struct cudaDeviceProp p;
	int drv = 0;
	if (cudaGetDeviceProperties(&p, 0) != cudaSuccess)
		return -1;
	cudaDriverGetVersion(&drv);
	const char *chip = gpuprof_chip_name();
	fprintf(out, "device %s, %d SMs, cc %d.%d, driver %d, chip %s\n", p.name,
		attr(cudaDevAttrMultiProcessorCount), p.major, p.minor, drv,
		chip ? chip : "unknown");
	return 0;
}
