/* nest: a two-level nest whose inner loop is an inlined helper's, for the loop survey's tests
 * (tests/e2e/loops.t). Usage: nest N M. The outer loop runs N times; each time the helper, inlined
 * (static inline, always), scales and sums M doubles: 2 M flops (a multiply, an add), fp64, so
 * 2 N M flops in the helper's loop and N more (the outer loop's add) in the outer one. Built
 * -O2 -g: the inner loop's line is the helper's `for` (in this file, inlined into main's nest). */
#include <stdio.h>
#include <stdlib.h>

static inline __attribute__((always_inline)) double dot_scaled(const double *x, long m, double s)
{
	double t = 0;
	for (long j = 0; j < m; j++) /* LOOP helper */
		t += s * x[j];
	return t;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, m = argc > 2 ? atol(argv[2]) : 1000;
	double *x = malloc((size_t)m * sizeof *x), sum = 0;
	if (!x)
		return 1;
	for (long j = 0; j < m; j++) /* LOOP init */
		x[j] = (double)(j % 5);
	for (long i = 0; i < n; i++) /* LOOP outer */
		sum += dot_scaled(x, m, (double)i);
	printf("%g\n", sum);
	return 0;
}
