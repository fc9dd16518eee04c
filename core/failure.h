/* failure: the kinds of a failed point (protocol.h's PROTOCOL_FAILURES) as one enum, and the
 * one place that words them: status failed, error MESSAGE, meta failure KIND, meta hint. */
#ifndef ROT_FAILURE_H
#define ROT_FAILURE_H

#include "protocol.h"

#include <stddef.h>
#include <stdio.h>

enum failure_kind {
#define X(id, name, meaning) FAILURE_##id,
	PROTOCOL_FAILURES(X)
#undef X
	    FAILURE_COUNT
};

/* Where the signal that ended a kernel came from. */
enum failure_sender {
	FAILURE_FAULT,	 /* the CPU raised it in a thread (SIGSEGV, ...): with the address */
	FAILURE_SELF,	 /* the kernel raised or sent it itself (abort, raise, kill) */
	FAILURE_PROCESS, /* another process sent it */
	FAILURE_OS,	 /* the operating system sent it */
	FAILURE_UNSEEN,	 /* no siginfo: a SIGKILL from outside */
};

/* A failed point: the kind and what its wording needs (the fields of other kinds are unused). */
struct failure {
	enum failure_kind kind;
	const char *kernel;  /* signal, timeout, leftover, exit: the kernel's name */
	const char *message; /* input, nodevice, kernel, profile: the message; setup: what failed */
	int err;	     /* setup: the errno of what failed (0: none) */
	const char *hint;    /* what to do about it, or NULL */
	int sig;	     /* signal: the signal */
	enum failure_sender sender;
	int tid;	/* signal: the thread it hit */
	void *addr;	/* signal, FAILURE_FAULT: the faulting address */
	int pid;	/* signal, FAILURE_PROCESS: the sender; leftover: the process */
	int uid;	/* signal, FAILURE_PROCESS: the sender's user */
	double timeout; /* timeout: in seconds */
	int stopsig;	/* timeout: the stop signal the kernel sat in (0: none) */
	int status;	/* exit: the exit status */
	int run;	/* exit: the run in progress (-1: before the first timed run) */
	int app;	/* an application's invocation (kernel: its name; run: the invocation) */
};

/* The hint of a refused PTRACE_TRACEME. */
extern const char failure_hint_ptrace[];

/* The kind's name in `meta failure KIND`. */
const char *failure_kind_name(enum failure_kind k);

/* The error message of f, in words for the user (one line) into buf. */
void failure_message(const struct failure *f, char *buf, size_t len);

/* Writes "status failed", then what failure_write_error writes. */
void failure_write(FILE *out, const struct failure *f);

/* Writes "error MESSAGE", "meta failure KIND", kind-specific meta lines (meta signal N) and
 * "meta hint HINT" when there is one (a message's own "\nhint: ..." tail becomes the hint):
 * what the measuring child writes, its tracer adding the status. */
void failure_write_error(FILE *out, const struct failure *f);

#endif
