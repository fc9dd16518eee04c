/* samples: places and callers counted in a table grown at half full, written most samples
 * first with the files they name. */
#include "samples.h"
#include "escape.h"
#include "protocol.h"

#include <stdlib.h>
#include <string.h>

static uint64_t entry_hash(const struct samples_entry *e)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a over the places */
	h = (h ^ (uint64_t)e->at.obj) * 1099511628211ull;
	h = (h ^ e->at.off) * 1099511628211ull;
	for (int i = 0; i < e->ncallers; i++) {
		h = (h ^ (uint64_t)e->callers[i].obj) * 1099511628211ull;
		h = (h ^ e->callers[i].off) * 1099511628211ull;
	}
	return h ^ (h >> 29);
}

static int same_place(const struct samples_place *a, const struct samples_place *b)
{
	return a->obj == b->obj && a->off == b->off;
}

static int same_entry(const struct samples_entry *a, const struct samples_entry *b)
{
	if (!same_place(&a->at, &b->at) || a->ncallers != b->ncallers)
		return 0;
	for (int i = 0; i < a->ncallers; i++)
		if (!same_place(&a->callers[i], &b->callers[i]))
			return 0;
	return 1;
}

/* The slot of e's place and callers in a table of cap slots: its own, or a free one. */
static struct samples_entry *slot_of(struct samples_entry *slot, size_t cap,
				     const struct samples_entry *e)
{
	size_t i = (size_t)entry_hash(e) & (cap - 1);
	while (slot[i].n && !same_entry(&slot[i], e))
		i = (i + 1) & (cap - 1);
	return &slot[i];
}

int samples_add(struct samples *t, const struct samples_entry *e)
{
	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		struct samples_entry *slot = calloc(cap, sizeof *slot);
		if (!slot)
			return -1;
		for (size_t i = 0; i < t->cap; i++)
			if (t->slot[i].n)
				*slot_of(slot, cap, &t->slot[i]) = t->slot[i];
		free(t->slot);
		t->slot = slot;
		t->cap = cap;
	}
	struct samples_entry *s = slot_of(t->slot, t->cap, e);
	if (!s->n) {
		*s = *e;
		s->n = 0;
		t->n++;
	}
	s->n++;
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct samples_entry *x = a, *y = b;
	return x->n > y->n ? -1 : x->n < y->n;
}

/* The object records of the files the entries name. */
static void write_objects(const struct samples *t, const struct codemap *m, int run, FILE *out)
{
	char *used = calloc((size_t)m->nobjects + 1, 1);
	for (size_t i = 0; used && i < t->cap; i++) {
		const struct samples_entry *e = &t->slot[i];
		if (!e->n)
			continue;
		used[e->at.obj] = 1;
		for (int c = 0; c < e->ncallers; c++)
			used[e->callers[c].obj] = 1;
	}
	for (int o = CODEMAP_FILES; o < m->nobjects; o++) {
		if (used && !used[o])
			continue;
		protocol_record(out, RECORD_OBJECT);
		fprintf(out, "%s=%d", PROTOCOL_REGION_RUN, run);
		protocol_sample_value(out, SAMPLEKEY_ID, "%d", o);
		protocol_sample_value(out, SAMPLEKEY_PATH, "%s", "");
		escape_write(out, m->objects[o].path, strlen(m->objects[o].path));
		fputc('\n', out);
	}
	free(used);
}

void samples_write(struct samples *t, const struct codemap *m, int run, FILE *out)
{
	write_objects(t, m, run, out);
	if (t->cap)
		qsort(t->slot, t->cap, sizeof *t->slot, by_count); /* (the free slots last) */
	for (size_t i = 0; i < t->cap && t->slot[i].n; i++) {
		const struct samples_entry *e = &t->slot[i];
		protocol_record(out, RECORD_SAMPLE);
		fprintf(out, "%s=%d", PROTOCOL_REGION_RUN, run);
		protocol_sample_value(out, SAMPLEKEY_OBJ, "%d", e->at.obj);
		protocol_sample_value(out, SAMPLEKEY_OFF, "0x%llx", (unsigned long long)e->at.off);
		protocol_sample_value(out, SAMPLEKEY_N, "%llu", (unsigned long long)e->n);
		protocol_sample_value(out, SAMPLEKEY_CALLERS, "%s", e->ncallers ? "" : "-");
		for (int c = 0; c < e->ncallers; c++)
			fprintf(out, "%s%d:0x%llx", c ? "," : "", e->callers[c].obj,
				(unsigned long long)e->callers[c].off);
		fputc('\n', out);
	}
}

void samples_free(struct samples *t)
{
	free(t->slot);
	*t = (struct samples){0};
}
