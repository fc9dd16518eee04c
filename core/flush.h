/* flush: makes caches cold before a timed run: walks a buffer twice the last-level cache,
 * clflushes the kernel's declared buffers and runs a block of code larger than L1i. */
#ifndef ROT_FLUSH_H
#define ROT_FLUSH_H

#include "kernel.h"

#include <stddef.h>

/* Largest cache size (bytes) from the topology; *known = 0 when hwloc sees no cache and the
 * size is a generous guess instead. */
size_t flush_llc_bytes(int *known);

/* Prepares the eviction buffer (twice the last-level cache); returns its size, or 0 with
 * errno on failure. */
size_t flush_init(int *known);

void flush_caches(const struct rot_buffer *b, int n);

void flush_dispose(void);

#endif
