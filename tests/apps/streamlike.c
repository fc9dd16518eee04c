/* streamlike: rot's own program with STREAM's four loops, byte counts, timer and report (John
 * McCalpin's STREAM, rewritten, not copied), each loop a marked region declaring STREAM's bytes
 * in the passes STREAM's statistics count (all but the first): how the tests hold rot's
 * per-region bandwidths to a program's own printed rates. Usage: streamlike N (elements per
 * array; NTIMES passes; OpenMP threads from OMP_NUM_THREADS) */
#include <rot/markers.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#define NTIMES 10

static double now(void) /* STREAM's mysecond: gettimeofday */
{
	struct timeval tp;
	gettimeofday(&tp, NULL);
	return (double)tp.tv_sec + (double)tp.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
	double *c = malloc((size_t)n * sizeof *c), scalar = 3.0, t[4][NTIMES];
	const char *label[4] = {"Copy:      ", "Scale:     ", "Add:       ", "Triad:     "};
	const char *region[4] = {"Copy", "Scale", "Add", "Triad"};
	double bytes[4] = {16.0 * (double)n, 16.0 * (double)n, 24.0 * (double)n, 24.0 * (double)n};
	double flops[4] = {0, (double)n, (double)n, 2.0 * (double)n};
	if (!a || !b || !c)
		return 1;
#pragma omp parallel for
	for (long j = 0; j < n; j++)
		a[j] = 1.0, b[j] = 2.0, c[j] = 0.0;
	for (int k = 0; k < NTIMES; k++) {
		for (int f = 0; f < 4; f++) {
			t[f][k] = now();
			if (k > 0)
				rot_region_begin(region[f]);
			if (f == 0) {
#pragma omp parallel for
				for (long j = 0; j < n; j++)
					c[j] = a[j];
			} else if (f == 1) {
#pragma omp parallel for
				for (long j = 0; j < n; j++)
					b[j] = scalar * c[j];
			} else if (f == 2) {
#pragma omp parallel for
				for (long j = 0; j < n; j++)
					c[j] = a[j] + b[j];
			} else {
#pragma omp parallel for
				for (long j = 0; j < n; j++)
					a[j] = b[j] + scalar * c[j];
			}
			if (k > 0) {
				rot_region_work(flops[f], bytes[f]);
				rot_region_written(bytes[f] / (f < 2 ? 2.0 : 3.0)); /* one array */
				rot_region_working_set(3.0 * 8.0 * (double)n);
				rot_region_end(region[f]);
			}
			t[f][k] = now() - t[f][k];
		}
	}
	printf("Function    Best Rate MB/s  Avg time     Min time     Max time\n");
	for (int f = 0; f < 4; f++) { /* the first pass left out, as STREAM does */
		double avg = 0, min = FLT_MAX, max = 0;
		for (int k = 1; k < NTIMES; k++) {
			avg += t[f][k];
			min = t[f][k] < min ? t[f][k] : min;
			max = t[f][k] > max ? t[f][k] : max;
		}
		printf("%s%12.1f  %11.6f  %11.6f  %11.6f\n", label[f], 1e-6 * bytes[f] / min,
		       avg / (NTIMES - 1), min, max);
	}
	free(a);
	free(b);
	free(c);
	return 0;
}
