/* flush: makes caches cold before a timed run: walks a buffer twice the last-level cache,
 * clflushes the kernel's declared buffers and runs a block of code larger than L1i. */
#include "flush.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static volatile uint64_t *evict;
static size_t evict_words;

static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	return (size_t)v;
}

size_t flush_llc_bytes(void)
{
	size_t best = 0;
	for (int i = 0; i < 16; i++) {
		char path[128], buf[64];
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof buf, f)) {
			size_t s = parse_size(buf);
			if (s > best)
				best = s;
		}
		fclose(f);
	}
	return best;
}

int flush_init(void)
{
	size_t llc = flush_llc_bytes();
	size_t bytes = 2 * (llc ? llc : (size_t)64 << 20);
	evict = rot_alloc(bytes);
	if (!evict)
		return -1;
	evict_words = bytes / sizeof *evict;
	return 0;
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
