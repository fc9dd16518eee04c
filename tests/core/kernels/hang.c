/* hang: a test kernel that never returns from its first invocation. */
#include "common.h"
#include <unistd.h>

static void *init(const struct rot_args *a) { return malloc(8); }
static void run(void *s)
{
	for (;;)
		pause();
}
static void dispose(void *s) { free(s); }
static const struct rot_kernel hang = {.name = "hang", .params = n_param, .init = init, .run = run,
				       .dispose = dispose, .flops = zero_count, .bytes = zero_count};
ROT_KERNEL(hang)
