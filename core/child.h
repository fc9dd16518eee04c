/* child: the traced child: forked, stopped under PTRACE_TRACEME with the tracing options set,
 * and what it runs: points measured one after another, each one's records announced. */
#ifndef ROT_CHILD_H
#define ROT_CHILD_H

#include "measure.h"

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

/* Forks a child that measures ps[first..last] and waits for it to stop under ptrace, with
 * PTRACE_O_TRACECLONE | FORK | VFORK | EXEC | EXIT | EXITKILL set; old is the signal mask it
 * runs with. Returns its pid with *errfd the non-blocking read end of its stderr, or -1 after
 * writing the failure (setup) to out. */
pid_t child_start(struct point *ps, int first, int last, const sigset_t *old, int *errfd,
		  FILE *out);

/* Kills a child that never ran and waits for it. */
void child_end(pid_t pid);

#endif
