/* lsearch: the searcher that loads rot's own Lua modules, keeping each compiled (its bytecode)
 * in build/lua beside the driver, checked against its source's size and time; and the rot.search
 * module, which says what it loaded. */
#include "lrot.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* what a kept chunk was compiled from: the source's identity (util_file_identity: size,
 * modification and change times, inode) and path (a checkout moved or copied with its build/
 * compiles its modules again) */
#define HEADER "rot-luac 2 %s %s\n"

static char home_dir[4096];

/* the registry's list of the modules loaded, each "identity path" */
#define LOADED "rot.search.loaded"

/* Appends a loaded module's identity and path to the registry's list. */
static void note_loaded(lua_State *L, const char *id, const char *src)
{
	if (lua_getfield(L, LUA_REGISTRYINDEX, LOADED) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_pushvalue(L, -1);
		lua_setfield(L, LUA_REGISTRYINDEX, LOADED);
	}
	lua_pushfstring(L, "%s %s", id, src);
	lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
	lua_pop(L, 1);
}

/* The file module name would be at, under template tmpl ("%s/lua/?.lua"), in buf. */
static int source_path(char *buf, size_t len, const char *tmpl, const char *name)
{
	char mod[1024];
	size_t n = strlen(name);
	if (n >= sizeof mod)
		return -1;
	for (size_t i = 0; i <= n; i++)
		mod[i] = name[i] == '.' ? '/' : name[i];
	int w = snprintf(buf, len, tmpl, home_dir, mod);
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* A growing byte buffer a lua_Writer fills. */
struct bytes {
	char *p;
	size_t len, cap;
	int failed;
};

static int add_bytes(lua_State *L, const void *p, size_t sz, void *ud)
{
	struct bytes *b = ud;
	(void)L;
	if (b->len + sz > b->cap) {
		size_t cap = (b->cap ? 2 * b->cap : 65536) + sz;
		char *q = realloc(b->p, cap);
		if (!q) {
			b->failed = 1;
			return 1;
		}
		b->p = q, b->cap = cap;
	}
	memcpy(b->p + b->len, p, sz);
	b->len += sz;
	return 0;
}

/* The compiled chunk at the top of the stack (from the source head describes) written to path
 * after head, through a temp file renamed. A failure only costs the next run a compilation. */
static void keep(lua_State *L, const char *path, const char *head)
{
	struct bytes b = {0};
	if (add_bytes(L, head, strlen(head), &b) == 0 && lua_dump(L, add_bytes, &b, 0) == 0 &&
	    !b.failed)
		util_write_atomic_mode(path, b.p, b.len, 0644);
	free(b.p);
}

/* Loads the compiled chunk kept in path when it was made from the source head describes: 1,
 * the chunk pushed; 0 otherwise. */
static int load_kept(lua_State *L, const char *path, const char *head)
{
	size_t len, hl = strlen(head);
	int ok = 0;
	char *bytes = util_read_file(path, &len);
	if (!bytes || len <= hl || memcmp(bytes, head, hl) != 0)
		goto out;
	if (luaL_loadbufferx(L, bytes + hl, len - hl, path, "b") != LUA_OK) {
		lua_pop(L, 1); /* a kept chunk that does not load is compiled again */
		goto out;
	}
	ok = 1;
out:
	free(bytes);
	return ok;
}

/* searcher(name): rot's module name as the Lua searcher finds it under home/lua, its chunk
 * from build/lua when that was compiled from the source as it is now, else compiled (and
 * kept there). Returns the loader and the file name, or a string saying where it looked. */
static int searcher(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	static const char *const tmpls[] = {"%s/lua/%s.lua", "%s/lua/%s/init.lua"};
	char src[4096], kept[4096], head[4300], id[160];
	for (size_t i = 0; i < sizeof tmpls / sizeof *tmpls; i++) {
		if (source_path(src, sizeof src, tmpls[i], name) < 0 ||
		    util_file_identity(src, id, sizeof id) < 0)
			continue;
		snprintf(head, sizeof head, HEADER, id, src);
		int w = snprintf(kept, sizeof kept, "%s/build/lua/%s%s.luac", home_dir, name,
				 i ? ".init" : "");
		int fits = w > 0 && (size_t)w < sizeof kept;
		if (!(fits && load_kept(L, kept, head))) {
			if (luaL_loadfilex(L, src, "t") != LUA_OK)
				return luaL_error(L,
						  "error loading module '%s' from file '%s':\n\t%s",
						  name, src, lua_tostring(L, -1));
			if (fits)
				keep(L, kept, head);
		}
		note_loaded(L, id, src);
		lua_pushstring(L, src);
		return 2;
	}
	lua_pushfstring(L, "no file '%s/lua/%s.lua' (rot's modules)", home_dir, name);
	return 1;
}

void lrot_searcher(lua_State *L, const char *home)
{
	char dir[4200];
	snprintf(home_dir, sizeof home_dir, "%s", home);
	snprintf(dir, sizeof dir, "%s/build/lua", home_dir);
	util_mkdir_p(dir, 0755); /* none: every module is compiled from its source, as ever */
	lua_getglobal(L, "package");
	lua_getfield(L, -1, "searchers");
	lua_Integer n = (lua_Integer)luaL_len(L, -1);
	for (lua_Integer i = n; i >= 2; i--) { /* room at 2: after the preload searcher */
		lua_rawgeti(L, -1, i);
		lua_rawseti(L, -2, i + 1);
	}
	lua_pushcfunction(L, searcher);
	lua_rawseti(L, -2, 2);
	lua_pop(L, 2);
}

/* loaded() -> the modules this searcher has loaded, in order: each "identity path" (the
 * identity util_file_identity's: size, times, inode). */
static int l_loaded(lua_State *L)
{
	lua_newtable(L);
	if (lua_getfield(L, LUA_REGISTRYINDEX, LOADED) == LUA_TTABLE) {
		lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
		for (lua_Integer i = 1; i <= n; i++) {
			lua_rawgeti(L, -1, i);
			lua_rawseti(L, -3, i);
		}
	}
	lua_pop(L, 1);
	return 1;
}

int luaopen_rot_search(lua_State *L)
{
	static const luaL_Reg funcs[] = {{"loaded", l_loaded}, {NULL, NULL}};
	luaL_newlib(L, funcs);
	return 1;
}
