/* cachesim: the simulated cache hierarchy of rot's counting pass: LRU sets of line tags per
 * level, misses filled from the level below, dirty victims written back to it. */
#include "cachesim.h"

#define EMPTY (~0ull)

cachesim_u64 cachesim_words(const struct cachesim_level *lv, int n, cachesim_u64 line)
{
	cachesim_u64 words = 0;
	if (n < 1 || n > CACHESIM_MAX_LEVELS || line == 0 || (line & (line - 1)) != 0)
		return 0;
	for (int i = 0; i < n; i++) {
		if (lv[i].assoc == 0 || lv[i].size < line * lv[i].assoc)
			return 0;
		words += lv[i].size / (line * lv[i].assoc) * lv[i].assoc;
	}
	return words;
}

void cachesim_init(struct cachesim *cs, const struct cachesim_level *lv, int n, cachesim_u64 line,
		   cachesim_u64 *words)
{
	cs->n = n;
	cs->line = line;
	cs->line_bits = 0;
	while ((1ull << cs->line_bits) < line)
		cs->line_bits++;
	for (int i = 0; i < n; i++) {
		struct cachesim_cache *c = &cs->lv[i];
		c->assoc = lv[i].assoc;
		c->sets = lv[i].size / (line * lv[i].assoc);
		c->mask = (c->sets & (c->sets - 1)) == 0 ? c->sets - 1 : 0;
		c->way = words;
		words += c->sets * c->assoc;
	}
	cachesim_flush(cs);
}

void cachesim_flush(struct cachesim *cs)
{
	for (int i = 0; i < cs->n; i++) {
		struct cachesim_cache *c = &cs->lv[i];
		for (cachesim_u64 j = 0; j < c->sets * c->assoc; j++)
			c->way[j] = EMPTY;
	}
}

/* entry put at the front of the set w: the entry it evicts. */
static inline cachesim_u64 insert(cachesim_u64 *w, unsigned assoc, cachesim_u64 entry)
{
	cachesim_u64 victim = w[assoc - 1];
	unsigned j = assoc - 1;
	for (; j >= 2; j -= 2) { /* two ways a turn */
		w[j] = w[j - 1];
		w[j - 1] = w[j - 2];
	}
	if (j == 1)
		w[1] = w[0];
	w[0] = entry;
	return victim;
}

static inline void moved(cachesim_u64 *traffic, cachesim_u64 *also, int i, cachesim_u64 bytes)
{
	traffic[i] += bytes;
	if (also)
		also[i] += bytes;
}

/* A dirty line written back from level l - 1 into level l: marked dirty where it is, else put
 * there whole (nothing filled from below); a dirty line that makes way goes further down. */
static void write_back(struct cachesim *cs, int l, cachesim_u64 line, cachesim_u64 *traffic,
		       cachesim_u64 *also)
{
	for (; l < cs->n; l++) {
		const struct cachesim_cache *c = &cs->lv[l];
		cachesim_u64 *w = cachesim_set(c, line), key = line << 1 | 1;
		if (cachesim_lookup(w, c->assoc, key, 1))
			return;
		cachesim_u64 victim = insert(w, c->assoc, key);
		if (victim == EMPTY || !(victim & 1))
			return;
		moved(traffic, also, 2 * l + 1, cs->line);
		line = victim >> 1;
	}
}

/*
 * Line `line` missed the first level (set w there): filled into it (write-allocate: dirty when
 * written), then looked up level by level below until one holds it, each level that misses
 * filled from below; then, the deepest first, the dirty lines those fills evicted written back
 * one level down. (The levels' fields are read into locals: the tool is built without strict
 * aliasing, so they would be read again after every store to the ways.)
 */
int cachesim_fill(struct cachesim *cs, cachesim_u64 line, int write, cachesim_u64 *w,
		  cachesim_u64 *traffic, cachesim_u64 *also)
{
	cachesim_u64 victims[CACHESIM_MAX_LEVELS], bytes = cs->line;
	const cachesim_u64 key = line << 1 | 1;
	const int n = cs->n;
	if (n > 1) /* the second level's set, fetched while the first level's moves */
		__builtin_prefetch(cachesim_set(&cs->lv[1], line));
	victims[0] = insert(w, cs->lv[0].assoc, (key ^ 1) | (cachesim_u64)(write != 0));
	moved(traffic, also, 0, bytes);
	int l = 1;
	for (; l < n; l++) {
		const struct cachesim_cache *c = &cs->lv[l];
		cachesim_u64 *lw = cachesim_set(c, line);
		if (cachesim_lookup(lw, c->assoc, key, 0))
			break;
		victims[l] = insert(lw, c->assoc, key ^ 1);
		moved(traffic, also, 2 * l, bytes);
	}
	for (int k = l - 1; k >= 0; k--) {
		if (victims[k] == EMPTY || !(victims[k] & 1))
			continue;
		moved(traffic, also, 2 * k + 1, bytes);
		write_back(cs, k + 1, victims[k] >> 1, traffic, also);
	}
	return 1;
}

int cachesim_access_also(struct cachesim *cs, cachesim_u64 addr, cachesim_u64 size, int write,
			 cachesim_u64 *traffic, cachesim_u64 *also)
{
	int missed = 0;
	if (size == 0)
		return 0;
	cachesim_u64 last = (addr + size - 1) >> cs->line_bits;
	for (cachesim_u64 line = addr >> cs->line_bits; line <= last; line++) {
		const struct cachesim_cache *c = &cs->lv[0];
		cachesim_u64 *w = cachesim_set(c, line);
		if (!cachesim_lookup(w, c->assoc, line << 1 | 1, (cachesim_u64)(write != 0)))
			missed |= cachesim_fill(cs, line, write, w, traffic, also);
	}
	return missed;
}

void cachesim_access(struct cachesim *cs, cachesim_u64 addr, cachesim_u64 size, int write,
		     cachesim_u64 *traffic)
{
	cachesim_access_also(cs, addr, size, write, traffic, 0);
}
