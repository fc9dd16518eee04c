/* sums: the metrics pass of rot's CUDA library with no CUPTI in it: each launch attributed when
 * it is made (its kernel region, the NVTX ranges open on its thread), each profiled range's
 * values summed into them, the sums written as cuda/words.h declares. */
#ifndef ROT_CUDA_SUMS_H
#define ROT_CUDA_SUMS_H

#include "../vocabulary.h" /* GPU_MAX_METRICS */
#include "records.h"

#include <stdint.h>
#include <stdio.h>

#define CUDAMET_REGIONS 512 /* kernel regions, and NVTX ranges, a process sums */

/* A region's sums: its launches profiled, each metric's values summed over them. */
struct cudamet_region {
	char name[ROT_ARENA_NAME];
	uint64_t launches;
	double v[GPU_MAX_METRICS];
};

/* A launch made and not yet profiled: its kernel (mangled, and its region), the distinct NVTX
 * ranges open on its thread. */
struct cudamet_launch {
	char mangled[ROT_ARENA_NAME];
	int kernel, nranges;
	int range[CUDAREC_DEPTH];
	int done; /* given its range, in this batch */
};

struct cudamet {
	int n; /* metrics */
	struct cudamet_region kernels[CUDAMET_REGIONS], ranges[CUDAMET_REGIONS];
	int nkernels, nranges;
	struct cudamet_launch *log; /* launch order: range i of a batch is launch i */
	size_t nlog, cap;
	uint64_t unprofiled, unattributed, mismatched;
	char mismatch[2][ROT_ARENA_NAME]; /* the first: range, kernel */
	size_t passes;
	char error[512];
};

/* Starts m for n metrics (at most GPU_MAX_METRICS): 0, or -1. */
int cudamet_init(struct cudamet *m, int n);
void cudamet_free(struct cudamet *m);

/* A launch of kernel region `name` (cuda/records.h's name of it; mangled: the kernel's own)
 * with t the launching thread's NVTX ranges (NULL: none). Returns the launches awaiting their
 * ranges, or -1 when it found no room (counted unprofiled). The caller serializes calls. */
long cudamet_launch(struct cudamet *m, const char *name, const char *mangled,
		    const struct cudarec_nvtx *t);

/* Range i of a batch (the i-th launch since the last batch): its name (NULL: not told) and
 * each metric's value. 0, or -1 when it cannot be read. */
typedef int (*cudamet_values)(void *ctx, size_t i, const char **name, double *values);

/* A batch of `ranges` profiled ranges read through get, each one's values added to its
 * launch's kernel region and to every range open at it. As many ranges as launches logged:
 * range i is launch i, until a range's name is not its launch's kernel but a later launch's.
 * From there, and where the numbers differ, a range is the first launch left whose kernel its
 * name is; the others are counted unattributed, the launches left unprofiled. A range named
 * unlike its launch and every other is its launch's still, and counted mismatched. Clears the log.
 * 0, or -1 when get failed (the launches left counted unprofiled). */
int cudamet_batch(struct cudamet *m, size_t ranges, cudamet_values get, void *ctx);

/* Launches not profiled (after an error, in another context): counted, with those logged. */
void cudamet_drop(struct cudamet *m, uint64_t launches);

/* Writes the output: the magic, the metrics, the chip, the sums, the losses, end. */
void cudamet_write(FILE *out, const struct cudamet *m, const char *const *metrics,
		   const char *chip);

#endif
