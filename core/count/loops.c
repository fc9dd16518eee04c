/* loops: where rot's counting tool's counts come from, kept per instruction: each superblock's
 * straight runs of code (split at its side exits) count their passes; each instruction keeps
 * its object and offset, its function, its counts per pass of each run, and what the simulated
 * caches moved for it; passes and what the caches moved are kept per context (the region the
 * running thread is in); at exit the runs' passes give each instruction's executions and the
 * control between instructions, from which loopnest.c assembles the loops and each region's
 * part of them. */
#include "loops.h"
#include "contexts.h"
#include "instrument.h"
#include "loopnest.h"
#include "loopsout.h"

#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"

/* The counts an instruction's accesses add to as they run (contexts.h's): its guarded accesses'
 * bytes and the simulated caches' traffic (cachesim_ref's, from COUNT_FILL1). */
#define DYN CONTEXTS_DYN
_Static_assert(COUNT_STORED == COUNT_LOADED + 1 && COUNT_FILL1 == COUNT_LOADED + 2 &&
		   COUNT_EVICT4 == COUNT_N - 1,
	       "counts.h: the bytes, then the traffic, last");

Bool count_loops;

/* An instruction as one translation holds it: where it lies, its length, its function, whether
 * it calls, its slot of dynamic counts (-1: none yet). */
struct linstr {
	Addr off;
	Int obj, dyn;
	UInt fn, len,
	    call; /* call: the instruction calls (VEX hinted it: it may follow the call) */
};

/* An instruction's statements within one run, and their counts per pass (stats[stat..]). */
struct lslice {
	UInt instr, imark, nstat, stat;
};

struct lstat {
	UInt id;
	ULong n;
};

enum how { HOW_NONE, HOW_JUMP, HOW_CALL };

/* A straight run of a superblock (its passes: a context's runs[] at its index): its slices, how
 * control leaves it (last: the superblock's end; else a side exit, then the next run). */
struct lchunk {
	UInt first, n;
	UChar last, how;
	Int to_obj;
	Addr to;
};

struct lfn {
	Int obj;
	Bool named;
	Addr start;
};

#define GROW(a, n, cap)                                                                            \
	do {                                                                                       \
		if ((n) == (cap)) {                                                                \
			(cap) = (cap) ? 2 * (cap) : 4096;                                          \
			(a) = VG_(realloc)("rotcount.loops", (a), (cap) * sizeof *(a));            \
		}                                                                                  \
	} while (0)

static struct linstr *instrs;
static struct lslice *slices;
static struct lstat *stats;
static struct lchunk *chunks;
static struct lfn *fns;
static struct loopnest_place *calls;
static HChar **objects;
static UInt ninstrs, cinstrs, nslices, cslices, nstats, cstats, nchunks, cchunks, nfns, cfns,
    ncalls, ccalls, nobjects, cobjects;
static UInt *fn_hash, fn_hash_size; /* indices + 1 into fns, open addressing */
static UInt ndyn;		    /* slots of dynamic counts */

/* The superblock being rewritten. */
static struct {
	IRSB *out;
	Int chunk, instr, slice;
	ULong snap[COUNT_N]; /* the pending counts already given to slices */
} cur;

static Int object_of(const HChar *path)
{
	for (UInt i = 0; i < nobjects; i++)
		if (VG_(strcmp)(objects[i], path) == 0)
			return (Int)i;
	GROW(objects, nobjects, cobjects);
	objects[nobjects] = VG_(strdup)("rotcount.loops.object", path);
	return (Int)nobjects++;
}

/* The object of a text address and its offset there (obj -1: none, off the address). */
static void place_of(Addr a, Int *obj, Addr *off)
{
	DiEpoch ep = VG_(current_DiEpoch)();
	const DebugInfo *di = VG_(find_DebugInfo)(ep, a);
	const HChar *name = NULL;
	if (!di && VG_(DebugInfo_sect_kind)(&name, a) != Vg_SectUnknown && name)
		for (di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di))
			if (VG_(strcmp)(VG_(DebugInfo_get_filename)(di), name) == 0)
				break;
	if (!di) {
		*obj = -1;
		*off = a;
		return;
	}
	*obj = object_of(VG_(DebugInfo_get_filename)(di));
	*off = a - (Addr)VG_(DebugInfo_get_text_bias)(di);
}

