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

void cudarec_kernels_start(struct cudarec_kernels *k, struct rot_arena *a, uint32_t proc)
{
	memset(k, 0, sizeof *k);
	k->a = a;
	k->proc = proc;
	k->thread = __atomic_fetch_add(&a->nthreads, 1, __ATOMIC_RELAXED);
}

/* The region's slot, made on its first call (NULL: no room for the name or the slot). */
static struct rot_arena_slot *kernel_slot(struct cudarec_kernels *k, const char *name)
{
	size_t n = strnlen(name, ROT_ARENA_NAME);
	int id = n && n < ROT_ARENA_NAME ? arena_name(k->a, name, n, 1) : -1;
	if (id < 0)
		return NULL;
	if (k->slot[id])
		return k->slot[id];
	uint64_t i = __atomic_fetch_add(&k->a->nslots, 1, __ATOMIC_RELAXED);
	if (i >= ROT_ARENA_SLOTS(k->a->bytes)) {
		__atomic_fetch_add(&k->a->overflow, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	struct rot_arena_slot *s = &k->a->slots[i];
	s->thread = k->thread;
	s->region = (uint32_t)id;
	s->proc = k->proc;
	s->min_ticks = UINT64_MAX;
	return k->slot[id] = s;
}

void cudarec_kernel(struct cudarec_kernels *k, const char *name, uint64_t start, uint64_t end)
{
	struct rot_arena_slot *s = kernel_slot(k, name);
	if (!s) {
		k->lost++;
		return;
	}
	uint64_t d = end > start ? end - start : 0;
	s->calls++;
	s->ticks += d;
	s->min_ticks = d < s->min_ticks ? d : s->min_ticks;
	s->max_ticks = d > s->max_ticks ? d : s->max_ticks;
}

void cudarec_push(struct cudarec_nvtx *t, const struct rot_markers_api *api, const char *name)
{
	if (t->depth == CUDAREC_DEPTH) {
		t->over++;
		return;
	}
	char *n = t->names[t->depth++];
	snprintf(n, ROT_ARENA_NAME, "%s", name && *name ? name : "(unnamed)");
	if (api)
		api->begin(n);
}

void cudarec_pop(struct cudarec_nvtx *t, const struct rot_markers_api *api)
{
	if (t->over) {
		t->over--;
		return;
	}
	if (t->depth == 0) {
		t->stray++;
		return;
	}
	const char *n = t->names[--t->depth];
	if (api)
		api->end(n);
}
