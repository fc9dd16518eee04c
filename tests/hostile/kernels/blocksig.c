/* blocksig: blocks every signal in its first run. */
#include "hostile.h"
#include <signal.h>

static void run(void *s)
{
	static int done;
	if (!done++) {
		sigset_t all;
		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, NULL);
	}
	busy(*(long *)s);
}
HOSTILE_KERNEL(blocksig)
