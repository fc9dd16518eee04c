/* metrics: rot's CUDA library's metrics pass (cuda/words.h's environment set): every kernel
 * launch of the program a range of CUPTI's range profiler (automatic ranges, kernel replay),
 * summed per kernel region and NVTX range (cuda/sums.c), written when the process ends. */

/*
 * How: the range profiler is enabled on the context of the program's first launch, from that
 * launch's callback (the profiler runs on a thread that launches). With automatic ranges every
 * launch after Start is a range of its own; kernel replay runs it again for each pass its
 * metrics need, restoring the memory it writes. Each launch is logged when it is made (its
 * kernel, the NVTX ranges open on its thread): range i of a batch is launch i (sums.c matches
 * them by name where their numbers differ, or where threads reached the driver in another order
 * than they logged). A batch holds BATCH ranges: the launch that finds
 * it full first stops the profiler, decodes, evaluates each range (gpurange.c's steps, the GPU
 * core's), and starts it again. The last batch is read when the context ends or the process
 * exits, then the sums are written to OUT.PID (a temporary file renamed). Launches in another
 * context are counted, not profiled.
 */
#define _GNU_SOURCE
#include "metrics.h"
#include "../gpurange.h"
#include "sums.h"
#include "words.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BATCH 256 /* ranges a counter data image holds */

static struct {
	int asked, done, failed, forked;
	char *list; /* the metrics' names, NUL-separated */
	const char *names[GPU_MAX_METRICS], *out, *chip;
	int n;
	struct cudamet *m;
	CUcontext ctx; /* the one profiled */
	CUpti_RangeProfiler_Object *rp;
	CUpti_Profiler_Host_Object *obj;
	uint8_t *config, *data;
	size_t csize, size;
} P;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int cudamet_asked(void)
{
	static int once;
	const char *list = getenv(CUDAMET_ENV_METRICS), *out = getenv(CUDAMET_ENV_OUT);
	if (once++ || !list || !*list || !out || !*out)
		return P.asked;
	P.list = strdup(list);
	P.out = out;
	for (char *s = P.list, *save = NULL, *t; P.list && (t = strtok_r(s, ",", &save)); s = NULL)
		if (P.n < GPU_MAX_METRICS)
			P.names[P.n++] = t;
	P.m = calloc(1, sizeof *P.m);
	P.asked = P.m && cudamet_init(P.m, P.n) == 0;
	return P.asked;
}

/* The profiler's failure: said once, every launch from here on unprofiled. */
static void fail(const char *err)
{
	if (!P.failed)
		snprintf(P.m->error, sizeof P.m->error, "%s", err);
	P.failed = 1;
}

/* A fresh counter data image, the configuration set and the profiler started on it. */
static int begin_batch(char *err, size_t len)
{
	CUptiResult r;
	free(P.data);
	P.data = NULL;
	if (gpurange_counter_data(P.rp, P.names, P.n, BATCH, &P.data, &P.size, err, len) < 0 ||
	    gpurange_set_config(P.rp, P.config, P.csize, P.data, P.size, CUPTI_AutoRange,
				CUPTI_KernelReplay, BATCH, err, len) < 0)
		return -1;
	CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
	st.pRangeProfilerObject = P.rp;
	if ((r = cuptiRangeProfilerStart(&st)) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "starting the range profiler", r);
		return -1;
	}
	return 0;
}

/* Range i's name and values, for cudamet_batch. */
static int range_values(void *ctx, size_t i, const char **name, double *v)
{
	char err[512];
	*name = gpurange_range_name(P.data, P.size, i);
	if (gpurange_evaluate(P.obj, P.data, P.size, i, P.names, P.n, v, err, sizeof err) < 0) {
		fail(err);
		return -1;
	}
	return 0;
}

