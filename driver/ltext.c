/* ltext: the rot.text Lua module: the canonical texts rot.util and rot.csv write (JSON, a
 * value's serialization, CSV), in C: the Lua code's texts to the byte, several times as fast.
 * Each returns nil for what only that Lua code handles (a table with a metatable, mixed or odd
 * keys, an odd value, an error to raise), which then writes it. */
#include "lrot.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 200 /* deeper than any document rot writes: left to the Lua code */

static char pad[2 * MAX_DEPTH + 2]; /* spaces: an indent is a prefix of them */

/* The text being written, or failed (then nil is returned). */
struct text {
	char *p;
	size_t len, cap;
	int failed;
};

static void put(struct text *t, const char *s, size_t n)
{
	if (t->failed)
		return;
	if (t->len + n > t->cap) {
		size_t cap = (t->cap ? 2 * t->cap : 4096) + n;
		char *q = realloc(t->p, cap);
		if (!q) {
			t->failed = 1;
			return;
		}
		t->p = q, t->cap = cap;
	}
	memcpy(t->p + t->len, s, n);
	t->len += n;
}

static void puts_(struct text *t, const char *s)
{
	put(t, s, strlen(s));
}

/* Pushes the text written (nil when it failed); returns 1. */
static int finish(lua_State *L, struct text *t)
{
	if (t->failed)
		lua_pushnil(L);
	else
		lua_pushlstring(L, t->p ? t->p : "", t->len);
	free(t->p);
	return 1;
}

/* A float as string.format("%.17g") writes it. */
static void put_g17(struct text *t, lua_Number v)
{
	char b[64];
	int n = snprintf(b, sizeof b, "%.17g", (double)v);
	put(t, b, (size_t)n);
}

/* An integer as tostring and string.format("%d") write it. */
static void put_int(struct text *t, lua_Integer v)
{
	char b[32];
	int n = snprintf(b, sizeof b, LUA_INTEGER_FMT, (LUAI_UACINT)v);
	put(t, b, (size_t)n);
}

/* The stack indices of keys being sorted (qsort has no context: one sort at a time). */
static lua_State *sorting;

static int by_lt(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	return lua_compare(sorting, i, j, LUA_OPLT) ? -1 : lua_compare(sorting, j, i, LUA_OPLT);
}

/* Pushes the keys of the table at idx, sorted as rot.util sorts them, into order (their stack
 * indices); returns their count, or -1 (nothing pushed) where the Lua code must sort them: a
 * metatable, keys of mixed or other types than strings and numbers, no room. */
static int sorted_keys(lua_State *L, int idx, int **order)
{
	int top = lua_gettop(L), n = 0, kind = LUA_TNONE;
	if (lua_getmetatable(L, idx)) {
		lua_pop(L, 1);
		return -1;
	}
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		lua_pop(L, 1);
		int k = lua_type(L, -1);
		if ((k != LUA_TSTRING && k != LUA_TNUMBER) || (kind != LUA_TNONE && k != kind) ||
		    !lua_checkstack(L, 3)) {
			lua_settop(L, top);
			return -1;
		}
		kind = k;
		lua_pushvalue(L, -1); /* one copy stays; the other goes on with next */
		lua_insert(L, -2);
		n++;
	}
	*order = malloc((size_t)(n ? n : 1) * sizeof **order);
	if (!*order) {
		lua_settop(L, top);
		return -1;
	}
	for (int i = 0; i < n; i++)
		(*order)[i] = top + 1 + i;
	sorting = L;
	qsort(*order, (size_t)n, sizeof **order, by_lt);
	return n;
}

