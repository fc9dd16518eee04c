/* count_cachesim: the counting pass's cache simulation (core/count/cachesim.c) natively: walks
 * with known traffic (a line per element strided, a line per 8 elements contiguous, stores'
 * write-allocate and write-backs), LRU within a set, sets that are no power of two.
 * judges no time */
#include "../../core/count/cachesim.c"
#include "tap.h"

#include <stdlib.h>

#define KIB 1024ull
#define MIB (1024ull * KIB)

/* This machine's kind of hierarchy: 48 KiB 12-way L1, 1 MiB 16-way L2, 32 MiB 16-way L3. */
static const struct cachesim_level epyc[] = {{48 * KIB, 12}, {1 * MIB, 16}, {32 * MIB, 16}};

static struct cachesim *make(const struct cachesim_level *lv, int n)
{
	struct cachesim *cs = calloc(1, sizeof *cs);
	cachesim_u64 words = cachesim_words(lv, n, 64);
	cachesim_init(cs, lv, n, 64, calloc(words, sizeof(cachesim_u64)));
	return cs;
}

/* One pass over bytes of memory from 0: an access of size bytes every step bytes. */
static void walk(struct cachesim *cs, cachesim_u64 bytes, cachesim_u64 step, cachesim_u64 size,
		 int write, cachesim_u64 *t)
{
	for (cachesim_u64 a = 0; a < bytes; a += step)
		cachesim_access(cs, a, size, write, t);
}

static void walks(void)
{
	struct cachesim *cs = make(epyc, 3);
	cachesim_u64 t[8] = {0}, n = 128 * MIB; /* four times the last level */
	walk(cs, n, 64, 8, 0, t);		/* the first pass fills the caches */
	for (int i = 0; i < 8; i++)
		t[i] = 0;
	walk(cs, n, 64, 8, 0, t);
	cachesim_u64 loaded = n / 64 * 8;
	ok(t[4] == 8 * loaded,
	   "strided walk over 4x the LLC, a double a line: beyond the LLC 8x the "
	   "loaded bytes (%llu over %llu)",
	   t[4], loaded);
	ok(t[0] == t[4] && t[2] == t[4], "and as much into L1 and L2 (%llu, %llu)", t[0], t[2]);
	for (int i = 0; i < 8; i++)
		t[i] = 0;
	walk(cs, n, 8, 8, 0, t);
	ok(t[4] == n, "contiguous walk: beyond the LLC 1x the loaded bytes (%llu over %llu)", t[4],
	   n);
	ok(t[5] == 0, "no write-back from loads");
	for (int i = 0; i < 8; i++)
		t[i] = 0;
	walk(cs, n, 8, 8, 1, t); /* two passes of stores */
	walk(cs, n, 8, 8, 1, t);
	ok(t[4] == 2 * n,
	   "stores over 4x the LLC: every line filled first (write-allocate: %llu "
	   "over %llu stored)",
	   t[4], 2 * n);
	ok(t[5] <= 2 * n && t[5] >= 2 * n - 34 * MIB,
	   "and written back, but for the dirty lines the caches still hold (%llu)", t[5]);
}

static void small(void)
{
	struct cachesim *cs = make(epyc, 3);
	cachesim_u64 t[8] = {0};
	walk(cs, 24 * KIB, 8, 8, 0, t);
	cachesim_u64 first = t[0];
	walk(cs, 24 * KIB, 8, 8, 0, t);
	ok(first == 24 * KIB && t[0] == first, "half of L1 walked twice: filled once (%llu)", t[0]);
	for (int i = 0; i < 8; i++)
		t[i] = 0;
	cachesim_access(cs, 1 * MIB + 60, 8, 0, t);
	ok(t[0] == 128, "an access across a line boundary fills two lines");
}

static void lru(void)
{
	/* one set of two ways in L1 (128 B), a larger L2 */
	static const struct cachesim_level lv[] = {{128, 2}, {4 * KIB, 4}};
	struct cachesim *cs = make(lv, 2);
	cachesim_u64 t[4] = {0};
	cachesim_access(cs, 0, 8, 0, t);   /* A */
	cachesim_access(cs, 64, 8, 1, t);  /* B, dirty */
	cachesim_access(cs, 0, 8, 0, t);   /* A again: B is the least recent */
	cachesim_access(cs, 128, 8, 0, t); /* C evicts B */
	ok(t[0] == 3 * 64 && t[1] == 64,
	   "LRU: the least recent line is evicted (the dirty B, "
	   "written back: %llu)",
	   t[1]);
	cachesim_u64 before = t[2];
	cachesim_access(cs, 0, 8, 0, t); /* A still there */
	ok(t[0] == 3 * 64, "and the one used since stays");
	ok(t[2] == before, "a line written back fills nothing below it (%llu)", t[2] - before);
}

static void odd_sets(void)
{
	static const struct cachesim_level lv[] = {{3 * 4 * 64, 4}}; /* three sets */
	struct cachesim *cs = make(lv, 1);
	cachesim_u64 t[2] = {0};
	walk(cs, 12 * 64, 64, 8, 0, t);
	walk(cs, 12 * 64, 64, 8, 0, t);
	ok(t[0] == 12 * 64, "three sets of four ways hold twelve lines (%llu filled)", t[0]);
	ok(cachesim_words(lv, 1, 48) == 0 && cachesim_words(lv, 0, 64) == 0,
	   "a line that is no power of two, or no level, is no hierarchy");
	static const struct cachesim_level bad[] = {{64, 2}};
	ok(cachesim_words(bad, 1, 64) == 0, "nor a level smaller than a line of each way");
}

int main(void)
{
	walks();
	small();
	lru();
	odd_sets();
	return done_testing();
}
