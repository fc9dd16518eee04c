/* main: the rot driver's entry point, shaped like Lua's lua.c: everything runs under
 * lua_pcall, and one docall() adds a traceback to errors from measurement scripts. */
#include "lrot.h"
#include "run_command.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *progname = "rot";
static lua_State *globalL;

static void l_message(const char *msg)
{
	fprintf(stderr, "%s: %s\n", progname, msg);
	fflush(stderr);
}

/*
 * Message handler. rot's own expected errors are tables {message=, hint=} raised by
 * rot.fail(): they pass through untouched. Anything else is a script or library error
 * and gets a traceback.
 */
static int msghandler(lua_State *L)
{
	if (lua_istable(L, 1)) {
		lua_getfield(L, 1, "message");
		int expected = lua_isstring(L, -1);
		lua_pop(L, 1);
		if (expected)
			return 1;
	}
	const char *msg = lua_tostring(L, 1);
	if (msg == NULL) {
		if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
			return 1;
		msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
	}
	luaL_traceback(L, L, msg, 1);
	return 1;
}

static int docall(lua_State *L, int narg, int nres)
{
	int base = lua_gettop(L) - narg;
	lua_pushcfunction(L, msghandler);
	lua_insert(L, base);
	int status = lua_pcall(L, narg, nres, base);
	lua_remove(L, base);
	return status;
}

/* Prints an error left by docall: "rot: message" and, when given, "hint: ..."; returns the
 * exit code: the error's own (2: a tool is missing, 128+signal: interrupted), else 1. */
static int report(lua_State *L)
{
	int code = 1;
	if (lua_istable(L, -1)) {
		lua_getfield(L, -1, "message");
		l_message(lua_tostring(L, -1));
		lua_getfield(L, -2, "hint");
		if (lua_isstring(L, -1))
			fprintf(stderr, "hint: %s\n", lua_tostring(L, -1));
		lua_getfield(L, -3, "code");
		if (lua_isinteger(L, -1) && lua_tointeger(L, -1) > 0 && lua_tointeger(L, -1) < 256)
			code = (int)lua_tointeger(L, -1);
		lua_pop(L, 3);
	} else {
		l_message(lua_tostring(L, -1));
	}
	lua_pop(L, 1);
	return code;
}

/* ROT_HOME from the frontend, else the directory above the driver binary's build dir. */
static void push_home(lua_State *L)
{
	const char *env = getenv("ROT_HOME");
	char buf[PATH_MAX];
	if (env && *env) {
		lua_pushstring(L, env);
		return;
	}
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n < 0) {
		lua_pushliteral(L, ".");
		return;
	}
	buf[n] = '\0';
	for (int i = 0; i < 2; i++) {
		char *slash = strrchr(buf, '/');
		if (slash && slash != buf)
			*slash = '\0';
	}
	lua_pushstring(L, buf);
}

void lrot_preload(lua_State *L)
{
	static const luaL_Reg mods[] = {{"rot.sys", luaopen_rot_sys},
					{"rot.config", luaopen_rot_config},
					{"rot.cache", luaopen_rot_cache},
					{"rot.gen", luaopen_rot_gen},
					{"rot.records", luaopen_rot_records},
					{"rot.topology", luaopen_rot_topology},
					{"rot.process", luaopen_rot_process},
					{"rot.protocol", luaopen_rot_protocol},
					{"rot.symbols", luaopen_rot_symbols},
					{"rot.text", luaopen_rot_text},
					{"rot.search", luaopen_rot_search},
					{NULL, NULL}};
	luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
	for (const luaL_Reg *m = mods; m->name; m++) {
		lua_pushcfunction(L, m->func);
		lua_setfield(L, -2, m->name);
	}
	lua_pop(L, 1);
}

/* Hook set by the signal handler: stops the Lua code at its next step, like lua.c's lstop,
 * with rot's own "interrupted" error (finished points are in the cache; exit 128+signal). */
static void lstop(lua_State *L, lua_Debug *ar)
{
	(void)ar;
	lua_sethook(L, NULL, 0, 0);
	lua_getglobal(L, "require");
	lua_pushliteral(L, "rot.util");
	lua_call(L, 1, 1);
	lua_getfield(L, -1, "interrupted");
	lua_pushinteger(L, run_command_interrupted);
	lua_call(L, 1, 0);
}

