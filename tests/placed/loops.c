/* loops: the programs whose counted points rot must place by what was counted
 * (tests/e2e/measurements.t), each a marked region that declares nothing unless said:
 *   dram      a triad (a = b + s c, 256-bit FMAs) over three arrays of 4 LLC bytes in all, twice
 *   l2        the same over L2 / 4 bytes, 200 passes after one uncounted
 *   chain     12 independent chains of dependent scalar fp64 adds, 2 M steps each
 *   fma       12 independent chains of 256-bit fp64 FMAs in registers, 1 M steps each
 *   lulesh    a LULESH-like scalar element loop (CalcElemShapeFunctionDerivatives' body: eight
 *             nodes' coordinates in, the Jacobian's cofactors and the volume out) over L2 / 2
 *             bytes of elements, 50 passes after one uncounted
 *   declared  the l2 triad declaring its flops and bytes and a working set of 8 LLC bytes (what
 *             the counted traffic contradicts; in DRAM: DRAM's range begins at the first size
 *             swept from 4 times the largest cache, an octave at most beyond)
 * Usage: loops L2-BYTES LLC-BYTES [REGION ...] (the sizes of the levels, from the stored peaks;
 * the regions to run, all by default). Build with -O2 -fno-tree-vectorize: the vector loops are
 * intrinsics (AVX2 and FMA: x86-64 only). */
#include <rot/markers.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>

static double *array(long n, double v)
{
	double *p = aligned_alloc(64, ((size_t)n * sizeof *p + 63) / 64 * 64);
	if (!p) {
		fprintf(stderr, "loops: out of memory\n");
		exit(1);
	}
	for (long i = 0; i < n; i++)
		p[i] = v + (double)(i % 7);
	return p;
}

/* a = b + s c over n doubles (n a multiple of 4), passes times */
static __attribute__((target("avx2,fma"))) void triad(double *a, const double *b, const double *c,
						      long n, int passes)
{
	__m256d s = _mm256_set1_pd(3.0);
	for (int p = 0; p < passes; p++)
		for (long i = 0; i < n; i += 4)
			_mm256_store_pd(a + i, _mm256_fmadd_pd(s, _mm256_load_pd(c + i),
							       _mm256_load_pd(b + i)));
}

static double stream(const char *name, long bytes, int warm, int passes, double declared_ws)
{
	long n = bytes / 24 / 4 * 4;
	double *a = array(n, 0), *b = array(n, 1), *c = array(n, 2);
	triad(a, b, c, n, warm);
	rot_region_begin(name);
	if (declared_ws > 0) {
		rot_region_work(2.0 * n * passes, 24.0 * n * passes);
		rot_region_working_set(declared_ws);
	}
	triad(a, b, c, n, passes);
	rot_region_end(name);
	double r = a[n / 2];
	free(a), free(b), free(c);
	return r;
}

static double chain(long steps)
{
	double x0 = 1, x1 = 2, x2 = 3, x3 = 4, x4 = 5, x5 = 6, x6 = 7, x7 = 8, x8 = 9, x9 = 10, x10 = 11,
	       x11 = 12, a = 1e-7;
	rot_region_begin("chain");
	for (long i = 0; i < steps; i++) {
		x0 += a, x1 += a, x2 += a, x3 += a, x4 += a, x5 += a;
		x6 += a, x7 += a, x8 += a, x9 += a, x10 += a, x11 += a;
		__asm__ volatile("" : "+x"(x0), "+x"(x1), "+x"(x2), "+x"(x3), "+x"(x4), "+x"(x5),
				 "+x"(x6), "+x"(x7), "+x"(x8), "+x"(x9), "+x"(x10), "+x"(x11));
	}
	rot_region_end("chain");
	return x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11;
}

static __attribute__((target("avx2,fma"))) double fma_chains(long steps)
{
	__m256d x0 = _mm256_set1_pd(1), x1 = _mm256_set1_pd(2), x2 = _mm256_set1_pd(3),
		x3 = _mm256_set1_pd(4), x4 = _mm256_set1_pd(5), x5 = _mm256_set1_pd(6),
		x6 = _mm256_set1_pd(7), x7 = _mm256_set1_pd(8), x8 = _mm256_set1_pd(9),
		x9 = _mm256_set1_pd(10), x10 = _mm256_set1_pd(11), x11 = _mm256_set1_pd(12),
		m = _mm256_set1_pd(0.9999999), a = _mm256_set1_pd(1e-7);
	rot_region_begin("fma");
	for (long i = 0; i < steps; i++) {
		x0 = _mm256_fmadd_pd(x0, m, a), x1 = _mm256_fmadd_pd(x1, m, a);
		x2 = _mm256_fmadd_pd(x2, m, a), x3 = _mm256_fmadd_pd(x3, m, a);
		x4 = _mm256_fmadd_pd(x4, m, a), x5 = _mm256_fmadd_pd(x5, m, a);
		x6 = _mm256_fmadd_pd(x6, m, a), x7 = _mm256_fmadd_pd(x7, m, a);
		x8 = _mm256_fmadd_pd(x8, m, a), x9 = _mm256_fmadd_pd(x9, m, a);
		x10 = _mm256_fmadd_pd(x10, m, a), x11 = _mm256_fmadd_pd(x11, m, a);
		__asm__ volatile("" : "+x"(x0), "+x"(x1), "+x"(x2), "+x"(x3), "+x"(x4), "+x"(x5),
				 "+x"(x6), "+x"(x7), "+x"(x8), "+x"(x9), "+x"(x10), "+x"(x11));
	}
	rot_region_end("fma");
	__m256d s = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(x0, x1), _mm256_add_pd(x2, x3)),
				  _mm256_add_pd(_mm256_add_pd(x4, x5), _mm256_add_pd(x6, x7)));
	s = _mm256_add_pd(s, _mm256_add_pd(_mm256_add_pd(x8, x9), _mm256_add_pd(x10, x11)));
	return s[0];
}

