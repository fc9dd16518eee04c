/* stencil: a 2-D five-point Jacobi stencil under a time loop, for the loop survey's tests
 * (tests/e2e/loops.t). Usage: stencil N STEPS. Each step sweeps the (N-2)^2 inner points of an
 * N x N grid (a quarter of four neighbours: 4 flops a point, fp64) and swaps the grids: 4 (N-2)^2
 * STEPS flops in the sweep's inner loop. Built -O2 -g: each loop's line is the line of its
 * `for`, named in a LOOP comment the test reads. */
#include <stdio.h>
#include <stdlib.h>

static double *grid(long n)
{
	double *p = calloc((size_t)(n * n), sizeof *p);
	if (!p)
		exit(1);
	for (long i = 0; i < n; i++) /* LOOP grid */
		p[i] = 1;	     /* a hot edge */
	return p;
}

__attribute__((noinline)) static void sweep(const double *u, double *v, long n)
{
	for (long i = 1; i < n - 1; i++)     /* LOOP sweep.i */
		for (long j = 1; j < n - 1; j++) /* LOOP sweep.j */
			v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
					       u[i * n + j - 1] + u[i * n + j + 1]);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200, steps = argc > 2 ? atol(argv[2]) : 10;
	double *u = grid(n), *v = grid(n);
	for (long t = 0; t < steps; t++) { /* LOOP time */
		sweep(u, v, n);
		double *w = u;
		u = v;
		v = w;
	}
	printf("%g\n", u[n + 1]);
	return 0;
}
