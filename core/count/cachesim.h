/* cachesim: a simulated cache hierarchy (set-associative, LRU, write-back, write-allocate) and
 * the bytes that cross each boundary. Freestanding C (no library calls): it runs inside rot's
 * Valgrind tool and, natively, in its unit test. */
#ifndef ROT_COUNT_CACHESIM_H
#define ROT_COUNT_CACHESIM_H

/* (no library header: the tool has no C library) */
typedef unsigned long long cachesim_u64;

#define CACHESIM_MAX_LEVELS 4

struct cachesim_level {
	cachesim_u64 size; /* bytes of the level */
	unsigned assoc;	   /* ways of a set */
};

struct cachesim_cache {
	cachesim_u64 sets, mask; /* mask: sets - 1 where sets is a power of two, else 0 */
	unsigned assoc;
	cachesim_u64
	    *way; /* sets * assoc entries, most recent first: (line << 1) | dirty, or EMPTY */
};

struct cachesim {
	int n;		    /* levels, L1 first */
	unsigned line_bits; /* log2 of the line size, the same at every level */
	cachesim_u64 line;
	struct cachesim_cache lv[CACHESIM_MAX_LEVELS];
};

/*
 * Checks the levels (1 to CACHESIM_MAX_LEVELS, each at least one line of assoc ways) and the
 * line size (a power of two) and says how many 64-bit words their tags take: 0 when they are
 * no hierarchy the simulation can take.
 */
cachesim_u64 cachesim_words(const struct cachesim_level *lv, int n, cachesim_u64 line);

/* Sets cs up for the levels over words (cachesim_words of them, zero or not), every cache
 * empty. */
void cachesim_init(struct cachesim *cs, const struct cachesim_level *lv, int n, cachesim_u64 line,
		   cachesim_u64 *words);

/*
 * An access of size bytes at addr (a write when write is 1) in the hierarchy. traffic[2*i]
 * gets the bytes of the lines filled into level i+1 from below it (a miss, a write's included:
 * write-allocate), traffic[2*i+1] those of the dirty lines it wrote back below (an eviction; a
 * line written back fills nothing below it). A level below the last is memory.
 */
void cachesim_access(struct cachesim *cs, cachesim_u64 addr, cachesim_u64 size, int write,
		     cachesim_u64 *traffic);

/* Empties every level: dirty lines are dropped, not written back (a cold run's start, which
 * the kernel's own flush wrote back already). */
void cachesim_flush(struct cachesim *cs);

#endif
