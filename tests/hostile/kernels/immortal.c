/* immortal: starts a thread that never ends (and is never joined). */
#include "hostile.h"
#include <pthread.h>
#include <unistd.h>

static void *forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void run(void *s)
{
	static int started;
	pthread_t t;
	if (!started++)
		pthread_create(&t, NULL, forever, NULL);
	busy(*(long *)s);
}
HOSTILE_KERNEL(immortal)
