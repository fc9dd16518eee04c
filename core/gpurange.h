/* gpurange: the CUPTI range profiler's steps that both of rot's GPU profilers take (the GPU
 * core's gpuprof.c, one kernel's invocation; the CUDA library's cuda/metrics.c, every launch of
 * a program): the profiler's life, the host object and config image of a metric list, the
 * range profiler on a context, its counter data, the ranges decoded and evaluated. */
#ifndef ROT_GPURANGE_H
#define ROT_GPURANGE_H

/* cupti_profiler_host.h includes the C++ header <string>: core/shim/ holds an empty file of
 * that name, found before the CUDA include path, so the header also compiles as C. */
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <stddef.h>
#include <stdint.h>

/* CUPTI's failure r of step `what` into err, with the hint for a driver that keeps profiling
 * to administrators. */
void gpurange_error(char *err, size_t len, const char *what, CUptiResult r);

/* cuptiProfilerInitialize and its undoing: around what needs the profiler, no more. */
CUptiResult gpurange_init(void);
void gpurange_deinit(void);

/* The chip name (GH100, ...) of device index dev, asked once per process (the profiler
 * initialized for it); NULL when CUPTI cannot tell. */
const char *gpurange_chip(uint32_t dev);

/* A host object for a chip (avail: the context's counter availability image, or NULL for
 * the host alone): 0, or -1 with err. */
int gpurange_host(const char *chip, const uint8_t *avail, CUpti_Profiler_Host_Object **obj,
		  char *err, size_t len);
void gpurange_host_free(CUpti_Profiler_Host_Object *obj);

/* The counter availability image of ctx (*avail, malloc'ed): 0, or -1 with err. */
int gpurange_availability(CUcontext ctx, uint8_t **avail, char *err, size_t len);

/* The config image of n metrics on obj (*image, malloc'ed, of *size bytes) and the passes it
 * takes: 0, or -1 with err (*image freed by the caller either way). */
int gpurange_config(CUpti_Profiler_Host_Object *obj, const char *const *metrics, int n,
		    uint8_t **image, size_t *size, size_t *passes, char *err, size_t len);

/* The range profiler enabled on ctx (*rp), and disabled. */
int gpurange_enable(CUcontext ctx, CUpti_RangeProfiler_Object **rp, char *err, size_t len);
void gpurange_disable(CUpti_RangeProfiler_Object *rp);

/* A counter data image for n metrics and `ranges` ranges (as many range-tree nodes),
 * initialized: *data (malloc'ed: the caller frees it, also after an error) of *size bytes. */
int gpurange_counter_data(CUpti_RangeProfiler_Object *rp, const char *const *metrics, int n,
			  size_t ranges, uint8_t **data, size_t *size, char *err, size_t len);

/* The range profiler's configuration: the config image, the counter data, the range and
 * replay modes, `ranges` ranges a pass, 1 nesting level (the first), pass 0. */
int gpurange_set_config(CUpti_RangeProfiler_Object *rp, const uint8_t *config, size_t csize,
			uint8_t *data, size_t size, CUpti_ProfilerRange range,
			CUpti_ProfilerReplayMode replay, size_t ranges, char *err, size_t len);

/* The profiled data decoded into the counter data; *dropped: ranges that found no room. */
int gpurange_decode(CUpti_RangeProfiler_Object *rp, size_t *dropped, char *err, size_t len);

/* The ranges the counter data holds: 0 with *n, or -1 with err. */
int gpurange_ranges(const uint8_t *data, size_t size, size_t *n, char *err, size_t len);

/* Range i's name (nested ones joined by "/"), or NULL. */
const char *gpurange_range_name(const uint8_t *data, size_t size, size_t i);

/* The n metrics' values in range i, with the host object that made the config. */
int gpurange_evaluate(CUpti_Profiler_Host_Object *obj, uint8_t *data, size_t size, size_t i,
		      const char *const *metrics, int n, double *values, char *err, size_t len);

#endif
