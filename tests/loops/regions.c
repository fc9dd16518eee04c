/* regions: loops in and out of marked regions, for the loop survey's nesting (tests/e2e/survey.t
 * and loops.t). Usage: regions N REPS. Over N doubles, REPS times each: in region "first" a
 * scaled add (2 flops an element), in region "second" a product and a scaled add (3), outside
 * every region a scaled subtraction from x (2), and a sum (1) run once in "second" and twice
 * outside. Built -O2 -g with rot's markers, each inner loop is a row of the survey, nested
 * under its region: first.i 2 N REPS flops, second.i 3 N REPS, outside.i 2 N REPS; shared.i
 * split, N REPS in "second" and 2 N REPS outside. */
#include <rot/markers.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void first(double *y, const double *x, long n, long reps)
{
	for (long r = 0; r < reps; r++)	     /* LOOP first.reps */
		for (long i = 0; i < n; i++) /* LOOP first.i */
			y[i] = 0.5 * y[i] + x[i];
}

__attribute__((noinline)) static void second(double *y, const double *x, long n, long reps)
{
	for (long r = 0; r < reps; r++)	     /* LOOP second.reps */
		for (long i = 0; i < n; i++) /* LOOP second.i */
			y[i] = y[i] * x[i] + 1.5 * x[i];
}

__attribute__((noinline)) static void outside(double *y, const double *x, long n, long reps)
{
	for (long r = 0; r < reps; r++)	     /* LOOP outside.reps */
		for (long i = 0; i < n; i++) /* LOOP outside.i */
			y[i] = x[i] - 0.125 * y[i];
}

__attribute__((noinline)) static void shared(double *y, const double *x, long n, long reps)
{
	for (long r = 0; r < reps; r++)	     /* LOOP shared.reps */
		for (long i = 0; i < n; i++) /* LOOP shared.i */
			y[i] += x[i];
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000, reps = argc > 2 ? atol(argv[2]) : 1000;
	double *x = calloc((size_t)n, sizeof *x), *y = calloc((size_t)n, sizeof *y);
	if (!x || !y)
		return 1;
	for (long i = 0; i < n; i++)
		x[i] = 1.0 / (double)(i + 1);
	rot_region_begin("first");
	first(y, x, n, reps);
	rot_region_end("first");
	outside(y, x, n, reps);
	shared(y, x, n, reps);
	rot_region_begin("second");
	second(y, x, n, reps);
	shared(y, x, n, reps);
	rot_region_end("second");
	shared(y, x, n, reps);
	printf("%g\n", y[n - 1]);
	return 0;
}
