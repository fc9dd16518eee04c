/* Unit tests for core/pool and rot_alloc: a size whose pages cannot be counted (it would wrap
 * when rounded up to a page) fails cleanly with ENOMEM, never as a small block; an ordinary
 * one is page-aligned and zeroed. */
#include "kernel.h"
#include "pool.h"
#include "tap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

static void too_big(void)
{
	const size_t sizes[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 4094};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		errno = 0;
		void *p = rot_alloc(sizes[i]);
		ok(!p && errno == ENOMEM, "rot_alloc(SIZE_MAX - %zu): NULL with ENOMEM",
		   SIZE_MAX - sizes[i]);
		free(p);
		errno = 0;
		p = pool_alloc(sizes[i]);
		ok(!p && errno == ENOMEM, "pool_alloc(SIZE_MAX - %zu): NULL with ENOMEM",
		   SIZE_MAX - sizes[i]);
		free(p);
	}
}

static void ordinary(void)
{
	unsigned char *p = rot_alloc(10000);
	int zero = p != NULL;
	for (size_t i = 0; p && i < 12288; i++)
		zero &= p[i] == 0;
	ok(p && ((uintptr_t)p & 4095) == 0 && zero, "rot_alloc(10000): aligned, 3 zeroed pages");
	free(p);
	p = rot_alloc(0);
	ok(p && ((uintptr_t)p & 4095) == 0, "rot_alloc(0): a page");
	free(p);
}

int main(void)
{
	too_big();
	ordinary();
	return done_testing();
}
