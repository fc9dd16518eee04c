/* instrument: rot's counting tool's pass over a superblock: each instruction's floating-point
 * operations classed by precision and width, loads' and stores' bytes, added to the running
 * thread's counts where the code gets to (before each side exit and at the end), and, with
 * the caches simulated, every access handed to them in order. */
#include "instrument.h"
#include "fpops.h"
#include "loops.h"

#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"

/* The counts of the code since the last place they were added, and the instruction now. */
struct pass {
	IRSB *out;
	ULong pending[COUNT_N];
	ULong flops[2], adds[2], subs[2], fmas[2]; /* per precision: fp32, fp64 */
	UInt vec[2], lanes[2];		  /* the widest vector op; lanes of scalar ops */
};

/* count_live[id] += n, in IR: a load, an add and a store of the counter. */
static void add_const(IRSB *out, enum count_id id, ULong n)
{
	IRTemp t1 = newIRTemp(out->tyenv, Ity_I64), t2 = newIRTemp(out->tyenv, Ity_I64);
	IRExpr *at = mkIRExpr_HWord((HWord)&count_live[id]);
	addStmtToIRSB(out, IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64, at)));
	addStmtToIRSB(out, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1),
							 IRExpr_Const(IRConst_U64(n)))));
	addStmtToIRSB(out, IRStmt_Store(Iend_LE, at, IRExpr_RdTmp(t2)));
}

/* The pending counts added to the thread's, where the code has got to. */
static void flush(struct pass *p)
{
	for (int i = 0; i < COUNT_N; i++)
		if (p->pending[i]) {
			add_const(p->out, (enum count_id)i, p->pending[i]);
			p->pending[i] = 0;
		}
}

/* The class of flops an instruction of this precision (0: fp32, 1: fp64) and vector width in
 * bits (0: scalar) did: share 0 all of them, 1 its FMAs', 2 its adds' and subs'. */
static enum count_id flops_class(int prec, UInt bits, int share)
{
	static const enum count_id cls[3][2][3] = {
	    {{COUNT_FP32_SCALAR, COUNT_FP32_128, COUNT_FP32_256},
	     {COUNT_FP64_SCALAR, COUNT_FP64_128, COUNT_FP64_256}},
	    {{COUNT_FP32_SCALAR_FMA, COUNT_FP32_128_FMA, COUNT_FP32_256_FMA},
	     {COUNT_FP64_SCALAR_FMA, COUNT_FP64_128_FMA, COUNT_FP64_256_FMA}},
	    {{COUNT_FP32_SCALAR_ADD, COUNT_FP32_128_ADD, COUNT_FP32_256_ADD},
	     {COUNT_FP64_SCALAR_ADD, COUNT_FP64_128_ADD, COUNT_FP64_256_ADD}}};
	return cls[share][prec][bits == 0 ? 0 : bits <= 128 ? 1 : 2];
}

/*
 * The instruction just passed: its flops go to its class, and its FMAs' and its adds' and
 * subs' to that class's shares. Its width is that of its widest vector operation, or, where
 * VEX wrote a vector instruction as one scalar operation a lane (FMA), that of its lanes
 * together. An add and a sub of every lane (addsubpd: VEX computes both and picks lanes) count
 * one flop a lane.
 */
static void end_instruction(struct pass *p)
{
	for (int i = 0; i < 2; i++) {
		if (!p->flops[i])
			continue;
		UInt bits = p->vec[i];
		if (!bits && p->lanes[i] > 1)
			bits = p->lanes[i] * (i ? 64 : 32);
		ULong both = p->adds[i] < p->subs[i] ? p->adds[i] : p->subs[i];
		if (!bits)
			both = 0;
		p->pending[flops_class(i, bits, 0)] += p->flops[i] - both;
		p->pending[flops_class(i, bits, 1)] += p->fmas[i];
		p->pending[flops_class(i, bits, 2)] += p->adds[i] + p->subs[i] - both;
		p->flops[i] = p->adds[i] = p->subs[i] = p->fmas[i] = 0;
		p->vec[i] = p->lanes[i] = 0;
	}
}

/* An operation of the instruction: its flops, if it is floating-point work. */
static void operation(struct pass *p, IROp op)
{
	struct fpop f;
	if (!fpop_of(op, &f))
		return;
	int i = f.bits == 64;
	ULong n = (ULong)f.lanes * f.flops;
	p->flops[i] += n;
	if (f.kind == FPOP_ADD)
		p->adds[i] += n;
	if (f.kind == FPOP_SUB)
		p->subs[i] += n;
	if (f.kind == FPOP_FMA)
		p->fmas[i] += n;
	if (f.vec) {
		if (f.vec > p->vec[i])
			p->vec[i] = f.vec;
	} else {
		p->lanes[i] += f.lanes;
	}
}

/* A memory access at addr of size bytes: counted, and simulated (guard: when it happens; NULL
 * always). A guarded one is counted by its helper, since only it knows whether it happened. */
