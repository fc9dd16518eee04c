/* lgen: the rot.gen Lua module: the build lock ("rot.lock" userdata, closable) and the
 * generated files of a core build (macro headers, kernel flags, kernel list). */
#include "gen.h"
#include "lrot.h"
#include "run_command.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK_MT "rot.lock"

struct lock {
	int fd;
};

static struct lock *checklock(lua_State *L)
{
	return luaL_checkudata(L, 1, LOCK_MT);
}

/* Opens a lock file, never through a symbolic link (anyone can place one in /tmp): created
   new, readable by all (any user's rot can take a machine-wide lock); else the one there, to
   write, or, where it cannot be written (another user's, a read-only folder), to read: a flock
   needs no write access. -1 with errno (ELOOP: a link; EINVAL: not a regular file). */
static int lock_open(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		(void)fchmod(fd, 0644); /* ours and new: whatever the umask */
		return fd;
	}
	if (errno != EEXIST)
		return -1;
	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM))
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* Closes a lock's file, which releases its flock; errno kept. */
static void lock_close(struct lock *lk)
{
	int e = errno;
	if (lk->fd >= 0)
		close(lk->fd);
	lk->fd = -1;
	errno = e;
}

/* The lock's failure: nil, "'path': why" (the fd closed, errno kept). */
static int lock_fail(lua_State *L, struct lock *lk, const char *path)
{
	int e = errno;
	lock_close(lk);
	lua_pushnil(L);
	if (e == ELOOP || e == EINVAL)
		lua_pushfstring(
		    L, "'%s' is a symbolic link or not a regular file: not used as a lock", path);
	else
		lua_pushfstring(L, "'%s': %s", path, strerror(e));
	return 2;
}

/* lock(path [, wait]) -> lock ; nil, message. Waits while another process holds it; with
   wait false, returns nil, "busy" instead (rot.session.lock says why it waits, then waits). */
static int l_lock(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	int wait = lua_isnoneornil(L, 2) || lua_toboolean(L, 2);
	struct lock *lk = lua_newuserdatauv(L, sizeof *lk, 0);
	lk->fd = -1;
	luaL_setmetatable(L, LOCK_MT);
	lk->fd = lock_open(path);
	if (lk->fd < 0)
		return lock_fail(L, lk, path);
	if (flock(lk->fd, LOCK_EX | LOCK_NB) == 0)
		return 1;
	if (errno != EWOULDBLOCK)
		return lock_fail(L, lk, path);
	if (!wait) {
		lock_close(lk);
		lua_pushnil(L);
		lua_pushstring(L, "busy");
		return 2;
	}
	/* an interruption ends the wait (the hook raises it on return) */
	while (flock(lk->fd, LOCK_EX) < 0)
		if (errno != EINTR || run_command_stopping())
			return lock_fail(L, lk, path);
	return 1;
}

static int m_unlock(lua_State *L)
{
	lock_close(checklock(L));
	return 0;
}

static int m_tostring(lua_State *L)
{
	struct lock *lk = checklock(L);
	lua_pushstring(L, lk->fd >= 0 ? "rot.lock (held)" : "rot.lock (released)");
	return 1;
}

#define ERRBUF 1024

/* generate{gendir=, kernels={{name=,path=},...}, macros={NAME=value|false}, flags=,
 * paths={{from, to}, ...}} -> number of files rewritten ; nil, message */