/* SIGINT, SIGTERM, SIGHUP: the first stops the run cleanly (waits end, children are stopped,
 * the Lua code raises; under rot.sys.shielded only when the shield is lifted); a second one
 * ends the driver at once. */
static void on_signal(int sig)
{
	if (run_command_interrupted) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	run_command_interrupted = sig;
	if (run_command_shield) {
		run_command_deferred = 1;
		return;
	}
	lua_sethook(globalL, lstop, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal; /* no SA_RESTART: waits return EINTR and look at the flag */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int pmain(lua_State *L)
{
	int argc = (int)lua_tointeger(L, 1);
	char **argv = (char **)lua_touserdata(L, 2);
	luaL_checkversion(L);
	/* a collection cycle when the heap reaches 10x what is live, not 2x (as lua.c sets its
	 * collector here): rot's live heap is a few MiB, and a cached rerun collects less of it;
	 * rot.execute.lookup sets 2x once a large study's heap passes 64 MiB */
	lua_gc(L, LUA_GCINC, 1000, 0, 0);
	luaL_openlibs(L);
	lrot_preload(L);
	push_home(L);
	const char *home = lua_tostring(L, -1);
	lua_getglobal(L, "package");
	lua_pushfstring(L, "%s/lua/?.lua;%s/lua/?/init.lua", home, home);
	lua_setfield(L, -2, "path");
	lua_pop(L, 1);
	lrot_searcher(L, home);
	lua_getglobal(L, "require");
	lua_pushliteral(L, "rot.cli");
	if (docall(L, 1, 1) != LUA_OK)
		return lua_error(L);
	lua_getfield(L, -1, "main");
	lua_pushvalue(L, -3); /* home */
	lua_createtable(L, argc, 0);
	for (int i = 1; i < argc; i++) {
		lua_pushstring(L, argv[i]);
		lua_rawseti(L, -2, i);
	}
	if (docall(L, 2, 1) != LUA_OK)
		return lua_error(L);
	lua_Integer code = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
	lua_pushinteger(L, code);
	return 1;
}

/* The heap the Lua state grows in: 8 MB at a time, kept, in huge pages where the system gives
 * them to a region that asks (THP "madvise" or "always"). A cached rerun's Lua objects then
 * fault in 2 MB at a time, not 4 KB: a page fault costs a guest dearly (docs/architecture.md,
 * Figures). Without THP, or glibc's mallopt, the heap is as it was. */
static void heap_in_huge_pages(void)
{
#if defined(M_TOP_PAD) && defined(MADV_HUGEPAGE)
	const uintptr_t huge = 2u << 20, pad = 8u << 20;
	mallopt(M_TOP_PAD, (int)pad);
	mallopt(M_TRIM_THRESHOLD, (int)(2 * pad)); /* (kept: not given back and faulted in again) */
	uintptr_t start = (uintptr_t)sbrk(0);
	void *volatile grow = malloc(1 << 16); /* the heap grows by the pad (volatile: kept) */
	free(grow);
	uintptr_t at = (start + huge - 1) & ~(huge - 1), end = (uintptr_t)sbrk(0);
	if (end > at)
		madvise((void *)at, end - at, MADV_HUGEPAGE);
#endif
}

int main(int argc, char **argv)
{
	heap_in_huge_pages();
	lua_State *L = luaL_newstate();
	int code = 1;
	if (L == NULL) {
		l_message("cannot create Lua state: not enough memory");
		return EXIT_FAILURE;
	}
	globalL = L;
	char pid[32];
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	setenv("ROT_DRIVER_PID", pid, 1); /* the core checks it is still our child */
	catch_signals();
	lua_pushcfunction(L, &pmain);
	lua_pushinteger(L, argc);
	lua_pushlightuserdata(L, argv);
	int status = lua_pcall(L, 2, 1, 0);
	if (status == LUA_OK)
		code = (int)lua_tointeger(L, -1);
	else
		code = report(L);
	/* Closing the state frees every object one by one, a cached rerun's megabytes of them, to
	 * run their finalizers. Of what the driver opens only a process needs its own (it
	 * is killed and waited for); locks and files end with the driver, exit flushes streams. */
	if (lprocess_running() > 0)
		lua_close(L);
	return code;
}
