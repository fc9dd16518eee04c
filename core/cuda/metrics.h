/* metrics: rot's CUDA library's metrics pass (cuda/words.h's environment set): every kernel
 * launch of the program a range of CUPTI's range profiler (automatic ranges, kernel replay),
 * summed per kernel region and NVTX range (cuda/sums.c), written when the process ends. */
#ifndef ROT_CUDA_METRICS_H
#define ROT_CUDA_METRICS_H

#include "records.h"

#include <cupti.h>

/* Whether this process runs the metrics pass (the environment asks for it). */
int cudamet_asked(void);

/* Starts it: the library's callback cb subscribed to NVTX, kernel launches and context ends;
 * the output written at exit, with why when this failed. */
CUptiResult cudamet_start(CUpti_CallbackFunc cb);

/* In a process forked (without exec) after it started: nothing profiled, nothing written at
 * exit, no CUPTI called (fork's child handler). */
void cudamet_forked(void);

/* The library's callback, first: 1 when it was the metrics pass's (a launch, a context's
 * end), 0 for the rest. nvtx: the calling thread's NVTX ranges (NULL: none pushed). */
int cudamet_callback(CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data,
		     const struct cudarec_nvtx *nvtx);

#endif
