/* chains: the shared body of the register-only compute kernels (peakflops, regadd):
 * CHAINS independent dependency chains of one operation on vectors of LANES elements, n
 * iterations. A kernel file sets CHAINS_NAME, defaults for the macros, then includes this.
 * Macros: PEAK_TYPE (double|float), PEAK_LANES (1 = scalar, else elements per vector),
 * PEAK_OP (0 fma, 1 add, 2 mul, 3 div, 4 add and mul: even chains add, odd ones multiply),
 * PEAK_CHAINS (independent chains; latency x issue rate hides
 * the pipeline), ROT_TALLY.
 * Counted: flops up to 3 CHAINS LANES + 2 LANES more than declared, the chains' start and sum. */
#include "args.h"
#include "kernel.h"
#include "tally.h"

#include <limits.h>
#include <stdlib.h>

typedef PEAK_TYPE elem;
#if PEAK_LANES > 1
typedef elem vec __attribute__((vector_size(PEAK_LANES * sizeof(elem))));
#else
typedef elem vec;
#endif
#define STR_(x) #x
#define UNROLL_PRAGMA(n) _Pragma(STR_(GCC unroll n))

struct chains {
	long n;
	elem mul, add, seed;
	volatile elem sink;
};

static const struct rot_param params[] = {
    {"n", 100000, "iterations; each does one operation on every chain"},
    {NULL, 0, NULL},
};

static int iterations(const struct rot_args *a, size_t *n)
{
	return rot_arg_range(a, ROT_KSTR(CHAINS_NAME), "n", 1, LONG_MAX, "iterations", n);
}

static int check(const struct rot_args *a)
{
	return iterations(a, NULL);
}

static void *init(const struct rot_args *a)
{
	size_t n;
	if (iterations(a, &n) < 0)
		return NULL;
	struct chains *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->n = (long)n;
	c->mul = PEAK_OP >= 2 ? (elem)1.0000001 : (elem)0.9999999;
	c->add = (elem)1e-7;
	c->seed = (elem)1;
	return c;
}

static void chains_run(struct chains *c, long n)
{
	vec x[PEAK_CHAINS];
	const vec m = (vec){0} + c->mul, a = (vec){0} + c->add;
	UNROLL_PRAGMA(PEAK_CHAINS)
	for (int j = 0; j < PEAK_CHAINS; j++)
		x[j] = (vec){0} + c->seed + (elem)j;
	for (long i = 0; i < n; i++) {
		UNROLL_PRAGMA(PEAK_CHAINS)
		for (int j = 0; j < PEAK_CHAINS; j++) {
#if PEAK_OP == 0
			x[j] = x[j] * m + a; /* contracted to one FMA where the flags allow */
#elif PEAK_OP == 1
			x[j] = x[j] + a;
#elif PEAK_OP == 2
			x[j] = x[j] * m;
#elif PEAK_OP == 4
			x[j] = j % 2 ? x[j] * m : x[j] + a;
#else
			x[j] = x[j] / m;
#endif
		}
	}
	vec s = (vec){0};
	for (int j = 0; j < PEAK_CHAINS; j++)
		s += x[j];
#if PEAK_LANES > 1
	c->sink = s[0];
#else
	c->sink = s;
#endif
	ROT_TALLY((double)n * PEAK_CHAINS * PEAK_LANES * (PEAK_OP == 0 ? 2 : 1), 0);
}

static void run(void *state)
{
	struct chains *c = state;
	chains_run(c, c->n);
}

/* each thread takes its share of the iterations: an invocation's flops stay as declared */
static void run_thread(void *state, int th, int nth)
{
	struct chains *c = state;
	long per = c->n / nth, extra = c->n % nth;
	chains_run(c, per + (th < extra));
}

static void dispose(void *state)
{
	free(state);
}

static double flops(const struct rot_args *a)
{
	return rot_arg(a, "n") * PEAK_CHAINS * PEAK_LANES * (PEAK_OP == 0 ? 2 : 1);
}

static double bytes(const struct rot_args *a)
{
	return 0;
}

static const struct rot_kernel ROT_KSYM(CHAINS_NAME) = {
    .name = ROT_KSTR(CHAINS_NAME),
    .description = CHAINS_DESCRIPTION,
    .params = params,
    .init = init,
    .run = run,
    .run_thread = run_thread,
    .dispose = dispose,
    .flops = flops,
    .bytes = bytes,
    .check = check,
};
ROT_KERNEL(ROT_KSYM(CHAINS_NAME))
