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

/* The ways of the set line maps to in c. */
static inline cachesim_u64 *set_of(const struct cachesim_cache *c, cachesim_u64 line)
{
	cachesim_u64 set = c->mask ? (line & c->mask) : (c->sets == 1 ? 0 : line % c->sets);
	return c->way + set * c->assoc;
}

/*
 * Line `line` accessed in level l: a hit moves it to the front (dirty when written); a miss
 * puts it there, fetched from below unless a whole line is being written back into this level
 * (whole), and writes back the dirty line it evicts.
 */
static void touch(struct cachesim *cs, int l, cachesim_u64 line, int write, int whole,
		  cachesim_u64 *traffic)
{
	const struct cachesim_cache *c = &cs->lv[l];
	cachesim_u64 *w = set_of(c, line), key = line << 1;
	unsigned j = 0;
	while (j < c->assoc && (w[j] & ~1ull) != key)
		j++;
	int hit = j < c->assoc;
	cachesim_u64 entry = (hit ? w[j] : key) | (cachesim_u64)(write != 0);
	cachesim_u64 victim = hit ? EMPTY : w[c->assoc - 1];
	for (j = hit ? j : c->assoc - 1; j > 0; j--) /* the ways before it move back one */
		w[j] = w[j - 1];
	w[0] = entry;
	if (hit)
		return;
	if (!whole) {
		traffic[2 * l] += cs->line;
		if (l + 1 < cs->n)
			touch(cs, l + 1, line, 0, 0, traffic);
	}
	if (victim != EMPTY && (victim & 1)) {
		traffic[2 * l + 1] += cs->line;
		if (l + 1 < cs->n)
			touch(cs, l + 1, victim >> 1, 1, 1, traffic);
	}
}

void cachesim_access(struct cachesim *cs, cachesim_u64 addr, cachesim_u64 size, int write,
		     cachesim_u64 *traffic)
{
	if (size == 0)
		return;
	cachesim_u64 last = (addr + size - 1) >> cs->line_bits;
	for (cachesim_u64 line = addr >> cs->line_bits; line <= last; line++)
		touch(cs, 0, line, write, 0, traffic);
}
