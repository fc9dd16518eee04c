/* gpuprof: the CUPTI profiler side of the measuring core (built only when a point has a GPU
 * kernel): the chip's name, metric checks on the host, range profiling of one invocation. */

/*
 * The range-profiler sequence follows NVIDIA's CUPTI sample range_profiling (range_profiling.cu
 * and range_profiling.h, Copyright 2024, as shipped with the CUPTI of CUDA 12.6 to 13.0), step
 * by step: cuptiProfilerInitialize before anything else of the profiler, the chip name among
 * it; counter availability (size, then image); host object and config image (add metrics,
 * image size, image, passes); enable on the context; counter-data image (size for the metrics
 * and 1 range, 1 range-tree node; initialize); set config (user range, user replay, 1 range per
 * pass, 1 nesting level, min level 1, pass 0, target level 1); start, push range, the one
 * launch, pop, stop, until isAllPassSubmitted; decode; the number of ranges and the range's
 * name checked (GetCounterDataInfo, GetRangeInfo with "/") before evaluating range 0;
 * disable, host deinitialize, cuptiProfilerDeInitialize. Differences: the context is the
 * runtime's primary one (the core never links libcuda); the kernel's reset() restores its
 * inputs before every replayed pass; a child that measures many points (a shared child) asks
 * for the chip name once and keeps the host object and config image (host side, no device
 * needed) while the metric list stays the same; initialize, enable ... disable, deinitialize
 * stay around each profiling, so no timed run sees an initialized profiler. */
#include "gpuprof.h"
#include "strdist.h"

/* cupti_profiler_host.h includes the C++ header <string>: core/shim/ holds an empty file of
 * that name, found before the CUDA include path, so the header also compiles as C. */
#include <cuda_runtime_api.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *cupti_str(CUptiResult r)
{
	const char *s = NULL;
	cuptiGetResultString(r, &s);
	return s ? s : "unknown CUPTI error";
}

static void cupti_error(char *err, size_t len, const char *what, CUptiResult r)
{
	if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
		snprintf(err, len,
			 "%s: %s: profiling is restricted to administrators\n"
			 "hint: load the NVIDIA driver with NVreg_RestrictProfilingToAdminUsers=0 "
			 "(e.g. options nvidia NVreg_RestrictProfilingToAdminUsers=0 in "
			 "/etc/modprobe.d/), or run as root",
			 what, cupti_str(r));
	else
		snprintf(err, len, "%s: %s", what, cupti_str(r));
}

/* The profiler is initialized only around what needs it (the chip name, one profiling), as
 * NVIDIA's sample does, so timed runs never run beside an initialized profiler. */
static CUptiResult profiler_init(void)
{
	CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
	return cuptiProfilerInitialize(&pi);
}

static void profiler_deinit(void)
{
	CUpti_Profiler_DeInitialize_Params pd = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
	cuptiProfilerDeInitialize(&pd);
}

/* cuptiDeviceGetChipName needs the profiler initialized first: called alone it crashes inside
 * libcupti (seen on an H100 with CUPTI 2025.3). */
const char *gpuprof_chip_name(void)
{
	static char chip[64];
	if (!chip[0] && profiler_init() == CUPTI_SUCCESS) {
		CUpti_Device_GetChipName_Params cp = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
		cp.deviceIndex = 0;
		if (cuptiDeviceGetChipName(&cp) == CUPTI_SUCCESS && cp.pChipName)
			snprintf(chip, sizeof chip, "%s", cp.pChipName);
		profiler_deinit();
	}
	return chip[0] ? chip : NULL;
}

int gpuprof_chip(FILE *out)
{
	const char *chip = gpuprof_chip_name();
	if (!chip)
		return -1;
	fprintf(out, "%s\n", chip);
	return 0;
}

/* --- metrics: host API, no device needed --- */

