/* records: what rot's CUDA library (inject.c) makes of CUPTI's records, with no CUPTI in it:
 * a kernel's region name (demangled, with its launch shape), its calls into the arena, NVTX. */
#ifndef ROT_CUDA_RECORDS_H
#define ROT_CUDA_RECORDS_H

#include "../include/rot/markers.h"
#include "../markers/arena.h"

#include <stddef.h>
#include <stdint.h>

/* A kernel's region name: its demangled name without return type and parameter list (as ncu's
 * short name: "triad_kernel<double>"), then its launch shape, grid and block, dimensions of 1
 * left off the end ("<<<32768, 1024>>>", "<<<64x64, 16x16>>>"). A name that does not fit in
 * len bytes is cut, its shape kept, the kept part ending in a hash of the whole name (two
 * names never merge). A name that does not demangle stays as it is. */
void cudarec_name(const char *mangled, const uint32_t grid[3], const uint32_t block[3], char *out,
		  size_t len);

/* The kernel regions of one process in the arena: one slot per region, of one thread number
 * of its own (the GPU's, apart from the program's threads). */
struct cudarec_kernels {
	struct rot_arena *a;
	uint32_t thread, proc;
	struct rot_arena_slot *slot[ROT_ARENA_REGIONS];
	uint64_t lost; /* calls that found no room (names or slots) */
};

/* Starts the kernel regions of a process in arena a (proc: its entry in a->procs). */
void cudarec_kernels_start(struct cudarec_kernels *k, struct rot_arena *a, uint32_t proc);

/* One call of the kernel region name that ran from start to end (ns: the arena's clock is
 * ROT_CLOCK_NS for a CUDA program). The caller serializes the calls. */
void cudarec_kernel(struct cudarec_kernels *k, const char *name, uint64_t start, uint64_t end);

/* One thread's NVTX ranges, nested (push/pop), as regions through the marker recorder's api:
 * a pop ends the innermost range pushed, by its name. */
#define CUDAREC_DEPTH 64
struct cudarec_nvtx {
	char names[CUDAREC_DEPTH][ROT_ARENA_NAME];
	int depth, over; /* pushed past CUDAREC_DEPTH: not begun, popped in turn */
	uint64_t stray;	 /* pops with nothing pushed */
};

/* A range pushed (name NULL or empty: "(unnamed)"; cut to ROT_ARENA_NAME - 1 bytes). */
void cudarec_push(struct cudarec_nvtx *t, const struct rot_markers_api *api, const char *name);

/* The innermost range popped. */
void cudarec_pop(struct cudarec_nvtx *t, const struct rot_markers_api *api);

#endif
