/* gpurange: the CUPTI range profiler's steps that both of rot's GPU profilers take (the GPU
 * core's gpuprof.c, one kernel's invocation; the CUDA library's cuda/metrics.c, every launch of
 * a program): the profiler's life, the host object and config image of a metric list, the
 * range profiler on a context, its counter data, the ranges decoded and evaluated. */

/*
 * The steps follow NVIDIA's CUPTI sample range_profiling (range_profiling.cu and
 * range_profiling.h, as shipped with the CUPTI of CUDA 12.6 to 13.0): cuptiProfilerInitialize
 * before anything else of the profiler, the chip name among it; counter availability (size,
 * then image); host object and config image (add metrics, image size, image, passes); enable
 * on the context; counter-data image (size for the metrics and ranges; initialize); set
 * config; decode; the ranges counted (GetCounterDataInfo) and named (GetRangeInfo with "/")
 * before they are evaluated; disable, host deinitialize, cuptiProfilerDeInitialize.
 */
#include "gpurange.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *cupti_str(CUptiResult r)
{
	const char *s = NULL;
	cuptiGetResultString(r, &s);
	return s ? s : "unknown CUPTI error";
}

void gpurange_error(char *err, size_t len, const char *what, CUptiResult r)
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

CUptiResult gpurange_init(void)
{
	CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
	return cuptiProfilerInitialize(&pi);
}

void gpurange_deinit(void)
{
	CUpti_Profiler_DeInitialize_Params pd = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
	cuptiProfilerDeInitialize(&pd);
}

/* cuptiDeviceGetChipName needs the profiler initialized first: called alone it crashes inside
 * libcupti (seen on an H100 with CUPTI 2025.3). */
const char *gpurange_chip(uint32_t dev)
{
	static char chip[64];
	static uint32_t of;
	if ((!chip[0] || of != dev) && gpurange_init() == CUPTI_SUCCESS) {
		CUpti_Device_GetChipName_Params cp = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
		cp.deviceIndex = dev;
		chip[0] = '\0';
		if (cuptiDeviceGetChipName(&cp) == CUPTI_SUCCESS && cp.pChipName)
			snprintf(chip, sizeof chip, "%s", cp.pChipName);
		of = dev;
		gpurange_deinit();
	}
	return chip[0] ? chip : NULL;
}

int gpurange_host(const char *chip, const uint8_t *avail, CUpti_Profiler_Host_Object **obj,
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
		gpurange_error(err, len, what, r);
		return -1;
	}
	*obj = ip.pHostObject;
	return 0;
}