static UInt fn_slot(Int obj, Bool named, Addr start)
{
	UWord h = ((UWord)start * 0x9E3779B97F4A7C15ull) ^ (UWord)(obj + 1) ^ (UWord)named;
	return (UInt)(h >> 20) & (fn_hash_size - 1);
}

/* The function (object, entry) as an index into fns, made when new. */
static UInt fn_intern(Int obj, Bool named, Addr start)
{
	if (2 * (nfns + 1) > fn_hash_size) { /* rehash at half full */
		VG_(free)(fn_hash);
		fn_hash_size = fn_hash_size ? 2 * fn_hash_size : 4096;
		fn_hash = VG_(calloc)("rotcount.loops.fnhash", fn_hash_size, sizeof *fn_hash);
		for (UInt i = 0; i < nfns; i++) {
			UInt s = fn_slot(fns[i].obj, fns[i].named, fns[i].start);
			while (fn_hash[s])
				s = (s + 1) & (fn_hash_size - 1);
			fn_hash[s] = i + 1;
		}
	}
	UInt s = fn_slot(obj, named, start);
	for (; fn_hash[s]; s = (s + 1) & (fn_hash_size - 1)) {
		const struct lfn *f = &fns[fn_hash[s] - 1];
		if (f->obj == obj && f->named == named && f->start == start)
			return fn_hash[s] - 1;
	}
	GROW(fns, nfns, cfns);
	fns[nfns] = (struct lfn){obj, named, start};
	fn_hash[s] = nfns + 1;
	return nfns++;
}

/* The N of a symbol name's "+N" (the offset VG_(get_fnname_w_offset) appends), else 0. */
static Addr name_offset(const HChar *name)
{
	const HChar *plus = VG_(strrchr)(name, '+');
	Addr n = 0;
	if (!plus || !plus[1])
		return 0;
	for (const HChar *c = plus + 1; *c; c++) {
		if (*c < '0' || *c > '9')
			return 0;
		n = 10 * n + (Addr)(*c - '0');
	}
	return n;
}

/* The function of the instruction at address a: its symbol's, else its object's unnamed one. */
static UInt fn_of(Addr a, Int obj, Addr off)
{
	const HChar *name;
	if (obj >= 0 && VG_(get_fnname_w_offset)(VG_(current_DiEpoch)(), a, &name))
		return fn_intern(obj, True, off - name_offset(name));
	return fn_intern(obj, False, 0);
}

/* In the superblock being rewritten: a new run, its pass added where code gets to (to the
 * running context's runs[], read then). */
static void new_chunk(void)
{
	GROW(chunks, nchunks, cchunks);
	contexts_room(nchunks + 1, ndyn);
	chunks[nchunks] = (struct lchunk){.first = nslices, .to_obj = -1};
	cur.chunk = (Int)nchunks++;
	IRSB *out = cur.out;
	IRTemp base = newIRTemp(out->tyenv, Ity_I64), t1 = newIRTemp(out->tyenv, Ity_I64),
	       t2 = newIRTemp(out->tyenv, Ity_I64), at_t = newIRTemp(out->tyenv, Ity_I64);
	addStmtToIRSB(out, IRStmt_WrTmp(base, IRExpr_Load(Iend_LE, Ity_I64,
							  mkIRExpr_HWord((HWord)&contexts_runs))));
	addStmtToIRSB(out,
		      IRStmt_WrTmp(at_t, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(base),
						      IRExpr_Const(IRConst_U64((ULong)cur.chunk *
									       sizeof(ULong))))));
	IRExpr *at = IRExpr_RdTmp(at_t);
	addStmtToIRSB(out, IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64, at)));
	addStmtToIRSB(out, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1),
							 IRExpr_Const(IRConst_U64(1)))));
	addStmtToIRSB(out, IRStmt_Store(Iend_LE, at, IRExpr_RdTmp(t2)));
}