/* A JSON string (rot.util's escapes: \" \\ \n \t \r, other control characters \u00XX). */
static void json_string(struct text *t, const char *s, size_t n)
{
	put(t, "\"", 1);
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!iscntrl(c) && c != '"' && c != '\\')
			continue;
		put(t, s + from, i - from);
		char e[8];
		const char *esc = c == '"'    ? "\\\""
				  : c == '\\' ? "\\\\"
				  : c == '\n' ? "\\n"
				  : c == '\t' ? "\\t"
				  : c == '\r' ? "\\r"
					      : NULL;
		if (!esc) {
			snprintf(e, sizeof e, "\\u%04x", c);
			esc = e;
		}
		puts_(t, esc);
		from = i + 1;
	}
	put(t, s + from, n - from);
	put(t, "\"", 1);
}

static void json_value(lua_State *L, struct text *t, int idx, int depth);

/* A table as a JSON array (a sequence: #v > 0) or object, its items one deeper. */
static void json_table(lua_State *L, struct text *t, int idx, int depth)
{
	lua_pushnil(L);
	if (!lua_next(L, idx)) {
		put(t, "[]", 2);
		return;
	}
	lua_pop(L, 2);
	if (lua_getmetatable(L, idx) || depth >= MAX_DEPTH) {
		t->failed = 1;
		return;
	}
	size_t in = 2 * (size_t)(depth + 1);
	if (lua_rawlen(L, idx) > 0) {
		put(t, "[\n", 2);
		for (lua_Integer i = 1; lua_rawgeti(L, idx, i) != LUA_TNIL && !t->failed; i++) {
			if (i > 1)
				put(t, ",\n", 2);
			put(t, pad, in);
			json_value(L, t, lua_gettop(L), depth + 1);
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
		put(t, "\n", 1);
		put(t, pad, in - 2);
		put(t, "]", 1);
		return;
	}
	int *order, top = lua_gettop(L), n = sorted_keys(L, idx, &order);
	if (n < 0) {
		t->failed = 1;
		return;
	}
	for (int i = 0; i < n && !t->failed; i++) {
		put(t, i ? ",\n" : "{\n", 2);
		put(t, pad, in);
		lua_pushvalue(L, order[i]);
		size_t kl;
		const char *k = lua_tolstring(L, -1, &kl); /* a number key: its tostring */
		json_string(t, k, kl);
		lua_pop(L, 1);
		put(t, ": ", 2);
		lua_pushvalue(L, order[i]);
		lua_rawget(L, idx);
		json_value(L, t, lua_gettop(L), depth + 1);
		lua_pop(L, 1);
	}
	free(order);
	lua_settop(L, top);
	put(t, "\n", 1);
	put(t, pad, in - 2);
	put(t, "}", 1);
}

static void json_value(lua_State *L, struct text *t, int idx, int depth)
{
	size_t n;
	const char *s;
	switch (lua_type(L, idx)) {
	case LUA_TSTRING:
		s = lua_tolstring(L, idx, &n);
		json_string(t, s, n);
		break;
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx))
			put_int(t, lua_tointeger(L, idx));
		else if (isnan(lua_tonumber(L, idx)) || isinf(lua_tonumber(L, idx)))
			put(t, "null", 4);
		else
			put_g17(t, lua_tonumber(L, idx));
		break;
	case LUA_TNIL:
		put(t, "null", 4);
		break;
	case LUA_TBOOLEAN:
		puts_(t, lua_toboolean(L, idx) ? "true" : "false");
		break;
	case LUA_TTABLE:
		if (!lua_checkstack(L, 8)) {
			t->failed = 1;
			return;
		}
		json_table(L, t, idx, depth);
		break;
	default:
		t->failed = 1;
	}
}

/* A string as string.format("%q") quotes it (lstrlib.c's addquoted). */
static void quoted(struct text *t, const char *s, size_t n)
{
	put(t, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\' || c == '\n') {
			char e[2] = {'\\', (char)c};
			put(t, e, 2);
		} else if (iscntrl(c)) {
			char e[8]; /* s[n] is the string's terminating zero: no digit */
			int m = snprintf(e, sizeof e,
					 isdigit((unsigned char)s[i + 1]) ? "\\%03d" : "\\%d", c);
			put(t, e, (size_t)m);
		} else {
			put(t, s + i, 1);
		}
	}
	put(t, "\"", 1);
}

