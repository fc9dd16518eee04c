/* lconfig: the rot.config Lua module: loads the configuration from all its sources into a
 * "rot.config" userdata whose methods give typed values and where each came from. */
#include "config.h"
#include "lrot.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#define CONFIG_MT "rot.config"

static struct config *checkconfig(lua_State *L)
{
	struct config *c = luaL_checkudata(L, 1, CONFIG_MT);
	luaL_argcheck(L, c->value != NULL, 1, "configuration already freed");
	return c;
}

static int pushvalue(lua_State *L, const struct config *c, int i)
{
	const char *v = c->value[i];
	switch (config_keys[i].type) {
	case CONFIG_BOOL:
		lua_pushboolean(L, strcmp(v, "true") == 0);
		break;
	case CONFIG_INT:
		lua_pushinteger(L, strtoll(v, NULL, 10));
		break;
	case CONFIG_NUMBER:
		lua_pushnumber(L, strtod(v, NULL));
		break;
	default:
		lua_pushstring(L, v);
	}
	return 1;
}

/* load(default_file, args) -> config ; nil, message */
static int l_load(lua_State *L)
{
	const char *deffile = luaL_checkstring(L, 1);
	luaL_checktype(L, 2, LUA_TTABLE);
	int n = (int)luaL_len(L, 2);
	struct config *c = lua_newuserdatauv(L, sizeof *c, 0); /* before acquiring anything */
	memset(c, 0, sizeof *c);
	luaL_setmetatable(L, CONFIG_MT);
	char **args = lua_newuserdatauv(L, (size_t)(n + 1) * sizeof *args, 0);
	luaL_checkstack(L, n + 4, "too many arguments");
	for (int i = 0; i < n; i++) {
		lua_geti(L, 2, i + 1);
		args[i] = (char *)luaL_checkstring(L, -1);
	}
	if (config_init(c) < 0)
		return luaL_error(L, "out of memory");
	if (config_load_all(c, deffile, args, n) < 0)
		return lrot_error(L, c->err);
	lua_pushvalue(L, 3);
	return 1;
}

static int key_index(lua_State *L, int arg)
{
	const char *key = luaL_checkstring(L, arg);
	int i = config_find(key);
	if (i < 0)
		return luaL_argerror(L, arg, lua_pushfstring(L, "unknown configuration key '%s'", key));
	return i;
}

static int m_get(lua_State *L)
{
	struct config *c = checkconfig(L);
	return pushvalue(L, c, key_index(L, 2));
}

/* set(key, value, origin) -> true ; nil, message (for values a script chooses) */
static int m_set(lua_State *L)
{
	struct config *c = checkconfig(L);
	const char *key = luaL_checkstring(L, 2);
	const char *value = luaL_tolstring(L, 3, NULL);
	const char *origin = luaL_optstring(L, 4, "script");
	if (config_set(c, key, value, origin) < 0)
		return lrot_error(L, c->err);
	lua_pushboolean(L, 1);
	return 1;
}

/* keys() -> { {name, type, default, choices, description, value, origin}, ... } */
static int m_keys(lua_State *L)
{
	struct config *c = checkconfig(L);
	lua_createtable(L, (int)config_nkeys, 0);
	for (size_t i = 0; i < config_nkeys; i++) {
		const struct config_key *k = &config_keys[i];
		lua_createtable(L, 0, 7);
		lua_pushstring(L, k->name);
		lua_setfield(L, -2, "name");
		lua_pushstring(L, config_type_name(k->type));
		lua_setfield(L, -2, "type");
		lua_pushstring(L, k->def);
		lua_setfield(L, -2, "default");
		lua_pushstring(L, k->choices ? k->choices : "");
		lua_setfield(L, -2, "choices");
		lua_pushstring(L, k->desc);
		lua_setfield(L, -2, "description");
		pushvalue(L, c, (int)i);
		lua_setfield(L, -2, "value");
		lua_pushstring(L, c->origin[i]);
		lua_setfield(L, -2, "origin");
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return 1;
}

static int m_gc(lua_State *L)
{
	struct config *c = luaL_checkudata(L, 1, CONFIG_MT);
	config_free(c);
	return 0;
}

static int l_names(lua_State *L)
{
	lua_createtable(L, (int)config_nkeys, 0);
	for (size_t i = 0; i < config_nkeys; i++) {
		lua_pushstring(L, config_keys[i].name);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return 1;
}

static const luaL_Reg methods[] = {{"get", m_get}, {"set", m_set}, {"keys", m_keys}, {NULL, NULL}};
static const luaL_Reg metamethods[] = {{"__gc", m_gc}, {NULL, NULL}};
static const luaL_Reg funcs[] = {{"load", l_load}, {"names", l_names}, {NULL, NULL}};

int luaopen_rot_config(lua_State *L)
{
	lrot_newclass(L, CONFIG_MT, metamethods, methods);
	luaL_newlib(L, funcs);
	return 1;
}
