/* flush: makes caches cold before a timed run: walks a buffer twice the last-level cache,
 * clflushes the kernel's declared buffers and runs a block of code larger than L1i. */
#include "flush.h"
#include "topology.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static volatile uint64_t *evict;
static size_t evict_words;

/* the buffer walked when hwloc knows no cache: twice a last-level cache this large */
#define FLUSH_GUESS_LLC ((size_t)128 << 20)

size_t flush_llc_bytes(int *known)
{
	static struct topology t;
	char err[256];
	size_t llc = topology_load(&t, NULL, err, sizeof err) == 0 ? topology_llc_bytes(&t) : 0;
	*known = llc > 0;
	return llc ? llc : FLUSH_GUESS_LLC;
}

size_t flush_init(int *known)
{
	size_t bytes = 2 * flush_llc_bytes(known);
	evict = rot_alloc(bytes);
	if (!evict)
		return 0;
	evict_words = bytes / sizeof *evict;
	return bytes;
}

/* 64 KiB of 4-byte no-ops: evicts the kernel's code from L1i (32-64 KiB on current cores) */
static void __attribute__((noinline)) code_block(void)
{
#if defined(__x86_64__)
	__asm__ volatile(".rept 16384\n\t.byte 0x0f, 0x1f, 0x40, 0x00\n\t.endr" ::: "memory");
#endif
}

void flush_caches(const struct rot_buffer *b, int n)
{
	for (size_t i = 0; i < evict_words; i += 8)
		evict[i] += 1;
#if defined(__x86_64__)
	for (int j = 0; j < n; j++)
		for (size_t off = 0; off < b[j].bytes; off += 64)
			_mm_clflush((char *)b[j].p + off);
	_mm_mfence();
#endif
	code_block();
}

void flush_dispose(void)
{
	free((void *)evict);
	evict = NULL;
}
