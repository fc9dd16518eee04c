/* topology: the machine as hwloc reports it: cache levels (size, count, PUs sharing each),
 * cores, PUs, NUMA nodes and the CPU model; from XML when HWLOC_XMLFILE names a file. */
#include "topology.h"

#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_info(char *dst, size_t len, hwloc_obj_t obj, const char *name)
{
	const char *v = obj ? hwloc_obj_get_info_by_name(obj, name) : NULL;
	if (v && !dst[0])
		snprintf(dst, len, "%s", v);
}

static void load_caches(struct topology *t, hwloc_topology_t topo)
{
	static const hwloc_obj_type_t types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE,
						 HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE,
						 HWLOC_OBJ_L5CACHE};
	for (size_t l = 0; l < sizeof types / sizeof types[0]; l++) {
		int n = hwloc_get_nbobjs_by_type(topo, types[l]);
		if (n <= 0 || t->ncaches == TOPOLOGY_MAX_CACHES)
			continue;
		struct topology_cache *c = &t->cache[t->ncaches++];
		hwloc_obj_t first = hwloc_get_obj_by_type(topo, types[l], 0);
		memset(c->owner, 0xff, sizeof c->owner); /* -1: no instance */
		c->level = (int)l + 1;
		c->type = first->attr->cache.type == HWLOC_OBJ_CACHE_DATA ? 'd' : 'u';
		c->size = first->attr->cache.size;
		c->linesize = first->attr->cache.linesize;
		c->associativity = first->attr->cache.associativity;
		c->instances = n;
		c->pus = hwloc_bitmap_weight(first->cpuset);
		for (int i = 0; i < n; i++) {
			hwloc_obj_t obj = hwloc_get_obj_by_type(topo, types[l], (unsigned)i);
			if (obj->attr->cache.size > c->size)
				c->size =
				    obj->attr->cache.size; /* unequal instances: the largest */
			int pu;
			hwloc_bitmap_foreach_begin(pu, obj->cpuset)
			{
				if (pu < TOPOLOGY_MAX_PUS)
					c->owner[pu] = (short)i;
			}
			hwloc_bitmap_foreach_end();
		}
	}
}

int topology_load(struct topology *t, const char *xml, char *err, size_t errlen)
{
	hwloc_topology_t topo;
	int rc = -1;
	memset(t, 0, sizeof *t);
	if (hwloc_topology_init(&topo) < 0) {
		snprintf(err, errlen, "hwloc cannot start: %s", strerror(errno));
		return -1;
	}
	const char *env = getenv("HWLOC_XMLFILE");
	const char *from = xml && *xml ? xml : env && *env ? env : NULL;
	/* explicitly: hwloc alone would fall back to this system when the file is unreadable */
	if (from && hwloc_topology_set_xml(topo, from) < 0) {
		snprintf(err, errlen, "hwloc cannot read the topology from '%s': %s", from,
			 strerror(errno));
		goto out;
	}
	if (hwloc_topology_load(topo) < 0) {
		snprintf(err, errlen, "hwloc cannot read the topology%s%s%s: %s",
			 from ? " from '" : "", from ? from : "", from ? "'" : "", strerror(errno));
		goto out;
	}
	snprintf(t->source, sizeof t->source, "%s", from ? from : "this system");
	t->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	t->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	t->packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
	t->numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	hwloc_obj_t root = hwloc_get_root_obj(topo);
	t->memory = root->total_memory;
	for (int i = 0; i < t->pus; i++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
		if ((int)pu->os_index > t->max_pu)
			t->max_pu = (int)pu->os_index;
	}
	hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
	copy_info(t->cpu_model, sizeof t->cpu_model, pkg, "CPUModel");
	copy_info(t->cpu_model, sizeof t->cpu_model, root, "CPUModel");
	copy_info(t->cpu_vendor, sizeof t->cpu_vendor, pkg, "CPUVendor");
	copy_info(t->arch, sizeof t->arch, root, "Architecture");
	load_caches(t, topo);
	rc = 0;
out:
	hwloc_topology_destroy(topo);
	return rc;
}

unsigned long long topology_llc_bytes(const struct topology *t)
{
	unsigned long long best = 0;
	for (int i = 0; i < t->ncaches; i++)
		if (t->cache[i].size > best)
			best = t->cache[i].size;
	return best;
}

unsigned long long topology_capacity(const struct topology *t, int c, const int *cpus, int n)
{
	const struct topology_cache *k = &t->cache[c];
	unsigned char seen[TOPOLOGY_MAX_PUS] = {0};
	unsigned long long sum = 0;
	for (int i = 0; i < n; i++) {
		int inst = cpus[i] >= 0 && cpus[i] < TOPOLOGY_MAX_PUS ? k->owner[cpus[i]] : -1;
		if (inst >= 0 && !seen[inst]) {
			seen[inst] = 1;
			sum += k->size;
		}
	}
	return sum;
}