static int l_generate(lua_State *L)
{
	char err[ERRBUF];
	int changed = 0, rc;
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_getfield(L, 1, "gendir");
	const char *gendir = luaL_checkstring(L, -1);
	lua_getfield(L, 1, "flags");
	const char *flags = luaL_optstring(L, -1, "");
	if ((rc = gen_flags(gendir, flags, err, sizeof err)) < 0)
		return lrot_error(L, err);
	changed += rc;
	if (lua_getfield(L, 1, "macros") == LUA_TTABLE) {
		lua_pushnil(L);
		while (lua_next(L, -2)) {
			if (lua_type(L, -2) != LUA_TSTRING) /* converting it would break lua_next */
				return luaL_error(L, "a macro name must be a string");
			const char *name = lua_tostring(L, -2);
			const char *value =
			    lua_toboolean(L, -1) ? luaL_tolstring(L, -1, NULL) : NULL;
			if ((rc = gen_macro(gendir, name, value, err, sizeof err)) < 0)
				return lrot_error(L, err);
			changed += rc;
			lua_settop(L, lua_gettop(L) - (value ? 2 : 1));
		}
	}
	lua_pop(L, 1);
	if (lua_getfield(L, 1, "kernels") != LUA_TTABLE)
		return luaL_argerror(L, 1, "field 'kernels' must be a table");
	int kt = lua_gettop(L);
	lua_Integer n = luaL_len(L, kt);
	struct gen_kernel *k = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *k, 0);
	luaL_checkstack(L, (int)(3 * n) + 4, NULL);
	for (lua_Integer i = 1; i <= n; i++) {
		lua_geti(L, kt, i);
		lua_getfield(L, -1, "name");
		k[i - 1].name = luaL_checkstring(L, -1);
		lua_getfield(L, -2, "path");
		k[i - 1].path = luaL_checkstring(L, -1);
		lua_getfield(L, -3, "key");
		k[i - 1].key = lua_tostring(L, -1);
		lua_remove(L, -4); /* name, path and key stay on the stack, anchored */
	}
	if ((rc = gen_kernels(gendir, k, (size_t)n, err, sizeof err)) < 0)
		return lrot_error(L, err);
	changed += rc;
	lua_getfield(L, 1, "paths");
	int pt = lua_gettop(L);
	lua_Integer np = lua_istable(L, pt) ? luaL_len(L, pt) : 0;
	const char **from = lua_newuserdatauv(L, (size_t)(np ? np : 1) * sizeof *from, 0);
	const char **to = lua_newuserdatauv(L, (size_t)(np ? np : 1) * sizeof *to, 0);
	luaL_checkstack(L, (int)(2 * np) + 4, NULL);
	for (lua_Integer i = 1; i <= np; i++) {
		lua_geti(L, pt, i);
		lua_geti(L, -1, 1);
		from[i - 1] = luaL_checkstring(L, -1);
		lua_geti(L, -2, 2);
		to[i - 1] = luaL_checkstring(L, -1);
		lua_remove(L, -3); /* both strings stay on the stack, anchored */
	}
	if ((rc = gen_paths(gendir, from, to, (size_t)np, err, sizeof err)) < 0)
		return lrot_error(L, err);
	changed += rc;
	lua_pushinteger(L, changed);
	return 1;
}

/* macros(path) -> {NAME, ...} used by a kernel source ; nil, message */
static int l_macros(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	char *names[128];
	int n = gen_scan_macros(path, names, 128);
	if (n < 0 && errno == E2BIG)
		return lrot_error(L, "it includes more than 128 macros");
	if (n < 0)
		return lrot_fail(L, path);
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		lua_pushstring(L, names[i]);
		free(names[i]);
		lua_rawseti(L, -2, i + 1);
	}
	return 1;
}

/* checkmacro(name, value) -> true ; nil, message */
static int l_checkmacro(lua_State *L)
{
	char err[ERRBUF];
	const char *name = luaL_checkstring(L, 1);
	const char *value = luaL_tolstring(L, 2, NULL);
	if (gen_check_macro_name(name, err, sizeof err) < 0 ||
	    gen_check_macro_value(name, value, err, sizeof err) < 0)
		return lrot_error(L, err);
	lua_pushboolean(L, 1);
	return 1;
}

/* checkflags(flags) -> true ; nil, message */
static int l_checkflags(lua_State *L)
{
	char err[ERRBUF];
	if (gen_check_flags(luaL_checkstring(L, 1), err, sizeof err) < 0)
		return lrot_error(L, err);
	lua_pushboolean(L, 1);
	return 1;
}

/* checkpath(what, path) -> true ; nil, message */
static int l_checkpath(lua_State *L)
{
	char err[ERRBUF];
	if (gen_check_path(luaL_checkstring(L, 1), luaL_checkstring(L, 2), err, sizeof err) < 0)
		return lrot_error(L, err);
	lua_pushboolean(L, 1);
	return 1;
}

static const luaL_Reg lock_methods[] = {{"unlock", m_unlock}, {NULL, NULL}};
static const luaL_Reg lock_meta[] = {
    {"__gc", m_unlock}, {"__close", m_unlock}, {"__tostring", m_tostring}, {NULL, NULL}};
static const luaL_Reg funcs[] = {{"lock", l_lock},
				 {"generate", l_generate},
				 {"macros", l_macros},
				 {"checkmacro", l_checkmacro},
				 {"checkflags", l_checkflags},
				 {"checkpath", l_checkpath},
				 {NULL, NULL}};

int luaopen_rot_gen(lua_State *L)
{
	lrot_newclass(L, LOCK_MT, lock_meta, lock_methods);
	luaL_newlib(L, funcs);
	return 1;
}
