/* app: an application point: its program run again and again until best-k holds, each
 * invocation a fresh traced child with rot's marker recorder preloaded; what each invocation
 * did (its time, what it used, its regions) is written as it ends, and a failure named. */
#ifndef ROT_APP_H
#define ROT_APP_H

#include "measure.h"
#include "tracer.h"

#include <signal.h>
#include <stdio.h>

/* Whether p is an application point. */
static inline int app_point(const struct point *p)
{
	return p->app.path >= 0 && p->nw == 0;
}

/*
 * Measures the application point p: invocation after invocation (at least p->rule.min_runs,
 * at most max_runs, until best-k holds for the program's time and every region of at least 1 %
 * of it), each in a fresh child of tr forked with signal mask old and followed through sfd
 * (SIGCHLD). Writes its records (a run and its regions per invocation, meta lines, status) to
 * out; at the first invocation that fails (a crash, the timeout, an exit status other than 0,
 * a process left running, misused markers) the records so far, its stderr and why. Returns 0
 * when it was measured, 1 otherwise.
 */
int app_measure(const struct point *p, struct tracee *tr, int sfd, const sigset_t *old, FILE *out);

#endif
