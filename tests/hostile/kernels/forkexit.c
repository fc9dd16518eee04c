/* forkexit: forks once; the child exits at once and is waited for. */
#include "hostile.h"
#include <sys/wait.h>
#include <unistd.h>

static void run(void *s)
{
	static int forked;
	if (!forked++) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	busy(*(long *)s);
}
HOSTILE_KERNEL(forkexit)
