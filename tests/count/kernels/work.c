/* work: a[i] = f * b[i], WORK_TIMES times over (default 1), declaring one pass's flops and
 * bytes whatever WORK_TIMES says: the counting pass's tests make it do twice the work
 * (rot compare: work x2.00) and catch its declaration drifting from its code. */
#include "kernel.h"
#include "macro/WORK_TIMES.h"

#include <stdlib.h>

#ifndef WORK_TIMES
#define WORK_TIMES 1
#endif

struct st {
	double *a, *b;
	size_t n;
};

static const struct rot_param params[] = {{"n", 1000, "elements"}, {NULL, 0, NULL}};

static void *init(const struct rot_args *a)
{
	struct st *s = malloc(sizeof *s);
	if (!s)
		return NULL;
	s->n = (size_t)rot_arg(a, "n");
	s->a = rot_alloc(s->n * sizeof(double));
	s->b = rot_alloc(s->n * sizeof(double));
	return s;
}

static void run(void *p)
{
	struct st *s = p;
	for (int t = 0; t < WORK_TIMES; t++)
		for (size_t i = 0; i < s->n; i++)
			s->a[i] = 1.5 * s->b[i];
}

static void dispose(void *p)
{
	struct st *s = p;
	free(s->a);
	free(s->b);
	free(s);
}

static double flops(const struct rot_args *a)
{
	return rot_arg(a, "n");
}
static double bytes(const struct rot_args *a)
{
	return 16 * rot_arg(a, "n");
}

static const struct rot_kernel work = {.name = "work",
				       .description = "a = f*b, WORK_TIMES times",
				       .params = params,
				       .init = init,
				       .run = run,
				       .dispose = dispose,
				       .flops = flops,
				       .bytes = bytes};
ROT_KERNEL(work)
