/* stable: a test kernel of n dependent multiply-adds in registers: the same time every run.
 * It reports how often it ran (row.report.calls), to test the core's kernel reports. */
#include "common.h"

struct st {
	long n, calls;
};

static void *init(const struct rot_args *a)
{
	struct st *s = calloc(1, sizeof *s);
	if (s)
		s->n = (long)rot_arg(a, "n");
	return s;
}
static void run(void *p)
{
	struct st *s = p;
	s->calls++;
	spin(s->n);
}
static void dispose(void *s)
{
	free(s);
}
static double flops(const struct rot_args *a)
{
	return 2 * rot_arg(a, "n");
}
static int report(void *p, struct rot_value *out, int max)
{
	struct st *s = p;
	struct rot_value v[] = {{"calls", (double)s->calls}, {"n", (double)s->n}, {"bad name", 1}};
	int n = max < 3 ? max : 3;
	for (int i = 0; i < n; i++)
		out[i] = v[i];
	return n;
}
static const struct rot_kernel stable = {.name = "stable",
					 .params = n_param,
					 .init = init,
					 .run = run,
					 .dispose = dispose,
					 .flops = flops,
					 .bytes = zero_count,
					 .report = report};
ROT_KERNEL(stable)
