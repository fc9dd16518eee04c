/* inject: rot's CUDA library (librot-cuda.so), loaded into an unmodified CUDA program through
 * CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH: every kernel a region (CUPTI's activity
 * records), every NVTX range a region (push/pop and start/end, in any domain). */

/*
 * How it is started: the driver calls InitializeInjection when the program initializes CUDA
 * (CUPTI's documented injection); NVTX calls InitializeInjectionNvtx2 at the program's first
 * NVTX call, which may come before, and is passed on to CUPTI's own (NVTX's callbacks are
 * CUPTI's NVTX domain). Both start the same things once: the arena the core left (ROT_MARKERS_FD,
 * as the recorder maps it), CUPTI's concurrent-kernel activity records, the NVTX callbacks, and a
 * flush of the records at exit. A process that is not rot's (no arena) is left alone; one that
 * runs a CUPTI of an older major release than the library's headers is refused in one line.
 * Kernel records are handed over in buffers on CUPTI's thread, serialized by a mutex. A kernel
 * whose records are still in a buffer when the process is killed is lost: a crash loses them.
 * NVTX ranges are timed here (CLOCK_MONOTONIC, the arena's clock for a CUDA program): push/pop
 * per thread, in a state freed when the thread ends; start/end per process, under nvtx_lock,
 * which also guards the names of domains and registered strings.
 */
#define _GNU_SOURCE
#include "metrics.h"
#include "records.h"

#include <cupti.h>
#include <generated_nvtx_meta.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUFFER (8u << 20) /* CUPTI's activity buffers */

