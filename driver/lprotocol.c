/* lprotocol: the rot.protocol Lua module: the driver–core protocol of core/protocol.h (input
 * keys and their syntax, framing and record words, rule vocabulary, failure kinds), the result
 * vocabulary of core/vocabulary.h (meta, run and region keys, limits, the results row), the
 * counting tool's words of core/count/counts.h (count), the CUDA library's metrics pass's of
 * core/cuda/words.h (cuda) and rule checks; meta tables that refuse
 * a key the vocabulary does not declare. */
#include "count/counts.h"
#include "cuda/words.h"
#include "lrot.h"
#include "protocol.h"
#include "rules.h"

#include <ctype.h>
#include <lauxlib.h>
#include <string.h>

#define META_MT "rot.meta"

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

/* Pushes " KEY=" and r[KEY] when the rule at index 1 holds KEY; the number of values pushed. */
static int push_rule_key(lua_State *L, const char *key)
{
	luaL_checkstack(L, 2, "rule keys");
	if (lua_getfield(L, 1, key) == LUA_TNIL) {
		lua_pop(L, 1);
		return 0;
	}
	lua_pushfstring(L, " %s=", key);
	lua_insert(L, -2);
	return 2;
}

/* rule_line(r) -> "EVENT ACTION [key=value ...]": the line a rule {on=, action=, ...} is
 * written as in a batch and checked as (check_rule), its keys in declaration order */
static int l_rule_line(lua_State *L)
{
	int n = 3;
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_getfield(L, 1, "on");
	lua_pushliteral(L, " ");
	lua_getfield(L, 1, "action");
#define X(id, key, syntax, meaning) n += push_rule_key(L, key);
	PROTOCOL_RULE_KEYS(X)
#undef X
	lua_concat(L, n);
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

/* records, events (enum order), actions, rule_keys, failures: arrays of names */
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
}

/* Sets t.field = s for the table at the top of the stack, unless s is empty. */
/* Sets field of the table at the top to the integer v. */
static void set_int(lua_State *L, const char *field, lua_Integer v)
{
	lua_pushinteger(L, v);
	lua_setfield(L, -2, field);
}

static void set_text(lua_State *L, const char *field, const char *s)
{
	if (!*s)
		return;
	lua_pushstring(L, s);
	lua_setfield(L, -2, field);
}

/* Appends {name=, type=, unit=, side=, meaning=} (empty fields left out) to the array at the top
 * of the stack (n: its length so far). */
static void push_key(lua_State *L, lua_Integer *n, const char *name, const char *type,
		     const char *unit, const char *side, const char *meaning)
{
	lua_createtable(L, 0, 5);
	set_text(L, "name", name);
	set_text(L, "type", type);
	set_text(L, "unit", unit);
	set_text(L, "side", side);
	set_text(L, "meaning", meaning);
	lua_rawseti(L, -2, ++*n);
}

/* meta, run_keys, region_keys, sample_keys: the keys of a point's report, each {name=, type=,
 * unit=, side=, meaning=} in declaration order (a family's name with its %d or %s; a sample key
 * with its record=) */
static void push_report_keys(lua_State *L)
{
	lua_Integer n = 0;
	lua_newtable(L);
#define X(id, name, type, unit, side, meaning) push_key(L, &n, name, type, unit, side, meaning);
	PROTOCOL_META(X)
#undef X
	lua_setfield(L, -2, "meta");
	n = 0;
	lua_newtable(L);
#define X(id, key, type, unit, meaning) push_key(L, &n, key, type, unit, "core", meaning);
	PROTOCOL_RUN_KEYS(X)
#undef X
	lua_setfield(L, -2, "run_keys");
	n = 0;
	lua_newtable(L);
#define X(id, key, meaning) push_key(L, &n, key, "number", "", "core", meaning);
	PROTOCOL_REGION_KEYS(X)
#undef X
	lua_setfield(L, -2, "region_keys");
	n = 0;
	lua_newtable(L);
#define X(id, key, record, meaning)                                                                \
	push_key(L, &n, key, "text", "", "core", meaning);                                         \
	lua_rawgeti(L, -1, n);                                                                     \
	set_text(L, "record", record);                                                             \
	lua_pop(L, 1);
	PROTOCOL_SAMPLE_KEYS(X)
#undef X
	lua_setfield(L, -2, "sample_keys");
}

/* Appends one results-row field {key=, type=, unit=, csv=, json=, record=, group=, side=,
 * meaning=} (empty fields left out) to the array at the top of the stack. */
static void push_field(lua_State *L, lua_Integer *n, const char *const f[9])
{
	static const char *const names[9] = {"key",    "type",	"unit", "csv",	  "json",
					     "record", "group", "side", "meaning"};
	lua_createtable(L, 0, 9);
	for (int i = 0; i < 9; i++)
		set_text(L, names[i], f[i]);
	lua_rawseti(L, -2, ++*n);
}

