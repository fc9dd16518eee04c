/* Benchmark helper: the machine's own minimum for the stable test kernel, without rot: the same
 * spin() chain (tests/core/kernels/common.h), timed as rot times a warm point (a run repeats the
 * call until it lasts 1 ms; the fastest of RUNS runs, per call). usage: spin N RUNS; prints
 * "min_s X", the fastest run's time per call. Before timing, 20 ms of the chain (rot's child
 * is busy before its first timed run too). Built with the kernels' default -O2. */
#define _GNU_SOURCE
#include "common.h"
#include "timer.h"

#include <stdio.h>
#include <time.h>

/* one call of the chain, never inlined: the loop below cannot hoist it out (rot calls the
 * kernel's run() through a pointer) */
static __attribute__((noinline)) void call(long n)
{
	spin(n);
}

/* seconds, from the clock rot's core times with (core/timer.h) */
static double now(void)
{
	return (double)timer_ns() * 1e-9;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[1]) : 0;
	int runs = argc > 2 ? atoi(argv[2]) : 0;
	double best = 0;

	if (n < 1 || runs < 1) {
		fprintf(stderr, "usage: spin N RUNS (N, RUNS >= 1)\n");
		return 1;
	}
	for (double t0 = now(); now() - t0 < 20e-3;) /* the core busy first, as rot's child is */
		call(n);
	long reps = 1;
	for (double t0 = now(); call(n), now() - t0 < 1e-3; reps++) /* calls in 1 ms */
		;
	for (int r = 0; r < runs; r++) {
		double t0 = now();
		for (long i = 0; i < reps; i++)
			call(n);
		double t = (now() - t0) / (double)reps;
		best = r == 0 || t < best ? t : best;
	}
	printf("min_s %.9g\n", best);
	return 0;
}
