/* contexts: the counts rot's counting tool's generated code adds to, kept apart per context (the
 * region the running thread is in, as tool.c numbers them): each straight run's passes, and each
 * instruction slot's dynamic counts (its guarded accesses' bytes, the simulated caches' traffic),
 * made when a context is first entered; loops.c reads them at exit. */
#ifndef ROT_COUNT_CONTEXTS_H
#define ROT_COUNT_CONTEXTS_H

#include "pub_tool_basics.h"
#include "pub_tool_mallocfree.h"

#include "counts.h"

/* A slot's dynamic counts: COUNT_N's from COUNT_LOADED (the bytes, then the traffic). */
#define CONTEXTS_DYN (COUNT_N - COUNT_LOADED)
#define CONTEXTS_PAGE 1024 /* slots a page of dynamic counts holds */

/* The running context's passes by run, and its pages of dynamic counts (NULL: not made yet):
 * generated code and the access helpers add to them, reading these each time. */
extern ULong *contexts_runs;
extern ULong **contexts_pages;

/* Every entered context with room for runs runs and slots slots (grown by doubling). Called
 * at translation, never while generated code runs. */
void contexts_room(UInt runs, UInt slots);

/* The running thread's counts go to context ctx from now on (its tables made when new). */
void contexts_enter(UInt ctx);

/* The running context's dynamic counts of slot (its page made when first reached). */
static inline ULong *contexts_slot(UWord slot)
{
	ULong **page = &contexts_pages[slot / CONTEXTS_PAGE];
	if (!*page)
		*page = VG_(calloc)("rotcount.contexts.page", CONTEXTS_PAGE * CONTEXTS_DYN,
				    sizeof(ULong));
	return *page + (slot % CONTEXTS_PAGE) * CONTEXTS_DYN;
}

/* Every context's counts zeroed (a forked child counts its own work). */
void contexts_forget(void);

/* How many contexts there may be (entered ones below it), and whether ctx was entered. */
UInt contexts_n(void);
Bool contexts_entered(UInt ctx);

/* Context ctx's passes of runs [0, nruns) added to runs[], its slots [0, nslots)'s dynamic
 * counts to dyn[] (CONTEXTS_DYN words a slot). */
void contexts_add(UInt ctx, UInt nruns, UInt nslots, ULong *runs, ULong *dyn);

#endif
