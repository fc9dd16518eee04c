/* chase: CHASE_CHAINS independent pointer chases through one random cycle over ws bytes
 * (one pointer per 64-byte line), n steps each: one chain gives the load-to-use latency of
 * the level that holds ws, several give the loads in flight. Declares 8 bytes per load. */
#include "macro/CHASE_CHAINS.h"
#include "macro/ROT_TALLY.h"
#include "args.h"
#include "kernel.h"
#include "tally.h"

#include <limits.h>
#include <stdlib.h>

#ifndef CHASE_CHAINS
#define CHASE_CHAINS 1
#endif
#if CHASE_CHAINS < 1
#error "CHASE_CHAINS must be 1 or more"
#endif
#define LINE 8 /* pointers per 64-byte line */
/* line l's pointer, in word l % LINE of it: with every pointer in word 0, chains side by side
 * wait for each other in the L1's banks (one chain's step takes as long either way) */
#define SLOT(l) ((l)*LINE + (l) % LINE)
#define STR_(x) #x
#define UNROLL_PRAGMA(n) _Pragma(STR_(GCC unroll n))

struct chase {
	void **ring;
	size_t bytes;
	long n;
	void *volatile sink;
};

static const struct rot_param params[] = {
    {"n", 100000, "steps of each chain"},
    {"ws", 16384, "bytes the ring spans (working set)"},
    {NULL, 0, NULL},
};

/* Links the ring's lines into one cycle, in an order prefetchers cannot guess (Sattolo's
 * shuffle); order is room for lines indices. */
static void link_ring(void **ring, size_t *order, size_t lines)
{
	unsigned long long x = 88172645463325252ull;
	for (size_t i = 0; i < lines; i++)
		order[i] = i;
	for (size_t i = lines - 1; i > 0; i--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t j = (size_t)(x % i), t = order[i];
		order[i] = order[j], order[j] = t;
	}
	for (size_t i = 0; i < lines; i++)
		ring[SLOT(order[i])] = &ring[SLOT(order[(i + 1) % lines])];
}

/* ws: a line for each chain to start on, or two chains would walk the same lines in step */
static int sizes(const struct rot_args *a, size_t *ws, size_t *n)
{
	if (rot_arg_range(a, "chase", "ws", 64 * CHASE_CHAINS, ROT_ARG_BYTES, "bytes", ws) < 0)
		return -1;
	return rot_arg_range(a, "chase", "n", 1, LONG_MAX, "steps", n);
}

static int check(const struct rot_args *a)
{
	return sizes(a, NULL, NULL);
}

static void *init(const struct rot_args *a)
{
	size_t ws, n;
	if (sizes(a, &ws, &n) < 0)
		return NULL;
	struct chase *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	size_t lines = ws / 64, *order = malloc(lines * sizeof *order);
	c->n = (long)n;
	c->bytes = lines * 64;
	c->ring = rot_alloc(c->bytes);
	if (!c->ring || !order)
		goto out;
	link_ring(c->ring, order, lines);
	free(order);
	return c;
out:
	free(order), free(c->ring), free(c);
	return NULL;
}

static void run(void *state)
{
	struct chase *c = state;
	size_t lines = c->bytes / 64;
	void **p[CHASE_CHAINS];
	for (int j = 0; j < CHASE_CHAINS; j++) /* starting lines evenly spaced in memory */
		p[j] = &c->ring[SLOT((size_t)j * lines / CHASE_CHAINS)];
	/* the chains fully unrolled, so each stays in a register: a loop over p[] keeps it on the
	 * stack, and every step then waits for a store's forwarding as well as its load */
	for (long i = c->n; i > 0; i--) {
		UNROLL_PRAGMA(CHASE_CHAINS)
		for (int j = 0; j < CHASE_CHAINS; j++)
			p[j] = (void **)*p[j];
	}
	for (int j = 0; j < CHASE_CHAINS; j++)
		c->sink = p[j];
	ROT_TALLY(0, 8.0 * c->n * CHASE_CHAINS);
}

static void dispose(void *state)
{
	struct chase *c = state;
	free(c->ring), free(c);
}

static int buffers(void *state, struct rot_buffer *out, int max)
{
	struct chase *c = state;
	if (max < 1)
		return 0;
	out[0] = (struct rot_buffer){c->ring, c->bytes};
	return 1;
}

static double zero(const struct rot_args *a)
{
	return 0;
}
static double bytes(const struct rot_args *a)
{
	return 8 * rot_arg(a, "n") * CHASE_CHAINS;
}

static const struct rot_kernel chase = {.name = "chase",
					.description =
					    "pointer chases: load latency and loads in flight",
					.params = params,
					.init = init,
					.run = run,
					.dispose = dispose,
					.buffers = buffers,
					.flops = zero,
					.bytes = bytes,
					.written = zero, /* loads only */
					.check = check};
ROT_KERNEL(chase)
