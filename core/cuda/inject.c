/* inject: rot's CUDA library (librot-cuda.so), loaded into an unmodified CUDA program through
 * CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH: every kernel a region (CUPTI's activity
 * records), every NVTX range a region (through the marker recorder preloaded beside it). */

/*
 * How it is started: the driver calls InitializeInjection when the program initializes CUDA
 * (CUPTI's documented injection); NVTX calls InitializeInjectionNvtx2 at the program's first
 * NVTX call, which may come before, and is passed on to CUPTI's own (NVTX's callbacks are
 * CUPTI's NVTX domain). Both start the same things once: the arena the core left (ROT_MARKERS_FD,
 * as the recorder maps it), CUPTI's concurrent-kernel activity records, the NVTX callbacks, and a
 * flush of the records at exit. A process that is not rot's (no arena) is left alone.
 * Kernel records are handed over in buffers on CUPTI's thread, serialized by a mutex. A kernel
 * whose records are still in a buffer when the process is killed is lost: a crash loses them.
 */
#define _GNU_SOURCE
#include "metrics.h"
#include "records.h"

#include <cupti.h>
#include <generated_nvtx_meta.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUFFER (8u << 20) /* CUPTI's activity buffers */

static struct rot_arena *arena;
static const struct rot_markers_api *api; /* the recorder's, for NVTX ranges */
static struct cudarec_kernels kernels;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static __thread struct cudarec_nvtx *nvtx;
static int started;

static void say(const char *what, CUptiResult r)
{
	const char *s = NULL;
	cuptiGetResultString(r, &s);
	fprintf(stderr, "rot: CUDA library: %s: %s\n", what, s ? s : "unknown CUPTI error");
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max)
{
	*buf = aligned_alloc(8, BUFFER);
	*size = *buf ? BUFFER : 0;
	*max = 0;
}

/* A kernel record into its region. */
static void kernel_record(const CUpti_ActivityKernel10 *k)
{
	char name[ROT_ARENA_NAME];
	uint32_t grid[3] = {(uint32_t)k->gridX, (uint32_t)k->gridY, (uint32_t)k->gridZ};
	uint32_t block[3] = {(uint32_t)k->blockX, (uint32_t)k->blockY, (uint32_t)k->blockZ};
	cudarec_name(k->name, grid, block, name, sizeof name);
	cudarec_kernel(&kernels, name, k->start, k->end);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
				      size_t valid)
{
	CUpti_Activity *rec = NULL;
	pthread_mutex_lock(&lock);
	while (valid && cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS)
		if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
			kernel_record((const CUpti_ActivityKernel10 *)rec);
	pthread_mutex_unlock(&lock);
	free(buf);
}

/* An NVTX push or pop of the calling thread. */
static void CUPTIAPI callback(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
			      const void *data)
{
	const CUpti_NvtxData *d = data;
	if (cudamet_callback(domain, id, data, nvtx)) /* the metrics pass's launches */
		return;
	if (domain != CUPTI_CB_DOMAIN_NVTX || !d)
		return;
	if (!nvtx && !(nvtx = calloc(1, sizeof *nvtx)))
		return;
	if (id == CUPTI_CBID_NVTX_nvtxRangePushA) {
		const nvtxRangePushA_params *p = d->functionParams;
		cudarec_push(nvtx, api, p ? p->message : NULL);
	} else if (id == CUPTI_CBID_NVTX_nvtxRangePushEx) {
		const nvtxRangePushEx_params *p = d->functionParams;
		const nvtxEventAttributes_t *e = p ? p->eventAttrib : NULL;
		cudarec_push(nvtx, api,
			     e && e->messageType == NVTX_MESSAGE_TYPE_ASCII ? e->message.ascii
									    : NULL);
	} else if (id == CUPTI_CBID_NVTX_nvtxRangePop)
		cudarec_pop(nvtx, api);
}

static void flush(void)
{
	if (started)
		cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (kernels.lost)
		fprintf(stderr, "rot: CUDA library: %llu kernel calls found no room in the arena\n",
			(unsigned long long)kernels.lost);
}

/* This process's entry in the arena (the recorder's, by pid). */
static uint32_t proc_entry(const struct rot_arena *a)
{
	for (uint32_t i = 0; i < a->nprocs && i < ROT_ARENA_PROCS; i++)
		if (a->procs[i].pid == (int32_t)getpid())
			return i;
	return 0;
}

/* The metrics pass (metrics.c): NVTX ranges followed as above, no arena, no kernel records. */
static void start_metrics(void)
{
	CUptiResult r = cudamet_start(callback);
	if (r != CUPTI_SUCCESS)
		say("metrics pass", r);
}

static void start(void)
{
	CUpti_SubscriberHandle sub;
	CUptiResult r;
	if (cudamet_asked()) {
		start_metrics();
		return;
	}
	if (!(arena = arena_map(getenv(ROT_ARENA_ENV_FD))))
		return;
	const struct rot_markers_api *(*get)(int) =
	    (const struct rot_markers_api *(*)(int))dlsym(RTLD_DEFAULT, "rot_markers_api");
	api = get ? get(ROT_MARKERS_VERSION) : NULL;
	cudarec_kernels_start(&kernels, arena, proc_entry(arena));
	if ((r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)) !=
		CUPTI_SUCCESS ||
	    (r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) != CUPTI_SUCCESS) {
		say("kernel records", r);
		return;
	}
	started = 1;
	if ((r = cuptiSubscribe(&sub, callback, NULL)) != CUPTI_SUCCESS ||
	    (r = cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_NVTX)) != CUPTI_SUCCESS)
		say("NVTX ranges", r);
	atexit(flush);
}

/* CUDA's injection entry: at the program's cuInit. */
__attribute__((visibility("default"))) int InitializeInjection(void)
{
	pthread_once(&once, start);
	return 1;
}

/* NVTX's injection entry: at the program's first NVTX call; CUPTI's own takes it over. */
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(void *get_export_table)
{
	pthread_once(&once, start);
	Dl_info info;
	void *cupti = NULL;
	int (*init)(void *) = NULL;
	if (dladdr((void *)cuptiSubscribe, &info) && info.dli_fname)
		cupti = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
	if (cupti)
		init = (int (*)(void *))dlsym(cupti, "InitializeInjectionNvtx2");
	return init && (void *)init != (void *)InitializeInjectionNvtx2 ? init(get_export_table)
									: 0;
}
