/* contexts: the counts generated code adds to, per context (the region the running thread is
 * in): each context's passes by run in one table, its dynamic counts in pages made when a slot
 * of theirs is first reached, all grown together as translation makes runs and slots. */
#include "contexts.h"

#include "pub_tool_libcbase.h"

ULong *contexts_runs;
ULong **contexts_pages;

/* A context's tables (runs NULL: never entered), with room for room_runs runs and room_slots
 * slots (room_slots / CONTEXTS_PAGE pages). */
static struct context {
	ULong *runs, **pages;
} * ctxs;
static UInt nctxs, room_runs, room_slots, now;

/* p (of had words, NULL: none) with room for want words, the new ones zeroed. */
static void *widen(void *p, UInt had, UInt want, SizeT size)
{
	p = VG_(realloc)("rotcount.contexts", p, (SizeT)want * size);
	VG_(memset)((char *)p + (SizeT)had * size, 0, (SizeT)(want - had) * size);
	return p;
}

void contexts_room(UInt runs, UInt slots)
{
	UInt r = room_runs, d = room_slots;
	while (r < runs)
		r *= 2;
	while (d < slots)
		d *= 2;
	if (r == room_runs && d == room_slots)
		return;
	for (UInt c = 0; c < nctxs; c++) {
		if (!ctxs[c].runs)
			continue;
		ctxs[c].runs = widen(ctxs[c].runs, room_runs, r, sizeof(ULong));
		ctxs[c].pages = widen(ctxs[c].pages, room_slots / CONTEXTS_PAGE, d / CONTEXTS_PAGE,
				      sizeof(ULong *));
	}
	room_runs = r;
	room_slots = d;
	contexts_runs = ctxs[now].runs;
	contexts_pages = ctxs[now].pages;
}

void contexts_enter(UInt ctx)
{
	if (ctx >= nctxs) {
		UInt n = nctxs ? nctxs : 8;
		while (n <= ctx)
			n *= 2;
		ctxs = widen(ctxs, nctxs, n, sizeof *ctxs);
		nctxs = n;
	}
	if (!room_runs)
		room_runs = room_slots = 4 * CONTEXTS_PAGE;
	if (!ctxs[ctx].runs) {
		ctxs[ctx].runs = widen(NULL, 0, room_runs, sizeof(ULong));
		ctxs[ctx].pages = widen(NULL, 0, room_slots / CONTEXTS_PAGE, sizeof(ULong *));
	}
	now = ctx;
	contexts_runs = ctxs[ctx].runs;
	contexts_pages = ctxs[ctx].pages;
}

void contexts_forget(void)
{
	for (UInt c = 0; c < nctxs; c++) {
		if (!ctxs[c].runs)
			continue;
		VG_(memset)(ctxs[c].runs, 0, (SizeT)room_runs * sizeof(ULong));
		for (UInt p = 0; p < room_slots / CONTEXTS_PAGE; p++)
			if (ctxs[c].pages[p])
				VG_(memset)
				(ctxs[c].pages[p], 0, CONTEXTS_PAGE * CONTEXTS_DYN * sizeof(ULong));
	}
}

UInt contexts_n(void)
{
	return nctxs;
}

Bool contexts_entered(UInt ctx)
{
	return ctx < nctxs && ctxs[ctx].runs != NULL;
}

void contexts_add(UInt ctx, UInt nruns, UInt nslots, ULong *runs, ULong *dyn)
{
	const struct context *c = &ctxs[ctx];
	for (UInt j = 0; j < nruns; j++)
		runs[j] += c->runs[j];
	for (UInt d = 0; d < nslots; d++) {
		const ULong *page = c->pages[d / CONTEXTS_PAGE];
		for (UInt k = 0; page && k < CONTEXTS_DYN; k++)
			dyn[d * CONTEXTS_DYN + k] += page[(d % CONTEXTS_PAGE) * CONTEXTS_DYN + k];
	}
}
