/* chase: CHASE_CHAINS independent pointer chases through one random cycle over ws bytes
 * (one pointer per 64-byte line), n steps each: one chain gives the load-to-use latency of
 * the level that holds ws, several give the loads in flight. Declares 8 bytes per load. */
#include "macro/CHASE_CHAINS.h"
#include "macro/ROT_TALLY.h"
#include "kernel.h"
#include "tally.h"

#include <stdlib.h>

#ifndef CHASE_CHAINS
#define CHASE_CHAINS 1
#endif
#define LINE 8 /* pointers per 64-byte line */

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

static void *init(const struct rot_args *a)
{
	struct chase *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	size_t lines = (size_t)rot_arg(a, "ws") / 64, *order = malloc((lines + 1) * sizeof *order);
	c->n = (long)rot_arg(a, "n");
	c->bytes = lines * 64;
	c->ring = lines ? rot_alloc(c->bytes) : NULL;
	if (!c->ring || !order) {
		free(order), free(c->ring), free(c);
		return NULL;
	}
	/* Sattolo's shuffle: one cycle through every line, in an order prefetchers cannot guess */
	unsigned long long x = 88172645463325252ull;
	for (size_t i = 0; i < lines; i++)
		order[i] = i;
	for (size_t i = lines - 1; i > 0; i--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t j = (size_t)(x % i), t = order[i];
		order[i] = order[j], order[j] = t;
	}
	for (size_t i = 0; i < lines; i++)
		c->ring[order[i] * LINE] = &c->ring[order[(i + 1) % lines] * LINE];
	free(order);
	return c;
}

static void run(void *state)
{
	struct chase *c = state;
	size_t lines = c->bytes / 64;
	void **p[CHASE_CHAINS];
	for (int j = 0; j < CHASE_CHAINS; j++) /* evenly spaced starting lines of the one cycle */
		p[j] = &c->ring[(size_t)j * lines / CHASE_CHAINS * LINE];
	for (long i = 0; i < c->n; i++)
		for (int j = 0; j < CHASE_CHAINS; j++)
			p[j] = (void **)*p[j];
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

static double zero(const struct rot_args *a) { return 0; }
static double bytes(const struct rot_args *a) { return 8 * rot_arg(a, "n") * CHASE_CHAINS; }

static const struct rot_kernel chase = {.name = "chase",
					.description = "pointer chases: load latency and loads in flight",
					.params = params,
					.init = init,
					.run = run,
					.dispose = dispose,
					.buffers = buffers,
					.flops = zero,
					.bytes = bytes};
ROT_KERNEL(chase)