/* The batch's ranges read into the sums: stop, decode, evaluate each. */
static int end_batch(char *err, size_t len)
{
	CUptiResult r;
	size_t n = 0, dropped = 0;
	CUpti_RangeProfiler_Stop_Params sq = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
	sq.pRangeProfilerObject = P.rp;
	if ((r = cuptiRangeProfilerStop(&sq)) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "stopping the range profiler", r);
		return -1;
	}
	if (gpurange_decode(P.rp, &dropped, err, len) < 0 ||
	    gpurange_ranges(P.data, P.size, &n, err, len) < 0)
		return -1;
	P.m->unattributed += dropped;
	return cudamet_batch(P.m, n, range_values, NULL);
}

/* The profiler on ctx, the program's first launching context: 0, or -1 with err. */
static int setup(CUcontext ctx, char *err, size_t len)
{
	CUptiResult r;
	uint32_t dev = 0;
	uint8_t *avail = NULL;
	int rc = -1;
	P.ctx = ctx;
	cuptiGetDeviceId(ctx, &dev);
	if (!(P.chip = gpurange_chip(dev))) { /* first: it initializes the profiler on its own */
		snprintf(err, len, "CUPTI cannot name device %u's chip", dev);
		return -1;
	}
	if ((r = gpurange_init()) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "cuptiProfilerInitialize", r);
		return -1;
	}
	if (gpurange_availability(ctx, &avail, err, len) < 0 ||
	    gpurange_host(P.chip, avail, &P.obj, err, len) < 0 ||
	    gpurange_config(P.obj, P.names, P.n, &P.config, &P.csize, &P.m->passes, err, len) < 0 ||
	    gpurange_enable(ctx, &P.rp, err, len) < 0 || begin_batch(err, len) < 0)
		goto out;
	rc = 0;
out:
	free(avail);
	return rc;
}

/* A launch of kernel `mangled` in ctx with its grid and block, from its callback. */
static void launch(CUcontext ctx, const char *mangled, const uint32_t grid[3],
		   const uint32_t block[3], const struct cudarec_nvtx *nvtx)
{
	char err[512], name[ROT_ARENA_NAME];
	if (P.done || P.failed || (P.ctx && ctx != P.ctx)) {
		cudamet_drop(P.m, 1);
		return;
	}
	if (!P.ctx && setup(ctx, err, sizeof err) < 0) {
		fail(err);
		cudamet_drop(P.m, 1);
		return;
	}
	if (P.m->nlog == BATCH &&
	    (end_batch(err, sizeof err) < 0 || begin_batch(err, sizeof err) < 0)) {
		fail(err);
		cudamet_drop(P.m, 1);
		return;
	}
	cudarec_name(mangled, grid, block, name, sizeof name);
	cudamet_launch(P.m, name, mangled, nvtx);
}

/* The last batch read, the profiler taken down and the sums written to OUT.PID; once. */
static void finish(void)
{
	char err[512], path[4096], tmp[4200];
	if (P.done)
		return;
	P.done = 1;
	if (P.rp) {
		if (!P.failed && end_batch(err, sizeof err) < 0)
			fail(err);
		gpurange_disable(P.rp);
	}
	if (P.obj)
		gpurange_host_free(P.obj);
	if (P.ctx)
		gpurange_deinit();
	snprintf(path, sizeof path, "%s.%d", P.out, (int)getpid());
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "rot: CUDA library: cannot write '%s'\n", tmp);
		return;
	}
	cudamet_write(f, P.m, P.names, P.chip);
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		fprintf(stderr, "rot: CUDA library: cannot write '%s'\n", path);
}

/* A driver entry point, from the libcuda the program loaded (NULL: none loaded). */
static void *driver(const char *name)
{
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD), *f;
	f = dlsym(cuda ? cuda : RTLD_DEFAULT, name);
	if (cuda)
		dlclose(cuda);
	return f;
}

