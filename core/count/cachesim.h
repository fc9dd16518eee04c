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

/* The same, the traffic added to also too where also is not NULL; 1 when a line missed the
 * first level (traffic grew), else 0. */
int cachesim_access_also(struct cachesim *cs, cachesim_u64 addr, cachesim_u64 size, int write,
			 cachesim_u64 *traffic, cachesim_u64 *also);

/* The ways of the set line maps to in c, most recent first. */
static inline cachesim_u64 *cachesim_set(const struct cachesim_cache *c, cachesim_u64 line)
{
	cachesim_u64 set = c->mask ? (line & c->mask) : line % c->sets; /* (1 set: no mask) */
	return c->way + set * c->assoc;
}

/* Whether the line whose key (line << 1 | 1) is given is in the set w of assoc ways: a hit
 * moves it to the front, dirty when written. (A for with ifs: faster than a while here.) */
__attribute__((always_inline)) static inline int
cachesim_lookup(cachesim_u64 *w, unsigned assoc, cachesim_u64 key, cachesim_u64 dirty)
{
	if ((w[0] | 1) == key) {
		w[0] |= dirty;
		return 1;
	}
	unsigned i = 1;
	for (; i + 1 < assoc; i += 2) { /* two ways a turn: fewer branches on a miss */
		if ((w[i] | 1) == key)
			goto hit;
		if ((w[i + 1] | 1) == key) {
			i++;
			goto hit;
		}
	}
	if (i < assoc && (w[i] | 1) == key)
		goto hit;
	return 0;
hit:;
	cachesim_u64 entry = w[i] | dirty;
	for (unsigned j = i; j > 0; j--) /* the ways before it move back one */
		w[j] = w[j - 1];
	w[0] = entry;
	return 1;
}

/* Line `line`, which missed the first level (its set there w), filled into it and below, as
 * cachesim_access_also says: 1. */
int cachesim_fill(struct cachesim *cs, cachesim_u64 line, int write, cachesim_u64 *w,
		  cachesim_u64 *traffic, cachesim_u64 *also);

/* cachesim_access_also, where the access of one line that hits the first level is decided
 * inline (the common case: the tool's helpers inline it, as cachegrind's do). */
__attribute__((always_inline)) static inline int cachesim_ref(struct cachesim *cs,
							      cachesim_u64 addr, cachesim_u64 size,
							      int write, cachesim_u64 *traffic,
							      cachesim_u64 *also)
{
	cachesim_u64 line = addr >> cs->line_bits;
	if (size && ((addr + size - 1) >> cs->line_bits) == line) {
		const struct cachesim_cache *c = &cs->lv[0];
		cachesim_u64 *w = cachesim_set(c, line);
		if (cachesim_lookup(w, c->assoc, line << 1 | 1, (cachesim_u64)(write != 0)))
			return 0;
		return cachesim_fill(cs, line, write, w, traffic, also);
	}
	return cachesim_access_also(cs, addr, size, write, traffic, also);
}

/* Empties every level: dirty lines are dropped, not written back (a cold run's start, which
 * the kernel's own flush wrote back already). */
void cachesim_flush(struct cachesim *cs);

#endif
