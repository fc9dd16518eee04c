/* nested: a multithreaded OpenMP program with nested marked regions (rot's tests): "outer"
 * around a parallel loop in the main thread, "inner" inside the parallel region in every
 * thread, each declaring the work it does. Usage: nested N REPS. Built with -DSWEEPS=2, each
 * region does (and declares) twice the work: a slower build of the same program. */
#include <rot/markers.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef SWEEPS
#define SWEEPS 1
#endif

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, reps = argc > 2 ? atol(argv[2]) : 10;
	double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b), s = 0;
	if (!a || !b)
		return 1;
	for (long i = 0; i < n; i++)
		a[i] = 1.0, b[i] = (double)i;
	for (long r = 0; r < reps; r++) {
		rot_region_begin("outer");
		rot_region_work(2.0 * SWEEPS * (double)n, 24.0 * SWEEPS * (double)n);
#pragma omp parallel reduction(+ : s)
		{
			rot_region_begin("inner");
			for (int w = 0; w < SWEEPS; w++) {
#pragma omp for
				for (long i = 0; i < n; i++) {
					a[i] = a[i] + 0.5 * b[i];
					s += a[i];
				}
			}
			rot_region_end("inner");
		}
		rot_region_end("outer");
	}
	printf("sum %g\n", s);
	free(a);
	free(b);
	return 0;
}
