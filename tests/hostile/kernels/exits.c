/* exits: exits with status 3 in its fifth invocation (with n large enough for one invocation
 * per run: warm-up, calibration, runs 0, 1 and 2), after saying why on stderr. */
#include "hostile.h"
#include <stdio.h>

static void run(void *s)
{
	static int calls;
	busy(*(long *)s);
	if (++calls == 5) {
		for (int i = 0; i < 1000; i++)
			fprintf(stderr, "exits: noise line %d\n", i);
		fprintf(stderr, "exits: giving up: the input is wrong\n");
		exit(3);
	}
}
HOSTILE_KERNEL(exits)
