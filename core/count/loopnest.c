/* loopnest: the loops of a program assembled after its run from the instructions it ran and the
 * control that passed between them: back edges grouped by head, ranges nested, entries counted
 * at the ranges' edges, counts given to the innermost loop or the function. */
#include "loopnest.h"

/* A taken backward jump within a function: its head, its latch and the latch's end. */
struct edge {
	int obj;
	unsigned fn;
	loopnest_u64 head, latch, end, count;
};

static int cmp_place(int oa, loopnest_u64 a, int ob, loopnest_u64 b)
{
	if (oa != ob)
		return oa < ob ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int cmp_instr(const void *a, const void *b)
{
	const struct loopnest_instr *x = a, *y = b;
	return cmp_place(x->obj, x->off, y->obj, y->off);
}

static int cmp_flow_to(const void *a, const void *b)
{
	const struct loopnest_flow *x = a, *y = b;
	return cmp_place(x->to_obj, x->to, y->to_obj, y->to);
}

static int cmp_place_sort(const void *a, const void *b)
{
	const struct loopnest_place *x = a, *y = b;
	return cmp_place(x->obj, x->off, y->obj, y->off);
}

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	int c = cmp_place(x->obj, x->head, y->obj, y->head);
	return c ? c : (x->latch < y->latch ? -1 : x->latch > y->latch);
}

static int cmp_flow_from(const void *a, const void *b)
{
	const struct loopnest_flow *x = a, *y = b;
	return cmp_place(x->from_obj, x->from, y->from_obj, y->from);
}

/* Loops by object, then by where they begin, the longer first where two begin together. */
static int cmp_loop(const void *a, const void *b)
{
	const struct loopnest_loop *x = a, *y = b;
	int c = cmp_place(x->obj, x->lo, y->obj, y->lo);
	return c ? c : (x->hi > y->hi ? -1 : x->hi < y->hi);
}

