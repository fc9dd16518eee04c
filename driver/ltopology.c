/* ltopology: the rot.topology Lua module: the machine's topology from hwloc (core/topology.c)
 * as "rot.topology" userdata, with its caches, cores, PUs and NUMA nodes as plain tables. */
#include "lrot.h"
#include "topology.h"

#include "util.h"

#include <dlfcn.h>
#include <hwloc.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOPOLOGY_MT "rot.topology"

static struct topology *checktopology(lua_State *L)
{
	return luaL_checkudata(L, 1, TOPOLOGY_MT);
}

/* hwloc's plugins rot reads nothing from: I/O discovery (it keeps no I/O objects) and, for the
 * running system, the libxml2 reader. hwloc loads every plugin with its first topology, and
 * these load large libraries (X11, OpenCL, libxml2, ICU): most of a topology's load time. */
#define IO_PLUGINS                                                                                 \
	"hwloc_pci,hwloc_opencl,hwloc_gl,hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero"

extern char **environ;

/* Appends text's first line holding prefix (its whole first line with "") to key; "-" where
 * there is none, or no text. */
static void key_line_of(char *key, size_t len, const char *text, const char *prefix)
{
	const char *at = text;
	size_t pl = strlen(prefix);
	while (at && *at && strncmp(at, prefix, pl) != 0)
		at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL;
	size_t used = strlen(key);
	if (at && *at)
		snprintf(key + used, len - used, "%.*s;", (int)strcspn(at, "\n"), at);
	else
		snprintf(key + used, len - used, "-;");
}

/* Appends file's first line holding prefix to key (key_line_of). */
static void key_line(char *key, size_t len, const char *file, const char *prefix)
{
	size_t n;
	char *text = util_read_file(file, &n);
	key_line_of(key, len, text, prefix);
	free(text);
}

/* Appends file's identity (util_file_identity) to key. */
static void key_file(char *key, size_t len, const char *file)
{
	char id[160];
	size_t used = strlen(key);
	snprintf(key + used, len - used, "%s;",
		 file && util_file_identity(file, id, sizeof id) >= 0 ? id : "-");
}

/* Appends the cgroup v2 cpuset of this process (what hwloc restricts the topology to) to key. */
static void key_cpuset(char *key, size_t len)
{
	size_t n;
	char *cg = util_read_file("/proc/self/cgroup", &n), path[4096];
	char *at = cg ? strstr(cg, "0::") : NULL;
	if (at) {
		at += 3;
		snprintf(path, sizeof path, "/sys/fs/cgroup%.*s/cpuset.cpus.effective",
			 (int)strcspn(at, "\n"), at);
		key_line(key, len, path, "");
		snprintf(path, sizeof path, "/sys/fs/cgroup%.*s/cpuset.mems.effective",
			 (int)strcspn(at, "\n"), at);
		key_line(key, len, path, "");
	}
	free(cg);
}

/* What this system's topology depends on and may change without a reboot, after the boot's
 * identity: the CPUs online and allowed (the affinity and the cgroup's cpuset), the memory,
 * the driver and hwloc's library as built, and hwloc's environment. 0, or -1 where the key
 * does not fit (no memo then). */
static int memo_key(char *key, size_t len)
{
	Dl_info hw;
	size_t n;
	snprintf(key, len, "rot-topology 2 %zu %u;", sizeof(struct topology),
		 hwloc_get_api_version());
	key_line(key, len, "/proc/sys/kernel/random/boot_id", "");
	key_line(key, len, "/sys/devices/system/cpu/online", "");
	char *status = util_read_file("/proc/self/status", &n);
	key_line_of(key, len, status, "Cpus_allowed_list:");
	key_line_of(key, len, status, "Mems_allowed_list:");
	free(status);
	key_cpuset(key, len);
	key_line(key, len, "/proc/meminfo", "MemTotal:");
	key_file(key, len, "/proc/self/exe");
	key_file(key, len, dladdr((void *)hwloc_topology_init, &hw) ? hw.dli_fname : NULL);
	for (char **e = environ; *e; e++) {
		size_t used = strlen(key);
		if (strncmp(*e, "HWLOC_", 6) == 0)
			snprintf(key + used, len - used, "%s;", *e);
	}
	return strlen(key) + 1 < len ? 0 : -1;
}

/* The topology kept in memo when it was kept under key: 1, copied to t; 0 otherwise. */
static int memo_read(const char *memo, const char *key, struct topology *t)
{
	size_t len, kl = strlen(key) + 1;
	char *bytes = util_read_file(memo, &len);
	int ok = bytes && len == kl + sizeof *t && memcmp(bytes, key, kl) == 0;
	if (ok)
		memcpy(t, bytes + kl, sizeof *t);
	free(bytes);
	return ok;
}

/* Keeps t in memo under key (its terminating NUL a separator). A failure costs the next run
 * a load. */
static void memo_write(const char *memo, const char *key, const struct topology *t)
{
	size_t kl = strlen(key) + 1;
	char *bytes = malloc(kl + sizeof *t);
	if (!bytes)
		return;
	memcpy(bytes, key, kl);
	memcpy(bytes + kl, t, sizeof *t);
	util_write_atomic(memo, bytes, kl + sizeof *t);
	free(bytes);
}

