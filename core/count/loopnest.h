/* loopnest: a program's loops assembled from what rot's counting tool saw it run: the taken
 * backward jumps within a function, each loop's range, nest, entries and iterations, and every
 * instruction's counts given to the innermost loop whose range holds it (else its function).
 * Freestanding C (no library calls): it runs inside the tool at exit and, natively, in its unit
 * test. */
#ifndef ROT_COUNT_LOOPNEST_H
#define ROT_COUNT_LOOPNEST_H

#include "counts.h"

typedef unsigned long long loopnest_u64;

#define LOOPNEST_LATCHES 4 /* latches a loop lists (more are counted in its back edges) */

/* What the assembly needs of its host: zeroed memory (NULL: none left), its release, and a
 * sort with qsort's contract. */
struct loopnest_env {
	void *(*alloc)(loopnest_u64 bytes);
	void (*release)(void *p);
	void (*sort)(void *base, loopnest_u64 n, loopnest_u64 size,
		     int (*cmp)(const void *, const void *));
};

/* An instruction the program ran (several entries of one place are summed): where it lies
 * (obj -1: in no object, unknown code; off: its address as its object links it), its length,
 * its function (an index below nfn), the times it ran and its counts over them (NULL: none). */
struct loopnest_instr {
	int obj;
	unsigned len, fn;
	loopnest_u64 off, execs;
	loopnest_u64 *cost; /* COUNT_N counts */
};

/* Control that passed from one instruction to another, count times: jump 1 when it was a taken
 * jump (to is not from's next instruction), 0 when it fell through or a call returned. */
struct loopnest_flow {
	int from_obj, to_obj, jump;
	loopnest_u64 from, to, count;
};

/* A place calls went to (a function's entry): a backward jump to one is no loop. */
struct loopnest_place {
	int obj;
	loopnest_u64 off;
};

/* A function the instructions name: its object, its entry (named 0: no symbol says where it
 * begins; the lowest offset it ran then stands for it). */
struct loopnest_fn {
	int obj, named;
	loopnest_u64 start;
};

/* A loop: the range [lo, hi) of its object from its head (the backward jumps' target) to the
 * end of its last latch, the latches (the jumps), its parent (the innermost loop whose range
 * holds it, -1: none) and depth (1: outermost), times it was entered from outside its range,
 * times its head ran (iterations), its taken backward jumps, and the runs (instrs) and counts of
 * the instructions it holds and no loop inside it does. */
struct loopnest_loop {
	int obj, parent, depth, nlatches;
	unsigned fn;
	loopnest_u64 lo, hi, entries, iterations, back, instrs;
	loopnest_u64 latches[LOOPNEST_LATCHES];
	loopnest_u64 cost[COUNT_N];
};

/* The assembly's result: the loops (by object, then range), each function's counts outside
 * its loops (fn_cost[f], fn_instrs[f] the runs of its instructions there, fn_ran[f]: whether
 * any of its code ran outside them), the counts and runs of unknown code. */
struct loopnest {
	struct loopnest_loop *loops;
	int nloops;
	loopnest_u64 (*fn_cost)[COUNT_N];
	loopnest_u64 *fn_instrs;
	char *fn_ran;
	loopnest_u64 unknown[COUNT_N], unknown_instrs;
	int unknown_ran;
};

/*
 * Assembles the loops. A loop is every taken backward jump (flows with jump set and to below
 * from; a jump to itself, such as a rep prefix's, is none) whose head and latch lie in the same
 * function of one object, to a head no call went to; jumps to one head are one loop. Sorts and
 * merges in, fl and calls in place; fn (nfn entries) gets unnamed functions' lowest offsets.
 * Returns 0, or -1 when memory ran out (out then holds nothing to free).
 */
int loopnest_build(const struct loopnest_env *env, struct loopnest_instr *in, loopnest_u64 nin,
		   struct loopnest_flow *fl, loopnest_u64 nfl, struct loopnest_place *calls,
		   loopnest_u64 ncalls, struct loopnest_fn *fn, unsigned nfn, struct loopnest *out);

/*
 * The part of the loops of whole (loopnest_build's) that a share of the program's run did
 * (the instructions in and the control fl of the time a region was open): whole's loops with
 * that share's entries, iterations, back edges (jumps to a loop's head from within its range),
 * runs and counts, and its functions' and unknown code's, into part (loopnest_free releases it).
 * Sorts and merges in and fl in place. Returns 0, or -1 when memory ran out.
 */
int loopnest_part(const struct loopnest_env *env, const struct loopnest *whole,
		  struct loopnest_instr *in, loopnest_u64 nin, struct loopnest_flow *fl,
		  loopnest_u64 nfl, unsigned nfn, struct loopnest *part);

/* Releases what loopnest_build or loopnest_part made. */
void loopnest_free(const struct loopnest_env *env, struct loopnest *out);

#endif
