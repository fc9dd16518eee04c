/* clock: a chain of n dependent 64-bit integer multiplies, 3 cycles each on current Intel and
 * AMD cores, so 3 n / time is the core clock the kernels run at. (A chain of add-immediates is
 * no clock: Golden Cove folds those at rename.) Declares 3 n "flops": cycles, not work. */
#include "args.h"
#include "kernel.h"

#include <limits.h>
#include <stdlib.h>

static const struct rot_param params[] = {{"n", 1000000, "dependent multiplies"}, {NULL, 0, NULL}};

/* n: at most LONG_MAX - 7, so the loop's counter, stepping by 8, cannot wrap */
static int multiplies(const struct rot_args *a, size_t *v)
{
	return rot_arg_range(a, "clock", "n", 1, LONG_MAX - 7, "multiplies", v);
}

static int check(const struct rot_args *a)
{
	return multiplies(a, NULL);
}

static void *init(const struct rot_args *a)
{
	size_t v;
	if (multiplies(a, &v) < 0)
		return NULL;
	long *n = malloc(sizeof *n);
	if (n)
		*n = (long)v;
	return n;
}

static void run(void *p)
{
	long n = *(long *)p, x = 3;
	for (long i = 0; i < n; i += 8) {
#if defined(__x86_64__)
		__asm__ volatile("imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0\n\t"
				 "imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0"
				 : "+r"(x));
#else /* elsewhere the multiply latency may differ from 3 cycles */
		for (int j = 0; j < 8; j++)
			__asm__ volatile("" : "+r"(x)), x *= x;
#endif
	}
}

static void dispose(void *p)
{
	free(p);
}
static double cycles(const struct rot_args *a)
{
	return 3 * rot_arg(a, "n");
}
static double zero(const struct rot_args *a)
{
	return 0;
}

static const struct rot_kernel clock_kernel = {.name = "clock",
					       .description =
						   "core clock from a dependent imul chain",
					       .params = params,
					       .init = init,
					       .run = run,
					       .dispose = dispose,
					       .flops = cycles,
					       .bytes = zero,
					       .check = check};
ROT_KERNEL(clock_kernel)
