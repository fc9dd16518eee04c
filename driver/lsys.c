/* lsys: the rot.sys Lua module: hashing, atomic file writes, directory listing, clocks and
 * starting programs from an argv (never a shell). */
#include "lrot.h"
#include "run_command.h"
#include "sha256.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

int lrot_fail(lua_State *L, const char *what)
{
	int e = errno;
	lua_pushnil(L);
	lua_pushfstring(L, "%s: %s", what, strerror(e));
	return 2;
}

int lrot_error(lua_State *L, const char *message)
{
	lua_pushnil(L);
	lua_pushstring(L, message);
	return 2;
}

void lrot_newclass(lua_State *L, const char *name, const luaL_Reg *meta, const luaL_Reg *methods)
{
	luaL_newmetatable(L, name);
	luaL_setfuncs(L, meta, 0);
	if (methods) {
		lua_newtable(L);
		luaL_setfuncs(L, methods, 0);
		lua_setfield(L, -2, "__index");
	}
	lua_pop(L, 1);
}

static int l_sha256(lua_State *L)
{
	size_t len;
	const char *s = luaL_checklstring(L, 1, &len);
	char hex[65];
	sha256_hex(s, len, hex);
	lua_pushstring(L, hex);
	return 1;
}

/* The signature of the files at paths (table at index 1): sha256 over each one's path and
 * identity (util_file_identity; "missing" where it is gone), in hex. */
static void files_signature(lua_State *L, lua_Integer n, char hex[65])
{
	struct sha256 s;
	unsigned char d[32];
	sha256_init(&s);
	for (lua_Integer i = 1; i <= n; i++) {
		char line[160];
		lua_geti(L, 1, i);
		const char *path = luaL_checkstring(L, -1);
		int w = util_file_identity(path, line, sizeof line);
		if (w < 0)
			w = snprintf(line, sizeof line, "missing");
		sha256_update(&s, path, strlen(path) + 1);
		sha256_update(&s, line, (size_t)w + 1);
		lua_pop(L, 1);
	}
	sha256_final(&s, d);
	sha256_tohex(d, hex);
}

/* sha256files(paths [, bases [, missing_ok [, memo]]]) -> hex: sha256 over several files, each
 * preceded by its name, so renames change the hash. A name under one of the bases (directories)
 * is hashed relative to it, so the same files elsewhere hash the same. With missing_ok a file
 * that is gone hashes as its name marked missing instead of failing. With memo (a file's path),
 * the hash is kept there beside the files' signature (files_signature) and read from it while
 * that is unchanged: a cached rerun stats the files, it does not read them. */
static int l_sha256files(lua_State *L)
{
	struct sha256 s;
	unsigned char d[32];
	char hex[65], sig[65], kept[160];
	luaL_checktype(L, 1, LUA_TTABLE);
	int missing_ok = lua_toboolean(L, 3);
	const char *memo = luaL_optstring(L, 4, NULL);
	lua_Integer n = luaL_len(L, 1);
	lua_Integer nb = lua_istable(L, 2) ? luaL_len(L, 2) : 0;
	if (memo) {
		size_t ml;
		char *text = util_read_file(memo, &ml);
		files_signature(L, n, sig);
		int hit = text && ml == 130 && memcmp(text, sig, 64) == 0 && text[64] == ' ';
		if (hit) {
			lua_pushlstring(L, text + 65, 64);
			free(text);
			return 1;
		}
		free(text);
	}
	sha256_init(&s);
	for (lua_Integer i = 1; i <= n; i++) {
		lua_geti(L, 1, i);
		const char *path = luaL_checkstring(L, -1), *name = path;
		for (lua_Integer b = 1; b <= nb; b++) {
			lua_geti(L, 2, b);
			size_t bl;
			const char *base = luaL_checklstring(L, -1, &bl);
			if (bl && strncmp(path, base, bl) == 0 && path[bl] == '/' && name == path)
				name = path + bl + 1;
			lua_pop(L, 1);
		}
		size_t len;
		char *text = util_read_file(path, &len);
		if (!text && !missing_ok)
			return lrot_fail(L, path);
		sha256_update(&s, name, strlen(name) + 1);
		if (text)
			sha256_update(&s, text, len);
		else
			sha256_update(&s, "\0missing", 9);
		free(text);
		lua_pop(L, 1);
	}
	sha256_final(&s, d);
	sha256_tohex(d, hex);
	if (memo) { /* a failure only costs the next run the reading */
		snprintf(kept, sizeof kept, "%s %s\n", sig, hex);
		util_write_atomic(memo, kept, strlen(kept));
	}
	lua_pushstring(L, hex);
	return 1;
}

static int l_readfile(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	size_t len;
	char *text = util_read_file(path, &len);
	if (!text)
		return lrot_fail(L, path);
	lua_pushlstring(L, text, len);
	free(text);
	return 1;
}

