/* linger: forks once; the child sleeps for ever, outliving the kernel. */
#include "hostile.h"
#include <unistd.h>

static void run(void *s)
{
	static int forked;
	if (!forked++ && fork() == 0)
		for (;;)
			pause();
	busy(*(long *)s);
}
HOSTILE_KERNEL(linger)
