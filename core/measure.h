/* measure: what the traced child does for one point: initialize the kernel, bring caches
 * to the asked state, time runs until the best-k rule is met, and write the raw outputs. */
#ifndef ROT_MEASURE_H
#define ROT_MEASURE_H

#include "bestk.h"
#include "registry.h"

#include <stdio.h>

struct point {
	struct rot_args args;
	struct bestk rule;
	double min_run_time; /* warm mode: seconds one timed run should last at least */
	int cold;
	double timeout;
};

/* Writes `meta` and `run` lines to out. Returns 0, or -1 after writing an `error` line. */
int measure_point(const struct point *p, FILE *out);

#endif
