/* lsymbols: the rot.symbols Lua module: where a place of a program's code lies in its own words
 * (symbols.c over elfutils' libdwfl): a session ("rot.symbols" userdata) reads each file once
 * and looks offsets up in it, closed when the userdata is closed or collected. */
#include "lrot.h"
#include "symbols.h"

#include <lauxlib.h>

#define SYMBOLS_MT "rot.symbols"

static struct symbols **checksymbols(lua_State *L)
{
	struct symbols **s = luaL_checkudata(L, 1, SYMBOLS_MT);
	if (!*s)
		luaL_error(L, "the symbols session is closed");
	return s;
}

/* open() -> session ; nil, message */
static int l_open(lua_State *L)
{
	struct symbols **s = lua_newuserdatauv(L, sizeof *s, 0);
	*s = NULL;
	luaL_setmetatable(L, SYMBOLS_MT);
	*s = symbols_new();
	return *s ? 1 : lrot_error(L, "out of memory");
}

static void set_string(lua_State *L, const char *key, const char *value)
{
	if (!value)
		return;
	lua_pushstring(L, value);
	lua_setfield(L, -2, key);
}

static void set_integer(lua_State *L, const char *key, lua_Integer value)
{
	lua_pushinteger(L, value);
	lua_setfield(L, -2, key);
}

/* {func=, file=, line=, column=} of one function at a place (absent fields: not known) */
static void push_frame(lua_State *L, const struct symbols_frame *f)
{
	lua_createtable(L, 0, 4);
	set_string(L, "func", f->function);
	set_string(L, "file", f->file);
	if (f->line)
		set_integer(L, "line", f->line);
	if (f->column)
		set_integer(L, "column", f->column);
}

/*
 * session:lookup(path, offset) -> {name=, object=, shared=, func=, funcOffset=, funcSize=,
 * file=, line=, column=, inlined={{func=, file=, line=, column=}, ...}} ; nil, message: where
 * offset (an integer: the address path's file links it at) lies; func, file and line absent
 * where the file does not say them (stripped; built without -g); inlined from the innermost
 * function out, each at its line (the first at the place's own, the next at the call that
 * inlined the one before).
 */
static int l_lookup(lua_State *L)
{
	struct symbols **s = checksymbols(L);
	const char *path = luaL_checkstring(L, 2);
	lua_Integer off = luaL_checkinteger(L, 3);
	luaL_argcheck(L, off >= 0, 3, "an offset is not negative");
	struct symbols_place p;
	char err[512];
	if (symbols_lookup(*s, path, (uint64_t)off, &p, err, sizeof err) < 0)
		return lrot_error(L, err);
	lua_createtable(L, 0, 10);
	set_string(L, "name", p.name);
	set_string(L, "object", p.object);
	lua_pushboolean(L, p.shared);
	lua_setfield(L, -2, "shared");
	set_string(L, "func", p.function);
	if (p.function) {
		set_integer(L, "funcOffset", (lua_Integer)p.function_off);
		set_integer(L, "funcSize", (lua_Integer)p.function_size);
	}
	set_string(L, "file", p.file);
	if (p.line)
		set_integer(L, "line", p.line);
	if (p.column)
		set_integer(L, "column", p.column);
	lua_createtable(L, p.ninlined, 0);
	for (int i = 0; i < p.ninlined; i++) {
		push_frame(L, &p.inlined[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "inlined");
	return 1;
}

/* session:close(): the files released (also when closed with <close> or collected) */
static int l_close(lua_State *L)
{
	struct symbols **s = luaL_checkudata(L, 1, SYMBOLS_MT);
	symbols_free(*s);
	*s = NULL;
	return 0;
}

static int l_tostring(lua_State *L)
{
	struct symbols **s = luaL_checkudata(L, 1, SYMBOLS_MT);
	lua_pushstring(L, *s ? "rot.symbols session" : "rot.symbols session (closed)");
	return 1;
}

static const luaL_Reg meta[] = {
    {"__gc", l_close}, {"__close", l_close}, {"__tostring", l_tostring}, {NULL, NULL}};
static const luaL_Reg methods[] = {{"lookup", l_lookup}, {"close", l_close}, {NULL, NULL}};
static const luaL_Reg funcs[] = {{"open", l_open}, {NULL, NULL}};

int luaopen_rot_symbols(lua_State *L)
{
	lrot_newclass(L, SYMBOLS_MT, meta, methods);
	luaL_newlib(L, funcs);
	return 1;
}