/* records.c reads a kernel record at these offsets: every record version's since the 3rd */
#define SAME_AT(field, at)                                                                         \
	_Static_assert(offsetof(CUpti_ActivityKernel3, field) == (at) &&                           \
			   offsetof(CUpti_ActivityKernel4, field) == (at) &&                       \
			   offsetof(CUpti_ActivityKernel10, field) == (at),                        \
		       "CUPTI's kernel record moved " #field)
SAME_AT(start, CUDAREC_KERNEL_START);
SAME_AT(end, CUDAREC_KERNEL_END);
SAME_AT(gridX, CUDAREC_KERNEL_GRID);
SAME_AT(blockX, CUDAREC_KERNEL_BLOCK);
SAME_AT(name, CUDAREC_KERNEL_NAME);
_Static_assert(sizeof(CUpti_ActivityKernel3) >= CUDAREC_KERNEL_BYTES, "a short kernel record");

/* The oldest CUPTI the library reads: its headers' major release, from its first version
 * (xxyyzz from CUDA 13: 130000). A later minor or update adds record versions and calls, and
 * moves none of the fields above; a CUDA 13.0 libcupti that a program bundles is read. */
_Static_assert(CUPTI_API_VERSION >= 130000, "CUPTI's headers older than CUDA 13's");
#define CUPTI_OLDEST (CUPTI_API_VERSION / 10000 * 10000)

/* The parameters of NVTX calls generated_nvtx_meta.h leaves out, or types as narrow. */
typedef struct {
	const wchar_t *name;
} domain_create_w;
typedef struct {
	nvtxDomainHandle_t domain;
	const wchar_t *string;
} register_string_w;

static struct rot_arena *arena;
static uint32_t me; /* this process's entry in arena->procs */
static struct cudarec_kernels kernels;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int started;
static int forked; /* 1 in a process forked (without exec) from one that started */

/* start()'s progress: NOT_BEGUN, RUNNING (on the thread whose `starting` is set), DONE. */
enum { NOT_BEGUN, RUNNING, DONE };
static int state = NOT_BEGUN;
static __thread int starting;

static pthread_mutex_t nvtx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cudarec_ranges *ranges;		  /* start/end */
static struct cudarec_handles *domains, *strings; /* the program's domains, registered strings */
static pthread_key_t nvtx_key;
static __thread struct cudarec_nvtx *nvtx; /* this thread's push/pop */
static uint64_t nvtx_lost, nvtx_stray;	   /* of the threads that ended */

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
static void kernel_record(const CUpti_Activity *rec)
{
	char name[ROT_ARENA_NAME];
	struct cudarec_launch l;
	cudarec_launch_of(rec, &l);
	cudarec_name(l.name, l.grid, l.block, name, sizeof name);
	cudarec_kernel(&kernels, name, l.start, l.end);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
				      size_t valid)
{
	CUpti_Activity *rec = NULL;
	pthread_mutex_lock(&lock);
	while (valid && cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS)
		if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
			kernel_record(rec);
	pthread_mutex_unlock(&lock);
	free(buf);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A thread's NVTX state, at the thread's end: its counts kept, its open ranges left counted
 * open in their slots (in the arena). */
static void nvtx_end(void *p)
{
	struct cudarec_nvtx *t = p;
	__atomic_fetch_add(&nvtx_lost, t->w.lost, __ATOMIC_RELAXED);
	__atomic_fetch_add(&nvtx_stray, t->stray, __ATOMIC_RELAXED);
	if (nvtx == t)
		nvtx = NULL;
	free(t);
}

/* The calling thread's NVTX state, made at its first push or pop (NULL: no memory). */
static struct cudarec_nvtx *thread_nvtx(void)
{
	if (nvtx)
		return nvtx;
	struct cudarec_nvtx *t = malloc(sizeof *t);
	if (!t)
		return NULL;
	cudarec_nvtx_start(t, arena, me);
	pthread_setspecific(nvtx_key, t);
	return nvtx = t;
}

/* The name, in UTF-8, that an NVTX event's attributes give (in buf, or theirs; NULL: none). */
static const char *message(const nvtxEventAttributes_t *e, char *buf, size_t len)
{
	const char *kept;
	if (!e)
		return NULL;
	switch (e->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		return e->message.ascii;
	case NVTX_MESSAGE_TYPE_UNICODE:
		cudarec_utf8(e->message.unicode, buf, len);
		return buf;
	case NVTX_MESSAGE_TYPE_REGISTERED:
		pthread_mutex_lock(&nvtx_lock);
		kept = cudarec_handle_name(strings, e->message.registered);
		snprintf(buf, len, "%s", kept ? kept : "");
		pthread_mutex_unlock(&nvtx_lock);
		return buf;
	default:
		return NULL;
	}
}

/* A range's region name (cudarec_range_name's) in out. */
static void range_name(nvtxDomainHandle_t domain, const char *msg, char *out, size_t len)
{
	char dn[ROT_ARENA_NAME] = "";
	if (domain) {
		pthread_mutex_lock(&nvtx_lock);
		const char *kept = cudarec_handle_name(domains, domain);
		snprintf(dn, sizeof dn, "%s", kept ? kept : "");
		pthread_mutex_unlock(&nvtx_lock);
	}
	cudarec_range_name(domain ? dn : NULL, msg, out, len);
}

static void push(nvtxDomainHandle_t domain, const char *msg, uint64_t t)
{
	char name[ROT_ARENA_NAME];
	struct cudarec_nvtx *n = thread_nvtx();
	range_name(domain, msg, name, sizeof name);
	if (n)
		cudarec_push(n, domain, name, t);
}

static void pop(nvtxDomainHandle_t domain, uint64_t t)
{
	struct cudarec_nvtx *n = thread_nvtx();
	if (n)
		cudarec_pop(n, domain, t);
}

/* A start/end range started: its id is what the call returns (ret). */
static void range_start(nvtxDomainHandle_t domain, const char *msg, const void *ret, uint64_t t)
{
	char name[ROT_ARENA_NAME];
	if (!ret || !arena) /* (the metrics pass follows push/pop ranges alone) */
		return;
	range_name(domain, msg, name, sizeof name);
	pthread_mutex_lock(&nvtx_lock);
	cudarec_range_start(ranges, *(const nvtxRangeId_t *)ret, name, t);
	pthread_mutex_unlock(&nvtx_lock);
}

static void range_end(nvtxRangeId_t id, uint64_t t)
{
	if (!arena)
		return;
	pthread_mutex_lock(&nvtx_lock);
	cudarec_range_end(ranges, id, t);
	pthread_mutex_unlock(&nvtx_lock);
}

/* The handle a call returned (ret: a domain, a registered string), named name. */
static void named(struct cudarec_handles *h, const void *ret, const char *name)
{
	if (!ret)
		return;
	pthread_mutex_lock(&nvtx_lock);
	cudarec_handle_add(h, *(const void *const *)ret, name);
	pthread_mutex_unlock(&nvtx_lock);
}

/* NVTX's calls: its ranges, and the names they use. */
static void CUPTIAPI callback(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
			      const void *data)
{
	const CUpti_NvtxData *d = data;
	char buf[ROT_ARENA_NAME];
	if (__atomic_load_n(&forked, __ATOMIC_RELAXED))
		return;
	if (cudamet_callback(domain, id, data, nvtx)) /* the metrics pass's launches */
		return;
	if (domain != CUPTI_CB_DOMAIN_NVTX || !d || !d->functionParams)
		return;
	const void *p = d->functionParams, *ret = d->functionReturnValue;
	uint64_t t = now_ns();
	switch (id) {
	case CUPTI_CBID_NVTX_nvtxRangePushA:
		push(NULL, ((const nvtxRangePushA_params *)p)->message, t);
		break;
	case CUPTI_CBID_NVTX_nvtxRangePushW:
		cudarec_utf8(((const nvtxRangePushW_params *)p)->message, buf, sizeof buf);
		push(NULL, buf, t);
		break;
	case CUPTI_CBID_NVTX_nvtxRangePushEx:
		push(NULL,
		     message(((const nvtxRangePushEx_params *)p)->eventAttrib, buf, sizeof buf), t);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
		const nvtxDomainRangePushEx_params *q = p;
		push(q->domain, message(q->core.eventAttrib, buf, sizeof buf), t);
		break;
	}
	case CUPTI_CBID_NVTX_nvtxRangePop:
		pop(NULL, t);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangePop:
		pop(((const nvtxDomainRangePop_params *)p)->domain, t);
		break;
	case CUPTI_CBID_NVTX_nvtxRangeStartA:
		range_start(NULL, ((const nvtxRangeStartA_params *)p)->message, ret, t);
		break;
	case CUPTI_CBID_NVTX_nvtxRangeStartW:
		cudarec_utf8(((const nvtxRangeStartW_params *)p)->message, buf, sizeof buf);
		range_start(NULL, buf, ret, t);
		break;
	case CUPTI_CBID_NVTX_nvtxRangeStartEx:
		range_start(
		    NULL,
		    message(((const nvtxRangeStartEx_params *)p)->eventAttrib, buf, sizeof buf),
		    ret, t);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
		const nvtxDomainRangeStartEx_params *q = p;
		range_start(q->domain, message(q->core.eventAttrib, buf, sizeof buf), ret, t);
		break;
	}
	case CUPTI_CBID_NVTX_nvtxRangeEnd:
		range_end(((const nvtxRangeEnd_params *)p)->id, t);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
		range_end(((const nvtxDomainRangeEnd_params *)p)->core.id, t);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainCreateA:
		named(domains, ret, ((const nvtxDomainCreateA_params *)p)->name);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainCreateW:
		cudarec_utf8(((const domain_create_w *)p)->name, buf, sizeof buf);
		named(domains, ret, buf);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA:
		named(strings, ret, ((const nvtxDomainRegisterStringA_params *)p)->string);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRegisterStringW:
		cudarec_utf8(((const register_string_w *)p)->string, buf, sizeof buf);
		named(strings, ret, buf);
		break;
	default:
		break;
	}
}