/* load([xml [, memo]]) -> topology ; nil, message. The plugins above are left unloaded for the
 * load (unless HWLOC_PLUGINS_BLACKLIST says otherwise); the environment is as it was after it.
 * This system's topology (no xml, no HWLOC_XMLFILE) is kept in the file memo, and read from it
 * while nothing it depends on changed (memo_key): hwloc's load reads hundreds of files. */
static int l_load(lua_State *L)
{
	const char *xml = luaL_optstring(L, 1, NULL);
	const char *memo = luaL_optstring(L, 2, NULL);
	const char *env = getenv("HWLOC_XMLFILE");
	int from_xml = (xml && *xml) || (env && *env);
	int own = getenv("HWLOC_PLUGINS_BLACKLIST") == NULL;
	char err[768], key[2048];
	struct topology *t = lua_newuserdatauv(L, sizeof *t, 0);
	luaL_setmetatable(L, TOPOLOGY_MT);
	if (memo && !from_xml && memo_key(key, sizeof key) < 0)
		memo = NULL;
	if (memo && !from_xml && memo_read(memo, key, t))
		return 1;
	if (own)
		setenv("HWLOC_PLUGINS_BLACKLIST",
		       from_xml ? IO_PLUGINS : IO_PLUGINS ",hwloc_xml_libxml", 1);
	int rc = topology_load(t, xml, err, sizeof err);
	if (own)
		unsetenv("HWLOC_PLUGINS_BLACKLIST");
	if (rc < 0)
		return lrot_error(L, err);
	if (memo && !from_xml)
		memo_write(memo, key, t);
	return 1;
}

static void setint(lua_State *L, const char *k, lua_Integer v)
{
	lua_pushinteger(L, v);
	lua_setfield(L, -2, k);
}

static void setstr(lua_State *L, const char *k, const char *v)
{
	lua_pushstring(L, v);
	lua_setfield(L, -2, k);
}

/* t:info() -> {pus=, cores=, packages=, numa_nodes=, memory=, cpu_model=, cpu_vendor=, arch=,
 * source=, caches = {{level=, name="L1", type="data"|"unified", size=, instances=, pus=,
 * linesize=, associativity=}, ...}} (data and unified caches, ascending; sizes in bytes, 0 when
 * unknown) */
static int m_info(lua_State *L)
{
	struct topology *t = checktopology(L);
	lua_createtable(L, 0, 12);
	setint(L, "pus", t->pus);
	setint(L, "cores", t->cores);
	setint(L, "packages", t->packages);
	setint(L, "numa_nodes", t->numa_nodes);
	setint(L, "memory", (lua_Integer)t->memory);
	setstr(L, "cpu_model", t->cpu_model);
	setstr(L, "cpu_vendor", t->cpu_vendor);
	setstr(L, "arch", t->arch);
	setstr(L, "source", t->source);
	lua_createtable(L, t->ncaches, 0);
	for (int i = 0; i < t->ncaches; i++) {
		const struct topology_cache *c = &t->cache[i];
		char name[8];
		snprintf(name, sizeof name, "L%d", c->level);
		lua_createtable(L, 0, 8);
		setint(L, "level", c->level);
		setstr(L, "name", name);
		setstr(L, "type", c->type == 'd' ? "data" : "unified");
		setint(L, "size", (lua_Integer)c->size);
		setint(L, "instances", c->instances);
		setint(L, "pus", c->pus);
		setint(L, "linesize", c->linesize);
		setint(L, "associativity", c->associativity);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "caches");
	return 1;
}

/* t:capacity(i, {cpu, ...}) -> bytes of cache i (1-based, as in info().caches) usable by
 * those PUs together: one instance's size per distinct instance serving them */
static int m_capacity(lua_State *L)
{
	struct topology *t = checktopology(L);
	lua_Integer c = luaL_checkinteger(L, 2);
	luaL_argcheck(L, c >= 1 && c <= t->ncaches, 2, "no such cache level");
	luaL_checktype(L, 3, LUA_TTABLE);
	lua_Integer n = luaL_len(L, 3);
	luaL_argcheck(L, n <= TOPOLOGY_MAX_PUS, 3, "too many CPUs");
	int *cpus = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *cpus, 0);
	for (lua_Integer i = 1; i <= n; i++) {
		lua_geti(L, 3, i);
		cpus[i - 1] = (int)luaL_checkinteger(L, -1);
		lua_pop(L, 1);
	}
	lua_pushinteger(L, (lua_Integer)topology_capacity(t, (int)c - 1, cpus, (int)n));
	return 1;
}

static const luaL_Reg methods[] = {{"info", m_info}, {"capacity", m_capacity}, {NULL, NULL}};
static const luaL_Reg meta[] = {{NULL, NULL}};
static const luaL_Reg funcs[] = {{"load", l_load}, {NULL, NULL}};

int luaopen_rot_topology(lua_State *L)
{
	lrot_newclass(L, TOPOLOGY_MT, meta, methods);
	luaL_newlib(L, funcs);
	return 1;
}
