/* lrot: the Lua modules the driver registers (one luaopen_rot_<module> per binding file)
 * and the helper that preloads them all. */
#ifndef ROT_LROT_H
#define ROT_LROT_H

#include <lauxlib.h>
#include <lua.h>

int luaopen_rot_sys(lua_State *L);
int luaopen_rot_config(lua_State *L);
int luaopen_rot_cache(lua_State *L);
int luaopen_rot_gen(lua_State *L);
int luaopen_rot_records(lua_State *L);
int luaopen_rot_topology(lua_State *L);
int luaopen_rot_process(lua_State *L);
int luaopen_rot_protocol(lua_State *L);
int luaopen_rot_symbols(lua_State *L);
int luaopen_rot_text(lua_State *L);
int luaopen_rot_search(lua_State *L);

/* How many rot.process processes were started and not closed yet (lprocess.c). */
int lprocess_running(void);

/* Puts every rot.<module> opener into package.preload. */
void lrot_preload(lua_State *L);

/* Installs the searcher of rot's Lua modules under home/lua, which keeps each one compiled in
 * home/build/lua (lsearch.c), before the Lua searcher: a module loads from its kept bytecode
 * while its source's size and time are those it was compiled from. */
void lrot_searcher(lua_State *L, const char *home);

/* Pushes nil and "<what>: <strerror(errno)>"; returns 2 (the expected-failure convention). */
int lrot_fail(lua_State *L, const char *what);

/* Pushes nil and message; returns 2. */
int lrot_error(lua_State *L, const char *message);

/* Creates the metatable `name` with metamethods meta and, when methods is not NULL, an
 * __index table holding methods (the liolib pattern). Leaves the stack as it was. */
void lrot_newclass(lua_State *L, const char *name, const luaL_Reg *meta, const luaL_Reg *methods);

/* Makes the table at idx a report's meta table: reading or writing a key core/vocabulary.h does
 * not declare raises (lprotocol.c). */
void lrot_strict_meta(lua_State *L, int idx);

struct cache_entry;
/* Pushes {description, coreHash, meta = {...}, runs = {{...}, ...}}; numeric text becomes
 * numbers. */
void lrot_push_entry(lua_State *L, const struct cache_entry *e);

#endif
