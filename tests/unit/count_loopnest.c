/* count_loopnest: the counting tool's loop assembly (core/count/loopnest.c) natively, on runs
 * made up here: a two-level nest (ranges, parents, depths, entries at the edge of each range,
 * iterations, counts to the innermost loop), a rotated loop entered in its middle, two latches,
 * what is no loop (a jump to itself, a tail call to another function or to a called entry, a
 * cold path's jump back to code that does not lead to it again),
 * one place run by two translations, unknown code, every count found again in the sum, and a
 * region's part of a nest (the whole's loops, the part's iterations and counts).
 * judges no time */
#include "../../core/count/loopnest.c"
#include "tap.h"

#include <stdlib.h>

static void *zalloc(loopnest_u64 n)
{
	return calloc(1, n ? n : 1);
}

static void sort(void *b, loopnest_u64 n, loopnest_u64 s, int (*c)(const void *, const void *))
{
	qsort(b, n, s, c);
}

static const struct loopnest_env env = {zalloc, free, sort};

#define MAXI 64
static struct loopnest_instr in[MAXI];
static struct loopnest_flow fl[MAXI];
static loopnest_u64 costs[MAXI][COUNT_N];
static int nin, nfl;

/* An instruction of 4 bytes at off in object 0 (obj -1: unknown code), function fn, run
 * execs times, each time loading 8 bytes and doing flops fp64 flops. */
static void instr(int obj, unsigned fn, loopnest_u64 off, loopnest_u64 execs, loopnest_u64 flops)
{
	costs[nin][COUNT_LOADED] = 8 * execs;
	costs[nin][COUNT_FP64_SCALAR] = flops * execs;
	in[nin] = (struct loopnest_instr){obj, 4, fn, off, execs, costs[nin]};
	nin++;
}

static void flow(loopnest_u64 from, loopnest_u64 to, loopnest_u64 count)
{
	fl[nfl++] = (struct loopnest_flow){0, 0, to != from + 4, from, to, count};
}

static void reset(void)
{
	nin = nfl = 0;
	memset(costs, 0, sizeof costs);
}

static const struct loopnest_loop *loop_at(const struct loopnest *n, loopnest_u64 lo)
{
	for (int i = 0; i < n->nloops; i++)
		if (n->loops[i].lo == lo)
			return &n->loops[i];
	return NULL;
}

/* The sum of one count over the loops, the functions and unknown code. */
static loopnest_u64 total(const struct loopnest *n, int id, unsigned nfn)
{
	loopnest_u64 t = n->unknown[id];
	for (int i = 0; i < n->nloops; i++)
		t += n->loops[i].cost[id];
	for (unsigned f = 0; f < nfn; f++)
		t += n->fn_cost[f][id];
	return t;
}

/* The part of nest_case's loops that 4 of the outer loop's passes did (a region open while they
 * ran, from the jump back to the outer head on): the same loops with their share. */
static void part_case(const struct loopnest *whole)
{
	struct loopnest part;
	reset();
	instr(0, 0, 0x08, 4, 0);
	instr(0, 0, 0x0c, 400, 2);
	instr(0, 0, 0x10, 400, 0);
	instr(0, 0, 0x14, 400, 0);
	instr(0, 0, 0x18, 4, 1);
	instr(0, 0, 0x1c, 4, 0);
	instr(0, 0, 0x20, 4, 0);
	instr(0, 0, 0x24, 0, 0); /* (translated, not run in the part) */
	flow(0x08, 0x0c, 4);
	flow(0x0c, 0x10, 400);
	flow(0x10, 0x14, 400);
	flow(0x14, 0x0c, 396);
	flow(0x14, 0x18, 4);
	flow(0x18, 0x1c, 4);
	flow(0x1c, 0x20, 4);
	flow(0x20, 0x08, 4);
	ok(loopnest_part(&env, whole, in, nin, fl, nfl, 1, &part) == 0 && part.nloops == 2,
	   "a part made: the whole's two loops");
	const struct loopnest_loop *o = loop_at(&part, 0x08), *i = loop_at(&part, 0x0c);
	if (!o || !i)
		return;
	ok(o->hi == 0x24 && i->depth == 2 && &part.loops[i->parent] == o,
	   "its loops have the whole's ranges and nest");
	ok(i->iterations == 400 && i->entries == 4 && i->back == 396 && o->iterations == 4 &&
	       o->entries == 0 && o->back == 4,
	   "their iterations, entries and back edges are the part's (inner %llu %llu %llu, outer "
	   "%llu %llu %llu)",
	   i->iterations, i->entries, i->back, o->iterations, o->entries, o->back);
	ok(i->cost[COUNT_FP64_SCALAR] == 800 && o->cost[COUNT_FP64_SCALAR] == 4 &&
	       i->instrs == 1200 && o->instrs == 16,
	   "their counts and instructions' runs too");
	ok(!part.fn_ran[0] && !part.unknown_ran, "code the part did not run has no record");
	loopnest_free(&env, &part);
}