static void flush(void)
{
	if (forked) /* the parent's counts, not this process's; its locks may be held */
		return;
	if (started)
		cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (kernels.lost)
		fprintf(stderr, "rot: CUDA library: %llu kernel calls found no room in the arena\n",
			(unsigned long long)kernels.lost);
	pthread_mutex_lock(&nvtx_lock);
	uint64_t lost = __atomic_load_n(&nvtx_lost, __ATOMIC_RELAXED) + (nvtx ? nvtx->w.lost : 0) +
			ranges->w.lost + ranges->lost + domains->lost + strings->lost;
	uint64_t stray = __atomic_load_n(&nvtx_stray, __ATOMIC_RELAXED) + (nvtx ? nvtx->stray : 0) +
			 ranges->stray;
	pthread_mutex_unlock(&nvtx_lock);
	if (lost)
		fprintf(stderr, "rot: CUDA library: %llu NVTX ranges or names found no room\n",
			(unsigned long long)lost);
	if (stray)
		fprintf(stderr, "rot: CUDA library: %llu NVTX pops or ends matched no open range\n",
			(unsigned long long)stray);
}

/* This process's entry in the arena: the recorder's (by pid), else one of its own (a process
 * the recorder records nothing in: forked before it initialized CUDA); -1 past
 * ROT_ARENA_PROCS. */
