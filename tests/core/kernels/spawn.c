/* spawn: a test kernel that starts two threads of its own in every invocation; they do all
 * the work (n spin iterations each) while the calling thread only waits for them. */
#include "common.h"
#include <pthread.h>

static void *busy(void *arg)
{
	spin(*(long *)arg);
	return NULL;
}
static void *init(const struct rot_args *a)
{
	long *n = malloc(sizeof *n);
	*n = (long)rot_arg(a, "n");
	return n;
}
static void run(void *s)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, busy, s);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}
static void dispose(void *s) { free(s); }
static double flops(const struct rot_args *a) { return 4 * rot_arg(a, "n"); }
static const struct rot_kernel spawn = {.name = "spawn", .params = n_param, .init = init, .run = run,
					.dispose = dispose, .flops = flops, .bytes = zero_count};
ROT_KERNEL(spawn)
