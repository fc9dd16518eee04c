/* lrot: the Lua modules the driver registers (one luaopen_rot_<module> per binding file)
 * and the helper that preloads them all. */
#ifndef ROT_LROT_H
#define ROT_LROT_H

#include <lua.h>

int luaopen_rot_sys(lua_State *L);
int luaopen_rot_config(lua_State *L);
int luaopen_rot_cache(lua_State *L);
int luaopen_rot_build(lua_State *L);
int luaopen_rot_core(lua_State *L);

/* Puts every rot.<module> opener into package.preload. */
void lrot_preload(lua_State *L);

/* Pushes nil and "<what>: <strerror(errno)>"; returns 2 (the expected-failure convention). */
int lrot_fail(lua_State *L, const char *what);

struct cache_entry;
/* Pushes {description, coreHash, meta = {...}, runs = {{...}, ...}}; numeric text becomes numbers. */
void lrot_push_entry(lua_State *L, const struct cache_entry *e);

#endif
