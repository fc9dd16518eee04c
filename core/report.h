/* report: writes a point's result: the child's records with each run's counts, the thread
 * table, the event log, the kernel's last stderr lines, and what became of the point. */
#ifndef ROT_REPORT_H
#define ROT_REPORT_H

#include "failure.h"
#include "threadcounters.h"

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* What the measuring child wrote for its point, read out of its memory. */
struct records {
	char *text; /* NULL: none came */
	size_t len;
	int rc; /* the child's verdict on the point (0: measured) */
};

/* Everything that decides what became of a point, taken from its tracer. */
struct outcome {
	const char *kernel;  /* the name of the point's (first) kernel, or its application's */
	int app;	     /* an application's invocation */
	const char *refused; /* why its counters could not count, or NULL */
	int follow_err;	     /* the errno of the tracer's failed wait: the child was killed */
	int timed_out;
	double timeout;
	int stopsig;	     /* the stop signal the kernel sat in when its time ran out (0: none) */
	pid_t leftover;	     /* a process it started that outlived it (0: none) */
	int measured;	     /* a shared child: records with verdict 0, and it waits for the next */
	int status;	     /* the wait status of the kernel's process */
	int records;	     /* its records came */
	int verdict;	     /* the child's verdict on the point (0: measured) */
	int run;	     /* the timed run in progress when it ended (-1: before the first) */
	pid_t sig_tid;	     /* the signal that ended it: the thread it hit first (0: not seen) */
	int sig_code;	     /* its si_code (> 0: raised by the kernel of the OS, <= 0: sent) */
	void *sig_addr;	     /* a fault's address */
	pid_t sig_from;	     /* who sent it, */
	int sig_uid;	     /* as whom, */
	int sig_from_kernel; /* and whether the sender was the kernel's own process */
};

enum report_verdict {
	REPORT_OK,	     /* measured */
	REPORT_FAILED,	     /* failed: f says how */
	REPORT_CHILD_FAILED, /* failed, and the child's records say how */
};

/* What became of the point: a pure function of the outcome. */
enum report_verdict report_decide(const struct outcome *o, struct failure *f);

/* Copies the child's records, adding to each run line that run's counts (" eI=COUNT",
 * " counting=0|1", " mux=RATIO" when multiplexed). */
void report_copy_records(FILE *out, const char *text, size_t len, const struct threadcounters *tc);

struct tracee;

/* Writes the result of tr's point in progress, whose outcome is o (tracer_outcome); returns 0
 * when it was measured. */
int report_point(FILE *out, const struct tracee *tr, const struct outcome *o);

#endif
