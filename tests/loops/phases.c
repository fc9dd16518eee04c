/* phases: two loops, each marked as a region, for the loop survey's tests (tests/e2e/survey.t).
 * Usage: phases N REPS. A scaled add over N doubles (2 flops an element, fp64) runs 3 REPS times
 * in phase_short, in region "short", and 7 REPS times in phase_long (another scale, so that the
 * compiler keeps both), in region "long": about 30 % and 70 % of the program's time. Built -O2 -g
 * with rot's markers: the survey's rows of the two inner loops take the regions' time and
 * counted flops (2 N 3 REPS and 2 N 7 REPS). */
#include <rot/markers.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void phase_short(double *y, const double *x, long n, long reps)
{
	for (long r = 0; r < reps; r++)	     /* LOOP short.reps */
		for (long i = 0; i < n; i++) /* LOOP short.i */
			y[i] = 0.5 * y[i] + x[i];
}

__attribute__((noinline)) static void phase_long(double *y, const double *x, long n, long reps)
{
	for (long r = 0; r < reps; r++)	     /* LOOP long.reps */
		for (long i = 0; i < n; i++) /* LOOP long.i */
			y[i] = 0.25 * y[i] + x[i];
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000, reps = argc > 2 ? atol(argv[2]) : 1000;
	double *x = calloc((size_t)n, sizeof *x), *y = calloc((size_t)n, sizeof *y);
	if (!x || !y)
		return 1;
	rot_region_begin("short");
	phase_short(y, x, n, 3 * reps);
	rot_region_end("short");
	rot_region_begin("long");
	phase_long(y, x, n, 7 * reps);
	rot_region_end("long");
	printf("%g\n", y[n - 1]);
	return 0;
}
