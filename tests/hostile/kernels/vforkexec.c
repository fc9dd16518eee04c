/* vforkexec: vforks once; the child execs /bin/true, which is waited for. */
#include "hostile.h"
#include <sys/wait.h>
#include <unistd.h>

static void run(void *s)
{
	static int forked;
	if (!forked++) {
		pid_t pid = vfork();
		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	busy(*(long *)s);
}
HOSTILE_KERNEL(vforkexec)
