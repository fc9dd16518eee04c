/* records: what rot's CUDA library (inject.c) makes of CUPTI's records, with no CUPTI in it:
 * a kernel's region name (demangled, with its launch shape), its calls into the arena, NVTX. */
#include "records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The C++ ABI's demangler (libstdc++; cxxabi.h is C++ only). */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

/* The demangled name s cut to its qualified name: "void " and the parameter list off (the
 * last "(" outside template arguments, when s ends in ")"). In place. */
static void short_name(char *s)
{
	size_t n = strlen(s);
	if (strncmp(s, "void ", 5) == 0)
		memmove(s, s + 5, (n -= 5) + 1);
	if (n == 0 || s[n - 1] != ')')
		return;
	int depth = 0; /* of () from the end */
	for (size_t i = n; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0) {
			if (i > 0) /* "(anonymous namespace)" alone stays */
				s[i] = '\0';
			return;
		}
	}
}

/* The end of the bracketed list opening at s (its '<' or '('): the matching close, or NULL. */
static char *closing(char *s)
{
	int depth = 0;
	for (; *s; s++)
		if (*s == '<' || *s == '(')
			depth++;
		else if ((*s == '>' || *s == ')') && --depth == 0)
			return s;
	return NULL;
}

/* The i-th argument of the list from open to its close: [*b, *e), leading spaces off. */
static int nth_arg(char *open, char *close, int i, char **b, char **e)
{
	int depth = 0;
	char *at = open + 1;
	for (char *s = at; s <= close; s++) {
		if (s < close && (*s == '<' || *s == '('))
			depth++;
		else if (s < close && (*s == '>' || *s == ')'))
			depth--;
		else if (depth == 0 && (*s == ',' || s == close)) {
			if (i-- == 0) {
				while (*at == ' ')
					at++;
				*b = at, *e = s;
				return 1;
			}
			at = s + 1;
		}
	}
	return 0;
}

/* nvcc's extended lambdas. A device lambda passed to a kernel template is the template argument
 * __nv_dl_wrapper_t<__nv_dl_tag<SIG, &X::f, N>, CAPTURES...>; a host-device one is
 * __nv_hdl_wrapper_t<..., __nv_dl_tag<SIG, &X::f, N>, ...>. Each becomes "X::f {lambda #N}":
 * the function that holds the lambda, and which of its lambdas (nvcc's N, from 1). The rest
 * of the wrapper (the signature, the captures' types) is what made the names unreadable and
 * too long. In place: the rewrite only shortens. A wrapper not of that form stays. */
static void nv_lambdas(char *s)
{
	static const char *const wrappers[] = {"__nv_dl_wrapper_t<", "__nv_hdl_wrapper_t<"};
	for (int w = 0; w < 2; w++)
		for (char *at = s; (at = strstr(at, wrappers[w])) != NULL;) {
			char *open = at + strlen(wrappers[w]) - 1, *close = closing(open);
			char *tag = strstr(open, "__nv_dl_tag<"), *nb, *ne, *ib, *ie;
			char *tclose = tag && tag < close ? closing(tag + 11) : NULL;
			if (!close || !tclose || !nth_arg(tag + 11, tclose, 1, &nb, &ne) ||
			    !nth_arg(tag + 11, tclose, 2, &ib, &ie)) {
				at = open;
				continue;
			}
			nb += *nb == '&';
			ie -= ie > ib && ie[-1] == 'u';
			char rep[ROT_ARENA_NAME * 2];
			int n = snprintf(rep, sizeof rep, "%.*s {lambda #%.*s}", (int)(ne - nb), nb,
					 (int)(ie - ib), ib);
			if (n < 0 || (size_t)n >= sizeof rep || at + n > close) {
				at = open;
				continue;
			}
			memcpy(at, rep, (size_t)n);
			close += close[1] == ' ' && close[2] == '>'; /* the demangler's "> >" */
			memmove(at + n, close + 1, strlen(close + 1) + 1);
			at += n;
		}
}

/* "X", "XxY" or "XxYxZ": trailing dimensions of 1 left off. */
static int shape(char *out, size_t len, const uint32_t d[3])
{
	if (d[2] > 1)
		return snprintf(out, len, "%ux%ux%u", d[0], d[1], d[2]);
	if (d[1] > 1)
		return snprintf(out, len, "%ux%u", d[0], d[1]);
	return snprintf(out, len, "%u", d[0]);
}