/* The tables being serialized, outermost first: one met again is a cycle (left to the Lua
 * code, which says so). */
struct open {
	const void *at[MAX_DEPTH];
	int n;
};

static void ser_value(lua_State *L, struct text *t, int idx, int frozen, struct open *o);

/* A table: its frozen text, else "{[key]=value,...}" in sorted key order. */
static void ser_table(lua_State *L, struct text *t, int idx, int frozen, struct open *o)
{
	lua_pushvalue(L, idx);
	if (lua_rawget(L, frozen) == LUA_TSTRING) {
		size_t n;
		const char *s = lua_tolstring(L, -1, &n);
		put(t, s, n);
		lua_pop(L, 1);
		return;
	}
	lua_pop(L, 1);
	const void *me = lua_topointer(L, idx);
	for (int i = 0; i < o->n; i++)
		if (o->at[i] == me)
			t->failed = 1;
	if (t->failed || o->n == MAX_DEPTH || !lua_checkstack(L, 8)) {
		t->failed = 1;
		return;
	}
	int *order, top = lua_gettop(L), n = sorted_keys(L, idx, &order);
	if (n < 0) {
		t->failed = 1;
		return;
	}
	o->at[o->n++] = me;
	put(t, "{", 1);
	for (int i = 0; i < n && !t->failed; i++) {
		put(t, i ? ",[" : "[", i ? 2 : 1);
		ser_value(L, t, order[i], frozen, o);
		put(t, "]=", 2);
		lua_pushvalue(L, order[i]);
		lua_rawget(L, idx);
		ser_value(L, t, lua_gettop(L), frozen, o);
		lua_pop(L, 1);
	}
	put(t, "}", 1);
	o->n--;
	free(order);
	lua_settop(L, top);
}

static void ser_value(lua_State *L, struct text *t, int idx, int frozen, struct open *o)
{
	size_t n;
	const char *s;
	lua_Number v;
	switch (lua_type(L, idx)) {
	case LUA_TSTRING:
		s = lua_tolstring(L, idx, &n);
		quoted(t, s, n);
		break;
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx)) {
			put_int(t, lua_tointeger(L, idx));
			break;
		}
		v = lua_tonumber(L, idx);
		if (isnan(v) || isinf(v)) {
			t->failed = 1;
			break;
		}
		put_g17(t, v);
		if (floor(v) == v)
			put(t, ".0", 2);
		break;
	case LUA_TNIL:
		put(t, "nil", 3);
		break;
	case LUA_TBOOLEAN:
		puts_(t, lua_toboolean(L, idx) ? "true" : "false");
		break;
	case LUA_TTABLE:
		ser_table(L, t, idx, frozen, o);
		break;
	default:
		t->failed = 1;
	}
}

/* serialize(v, frozen) -> rot.util.serialize's text of v (frozen: the texts of frozen tables,
 * by table), or nil: the Lua code writes it (or says why it cannot). */
static int l_serialize(lua_State *L)
{
	struct text t = {0};
	struct open o = {.n = 0};
	luaL_checkany(L, 1);
	luaL_checktype(L, 2, LUA_TTABLE);
	lua_settop(L, 2);
	ser_value(L, &t, 1, 2, &o);
	return finish(L, &t);
}

/* A CSV field as rot.csv writes it: a number in the fewest of 15 to 17 digits that reads back
 * as it (the Lua code's reading: lua_stringtonumber), booleans 1 and 0, nil empty, a string
 * quoted when it holds a comma, a quote or a line break; anything else fails. */
