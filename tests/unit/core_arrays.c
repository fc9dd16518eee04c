/* Unit tests for kernels/cpu/arrays.h, the kernels' state with its arrays (linked with the core's
 * rot_alloc): an array for each nonzero size, none for 0; the buffers in order, the absent left
 * out, at most max; a failed allocation keeps nothing and says ENOMEM.
 * judges no time */
#include "../../kernels/cpu/arrays.h"
#include "tap.h"

#include <errno.h>
#include <stdint.h>

struct st {
	struct arrays m;
	long n;
};

static void made(void)
{
	struct st *s = arrays_new(sizeof *s, (size_t[]){8, 0, 10000}, 3);
	ok(s && s->m.at[0] && !s->m.at[1] && s->m.at[2] && s->n == 0,
	   "arrays_new: an array for each nonzero size, none for 0, the rest of the state zeroed");
	ok(s && ((uintptr_t)s->m.at[2] & 4095) == 0 && ((unsigned char *)s->m.at[2])[9999] == 0,
	   "arrays_new: the arrays from rot_alloc (page-aligned, zeroed)");
	struct rot_buffer out[3];
	int n = s ? arrays_buffers(s, out, 3) : -1;
	ok(n == 2 && out[0].p == s->m.at[0] && out[0].bytes == 8 && out[1].p == s->m.at[2] &&
	       out[1].bytes == 10000,
	   "arrays_buffers: the arrays in order with their sizes, the absent left out (%d)", n);
	ok(s && arrays_buffers(s, out, 1) == 1 && out[0].bytes == 8, "arrays_buffers: at most max");
	if (s)
		arrays_dispose(s);
}

static void refused(void)
{
	errno = 0;
	struct st *s = arrays_new(sizeof *s, (size_t[]){8, SIZE_MAX}, 2);
	ok(!s && errno == ENOMEM,
	   "arrays_new: an array that cannot be allocated, NULL with ENOMEM");
}

int main(void)
{
	made();
	refused();
	return done_testing();
}
