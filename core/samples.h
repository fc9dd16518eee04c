/* samples: a sampled invocation's samples counted by place and callers (object and offset,
 * codemap.h), and written as its object and sample records (protocol.h's OBJECT and SAMPLE). */
#ifndef ROT_SAMPLES_H
#define ROT_SAMPLES_H

#include "codemap.h"
#include "vocabulary.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A place code ran at: its object (codemap.h) and its offset there. */
struct samples_place {
	int obj;
	uint64_t off;
};

/* The samples at one place with the same callers (innermost first). */
struct samples_entry {
	struct samples_place at, callers[SAMPLER_CALLERS];
	int ncallers;
	uint64_t n;
};

/* The entries, an open-addressing table (a free slot's n is 0). */
struct samples {
	struct samples_entry *slot;
	size_t n, cap;
};

/* One more sample at e's place with e's callers (e->n is ignored): 0, or -1 when memory ran
 * out (the sample is not counted). */
int samples_add(struct samples *t, const struct samples_entry *e);

/* Writes an object record for each file of m the entries name (kernel and unknown code have
 * none: their ids are declared), then a sample record for each entry, the most samples first
 * (run: the invocation). The table is sorted by it: no entry can be added after. */
void samples_write(struct samples *t, const struct codemap *m, int run, FILE *out);

void samples_free(struct samples *t);

#endif
