/* buf: a test kernel that reads an n-byte buffer once per invocation (for warm vs cold). */
#include "common.h"

struct st {
	double *a;
	size_t n;
	double sum;
};
static void *init(const struct rot_args *a)
{
	struct st *s = calloc(1, sizeof *s);
	s->n = (size_t)rot_arg(a, "n") / sizeof(double);
	s->a = rot_alloc(s->n * sizeof(double));
	return s;
}
static void run(void *p)
{
	struct st *s = p;
	double sum = 0;
	for (size_t i = 0; i < s->n; i += 8) /* one load per cache line */
		sum += s->a[i];
	s->sum += sum;
}
static void dispose(void *p)
{
	struct st *s = p;
	free(s->a);
	free(s);
}
static int buffers(void *p, struct rot_buffer *out, int max)
{
	struct st *s = p;
	out[0] = (struct rot_buffer){s->a, s->n * sizeof(double)};
	return 1;
}
static double bytes(const struct rot_args *a) { return rot_arg(a, "n"); }
static const struct rot_kernel buf = {.name = "buf", .params = n_param, .init = init, .run = run,
				      .dispose = dispose, .buffers = buffers, .flops = zero_count,
				      .bytes = bytes};
ROT_KERNEL(buf)