/* writefile(path, data [, mode]): written whole or not at all; mode: permission bits (0644) */
static int l_writefile(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	size_t len;
	const char *data = luaL_checklstring(L, 2, &len);
	lua_Integer mode = luaL_optinteger(L, 3, 0644);
	luaL_argcheck(L, mode >= 0 && mode <= 07777, 3, "permission bits expected");
	if (util_write_atomic_mode(path, data, len, (mode_t)mode) < 0)
		return lrot_fail(L, path);
	lua_pushboolean(L, 1);
	return 1;
}

static int l_mkdir(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	if (util_mkdir_p(path, 0755) < 0)
		return lrot_fail(L, path);
	lua_pushboolean(L, 1);
	return 1;
}

static int l_listdir(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;
	if (!d)
		return lrot_fail(L, path);
	lua_newtable(L);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		lua_pushstring(L, de->d_name);
		lua_rawseti(L, -2, ++n);
	}
	closedir(d);
	return 1;
}

/* stat(path) -> "file"|"dir"|"other", size, mtime, inode, "MAJ:MIN:INODE" (its device and
 * inode as /proc/locks writes them); nil, message when absent */
static int l_stat(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	struct stat st;
	if (stat(path, &st) < 0)
		return lrot_fail(L, path);
	lua_pushstring(L, S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "dir" : "other");
	lua_pushinteger(L, (lua_Integer)st.st_size);
	lua_pushnumber(L, (lua_Number)st.st_mtim.tv_sec + st.st_mtim.tv_nsec * 1e-9);
	lua_pushinteger(L, (lua_Integer)st.st_ino);
	char where[64];
	snprintf(where, sizeof where, "%02x:%02x:%llu", (unsigned)major(st.st_dev),
		 (unsigned)minor(st.st_dev), (unsigned long long)st.st_ino);
	lua_pushstring(L, where);
	return 5;
}

/* sys.writable(path): true, or false and why (strerror: "Read-only file system", say) */
static int l_writable(lua_State *L)
{
	if (access(luaL_checkstring(L, 1), W_OK) == 0) {
		lua_pushboolean(L, 1);
		return 1;
	}
	lua_pushboolean(L, 0);
	lua_pushstring(L, strerror(errno));
	return 2;
}

static int l_realpath(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	char *r = realpath(path, NULL);
	if (!r)
		return lrot_fail(L, path);
	lua_pushstring(L, r);
	free(r);
	return 1;
}

static int l_remove(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	struct stat st;
	int dir = lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
	if ((dir ? rmdir(path) : unlink(path)) < 0) /* the reason of the call that fits */
		return lrot_fail(L, path);
	lua_pushboolean(L, 1);
	return 1;
}

/* alive(pid) -> whether a process pid exists */
static int l_alive(lua_State *L)
{
	pid_t pid = (pid_t)luaL_checkinteger(L, 1);
	lua_pushboolean(L, pid > 0 && (kill(pid, 0) == 0 || errno == EPERM));
	return 1;
}

/* removetree(path): removes a directory and everything in it (no symlink is followed) */
static int l_removetree(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	if (util_remove_tree(path) < 0)
		return lrot_fail(L, path);
	lua_pushboolean(L, 1);
	return 1;
}

static int l_rename(lua_State *L)
{
	const char *from = luaL_checkstring(L, 1), *to = luaL_checkstring(L, 2);
	if (rename(from, to) < 0)
		return lrot_fail(L, to);
	lua_pushboolean(L, 1);
	return 1;
}

static int l_pid(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)getpid());
	return 1;
}

/* setenv(name, value): for the programs rot starts (CCACHE_DIR, say) */
static int l_setenv(lua_State *L)
{
	if (setenv(luaL_checkstring(L, 1), luaL_checkstring(L, 2), 1) < 0)
		return lrot_fail(L, "setenv");
	lua_pushboolean(L, 1);
	return 1;
}

extern char **environ;

/* environ() -> {NAME = value}: the environment rot runs in (what a program it starts sees) */
static int l_environ(lua_State *L)
{
	lua_newtable(L);
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || eq == *e)
			continue;
		lua_pushlstring(L, *e, (size_t)(eq - *e));
		lua_pushstring(L, eq + 1);
		lua_rawset(L, -3);
	}
	return 1;
}

/* sleep(seconds): returns early when a signal interrupts the run (not while shielded: a
 * signal that cuts a wait short then is slept through to the end) */
static int l_sleep(lua_State *L)
{
	double until = run_command_now() + luaL_checknumber(L, 1), left;
	while (!run_command_stopping() && (left = until - run_command_now()) > 0)
		poll(NULL, 0, left < 1 ? (int)(left * 1000) + 1 : 1000);
	return 0;
}

/* shielded(f, ...) -> f(...): f runs to its end even when SIGINT, SIGTERM or SIGHUP come
 * meanwhile (the programs it runs are not stopped, its sleeps are slept), and such an
 * interruption is raised when f returns: for what must not be cut in half (a job submitted
 * and recorded, jobs cancelled). A second signal still ends the driver at once. */
