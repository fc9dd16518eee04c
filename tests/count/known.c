/* known: small programs whose flops and traffic are known, each a marked region, for the
 * counting pass's tests (tests/e2e/count.t). Usage: known MODE N, MODE one of matmul (C += A B,
 * N x N: 2 N^3 flops), stencil (a 2-D five-point Jacobi sweep over N x N: a quarter of four
 * neighbours, 4 (N-2)^2 flops),
 * matvec (y = A x in row order and in column order: 2 N^2 flops each), reduce (a sum of N
 * doubles: N flops), walk (N doubles read contiguously, then one double a 64-byte line),
 * triad (a = b + s c over N doubles, counted after one pass uncounted: 2 N flops), fma (in
 * registers, N iterations each: fma_scalar four scalar fp64 FMA chains, 8 N flops all FMAs';
 * fma_avx2 four 256-bit fp64 FMA chains, 32 N; fma_mixed a 256-bit fp64 FMA, add and
 * multiply, a scalar fp64 add, a 128-bit fp64 FMA and a 256-bit fp32 FMA an iteration: fp64
 * 256-bit 16 N (8 N FMAs', 4 N adds'), fp64 scalar N (adds'), fp64 128-bit 4 N (FMAs'), fp32
 * 256-bit 16 N (FMAs'); x86-64 with AVX2 and FMA only). */
#include <rot/markers.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double *array(long n, double v)
{
	double *p = malloc((size_t)n * sizeof *p);
	if (!p)
		exit(1);
	for (long i = 0; i < n; i++)
		p[i] = v + (double)(i % 7);
	return p;
}

static double matmul(long n)
{
	double *a = array(n * n, 1), *b = array(n * n, 2), *c = array(n * n, 0);
	rot_region_begin("matmul");
	for (long i = 0; i < n; i++)
		for (long j = 0; j < n; j++) {
			double s = c[i * n + j];
			for (long k = 0; k < n; k++)
				s += a[i * n + k] * b[k * n + j];
			c[i * n + j] = s;
		}
	rot_region_end("matmul");
	return c[n + 1];
}

static double stencil(long n)
{
	double *u = array(n * n, 1), *v = array(n * n, 0);
	rot_region_begin("stencil");
	for (long i = 1; i < n - 1; i++)
		for (long j = 1; j < n - 1; j++)
			v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
					       u[i * n + j - 1] + u[i * n + j + 1]);
	rot_region_end("stencil");
	return v[n + 1];
}

static double matvec(long n)
{
	double *a = array(n * n, 1), *x = array(n, 2), *y = array(n, 0);
	rot_region_begin("row");
	for (long i = 0; i < n; i++) {
		double s = 0;
		for (long j = 0; j < n; j++)
			s += a[i * n + j] * x[j];
		y[i] = s;
	}
	rot_region_end("row");
	memset(y, 0, (size_t)n * sizeof *y);
	rot_region_begin("column");
	for (long j = 0; j < n; j++)
		for (long i = 0; i < n; i++)
			y[i] += a[i * n + j] * x[j];
	rot_region_end("column");
	return y[n - 1];
}

static double reduce(long n)
{
	double *x = array(n, 1), s = 0;
	rot_region_begin("reduce");
	for (long i = 0; i < n; i++)
		s += x[i];
	rot_region_end("reduce");
	return s;
}

static double walk(long n)
{
	double *x = calloc((size_t)n, sizeof *x), s = 0, t = 0;
	if (!x)
		exit(1);
	rot_region_begin("contiguous");
	for (long i = 0; i < n; i++)
		s += x[i];
	rot_region_end("contiguous");
	rot_region_begin("strided");
	for (long i = 0; i < n; i += 8)
		t += x[i];
	rot_region_end("strided");
	return s + t;
}

static double triad(long n)
{
	double *a = array(n, 0), *b = array(n, 1), *c = array(n, 2);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			rot_region_begin("triad");
		for (long i = 0; i < n; i++)
			a[i] = b[i] + 3.0 * c[i];
		if (pass)
			rot_region_end("triad");
	}
	return a[n - 1];
}

#if defined(__x86_64__)
#include <immintrin.h>

static __attribute__((target("avx2,fma"))) double fma_loops(long n)
{
	double x0 = 1, x1 = 2, x2 = 3, x3 = 4, m = 0.9999999, a = 1e-7;
	rot_region_begin("fma_scalar");
	for (long i = 0; i < n; i++) {
		x0 = __builtin_fma(x0, m, a);
		x1 = __builtin_fma(x1, m, a);
		x2 = __builtin_fma(x2, m, a);
		x3 = __builtin_fma(x3, m, a);
		__asm__ volatile("" : "+x"(x0), "+x"(x1), "+x"(x2), "+x"(x3)); /* each chain here */
	}
	rot_region_end("fma_scalar");
	__m256d v0 = _mm256_set1_pd(1), v1 = _mm256_set1_pd(2), v2 = _mm256_set1_pd(3),
		v3 = _mm256_set1_pd(4), vm = _mm256_set1_pd(m), va = _mm256_set1_pd(a);
	rot_region_begin("fma_avx2");
	for (long i = 0; i < n; i++) {
		v0 = _mm256_fmadd_pd(v0, vm, va);
		v1 = _mm256_fmadd_pd(v1, vm, va);
		v2 = _mm256_fmadd_pd(v2, vm, va);
		v3 = _mm256_fmadd_pd(v3, vm, va);
		__asm__ volatile("" : "+x"(v0), "+x"(v1), "+x"(v2), "+x"(v3));
	}
	rot_region_end("fma_avx2");
	__m128d w = _mm_set1_pd(1), wm = _mm_set1_pd(m), wa = _mm_set1_pd(a);
	__m256 f = _mm256_set1_ps(1), fm = _mm256_set1_ps(0.999f), fa = _mm256_set1_ps(1e-3f);
	double s = 0;
	rot_region_begin("fma_mixed");
	for (long i = 0; i < n; i++) {
		v0 = _mm256_fmadd_pd(v0, vm, va);
		v1 = _mm256_add_pd(v1, va);
		v2 = _mm256_mul_pd(v2, vm);
		s += x0;
		w = _mm_fmadd_pd(w, wm, wa);
		f = _mm256_fmadd_ps(f, fm, fa);
		__asm__ volatile("" : "+x"(v0), "+x"(v1), "+x"(v2), "+x"(s), "+x"(w), "+x"(f));
	}
	rot_region_end("fma_mixed");
	__m256d v = _mm256_add_pd(_mm256_add_pd(v0, v1), _mm256_add_pd(v2, v3));
	return x0 + x1 + x2 + x3 + s + v[0] + w[0] + f[0];
}
#else
static double fma_loops(long n)
{
	fprintf(stderr, "known: fma needs x86-64 with AVX2 and FMA\n");
	exit(2);
}
#endif

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		double (*f)(long);
	} modes[] = {{"matmul", matmul}, {"stencil", stencil}, {"matvec", matvec},
		     {"reduce", reduce}, {"walk", walk},       {"triad", triad},
		     {"fma", fma_loops}};
	long n = argc > 2 ? atol(argv[2]) : 0;
	for (size_t i = 0; argc > 2 && n > 0 && i < sizeof modes / sizeof *modes; i++)
		if (strcmp(argv[1], modes[i].name) == 0) {
			printf("%g\n", modes[i].f(n));
			return 0;
		}
	fprintf(stderr, "usage: known matmul|stencil|matvec|reduce|walk|triad|fma N\n");
	return 2;
}