void gpurange_host_free(CUpti_Profiler_Host_Object *obj)
{
	CUpti_Profiler_Host_Deinitialize_Params dp = {
	    CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
	dp.pHostObject = obj;
	cuptiProfilerHostDeinitialize(&dp);
}

int gpurange_availability(CUcontext ctx, uint8_t **avail, char *err, size_t len)
{
	CUptiResult r;
	CUpti_Profiler_GetCounterAvailability_Params ap = {
	    CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
	ap.ctx = ctx;
	*avail = NULL;
	if ((r = cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "counter availability", r);
		return -1;
	}
	*avail = malloc(ap.counterAvailabilityImageSize);
	ap.pCounterAvailabilityImage = *avail;
	if (!*avail || (r = cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "counter availability image", r);
		free(*avail);
		*avail = NULL;
		return -1;
	}
	return 0;
}

int gpurange_config(CUpti_Profiler_Host_Object *obj, const char *const *metrics, int n,
		    uint8_t **image, size_t *size, size_t *passes, char *err, size_t len)
{
	CUpti_Profiler_Host_ConfigAddMetrics_Params ap = {
	    CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
	ap.pHostObject = obj;
	ap.ppMetricNames = (const char **)metrics;
	ap.numMetrics = (size_t)n;
	CUptiResult r = cuptiProfilerHostConfigAddMetrics(&ap);
	if (r != CUPTI_SUCCESS) {
		gpurange_error(err, len, "adding the metrics to the configuration", r);
		return -1;
	}
	CUpti_Profiler_Host_GetConfigImageSize_Params sp = {
	    CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
	sp.pHostObject = obj;
	if ((r = cuptiProfilerHostGetConfigImageSize(&sp)) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "config image size", r);
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
		gpurange_error(err, len, "config image", r);
		return -1;
	}
	CUpti_Profiler_Host_GetNumOfPasses_Params np = {
	    CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
	np.configImageSize = sp.configImageSize;
	np.pConfigImage = *image;
	if ((r = cuptiProfilerHostGetNumOfPasses(&np)) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "number of passes", r);
		return -1;
	}
	*passes = np.numOfPasses;
	return 0;
}

int gpurange_enable(CUcontext ctx, CUpti_RangeProfiler_Object **rp, char *err, size_t len)
{
	CUptiResult r;
	CUpti_RangeProfiler_Enable_Params ep = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
	ep.ctx = ctx;
	if ((r = cuptiRangeProfilerEnable(&ep)) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "enabling the range profiler", r);
		return -1;
	}
	*rp = ep.pRangeProfilerObject;
	return 0;
}

void gpurange_disable(CUpti_RangeProfiler_Object *rp)
{
	CUpti_RangeProfiler_Disable_Params dis = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
	dis.pRangeProfilerObject = rp;
	cuptiRangeProfilerDisable(&dis);
}

int gpurange_counter_data(CUpti_RangeProfiler_Object *rp, const char *const *metrics, int n,
			  size_t ranges, uint8_t **data, size_t *size, char *err, size_t len)
{
	CUptiResult r;
	CUpti_RangeProfiler_GetCounterDataSize_Params sp = {
	    CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
	sp.pRangeProfilerObject = rp;
	sp.pMetricNames = (const char **)metrics;
	sp.numMetrics = (size_t)n;
	sp.maxNumOfRanges = ranges;
	sp.maxNumRangeTreeNodes = (uint32_t)ranges;
	if ((r = cuptiRangeProfilerGetCounterDataSize(&sp)) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "counter data size", r);
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
		gpurange_error(err, len, "counter data image", r);
		return -1;
	}
	return 0;
}

int gpurange_set_config(CUpti_RangeProfiler_Object *rp, const uint8_t *config, size_t csize,
			uint8_t *data, size_t size, CUpti_ProfilerRange range,
			CUpti_ProfilerReplayMode replay, size_t ranges, char *err, size_t len)
{
	CUptiResult r;
	CUpti_RangeProfiler_SetConfig_Params cfg = {
	    CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
	cfg.pRangeProfilerObject = rp;
	cfg.configSize = csize;
	cfg.pConfig = config;
	cfg.counterDataImageSize = size;
	cfg.pCounterDataImage = data;
	cfg.range = range;
	cfg.replayMode = replay;
	cfg.maxRangesPerPass = ranges;
	cfg.numNestingLevels = 1;
	cfg.minNestingLevel = 1;
	cfg.passIndex = 0;
	cfg.targetNestingLevel = 1;
	if ((r = cuptiRangeProfilerSetConfig(&cfg)) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "range profiler configuration", r);
		return -1;
	}
	return 0;
}

int gpurange_decode(CUpti_RangeProfiler_Object *rp, size_t *dropped, char *err, size_t len)
{
	CUptiResult r;
	CUpti_RangeProfiler_DecodeData_Params dd = {
	    CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
	dd.pRangeProfilerObject = rp;
	if ((r = cuptiRangeProfilerDecodeData(&dd)) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "decoding the counter data", r);
		return -1;
	}
	*dropped = dd.numOfRangeDropped;
	return 0;
}

int gpurange_ranges(const uint8_t *data, size_t size, size_t *n, char *err, size_t len)
{
	CUptiResult r;
	CUpti_RangeProfiler_GetCounterDataInfo_Params di = {
	    CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
	di.pCounterDataImage = data;
	di.counterDataImageSize = size;
	if ((r = cuptiRangeProfilerGetCounterDataInfo(&di)) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "reading the counter data", r);
		return -1;
	}
	*n = di.numTotalRanges;
	return 0;
}

const char *gpurange_range_name(const uint8_t *data, size_t size, size_t i)
{
	CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri = {
	    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
	ri.pCounterDataImage = data;
	ri.counterDataImageSize = size;
	ri.rangeIndex = i;
	ri.rangeDelimiter = "/";
	return cuptiRangeProfilerCounterDataGetRangeInfo(&ri) == CUPTI_SUCCESS ? ri.rangeName
									       : NULL;
}

int gpurange_evaluate(CUpti_Profiler_Host_Object *obj, uint8_t *data, size_t size, size_t i,
		      const char *const *metrics, int n, double *values, char *err, size_t len)
{
	CUptiResult r;
	CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
	    CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
	ev.pHostObject = obj;
	ev.pCounterDataImage = data;
	ev.counterDataImageSize = size;
	ev.rangeIndex = i;
	ev.ppMetricNames = (const char **)metrics;
	ev.numMetrics = (size_t)n;
	ev.pMetricValues = values;
	if ((r = cuptiProfilerHostEvaluateToGpuValues(&ev)) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "evaluating the metrics", r);
		return -1;
	}
	return 0;
}
