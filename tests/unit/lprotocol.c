/* Unit tests for driver/lprotocol: rot.protocol as a script sees it (require "rot.protocol"):
 * the tables core/protocol.h and core/vocabulary.h declare, each compared with the X-macro
 * itself (in its order, nothing restated here), the strict meta tables, and check_rule through
 * core/rules.c (tests/e2e/protocol.t checks that the driver preloads it). */
#include "lrot.h"
#include "protocol.h"
#include "tap.h"

#include <lauxlib.h>
#include <lualib.h>
#include <string.h>

static lua_State *L;

/* Evaluates a Lua expression over p = require "rot.protocol"; its value as a string. */
static const char *eval(const char *expr)
{
	static char out[8192];
	lua_settop(L, 0);
	lua_pushfstring(L, "local p = require 'rot.protocol' return tostring(%s)", expr);
	if (luaL_dostring(L, lua_tostring(L, -1)) != LUA_OK) {
		snprintf(out, sizeof out, "error: %s", lua_tostring(L, -1));
		return out;
	}
	snprintf(out, sizeof out, "%s", lua_tostring(L, -1));
	return out;
}

/* Appends " word" to buf (len bytes). */
static void add(char *buf, size_t len, const char *word)
{
	size_t n = strlen(buf);
	snprintf(buf + n, len - n, "%s%s", n ? " " : "", word);
}

/* The names of an array of entries (field f of each), space-separated, as Lua gives them. */
static const char *names(const char *array, const char *f)
{
	static char expr[256];
	snprintf(expr, sizeof expr,
		 "(function() local o = {} for i, e in ipairs(p.%s) do o[i] = e.%s or '' end "
		 "return table.concat(o, ' ') end)()",
		 array, f);
	return eval(expr);
}

/* The declared tables against what rot.protocol gives, in their order. */
static void declared(void)
{
	char want[8192];
#define EXPECT(list, what)                                                                         \
	do {                                                                                       \
		want[0] = '\0';                                                                    \
		list;                                                                              \
		is_str(got, want, what);                                                           \
	} while (0)
	const char *got = eval("table.concat(p.input, ' ')");
#define X(id, key, syntax, meaning) add(want, sizeof want, key);
	EXPECT(PROTOCOL_INPUT(X), "input: the keys of PROTOCOL_INPUT, in its order");
#undef X
	got = eval("table.concat(p.records, ' ')");
#define X(id, word, syntax, meaning) add(want, sizeof want, word);
	EXPECT(PROTOCOL_RECORDS(X), "records: PROTOCOL_RECORDS' words");
#undef X
	got = eval("table.concat(p.events, ' ')");
#define X(id, name, meaning) add(want, sizeof want, name);
	EXPECT(PROTOCOL_EVENTS(X), "events: PROTOCOL_EVENTS', in enum order (rules.c names them)");
#undef X
	got = eval("table.concat(p.actions, ' ')");
#define X(id, name, side, meaning) add(want, sizeof want, name);
	EXPECT(PROTOCOL_ACTIONS(X), "actions: PROTOCOL_ACTIONS'");
#undef X
	got = eval("table.concat(p.rule_keys, ' ')");
#define X(id, key, syntax, meaning) add(want, sizeof want, key);
	EXPECT(PROTOCOL_RULE_KEYS(X), "rule keys: PROTOCOL_RULE_KEYS'");
#undef X
	got = eval("table.concat(p.failures, ' ')");
#define X(id, name, meaning) add(want, sizeof want, name);
	EXPECT(PROTOCOL_FAILURES(X), "failure kinds: PROTOCOL_FAILURES'");
#undef X
	got = names("meta", "name");
#define X(id, name, type, unit, side, meaning) add(want, sizeof want, name);
	EXPECT(PROTOCOL_META(X),
	       "meta keys: PROTOCOL_META's names, families with their %%d or %%s");
#undef X
	got = names("run_keys", "name");
#define X(id, key, type, unit, meaning) add(want, sizeof want, key);
	EXPECT(PROTOCOL_RUN_KEYS(X), "run keys: PROTOCOL_RUN_KEYS'");
#undef X
	got = names("region_keys", "name");
#define X(id, key, meaning) add(want, sizeof want, key);
	EXPECT(PROTOCOL_REGION_KEYS(X), "region keys: PROTOCOL_REGION_KEYS'");
#undef X
	got = names("row", "key");
#define X(id, key, type, unit, csv, json, record, group, side, meaning) add(want, sizeof want, key);
	EXPECT(RESULT_ROW(X), "row fields: RESULT_ROW's keys, in the CSV's order");
#undef X
	got = names("row", "csv");
#define X(id, key, type, unit, csv, json, record, group, side, meaning) add(want, sizeof want, csv);
	EXPECT(RESULT_ROW(X), "and their CSV columns (none: '')");
#undef X
#undef EXPECT
}