/* At exit, finish() runs on the thread that exits, where the profiled context may not be
 * current (the program launched from another thread, or popped its context), while the
 * profiler's stop and decode act on the current context. So P.ctx is pushed current around
 * it, and popped after. The driver's calls come from the process's libcuda: the library links
 * none, as CUPTI loads it. */
static void at_exit(void)
{
	CUresult (*push)(CUcontext) = NULL;
	CUresult (*pop)(CUcontext *) = NULL;
	CUcontext was;
	if (__atomic_load_n(&P.forked, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&lock);
	if (!P.done && P.ctx) {
		*(void **)&push = driver("cuCtxPushCurrent_v2");
		*(void **)&pop = driver("cuCtxPopCurrent_v2");
	}
	int pushed = push && pop && push(P.ctx) == CUDA_SUCCESS;
	finish();
	if (pushed)
		pop(&was);
	pthread_mutex_unlock(&lock);
}

void cudamet_forked(void)
{
	__atomic_store_n(&P.forked, 1, __ATOMIC_RELAXED);
	P.done = 1; /* (its lock may be held by a thread this process does not have) */
}

CUptiResult cudamet_start(CUpti_CallbackFunc cb)
{
	static const CUpti_CallbackId launches[] = {
	    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
	    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
	    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
	};
	CUpti_SubscriberHandle sub;
	char err[512];
	atexit(at_exit);
	CUptiResult r = cuptiSubscribe(&sub, cb, NULL);
	if (r == CUPTI_SUCCESS)
		r = cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_NVTX);
	for (size_t i = 0; i < sizeof launches / sizeof launches[0] && r == CUPTI_SUCCESS; i++)
		r = cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, launches[i]);
	if (r == CUPTI_SUCCESS)
		r = cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE,
					CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
	if (r != CUPTI_SUCCESS) {
		gpurange_error(err, sizeof err, "following the program's kernel launches", r);
		fail(err);
	}
	return r;
}

/* A launch's grid and block from its parameters; 0 when the callback is no launch's. */
static int shape(CUpti_CallbackId id, const void *params, uint32_t g[3], uint32_t b[3])
{
	const cuLaunchKernel_params *k = params;
	const cuLaunchCooperativeKernel_params *c = params;
	const cuLaunchKernelEx_params *x = params;
	switch (id) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
		g[0] = k->gridDimX, g[1] = k->gridDimY, g[2] = k->gridDimZ;
		b[0] = k->blockDimX, b[1] = k->blockDimY, b[2] = k->blockDimZ;
		return 1;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
		g[0] = c->gridDimX, g[1] = c->gridDimY, g[2] = c->gridDimZ;
		b[0] = c->blockDimX, b[1] = c->blockDimY, b[2] = c->blockDimZ;
		return 1;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
		if (!x->config)
			return 0;
		g[0] = x->config->gridDimX, g[1] = x->config->gridDimY, g[2] = x->config->gridDimZ;
		b[0] = x->config->blockDimX, b[1] = x->config->blockDimY,
		b[2] = x->config->blockDimZ;
		return 1;
	}
	return 0;
}

int cudamet_callback(CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data,
		     const struct cudarec_nvtx *nvtx)
{
	uint32_t g[3], b[3];
	if (!P.asked || !data)
		return 0;
	if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
		const CUpti_ResourceData *rd = data;
		pthread_mutex_lock(&lock);
		if (id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING && P.ctx &&
		    rd->context == P.ctx)
			finish();
		pthread_mutex_unlock(&lock);
		return 1;
	}
	if (domain != CUPTI_CB_DOMAIN_DRIVER_API)
		return 0;
	const CUpti_CallbackData *cb = data;
	if (cb->callbackSite == CUPTI_API_ENTER && cb->functionParams &&
	    shape(id, cb->functionParams, g, b)) {
		pthread_mutex_lock(&lock);
		launch(cb->context, cb->symbolName, g, b, nvtx);
		pthread_mutex_unlock(&lock);
	}
	return 1;
}
