/* lrecords: the rot.records Lua module: a point's records as the measuring core wrote them
 * (status, error, meta, run, region and sampling lines, the same record lines as a cache
 * entry), parsed. */
#include "cache.h"
#include "lrot.h"
#include "protocol.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#define RESULT_MT "rot.records.result"

static int result_gc(lua_State *L)
{
	cache_entry_free(luaL_checkudata(L, 1, RESULT_MT));
	return 0;
}

/* The rest of line (n bytes) after record kind r's word and its space, or NULL. */
static const char *after_word(const char *line, size_t n, enum protocol_record r, size_t *rest)
{
	const char *w = protocol_record_word(r);
	size_t k = strlen(w);
	if (n <= k || strncmp(line, w, k) != 0 || line[k] != ' ')
		return NULL;
	*rest = n - k - 1;
	return line + k + 1;
}

/* parse(text) -> {status=, error=, stderr=, meta={}, runs={}, regions=, samples=} ; nil,
 * message. stderr holds the last lines the kernel wrote to its stderr, when it wrote any;
 * regions an application's, samples a sampled invocation's records (each with record=WORD). */
static int l_parse(lua_State *L)
{
	size_t len;
	const char *text = luaL_checklstring(L, 1, &len);
	lua_settop(L, 1); /* (the indices below count from the text: further arguments dropped) */
	struct cache_entry *e = lua_newuserdatauv(L, sizeof *e, 0);
	cache_entry_init(e);
	luaL_setmetatable(L, RESULT_MT);
	const char *status = NULL;
	luaL_Buffer err;
	lua_newtable(L);	/* status and error, at index 3 */
	luaL_buffinit(L, &err); /* the kernel's stderr, at index 4 and up */
	for (const char *p = text; p < text + len;) {
		const char *nl = memchr(p, '\n', (size_t)(text + len - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
		const char *line = p, *rest;
		size_t k;
		p += n + 1;
		if ((rest = after_word(line, n, RECORD_STDERR, &k))) {
			luaL_addlstring(&err, rest, k);
			luaL_addchar(&err, '\n');
			continue;
		}
		const char *s = lua_pushlstring(L, line, n); /* balanced: popped below */
		if ((rest = after_word(s, n, RECORD_STATUS, &k))) {
			lua_pushstring(L, rest);
			lua_setfield(L, 3, "status");
			status = s;
		} else if ((rest = after_word(s, n, RECORD_ERROR, &k))) {
			lua_pushstring(L, rest);
			lua_setfield(L, 3, "error");
		} else if (*s && cache_entry_parse_line(e, s) != 1) {
			return lrot_error(L,
					  lua_pushfstring(L, "malformed core output line '%s'", s));
		}
		lua_pop(L, 1);
	}
	if (!status)
		return lrot_error(L, "core output has no status line");
	luaL_pushresult(&err); /* at index 4 */
	lrot_push_entry(L, e);
	lua_pushvalue(L, 4);
	lua_setfield(L, -2, "stderr");
	lua_getfield(L, 3, "status");
	lua_setfield(L, -2, "status");
	lua_getfield(L, 3, "error");
	lua_setfield(L, -2, "error");
	return 1;
}

static const luaL_Reg funcs[] = {{"parse", l_parse}, {NULL, NULL}};

int luaopen_rot_records(lua_State *L)
{
	static const luaL_Reg meta[] = {{"__gc", result_gc}, {NULL, NULL}};
	lrot_newclass(L, RESULT_MT, meta, NULL);
	luaL_newlib(L, funcs);
	return 1;
}