static void open_slice(UInt instr, UInt imark)
{
	GROW(slices, nslices, cslices);
	slices[nslices] = (struct lslice){instr, imark, 0, nstats};
	cur.slice = (Int)nslices++;
	chunks[cur.chunk].n++;
}

/* The open slice closed with the counts pending since it opened (an empty continuation is
 * dropped). */
static void close_slice(const ULong *pending)
{
	if (cur.slice >= 0) {
		struct lslice *s = &slices[cur.slice];
		for (UInt id = 0; id < COUNT_N; id++) {
			ULong d = pending[id] - cur.snap[id];
			if (!d)
				continue;
			GROW(stats, nstats, cstats);
			stats[nstats++] = (struct lstat){id, d};
			s->nstat++;
		}
		if (!s->imark && !s->nstat) {
			nslices--;
			chunks[cur.chunk].n--;
		}
		cur.slice = -1;
	}
	VG_(memcpy)(cur.snap, pending, sizeof cur.snap);
}

void loops_forget(void)
{
	contexts_forget();
}

void loops_begin(IRSB *out)
{
	cur.out = out;
	cur.chunk = cur.instr = cur.slice = -1;
	VG_(memset)(cur.snap, 0, sizeof cur.snap);
}

/* Whether the instruction whose IMark is in->stmts[i] calls: VEX hints a call's (and a ret's:
 * a ret ends its superblock, so a call is the only one followed within one). */
