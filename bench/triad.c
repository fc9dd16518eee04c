/* Benchmark helper: a STREAM-convention triad as a second DRAM reference beside likwid-bench
 * (a[i] = b[i] + s * c[i], 24 bytes an element, OpenMP threads over a static split). */
#define _GNU_SOURCE
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* Asks for transparent huge pages over an array's pages (thp), or for none (MADV_NOHUGEPAGE). */
static void pages(void *p, size_t bytes, int thp)
{
	uintptr_t lo = (uintptr_t)p & ~(uintptr_t)4095,
		  hi = ((uintptr_t)p + bytes + 4095) & ~(uintptr_t)4095;
	madvise((void *)lo, hi - lo, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
}

/* The KiB of this process's memory on transparent huge pages; -1 where that cannot be read. */
static long huge_kib(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long kib = -1;

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* usage: triad KIB PASSES [thp|4k]: KIB the three arrays together, each allocated apart; thp
 * (the default) asks for transparent huge pages for them, as rot's pool does for a kernel's
 * arrays (madvise MADV_HUGEPAGE), 4k for none (MADV_NOHUGEPAGE: a program whose memory the
 * system does not put on huge pages). Prints "best_gbs X" (the fastest pass: STREAM's
 * convention), "mean_gbs Y" (over all passes but the first: likwid-bench's, the mean of its
 * iterations), "first_gbs Z" (the first pass, over arrays just written by the threads that use
 * them), "median_gbs M", "slow_passes S N" (of the N passes after the first, S ran more than
 * 20 % below the median: a thread lost its CPU, or the machine paused, during it) and "huge_kib
 * H" (how much memory the kernel put on huge pages; -1 where that cannot be read). */
int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[1]) * 1024 / 24 : 0;
	int passes = argc > 2 ? atoi(argv[2]) : 0;
	int thp = argc <= 3 || strcmp(argv[3], "thp") == 0;
	double *a = NULL, *b = NULL, *c = NULL, *ts = NULL, best = 0, sum = 0, med;
	int rc = 1, slow = 0;

	if (n < 1024 || passes < 2 || (!thp && strcmp(argv[3], "4k") != 0)) {
		fprintf(stderr, "usage: triad KIB PASSES [thp|4k] (KIB >= 24, PASSES >= 2)\n");
		goto out;
	}
	a = aligned_alloc(64, (size_t)n * 8);
	b = aligned_alloc(64, (size_t)n * 8);
	c = aligned_alloc(64, (size_t)n * 8);
	ts = malloc((size_t)passes * sizeof *ts);
	if (!a || !b || !c || !ts) {
		fprintf(stderr, "triad: cannot allocate %ld KiB\n", atol(argv[1]));
		goto out;
	}
	pages(a, (size_t)n * 8, thp), pages(b, (size_t)n * 8, thp), pages(c, (size_t)n * 8, thp);
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
		ts[k] = t;
		if (best == 0 || t < best)
			best = t;
		if (k > 0)
			sum += t;
	}
	if (a[n / 2] != 7.0) {
		fprintf(stderr, "triad: wrong result %g\n", a[n / 2]);
		goto out;
	}
	printf("best_gbs %.3f\nmean_gbs %.3f\nfirst_gbs %.3f\n", 24.0 * n / best / 1e9,
	       24.0 * n * (passes - 1) / sum / 1e9, 24.0 * n / ts[0] / 1e9);
	qsort(ts + 1, (size_t)passes - 1, sizeof *ts, cmp);
	med = passes % 2 ? (ts[passes / 2] + ts[passes / 2 + 1]) / 2 : ts[passes / 2];
	for (int k = 1; k < passes; k++)
		slow += 24.0 * n / ts[k] < 0.8 * 24.0 * n / med;
	printf("median_gbs %.3f\nslow_passes %d %d\nhuge_kib %ld\n", 24.0 * n / med / 1e9, slow,
	       passes - 1, huge_kib());
	rc = 0;
out:
	free(a);
	free(b);
	free(c);
	free(ts);
	return rc;
}
