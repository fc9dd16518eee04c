/* topology: the machine as hwloc reports it: cache levels (size, count, PUs sharing each),
 * cores, PUs, NUMA nodes and the CPU model; from XML when HWLOC_XMLFILE names a file. */
#ifndef ROT_TOPOLOGY_H
#define ROT_TOPOLOGY_H

#include <stddef.h>

#define TOPOLOGY_MAX_CACHES 8
#define TOPOLOGY_MAX_PUS 2048

struct topology_cache {
	int level;		 /* 1, 2, 3, ... */
	char type;		 /* 'd' data, 'u' unified */
	unsigned long long size; /* bytes of one instance; 0 when hwloc does not know */
	int instances;		 /* instances in the machine */
	int pus;		 /* PUs the first instance serves */
	unsigned linesize;
	int associativity; /* ways; 0 unknown, -1 fully associative */
	/* owner[os index of a PU] = logical index of the instance serving it, -1 if none */
	short owner[TOPOLOGY_MAX_PUS];
};

struct topology {
	int pus, cores, packages, numa_nodes;
	unsigned long long memory; /* bytes, all NUMA nodes */
	int max_pu;		   /* largest PU os index */
	int ncaches;		   /* data and unified caches, by ascending level */
	struct topology_cache cache[TOPOLOGY_MAX_CACHES];
	char cpu_model[128], cpu_vendor[64], arch[32];
	char source[512]; /* "this system", or the XML file it came from */
};

/*
 * Loads the topology: from xml when it is not NULL, else from HWLOC_XMLFILE when set, else
 * from the running system. Returns 0, or -1 with a message in err (an unreadable XML file is
 * an error, never a silent fall back to this system).
 * A machine whose caches hwloc cannot see loads fine with ncaches == 0.
 */
int topology_load(struct topology *t, const char *xml, char *err, size_t errlen);

/* Size of the largest cache instance in bytes, 0 when no cache is known. */
unsigned long long topology_llc_bytes(const struct topology *t);

/* Bytes of cache level index c (into t->cache) that the PUs cpus[0..n) can use together:
 * the sum over the distinct instances serving them. */
unsigned long long topology_capacity(const struct topology *t, int c, const int *cpus, int n);

#endif
