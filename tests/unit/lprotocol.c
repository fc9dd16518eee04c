/* Unit tests for driver/lprotocol: rot.protocol as a script sees it (require "rot.protocol"):
 * the tables core/protocol.h, core/vocabulary.h and core/count/counts.h declare, each compared
 * with the X-macro itself (in its order, nothing restated here), the strict meta tables, and
 * check_rule through core/rules.c (tests/e2e/protocol.t checks that the driver preloads it).
 * judges no time */
#include "count/counts.h"
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

/* Every table's names (its entries' second field) as arrays, and the CSV columns of RESULT_ROW. */
#define NAME(id, name, ...) name,
#define CSV(id, key, type, unit, csv, ...) csv,
static const char *const input[] = {PROTOCOL_INPUT(NAME) NULL};
static const char *const records[] = {PROTOCOL_RECORDS(NAME) NULL};
static const char *const events[] = {PROTOCOL_EVENTS(NAME) NULL};
static const char *const actions[] = {PROTOCOL_ACTIONS(NAME) NULL};
static const char *const rule_keys[] = {PROTOCOL_RULE_KEYS(NAME) NULL};
static const char *const failures[] = {PROTOCOL_FAILURES(NAME) NULL};
static const char *const meta[] = {PROTOCOL_META(NAME) NULL};
static const char *const run_keys[] = {PROTOCOL_RUN_KEYS(NAME) NULL};
static const char *const region_keys[] = {PROTOCOL_REGION_KEYS(NAME) NULL};
#define SAMPLE_KEY(id, key, record, meaning) key,
static const char *const sample_keys[] = {PROTOCOL_SAMPLE_KEYS(SAMPLE_KEY) NULL};
#undef SAMPLE_KEY
static const char *const row_keys[] = {RESULT_ROW(NAME) NULL};
static const char *const row_csv[] = {RESULT_ROW(CSV) NULL};
static const char *const classes[] = {COUNT_FLOPS(NAME) NULL};
static const char *const shares[] = {COUNT_SHARES(NAME) NULL};
static const char *const bytes[] = {COUNT_BYTES(NAME) NULL};
static const char *const traffic[] = {COUNT_TRAFFIC(NAME) NULL};
#undef NAME
#undef CSV

/* The declared tables against what rot.protocol gives (an array of names, or of entries and
 * the field that names each), in their order. */
static void declared(void)
{
	static const struct {
		const char *array, *field;
		const char *const *want;
		const char *what;
	} t[] = {
	    {"input", NULL, input, "input: the keys of PROTOCOL_INPUT, in its order"},
	    {"records", NULL, records, "records: PROTOCOL_RECORDS' words"},
	    {"events", NULL, events,
	     "events: PROTOCOL_EVENTS', in enum order (rules.c names them)"},
	    {"actions", NULL, actions, "actions: PROTOCOL_ACTIONS'"},
	    {"rule_keys", NULL, rule_keys, "rule keys: PROTOCOL_RULE_KEYS'"},
	    {"failures", NULL, failures, "failure kinds: PROTOCOL_FAILURES'"},
	    {"meta", "name", meta,
	     "meta keys: PROTOCOL_META's names, families with their %d or %s"},
	    {"run_keys", "name", run_keys, "run keys: PROTOCOL_RUN_KEYS'"},
	    {"region_keys", "name", region_keys, "region keys: PROTOCOL_REGION_KEYS'"},
	    {"sample_keys", "name", sample_keys, "sample keys: PROTOCOL_SAMPLE_KEYS'"},
	    {"row", "key", row_keys, "row fields: RESULT_ROW's keys, in the CSV's order"},
	    {"row", "csv", row_csv, "and their CSV columns (none: '')"},
	    {"count.classes", NULL, classes, "count.classes: COUNT_FLOPS' names"},
	    {"count.shares", NULL, shares, "count.shares: COUNT_SHARES' names"},
	    {"count.bytes", NULL, bytes, "count.bytes: COUNT_BYTES'"},
	    {"count.traffic", NULL, traffic, "count.traffic: COUNT_TRAFFIC'"},
	};
	for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
		char expr[256], want[8192] = "";
		snprintf(expr, sizeof expr,
			 "(function() local o = {} for i, e in ipairs(p.%s) do o[i] = %s end "
			 "return table.concat(o, ' ') end)()",
			 t[k].array, t[k].field ? "e[FIELD] or ''" : "e");
		for (const char *const *w = t[k].want; *w; w++) {
			size_t n = strlen(want);
			snprintf(want + n, sizeof want - n, "%s%s", n ? " " : "", *w);
		}
		lua_pushstring(L, t[k].field ? t[k].field : "");
		lua_setglobal(L, "FIELD");
		is_str(eval(expr), want, "%s", t[k].what);
	}
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
	is_str(eval("p.limits.sample_min_ns .. ' ' .. p.limits.sample_max_ns .. ' ' .. "
		    "p.limits.sample_default_ns .. ' ' .. p.limits.sample_callers"),
	       PROTOCOL_STR(SAMPLER_MIN_NS) " " PROTOCOL_STR(SAMPLER_MAX_NS) " " PROTOCOL_STR(
		   SAMPLER_DEFAULT_NS) " " PROTOCOL_STR(SAMPLER_CALLERS),
	       "limits.sample_*: the sampling period's bounds and the callers a sample keeps");
	is_str(eval("p.sample_keys[#p.sample_keys].record"), "sample",
	       "a sample key names the record that holds it");
	is_str(eval("p.framing.point .. ' ' .. p.framing.begin .. ' ' .. p.framing['end']"),
	       PROTOCOL_POINT " " PROTOCOL_BEGIN " " PROTOCOL_END, "framing words");
	is_str(eval("p.status.ok .. ' ' .. p.status.failed"), PROTOCOL_OK " " PROTOCOL_FAILED,
	       "status words");
	is_str(eval("p.json_version"), PROTOCOL_STR(RESULT_JSON_VERSION), "json_version");
}

/* The counting tool's words: each record kind's by its ID, rot-count's, the output's first line. */
static void count(void)
{
	int n = 0, bad = 0;
	char expr[256];
#define X(id, word, syntax, meaning)                                                               \
	n++;                                                                                       \
	snprintf(expr, sizeof expr, "p.count.records[string.lower('%s')]", #id);                   \
	bad += strcmp(eval(expr), word) != 0;
	COUNT_RECORDS(X)
#undef X
	ok(n > 0 && bad == 0 && strcmp(eval("p.count.records['function']"), "function") == 0,
	   "count.records: each COUNT_RECORDS word by its ID in lower case (%d words, %d differ)",
	   n, bad);
	is_str(eval("p.count.magic"), COUNT_OUTPUT_MAGIC, "count.magic: the output's first line");
	is_str(eval("p.count.harness.counted .. '|' .. p.count.harness.failed .. '|' .. "
		    "p.count.harness.point"),
	       COUNT_HARNESS_COUNTED "|" COUNT_HARNESS_FAILED "|" COUNT_HARNESS_POINT,
	       "count.harness: rot-count's words");
	is_str(eval("p.count.fma.fp64_256 .. ' ' .. p.count.add.fp32_scalar"), "fp64_256_fma fp32_scalar_add",
	       "count.fma, count.add: each class's share by its name");
	is_str(eval("p.count.levels"), PROTOCOL_STR(COUNT_LEVELS), "count.levels: COUNT_LEVELS");
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
	count();
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