/* LULESH's CalcElemShapeFunctionDerivatives for one element of eight nodes: the Jacobian's
 * cofactors (out[0..8]) and the volume (its return) */
static double shape(const double *x, const double *y, const double *z, double *out)
{
	double fjxxi = .125 * ((x[6] - x[0]) + (x[5] - x[3]) - (x[7] - x[1]) - (x[4] - x[2]));
	double fjxet = .125 * ((x[6] - x[0]) - (x[5] - x[3]) + (x[7] - x[1]) - (x[4] - x[2]));
	double fjxze = .125 * ((x[6] - x[0]) + (x[5] - x[3]) + (x[7] - x[1]) + (x[4] - x[2]));
	double fjyxi = .125 * ((y[6] - y[0]) + (y[5] - y[3]) - (y[7] - y[1]) - (y[4] - y[2]));
	double fjyet = .125 * ((y[6] - y[0]) - (y[5] - y[3]) + (y[7] - y[1]) - (y[4] - y[2]));
	double fjyze = .125 * ((y[6] - y[0]) + (y[5] - y[3]) + (y[7] - y[1]) + (y[4] - y[2]));
	double fjzxi = .125 * ((z[6] - z[0]) + (z[5] - z[3]) - (z[7] - z[1]) - (z[4] - z[2]));
	double fjzet = .125 * ((z[6] - z[0]) - (z[5] - z[3]) + (z[7] - z[1]) - (z[4] - z[2]));
	double fjzze = .125 * ((z[6] - z[0]) + (z[5] - z[3]) + (z[7] - z[1]) + (z[4] - z[2]));
	out[0] = (fjyet * fjzze) - (fjzet * fjyze);
	out[1] = -(fjyxi * fjzze) + (fjzxi * fjyze);
	out[2] = (fjyxi * fjzet) - (fjzxi * fjyet);
	out[3] = -(fjxet * fjzze) + (fjzet * fjxze);
	out[4] = (fjxxi * fjzze) - (fjzxi * fjxze);
	out[5] = -(fjxxi * fjzet) + (fjzxi * fjxet);
	out[6] = (fjxet * fjyze) - (fjyet * fjxze);
	out[7] = -(fjxxi * fjyze) + (fjyxi * fjxze);
	out[8] = (fjxxi * fjyet) - (fjyxi * fjxet);
	return 8. * (fjxet * out[3] + fjyet * out[4] + fjzet * out[5]);
}

static double lulesh(long bytes)
{
	long e = bytes / (24 * 8 + 10 * 8); /* eight nodes' x, y, z in; nine cofactors, a volume out */
	double *x = array(8 * e, 0), *y = array(8 * e, 1), *z = array(8 * e, 2),
	       *b = array(9 * e, 0), *v = array(e, 0);
	for (int pass = 0; pass < 51; pass++) {
		if (pass == 1)
			rot_region_begin("lulesh");
		for (long i = 0; i < e; i++)
			v[i] = shape(x + 8 * i, y + 8 * i, z + 8 * i, b + 9 * i);
	}
	rot_region_end("lulesh");
	double r = v[e / 2] + b[e];
	free(x), free(y), free(z), free(b), free(v);
	return r;
}

/* whether region name is to run: named among the arguments after the sizes, or none named */
static int wanted(int argc, char **argv, const char *name)
{
	for (int i = 3; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return argc <= 3;
}

int main(int argc, char **argv)
{
	long l2 = argc >= 3 ? atol(argv[1]) : 0, llc = argc >= 3 ? atol(argv[2]) : 0;
	if (l2 <= 0 || llc <= 0) {
		fprintf(stderr, "usage: loops L2-BYTES LLC-BYTES [REGION ...]\n");
		return 2;
	}
	double s = 0;
	if (wanted(argc, argv, "dram"))
		s += stream("dram", 4 * llc, 1, 2, 0);
	if (wanted(argc, argv, "l2"))
		s += stream("l2", l2 / 4, 1, 200, 0);
	if (wanted(argc, argv, "chain"))
		s += chain(2000000);
	if (wanted(argc, argv, "fma"))
		s += fma_chains(1000000);
	if (wanted(argc, argv, "lulesh"))
		s += lulesh(l2 / 2);
	if (wanted(argc, argv, "declared"))
		s += stream("declared", l2 / 4, 1, 200, 8.0 * llc);
	printf("%g\n", s);
	return 0;
}
#else
int main(void)
{
	fprintf(stderr, "loops: x86-64 with AVX2 and FMA only\n");
	return 2;
}
#endif
