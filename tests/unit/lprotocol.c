/* Unit tests for driver/lprotocol: rot.protocol as a script sees it (require "rot.protocol"):
 * the tables core/protocol.h declares, in their order, and check_rule through core/rules.c
 * (tests/e2e/protocol.t checks that the driver preloads it). */
#include "lrot.h"
#include "tap.h"

#include <lauxlib.h>
#include <lualib.h>

static lua_State *L;

/* Evaluates a Lua expression over p = require "rot.protocol"; its value as a string. */
static const char *eval(const char *expr)
{
	static char out[1024];
	lua_settop(L, 0);
	lua_pushfstring(L, "local p = require 'rot.protocol' return tostring(%s)", expr);
	if (luaL_dostring(L, lua_tostring(L, -1)) != LUA_OK) {
		snprintf(out, sizeof out, "error: %s", lua_tostring(L, -1));
		return out;
	}
	snprintf(out, sizeof out, "%s", lua_tostring(L, -1));
	return out;
}

int main(void)
{
	L = luaL_newstate();
	luaL_openlibs(L);
	luaL_requiref(L, "rot.protocol", luaopen_rot_protocol, 0); /* main.c preloads it */
	lua_pop(L, 1);
	is_str(eval("table.concat(p.input, ' ')"),
	       "workload kernel param counter gpumetric rule runs bestK bestEpsilon maxRuns "
	       "minRunTime cacheMode timeout ignoreDisturbed child app arg env dir",
	       "input: the keys in declaration order");
	is_str(eval("p.syntax.cacheMode"), "cacheMode warm|cold", "syntax: key -> its syntax");
	is_str(eval("p.syntax.workload"), "workload NAME [threads N] [pin CPU,CPU,...]",
	       "syntax of workload");
	is_str(eval("(function() local n = 0 for k, v in pairs(p.syntax) do n = n + 1 "
		    "assert(v:sub(1, #k + 1) == k .. ' ') end return n == #p.input end)()"),
	       "true", "a syntax for every key, each beginning with its key, and no other");
	is_str(eval("table.concat(p.records, ' ')"), "status error meta run stderr region",
	       "records");
	is_str(eval("table.concat(p.events, ' ')"),
	       "workloadStart workloadStop threadCreated threadExited runStart runEnd fault",
	       "events, in enum order");
	is_str(eval("table.concat(p.actions, ' ')"), "flush pin marker startCounters stopCounters",
	       "actions");
	is_str(eval("table.concat(p.rule_keys, ' ')"), "run every thread cpu text", "rule keys");
	is_str(eval("table.concat(p.failures, ' ')"),
	       "input nodevice signal timeout leftover exit kernel profile setup markers",
	       "failure kinds");
	is_str(eval("table.concat(p.region_keys, ' ')"),
	       "calls callsTotal threads ns nsSum minNs maxNs open flops bytes written workingSet "
	       "workCalls writtenCalls countedCalls multiplexedCalls",
	       "region keys, in declaration order");
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