static void csv_field(lua_State *L, struct text *t, int idx)
{
	size_t n;
	const char *s;
	char b[64];
	switch (lua_type(L, idx)) {
	case LUA_TNIL:
		break;
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx)) {
			put_int(t, lua_tointeger(L, idx));
			break;
		}
		for (int digits = 15; digits <= 17; digits++) {
			int m = snprintf(b, sizeof b, "%.*g", digits, (double)lua_tonumber(L, idx));
			int back = digits < 17 && lua_stringtonumber(L, b) != 0;
			int same = back && lua_compare(L, -1, idx, LUA_OPEQ);
			if (back)
				lua_pop(L, 1);
			if (same || digits == 17) {
				put(t, b, (size_t)m);
				break;
			}
		}
		break;
	case LUA_TBOOLEAN:
		put(t, lua_toboolean(L, idx) ? "1" : "0", 1);
		break;
	case LUA_TSTRING:
		s = lua_tolstring(L, idx, &n);
		if (!memchr(s, ',', n) && !memchr(s, '"', n) && !memchr(s, '\r', n) &&
		    !memchr(s, '\n', n)) {
			put(t, s, n);
			break;
		}
		put(t, "\"", 1);
		for (size_t i = 0; i < n; i++) /* a quote doubled */
			put(t, s[i] == '"' ? "\"\"" : s + i, s[i] == '"' ? 2 : 1);
		put(t, "\"", 1);
		break;
	default:
		t->failed = 1;
	}
}

/* csv(header, records) -> rot.csv.text's text, or nil: the Lua code writes it. */
static int l_csv(lua_State *L)
{
	struct text t = {0};
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_checktype(L, 2, LUA_TTABLE);
	lua_settop(L, 2);
	if (lua_getmetatable(L, 1) || lua_getmetatable(L, 2))
		return lua_pushnil(L), 1;
	lua_Integer cols = (lua_Integer)lua_rawlen(L, 1);
	for (lua_Integer r = 0; !t.failed; r++) { /* the header, then each record */
		if (r > 0 && lua_rawgeti(L, 2, r) == LUA_TNIL)
			break;
		int rec = r > 0 ? 3 : 1;
		if (lua_type(L, rec) != LUA_TTABLE || lua_getmetatable(L, rec)) {
			t.failed = 1;
			break;
		}
		for (lua_Integer i = 1; i <= cols && !t.failed; i++) {
			if (i > 1)
				put(&t, ",", 1);
			lua_rawgeti(L, rec, i);
			csv_field(L, &t, lua_gettop(L));
			lua_pop(L, 1);
		}
		put(&t, "\n", 1);
		lua_settop(L, 2);
	}
	lua_settop(L, 2);
	return finish(L, &t);
}

/* split(text) -> the records of a CSV text without quotes, rot.csv's: a line each (a run of
 * characters but CR and LF, none empty), its fields between its commas. */
static int l_split(lua_State *L)
{
	size_t n;
	const char *s = luaL_checklstring(L, 1, &n), *end = s + n;
	lua_Integer records = 0;
	lua_newtable(L);
	while (s < end) {
		const char *eol = s;
		while (eol < end && *eol != '\r' && *eol != '\n')
			eol++;
		if (eol > s) {
			lua_Integer fields = 0;
			lua_newtable(L);
			for (const char *f = s;; f++) {
				const char *comma = memchr(f, ',', (size_t)(eol - f));
				lua_pushlstring(L, f, (size_t)((comma ? comma : eol) - f));
				lua_rawseti(L, -2, ++fields);
				if (!comma)
					break;
				f = comma;
			}
			lua_rawseti(L, -2, ++records);
		}
		s = eol + 1;
	}
	return 1;
}

/* json(v) -> rot.util.json's text of v (no indent given), or nil: the Lua code writes it. */
static int l_json(lua_State *L)
{
	struct text t = {0};
	luaL_checkany(L, 1);
	lua_settop(L, 1);
	json_value(L, &t, 1, 0);
	return finish(L, &t);
}

static const luaL_Reg funcs[] = {
    {"json", l_json}, {"serialize", l_serialize}, {"csv", l_csv}, {"split", l_split}, {NULL, NULL}};

int luaopen_rot_text(lua_State *L)
{
	memset(pad, ' ', sizeof pad);
	luaL_newlib(L, funcs);
	return 1;
}
