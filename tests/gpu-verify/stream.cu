// stream.cu: a small BabelStream-like CUDA program for the device check of rot's CUDA library
// (cuda-apps.sh): copy, mul, add, triad on doubles, its own best rates printed, NVTX ranges of
// every kind: pushed and popped ("stream", "iteration"), in a domain of its own, crossing the
// default domain's ("rot:kernels"), started and ended in another thread ("arrays"), wide ("wide-é").
// stream N REPS [fault]: fault stores through a null pointer in one kernel (a CUDA error).
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

__global__ void copy(const double *a, double *c, long n) { long i = blockIdx.x * (long)blockDim.x + threadIdx.x; if (i < n) c[i] = a[i]; }
__global__ void mul(double *b, const double *c, double s, long n) { long i = blockIdx.x * (long)blockDim.x + threadIdx.x; if (i < n) b[i] = s * c[i]; }
__global__ void add(const double *a, const double *b, double *c, long n) { long i = blockIdx.x * (long)blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }
__global__ void triad(double *a, const double *b, const double *c, double s, long n) { long i = blockIdx.x * (long)blockDim.x + threadIdx.x; if (i < n) a[i] = b[i] + s * c[i]; }
__global__ void fault(double *p) { p[threadIdx.x] = 1; }

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1L << 25;
	int reps = argc > 2 ? atoi(argv[2]) : 20, blocks = (int)((n + 1023) / 1024);
	double *a, *b, *c, best[4] = {1e30, 1e30, 1e30, 1e30};
	const char *names[4] = {"Copy", "Mul", "Add", "Triad"};
	const double bytes[4] = {16.0 * n, 16.0 * n, 24.0 * n, 24.0 * n};
	cudaMalloc(&a, n * 8), cudaMalloc(&b, n * 8), cudaMalloc(&c, n * 8);
	cudaMemset(a, 0, n * 8), cudaMemset(b, 0, n * 8), cudaMemset(c, 0, n * 8);
	cudaEvent_t e0, e1;
	cudaEventCreate(&e0), cudaEventCreate(&e1);
	nvtxRangeId_t arrays = nvtxRangeStartA("arrays");
	std::thread([arrays] { nvtxRangeEnd(arrays); }).join();
	nvtxRangePushW(L"wide-\u00e9");
	nvtxRangePop();
	nvtxDomainHandle_t dom = nvtxDomainCreateA("rot");
	nvtxEventAttributes_t ev = {};
	ev.version = NVTX_VERSION;
	ev.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	ev.messageType = NVTX_MESSAGE_TYPE_ASCII;
	ev.message.ascii = "kernels";
	nvtxRangePushA("stream");
	nvtxDomainRangePushEx(dom, &ev);
	for (int r = 0; r < reps; r++) {
		nvtxRangePushA("iteration");
		for (int k = 0; k < 4; k++) {
			float ms;
			cudaEventRecord(e0);
			if (k == 0) copy<<<blocks, 1024>>>(a, c, n);
			if (k == 1) mul<<<blocks, 1024>>>(b, c, 0.4, n);
			if (k == 2) add<<<blocks, 1024>>>(a, b, c, n);
			if (k == 3) triad<<<blocks, 1024>>>(a, b, c, 0.4, n);
			cudaEventRecord(e1);
			cudaEventSynchronize(e1);
			cudaEventElapsedTime(&ms, e0, e1);
			if (r > 0 && ms * 1e-3 < best[k]) best[k] = ms * 1e-3;
		}
		nvtxRangePop();
	}
	nvtxRangePop(); /* "stream", while the domain's "kernels", pushed inside it, is open */
	nvtxDomainRangePop(dom);
	if (argc > 3) {
		fault<<<1, 32>>>(nullptr);
		cudaError_t e = cudaDeviceSynchronize();
		fprintf(stderr, "stream: %s\n", cudaGetErrorString(e));
		return 1;
	}
	printf("Function    MBytes/sec\n");
	for (int k = 0; k < 4; k++) printf("%-8s %14.3f\n", names[k], bytes[k] / best[k] * 1e-6);
	return 0;
}