/* row (every field of a results row, in the CSV's column order), limits, framing, status words,
 * the region record's first keys, json_version */
static void push_results(lua_State *L)
{
	lua_Integer n = 0;
	lua_newtable(L);
#define X(id, key, type, unit, csv, json, record, group, side, meaning)                            \
	push_field(                                                                                \
	    L, &n,                                                                                 \
	    (const char *const[9]){key, type, unit, csv, json, record, group, side, meaning});
	RESULT_ROW(X)
#undef X
	lua_setfield(L, -2, "row");
	lua_createtable(L, 0, 6);
	set_int(L, "counters", COUNTERS_MAX);
	set_int(L, "gpu_metrics", GPU_MAX_METRICS);
	set_int(L, "sample_min_ns", SAMPLER_MIN_NS);
	set_int(L, "sample_max_ns", SAMPLER_MAX_NS);
	set_int(L, "sample_default_ns", SAMPLER_DEFAULT_NS);
	set_int(L, "sample_callers", SAMPLER_CALLERS);
	lua_setfield(L, -2, "limits");
	lua_createtable(L, 0, 3);
	set_text(L, "point", PROTOCOL_POINT);
	set_text(L, "begin", PROTOCOL_BEGIN);
	set_text(L, "end", PROTOCOL_END);
	lua_setfield(L, -2, "framing");
	lua_createtable(L, 0, 2);
	set_text(L, "ok", PROTOCOL_OK);
	set_text(L, "failed", PROTOCOL_FAILED);
	lua_setfield(L, -2, "status");
	lua_createtable(L, 0, 2);
	set_text(L, "run", PROTOCOL_REGION_RUN);
	set_text(L, "name", PROTOCOL_REGION_NAME);
	lua_setfield(L, -2, "region_record");
	set_int(L, "json_version", RESULT_JSON_VERSION);
}

/* Sets t[lower(id)] = s for the table at the top of the stack: a word by its declared ID. */
static void set_lower(lua_State *L, const char *id, const char *s)
{
	char key[32];
	size_t n = 0;
	for (; id[n] && n + 1 < sizeof key; n++)
		key[n] = (char)tolower((unsigned char)id[n]);
	key[n] = '\0';
	set_text(L, key, s);
}

#define COUNT_NAME(id, name, meaning) name,
static const char *const count_classes[] = {COUNT_FLOPS(COUNT_NAME)};
static const char *const count_shares[] = {COUNT_SHARES(COUNT_NAME)};
static const char *const count_bytes[] = {COUNT_BYTES(COUNT_NAME)};
static const char *const count_traffic[] = {COUNT_TRAFFIC(COUNT_NAME)};
#undef COUNT_NAME
#define COUNT_CLASS_N (sizeof count_classes / sizeof count_classes[0])
_Static_assert(sizeof count_shares / sizeof count_shares[0] == 2 * COUNT_CLASS_N,
	       "COUNT_SHARES: an FMA and an add share for each class of COUNT_FLOPS");

/* Sets field of the table on top to the list of n names. */
static void set_names(lua_State *L, const char *field, const char *const *names, size_t n)
{
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++)
		push_item(L, (lua_Integer)i + 1, names[i]);
	lua_setfield(L, -2, field);
}

/* Sets field of the table on top to {class -> its share's name}: the shares from first on,
 * in COUNT_FLOPS' order. */
static void set_shares(lua_State *L, const char *field, size_t first)
{
	lua_createtable(L, 0, (int)COUNT_CLASS_N);
	for (size_t i = 0; i < COUNT_CLASS_N; i++)
		set_text(L, count_classes[i], count_shares[first + i]);
	lua_setfield(L, -2, field);
}

/* count: the counting tool's words (core/count/counts.h): magic (its output's first line),
 * records (each record kind's word, by its ID in lower case: records.region), harness (rot-count's
 * words: counted, failed, point), the counters by kind, each a list of names in the output's
 * order (classes: the flop classes; shares: of their flops, the FMAs' and the adds'; bytes;
 * traffic), fma and add (each class's share by its name: fma.fp64_256) and levels (the levels
 * it simulates at most) */