static VG_REGPARM(3) void guarded_bytes(Addr addr, UWord size, UWord write)
{
	count_live[write ? COUNT_STORED : COUNT_LOADED] += size;
	if (count_simulating)
		count_sim_access(addr, size, write);
}

static void access(struct pass *p, IRExpr *addr, Int size, Bool write, IRExpr *guard)
{
	if (!guard)
		p->pending[write ? COUNT_STORED : COUNT_LOADED] += (ULong)size;
	if (!guard && !count_simulating)
		return;
	if (count_loops) {
		loops_access(addr, size, write, guard);
		return;
	}
	IRExpr **args = mkIRExprVec_3(addr, mkIRExpr_HWord((HWord)size), mkIRExpr_HWord(write));
	IRDirty *d = guard ? unsafeIRDirty_0_N(3, "rotcount_guarded",
					       VG_(fnptr_to_fnentry)(&guarded_bytes), args)
			   : unsafeIRDirty_0_N(3, "rotcount_access",
					       VG_(fnptr_to_fnentry)(&count_sim_access), args);
	if (guard) { /* it adds to the counts the code around it adds to: said, so none moves past
		      */
		d->guard = guard;
		d->mFx = Ifx_Modify;
		d->mAddr = mkIRExpr_HWord((HWord)count_live);
		d->mSize = (Int)sizeof count_live;
	}
	addStmtToIRSB(p->out, IRStmt_Dirty(d));
}

/* The memory a statement reads and writes (before the statement: its address is an atom). */
static void memory(struct pass *p, const IRStmt *st, IRTypeEnv *env)
{
	switch (st->tag) {
	case Ist_WrTmp:
		if (st->Ist.WrTmp.data->tag == Iex_Load) {
			IRExpr *e = st->Ist.WrTmp.data;
			access(p, e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty), False, NULL);
		}
		break;
	case Ist_Store:
		access(p, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(env, st->Ist.Store.data)),
		       True, NULL);
		break;
	case Ist_StoreG: {
		IRStoreG *g = st->Ist.StoreG.details;
		access(p, g->addr, sizeofIRType(typeOfIRExpr(env, g->data)), True, g->guard);
		break;
	}
	case Ist_LoadG: {
		IRLoadG *g = st->Ist.LoadG.details;
		IRType wide, ty;
		typeOfIRLoadGOp(g->cvt, &wide, &ty);
		access(p, g->addr, sizeofIRType(ty), False, g->guard);
		break;
	}
	case Ist_CAS: {
		IRCAS *c = st->Ist.CAS.details;
		Int size = sizeofIRType(typeOfIRExpr(env, c->dataLo)) * (c->dataHi ? 2 : 1);
		access(p, c->addr, size, False, NULL);
		access(p, c->addr, size, True, NULL);
		break;
	}
	case Ist_LLSC: {
		Bool sc = st->Ist.LLSC.storedata != NULL;
		IRType ty = sc ? typeOfIRExpr(env, st->Ist.LLSC.storedata)
			       : typeOfIRTemp(env, st->Ist.LLSC.result);
		access(p, st->Ist.LLSC.addr, sizeofIRType(ty), sc, NULL);
		break;
	}
	case Ist_Dirty: {
		IRDirty *d = st->Ist.Dirty.details;
		if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
			access(p, d->mAddr, d->mSize, False, NULL);
		if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
			access(p, d->mAddr, d->mSize, True, NULL);
		break;
	}
	default:
		break;
	}
}

/* The operation a flat statement computes, if any. */
static void computes(struct pass *p, const IRStmt *st)
{
	if (st->tag != Ist_WrTmp)
		return;
	const IRExpr *e = st->Ist.WrTmp.data;
	switch (e->tag) {
	case Iex_Unop:
		operation(p, e->Iex.Unop.op);
		break;
	case Iex_Binop:
		operation(p, e->Iex.Binop.op);
		break;
	case Iex_Triop:
		operation(p, e->Iex.Triop.details->op);
		break;
	case Iex_Qop:
		operation(p, e->Iex.Qop.details->op);
		break;
	default:
		break;
	}
}

IRSB *count_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
		       const VexGuestExtents *vge, const VexArchInfo *archinfo, IRType gWordTy,
		       IRType hWordTy)
{
	struct pass p;
	VG_(memset)(&p, 0, sizeof p);
	p.out = deepCopyIRSBExceptStmts(in);
	if (count_loops)
		loops_begin(p.out);
	for (Int i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];
		if (!st || st->tag == Ist_NoOp)
			continue;
		if (st->tag == Ist_IMark) {
			end_instruction(&p);
			if (count_loops)
				loops_instr(p.pending, in, i);
		}
		if (st->tag == Ist_Exit) { /* what ran before a side exit is counted before it */
			end_instruction(&p);
			if (count_loops)
				loops_settle(p.pending);
			flush(&p);
		}
		memory(&p, st, in->tyenv);
		computes(&p, st);
		addStmtToIRSB(p.out, st);
		if (count_loops && st->tag == Ist_Exit)
			loops_exit(st);
	}
	end_instruction(&p);
	if (count_loops)
		loops_end(p.pending, in);
	flush(&p);
	return p.out;
}
