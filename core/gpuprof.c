/* gpuprof: the CUPTI profiler side of the measuring core (built only when a point has a GPU
 * kernel): the chip's name, metric checks on the host, range profiling of one invocation. */

/*
 * The range-profiler steps are gpurange.c's (NVIDIA's sample range_profiling, step by step).
 * Here: a user range around the one launch, user replay, 1 range a pass, until
 * isAllPassSubmitted; the one range's name checked before it is evaluated. Differences from
 * the sample: the context is the runtime's primary one (the core never links libcuda); the
 * kernel's reset() restores its inputs before every replayed pass; a child that measures many
 * points (a shared child) asks for the chip name once and keeps the host object and config
 * image (host side, no device needed) while the metric list stays the same; initialize,
 * enable ... disable, deinitialize stay around each profiling, so no timed run sees an
 * initialized profiler.
 */
#include "gpuprof.h"
#include "gpurange.h"
#include "strdist.h"

#include <cuda_runtime_api.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *gpuprof_chip_name(void)
{
	return gpurange_chip(0);
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

int gpuprof_check_metrics(FILE *out, const char *chip, const char *const *metrics, int n)
{
	CUpti_Profiler_Host_Object *obj;
	char err[512];
	uint8_t *image = NULL;
	size_t size, passes;
	int bad = 0, rc = -1;
	if (gpurange_host(chip, NULL, &obj, err, sizeof err) < 0) {
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
		if (gpurange_config(obj, metrics, n, &image, &size, &passes, err, sizeof err) < 0) {
			fprintf(out, "error %s\n", err);
			goto out;
		}
		fprintf(out, "passes %zu\n", passes);
	}
	rc = bad;
out:
	free(image);
	gpurange_host_free(obj);
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
		gpurange_host_free(setup.obj);
	free(setup.config);
	memset(&setup, 0, sizeof setup);
}

static int profile_setup(void *ctx, const char *const *metrics, int n, char *err, size_t len)
{
	char key[sizeof setup.key];
	size_t at = 0;
	uint8_t *avail = NULL;
	int rc = -1;
	key[0] = '\0';
	for (int i = 0; i < n && at < sizeof key; i++)
		at += (size_t)snprintf(key + at, sizeof key - at, "%s,", metrics[i]);
	if (setup.obj && strcmp(key, setup.key) == 0)
		return 0;
	setup_clear();
	if (gpurange_availability(ctx, &avail, err, len) < 0 ||
	    gpurange_host(gpuprof_chip_name(), avail, &setup.obj, err, len) < 0)
		goto out;
	if (gpurange_config(setup.obj, metrics, n, &setup.config, &setup.config_size, &setup.passes,
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
		gpurange_error(err, len, "starting a profiling pass", r);
		return -1;
	}
	k->run(state);
	cudaDeviceSynchronize();
	if ((r = cuptiRangeProfilerPopRange(&po)) != CUPTI_SUCCESS ||
	    (r = cuptiRangeProfilerStop(&sq)) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "ending a profiling pass", r);
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
	size_t n = 0, dropped = 0;
	if (gpurange_decode(rp, &dropped, err, len) < 0 ||
	    gpurange_ranges(data, size, &n, err, len) < 0)
		return -1;
	const char *name = n == 1 ? gpurange_range_name(data, size, 0) : NULL;
	if (n != 1 || !name || strcmp(name, k->name) != 0) {
		snprintf(err, len,
			 "the profiler recorded %zu range(s) (first '%s'), not the one range '%s'",
			 n, name ? name : "?", k->name);
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
	if ((r = gpurange_init()) != CUPTI_SUCCESS) {
		gpurange_error(err, len, "cuptiProfilerInitialize", r);
		return -1;
	}
	if (current_context(&ctx, err, len) < 0 || profile_setup(ctx, metrics, n, err, len) < 0 ||
	    gpurange_enable(ctx, &rp, err, len) < 0 ||
	    gpurange_counter_data(rp, metrics, n, 1, &data, &size, err, len) < 0 ||
	    gpurange_set_config(rp, setup.config, setup.config_size, data, size, CUPTI_UserRange,
				CUPTI_UserReplay, 1, err, len) < 0)
		goto out;
	/* one range around one invocation, replayed until every pass is submitted */
	while (!done && pass < 256) {
		if (range_pass(k, state, rp, pass, &done, err, len) < 0)
			goto out;
		pass++;
	}
	if (range_decode(k, rp, data, size, err, len) < 0 ||
	    gpurange_evaluate(setup.obj, data, size, 0, metrics, n, values, err, len) < 0)
		goto out;
	*npasses = pass;
	rc = 0;
out:
	if (rp)
		gpurange_disable(rp);
	free(data);
	gpurange_deinit();
	return rc;
}
