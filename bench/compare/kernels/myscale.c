/* myscale (docs/kernels.md), for bench/compare.sh: a[i] = f * b[i] over the
   arrays PASSES times, identical passes with a compiler barrier between them: the bench edits
   that line to make a change of known size by construction (10 against 11 passes: a tenth
   more; 10 against 20: twice), and VARIANT for an A/A pair (it is in the kernel's description:
   another binary, the same code; a comment alone builds the same binary, which rot compare
   knows for no change at all). The count is read at run time, so every PASSES compiles the
   same loop (a second, shorter loop after the first would change how the first is compiled,
   and its speed in cache). */
#include "kernel.h"
#include "args.h"
#include <stdlib.h>

#define PASSES 1
#define VARIANT "a"

static volatile int passes = PASSES; /* volatile: the loop below never knows the count */

struct st { double *a, *b; size_t n; };

static const struct rot_param params[] = {{"n", 1000, "elements"}, {NULL, 0, NULL}};

static int elements(const struct rot_args *a, size_t *n)
{
	return rot_arg_range(a, "myscale", "n", 1, 1000000000000, "elements", n);
}
static int check(const struct rot_args *a) { return elements(a, NULL); }

static void *init(const struct rot_args *a)
{
	size_t n;
	if (elements(a, &n) < 0)
		return NULL;
	struct st *s = malloc(sizeof *s);
	if (!s)
		return NULL;
	s->n = n;
	s->a = rot_alloc(s->n * sizeof(double));
	s->b = rot_alloc(s->n * sizeof(double));
	return s;
}
static void run(void *p)
{
	struct st *s = p;
	int k = passes;
	for (int r = 0; r < k; r++) {
		for (size_t i = 0; i < s->n; i++)
			s->a[i] = 2.0 * s->b[i];
		__asm__ volatile("" ::: "memory"); /* a pass is a pass: none fused with the next */
	}
}
static void dispose(void *p) { struct st *s = p; free(s->a); free(s->b); free(s); }
static int buffers(void *p, struct rot_buffer *out, int max)
{
	struct st *s = p;
	if (max < 2)
		return 0;
	out[0] = (struct rot_buffer){s->a, s->n * sizeof(double)};
	out[1] = (struct rot_buffer){s->b, s->n * sizeof(double)};
	return 2;
}
static double flops(const struct rot_args *a) { return PASSES * rot_arg(a, "n"); }
static double bytes(const struct rot_args *a) { return 16 * PASSES * rot_arg(a, "n"); }
static double written(const struct rot_args *a) { return 8 * PASSES * rot_arg(a, "n"); }

static const struct rot_kernel myscale = {
	.name = "myscale", .description = "a = f*b, variant " VARIANT, .params = params, .init = init, .run = run,
	.dispose = dispose, .buffers = buffers, .flops = flops, .bytes = bytes, .written = written,
	.check = check};
ROT_KERNEL(myscale)
