/* loopsout: the words rot's counting tool writes for the loops it assembled (counts.h's loops,
 * object, loop, function and unknown records) and for each region's part of them (regionloop,
 * regionfunction, regionunknown). */
#ifndef ROT_COUNT_LOOPSOUT_H
#define ROT_COUNT_LOOPSOUT_H

#include "pub_tool_basics.h"

#include "loopnest.h"

/* How the output is written (tool.c's: text, a name as one token, the counts then the line's
 * end) and, for a region's part, the region's name (NULL: the whole program's). */
struct loops_out {
	void (*put)(const HChar *);
	void (*put_name)(const HChar *);
	void (*put_counts)(const ULong *);
	const HChar *region;
};

/* The loops of nest (loopnest_build's) with the objects they name, and the code outside them:
 * its functions (fn, nfn of them) and unknown code, each that ran. */
void loopsout_nest(const struct loops_out *o, const struct loopnest *nest,
		   const struct loopnest_fn *fn, unsigned nfn, HChar *const *objects,
		   UInt nobjects);

/* A region's part (loopnest_part's, o->region its name): each loop, function and unknown code
 * that ran in it. */
void loopsout_part(const struct loops_out *o, const struct loopnest *part,
		   const struct loopnest_fn *fn, unsigned nfn);

#endif
