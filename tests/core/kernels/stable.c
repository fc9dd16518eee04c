/* stable: a test kernel of n dependent multiply-adds in registers: the same time every run. */
#include "common.h"

static void *init(const struct rot_args *a)
{
	long *n = malloc(sizeof *n);
	*n = (long)rot_arg(a, "n");
	return n;
}
static void run(void *s) { spin(*(long *)s); }
static void dispose(void *s) { free(s); }
static double flops(const struct rot_args *a) { return 2 * rot_arg(a, "n"); }
static const struct rot_kernel stable = {.name = "stable", .params = n_param, .init = init,
					 .run = run, .dispose = dispose, .flops = flops,
					 .bytes = zero_count};
ROT_KERNEL(stable)
