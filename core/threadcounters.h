/* threadcounters: the counters of a traced kernel's threads: opened on each thread as it is
 * created, read at each run's start and end, scaled when multiplexed, paused and resumed by rules.
 */
#ifndef ROT_THREADCOUNTERS_H
#define ROT_THREADCOUNTERS_H

#include "counters.h"

#include <stdint.h>
#include <sys/types.h>

#define THREADCOUNTERS_MAX_RUNS 100000

/* One thread's counters. */
struct threadcounters_thread {
	int fds[COUNTERS_MAX];
	int counted;
	uint64_t snap[COUNTERS_MAX][3]; /* at run start (or creation) */
	uint64_t last[COUNTERS_MAX][3]; /* final values, read at exit */
	int snap_valid;
};

/* The counters of one child: the events, whether they count now, and per run the counts. */
struct threadcounters {
	struct counters ctr;
	int counting;	 /* on, or paused by a rule */
	int multiplexed; /* a run's counter ran less than it was enabled (its count is scaled) */
	/* per run: scaled counts, smallest running/enabled ratio, whether counting was on */
	double (*runval)[COUNTERS_MAX];
	double *runratio;
	char *runcounting;
	int nruns;
	char err[1024]; /* why the events cannot be counted: the point fails (input) */
};

/* Encodes the events' names. 0, or -1 with tc->err set. */
int threadcounters_setup(struct threadcounters *tc, char names[][128], int n);

/* Opens the counters of a new thread (paused when counting is); 1 when they count, 0 when
 * there are none or they cannot be opened (tc->err then says why). */
int threadcounters_thread_open(struct threadcounters *tc, struct threadcounters_thread *t,
			       pid_t tid);

/* A thread ended: its final values are read and its counters closed. */
void threadcounters_thread_close(const struct threadcounters *tc, struct threadcounters_thread *t);

/* A run starts: the thread's values now (nothing when it is gone). */
void threadcounters_thread_snap(const struct threadcounters *tc, struct threadcounters_thread *t,
				int exited);

/* A run ended: makes room for its counts. 0 when the threads' counts can be added. */
int threadcounters_run_begin(struct threadcounters *tc, int run);

/* Adds what the thread counted in run (scaled to the time the counter was enabled). */
void threadcounters_thread_add(struct threadcounters *tc, struct threadcounters_thread *t, int run,
			       int exited);

/* Pauses or resumes a live thread's counters. */
void threadcounters_thread_enable(const struct threadcounters *tc, struct threadcounters_thread *t,
				  int on);

/* Forgets the runs' counts: a new point. */
void threadcounters_clear_runs(struct threadcounters *tc);

void threadcounters_free(struct threadcounters *tc);

#endif
