/* phase: an OpenMP time loop marked as one phase region, "timestep loop", begun and ended in
 * serial code around its parallel loops (rot's tests): rot takes the whole process's work while
 * it is open. The program times the loop itself too and prints it ("loop S s"), and a checksum.
 * Usage: phase N STEPS. Each step reads x and y and writes y: 3 flops and 24 bytes an element. */
#include <rot/markers.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, steps = argc > 2 ? atol(argv[2]) : 20;
	double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y), s = 0;
	if (!x || !y)
		return 1;
	for (long i = 0; i < n; i++)
		x[i] = 1.0, y[i] = (double)i;
	double t0 = now();
	rot_region_begin("timestep loop");
	for (long st = 0; st < steps; st++) {
#pragma omp parallel for reduction(+ : s)
		for (long i = 0; i < n; i++) {
			y[i] += 0.5 * x[i];
			s += y[i];
		}
	}
	rot_region_work(3.0 * (double)n * (double)steps, 24.0 * (double)n * (double)steps);
	rot_region_written(8.0 * (double)n * (double)steps);
	rot_region_end("timestep loop");
	double t1 = now();
	printf("loop %.9f s\nsum %g\n", t1 - t0, s);
	free(x);
	free(y);
	return 0;
}
