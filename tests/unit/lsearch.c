/* Unit tests of the searcher of rot's Lua modules (driver/lsearch.c): a module is compiled
 * once and kept in build/lua, loaded from there while its source is unchanged, compiled again
 * when its source changes, and a broken source is an error naming the module and the file. */
#include "lrot.h"
#include "tap.h"
#include "util.h"

#include <lualib.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char home[320];

/* What require(name) returns in a fresh state (its string value), or the error's first line. */
static const char *required(const char *name, char *buf, size_t len)
{
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	lrot_searcher(L, home);
	lua_getglobal(L, "require");
	lua_pushstring(L, name);
	int rc = lua_pcall(L, 1, 1, 0);
	snprintf(buf, len, "%s%s",
		 rc == LUA_OK ? "" : "error: ", lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
	lua_close(L);
	return buf;
}

static void source(const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/lua/m.lua", home);
	util_write_atomic_mode(path, text, strlen(text), 0644);
}

int main(void)
{
	char buf[1024], kept[512], dir[512];
	snprintf(home, sizeof home, "/tmp/rot-lsearch-XXXXXX");
	if (!mkdtemp(home))
		return 1;
	snprintf(dir, sizeof dir, "%s/lua", home);
	util_mkdir_p(dir, 0755);
	snprintf(kept, sizeof kept, "%s/build/lua/m.luac", home);

	source("return 'one'");
	is_str(required("m", buf, sizeof buf), "one", "a module is found under home/lua");
	struct stat st;
	ok(stat(kept, &st) == 0 && st.st_size > 0, "and kept compiled in home/build/lua");
	util_write_atomic_mode(kept, "rot-luac 1 0 0.000000000\nnot bytecode", 37,
			       0644); /* another header */
	is_str(required("m", buf, sizeof buf), "one",
	       "a kept chunk of another source is not used: the source is compiled again");

	source("return 'second'"); /* another size */
	is_str(required("m", buf, sizeof buf), "second",
	       "a changed source is compiled again, not taken from the kept chunk");
	is_str(required("m", buf, sizeof buf), "second", "and kept: the next state loads it");

	char moved[sizeof home], cmd[700];
	snprintf(moved, sizeof moved, "%.300s-moved", home);
	snprintf(cmd, sizeof cmd, "mv '%s' '%s'", home, moved);
	if (system(cmd) != 0)
		return 1;
	snprintf(home, sizeof home, "%s", moved);
	snprintf(kept, sizeof kept, "%s/build/lua/m.luac", home);
	is_str(required("m", buf, sizeof buf), "second", "a moved checkout finds its module");
	char *k = util_read_file(kept, NULL);
	ok(k && strstr(k, moved) != NULL,
	   "and compiles it again: its kept chunk names the source's new path");
	free(k);

	source("return 'broken' +");
	required("m", buf, sizeof buf);
	ok(strstr(buf, "error loading module 'm' from file '") && strstr(buf, "/lua/m.lua'"),
	   "a source that does not compile is an error naming the module and its file: %s", buf);
	required("nosuch", buf, sizeof buf);
	ok(strstr(buf, "module 'nosuch' not found") != NULL,
	   "a missing module is not found, as ever");

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
	if (system(cmd) != 0)
		return 1;
	return done_testing();
}
