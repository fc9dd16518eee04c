/* loops: where rot's counting tool's counts come from, kept per instruction: each superblock's
 * straight runs of code (split at its side exits) count their passes; each instruction keeps
 * its object and offset, its function, its counts per pass of each run, and what the simulated
 * caches moved for it; at exit the runs' passes give each instruction's executions and the
 * control between instructions, from which loopnest.c assembles the loops. */
#include "loops.h"
#include "instrument.h"
#include "loopnest.h"

#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"

#define STABLE_WORDS 65536 /* the block of counters generated code adds to */

Bool count_loops;

/* An instruction as one translation holds it: where it lies, its length, its function, whether
 * it calls, what the simulated caches moved for it (and its guarded accesses' bytes; NULL:
 * nothing yet). */
struct linstr {
	Addr off;
	Int obj;
	UInt fn, len,
	    call; /* call: the instruction calls (VEX hinted it: it may follow the call) */
	ULong *dyn;
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

/* A straight run of a superblock: its passes, its slices, how control leaves it (last: the
 * superblock's end; else a side exit, then the next run). */
struct lchunk {
	ULong *count;
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

/* The superblock being rewritten. */
static struct {
	IRSB *out;
	Int chunk, instr, slice;
	ULong snap[COUNT_N]; /* the pending counts already given to slices */
} cur;

static ULong **blocks; /* the blocks of stable words */
static UInt nblocks, cblocks;

/* Zeroed words that stay where they are (generated code adds to them). */
static ULong *stable(UInt words)
{
	static ULong *block;
	static UInt left;
	if (left < words) {
		block = VG_(calloc)("rotcount.loops.stable", STABLE_WORDS, sizeof(ULong));
		left = STABLE_WORDS;
		GROW(blocks, nblocks, cblocks);
		blocks[nblocks++] = block;
	}
	ULong *p = block;
	block += words;
	left -= words;
	return p;
}

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

/* In the superblock being rewritten: a new run, its counter added to where code gets to. */
static void new_chunk(void)
{
	GROW(chunks, nchunks, cchunks);
	chunks[nchunks] = (struct lchunk){.count = stable(1), .first = nslices, .to_obj = -1};
	cur.chunk = (Int)nchunks++;
	IRSB *out = cur.out;
	IRTemp t1 = newIRTemp(out->tyenv, Ity_I64), t2 = newIRTemp(out->tyenv, Ity_I64);
	IRExpr *at = mkIRExpr_HWord((HWord)chunks[cur.chunk].count);
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
	for (UInt i = 0; i < nblocks; i++)
		VG_(memset)(blocks[i], 0, STABLE_WORDS * sizeof(ULong));
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
	in->dyn = NULL;
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

/* An access of (size | write << 16) bytes at addr by the instruction whose counts are cc: the
 * simulated caches' traffic to the thread's counts and to the instruction's. */
static VG_REGPARM(3) void sim_at(Addr addr, UWord sw, ULong *cc)
{
	cachesim_ref(count_cachesim, addr, sw & 0xffff, sw >> 16, &count_live[COUNT_FILL1],
		     &cc[COUNT_FILL1]);
}

/* The same for a guarded access that happens: its bytes counted here. */
static VG_REGPARM(3) void guarded_at(Addr addr, UWord sw, ULong *cc)
{
	enum count_id id = (sw >> 16) ? COUNT_STORED : COUNT_LOADED;
	count_live[id] += sw & 0xffff;
	cc[id] += sw & 0xffff;
	if (count_simulating)
		cachesim_ref(count_cachesim, addr, sw & 0xffff, sw >> 16, &count_live[COUNT_FILL1],
			     &cc[COUNT_FILL1]);
}

void loops_access(IRExpr *addr, Int size, Bool write, IRExpr *guard)
{
	static ULong *before; /* an access before a superblock's first instruction: none is known */
	ULong *cc;
	if (cur.instr >= 0) {
		struct linstr *in = &instrs[cur.instr];
		cc = in->dyn ? in->dyn : (in->dyn = stable(COUNT_N));
	} else {
		cc = before ? before : (before = stable(COUNT_N));
	}
	IRExpr **args = mkIRExprVec_3(addr, mkIRExpr_HWord((HWord)size | (HWord)write << 16),
				      mkIRExpr_HWord((HWord)cc));
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

/* Each instruction with its executions and its counts over every pass of the runs it lies in
 * (its cost vector its dyn, made where it has none). */
static struct loopnest_instr *gather_instrs(void)
{
	struct loopnest_instr *in = nest_alloc(ninstrs * sizeof *in);
	for (UInt i = 0; i < ninstrs; i++)
		in[i] = (struct loopnest_instr){
		    instrs[i].obj, instrs[i].len, instrs[i].fn, instrs[i].off, 0, instrs[i].dyn};
	for (UInt j = 0; j < nchunks; j++) {
		ULong n = *chunks[j].count;
		for (UInt k = chunks[j].first; n && k < chunks[j].first + chunks[j].n; k++) {
			const struct lslice *s = &slices[k];
			struct loopnest_instr *x = &in[s->instr];
			if (s->imark)
				x->execs += n;
			for (UInt i = 0; i < s->nstat; i++) {
				if (!x->cost)
					x->cost = instrs[s->instr].dyn = stable(COUNT_N);
				x->cost[stats[s->stat + i].id] += n * stats[s->stat + i].n;
			}
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
 * callee noted as called). */
static void step(struct loopnest_flow *fl, UInt *nfl, UInt from, UInt to, ULong n)
{
	const struct linstr *f = &instrs[from], *t = &instrs[to];
	if (!f->call || (t->obj == f->obj && t->off == f->off + f->len)) {
		flow(fl, nfl, from, t->obj, t->off, n);
		return;
	}
	flow(fl, nfl, from, f->obj, f->off + f->len, n);
	if (t->obj >= 0) {
		GROW(calls, ncalls, ccalls);
		calls[ncalls++] = (struct loopnest_place){t->obj, t->off};
	}
}

/*
 * The control between instructions, from each superblock's runs: from each instruction to the
 * next of its run (a fall-through or a jump the superblock followed), a side exit's passes
 * where the run after it has fewer, a superblock's end to its constant target (a call returns
 * to the next instruction). Into fl (room for every slice and run); how many.
 */
static UInt gather_flows(struct loopnest_flow *fl)
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
				step(fl, &n, (UInt)prev, s->instr, *c->count);
			prev = (Int)s->instr;
		}
		if (prev >= 0 && !c->last && c->how == HOW_JUMP) {
			ULong next = *chunks[j + 1].count;
			flow(fl, &n, (UInt)prev, c->to_obj, c->to,
			     *c->count > next ? *c->count - next : 0);
		} else if (prev >= 0 && c->last && c->how == HOW_JUMP) {
			flow(fl, &n, (UInt)prev, c->to_obj, c->to, *c->count);
		} else if (prev >= 0 && c->last && c->how == HOW_CALL) {
			const struct linstr *p = &instrs[prev];
			flow(fl, &n, (UInt)prev, p->obj, p->off + p->len, *c->count);
		}
		if (c->last)
			prev = -1;
	}
	return n;
}

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
	(s, sizeof s, " depth=%d parent=%d entries=%llu iterations=%llu back=%llu", l->depth,
	 l->parent + 1, l->entries, l->iterations, l->back);
	put(s);
	put_counts(l->cost);
}

static void put_nest(void (*put)(const HChar *), void (*put_name)(const HChar *),
		     void (*put_counts)(const ULong *), const struct loopnest *nest,
		     const struct loopnest_fn *fn)
{
	HChar s[160];
	VG_(snprintf)
	(s, sizeof s, "%s n=%d\n", count_record_word(COUNT_RECORD_LOOPS), nest->nloops);
	put(s);
	for (UInt i = 0; i < nobjects; i++) {
		VG_(snprintf)
		(s, sizeof s, "%s id=%u path=", count_record_word(COUNT_RECORD_OBJECT), i);
		put(s);
		put_name(objects[i]);
		put("\n");
	}
	for (Int i = 0; i < nest->nloops; i++)
		put_loop(put, put_counts, &nest->loops[i], i + 1);
	for (UInt f = 0; f < nfns; f++) {
		if (!nest->fn_ran[f] || fn[f].obj < 0)
			continue;
		VG_(snprintf)
		(s, sizeof s, "%s obj=%d off=0x%llx named=%d",
		 count_record_word(COUNT_RECORD_FUNCTION), fn[f].obj, fn[f].start, fn[f].named);
		put(s);
		put_counts(nest->fn_cost[f]);
	}
	if (nest->unknown_ran) {
		put(count_record_word(COUNT_RECORD_UNKNOWN));
		put_counts(nest->unknown);
	}
}

void loops_write(void (*put)(const HChar *), void (*put_name)(const HChar *),
		 void (*put_counts)(const ULong *))
{
	struct loopnest_instr *in = gather_instrs();
	struct loopnest_flow *fl = nest_alloc((nslices + nchunks) * sizeof *fl);
	UInt nfl = gather_flows(fl);
	struct loopnest_fn *fn = nest_alloc(nfns * sizeof *fn);
	for (UInt f = 0; f < nfns; f++)
		fn[f] = (struct loopnest_fn){fns[f].obj, fns[f].named, fns[f].start};
	struct loopnest nest;
	if (loopnest_build(&env, in, ninstrs, fl, nfl, calls, ncalls, fn, nfns, &nest) == 0) {
		put_nest(put, put_name, put_counts, &nest, fn);
		loopnest_free(&env, &nest);
	}
	nest_release(fn);
	nest_release(fl);
	nest_release(in);
}
