/* noisy: a test kernel whose every invocation takes 5% of the first one longer than the one
 * before, so no k runs ever agree within a few percent: best-k cannot converge. */
#include "common.h"

struct st {
	long n;
	double scale;
};
static void *init(const struct rot_args *a)
{
	struct st *s = malloc(sizeof *s);
	s->n = (long)rot_arg(a, "n");
	s->scale = 1.0;
	return s;
}
static void run(void *p)
{
	struct st *s = p;
	spin((long)(s->n * s->scale));
	s->scale += 0.05;
}
static void dispose(void *s) { free(s); }
static const struct rot_kernel noisy = {.name = "noisy", .params = n_param, .init = init, .run = run,
					.dispose = dispose, .flops = zero_count, .bytes = zero_count};
ROT_KERNEL(noisy)
