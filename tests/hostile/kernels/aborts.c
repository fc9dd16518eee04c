/* aborts: calls abort() in its first timed run. */
#include "hostile.h"

static void run(void *s)
{
	static int calls;
	if (++calls > 2)
		abort();
	busy(*(long *)s);
}
HOSTILE_KERNEL(aborts)