static int l_shielded(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TFUNCTION);
	run_command_shield++;
	int st = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
	run_command_shield--;
	if (!run_command_shield && run_command_deferred) {
		run_command_deferred = 0;
		lua_getglobal(L, "require");
		lua_pushliteral(L, "rot.util");
		lua_call(L, 1, 1);
		lua_getfield(L, -1, "interrupted");
		lua_pushinteger(L, run_command_interrupted);
		lua_call(L, 1, 0); /* raises */
	}
	if (st != LUA_OK)
		return lua_error(L);
	return lua_gettop(L);
}

/* interrupted() -> the signal (SIGINT, SIGTERM, SIGHUP) that interrupted the run, or nil */
static int l_interrupted(lua_State *L)
{
	if (!run_command_interrupted)
		return 0;
	lua_pushinteger(L, run_command_interrupted);
	return 1;
}

static int l_isatty(lua_State *L)
{
	lua_pushboolean(L, isatty((int)luaL_checkinteger(L, 1)));
	return 1;
}

static int l_clock(lua_State *L)
{
	lua_pushnumber(L, run_command_now());
	return 1;
}

static int l_locate(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	char *p = strchr(name, '/') ? (run_command_executable(name) ? strdup(name) : NULL)
				    : run_command_locate(name);
	if (!p) {
		lua_pushnil(L);
		return 1;
	}
	lua_pushstring(L, p);
	free(p);
	return 1;
}

/* run(argv [, opts]) -> status, output ; nil, message when it could not start (or was
 * interrupted, or ran past its timeout and was killed).
 * opts: capture (bool), quiet (bool), dir (string), timeout (seconds). */
static int l_run(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_Integer n = luaL_len(L, 1);
	luaL_argcheck(L, n >= 1, 1, "empty argv");
	const char **argv = lua_newuserdatauv(L, (size_t)(n + 1) * sizeof *argv, 0);
	luaL_checkstack(L, (int)n + 8, "argv too long");
	for (lua_Integer i = 1; i <= n; i++) {
		lua_geti(L, 1, i); /* stays on the stack, so the string stays alive */
		argv[i - 1] = luaL_checkstring(L, -1);
	}
	argv[n] = NULL;
	struct child_process cp = {.argv = argv};
	if (lua_istable(L, 2)) {
		lua_getfield(L, 2, "dir");
		cp.dir = lua_tostring(L, -1); /* anchored: left on the stack */
		lua_getfield(L, 2, "capture");
		cp.capture = lua_toboolean(L, -1);
		lua_getfield(L, 2, "quiet");
		cp.quiet = lua_toboolean(L, -1);
		lua_getfield(L, 2, "timeout");
		cp.timeout = lua_tonumber(L, -1);
		lua_pop(L, 3);
	}
	int rc = run_command(&cp);
	if (rc < 0) {
		int e = errno; /* free may change errno */
		free(cp.output);
		if (e == EINTR && run_command_interrupted) /* the hook raises at the next step */
			return lrot_error(L, "interrupted");
		if (e == ETIMEDOUT) {
			lua_pushnil(L);
			lua_pushfstring(L, "'%s' did not end within %f s and was killed", argv[0],
					cp.timeout);
			return 2;
		}
		char why[512];
		return lrot_error(L, run_command_error(&cp, e, why, sizeof why));
	}
	lua_pushinteger(L, rc);
	if (cp.output)
		lua_pushlstring(L, cp.output, cp.output_len);
	else
		lua_pushliteral(L, "");
	free(cp.output);
	return 2;
}

/* nearest(name, candidates) -> the likely intended candidate, or nil */
static int l_nearest(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	luaL_checktype(L, 2, LUA_TTABLE);
	lua_Integer n = luaL_len(L, 2);
	const char **c = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *c, 0);
	luaL_checkstack(L, (int)n + 4, NULL);
	for (lua_Integer i = 1; i <= n; i++) {
		lua_geti(L, 2, i);
		c[i - 1] = luaL_checkstring(L, -1);
	}
	const char *best = util_nearest(name, c, (size_t)n);
	if (best)
		lua_pushstring(L, best);
	else
		lua_pushnil(L);
	return 1;
}

static const luaL_Reg sys_funcs[] = {{"sha256", l_sha256},
				     {"sha256files", l_sha256files},
				     {"readfile", l_readfile},
				     {"writefile", l_writefile},
				     {"mkdir", l_mkdir},
				     {"listdir", l_listdir},
				     {"stat", l_stat},
				     {"writable", l_writable},
				     {"realpath", l_realpath},
				     {"remove", l_remove},
				     {"removetree", l_removetree},
				     {"alive", l_alive},
				     {"rename", l_rename},
				     {"pid", l_pid},
				     {"isatty", l_isatty},
				     {"clock", l_clock},
				     {"locate", l_locate},
				     {"run", l_run},
				     {"nearest", l_nearest},
				     {"interrupted", l_interrupted},
				     {"setenv", l_setenv},
				     {"environ", l_environ},
				     {"sleep", l_sleep},
				     {"shielded", l_shielded},
				     {NULL, NULL}};

int luaopen_rot_sys(lua_State *L)
{
	luaL_newlib(L, sys_funcs);
	return 1;
}
