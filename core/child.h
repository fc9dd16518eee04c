/* child: the traced child: forked, stopped under PTRACE_TRACEME with the tracing options set,
 * and what it runs: points measured one after another, each one's records announced, or (an
 * application point) the plan's program. */
#ifndef ROT_CHILD_H
#define ROT_CHILD_H

#include "measure.h"

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#define CHILD_KEEP 2

/* What a traced child runs once it stopped for its tracer (run never returns), with its stdout
 * on out_fd (-1: /dev/null) and keep[i] as descriptor 3 + i (close-on-exec where cloexec[i]). */
struct child_plan {
	void (*run)(void *ctx);
	void *ctx;
	int out_fd;
	int keep[CHILD_KEEP], cloexec[CHILD_KEEP], nkeep;
};

/* Forks a child that runs plan and waits for it to stop under ptrace (as child_start). */
pid_t child_fork(const struct child_plan *plan, const sigset_t *old, int *errfd, FILE *out);

/* Forks a child that measures ps[first..last] and waits for it to stop under ptrace, with
 * PTRACE_O_TRACECLONE | FORK | VFORK | EXEC | EXIT | EXITKILL set; old is the signal mask it
 * runs with. Returns its pid with *errfd the non-blocking read end of its stderr, or -1 after
 * writing the failure (setup) to out. */
pid_t child_start(struct point *ps, int first, int last, const sigset_t *old, int *errfd,
		  FILE *out);

/* Kills a child that never ran and waits for it. */
void child_end(pid_t pid);

#endif
