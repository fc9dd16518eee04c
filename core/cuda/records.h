/* records: what rot's CUDA library (inject.c) makes of CUPTI's records, with no CUPTI in it:
 * a kernel's region name (demangled, with its launch shape), its calls into the arena, NVTX. */
#ifndef ROT_CUDA_RECORDS_H
#define ROT_CUDA_RECORDS_H

#include "../markers/arena.h"

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

/* A kernel's region name: its demangled name without return type and parameter list (as ncu's
 * short name: "triad_kernel<double>"), then its launch shape, grid and block, dimensions of 1
 * left off the end ("<<<32768, 1024>>>", "<<<64x64, 16x16>>>"). A name that does not fit in
 * len bytes is cut, its shape kept, the kept part ending in a hash of the whole name (two
 * names never merge). A name that does not demangle stays as it is. */
void cudarec_name(const char *mangled, const uint32_t grid[3], const uint32_t block[3], char *out,
		  size_t len);

/* Where the fields rot reads lie in CUPTI's kernel record (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL):
 * at the same offsets in every version of it from CUpti_ActivityKernel3 to CUpti_ActivityKernel10
 * (CUDA 13.0), as a newer version appends its fields. inject.c checks them against the headers
 * it is built with, so a layout that moves stops the build. */
#define CUDAREC_KERNEL_START 16 /* uint64_t start, end: ns */
#define CUDAREC_KERNEL_END 24
#define CUDAREC_KERNEL_GRID 52	/* int32_t gridX, gridY, gridZ */
#define CUDAREC_KERNEL_BLOCK 64 /* int32_t blockX, blockY, blockZ */
#define CUDAREC_KERNEL_NAME 104 /* const char *name */
#define CUDAREC_KERNEL_BYTES 112

/* A kernel launch as a kernel record says it. */
struct cudarec_launch {
	uint64_t start, end;
	uint32_t grid[3], block[3];
	const char *name;
};

/* The launch of a kernel record (at least CUDAREC_KERNEL_BYTES bytes). */
void cudarec_launch_of(const void *record, struct cudarec_launch *l);

/* Regions written by one writer, one slot per region, under one thread number of its own: the
 * GPU's kernels, a program thread's NVTX push/pop ranges, or the start/end ranges. */
struct cudarec_kernels {
	struct rot_arena *a;
	uint32_t thread, proc;
	struct rot_arena_slot *slot[ROT_ARENA_REGIONS];
	uint64_t lost; /* calls that found no room (names or slots) */
};

/* Starts a writer of a process in arena a (proc: its entry in a->procs, marked once it
 * records, as a process that calls a marker is; a NULL: one that records nothing). */
void cudarec_kernels_start(struct cudarec_kernels *k, struct rot_arena *a, uint32_t proc);

/* One call of region name that ran from start to end (ns: the arena's clock is ROT_CLOCK_NS for
 * a CUDA program). The caller serializes the calls. */
void cudarec_kernel(struct cudarec_kernels *k, const char *name, uint64_t start, uint64_t end);

/* The UTF-8 of a wide-character string (a code point that is none: U+FFFD), cut to len - 1
 * bytes at a character's end. NULL: "". */
void cudarec_utf8(const wchar_t *w, char *out, size_t len);

/* An NVTX range's region name: the message (NULL or empty: "(unnamed)"), after its domain's
 * name and a colon where the range is in a domain of the program's ("solver:step"; domain
 * "": a domain whose name is unknown, "(domain)"). Cut to len - 1 bytes. */
void cudarec_range_name(const char *domain, const char *message, char *out, size_t len);

/* Names by handle: NVTX's domains and registered strings (the handles the program got). */
#define CUDAREC_HANDLES 256
struct cudarec_handles {
	uint32_t n;
	uint64_t lost; /* handles that found no room */
	struct {
		const void *handle;
		char name[ROT_ARENA_NAME];
	} e[CUDAREC_HANDLES];
};

/* The handle's name, kept (a handle seen again takes the new name). */
void cudarec_handle_add(struct cudarec_handles *h, const void *handle, const char *name);

/* The handle's name: NULL when it is unknown. */
const char *cudarec_handle_name(const struct cudarec_handles *h, const void *handle);

/* One program thread's NVTX push/pop ranges, timed by their push and pop. Each domain nests on
 * its own (domain NULL: NVTX's default one): a pop ends its domain's innermost range. A range
 * still open is counted open in its region, as a marker's is, when the thread ends. Without an
 * arena (the metrics pass) only the names of the ranges open are kept. */
#define CUDAREC_DEPTH 64
#define CUDAREC_OVER 8
struct cudarec_nvtx {
	struct cudarec_kernels w;
	struct {
		const void *domain;
		struct rot_arena_slot *slot; /* NULL: no room (or arena), the range is not timed */
		uint64_t t0;
	} open[CUDAREC_DEPTH];
	char names[CUDAREC_DEPTH][ROT_ARENA_NAME]; /* the open ranges' names, outermost first */
	int depth;
	struct { /* pushed past CUDAREC_DEPTH: not begun, popped in turn */
		const void *domain;
		uint64_t n;
	} over[CUDAREC_OVER];
	uint64_t stray; /* pops with nothing pushed in their domain */
};

/* Starts a thread's NVTX ranges (a process's writer, as cudarec_kernels_start's). */
void cudarec_nvtx_start(struct cudarec_nvtx *t, struct rot_arena *a, uint32_t proc);

/* A range named name (cudarec_range_name's) pushed in domain at time now (ns). */
void cudarec_push(struct cudarec_nvtx *t, const void *domain, const char *name, uint64_t now);

/* Domain's innermost range popped at time now. */
void cudarec_pop(struct cudarec_nvtx *t, const void *domain, uint64_t now);

/* A process's NVTX start/end ranges, by their id: one may end in another thread than the one
 * that started it, so they have a writer of their own; the caller serializes the calls. */
#define CUDAREC_RANGES 4096
struct cudarec_ranges {
	struct cudarec_kernels w;
	uint32_t n;
	struct {
		uint64_t id, t0;
		struct rot_arena_slot *slot;
	} open[CUDAREC_RANGES];
	uint64_t lost;	/* started past CUDAREC_RANGES open at once: counted open, never timed */
	uint64_t stray; /* ends of an id not started (or not kept) */
};

void cudarec_ranges_start(struct cudarec_ranges *r, struct rot_arena *a, uint32_t proc);

/* Range id, named name, started at now. */
void cudarec_range_start(struct cudarec_ranges *r, uint64_t id, const char *name, uint64_t now);

/* Range id ended at now. */
void cudarec_range_end(struct cudarec_ranges *r, uint64_t id, uint64_t now);

#endif
