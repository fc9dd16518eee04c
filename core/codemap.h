/* codemap: the code a sampled program's processes ran, as the kernel told of it: each process's
 * executable mappings over time, each mapping's file an object, and an address turned into its
 * object and the offset that object's file links it at (the same in every run: address
 * randomisation changes nothing). */
#ifndef ROT_CODEMAP_H
#define ROT_CODEMAP_H

#include <stdint.h>
#include <sys/types.h>

/* The objects every map has: code in no file (a JIT's buffer, anonymous memory, an address in
 * no mapping) and the kernel's code. Files are numbered from CODEMAP_FILES. */
#define CODEMAP_UNKNOWN 0
#define CODEMAP_KERNEL 1
#define CODEMAP_FILES 2
#define CODEMAP_SEGMENTS 16 /* loadable segments of an object's file that are read */

/* A file code ran from: its path as the kernel gave it, and its loadable segments (file
 * offset, size in the file, link address), none where it is no ELF file it could read. */
struct codemap_object {
	char *path;
	int nseg;
	struct {
		uint64_t off, size, vaddr;
	} seg[CODEMAP_SEGMENTS];
};

/* A mapping of a process: addresses [start, end) hold its object's file from offset pgoff on,
 * from time `from` to time `to` (UINT64_MAX: still). */
struct codemap_mapping {
	pid_t pid;
	int obj;
	uint64_t start, end, pgoff, from, to;
};

struct codemap {
	struct codemap_object *objects;
	int nobjects, cobjects;
	struct codemap_mapping *maps;
	int nmaps, cmaps;
};

/* An empty map. */
void codemap_init(struct codemap *m);

/*
 * Process pid mapped len bytes of the file at path, from offset pgoff on, at start, executable,
 * at time t. A path the kernel gives for memory of no file ("//anon", "[heap]", "/memfd:...",
 * "", ...) maps unknown code; "[vdso]" is an object of its own. 0, or -1 when memory ran out.
 */
int codemap_mmap(struct codemap *m, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		 const char *path, uint64_t t);

/* Process pid ran a new program at time t: its mappings before end there. */
void codemap_exec(struct codemap *m, pid_t pid, uint64_t t);

/* Process child was forked from parent at time t: it has the parent's mappings. 0, or -1 when
 * memory ran out. */
int codemap_fork(struct codemap *m, pid_t child, pid_t parent, uint64_t t);

/* The object address addr of process pid lay in at time t (the latest mapping that held it),
 * and in *off the offset its file links it at (an ELF file's link address; else the file
 * offset; unknown code: 0). */
int codemap_find(const struct codemap *m, pid_t pid, uint64_t addr, uint64_t t, uint64_t *off);

void codemap_free(struct codemap *m);

#endif
