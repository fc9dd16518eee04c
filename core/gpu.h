/* gpu: the CUDA side of the measuring core (built only when a point has a GPU kernel):
 * device checks and properties, event timing, L2 flushing, CUPTI metrics and profiling. */
#ifndef ROT_GPU_H
#define ROT_GPU_H

#include "kernel.h"

#include <stddef.h>
#include <stdio.h>

#define GPU_MAX_METRICS 64

/* 0 when a CUDA device can be used; -1 with "no CUDA device: ..." in err. */
int gpu_available(char *err, size_t len);

/* Writes `meta` lines: device name, chip, SMs, clocks, memory, L2, versions. */
void gpu_info(FILE *out);

/* Launches reps invocations between two CUDA events and waits; returns their elapsed ns
 * (or -1 with err set). */
double gpu_time(const struct rot_kernel *k, void *state, long reps, char *err, size_t len);

/* Evicts L2 by writing a scratch buffer twice its size; waits for it. */
int gpu_flush_l2(char *err, size_t len);

/* Prints "device NAME, N SMs, cc X.Y, driver V": what identifies the device in a result. */
int gpu_identity(FILE *out);

/* Prints the device's chip name (e.g. GH100); -1 when CUPTI cannot tell. */
int gpu_chip(FILE *out);

/* Checks metric names for a chip (e.g. "GH100") with the CUPTI profiler host API, no device
 * needed. Writes one line per metric ("ok NAME", or "unknown NAME near1 near2 ...") and
 * "passes N" for the valid set. Returns 0 when all are known, 1 otherwise, -1 on error. */
int gpu_check_metrics(FILE *out, const char *chip, const char *const *metrics, int n);

/* Profiles one invocation with the CUPTI range profiler (as many passes as the metrics
 * need, reset() between them) and evaluates the metrics into values. -1 with err. */
int gpu_profile(const struct rot_kernel *k, void *state, const char *const *metrics, int n,
		double *values, int *passes, char *err, size_t len);

#endif
