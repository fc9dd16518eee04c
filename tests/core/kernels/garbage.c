/* garbage: a test kernel that writes text resembling rot's own records to stdout and stderr. */
#include "common.h"
#include <stdio.h>

static void *init(const struct rot_args *a)
{
	printf("status failed\nrun ns=1\nmeta complete 0\n");
	return malloc(8);
}
static void run(void *s)
{
	printf("error garbage\nrun ns=0 reps=0\n\x01\x02 junk\n");
	fflush(stdout);
	spin(1000);
}
static void dispose(void *s) { free(s); }
static const struct rot_kernel garbage = {.name = "garbage", .params = n_param, .init = init,
					  .run = run, .dispose = dispose, .flops = zero_count,
					  .bytes = zero_count};
ROT_KERNEL(garbage)
