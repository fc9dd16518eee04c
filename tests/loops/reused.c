/* reused: a thread that ends with a region still open, then another thread (Valgrind gives it the
 * same thread number) that sums N doubles outside every region, then the main thread the same,
 * for the counting pass's loops (tests/e2e/loops.t). Usage: reused N. The sum's loop runs 2 N
 * times, none of them in region "left": the region died with the thread that left it open. */
#include <pthread.h>
#include <rot/markers.h>
#include <stdio.h>
#include <stdlib.h>

static double *x;
static long n;
static double s;

__attribute__((noinline)) static double sum(const double *v, long m)
{
	double t = 0;
	for (long i = 0; i < m; i++) /* LOOP sum */
		t += v[i];
	return t;
}

static void *leave(void *arg)
{
	(void)arg;
	rot_region_begin("left");
	return NULL;
}

static void *work(void *arg)
{
	(void)arg;
	s = sum(x, n);
	return NULL;
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atol(argv[1]) : 1000;
	x = calloc((size_t)n, sizeof *x);
	if (!x)
		return 1;
	for (long i = 0; i < n; i++)
		x[i] = 1.0 / (double)(i + 1);
	pthread_t t;
	if (pthread_create(&t, NULL, leave, NULL) || pthread_join(t, NULL))
		return 1;
	if (pthread_create(&t, NULL, work, NULL) || pthread_join(t, NULL))
		return 1;
	s += sum(x, n);
	printf("%g\n", s);
	return 0;
}