/* FNV-1a of a name: what tells two cut names apart. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

void cudarec_name(const char *mangled, const uint32_t grid[3], const uint32_t block[3], char *out,
		  size_t len)
{
	char g[40], b[40], tail[96];
	int status = -1;
	char *d = mangled && strncmp(mangled, "_Z", 2) == 0
		      ? __cxa_demangle(mangled, NULL, NULL, &status)
		      : NULL;
	const char *name = mangled && *mangled ? mangled : "(unnamed kernel)";
	if (d && status == 0) {
		short_name(d);
		nv_lambdas(d);
		name = d;
	}
	shape(g, sizeof g, grid);
	shape(b, sizeof b, block);
	int nt = snprintf(tail, sizeof tail, " <<<%s, %s>>>", g, b);
	size_t room = len > (size_t)nt ? len - (size_t)nt - 1 : 0;
	size_t n = strlen(name);
	if (n <= room) {
		snprintf(out, len, "%s%s", name, tail);
	} else { /* cut: the kept part ends in the whole name's hash, so two names never merge */
		char mark[12];
		int nm = snprintf(mark, sizeof mark, "~%08x", name_hash(name));
		size_t keep = room > (size_t)nm ? room - (size_t)nm : 0;
		snprintf(out, len, "%.*s%s%s", (int)keep, name, mark, tail);
	}
	free(d);
}

void cudarec_launch_of(const void *record, struct cudarec_launch *l)
{
	const unsigned char *r = record;
	int32_t g[3], b[3];
	memcpy(&l->start, r + CUDAREC_KERNEL_START, sizeof l->start);
	memcpy(&l->end, r + CUDAREC_KERNEL_END, sizeof l->end);
	memcpy(g, r + CUDAREC_KERNEL_GRID, sizeof g);
	memcpy(b, r + CUDAREC_KERNEL_BLOCK, sizeof b);
	memcpy(&l->name, r + CUDAREC_KERNEL_NAME, sizeof l->name);
	for (int i = 0; i < 3; i++) {
		l->grid[i] = (uint32_t)g[i];
		l->block[i] = (uint32_t)b[i];
	}
}

void cudarec_kernels_start(struct cudarec_kernels *k, struct rot_arena *a, uint32_t proc)
{
	memset(k, 0, sizeof *k);
	k->a = a;
	k->proc = proc;
	if (a)
		k->thread = __atomic_fetch_add(&a->nthreads, 1, __ATOMIC_RELAXED);
}

/* The region's slot, made on its first call (NULL: no room for the name or the slot). */
static struct rot_arena_slot *slot_of(struct cudarec_kernels *k, const char *name)
{
	size_t n = strnlen(name, ROT_ARENA_NAME);
	int id = k->a && n && n < ROT_ARENA_NAME ? arena_name(k->a, name, n, 1) : -1;
	if (id < 0)
		return NULL;
	if (k->slot[id])
		return k->slot[id];
	uint64_t i = __atomic_fetch_add(&k->a->nslots, 1, __ATOMIC_RELAXED);
	if (i >= ROT_ARENA_SLOTS(k->a->bytes)) {
		__atomic_fetch_add(&k->a->overflow, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	if (k->proc < ROT_ARENA_PROCS) /* it recorded: where its regions are, as a marker says */
		k->a->procs[k->proc].marked = 1;
	struct rot_arena_slot *s = &k->a->slots[i];
	s->thread = k->thread;
	s->region = (uint32_t)id;
	s->proc = k->proc;
	s->min_ticks = UINT64_MAX;
	return k->slot[id] = s;
}

/* A completed call of slot s, from start to end. */
static void add_call(struct rot_arena_slot *s, uint64_t start, uint64_t end)
{
	uint64_t d = end > start ? end - start : 0;
	s->calls++;
	s->ticks += d;
	s->min_ticks = d < s->min_ticks ? d : s->min_ticks;
	s->max_ticks = d > s->max_ticks ? d : s->max_ticks;
}

void cudarec_kernel(struct cudarec_kernels *k, const char *name, uint64_t start, uint64_t end)
{
	struct rot_arena_slot *s = slot_of(k, name);
	if (!s) {
		k->lost++;
		return;
	}
	add_call(s, start, end);
}

void cudarec_utf8(const wchar_t *w, char *out, size_t len)
{
	size_t at = 0;
	for (; w && *w; w++) {
		uint32_t c = (uint32_t)*w;
		unsigned char b[4];
		size_t n;
		if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			c = 0xfffd;
		if (c < 0x80)
			b[0] = (unsigned char)c, n = 1;
		else if (c < 0x800)
			b[0] = (unsigned char)(0xc0 | c >> 6),
			b[1] = (unsigned char)(0x80 | (c & 0x3f)), n = 2;
		else if (c < 0x10000)
			b[0] = (unsigned char)(0xe0 | c >> 12),
			b[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f)),
			b[2] = (unsigned char)(0x80 | (c & 0x3f)), n = 3;
		else
			b[0] = (unsigned char)(0xf0 | c >> 18),
			b[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f)),
			b[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f)),
			b[3] = (unsigned char)(0x80 | (c & 0x3f)), n = 4;
		if (at + n >= len)
			break;
		memcpy(out + at, b, n);
		at += n;
	}
	if (len)
		out[at] = '\0';
}

