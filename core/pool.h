/* pool: the memory rot_alloc hands to kernels: page-aligned blocks from one reserved region that
 * keeps the pages a point touched, so the next point of a shared child reuses them. */
#ifndef ROT_POOL_H
#define ROT_POOL_H

#include <stddef.h>

/*
 * A block of at least `bytes`, 4096-byte aligned, or NULL with errno set. Blocks come from a
 * region reserved once per process (twice the machine's memory, nothing committed until
 * touched) and go back to it with free(): this module defines free() and realloc(), which
 * hand any other pointer to the C library's. Freed pages are kept, not returned to the
 * system, so a child that measures point after point faults each page in once (under KVM a
 * 4 KiB page fault can cost 13 us: 3 s a GiB), whatever sizes its points use. Consecutive
 * blocks lie a page or more apart (pool.c's GAP), never back to back. A request the region
 * cannot hold comes from the C library instead.
 */
void *pool_alloc(size_t bytes);

/* Whether p is a block of the pool (tests). */
int pool_owns(const void *p);

#endif