/* The instruction at (obj, off) in the sorted in[0..n), or NULL. */
static struct loopnest_instr *instr_at(struct loopnest_instr *in, loopnest_u64 n, int obj,
				       loopnest_u64 off)
{
	loopnest_u64 lo = 0, hi = n;
	while (lo < hi) {
		loopnest_u64 mid = lo + (hi - lo) / 2;
		int c = cmp_place(in[mid].obj, in[mid].off, obj, off);
		if (c == 0)
			return &in[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Whether (obj, off) is among the sorted places p[0..n). */
static int called(const struct loopnest_place *p, loopnest_u64 n, int obj, loopnest_u64 off)
{
	loopnest_u64 lo = 0, hi = n;
	while (lo < hi) {
		loopnest_u64 mid = lo + (hi - lo) / 2;
		int c = cmp_place(p[mid].obj, p[mid].off, obj, off);
		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void add_costs(loopnest_u64 *to, const loopnest_u64 *from)
{
	for (int i = 0; i < COUNT_N; i++)
		to[i] += from[i];
}

/* Sorts in by place and sums the entries of one place into its first; the count left. */
static loopnest_u64 merge_instrs(const struct loopnest_env *env, struct loopnest_instr *in,
				 loopnest_u64 n)
{
	loopnest_u64 k = 0;
	env->sort(in, n, sizeof *in, cmp_instr);
	for (loopnest_u64 i = 0; i < n; i++) {
		if (k > 0 && cmp_instr(&in[k - 1], &in[i]) == 0) {
			struct loopnest_instr *d = &in[k - 1];
			d->execs += in[i].execs;
			if (!d->cost)
				d->cost = in[i].cost;
			else if (in[i].cost)
				add_costs(d->cost, in[i].cost);
		} else {
			in[k++] = in[i];
		}
	}
	return k;
}

/* The taken backward jumps within a function, into e (room for nfl); how many. */
static loopnest_u64 back_edges(struct loopnest_instr *in, loopnest_u64 nin,
			       const struct loopnest_flow *fl, loopnest_u64 nfl,
			       const struct loopnest_place *calls, loopnest_u64 ncalls,
			       const struct loopnest_fn *fn, unsigned nfn, struct edge *e)
{
	loopnest_u64 n = 0;
	for (loopnest_u64 i = 0; i < nfl; i++) {
		const struct loopnest_flow *f = &fl[i];
		if (!f->jump || f->from_obj < 0 || f->from_obj != f->to_obj || f->to >= f->from ||
		    !f->count)
			continue;
		const struct loopnest_instr *latch = instr_at(in, nin, f->from_obj, f->from);
		const struct loopnest_instr *head = instr_at(in, nin, f->to_obj, f->to);
		if (!latch || !head || latch->fn != head->fn || latch->fn >= nfn)
			continue;
		if (!fn[latch->fn].named && called(calls, ncalls, f->to_obj, f->to))
			continue; /* a jump to a function's entry: a tail call, no loop */
		e[n++] = (struct edge){f->from_obj,	     latch->fn, f->to, f->from,
				       f->from + latch->len, f->count};
	}
	return n;
}

/* The first index of the sorted in[0..n) at or after (obj, off). */
static loopnest_u64 first_at(const struct loopnest_instr *in, loopnest_u64 n, int obj,
			     loopnest_u64 off)
{
	loopnest_u64 lo = 0, hi = n;
	while (lo < hi) {
		loopnest_u64 mid = lo + (hi - lo) / 2;
		if (cmp_place(in[mid].obj, in[mid].off, obj, off) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The instructions the head of the edges e[0..n) (one head, sorted) reaches through control
 * that passed within [head, the end of its last latch): seen[i - *base] for in[i] (fl sorted
 * by origin; queue and seen: room for the instructions there). Their count (0: the head did
 * not run).
 */
static loopnest_u64 reach(const struct edge *e, loopnest_u64 n, const struct loopnest_instr *in,
			  loopnest_u64 nin, const struct loopnest_flow *fl, loopnest_u64 nfl,
			  loopnest_u64 *queue, char *seen, loopnest_u64 *base)
{
	loopnest_u64 end = e[0].end, top = 0, k = 0;
	for (loopnest_u64 i = 1; i < n; i++)
		end = e[i].end > end ? e[i].end : end;
	*base = first_at(in, nin, e->obj, e->head);
	while (*base + k < nin && in[*base + k].obj == e->obj && in[*base + k].off < end)
		seen[k++] = 0;
	if (!k || in[*base].off != e->head)
		return 0;
	seen[0] = 1;
	queue[top++] = 0;
	while (top > 0) {
		const struct loopnest_instr *x = &in[*base + queue[--top]];
		struct loopnest_flow key = {.from_obj = x->obj, .from = x->off};
		loopnest_u64 lo = 0, hi = nfl;
		while (lo < hi) { /* the first flow from x */
			loopnest_u64 mid = lo + (hi - lo) / 2;
			if (cmp_flow_from(&fl[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < nfl && fl[lo].from_obj == x->obj && fl[lo].from == x->off; lo++) {
			if (fl[lo].to_obj != e->obj || fl[lo].to < e->head || fl[lo].to >= end)
				continue;
			loopnest_u64 j = first_at(in, nin, e->obj, fl[lo].to) - *base;
			if (j < k && in[*base + j].off == fl[lo].to && !seen[j]) {
				seen[j] = 1;
				queue[top++] = j;
			}
		}
	}
	return k;
}

/*
 * The back edges (sorted by head) that close a cycle, kept at the front of e[0..n); how many. A
 * jump closes one where its head leads back to it through control that passed within the
 * loop's range. One that no such path leads to is no loop: a cold path a compiler put after
 * the code it jumps back to, lazy binding's jump back to the start of the PLT.
 */
static loopnest_u64 keep_cycles(const struct loopnest_env *env, struct edge *e, loopnest_u64 n,
				const struct loopnest_instr *in, loopnest_u64 nin,
				struct loopnest_flow *fl, loopnest_u64 nfl)
{
	loopnest_u64 *queue = env->alloc((nin ? nin : 1) * sizeof *queue), k = 0, g;
	char *seen = env->alloc(nin ? nin : 1);
	if (!queue || !seen) { /* (no memory to look: every jump is kept) */
		k = n;
		goto out;
	}
	env->sort(fl, nfl, sizeof *fl, cmp_flow_from);
	for (loopnest_u64 i = 0; i < n; i = g) {
		for (g = i + 1; g < n && e[g].obj == e[i].obj && e[g].head == e[i].head; g++)
			;
		loopnest_u64 base, m = reach(&e[i], g - i, in, nin, fl, nfl, queue, seen, &base);
		for (loopnest_u64 j = i; j < g; j++) {
			loopnest_u64 at = first_at(in, nin, e[j].obj, e[j].latch) - base;
			if (at < m && in[base + at].off == e[j].latch && seen[at])
				e[k++] = e[j];
		}
	}
out:
	env->release(queue);
	env->release(seen);
	return k;
}

/* The loops of the sorted edges e[0..n) into loops (room for n); how many. */
static int group_loops(const struct edge *e, loopnest_u64 n, struct loopnest_loop *loops)
{
	int k = 0;
	for (loopnest_u64 i = 0; i < n; i++) {
		struct loopnest_loop *l = k ? &loops[k - 1] : 0;
		if (!l || l->obj != e[i].obj || l->lo != e[i].head) {
			l = &loops[k++];
			l->obj = e[i].obj;
			l->fn = e[i].fn;
			l->lo = e[i].head;
			l->hi = e[i].end;
			l->parent = -1;
		}
		if (e[i].end > l->hi)
			l->hi = e[i].end;
		if (l->nlatches < LOOPNEST_LATCHES &&
		    (l->nlatches == 0 || l->latches[l->nlatches - 1] != e[i].latch))
			l->latches[l->nlatches++] = e[i].latch;
		l->back += e[i].count;
	}
	return k;
}

static int holds(const struct loopnest_loop *l, int obj, loopnest_u64 off)
{
	return l->obj == obj && l->lo <= off && off < l->hi;
}

/* Parents and depths of the sorted loops: the innermost earlier loop whose range holds each
 * (stack: room for n). */
static void nest(struct loopnest_loop *loops, int n, int *stack)
{
	int top = 0;
	for (int i = 0; i < n; i++) {
		struct loopnest_loop *l = &loops[i];
		while (top > 0) {
			const struct loopnest_loop *p = &loops[stack[top - 1]];
			if (holds(p, l->obj, l->lo) && l->hi <= p->hi)
				break;
			top--;
		}
		l->parent = top ? stack[top - 1] : -1;
		l->depth = top ? loops[l->parent].depth + 1 : 1;
		stack[top++] = i;
	}
}

/* The first of the flows fl (sorted by target) whose target is at or after obj's offset at;
 * nfl where none is. */
static loopnest_u64 first_flow_to(const struct loopnest_flow *fl, loopnest_u64 nfl, int obj,
				  loopnest_u64 at)
{
	loopnest_u64 lo = 0, hi = nfl;
	while (lo < hi) {
		loopnest_u64 mid = lo + (hi - lo) / 2;
		if (cmp_place(fl[mid].to_obj, fl[mid].to, obj, at) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Entries (control from outside a loop's range into it, over the flows sorted by target) and
 * iterations (its head's runs). */
static void entries(struct loopnest_loop *loops, int n, const struct loopnest_flow *fl,
		    loopnest_u64 nfl, struct loopnest_instr *in, loopnest_u64 nin)
{
	for (int i = 0; i < n; i++) {
		struct loopnest_loop *l = &loops[i];
		loopnest_u64 lo = first_flow_to(fl, nfl, l->obj, l->lo);
		for (; lo < nfl && holds(l, fl[lo].to_obj, fl[lo].to); lo++)
			if (!holds(l, fl[lo].from_obj, fl[lo].from))
				l->entries += fl[lo].count;
		const struct loopnest_instr *head = instr_at(in, nin, l->obj, l->lo);
		l->iterations = head ? head->execs : 0;
	}
}

/* The innermost loop whose range holds (obj, off), or -1: the last loop to begin at or before
 * it, or the first of its ancestors that holds it. */
static int innermost(const struct loopnest_loop *loops, int n, int obj, loopnest_u64 off)
{
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (cmp_place(loops[mid].obj, loops[mid].lo, obj, off) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	int k = lo - 1;
	while (k >= 0 && !holds(&loops[k], obj, off))
		k = loops[k].parent;
	return k;
}

/* Each instruction's runs and counts to its innermost loop, its function, or unknown code. */
static void attribute(struct loopnest *out, const struct loopnest_instr *in, loopnest_u64 nin,
		      unsigned nfn)
{
	for (loopnest_u64 i = 0; i < nin; i++) {
		const struct loopnest_instr *x = &in[i];
		if (!x->execs)
			continue; /* (translated, never run: no counts, and no sign its code ran) */
		int l = x->obj < 0 ? -1 : innermost(out->loops, out->nloops, x->obj, x->off);
		loopnest_u64 *to;
		if (l >= 0) {
			to = out->loops[l].cost;
			out->loops[l].instrs += x->execs;
		} else if (x->obj < 0 || x->fn >= nfn) {
			to = out->unknown;
			out->unknown_instrs += x->execs;
			out->unknown_ran = 1;
		} else {
			to = out->fn_cost[x->fn];
			out->fn_instrs[x->fn] += x->execs;
			out->fn_ran[x->fn] = 1;
		}
		if (x->cost)
			add_costs(to, x->cost);
	}
}

/* Unnamed functions stand for their lowest offset that ran. */
static void unnamed_starts(const struct loopnest_instr *in, loopnest_u64 nin,
			   struct loopnest_fn *fn, unsigned nfn)
{
	for (unsigned f = 0; f < nfn; f++)
		if (!fn[f].named)
			fn[f].start = ~0ull;
	for (loopnest_u64 i = 0; i < nin; i++)
		if (in[i].fn < nfn && !fn[in[i].fn].named && in[i].off < fn[in[i].fn].start)
			fn[in[i].fn].start = in[i].off;
}

/* The function tables of out, zeroed, for nfn functions: 0, or -1 when memory ran out. */
static int fn_tables(const struct loopnest_env *env, struct loopnest *out, unsigned nfn)
{
	out->fn_cost = env->alloc((nfn ? nfn : 1) * sizeof *out->fn_cost);
	out->fn_instrs = env->alloc((nfn ? nfn : 1) * sizeof *out->fn_instrs);
	out->fn_ran = env->alloc(nfn ? nfn : 1);
	return out->fn_cost && out->fn_instrs && out->fn_ran ? 0 : -1;
}

int loopnest_build(const struct loopnest_env *env, struct loopnest_instr *in, loopnest_u64 nin,
		   struct loopnest_flow *fl, loopnest_u64 nfl, struct loopnest_place *calls,
		   loopnest_u64 ncalls, struct loopnest_fn *fn, unsigned nfn, struct loopnest *out)
{
	struct edge *e = env->alloc((nfl ? nfl : 1) * sizeof *e);
	int *stack = 0, rc = -1;
	*out = (struct loopnest){0};
	if (!e || fn_tables(env, out, nfn) < 0)
		goto out;
	nin = merge_instrs(env, in, nin);
	unnamed_starts(in, nin, fn, nfn);
	env->sort(calls, ncalls, sizeof *calls, cmp_place_sort);
	loopnest_u64 ne = back_edges(in, nin, fl, nfl, calls, ncalls, fn, nfn, e);
	env->sort(e, ne, sizeof *e, cmp_edge);
	ne = keep_cycles(env, e, ne, in, nin, fl, nfl);
	out->loops = env->alloc((ne ? ne : 1) * sizeof *out->loops);
	stack = env->alloc((ne ? ne : 1) * sizeof *stack);
	if (!out->loops || !stack)
		goto out;
	out->nloops = group_loops(e, ne, out->loops);
	env->sort(out->loops, (loopnest_u64)out->nloops, sizeof *out->loops, cmp_loop);
	nest(out->loops, out->nloops, stack);
	env->sort(fl, nfl, sizeof *fl, cmp_flow_to);
	entries(out->loops, out->nloops, fl, nfl, in, nin);
	attribute(out, in, nin, nfn);
	rc = 0;
out:
	env->release(e);
	env->release(stack);
	if (rc < 0)
		loopnest_free(env, out);
	return rc;
}

/* The taken jumps back to each loop's head from within its range (fl sorted by target). */
static void back_jumps(struct loopnest_loop *loops, int n, const struct loopnest_flow *fl,
		       loopnest_u64 nfl)
{
	for (int i = 0; i < n; i++) {
		struct loopnest_loop *l = &loops[i];
		loopnest_u64 lo = first_flow_to(fl, nfl, l->obj, l->lo);
		for (; lo < nfl && fl[lo].to_obj == l->obj && fl[lo].to == l->lo; lo++)
			if (fl[lo].jump && fl[lo].from > l->lo &&
			    holds(l, fl[lo].from_obj, fl[lo].from))
				l->back += fl[lo].count;
	}
}

int loopnest_part(const struct loopnest_env *env, const struct loopnest *whole,
		  struct loopnest_instr *in, loopnest_u64 nin, struct loopnest_flow *fl,
		  loopnest_u64 nfl, unsigned nfn, struct loopnest *part)
{
	*part = (struct loopnest){0};
	part->loops = env->alloc((whole->nloops ? whole->nloops : 1) * sizeof *part->loops);
	if (!part->loops || fn_tables(env, part, nfn) < 0) {
		loopnest_free(env, part);
		return -1;
	}
	part->nloops = whole->nloops;
	for (int i = 0; i < whole->nloops; i++) {
		struct loopnest_loop *l = &part->loops[i];
		*l = whole->loops[i];
		l->entries = l->iterations = l->back = l->instrs = 0;
		for (int k = 0; k < COUNT_N; k++)
			l->cost[k] = 0;
	}
	nin = merge_instrs(env, in, nin);
	env->sort(fl, nfl, sizeof *fl, cmp_flow_to);
	entries(part->loops, part->nloops, fl, nfl, in, nin);
	back_jumps(part->loops, part->nloops, fl, nfl);
	attribute(part, in, nin, nfn);
	return 0;
}

void loopnest_free(const struct loopnest_env *env, struct loopnest *out)
{
	env->release(out->loops);
	env->release(out->fn_instrs);
	env->release(out->fn_cost);
	env->release(out->fn_ran);
	*out = (struct loopnest){0};
}