void cudarec_range_name(const char *domain, const char *message, char *out, size_t len)
{
	const char *m = message && *message ? message : "(unnamed)";
	if (domain)
		snprintf(out, len, "%s:%s", *domain ? domain : "(domain)", m);
	else
		snprintf(out, len, "%s", m);
}

void cudarec_handle_add(struct cudarec_handles *h, const void *handle, const char *name)
{
	uint32_t i = 0;
	while (i < h->n && h->e[i].handle != handle)
		i++;
	if (i == CUDAREC_HANDLES) {
		h->lost++;
		return;
	}
	h->e[i].handle = handle;
	snprintf(h->e[i].name, sizeof h->e[i].name, "%s", name ? name : "");
	if (i == h->n)
		h->n++;
}

const char *cudarec_handle_name(const struct cudarec_handles *h, const void *handle)
{
	for (uint32_t i = 0; i < h->n; i++)
		if (h->e[i].handle == handle)
			return h->e[i].name;
	return NULL;
}

void cudarec_nvtx_start(struct cudarec_nvtx *t, struct rot_arena *a, uint32_t proc)
{
	memset(t, 0, sizeof *t);
	cudarec_kernels_start(&t->w, a, proc);
}

/* The count of domain's ranges pushed past the depth (NULL: no room to count them). */
static uint64_t *over_of(struct cudarec_nvtx *t, const void *domain, int make)
{
	for (int i = 0; i < CUDAREC_OVER; i++)
		if (t->over[i].n && t->over[i].domain == domain)
			return &t->over[i].n;
	for (int i = 0; make && i < CUDAREC_OVER; i++)
		if (!t->over[i].n) {
			t->over[i].domain = domain;
			return &t->over[i].n;
		}
	return NULL;
}

void cudarec_push(struct cudarec_nvtx *t, const void *domain, const char *name, uint64_t now)
{
	/* past the depth, and the domain's pushes after one past it (inside it, they pop first) */
	uint64_t *n = over_of(t, domain, 0);
	if (n || t->depth == CUDAREC_DEPTH) {
		n = n ? n : over_of(t, domain, 1);
		if (n)
			++*n;
		else
			t->w.lost++;
		return;
	}
	struct rot_arena_slot *s = t->w.a ? slot_of(&t->w, name) : NULL;
	if (s)
		s->open++;
	else if (t->w.a)
		t->w.lost++;
	snprintf(t->names[t->depth], ROT_ARENA_NAME, "%s", name);
	t->open[t->depth].domain = domain;
	t->open[t->depth].slot = s;
	t->open[t->depth].t0 = now;
	t->depth++;
}

void cudarec_pop(struct cudarec_nvtx *t, const void *domain, uint64_t now)
{
	uint64_t *n = over_of(t, domain, 0);
	if (n) {
		--*n;
		return;
	}
	int d = t->depth - 1;
	while (d >= 0 && t->open[d].domain != domain)
		d--;
	if (d < 0) {
		t->stray++;
		return;
	}
	struct rot_arena_slot *s = t->open[d].slot;
	if (s) {
		s->open--;
		add_call(s, t->open[d].t0, now);
	}
	memmove(&t->open[d], &t->open[d + 1], (size_t)(t->depth - d - 1) * sizeof t->open[0]);
	memmove(t->names[d], t->names[d + 1], (size_t)(t->depth - d - 1) * sizeof t->names[0]);
	t->depth--;
}

void cudarec_ranges_start(struct cudarec_ranges *r, struct rot_arena *a, uint32_t proc)
{
	memset(r, 0, sizeof *r);
	cudarec_kernels_start(&r->w, a, proc);
}

void cudarec_range_start(struct cudarec_ranges *r, uint64_t id, const char *name, uint64_t now)
{
	struct rot_arena_slot *s = slot_of(&r->w, name);
	if (!s) {
		r->w.lost += r->w.a != NULL;
		return;
	}
	s->open++;
	if (r->n == CUDAREC_RANGES) {
		r->lost++;
		return;
	}
	r->open[r->n].id = id;
	r->open[r->n].t0 = now;
	r->open[r->n].slot = s;
	r->n++;
}

void cudarec_range_end(struct cudarec_ranges *r, uint64_t id, uint64_t now)
{
	uint32_t i = r->n;
	while (i > 0 && r->open[i - 1].id != id)
		i--;
	if (i == 0) {
		r->stray++;
		return;
	}
	struct rot_arena_slot *s = r->open[i - 1].slot;
	s->open--;
	add_call(s, r->open[i - 1].t0, now);
	r->open[i - 1] = r->open[--r->n];
}