static void push_count(lua_State *L)
{
	lua_createtable(L, 0, 10);
	set_text(L, "magic", COUNT_OUTPUT_MAGIC);
	lua_createtable(L, 0, COUNT_RECORD_N);
#define X(id, word, syntax, meaning) set_lower(L, #id, word);
	COUNT_RECORDS(X)
#undef X
	lua_setfield(L, -2, "records");
	lua_createtable(L, 0, 3);
	set_text(L, "counted", COUNT_HARNESS_COUNTED);
	set_text(L, "failed", COUNT_HARNESS_FAILED);
	set_text(L, "point", COUNT_HARNESS_POINT);
	lua_setfield(L, -2, "harness");
	set_names(L, "classes", count_classes, COUNT_CLASS_N);
	set_names(L, "shares", count_shares, 2 * COUNT_CLASS_N);
	set_names(L, "bytes", count_bytes, sizeof count_bytes / sizeof count_bytes[0]);
	set_names(L, "traffic", count_traffic, sizeof count_traffic / sizeof count_traffic[0]);
	set_shares(L, "fma", 0);
	set_shares(L, "add", COUNT_CLASS_N);
	set_int(L, "levels", COUNT_LEVELS);
	lua_setfield(L, -2, "count");
}

/* cuda: the words of rot's CUDA library's metrics pass (core/cuda/words.h): magic (its output's
 * first line), records (each record kind's word, by its ID in lower case: records.kernel) and
 * env (the variables that ask for it: metrics, out) */
static void push_cuda(lua_State *L)
{
	lua_createtable(L, 0, 3);
	set_text(L, "magic", CUDAMET_MAGIC);
	lua_createtable(L, 0, CUDAMET_RECORD_N);
#define X(id, word, syntax, meaning) set_lower(L, #id, word);
	CUDAMET_RECORDS(X)
#undef X
	lua_setfield(L, -2, "records");
	lua_createtable(L, 0, 2);
	set_text(L, "metrics", CUDAMET_ENV_METRICS);
	set_text(L, "out", CUDAMET_ENV_OUT);
	lua_setfield(L, -2, "env");
	lua_setfield(L, -2, "cuda");
}

/* Whether name is a key of the declared family decl ("event%d": event0, event1, ...;
 * "report.%s": report.NAME), or decl itself. */
static int is_key(const char *decl, const char *name)
{
	const char *pct = strchr(decl, '%');
	if (!pct)
		return strcmp(decl, name) == 0;
	size_t pre = (size_t)(pct - decl);
	if (strncmp(decl, name, pre) != 0 || !name[pre])
		return 0;
	if (pct[1] == 's')
		return 1;
	return strspn(name + pre, "0123456789") == strlen(name + pre);
}

/* The declaration of meta key name (its index in PROTOCOL_META, from 1), or 0. */
static int meta_index(const char *name)
{
	static const char *const decl[] = {
#define X(id, key, type, unit, side, meaning) key,
	    PROTOCOL_META(X)
#undef X
	};
	for (size_t i = 0; i < sizeof decl / sizeof decl[0]; i++)
		if (is_key(decl[i], name))
			return (int)i + 1;
	return 0;
}

/* meta_key(name) -> its entry in meta (a family's for event3), or nil */
static int l_meta_key(lua_State *L)
{
	int i = meta_index(luaL_checkstring(L, 1));
	if (!i)
		return 0;
	lua_getfield(L, lua_upvalueindex(1), "meta");
	lua_rawgeti(L, -1, i);
	return 1;
}

/* Raises unless key (at idx) names a declared meta key. */
static void check_meta(lua_State *L, int idx)
{
	if (lua_type(L, idx) != LUA_TSTRING || !meta_index(lua_tostring(L, idx)))
		luaL_error(L, "meta key '%s' is not declared (core/vocabulary.h: PROTOCOL_META)",
			   luaL_tolstring(L, idx, NULL));
}

static int meta_index_mm(lua_State *L) /* __index: only for keys the table lacks */
{
	check_meta(L, 2);
	return 0;
}

static int meta_newindex_mm(lua_State *L)
{
	check_meta(L, 2);
	lua_rawset(L, 1);
	return 0;
}

void lrot_strict_meta(lua_State *L, int idx)
{
	idx = lua_absindex(L, idx);
	if (luaL_newmetatable(L, META_MT)) {
		lua_pushcfunction(L, meta_index_mm);
		lua_setfield(L, -2, "__index");
		lua_pushcfunction(L, meta_newindex_mm);
		lua_setfield(L, -2, "__newindex");
	}
	lua_setmetatable(L, idx);
}

/* strict_meta(t) -> t, reading and writing only declared meta keys */
static int l_strict_meta(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	lrot_strict_meta(L, 1);
	return 1;
}

int luaopen_rot_protocol(lua_State *L)
{
	static const luaL_Reg funcs[] = {{"check_rule", l_check_rule},
					 {"rule_line", l_rule_line},
					 {"strict_meta", l_strict_meta},
					 {NULL, NULL}};
	luaL_newlib(L, funcs);
	push_input(L);
	push_names(L);
	push_report_keys(L);
	push_results(L);
	push_count(L);
	push_cuda(L);
	lua_pushvalue(L, -1);
	lua_pushcclosure(L, l_meta_key, 1);
	lua_setfield(L, -2, "meta_key");
	return 1;
}