static int proc_entry(struct rot_arena *a)
{
	uint32_t n = __atomic_load_n(&a->nprocs, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n && i < ROT_ARENA_PROCS; i++)
		if (a->procs[i].pid == (int32_t)getpid())
			return (int)i;
	uint32_t i = arena_enter(a, program_invocation_short_name);
	return i < ROT_ARENA_PROCS ? (int)i : -1;
}

/* Whether the CUPTI the program runs with is one this library reads: not older than
 * CUPTI_OLDEST (said in one line when it is). */
static int cupti_usable(void)
{
	uint32_t v = 0;
	Dl_info info;
	if (cuptiGetVersion(&v) == CUPTI_SUCCESS && v >= CUPTI_OLDEST)
		return 1;
	int where = dladdr((void *)cuptiGetVersion, &info) && info.dli_fname;
	fprintf(
	    stderr,
	    "rot: CUDA library: CUPTI at run time (%s, version %u) is older than %u, the oldest "
	    "it reads: nothing is recorded\n",
	    where ? info.dli_fname : "libcupti", v, (unsigned)CUPTI_OLDEST);
	return 0;
}

/* The NVTX state both passes keep: domains' and registered strings' names, start/end ranges,
 * each thread's push/pop ranges (0: no memory). */
static int nvtx_setup(void)
{
	return (ranges = malloc(sizeof *ranges)) && (domains = calloc(1, sizeof *domains)) &&
	       (strings = calloc(1, sizeof *strings)) &&
	       pthread_key_create(&nvtx_key, nvtx_end) == 0;
}

/* The metrics pass (metrics.c): NVTX push/pop ranges followed as above (their names, for the
 * launches inside them), no arena, no kernel records. */
static void start_metrics(void)
{
	CUptiResult r;
	if (!cupti_usable() || !nvtx_setup())
		return;
	cudarec_ranges_start(ranges, NULL, 0);
	if ((r = cudamet_start(callback)) != CUPTI_SUCCESS)
		say("metrics pass", r);
}

/* In a process the program forks without exec, after the library began starting: nothing
 * recorded. It shares the arena's pages with its parent, and copies of its parent's CUPTI
 * state and locks (held, maybe, by a thread it does not have). As the marker recorder does.
 * Started it counts as (forked while another thread started: nothing waits for that one). */
static void forked_child(void)
{
	__atomic_store_n(&forked, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&state, DONE, __ATOMIC_RELEASE);
	arena = NULL;
	started = 0;
	cudamet_forked();
}

static void start(void)
{
	CUpti_SubscriberHandle sub;
	CUptiResult r;
	if (cudamet_asked()) {
		start_metrics();
		return;
	}
	struct rot_arena *a = arena_map(getenv(ROT_ARENA_ENV_FD));
	if (!a)
		return;
	if (!cupti_usable()) {
		munmap(a, ROT_ARENA_BYTES);
		return;
	}
	int entry = proc_entry(a);
	if (entry < 0)
		fprintf(stderr,
			"rot: CUDA library: process %d is past the %d processes rot records: its "
			"kernels and NVTX ranges are not recorded\n",
			(int)getpid(), ROT_ARENA_PROCS);
	if (entry < 0 || !nvtx_setup()) {
		munmap(a, ROT_ARENA_BYTES);
		return;
	}
	arena = a;
	me = (uint32_t)entry;
	cudarec_kernels_start(&kernels, arena, me);
	cudarec_ranges_start(ranges, arena, me);
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

/* start(), once. Not pthread_once: start() calls CUPTI, which may initialize CUDA, whose
 * driver then calls InitializeInjection on the same thread, and pthread_once would wait for
 * itself. A call on the thread running start() returns at once; another thread waits for it. */
static void start_once(void)
{
	int was = NOT_BEGUN;
	if (starting)
		return;
	if (__atomic_compare_exchange_n(&state, &was, RUNNING, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_ACQUIRE)) {
		starting = 1;
		pthread_atfork(NULL, NULL, forked_child);
		start();
		starting = 0;
		__atomic_store_n(&state, DONE, __ATOMIC_RELEASE);
		return;
	}
	struct timespec nap = {0, 100000}; /* 0.1 ms */
	while (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != DONE)
		nanosleep(&nap, NULL);
}

/* CUDA's injection entry: at the program's cuInit. */
__attribute__((visibility("default"))) int InitializeInjection(void)
{
	start_once();
	return 1;
}

/* NVTX's injection entry: at the program's first NVTX call; CUPTI's own takes it over. */
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(void *get_export_table)
{
	start_once();
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
