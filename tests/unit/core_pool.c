/* Unit tests for core/pool and rot_alloc: a size whose pages cannot be counted (it would wrap
 * when rounded up to a page) fails cleanly with ENOMEM, never as a small block; an ordinary
 * one is page-aligned and zeroed; blocks allocated one after another are never back to back.
 * judges no time */
#include "kernel.h"
#include "pool.h"
#include "tap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

static void too_big(void)
{
	const size_t sizes[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 4094, SIZE_MAX - 4095};
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

/* A kernel's arrays of a power-of-two size placed back to back (b exactly where a ends) stream
 * from DRAM at half speed: triad's three 256 MiB arrays did, in rot's pool. */
static void apart(void)
{
	const size_t mib = 1 << 20;
	char *a = rot_alloc(mib), *b = rot_alloc(mib), *c = rot_alloc(mib);
	int owned = pool_owns(a) && pool_owns(b) && pool_owns(c);
	uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b, pc = (uintptr_t)c;
	ok(owned && pb >= pa + mib + 4096 && pc >= pb + mib + 4096 && (pb - pa) % 4096 == 0,
	   "three 1 MiB blocks in a row: each a page or more past the end of the one before (%ld, "
	   "%ld bytes apart)",
	   (long)(pb - pa), (long)(pc - pb));
	a[0] = 1, a[mib - 1] = 2;
	char *big = realloc(a, mib);
	ok((uintptr_t)big == pa, "realloc to the size asked for keeps the block");
	big = realloc(big, mib + 1);
	ok(big && (uintptr_t)big != pa && big[0] == 1 && big[mib - 1] == 2,
	   "realloc a byte past it moves the block, its bytes with it (the page after it is not "
	   "its room)");
	free(big), free(b), free(c);
}

int main(void)
{
	too_big();
	ordinary();
	apart();
	return done_testing();
}