/* Each field of an entry as declared (units, sides, meanings), the limits and the words. */
static void entries(void)
{
	int n = 0, bad = 0;
	char expr[512];
#define X(id, key, type, unit, csv, json, record, group, side, meaning)                            \
	n++;                                                                                       \
	snprintf(                                                                                  \
	    expr, sizeof expr,                                                                     \
	    "p.row[%d].type .. '|' .. (p.row[%d].unit or '') .. '|' .. (p.row[%d].json or '') "    \
	    ".. '|' .. (p.row[%d].record or '') .. '|' .. (p.row[%d].group or '') .. '|' .. "      \
	    "p.row[%d].side .. '|' .. p.row[%d].meaning",                                          \
	    n, n, n, n, n, n, n);                                                                  \
	bad += strcmp(eval(expr),                                                                  \
		      type "|" unit "|" json "|" record "|" group "|" side "|" meaning) != 0;
	RESULT_ROW(X)
#undef X
	ok(n > 0 && bad == 0,
	   "every row field's type, unit, JSON key, record name, group, side and "
	   "meaning as declared (%d fields, %d differ)",
	   n, bad);
	n = bad = 0;
#define X(id, name, type, unit, side, meaning)                                                     \
	n++;                                                                                       \
	snprintf(expr, sizeof expr,                                                                \
		 "p.meta[%d].type .. '|' .. (p.meta[%d].unit or '') .. '|' .. p.meta[%d].side .. " \
		 "'|' .. p.meta[%d].meaning",                                                      \
		 n, n, n, n);                                                                      \
	bad += strcmp(eval(expr), type "|" unit "|" side "|" meaning) != 0;
	PROTOCOL_META(X)
#undef X
	ok(n > 0 && bad == 0, "every meta key's type, unit, side and meaning (%d keys, %d differ)",
	   n, bad);
	is_str(eval("p.limits.counters"), PROTOCOL_STR(COUNTERS_MAX),
	       "limits.counters: COUNTERS_MAX");
	is_str(eval("p.limits.gpu_metrics"), PROTOCOL_STR(GPU_MAX_METRICS),
	       "limits.gpu_metrics: GPU_MAX_METRICS");
	is_str(eval("p.framing.point .. ' ' .. p.framing.begin .. ' ' .. p.framing['end']"),
	       PROTOCOL_POINT " " PROTOCOL_BEGIN " " PROTOCOL_END, "framing words");
	is_str(eval("p.status.ok .. ' ' .. p.status.failed"), PROTOCOL_OK " " PROTOCOL_FAILED,
	       "status words");
	is_str(eval("p.json_version"), PROTOCOL_STR(RESULT_JSON_VERSION), "json_version");
}

/* meta_key and strict meta tables: a declared key, a family's, an undeclared one. */
static void strict(void)
{
	is_str(eval("p.meta_key('timerOverheadNs').unit"), "ns",
	       "meta_key: a declared key's entry");
	is_str(eval("p.meta_key('event12').name"), "event%d",
	       "a family's member: the family's entry");
	is_str(eval("p.meta_key('report.bytesRead').name"), "report.%s", "a named family's");
	is_str(eval("p.meta_key('event') == nil and p.meta_key('eventx') == nil and "
		    "p.meta_key('timerOverhead') == nil"),
	       "true", "a family's prefix alone, a bad index, a part of a name: none");
	is_str(eval("(function() local m = p.strict_meta({flops = 2}) return m.flops + "
		    "(m.bytes or 0) end)()"),
	       "2", "a strict meta table reads declared keys, present or not");
	ok(strstr(eval("p.strict_meta({}).flopz"),
		  "meta key 'flopz' is not declared (core/vocabulary.h: PROTOCOL_META)") != NULL,
	   "reading an undeclared one raises, naming it and the declaration");
	ok(strstr(eval("(function() p.strict_meta({}).bogus = 1 end)()"),
		  "'bogus' is not declared") != NULL,
	   "and writing one");
}

int main(void)
{
	L = luaL_newstate();
	luaL_openlibs(L);
	luaL_requiref(L, "rot.protocol", luaopen_rot_protocol, 0); /* main.c preloads it */
	lua_pop(L, 1);
	declared();
	entries();
	strict();
	is_str(eval("p.syntax.cacheMode"), "cacheMode warm|cold", "syntax: key -> its syntax");
	is_str(eval("(function() local n = 0 for k, v in pairs(p.syntax) do n = n + 1 "
		    "assert(v:sub(1, #k + 1) == k .. ' ') end return n == #p.input end)()"),
	       "true", "a syntax for every key, each beginning with its key, and no other");
	is_str(eval("p.check_rule('runEnd marker every=2 text=half')"), "true",
	       "check_rule: a good rule is true");
	is_str(eval("select(2, p.check_rule('runStart explode'))"),
	       "rule 'runStart explode': unknown action 'explode'",
	       "a bad one: nil and the core's message");
	is_str(eval("select(2, p.check_rule('runEnd flush'))"),
	       "rule 'runEnd flush': flush works on runStart or workloadStart",
	       "the core's own checks, not only names");
	is_str(eval("p.check_rule('runStart flush') and select('#', p.check_rule('x y'))"), "2",
	       "an expected failure returns two values");
	ok(strncmp(eval("p.check_rule()"), "error: ", 7) == 0 &&
	       strstr(eval("p.check_rule()"), "bad argument #1"),
	   "a missing argument raises: %s", eval("p.check_rule()"));
	lua_close(L);
	return done_testing();
}
