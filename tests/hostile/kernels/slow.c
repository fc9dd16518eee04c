/* slow: a busy loop of n iterations (a sweep long enough to be interrupted). */
#include "hostile.h"

static void run(void *s)
{
	busy(*(long *)s);
}
HOSTILE_KERNEL(slow)
