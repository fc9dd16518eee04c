/* loops: rot's counting tool's view of where the program's counts come from (--rot-loops=yes):
 * each superblock cut into straight runs of code with a counter each, each instruction's counts
 * per run kept with its object and offset, the jumps between them; at exit the loops assembled
 * (loopnest.c) and written with their counts. */
#ifndef ROT_COUNT_LOOPS_H
#define ROT_COUNT_LOOPS_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

#include "cachesim.h"
#include "counts.h"

/* Whether loops are counted (--rot-loops=yes), and the simulated caches (tool.c's). */
extern Bool count_loops;
extern struct cachesim *count_cachesim;

/*
 * The hooks instrument.c calls as it rewrites a superblock into out, in this order: begin; for
 * each instruction's IMark, instr with the pass's pending counts (those of the code before it
 * included); for each side exit, settle (its pending counts, before they are added) and, once
 * the exit is in out, exit; at the end, end with the pending counts and the input superblock.
 * (instr gets the input superblock and the IMark's index in it.)
 * access replaces the pass's own handling of a memory access beyond its pending bytes (a
 * guarded one's bytes, the simulated caches), adding to the instruction's counts as well.
 */
void loops_begin(IRSB *out);
void loops_instr(const ULong *pending, const IRSB *in, Int i);
void loops_settle(const ULong *pending);
void loops_exit(const IRStmt *exit);
void loops_end(const ULong *pending, const IRSB *in);
void loops_access(IRExpr *addr, Int size, Bool write, IRExpr *guard);

/* Every count so far forgotten (a forked child counts its own work). */
void loops_forget(void);

/*
 * The output's loops, objects and functions, then each region's part of them (region_of(ctx):
 * the region whose part context ctx's counts are, -1 none; name_of(r): its name), written
 * through put (text), put_name (a name as one token) and put_counts (the counts, then the
 * line's end), once the program has ended.
 */
void loops_write(void (*put)(const HChar *), void (*put_name)(const HChar *),
		 void (*put_counts)(const ULong *), Int (*region_of)(UInt ctx),
		 const HChar *(*name_of)(Int region));

#endif
