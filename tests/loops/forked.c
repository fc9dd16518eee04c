/* forked: a marked region called before a fork and again in the forked child, for the counting
 * pass's regions in a child (tests/e2e/loops.t). Usage: forked N. Region "sum" adds N doubles
 * in the parent (N flops), then the child (forked, no exec) calls it again over 2 N doubles while
 * the parent waits: the parent's counts hold N flops in "sum", the child's own file 2 N. */
#include <rot/markers.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static double sum(const double *x, long n)
{
	double s = 0;
	for (long i = 0; i < n; i++) /* LOOP sum */
		s += x[i];
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	double *x = calloc((size_t)(2 * n), sizeof *x);
	if (!x)
		return 1;
	for (long i = 0; i < 2 * n; i++)
		x[i] = 1.0 / (double)(i + 1);
	rot_region_begin("sum");
	double s = sum(x, n);
	rot_region_end("sum");
	pid_t c = fork();
	if (c == 0) {
		rot_region_begin("sum");
		s = sum(x, 2 * n);
		rot_region_end("sum");
		_exit(s < 0);
	}
	waitpid(c, NULL, 0);
	printf("%g\n", s);
	return 0;
}
