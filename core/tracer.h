/* tracer: follows a traced child with ptrace: starts it stopped, keeps the tables of its threads
 * and of the processes it starts, handles their wait statuses, its timeout and its kills. */
#ifndef ROT_TRACER_H
#define ROT_TRACER_H

#include "tails.h"
#include "eventlog.h"
#include "measure.h"
#include "report.h"
#include "sampler.h"
#include "threadcounters.h"

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#define TRACER_MAX_THREADS 1024
#define TRACER_MAX_PROCS 256

enum thread_state { T_NEW, T_RUNNING, T_EXITED };

/* A thread of the kernel's process. */
struct thread {
	pid_t tid;
	int index; /* creation order, main thread 0 */
	enum thread_state state;
	struct threadcounters_thread c;
	/* what it ran and waited on a run queue (ns): at the point's start, and at its exit */
	uint64_t run0, wait0, run, wait;
};

/* The kernel's process's threads, and what became of them during the point. */
struct threads {
	struct thread t[TRACER_MAX_THREADS];
	int n, created, exited, counted;
};

/* A process the kernel started (fork, vfork, or a thread of one), traced like the kernel. */
struct other {
	pid_t tid;
	int alive; /* 1: seen, 2: its first stop passed, 0: gone */
};

struct others {
	struct other o[TRACER_MAX_PROCS];
	int n, forks;
};

/* A traced child that measures points first..last of a batch, one at a time. */
struct tracee {
	pid_t pid;
	const struct point *p; /* the point in progress */
	int point, last;       /* its index, the last one this child measures */
	struct threads th;
	struct others ot;
	struct threadcounters tc;
	struct records rec;	 /* the point's records, read from the child's memory */
	struct errtail err;	 /* what the kernel wrote to stderr */
	struct eventlog events;	 /* what happened, for the result */
	pid_t leftover;		 /* a process still alive when the kernel's process ended */
	int stopped;		 /* the kernel's process sat in a group stop (this signal) */
	int run;		 /* the timed run in progress, -1 before the first */
	int main_done, p_status; /* the kernel's process ended, with this wait status */
	siginfo_t info[65];	 /* the first delivery of each signal, and its thread */
	pid_t info_tid[65];
	int measured;	/* the point's records came with a 0 verdict and the child waits */
	pid_t handoff;	/* the thread left stopped after a measured point, the next to come */
	int follow_err; /* the errno of a failed poll: the child was killed (0: none) */
	int stuck; /* a task killed after a failed poll did not go: no later point is measured */
	/* an application's invocation (app.c) */
	int app;   /* its signals are its own: none is an event of rot's */
	int outfd; /* its stdout, drained into out (-1: none) */
	struct outtail *out;
	struct sampler *smp; /* its sampling (NULL: none), read while it runs */
};

/* Takes on a child child_start or child_fork started (pid; -1: it did not start, and said why):
 * its main thread in the table. Returns its pid, or -1 after writing the failure of the point
 * to out (its counters cannot be opened: the child is ended). *errfd: the read end of its
 * stderr pipe. */
pid_t tracer_start(struct tracee *tr, pid_t pid, int *errfd, FILE *out);

/* Follows the child until all its tasks are gone, or (tr->handoff set) its point is measured and
 * it waits for the next: SIGCHLD through the signalfd sfd, the timeout through a timerfd, the
 * kernel's stderr through errfd. What the kernel started and left running when its process
 * ended is killed and named. Returns 1 when the timeout fired. When the waiting itself fails
 * (poll), the child and all it started are killed and reaped (for 5 s at most: a task that
 * does not go is left, and tr->stuck set), their counters closed, and tr->follow_err says why. */
int tracer_follow(struct tracee *tr, int sfd, int errfd);

/* Kills the child's process group and every process it started. */
void tracer_kill_all(struct tracee *tr);

/* Kills every process the kernel started that is still alive, naming the first as leftover. */
void tracer_kill_leftovers(struct tracee *tr);

/* A thread of the child, other than the stopped main one, still running or runnable after its
 * point, in two looks 2 ms apart (a sleeping one, such as CUDA's helpers, does not disturb the
 * next; one on its way to sleep is not counted): its index, or -1. */
int tracer_busy_thread(const struct tracee *tr);

/* Clears what belongs to one point, keeping the child's live threads (renumbered, the main one
 * first) and their counters: p, point `index`, is next. */
void tracer_reset_point(struct tracee *tr, const struct point *p, int index);

/* Whether no later point may be measured, and why (a task killed after a failed poll did not
 * exit: waiting for it would never end): 1 with f filled, else 0. */
int tracer_refuses(const struct tracee *tr, struct failure *f);

/* What became of the point in progress, for report_decide. */
void tracer_outcome(const struct tracee *tr, int timed_out, struct outcome *o);

#endif
