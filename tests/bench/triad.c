/* Benchmark helper: a STREAM-convention triad as a second DRAM reference beside likwid-bench
 * (a[i] = b[i] + s * c[i], 24 bytes an element, OpenMP threads over a static split, ordinary
 * stores). usage: triad KIB PASSES: KIB the three arrays together. Prints "best_gbs X" (the
 * fastest pass: STREAM's convention) and "mean_gbs Y" (over all passes but the first:
 * likwid-bench's convention, the mean of its iterations). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[1]) * 1024 / 24 : 0;
	int passes = argc > 2 ? atoi(argv[2]) : 0;
	double *a = NULL, *b = NULL, *c = NULL, best = 0, sum = 0;
	int rc = 1;

	if (n < 1024 || passes < 2) {
		fprintf(stderr, "usage: triad KIB PASSES (KIB >= 24, PASSES >= 2)\n");
		goto out;
	}
	a = aligned_alloc(64, (size_t)n * 8);
	b = aligned_alloc(64, (size_t)n * 8);
	c = aligned_alloc(64, (size_t)n * 8);
	if (!a || !b || !c) {
		fprintf(stderr, "triad: cannot allocate %ld KiB\n", atol(argv[1]));
		goto out;
	}
#pragma omp parallel for schedule(static)
	for (long i = 0; i < n; i++) { /* first touch by the thread that uses it */
		a[i] = 0, b[i] = 1, c[i] = 2;
	}
	for (int k = 0; k < passes; k++) {
		double t0 = omp_get_wtime(), t;
#pragma omp parallel for schedule(static)
		for (long i = 0; i < n; i++)
			a[i] = b[i] + 3.0 * c[i];
		t = omp_get_wtime() - t0;
		if (best == 0 || t < best)
			best = t;
		if (k > 0)
			sum += t;
	}
	if (a[n / 2] != 7.0) {
		fprintf(stderr, "triad: wrong result %g\n", a[n / 2]);
		goto out;
	}
	printf("best_gbs %.3f\nmean_gbs %.3f\n", 24.0 * n / best / 1e9,
	       24.0 * n * (passes - 1) / sum / 1e9);
	rc = 0;
out:
	free(a);
	free(b);
	free(c);
	return rc;
}
