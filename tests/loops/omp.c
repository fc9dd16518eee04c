/* omp: an OpenMP loop, for the loop survey's tests (tests/e2e/survey.t). Usage: omp N REPS.
 * REPS times, a parallel loop over N doubles adds a scaled x to y (2 flops an element, fp64):
 * 2 N REPS flops over all threads, in one loop of the outlined function. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, reps = argc > 2 ? atol(argv[2]) : 100;
	double *x = calloc((size_t)n, sizeof *x), *y = calloc((size_t)n, sizeof *y);
	if (!x || !y)
		return 1;
	for (long r = 0; r < reps; r++) {
#pragma omp parallel for schedule(static)
		for (long i = 0; i < n; i++) /* LOOP omp */
			y[i] = 0.5 * y[i] + x[i];
	}
	printf("%g\n", y[n - 1]);
	return 0;
}
