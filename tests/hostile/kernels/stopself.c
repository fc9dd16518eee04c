/* stopself: sends itself SIGSTOP. */
#include "hostile.h"
#include <signal.h>

static void run(void *s)
{
	raise(SIGSTOP);
	busy(*(long *)s);
}
HOSTILE_KERNEL(stopself)
