/* lcache: the rot.cache Lua module: reads, writes and merges result-cache entries, turning
 * them into Lua tables {description, coreHash, meta = {...}, runs = {{...}, ...}} (and a
 * count's: counted = {the counting tool's lines}). */
#include "cache.h"
#include "lrot.h"
#include "protocol.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A stored value as Lua reads it: an integer in range, else a decimal number, else the text
 * ("nan", "inf" and hex floats stay text: no value of rot's is written so). */
static void push_value(lua_State *L, const char *v)
{
	/* Most values are short decimals, read here without strtoll and strtod: an integer of up to
	 * 18 digits; a fraction of up to 15 digits in all (no exponent), as its digits over a power
	 * of ten: both exact doubles, so the one rounding of the division is strtod's (Clinger). */
	static const double tens[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,	1e6,  1e7,
				      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
	const char *c = v + (*v == '-');
	lua_Integer n = 0;
	int digits = 0, point = -1;
	for (; digits < 18 && *c; c++) {
		if (*c >= '0' && *c <= '9')
			n = 10 * n + (*c - '0'), digits++;
		else if (*c == '.' && point < 0)
			point = digits;
		else
			break;
	}
	if (digits && !*c && point < 0) {
		lua_pushinteger(L, *v == '-' ? -n : n);
		return;
	}
#if FLT_EVAL_METHOD == 0
	if (digits && !*c && digits <= 15) {
		double d = (double)n / tens[digits - point];
		lua_pushnumber(L, *v == '-' ? -d : d);
		return;
	}
#endif
	size_t len = strlen(v);
	int decimal = *v && strspn(v, "0123456789+-.eE") == len;
	if (!decimal && !isspace((unsigned char)*v)) { /* (strtoll would skip a leading blank) */
		lua_pushlstring(L, v, len);
		return;
	}
	char *end;
	errno = 0;
	long long i = strtoll(v, &end, 10);
	if (*v && !*end && errno == 0) {
		lua_pushinteger(L, i);
		return;
	}
	double d = strtod(v, &end);
	if (decimal && !*end)
		lua_pushnumber(L, d); /* an integer past 64 bits too, as a float */
	else
		lua_pushstring(L, v);
}

/* Whether two short texts are the same (a key: a few bytes, compared without a call). */
static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* An array of records (runs, regions) being pushed: each a table of its key=value pairs. A key
 * the record before had at the same place is that record's Lua string again (not made anew
 * each time: records mostly share their keys, in order). */
enum { KEYS = 64 };
struct records {
	int keys,
	    array; /* stack indices: the Lua strings of seen (seen[j]'s at j + 1), the array */
	size_t n;
	const char *seen[KEYS];
};

/* Pushes a list's two tables (its array sized for n records). */
static void records_begin(lua_State *L, struct records *rs, size_t n)
{
	memset(rs, 0, sizeof *rs);
	lua_createtable(L, KEYS, 0);
	rs->keys = lua_gettop(L);
	lua_createtable(L, (int)n, 0);
	rs->array = lua_gettop(L);
}

/* Appends a record of n pairs to the list's array. kv's texts must last until the list ends. */
static void records_add(lua_State *L, struct records *rs, const struct cache_kv *kv, size_t n)
{
	const char **seen = rs->seen;
	lua_createtable(L, 0, (int)n);
	for (size_t j = 0; j < n; j++) {
		const char *k = kv[j].key;
		if (j < KEYS && seen[j] && same(seen[j], k)) {
			lua_rawgeti(L, rs->keys, (lua_Integer)j + 1);
		} else {
			lua_pushstring(L, k);
			if (j < KEYS) {
				seen[j] = k;
				lua_pushvalue(L, -1);
				lua_rawseti(L, rs->keys, (lua_Integer)j + 1);
			}
		}
		push_value(L, kv[j].value);
		lua_rawset(L, -3);
	}
	lua_rawseti(L, rs->array, (lua_Integer)++rs->n);
}

/* Pushes an array of records. */
static void push_records(lua_State *L, const struct cache_run *r, size_t n)
{
	struct records rs;
	records_begin(L, &rs, n);
	for (size_t i = 0; i < n; i++)
		records_add(L, &rs, r[i].kv, r[i].n);
	lua_remove(L, rs.keys);
}

void lrot_push_entry(lua_State *L, const struct cache_entry *e)
{
	lua_createtable(L, 0, 4);
	lua_pushstring(L, e->description ? e->description : "");
	lua_setfield(L, -2, "description");
	lua_pushstring(L, e->core_hash);
	lua_setfield(L, -2, "coreHash");
	lua_createtable(L, 0, (int)e->nmeta);
	for (size_t i = 0; i < e->nmeta; i++) {
		push_value(L, e->meta[i].value);
		lua_setfield(L, -2, e->meta[i].key);
	}
	lrot_strict_meta(L, -1);
	lua_setfield(L, -2, "meta");
	push_records(L, e->runs, e->nruns);
	lua_setfield(L, -2, "runs");
	if (e->nregions) {
		push_records(L, e->regions, e->nregions);
		lua_setfield(L, -2, "regions");
	}
	if (e->nsamples) {
		push_records(L, e->samples, e->nsamples);
		lua_setfield(L, -2, "samples");
	}
	if (e->ncounted) {
		lua_createtable(L, (int)e->ncounted, 0);
		for (size_t i = 0; i < e->ncounted; i++) {
			lua_pushstring(L, e->counted[i]);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
		lua_setfield(L, -2, "counted");
	}
}

#define ENTRY_MT "rot.cacheentry"

/* Pushes the value at idx as text: numbers keep full precision. */
static const char *push_text(lua_State *L, int idx)
{
	if (lua_isinteger(L, idx))
		return lua_pushfstring(L, "%I", lua_tointeger(L, idx));
	if (lua_type(L, idx) == LUA_TNUMBER) {
		char buf[64];
		snprintf(buf, sizeof buf, "%.17g", (double)lua_tonumber(L, idx));
		return lua_pushstring(L, buf);
	}
	return luaL_tolstring(L, idx, NULL);
}

/* A sampled invocation's record's keys as a table gives them, in the order an entry keeps:
 * record=WORD first, then run=I. */
static void order_sample(struct cache_kv *kv, size_t m)
{
	static const char *const first[] = {CACHE_RECORD_KEY, PROTOCOL_REGION_RUN};
	for (size_t f = 0; f < 2 && f < m; f++)
		for (size_t i = f; i < m; i++)
			if (strcmp(kv[i].key, first[f]) == 0) {
				struct cache_kv t = kv[f];
				kv[f] = kv[i];
				kv[i] = t;
				break;
			}
}

/* The records of the table at idx's field (runs, regions, samples) into e; raises on a bad
 * one. */
static void check_records(lua_State *L, int idx, const char *field, struct cache_entry *e)
{
	int region = strcmp(field, "regions") == 0, sample = strcmp(field, "samples") == 0;
	if (lua_getfield(L, idx, field) == LUA_TTABLE) {
		lua_Integer n = luaL_len(L, -1);
		for (lua_Integer i = 1; i <= n; i++) {
			struct cache_kv kv[64];
			size_t m = 0;
			lua_geti(L, -1, i);
			int run = lua_gettop(L);
			luaL_checkstack(L, 2 * 64 + 8, NULL);
			lua_pushnil(L);
			while (lua_next(L, run)) {
				if (m == 64 || lua_type(L, -2) != LUA_TSTRING)
					luaL_error(L, "bad %s %d in cache entry", field, (int)i);
				kv[m].key = (char *)lua_tostring(L, -2);
				kv[m].value = (char *)push_text(L, -1);
				/* keep key and text on the stack; drop the value, reuse key for
				 * next */
				lua_remove(L, -2);
				lua_pushvalue(L, -2);
				m++;
			}
			if (sample)
				order_sample(kv, m);
			if ((sample   ? cache_entry_add_sample(e, kv, m)
			     : region ? cache_entry_add_region(e, kv, m)
				      : cache_entry_add_run(e, kv, m)) < 0)
				luaL_error(L, "bad %s %d in cache entry", field, (int)i);
			lua_settop(L, run - 1);
		}
	}
	lua_pop(L, 1);
}

/* Fills e from the table at idx; raises on malformed input (e is freed by its holder). */
static void check_entry(lua_State *L, int idx, struct cache_entry *e)
{
	luaL_checktype(L, idx, LUA_TTABLE);
	lua_getfield(L, idx, "description");
	e->description = strdup(luaL_checkstring(L, -1));
	if (!e->description)
		luaL_error(L, "out of memory");
	lua_getfield(L, idx, "coreHash");
	snprintf(e->core_hash, sizeof e->core_hash, "%s", luaL_optstring(L, -1, ""));
	lua_pop(L, 2);
	if (lua_getfield(L, idx, "meta") == LUA_TTABLE) {
		lua_pushnil(L);
		while (lua_next(L, -2)) {
			/* lua_tostring would turn a number key into a string under lua_next */
			const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
			if (!k || cache_entry_set_meta(e, k, push_text(L, -1)) < 0)
				luaL_error(L, "bad metadata '%s' in cache entry", k ? k : "?");
			lua_pop(L, 2);
		}
	}
	lua_pop(L, 1);
	check_records(L, idx, "runs", e);
	check_records(L, idx, "regions", e);
	check_records(L, idx, "samples", e);
	if (lua_getfield(L, idx, "counted") == LUA_TTABLE) {
		lua_Integer n = luaL_len(L, -1);
		for (lua_Integer i = 1; i <= n; i++) {
			lua_geti(L, -1, i);
			const char *line = lua_tostring(L, -1);
			if (!line || cache_entry_add_counted(e, line) < 0)
				luaL_error(L, "bad counted line %d in cache entry", (int)i);
			lua_pop(L, 1);
		}
	}
	lua_pop(L, 1);
}

static int entry_gc(lua_State *L)
{
	cache_entry_free(luaL_checkudata(L, 1, ENTRY_MT));
	return 0;
}

/* Creates the holder first, then fills it: an error on the way frees it through __gc. */
static struct cache_entry *to_entry(lua_State *L, int idx)
{
	struct cache_entry *e = lua_newuserdatauv(L, sizeof *e, 0);
	cache_entry_init(e);
	luaL_setmetatable(L, ENTRY_MT);
	check_entry(L, idx, e);
	return e;
}

/* The sink a read fills: the entry's table (at entry), its meta table, its lists and counted
 * lines, made as they are met. */
struct lua_sink {
	lua_State *L;
	int entry, meta, counted; /* stack indices (counted: 0 until one is met) */
	size_t ncounted;
	struct records lists[3]; /* by enum cache_list; array 0 until one is met */
};

static int sink_meta(void *ctx, const char *key, const char *value)
{
	struct lua_sink *k = ctx;
	push_value(k->L, value);
	lua_setfield(k->L, k->meta, key);
	return 0;
}

static int sink_record(void *ctx, enum cache_list list, const struct cache_kv *kv, size_t n)
{
	struct lua_sink *k = ctx;
	struct records *rs = &k->lists[list];
	if (!rs->array)
		records_begin(k->L, rs, list == CACHE_RUNS ? 8 : 0);
	records_add(k->L, rs, kv, n);
	return 0;
}

static int sink_counted(void *ctx, const char *line)
{
	struct lua_sink *k = ctx;
	if (!k->counted) {
		lua_newtable(k->L);
		k->counted = lua_gettop(k->L);
	}
	lua_pushstring(k->L, line);
	lua_rawseti(k->L, k->counted, (lua_Integer)++k->ncounted);
	return 0;
}

/* Sets the entry's fields from what the sink met (an entry has runs, maybe none; the others
 * where it has some), as lrot_push_entry does. */
static void sink_finish(struct lua_sink *k, const struct cache_text *t)
{
	lua_State *L = k->L;
	static const char *const names[] = {"runs", "regions", "samples"};
	lua_pushlstring(L, t->description, t->dlen);
	lua_setfield(L, k->entry, "description");
	lua_pushstring(L, t->core_hash);
	lua_setfield(L, k->entry, "coreHash");
	lrot_strict_meta(L, k->meta);
	lua_pushvalue(L, k->meta);
	lua_setfield(L, k->entry, "meta");
	if (!k->lists[CACHE_RUNS].array)
		records_begin(L, &k->lists[CACHE_RUNS], 0);
	for (int i = 0; i < 3; i++) {
		if (!k->lists[i].array)
			continue;
		lua_pushvalue(L, k->lists[i].array);
		lua_setfield(L, k->entry, names[i]);
	}
	if (k->counted) {
		lua_pushvalue(L, k->counted);
		lua_setfield(L, k->entry, "counted");
	}
	lua_settop(L, k->entry);
}

#define TEXT_MT                                                                                    \
	"rot.cachetext" /* a read's file, freed by the collector where a Lua error ends it */

static int text_gc(lua_State *L)
{
	char **p = luaL_checkudata(L, 1, TEXT_MT);
	free(*p);
	*p = NULL;
	return 0;
}

/* read(path) -> entry ; nil, message, "missing"|"corrupt": "corrupt" is an entry there that
 * cannot be used (measure it again), and its message says why: "corrupted cache entry 'P': ..."
 * for a damaged one, "cannot read cache entry 'P': permission denied" for one the system
 * would not read (never called corrupted). Its lines go into Lua tables as they are scanned,
 * in the file's own buffer, which a box the collector owns frees (a Lua error leaks nothing). */
static int l_read(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	char err[256];
	size_t len;
	char **box = lua_newuserdatauv(L, sizeof *box, 0);
	*box = NULL;
	luaL_setmetatable(L, TEXT_MT);
	int rc = cache_file_read(path, box, &len, err, sizeof err);
	struct lua_sink k = {.L = L};
	struct cache_text t;
	if (rc == 0) {
		lua_createtable(L, 0, 6);
		k.entry = lua_gettop(L);
		lua_createtable(L, 0, 40);
		k.meta = lua_gettop(L);
		const struct cache_sink s = {&k, sink_meta, sink_record, sink_counted};
		rc = cache_text_scan(*box, len, &s, &t, err, sizeof err) != 0 ? -1 : 0;
	}
	if (rc == 0) {
		sink_finish(&k, &t);
		return 1;
	}
	lua_pushnil(L);
	if (rc > 0)
		lua_pushfstring(L, "no cache entry '%s'", path);
	else if (rc == -2)
		lua_pushfstring(L, "cannot read cache entry '%s': %s", path, err);
	else
		lua_pushfstring(L, "corrupted cache entry '%s': %s", path, err);
	lua_pushstring(L, rc > 0 ? "missing" : "corrupt");
	return 3;
}

/* write(path, entry) -> true ; nil, message */
static int l_write(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	struct cache_entry *e = to_entry(L, 2);
	int rc = cache_entry_write(path, e);
	if (rc < 0)
		return lrot_fail(L, path);
	lua_pushboolean(L, 1);
	return 1;
}

/* merge(entry, more) -> new entry with the runs of both, metadata of more */
static int l_merge(lua_State *L)
{
	struct cache_entry *a = to_entry(L, 1);
	struct cache_entry *b = to_entry(L, 2);
	if (cache_entry_merge(a, b) < 0)
		return luaL_error(L, "cannot merge cache entries");
	lrot_push_entry(L, a);
	return 1;
}

static int l_path(lua_State *L)
{
	char *p = cache_entry_path(luaL_checkstring(L, 1), luaL_checkstring(L, 2));
	lua_pushstring(L, p);
	free(p);
	return 1;
}

static const luaL_Reg funcs[] = {
    {"read", l_read}, {"write", l_write}, {"merge", l_merge}, {"path", l_path}, {NULL, NULL}};

int luaopen_rot_cache(lua_State *L)
{
	static const luaL_Reg meta[] = {{"__gc", entry_gc}, {NULL, NULL}};
	static const luaL_Reg text[] = {{"__gc", text_gc}, {NULL, NULL}};
	lrot_newclass(L, ENTRY_MT, meta, NULL);
	lrot_newclass(L, TEXT_MT, text, NULL);
	luaL_newlib(L, funcs);
	return 1;
}
