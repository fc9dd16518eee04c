/* hostile: the loop survey's hostile programs (tests/e2e/loops.t). Usage: hostile MODE N, MODE
 * one of
 *   fork    a child forked (no exec) runs the scaled sum over N doubles, the parent the same
 *           over 2 N: N and 2 N fp64 adds, each process's its own;
 *   jit     a loop of N fp64 adds in machine code the program writes into anonymous memory
 *           (a JIT's buffer: code in no file), called once: N flops in unknown code;
 *   dlopen  the plugin (tests/loops/plugin.c, built beside this program as hostile-plugin.so)
 *           opened, its loop of N fp64 adds run, then closed;
 *   short   the sum over N doubles repeated until about 20 ms have passed (N flops a pass);
 *   threads two threads each run the sum over N doubles: 2 N flops in its loop, over both.
 * Built -O2 -g like the survey's other programs; also stripped and without -g by the test. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static double sum(const double *x, long n)
{
	double s = 0;
	for (long i = 0; i < n; i++) /* LOOP sum */
		s += x[i];
	return s;
}

static double *filled(long n)
{
	double *x = malloc((size_t)n * sizeof *x);
	if (!x)
		exit(1);
	for (long i = 0; i < n; i++) /* LOOP fill */
		x[i] = (double)(i & 3);
	return x;
}

/* mov ecx, N; l: addsd xmm0, xmm1; dec ecx; jnz l; ret */
static double jit(long n)
{
	unsigned char code[] = {0xb9, 0,    0,	  0,	0,    0xf2, 0x0f,
				0x58, 0xc1, 0xff, 0xc9, 0x75, 0xf8, 0xc3};
	unsigned int k = (unsigned int)n;
	memcpy(code + 1, &k, 4);
	void *buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		exit(1);
	memcpy(buf, code, sizeof code);
	double (*f)(double, double) = (double (*)(double, double))buf;
	return f(0, 1);
}

static double plugin(const char *self, long n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s-plugin.so", self);
	void *h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "hostile: %s\n", dlerror());
		exit(1);
	}
	double (*adds)(long) = (double (*)(long))dlsym(h, "plugin_adds");
	double r = adds ? adds(n) : -1;
	dlclose(h);
	return r;
}

struct share {
	const double *x;
	long n;
	double r;
};

static void *share_sum(void *arg)
{
	struct share *s = arg;
	s->r = sum(s->x, s->n);
	return NULL;
}

/* The sum over the same n doubles in two threads at once. */
static double two_threads(long n)
{
	double *x = filled(n);
	struct share s[2] = {{x, n, 0}, {x, n, 0}};
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, share_sum, &s[i]) != 0)
			exit(1);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return s[0].r + s[1].r;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "short";
	long n = argc > 2 ? atol(argv[2]) : 100000;
	double r = 0;
	if (strcmp(mode, "fork") == 0) {
		pid_t c = fork();
		double *x = filled(c == 0 ? n : 2 * n);
		r = sum(x, c == 0 ? n : 2 * n);
		if (c == 0)
			_exit(r < 0);
		waitpid(c, NULL, 0);
	} else if (strcmp(mode, "jit") == 0) {
		r = jit(n);
	} else if (strcmp(mode, "dlopen") == 0) {
		r = plugin(argv[0], n);
	} else if (strcmp(mode, "threads") == 0) {
		r = two_threads(n);
	} else {
		double *x = filled(n), t0 = now();
		while (now() - t0 < 0.02)
			r += sum(x, n);
	}
	printf("%g\n", r);
	return 0;
}