/*
 * f (fn 0, 0x00-0x40):  0x00 0x04: before; outer [0x08, 0x24): 0x08, inner [0x0c, 0x18):
 * 0x0c 0x10 0x14 (latch, back to 0x0c), 0x18 0x1c, 0x20 (latch, back to 0x08); 0x24 after.
 * Entered once, outer 10 times round, inner 100 times round per outer pass.
 */
static void nest_case(void)
{
	struct loopnest_fn fn[] = {{0, 1, 0}};
	struct loopnest out;
	reset();
	instr(0, 0, 0x00, 1, 0);
	instr(0, 0, 0x04, 1, 0);
	instr(0, 0, 0x08, 10, 0);
	instr(0, 0, 0x0c, 1000, 2);
	instr(0, 0, 0x10, 1000, 0);
	instr(0, 0, 0x14, 1000, 0);
	instr(0, 0, 0x18, 10, 1);
	instr(0, 0, 0x1c, 10, 0);
	instr(0, 0, 0x20, 10, 0);
	instr(0, 0, 0x24, 1, 0);
	flow(0x00, 0x04, 1);
	flow(0x04, 0x08, 1);
	flow(0x08, 0x0c, 10);
	flow(0x0c, 0x10, 1000);
	flow(0x10, 0x14, 1000);
	flow(0x14, 0x0c, 990);
	flow(0x14, 0x18, 10);
	flow(0x18, 0x1c, 10);
	flow(0x1c, 0x20, 10);
	flow(0x20, 0x08, 9);
	flow(0x20, 0x24, 1);
	ok(loopnest_build(&env, in, nin, fl, nfl, NULL, 0, fn, 1, &out) == 0, "a nest assembled");
	const struct loopnest_loop *o = loop_at(&out, 0x08), *i = loop_at(&out, 0x0c);
	ok(out.nloops == 2 && o && i, "two loops, at their heads 0x08 and 0x0c (%d)", out.nloops);
	if (!o || !i)
		return;
	ok(o->hi == 0x24 && i->hi == 0x18, "their ranges end after their latches");
	ok(o->depth == 1 && o->parent == -1 && i->depth == 2 && &out.loops[i->parent] == o,
	   "the inner one nests in the outer one (depth 2 of 2)");
	ok(o->entries == 1 && i->entries == 10, "entered once and 10 times (%llu, %llu)",
	   o->entries, i->entries);
	ok(o->iterations == 10 && i->iterations == 1000 && o->back == 9 && i->back == 990,
	   "iterations are the heads' runs, back edges the latches' taken jumps");
	ok(i->cost[COUNT_FP64_SCALAR] == 2000 && o->cost[COUNT_FP64_SCALAR] == 10,
	   "flops go to the innermost loop holding them (inner 2000, outer 10)");
	ok(o->cost[COUNT_LOADED] == 8 * 40 && i->cost[COUNT_LOADED] == 8 * 3000 &&
	       out.fn_cost[0][COUNT_LOADED] == 8 * 3 && out.fn_ran[0],
	   "bytes too; the code outside both, the function's");
	ok(total(&out, COUNT_LOADED, 1) == 8 * 3043 && total(&out, COUNT_FP64_SCALAR, 1) == 2010,
	   "nothing lost: loops and function sum to every instruction's counts");
	ok(i->instrs == 3000 && o->instrs == 40 && out.fn_instrs[0] == 3,
	   "each loop's and the function's instructions' runs (%llu, %llu, %llu)", i->instrs,
	   o->instrs, out.fn_instrs[0]);
	part_case(&out);
	loopnest_free(&env, &out);
}

/* A loop entered at its condition in the middle ([0x10, 0x20): jump from 0x08 to 0x18, body
 * 0x10 0x14, condition 0x18, latch 0x1c back to 0x10), run 5 times, entered 3 times; a second
 * latch at 0x14 (a continue); a rep at 0x24 jumping to itself. */
