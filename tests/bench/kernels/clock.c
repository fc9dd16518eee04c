/* clock: a chain of n dependent 64-bit integer multiplies, 3 cycles each on current Intel and
 * AMD cores, so 3 n per invocation time is the core clock the kernels ran at. (A chain of
 * add-immediates is no clock: Golden Cove folds those at rename.) Declares 3 n "ops": cycles. */
#include "kernel.h"
#include <stdlib.h>

static const struct rot_param params[] = {{"n", 1000000, "dependent multiplies"}, {NULL, 0, NULL}};
static void *init(const struct rot_args *a)
{
	long *n = malloc(sizeof *n);
	if (n)
		*n = (long)rot_arg(a, "n");
	return n;
}
static void run(void *p)
{
	long n = *(long *)p, x = 3;
	for (long i = 0; i < n; i += 8)
		__asm__ volatile("imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0\n\t"
				 "imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0"
				 : "+r"(x));
}
static void dispose(void *p) { free(p); }
static double ops(const struct rot_args *a) { return 3 * rot_arg(a, "n"); }
static double zero(const struct rot_args *a) { return 0; }
static const struct rot_kernel clock_kernel = {.name = "clock", .params = params, .init = init, .run = run,
					       .dispose = dispose, .flops = ops, .bytes = zero};
ROT_KERNEL(clock_kernel)
