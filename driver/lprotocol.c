/* lprotocol: the rot.protocol Lua module: the driver–core protocol of core/protocol.h (input
 * keys and their syntax, record kinds, rule vocabulary, failure kinds) and rule checks. */
#include "lrot.h"
#include "rules.h"

#include <lauxlib.h>

/* Sets t[i] = s for the array at the top of the stack. */
static void push_item(lua_State *L, lua_Integer i, const char *s)
{
	lua_pushstring(L, s);
	lua_rawseti(L, -2, i);
}

/* check_rule(line) -> true ; nil, message: whether the core accepts "EVENT ACTION [k=v ...]" */
static int l_check_rule(lua_State *L)
{
	const char *line = luaL_checkstring(L, 1);
	struct rule r;
	char err[512];
	if (rules_parse(line, &r, err, (int)sizeof err) < 0)
		return lrot_error(L, err);
	lua_pushboolean(L, 1);
	return 1;
}

/* input (key names, in declaration order) and syntax (key -> "key SYNTAX") */
static void push_input(lua_State *L)
{
	lua_Integer i = 0;
	lua_newtable(L);
#define X(id, key, syntax, meaning) push_item(L, ++i, key);
	PROTOCOL_INPUT(X)
#undef X
	lua_setfield(L, -2, "input");
	lua_newtable(L);
#define X(id, key, syntax, meaning)                                                                \
	lua_pushstring(L, syntax);                                                                 \
	lua_setfield(L, -2, key);
	PROTOCOL_INPUT(X)
#undef X
	lua_setfield(L, -2, "syntax");
}

/* records, events (enum order), actions, rule_keys, failures, region_keys: arrays of names */
static void push_names(lua_State *L)
{
	lua_Integer i = 0;
	lua_newtable(L);
#define X(id, word, syntax, meaning) push_item(L, ++i, word);
	PROTOCOL_RECORDS(X)
#undef X
	lua_setfield(L, -2, "records");
	lua_newtable(L);
	for (i = 0; i < EV_COUNT; i++)
		push_item(L, i + 1, rules_event_name((enum rot_event)i));
	lua_setfield(L, -2, "events");
	lua_newtable(L);
	for (i = 0; i < ACT_COUNT; i++)
		push_item(L, i + 1, rules_action_name((enum rot_action)i));
	lua_setfield(L, -2, "actions");
	i = 0;
	lua_newtable(L);
#define X(id, key, syntax, meaning) push_item(L, ++i, key);
	PROTOCOL_RULE_KEYS(X)
#undef X
	lua_setfield(L, -2, "rule_keys");
	i = 0;
	lua_newtable(L);
#define X(id, name, meaning) push_item(L, ++i, name);
	PROTOCOL_FAILURES(X)
#undef X
	lua_setfield(L, -2, "failures");
	i = 0;
	lua_newtable(L);
#define X(id, key, meaning) push_item(L, ++i, key);
	PROTOCOL_REGION_KEYS(X)
#undef X
	lua_setfield(L, -2, "region_keys");
}

int luaopen_rot_protocol(lua_State *L)
{
	static const luaL_Reg funcs[] = {{"check_rule", l_check_rule}, {NULL, NULL}};
	luaL_newlib(L, funcs);
	push_input(L);
	push_names(L);
	return 1;
}
