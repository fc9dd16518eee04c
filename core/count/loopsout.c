/* loopsout: the loops' records of rot's counting tool's output: the whole program's loops,
 * objects, functions and unknown code, and a region's part of them, each a line (counts.h's
 * words, the counts through the output's put_counts). */
#include "loopsout.h"

#include "pub_tool_libcprint.h"

static void put_loop(void (*put)(const HChar *), void (*put_counts)(const ULong *),
		     const struct loopnest_loop *l, Int id)
{
	HChar s[256];
	VG_(snprintf)
	(s, sizeof s,
	 "%s id=%d obj=%d head=0x%llx end=0x%llx latches=", count_record_word(COUNT_RECORD_LOOP),
	 id, l->obj, l->lo, l->hi);
	put(s);
	for (Int i = 0; i < l->nlatches; i++) {
		VG_(snprintf)(s, sizeof s, "%s0x%llx", i ? "," : "", l->latches[i]);
		put(s);
	}
	VG_(snprintf)
	(s, sizeof s, " depth=%d parent=%d entries=%llu iterations=%llu back=%llu instrs=%llu",
	 l->depth, l->parent + 1, l->entries, l->iterations, l->back, l->instrs);
	put(s);
	put_counts(l->cost);
}

/* A record's word, with a region's part its region's word and name first. */
static void put_word(const struct loops_out *o, enum count_record whole, enum count_record part)
{
	o->put(count_record_word(o->region ? part : whole));
	if (o->region) {
		o->put(" region=");
		o->put_name(o->region);
	}
}

/* The functions' and unknown code's records of nest (fn its functions). */
static void put_rest(const struct loops_out *o, const struct loopnest *nest,
		     const struct loopnest_fn *fn, unsigned nfn)
{
	HChar s[160];
	for (unsigned f = 0; f < nfn; f++) {
		if (!nest->fn_ran[f] || fn[f].obj < 0)
			continue;
		put_word(o, COUNT_RECORD_FUNCTION, COUNT_RECORD_REGIONFUNCTION);
		VG_(snprintf)
		(s, sizeof s, " obj=%d off=0x%llx named=%d instrs=%llu", fn[f].obj, fn[f].start,
		 fn[f].named, nest->fn_instrs[f]);
		o->put(s);
		o->put_counts(nest->fn_cost[f]);
	}
	if (nest->unknown_ran) {
		put_word(o, COUNT_RECORD_UNKNOWN, COUNT_RECORD_REGIONUNKNOWN);
		VG_(snprintf)(s, sizeof s, " instrs=%llu", nest->unknown_instrs);
		o->put(s);
		o->put_counts(nest->unknown);
	}
}

void loopsout_nest(const struct loops_out *o, const struct loopnest *nest,
		   const struct loopnest_fn *fn, unsigned nfn, HChar *const *objects, UInt nobjects)
{
	HChar s[160];
	VG_(snprintf)
	(s, sizeof s, "%s n=%d\n", count_record_word(COUNT_RECORD_LOOPS), nest->nloops);
	o->put(s);
	for (UInt i = 0; i < nobjects; i++) {
		VG_(snprintf)
		(s, sizeof s, "%s id=%u path=", count_record_word(COUNT_RECORD_OBJECT), i);
		o->put(s);
		o->put_name(objects[i]);
		o->put("\n");
	}
	for (Int i = 0; i < nest->nloops; i++)
		put_loop(o->put, o->put_counts, &nest->loops[i], i + 1);
	put_rest(o, nest, fn, nfn);
}

void loopsout_part(const struct loops_out *o, const struct loopnest *part,
		   const struct loopnest_fn *fn, unsigned nfn)
{
	HChar s[160];
	for (Int i = 0; i < part->nloops; i++) {
		const struct loopnest_loop *l = &part->loops[i];
		if (!l->instrs)
			continue;
		put_word(o, COUNT_RECORD_LOOP, COUNT_RECORD_REGIONLOOP);
		VG_(snprintf)
		(s, sizeof s, " id=%d entries=%llu iterations=%llu back=%llu instrs=%llu", i + 1,
		 l->entries, l->iterations, l->back, l->instrs);
		o->put(s);
		o->put_counts(l->cost);
	}
	put_rest(o, part, fn, nfn);
}
