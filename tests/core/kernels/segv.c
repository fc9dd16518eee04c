/* segv: a test kernel that writes through a bad pointer on its third invocation. */
#include "common.h"

static int calls;
static void *init(const struct rot_args *a) { return malloc(8); }
static void run(void *s)
{
	if (++calls == 3)
		*(volatile int *)(long)0x40 = 1;
}
static void dispose(void *s) { free(s); }
static const struct rot_kernel segv = {.name = "segv", .params = n_param, .init = init, .run = run,
				       .dispose = dispose, .flops = zero_count, .bytes = zero_count};
ROT_KERNEL(segv)
