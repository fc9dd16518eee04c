/* lprocess: the rot.process Lua module: a program started from an argv that runs beside the
 * driver ("rot.process" userdata): its stdout read line by line with a timeout, its end waited
 * for, its process group killed when the userdata is closed or collected. */
#include "lrot.h"
#include "run_command.h"

#include <errno.h>
#include <lauxlib.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROCESS_MT "rot.process"

struct process {
	struct child_process cp;
	char *buf; /* stdout read but not yet returned as lines */
	size_t len, cap;
	int eof;
	int open; /* started and not closed yet: counted in `running` */
};

static int running; /* processes started and not closed */

int lprocess_running(void)
{
	return running;
}

static struct process *checkprocess(lua_State *L)
{
	return luaL_checkudata(L, 1, PROCESS_MT);
}

/* spawn(argv [, {dir=, stderr=path, kill=signal, stdin="null"}]) -> process ; nil, message */
static int l_spawn(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_Integer n = luaL_len(L, 1);
	luaL_argcheck(L, n >= 1, 1, "empty argv");
	struct process *pr = lua_newuserdatauv(L, sizeof *pr, 1);
	memset(pr, 0, sizeof *pr);
	pr->cp.pid = -1;
	pr->cp.out = -1;
	luaL_setmetatable(L, PROCESS_MT);
	int ud = lua_gettop(L);
	/* argv and option strings stay reachable through the userdata's user value */
	lua_createtable(L, (int)n + 4, 0);
	const char **argv = lua_newuserdatauv(L, (size_t)(n + 1) * sizeof *argv, 0);
	lua_rawseti(L, -2, 0);
	for (lua_Integer i = 1; i <= n; i++) {
		lua_geti(L, 1, i);
		argv[i - 1] = luaL_checkstring(L, -1);
		lua_rawseti(L, -2, (int)i);
	}
	argv[n] = NULL;
	pr->cp.argv = argv;
	pr->cp.out_pipe = 1;
	if (lua_istable(L, 2)) {
		lua_getfield(L, 2, "dir");
		pr->cp.dir = lua_tostring(L, -1);
		lua_rawseti(L, -2, (int)n + 1);
		lua_getfield(L, 2, "stderr");
		pr->cp.err_path = lua_tostring(L, -1);
		lua_rawseti(L, -2, (int)n + 2);
		lua_getfield(L, 2, "kill");
		pr->cp.kill_signal = (int)lua_tointeger(L, -1);
		lua_getfield(L, 2, "stdin");
		pr->cp.null_stdin = lua_isstring(L, -1) && strcmp(lua_tostring(L, -1), "null") == 0;
		lua_pop(L, 2);
	}
	lua_setiuservalue(L, ud, 1);
	if (run_command_start(&pr->cp) < 0) {
		char why[512];
		return lrot_error(L, run_command_error(&pr->cp, errno, why, sizeof why));
	}
	pr->open = 1;
	running++;
	return 1;
}

/* p:line([timeout]) -> the next line of stdout (without "\n"); nil, "eof" | "timeout" |
 * "interrupted". The end of the process is the end of its output, even when something it
 * left behind still holds the pipe. */
static int m_line(lua_State *L)
{
	struct process *pr = checkprocess(L);
	double timeout = luaL_optnumber(L, 2, -1), until = run_command_now() + timeout;
	for (;;) {
		char *nl = pr->len ? memchr(pr->buf, '\n', pr->len) : NULL;
		if (nl) {
			size_t n = (size_t)(nl - pr->buf);
			lua_pushlstring(L, pr->buf, n);
			memmove(pr->buf, nl + 1, pr->len - n - 1);
			pr->len -= n + 1;
			return 1;
		}
		if (pr->eof || pr->cp.out < 0)
			return lrot_error(L, "eof");
		if (run_command_stopping()) /* under a shield, lines are read on */
			return lrot_error(L, "interrupted");
		if (timeout >= 0 && run_command_now() >= until)
			return lrot_error(L, "timeout");
		if (pr->len + 4096 > pr->cap) {
			size_t cap = pr->cap ? 2 * pr->cap : 16384;
			char *b = realloc(pr->buf, cap);
			if (!b)
				return luaL_error(L, "out of memory");
			pr->buf = b;
			pr->cap = cap;
		}
		ssize_t r = read(pr->cp.out, pr->buf + pr->len, pr->cap - pr->len);
		if (r > 0) {
			pr->len += (size_t)r;
		} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
			pr->eof = 1;
		} else if (poll(&(struct pollfd){pr->cp.out, POLLIN, 0}, 1, 50) == 0 &&
			   !pr->cp.reaped && pr->cp.pid > 0 &&
			   waitpid(pr->cp.pid, &pr->cp.status, WNOHANG) == pr->cp.pid) {
			pr->cp.reaped = 1; /* gone: what is in the pipe now is all there is */
		} else if (pr->cp.reaped &&
			   poll(&(struct pollfd){pr->cp.out, POLLIN, 0}, 1, 0) == 0) {
			pr->eof = 1;
		}
	}
}

/* p:wait([timeout]) -> exit status (128+N after signal N); nil, "timeout" | "interrupted" */
static int m_wait(lua_State *L)
{
	struct process *pr = checkprocess(L);
	if (pr->cp.pid < 0)
		return lrot_error(L, "not running");
	int st = run_command_finish(&pr->cp, luaL_optnumber(L, 2, -1));
	if (st == -2)
		return lrot_error(L, "timeout");
	if (st < 0)
		return lrot_error(L, errno == EINTR ? "interrupted" : strerror(errno));
	lua_pushinteger(L, st);
	return 1;
}

/* p:kill([signal]): signal (SIGKILL) to the process's group */
static int m_kill(lua_State *L)
{
	struct process *pr = checkprocess(L);
	run_command_kill(&pr->cp, (int)luaL_optinteger(L, 2, SIGKILL));
	return 0;
}

static int m_pid(lua_State *L)
{
	lua_pushinteger(L, checkprocess(L)->cp.pid);
	return 1;
}

/* __close, __gc: nothing it started keeps running */
static int m_close(lua_State *L)
{
	struct process *pr = checkprocess(L);
	if (pr->cp.pid > 0) {
		run_command_kill(&pr->cp, SIGKILL);
		int st = pr->cp.status;
		if (!pr->cp.reaped)
			while (waitpid(pr->cp.pid, &st, 0) < 0 && errno == EINTR)
				;
		pr->cp.pid = -1;
	}
	if (pr->cp.out >= 0) {
		close(pr->cp.out);
		pr->cp.out = -1;
	}
	free(pr->buf);
	pr->buf = NULL;
	pr->len = pr->cap = 0;
	if (pr->open) {
		pr->open = 0;
		running--;
	}
	return 0;
}

static const luaL_Reg methods[] = {{"line", m_line}, {"wait", m_wait},	 {"kill", m_kill},
				   {"pid", m_pid},   {"close", m_close}, {NULL, NULL}};
static const luaL_Reg meta[] = {{"__gc", m_close}, {"__close", m_close}, {NULL, NULL}};
static const luaL_Reg funcs[] = {{"spawn", l_spawn}, {NULL, NULL}};

int luaopen_rot_process(lua_State *L)
{
	lrot_newclass(L, PROCESS_MT, meta, methods);
	luaL_newlib(L, funcs);
	return 1;
}