static void rotated_case(void)
{
	struct loopnest_fn fn[] = {{0, 1, 0}};
	struct loopnest out;
	reset();
	instr(0, 0, 0x08, 3, 0);
	instr(0, 0, 0x10, 15, 0);
	instr(0, 0, 0x14, 15, 0);
	instr(0, 0, 0x18, 14, 0);
	instr(0, 0, 0x1c, 14, 0);
	instr(0, 0, 0x24, 50, 0);
	flow(0x08, 0x18, 3);
	flow(0x10, 0x14, 15);
	flow(0x14, 0x10, 4); /* continue */
	flow(0x14, 0x18, 11);
	flow(0x18, 0x1c, 14);
	flow(0x1c, 0x10, 11);
	flow(0x1c, 0x20, 3);
	flow(0x24, 0x24, 47); /* rep */
	ok(loopnest_build(&env, in, nin, fl, nfl, NULL, 0, fn, 1, &out) == 0 && out.nloops == 1,
	   "a rotated loop with two latches is one loop; a rep's jump to itself none (%d)",
	   out.nloops);
	const struct loopnest_loop *l = loop_at(&out, 0x10);
	ok(l && l->hi == 0x20 && l->nlatches == 2 && l->latches[0] == 0x14 &&
	       l->latches[1] == 0x1c && l->back == 15,
	   "its range ends after the last latch, both latches listed, their jumps summed");
	ok(l && l->entries == 3 && l->iterations == 15,
	   "entered 3 times at its condition, not at its head; its head ran 15 times");
	loopnest_free(&env, &out);
}

/* Jumps back to another function (a tail call), and, in a stripped object (no function named),
 * to a place calls went to: no loops; to one no call went to: a loop. Unknown code apart. */
static void no_loop_case(void)
{
	struct loopnest_fn fn[] = {{0, 1, 0x00}, {0, 1, 0x40}, {1, 0, 0}, {0, 1, 0x10}};
	struct loopnest_place calls[] = {{1, 0x100}};
	struct loopnest out;
	reset();
	instr(0, 0, 0x00, 5, 0);
	instr(0, 1, 0x40, 5, 0);
	instr(1, 2, 0x100, 5, 0);
	instr(1, 2, 0x120, 5, 0);
	instr(1, 2, 0x140, 5, 0);
	instr(1, 2, 0x160, 5, 0);
	instr(-1, 0, 0x7000, 7, 1);
	instr(0, 0, 0x00, 2, 0); /* the same place in another translation */
	fl[nfl++] = (struct loopnest_flow){0, 0, 1, 0x40, 0x00, 5};
	fl[nfl++] = (struct loopnest_flow){1, 1, 1, 0x120, 0x100, 4};
	fl[nfl++] = (struct loopnest_flow){1, 1, 1, 0x140, 0x160, 5}; /* (its body, jumped over) */
	fl[nfl++] = (struct loopnest_flow){1, 1, 1, 0x160, 0x140, 4};
	/* g (fn 3) has a cold path after its return: 0x10 jumps to it, it jumps back to 0x14 */
	instr(0, 3, 0x10, 1, 0);
	instr(0, 3, 0x14, 1, 0);
	instr(0, 3, 0x18, 1, 0);
	instr(0, 3, 0x30, 1, 0);
	instr(0, 3, 0x34, 1, 0);
	flow(0x10, 0x30, 1);
	flow(0x30, 0x34, 1);
	flow(0x34, 0x14, 1);
	flow(0x14, 0x18, 1);
	ok(loopnest_build(&env, in, nin, fl, nfl, calls, 1, fn, 4, &out) == 0, "assembled");
	ok(out.nloops == 1 && out.loops[0].obj == 1 && out.loops[0].lo == 0x140,
	   "no loop across functions, none to a called entry, none where a cold path jumps back "
	   "to code that never leads to it; one elsewhere in a stripped object");
	ok(fn[2].start == 0x100, "the unnamed function stands for its lowest offset that ran");
	ok(out.unknown_ran && out.unknown[COUNT_FP64_SCALAR] == 7 &&
	       out.unknown[COUNT_LOADED] == 56,
	   "unknown code's counts kept apart");
	ok(out.fn_cost[0][COUNT_LOADED] == 8 * 7, "two translations of one place summed");
	loopnest_free(&env, &out);
}

int main(void)
{
	nest_case();
	rotated_case();
	no_loop_case();
	return done_testing();
}