static int host_init(const char *chip, const uint8_t *avail, CUpti_Profiler_Host_Object **obj,
		     char *err, size_t len)
{
	CUpti_Profiler_Host_Initialize_Params ip = {
	    CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
	ip.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	ip.pChipName = chip;
	ip.pCounterAvailabilityImage = avail;
	CUptiResult r = cuptiProfilerHostInitialize(&ip);
	if (r != CUPTI_SUCCESS) {
		char what[128];
		snprintf(what, sizeof what, "CUPTI host initialization for chip '%s'", chip);
		cupti_error(err, len, what, r);
		return -1;
	}
	*obj = ip.pHostObject;
	return 0;
}

static void host_free(CUpti_Profiler_Host_Object *obj)
{
	CUpti_Profiler_Host_Deinitialize_Params dp = {
	    CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
	dp.pHostObject = obj;
	cuptiProfilerHostDeinitialize(&dp);
}

static int known(CUpti_Profiler_Host_Object *obj, const char *metric)
{
	CUpti_Profiler_Host_GetMetricProperties_Params mp = {
	    CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
	mp.pHostObject = obj;
	mp.pMetricName = metric;
	return cuptiProfilerHostGetMetricProperties(&mp) == CUPTI_SUCCESS;
}

/* The three base metrics nearest to metric's base name (the part before the rollup). */
static void suggest(FILE *out, CUpti_Profiler_Host_Object *obj, const char *metric)
{
	char base[256];
	snprintf(base, sizeof base, "%s", metric);
	char *dot = strrchr(base, '.');
	const char *rollup = "";
	if (dot && (!strcmp(dot, ".sum") || !strcmp(dot, ".avg") || !strcmp(dot, ".max") ||
		    !strcmp(dot, ".min") || !strcmp(dot, ".pct") || !strcmp(dot, ".ratio") ||
		    !strcmp(dot, ".per_second"))) {
		rollup = metric + (dot - base);
		*dot = '\0';
	}
	const char *best[3] = {0};
	int bestd[3] = {1 << 20, 1 << 20, 1 << 20};
	for (int t = 0; t < CUPTI_METRIC_TYPE__COUNT; t++) {
		CUpti_Profiler_Host_GetBaseMetrics_Params bp = {
		    CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE};
		bp.pHostObject = obj;
		bp.metricType = (CUpti_MetricType)t;
		if (cuptiProfilerHostGetBaseMetrics(&bp) != CUPTI_SUCCESS)
			continue;
		for (size_t i = 0; i < bp.numMetrics; i++) {
			int dup = 0; /* a base metric can be listed under several types */
			for (int j = 0; j < 3; j++)
				dup |= best[j] && strcmp(best[j], bp.ppMetricNames[i]) == 0;
			if (dup)
				continue;
			int d = strdist_distance(base, bp.ppMetricNames[i]);
			for (int j = 0; j < 3; j++) {
				if (d < bestd[j]) {
					for (int m = 2; m > j; m--) {
						bestd[m] = bestd[m - 1];
						best[m] = best[m - 1];
					}
					bestd[j] = d;
					best[j] = bp.ppMetricNames[i];
					break;
				}
			}
		}
	}
	fprintf(out, "unknown %s", metric);
	for (int j = 0; j < 3; j++)
		if (best[j])
			fprintf(out, " %s%s", best[j], rollup);
	fprintf(out, "\n");
}

static int config_image(CUpti_Profiler_Host_Object *obj, const char *const *metrics, int n,
			uint8_t **image, size_t *size, size_t *passes, char *err, size_t len)
{
	CUpti_Profiler_Host_ConfigAddMetrics_Params ap = {
	    CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
	ap.pHostObject = obj;
	ap.ppMetricNames = (const char **)metrics;
	ap.numMetrics = (size_t)n;
	CUptiResult r = cuptiProfilerHostConfigAddMetrics(&ap);
	if (r != CUPTI_SUCCESS) {
		cupti_error(err, len, "adding the metrics to the configuration", r);
		return -1;
	}
	CUpti_Profiler_Host_GetConfigImageSize_Params sp = {
	    CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
	sp.pHostObject = obj;
	if ((r = cuptiProfilerHostGetConfigImageSize(&sp)) != CUPTI_SUCCESS) {
		cupti_error(err, len, "config image size", r);
		return -1;
	}
	*image = malloc(sp.configImageSize);
	*size = sp.configImageSize;
	CUpti_Profiler_Host_GetConfigImage_Params gp = {
	    CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
	gp.pHostObject = obj;
	gp.configImageSize = sp.configImageSize;
	gp.pConfigImage = *image;
	if (!*image || (r = cuptiProfilerHostGetConfigImage(&gp)) != CUPTI_SUCCESS) {
		cupti_error(err, len, "config image", r);
		return -1;
	}
	CUpti_Profiler_Host_GetNumOfPasses_Params np = {
	    CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
	np.configImageSize = sp.configImageSize;
	np.pConfigImage = *image;
	if ((r = cuptiProfilerHostGetNumOfPasses(&np)) != CUPTI_SUCCESS) {
		cupti_error(err, len, "number of passes", r);
		return -1;
	}
	*passes = np.numOfPasses;
	return 0;
}

int gpuprof_check_metrics(FILE *out, const char *chip, const char *const *metrics, int n)
{
	CUpti_Profiler_Host_Object *obj;
	char err[512];
	uint8_t *image = NULL;
	size_t size, passes;
	int bad = 0, rc = -1;
	if (host_init(chip, NULL, &obj, err, sizeof err) < 0) {
		fprintf(out, "error %s\n", err);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (known(obj, metrics[i])) {
			fprintf(out, "ok %s\n", metrics[i]);
		} else {
			suggest(out, obj, metrics[i]);
			bad = 1;
		}
	}
	if (!bad) {
		if (config_image(obj, metrics, n, &image, &size, &passes, err, sizeof err) < 0) {
			fprintf(out, "error %s\n", err);
			goto out;
		}
		fprintf(out, "passes %zu\n", passes);
	}
	rc = bad;
out:
	free(image);
	host_free(obj);
	return rc;
}

/* --- profiling: range profiler on the device --- */

typedef int (*cu_ctx_get_current)(void **ctx);

/* What a metric list needs on the host (counter availability, host object, config image),
 * kept while the next point of a shared child asks for the same list. */
static struct {
	char key[GPU_MAX_METRICS * 129];
	CUpti_Profiler_Host_Object *obj;
	uint8_t *config;
	size_t config_size, passes;
} setup;

static void setup_clear(void)
{
	if (setup.obj)
		host_free(setup.obj);
	free(setup.config);
	memset(&setup, 0, sizeof setup);
}

static int profile_setup(void *ctx, const char *const *metrics, int n, char *err, size_t len)
{
	char key[sizeof setup.key];
	size_t at = 0;
	uint8_t *avail = NULL;
	CUptiResult r;
	int rc = -1;
	key[0] = '\0';
	for (int i = 0; i < n && at < sizeof key; i++)
		at += (size_t)snprintf(key + at, sizeof key - at, "%s,", metrics[i]);
	if (setup.obj && strcmp(key, setup.key) == 0)
		return 0;
	setup_clear();
	CUpti_Profiler_GetCounterAvailability_Params ap = {
	    CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
	ap.ctx = ctx;
	if ((r = cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
		cupti_error(err, len, "counter availability", r);
		goto out;
	}
	avail = malloc(ap.counterAvailabilityImageSize);
	ap.pCounterAvailabilityImage = avail;
	if (!avail || (r = cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
		cupti_error(err, len, "counter availability image", r);
		goto out;
	}
	if (host_init(gpuprof_chip_name(), avail, &setup.obj, err, len) < 0)
		goto out;
	if (config_image(setup.obj, metrics, n, &setup.config, &setup.config_size, &setup.passes,
			 err, len) < 0) {
		setup_clear();
		goto out;
	}
	snprintf(setup.key, sizeof setup.key, "%s", key);
	rc = 0;
out:
	free(avail);
	return rc;
}

/* The current context, through the runtime: the core never links libcuda itself. */
static int current_context(void **ctx, char *err, size_t len)
{
	cu_ctx_get_current get_ctx = NULL;
	if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", (void **)&get_ctx, 12000,
					     cudaEnableDefault, NULL) != cudaSuccess ||
	    !get_ctx || get_ctx(ctx) != 0 || !*ctx) {
		snprintf(err, len, "cannot get the current CUDA context");
		return -1;
	}
	return 0;
}

/* Enables the range profiler on ctx: *rp, or -1 with err. */
static int range_enable(void *ctx, CUpti_RangeProfiler_Object **rp, char *err, size_t len)
{
	CUptiResult r;
	CUpti_RangeProfiler_Enable_Params ep = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
	ep.ctx = ctx;
	if ((r = cuptiRangeProfilerEnable(&ep)) != CUPTI_SUCCESS) {
		cupti_error(err, len, "enabling the range profiler", r);
		return -1;
	}
	*rp = ep.pRangeProfilerObject;
	return 0;
}

/* The counter-data image for the metrics, 1 range and 1 range-tree node, initialized: *data
 * (the caller frees it, also after an error) of *size bytes. */
static int counter_data(CUpti_RangeProfiler_Object *rp, const char *const *metrics, int n,
			uint8_t **data, size_t *size, char *err, size_t len)
{
	CUptiResult r;
	CUpti_RangeProfiler_GetCounterDataSize_Params sp = {
	    CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
	sp.pRangeProfilerObject = rp;
	sp.pMetricNames = (const char **)metrics;
	sp.numMetrics = (size_t)n;
	sp.maxNumOfRanges = 1;
	sp.maxNumRangeTreeNodes = 1;
	if ((r = cuptiRangeProfilerGetCounterDataSize(&sp)) != CUPTI_SUCCESS) {
		cupti_error(err, len, "counter data size", r);
		return -1;
	}
	*data = malloc(sp.counterDataSize);
	*size = sp.counterDataSize;
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params dp = {
	    CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
	dp.pRangeProfilerObject = rp;
	dp.counterDataSize = sp.counterDataSize;
	dp.pCounterData = *data;
	if (!*data || (r = cuptiRangeProfilerCounterDataImageInitialize(&dp)) != CUPTI_SUCCESS) {
		cupti_error(err, len, "counter data image", r);
		return -1;
	}
	return 0;
}

/* User range, user replay, 1 range per pass, 1 nesting level, min level 1, pass 0, target
 * level 1, with the kept config image. */
static int range_config(CUpti_RangeProfiler_Object *rp, uint8_t *data, size_t size, char *err,
			size_t len)
{
	CUptiResult r;
	CUpti_RangeProfiler_SetConfig_Params cfg = {
	    CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
	cfg.pRangeProfilerObject = rp;
	cfg.configSize = setup.config_size;
	cfg.pConfig = setup.config;
	cfg.counterDataImageSize = size;
	cfg.pCounterDataImage = data;
	cfg.range = CUPTI_UserRange;
	cfg.replayMode = CUPTI_UserReplay;
	cfg.maxRangesPerPass = 1;
	cfg.numNestingLevels = 1;
	cfg.minNestingLevel = 1;
	cfg.passIndex = 0;
	cfg.targetNestingLevel = 1;
	if ((r = cuptiRangeProfilerSetConfig(&cfg)) != CUPTI_SUCCESS) {
		cupti_error(err, len, "range profiler configuration", r);
		return -1;
	}
	return 0;
}

/* One pass: start, push the kernel's range, the one launch, pop, stop; *done when every pass
 * is submitted. */
static int range_pass(const struct rot_kernel *k, void *state, CUpti_RangeProfiler_Object *rp,
		      int pass, int *done, char *err, size_t len)
{
	CUptiResult r;
	if (pass > 0 && k->reset)
		k->reset(state);
	cudaDeviceSynchronize();
	CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
	st.pRangeProfilerObject = rp;
	CUpti_RangeProfiler_PushRange_Params pu = {
	    CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
	pu.pRangeProfilerObject = rp;
	pu.pRangeName = k->name;
	CUpti_RangeProfiler_PopRange_Params po = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
	po.pRangeProfilerObject = rp;
	CUpti_RangeProfiler_Stop_Params sq = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
	sq.pRangeProfilerObject = rp;
	if ((r = cuptiRangeProfilerStart(&st)) != CUPTI_SUCCESS ||
	    (r = cuptiRangeProfilerPushRange(&pu)) != CUPTI_SUCCESS) {
		cupti_error(err, len, "starting a profiling pass", r);
		return -1;
	}
	k->run(state);
	cudaDeviceSynchronize();
	if ((r = cuptiRangeProfilerPopRange(&po)) != CUPTI_SUCCESS ||
	    (r = cuptiRangeProfilerStop(&sq)) != CUPTI_SUCCESS) {
		cupti_error(err, len, "ending a profiling pass", r);
		return -1;
	}
	*done = sq.isAllPassSubmitted;
	return 0;
}

/* Decodes the passes' data and checks it holds exactly the one range pushed, under the
 * kernel's name, before range 0 is read. */
static int range_decode(const struct rot_kernel *k, CUpti_RangeProfiler_Object *rp, uint8_t *data,
			size_t size, char *err, size_t len)
{
	CUptiResult r;
	CUpti_RangeProfiler_DecodeData_Params dd = {
	    CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
	dd.pRangeProfilerObject = rp;
	if ((r = cuptiRangeProfilerDecodeData(&dd)) != CUPTI_SUCCESS) {
		cupti_error(err, len, "decoding the counter data", r);
		return -1;
	}
	CUpti_RangeProfiler_GetCounterDataInfo_Params di = {
	    CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
	di.pCounterDataImage = data;
	di.counterDataImageSize = size;
	if ((r = cuptiRangeProfilerGetCounterDataInfo(&di)) != CUPTI_SUCCESS) {
		cupti_error(err, len, "reading the counter data", r);
		return -1;
	}
	CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri = {
	    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
	ri.pCounterDataImage = data;
	ri.counterDataImageSize = size;
	ri.rangeIndex = 0;
	ri.rangeDelimiter = "/";
	if (di.numTotalRanges != 1 ||
	    cuptiRangeProfilerCounterDataGetRangeInfo(&ri) != CUPTI_SUCCESS || !ri.rangeName ||
	    strcmp(ri.rangeName, k->name) != 0) {
		snprintf(err, len,
			 "the profiler recorded %zu range(s) (first '%s'), not the one range '%s'",
			 di.numTotalRanges, ri.rangeName ? ri.rangeName : "?", k->name);
		return -1;
	}
	return 0;
}

/* The metrics' values in range 0, with the kept host object. */
static int range_evaluate(uint8_t *data, size_t size, const char *const *metrics, int n,
			  double *values, char *err, size_t len)
{
	CUptiResult r;
	CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
	    CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
	ev.pHostObject = setup.obj;
	ev.pCounterDataImage = data;
	ev.counterDataImageSize = size;
	ev.rangeIndex = 0;
	ev.ppMetricNames = (const char **)metrics;
	ev.numMetrics = (size_t)n;
	ev.pMetricValues = values;
	if ((r = cuptiProfilerHostEvaluateToGpuValues(&ev)) != CUPTI_SUCCESS) {
		cupti_error(err, len, "evaluating the metrics", r);
		return -1;
	}
	return 0;
}

int gpuprof_profile(const struct rot_kernel *k, void *state, const char *const *metrics, int n,
		    double *values, int *npasses, char *err, size_t len)
{
	CUptiResult r;
	CUpti_RangeProfiler_Object *rp = NULL;
	uint8_t *data = NULL;
	size_t size = 0;
	void *ctx = NULL;
	int rc = -1, done = 0, pass = 0;

	if (!gpuprof_chip_name()) { /* first: asking for it initializes the profiler on its own */
		snprintf(err, len, "CUPTI cannot name the device's chip");
		return -1;
	}
	if ((r = profiler_init()) != CUPTI_SUCCESS) {
		cupti_error(err, len, "cuptiProfilerInitialize", r);
		return -1;
	}
	if (current_context(&ctx, err, len) < 0 || profile_setup(ctx, metrics, n, err, len) < 0 ||
	    range_enable(ctx, &rp, err, len) < 0 ||
	    counter_data(rp, metrics, n, &data, &size, err, len) < 0 ||
	    range_config(rp, data, size, err, len) < 0)
		goto out;
	/* one range around one invocation, replayed until every pass is submitted */
	while (!done && pass < 256) {
		if (range_pass(k, state, rp, pass, &done, err, len) < 0)
			goto out;
		pass++;
	}
	if (range_decode(k, rp, data, size, err, len) < 0 ||
	    range_evaluate(data, size, metrics, n, values, err, len) < 0)
		goto out;
	*npasses = pass;
	rc = 0;
out:
	if (rp) {
		CUpti_RangeProfiler_Disable_Params dis = {
		    CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
		dis.pRangeProfilerObject = rp;
		cuptiRangeProfilerDisable(&dis);
	}
	free(data);
	profiler_deinit();
	return rc;
}
