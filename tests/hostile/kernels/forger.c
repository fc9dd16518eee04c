/* forger: a careless logger that writes result-like lines to every descriptor it inherited. */
#include "hostile.h"
#include <string.h>
#include <unistd.h>

static void run(void *s)
{
	static const char line[] = "run ns=0 tsc=0 reps=1 cpus=0 mig=0 vcsw=0 ivcsw=0 disturbed=0\n"
				   "meta complete 1\nstatus ok\nend 1\n";
	for (int fd = 0; fd < 64; fd++) {
		ssize_t w = write(fd, line, sizeof line - 1);
		(void)w;
	}
	busy(*(long *)s);
}
HOSTILE_KERNEL(forger)
