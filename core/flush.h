/* flush: makes caches cold before a timed run: walks a buffer twice the last-level cache,
 * clflushes the kernel's declared buffers and runs a block of code larger than L1i. */
#ifndef ROT_FLUSH_H
#define ROT_FLUSH_H

#include "kernel.h"

#include <stddef.h>

/* Largest cache size from sysfs (bytes), or 0 when unknown. */
size_t flush_llc_bytes(void);

/* Prepares the eviction buffer; -1 with errno on failure. */
int flush_init(void);

void flush_caches(const struct rot_buffer *b, int n);

void flush_dispose(void);

#endif
