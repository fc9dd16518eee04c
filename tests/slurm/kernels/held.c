/* held: the hostile `slow` loop, but each point first waits (in init) while the file named by
 * ROT_TEST_HOLD exists: a point that stays in flight on its node until the test lets it go
 * (tests/e2e/slurm-faults.t cancels, kills and times out tasks around such points). */
#include "hostile.h"
#include <unistd.h>

static void *init(const struct rot_args *a)
{
	const char *hold = getenv("ROT_TEST_HOLD");
	while (hold && access(hold, F_OK) == 0)
		usleep(20000);
	return init_any(a);
}

static void run(void *s)
{
	busy(*(long *)s);
}

static const struct rot_kernel held = {.name = "held", .params = n_param, .init = init, .run = run,
				       .dispose = dispose_any, .flops = one, .bytes = one};
ROT_KERNEL(held)
