/* mv: a matrix-vector product y = A x in both orders, for the loop survey's tests
 * (tests/e2e/loops.t). Usage: mv N REPS. Each order is a two-level nest run REPS times (a third
 * level, the repetition, around it): 2 N^2 flops a repetition, fp64 (an FMA two). Built
 * -O2 -g: each loop's line is the line of its `for`, named in a LOOP comment the test reads. */
#include <stdio.h>
#include <stdlib.h>

static double *array(long n, double v)
{
	double *p = malloc((size_t)n * sizeof *p);
	if (!p)
		exit(1);
	for (long i = 0; i < n; i++) /* LOOP init */
		p[i] = v + (double)(i % 7);
	return p;
}

/* Row order: the inner loop walks a row of A. */
__attribute__((noinline)) static void row(const double *a, const double *x, double *y, long n,
					   long reps)
{
	for (long r = 0; r < reps; r++)		/* LOOP row.reps */
		for (long i = 0; i < n; i++) {	/* LOOP row.i */
			double s = 0;
			for (long j = 0; j < n; j++) /* LOOP row.j */
				s += a[i * n + j] * x[j];
			y[i] += s;
		}
}

/* Column order: the inner loop walks a column of A. */
__attribute__((noinline)) static void column(const double *a, const double *x, double *y, long n,
					      long reps)
{
	for (long r = 0; r < reps; r++)		/* LOOP column.reps */
		for (long j = 0; j < n; j++)	/* LOOP column.j */
			for (long i = 0; i < n; i++) /* LOOP column.i */
				y[i] += a[i * n + j] * x[j];
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 500, reps = argc > 2 ? atol(argv[2]) : 1;
	double *a = array(n * n, 1), *x = array(n, 2), *y = array(n, 0);
	row(a, x, y, n, reps);
	column(a, x, y, n, reps);
	printf("%g\n", y[n - 1]);
	return 0;
}
