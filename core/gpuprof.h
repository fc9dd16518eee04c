/* gpuprof: the CUPTI profiler side of the measuring core (built only when a point has a GPU
 * kernel): the chip's name, metric checks on the host, range profiling of one invocation. */
#ifndef ROT_GPUPROF_H
#define ROT_GPUPROF_H

#include "kernel.h"

#include <stddef.h>
#include <stdio.h>

#include "vocabulary.h" /* GPU_MAX_METRICS */

/* The device's chip name (GH100, ...), asked once per process; NULL when CUPTI cannot tell. */
const char *gpuprof_chip_name(void);

/* Prints the device's chip name (e.g. GH100); -1 when CUPTI cannot tell. */
int gpuprof_chip(FILE *out);

/* Checks metric names for a chip (e.g. "GH100") with the CUPTI profiler host API, no device
 * needed. Writes one line per metric ("ok NAME", or "unknown NAME near1 near2 ...") and
 * "passes N" for the valid set. Returns 0 when all are known, 1 otherwise, -1 on error. */
int gpuprof_check_metrics(FILE *out, const char *chip, const char *const *metrics, int n);

/* Profiles one invocation with the CUPTI range profiler (as many passes as the metrics
 * need, reset() between them) and evaluates the metrics into values. -1 with err. */
int gpuprof_profile(const struct rot_kernel *k, void *state, const char *const *metrics, int n,
		    double *values, int *passes, char *err, size_t len);

#endif
