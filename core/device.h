/* device: where a point's kernels run, as measure.c sees it: the host CPU (device_cpu.c) or a
 * CUDA GPU (device_gpu.c, the one file that knows whether this core was built with CUDA). */
#ifndef ROT_DEVICE_H
#define ROT_DEVICE_H

#include "measure.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One workload thread's share of a timed run. */
struct device_timing {
	uint64_t t0, t1;  /* CLOCK_MONOTONIC_RAW ns at its start and end */
	uint64_t c0, c1;  /* the TSC at its start and end (0: none) */
	long vcsw, ivcsw; /* its voluntary and involuntary context switches */
	int cpu0, cpu1;	  /* the CPU it started and ended on */
};

struct device {
	const char *name;
	/* 1: cold mode and flush rules evict the host's caches (flush.c); 0: the device flushes
	 * its own in before_run */
	int host_caches;
	/* Checks that the point can run here and writes the device's meta lines. 0, or -1 after
	 * writing the failure (failure_write_error). */
	int (*prepare)(struct point *p, FILE *out);
	/* Times reps invocations by thread `index` of workload w into t. 0, or -1 with err: the
	 * kernel failed. Runs in the workload's thread. */
	int (*time)(struct workload *w, int index, long reps, struct device_timing *t, char *err,
		    size_t len);
	/* Before timed run `run`: the flushes cold mode and the point's rules ask for (bufs: the
	 * kernels' buffers). Returns the flushes the rules made, or -1 with err. */
	int (*before_run)(struct point *p, int run, const struct rot_buffer *bufs, int nbufs,
			  char *err, size_t len);
	/* After the timed runs (the GPU's profiling), or NULL. 0, or -1 after writing the
	 * failure. */
	int (*after_runs)(struct point *p, FILE *out);
};

extern const struct device device_cpu, device_gpu;

/* The rot-core commands a device adds (the GPU's --chip, --device, --metrics): 1 with *rc
 * set when argv is one of them, 0 otherwise. */
int device_command(int argc, char **argv, int *rc);

#endif