static UInt calls_at(const IRSB *in, Int i)
{
	for (i++; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
		if (in->stmts[i]->tag == Ist_AbiHint)
			return 1;
	return 0;
}

void loops_instr(const ULong *pending, const IRSB *sb, Int i)
{
	const IRStmt *imark = sb->stmts[i];
	close_slice(pending);
	if (cur.chunk < 0)
		new_chunk();
	Addr a = imark->Ist.IMark.addr;
	GROW(instrs, ninstrs, cinstrs);
	struct linstr *in = &instrs[ninstrs];
	place_of(a, &in->obj, &in->off);
	in->fn = fn_of(a, in->obj, in->off);
	in->len = imark->Ist.IMark.len;
	in->call = calls_at(sb, i);
	in->dyn = -1;
	cur.instr = (Int)ninstrs++;
	open_slice((UInt)cur.instr, 1);
}

void loops_settle(const ULong *pending)
{
	close_slice(pending);
}

/* Where control goes from the run ending now: to the constant to (how: a jump, a call). */
static void leave(enum how how, Addr to)
{
	struct lchunk *c = &chunks[cur.chunk];
	c->how = (UChar)how;
	if (how != HOW_NONE)
		place_of(to, &c->to_obj, &c->to);
}

void loops_exit(const IRStmt *exit)
{
	if (cur.chunk < 0)
		return; /* a check before the first instruction (self-modifying code): no run yet */
	leave(exit->Ist.Exit.jk == Ijk_Boring ? HOW_JUMP : HOW_NONE, exit->Ist.Exit.dst->Ico.U64);
	new_chunk();
	VG_(memset)(cur.snap, 0, sizeof cur.snap); /* the pass added what was pending */
	if (cur.instr >= 0)
		open_slice((UInt)cur.instr, 0);
}

void loops_end(const ULong *pending, const IRSB *in)
{
	close_slice(pending);
	if (cur.chunk < 0)
		return;
	chunks[cur.chunk].last = 1;
	Bool known = in->next->tag == Iex_Const;
	Addr to = known ? (Addr)in->next->Iex.Const.con->Ico.U64 : 0;
	if (in->jumpkind == Ijk_Call) {
		leave(HOW_CALL, to);
		if (known && chunks[cur.chunk].to_obj >= 0) {
			GROW(calls, ncalls, ccalls);
			calls[ncalls++] =
			    (struct loopnest_place){chunks[cur.chunk].to_obj, chunks[cur.chunk].to};
		}
	} else {
		leave(known && in->jumpkind != Ijk_Ret ? HOW_JUMP : HOW_NONE, to);
	}
}

/* An access of (size | write << 16) bytes at addr by the instruction whose dynamic counts are
 * the running context's slot: the simulated caches' traffic to the thread's counts and to the
 * instruction's. */
static VG_REGPARM(3) void sim_at(Addr addr, UWord sw, UWord slot)
{
	ULong *cc = contexts_slot(slot);
	cachesim_ref(count_cachesim, addr, sw & 0xffff, sw >> 16, &count_live[COUNT_FILL1],
		     &cc[COUNT_FILL1 - COUNT_LOADED]);
}

/* The same for a guarded access that happens: its bytes counted here. */
static VG_REGPARM(3) void guarded_at(Addr addr, UWord sw, UWord slot)
{
	ULong *cc = contexts_slot(slot);
	enum count_id id = (sw >> 16) ? COUNT_STORED : COUNT_LOADED;
	count_live[id] += sw & 0xffff;
	cc[id - COUNT_LOADED] += sw & 0xffff;
	if (count_simulating)
		cachesim_ref(count_cachesim, addr, sw & 0xffff, sw >> 16, &count_live[COUNT_FILL1],
			     &cc[COUNT_FILL1 - COUNT_LOADED]);
}

/* A new slot of dynamic counts. */
static Int new_slot(void)
{
	contexts_room(nchunks, ndyn + 1);
	return (Int)ndyn++;
}

void loops_access(IRExpr *addr, Int size, Bool write, IRExpr *guard)
{
	static Int before = -1; /* an access before a superblock's first instruction: none known */
	Int slot;
	if (cur.instr >= 0) {
		struct linstr *in = &instrs[cur.instr];
		slot = in->dyn >= 0 ? in->dyn : (in->dyn = new_slot());
	} else {
		slot = before >= 0 ? before : (before = new_slot());
	}
	IRExpr **args = mkIRExprVec_3(addr, mkIRExpr_HWord((HWord)size | (HWord)write << 16),
				      mkIRExpr_HWord((HWord)slot));
	IRDirty *d =
	    guard ? unsafeIRDirty_0_N(3, "rotcount_guarded_at", VG_(fnptr_to_fnentry)(&guarded_at),
				      args)
		  : unsafeIRDirty_0_N(3, "rotcount_sim_at", VG_(fnptr_to_fnentry)(&sim_at), args);
	if (guard) { /* it adds to the counts the code around it adds to: said, so none moves */
		d->guard = guard;
		d->mFx = Ifx_Modify;
		d->mAddr = mkIRExpr_HWord((HWord)count_live);
		d->mSize = (Int)sizeof count_live;
	}
	addStmtToIRSB(cur.out, IRStmt_Dirty(d));
}

/* The loop assembly's host: Valgrind's allocator and sort. */
static void *nest_alloc(loopnest_u64 bytes)
{
	return VG_(calloc)("rotcount.loops.nest", 1, bytes ? bytes : 1);
}

static void nest_release(void *p)
{
	if (p)
		VG_(free)(p);
}

static void nest_sort(void *base, loopnest_u64 n, loopnest_u64 size,
		      int (*cmp)(const void *, const void *))
{
	VG_(ssort)(base, n, size, cmp);
}

static const struct loopnest_env env = {nest_alloc, nest_release, nest_sort};

/* The passes of the runs and the dynamic counts of a share of the program's run: of one
 * context, or several summed. */
struct view {
	ULong *runs, *dyn;
};

/* The contexts whose `pick` is `which` (every entered one where pick is NULL) summed into a
 * new view (nest_release its tables). */
static struct view view_of(Int (*pick)(UInt ctx), Int which)
{
	struct view v = {nest_alloc((SizeT)(nchunks ? nchunks : 1) * sizeof(ULong)),
			 nest_alloc((SizeT)(ndyn ? ndyn : 1) * DYN * sizeof(ULong))};
	for (UInt c = 0; c < contexts_n(); c++)
		if (contexts_entered(c) && (!pick || pick(c) == which))
			contexts_add(c, nchunks, ndyn, v.runs, v.dyn);
	return v;
}

/* Each instruction with its executions and its counts over every pass of the runs it lies in,
 * in view v (the counts in *arena, to release). */
static struct loopnest_instr *gather_instrs(struct view v, ULong **arena)
{
	struct loopnest_instr *in = nest_alloc(ninstrs * sizeof *in);
	UInt need = 0;
	for (UInt i = 0; i < ninstrs; i++)
		in[i] = (struct loopnest_instr){
		    instrs[i].obj, instrs[i].len, instrs[i].fn, instrs[i].off, 0, NULL};
	for (UInt j = 0; j < nchunks; j++) /* which instructions have counts: execs 1 marks them */
		for (UInt k = chunks[j].first; v.runs[j] && k < chunks[j].first + chunks[j].n; k++)
			in[slices[k].instr].execs |= slices[k].nstat > 0;
	for (UInt i = 0; i < ninstrs; i++)
		need += in[i].execs || instrs[i].dyn >= 0;
	ULong *next = *arena = nest_alloc((SizeT)need * COUNT_N * sizeof(ULong));
	for (UInt i = 0; i < ninstrs; i++) {
		if (!in[i].execs && instrs[i].dyn < 0)
			continue;
		in[i].execs = 0;
		in[i].cost = next;
		next += COUNT_N;
		if (instrs[i].dyn >= 0)
			VG_(memcpy)
		(in[i].cost + COUNT_LOADED, v.dyn + (SizeT)instrs[i].dyn * DYN,
		 DYN * sizeof(ULong));
	}
	for (UInt j = 0; j < nchunks; j++) {
		ULong n = v.runs[j];
		for (UInt k = chunks[j].first; n && k < chunks[j].first + chunks[j].n; k++) {
			const struct lslice *s = &slices[k];
			struct loopnest_instr *x = &in[s->instr];
			if (s->imark)
				x->execs += n;
			for (UInt i = 0; i < s->nstat; i++)
				x->cost[stats[s->stat + i].id] += n * stats[s->stat + i].n;
		}
	}
	return in;
}

/* Control passed n times from instruction `from` to (to_obj, to). */
static void flow(struct loopnest_flow *fl, UInt *nfl, UInt from, Int to_obj, Addr to, ULong n)
{
	const struct linstr *f = &instrs[from];
	if (n)
		fl[(*nfl)++] = (struct loopnest_flow){
		    f->obj, to_obj, !(to_obj == f->obj && to == f->off + f->len), f->off, to, n};
}

/* Control passed n times from instruction `from` to instruction `to`, the next one of a run: a
 * call VEX followed into its callee counts as returning to the instruction after it (the
 * callee noted as called where note). */
static void step(struct loopnest_flow *fl, UInt *nfl, UInt from, UInt to, ULong n, Bool note)
{
	const struct linstr *f = &instrs[from], *t = &instrs[to];
	if (!f->call || (t->obj == f->obj && t->off == f->off + f->len)) {
		flow(fl, nfl, from, t->obj, t->off, n);
		return;
	}
	flow(fl, nfl, from, f->obj, f->off + f->len, n);
	if (note && t->obj >= 0) {
		GROW(calls, ncalls, ccalls);
		calls[ncalls++] = (struct loopnest_place){t->obj, t->off};
	}
}

/*
 * The control between instructions, from each superblock's runs: from each instruction to the
 * next of its run (a fall-through or a jump the superblock followed), a side exit's passes
 * where the run after it has fewer, a superblock's end to its constant target (a call returns
 * to the next instruction), in view v (note: followed calls noted). Into fl (room for every
 * slice and run); how many.
 */
static UInt gather_flows(struct view v, struct loopnest_flow *fl, Bool note)
{
	UInt n = 0;
	Int prev = -1;
	for (UInt j = 0; j < nchunks; j++) {
		const struct lchunk *c = &chunks[j];
		for (UInt k = c->first; k < c->first + c->n; k++) {
			const struct lslice *s = &slices[k];
			if (!s->imark)
				continue;
			if (prev >= 0)
				step(fl, &n, (UInt)prev, s->instr, v.runs[j], note);
			prev = (Int)s->instr;
		}
		if (prev >= 0 && !c->last && c->how == HOW_JUMP) {
			ULong next = v.runs[j + 1];
			flow(fl, &n, (UInt)prev, c->to_obj, c->to,
			     v.runs[j] > next ? v.runs[j] - next : 0);
		} else if (prev >= 0 && c->last && c->how == HOW_JUMP) {
			flow(fl, &n, (UInt)prev, c->to_obj, c->to, v.runs[j]);
		} else if (prev >= 0 && c->last && c->how == HOW_CALL) {
			const struct linstr *p = &instrs[prev];
			flow(fl, &n, (UInt)prev, p->obj, p->off + p->len, v.runs[j]);
		}
		if (c->last)
			prev = -1;
	}
	return n;
}

/* The part of the loops of nest that view v ran, written as region name's. */
static void write_part(const struct loops_out *whole, const struct loopnest *nest,
		       const struct loopnest_fn *fn, struct view v, const HChar *name)
{
	ULong *arena;
	struct loopnest_instr *in = gather_instrs(v, &arena);
	struct loopnest_flow *fl = nest_alloc((nslices + nchunks) * sizeof *fl);
	UInt nfl = gather_flows(v, fl, False);
	struct loopnest part;
	struct loops_out o = *whole;
	o.region = name;
	if (loopnest_part(&env, nest, in, ninstrs, fl, nfl, nfns, &part) == 0) {
		loopsout_part(&o, &part, fn, nfns);
		loopnest_free(&env, &part);
	}
	nest_release(fl);
	nest_release(in);
	nest_release(arena);
}

void loops_write(void (*put)(const HChar *), void (*put_name)(const HChar *),
		 void (*put_counts)(const ULong *), Int (*region_of)(UInt ctx),
		 const HChar *(*name_of)(Int region))
{
	const struct loops_out o = {put, put_name, put_counts, NULL};
	ULong *arena;
	struct view all = view_of(NULL, 0);
	struct loopnest_instr *in = gather_instrs(all, &arena);
	struct loopnest_flow *fl = nest_alloc((nslices + nchunks) * sizeof *fl);
	UInt nfl = gather_flows(all, fl, True);
	struct loopnest_fn *fn = nest_alloc(nfns * sizeof *fn);
	for (UInt f = 0; f < nfns; f++)
		fn[f] = (struct loopnest_fn){fns[f].obj, fns[f].named, fns[f].start};
	struct loopnest nest;
	if (loopnest_build(&env, in, ninstrs, fl, nfl, calls, ncalls, fn, nfns, &nest) == 0) {
		loopsout_nest(&o, &nest, fn, nfns, objects, nobjects);
		Int done = -1; /* the regions' parts, in their order, each once */
		for (;;) {
			Int next = -1;
			for (UInt c = 0; c < contexts_n(); c++) {
				Int r = contexts_entered(c) ? region_of(c) : -1;
				if (r > done && (next < 0 || r < next))
					next = r;
			}
			if (next < 0)
				break;
			struct view v = view_of(region_of, next);
			write_part(&o, &nest, fn, v, name_of(next));
			nest_release(v.runs);
			nest_release(v.dyn);
			done = next;
		}
		loopnest_free(&env, &nest);
	}
	nest_release(fn);
	nest_release(fl);
	nest_release(in);
	nest_release(arena);
	nest_release(all.runs);
	nest_release(all.dyn);
}
