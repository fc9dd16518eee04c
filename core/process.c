/* process: measures a batch's points in traced children, point after point: a fresh child
 * for a point, or one shared by a run of points while they succeed, each point reported. */
#define _GNU_SOURCE
#include "process.h"
#include "app.h"
#include "child.h"
#include "report.h"
#include "tracer.h"

#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* What process_measure keeps from point to point. */
struct session {
	struct tracee *tr;
	int sfd;       /* SIGCHLD, blocked, through a signalfd */
	int errfd;     /* the child's stderr */
	int setup_err; /* the errno of a set-up that failed (0: set up) */
	int refused;   /* the counters cannot count: every point says why */
	sigset_t old;  /* the signal mask before, the children's */
};

static void session_open(struct session *s, struct point *ps, int n)
{
	sigset_t chld;
	memset(s, 0, sizeof *s);
	s->sfd = s->errfd = -1;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &s->old); /* before fork: no SIGCHLD is lost */
	errno = 0;
	/* the tracee (0.9 MB, mostly the thread table) from fresh zero pages: only the pages a
	 * point uses are faulted in (calloc would clear all of them, and after every fork each
	 * write to a page faults, which is slow in a virtual machine) */
	void *tr =
	    mmap(NULL, sizeof *s->tr, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!measure_run_slot) { /* once for the core's life: its children say their run there */
		void *slot =
		    mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		measure_run_slot = slot == MAP_FAILED ? NULL : slot;
	}
	if (measure_run_slot)
		*measure_run_slot = -1;
	s->tr = tr == MAP_FAILED ? NULL : tr;
	if (!s->tr || (s->sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		s->setup_err = errno ? errno : ENOMEM;
		return;
	}
	if (n > 0 && ps[0].ncounters && !app_point(&ps[0])) /* an application counts its own */
		s->refused = threadcounters_setup(&s->tr->tc, (char(*)[128])ps[0].counter_names,
						  ps[0].ncounters) < 0;
}

static void session_close(struct session *s)
{
	if (s->errfd >= 0)
		close(s->errfd);
	if (s->sfd >= 0)
		close(s->sfd);
	sigprocmask(SIG_SETMASK, &s->old, NULL);
	if (s->tr) {
		threadcounters_free(&s->tr->tc);
		free(s->tr->rec.text);
		munmap(s->tr, sizeof *s->tr);
	}
	s->tr = NULL;
}

/* A shared child measured its point and waits: what the point started is killed (and named);
 * when that was something, or a thread of the point still runs, the child goes too. */
static void after_handoff(struct session *s, FILE *out)
{
	struct tracee *tr = s->tr;
	int busy = -1;
	tracer_kill_leftovers(tr);
	if (!tr->leftover && (busy = tracer_busy_thread(tr)) >= 0)
		protocol_meta(
		    out, META_CHILD_ENDED,
		    "thread %d of the point was still running: a fresh child measures the "
		    "next point",
		    busy);
	if (tr->leftover || busy >= 0) {
		tracer_kill_all(tr);
		ptrace(PTRACE_CONT, tr->handoff, NULL, NULL);
		tr->handoff = 0;
		tracer_follow(tr, s->sfd, s->errfd);
		tr->handoff = 0;
	}
}

/* Measures ps[i] of ps[0..n), in a fresh child when none waits, and writes its result to out;
 * returns 1 when it failed. */
static int measure_one(struct session *s, struct point *ps, int n, int i, FILE *out)
{
	struct tracee *tr = s->tr;
	struct outcome o;
	if (s->setup_err) {
		failure_write(out, &(struct failure){.kind = FAILURE_SETUP,
						     .message = "cannot set up the child",
						     .err = s->setup_err});
		return 1;
	}
	if (s->refused) {
		failure_write(out, &(struct failure){.kind = FAILURE_INPUT, .message = tr->tc.err});
		return 1;
	}
	struct failure f;
	if (tracer_refuses(tr, &f)) {
		failure_write(out, &f);
		return 1;
	}
	if (app_point(&ps[i]))
		return app_measure(&ps[i], tr, s->sfd, &s->old, out);
	if (!tr->pid) { /* a fresh child for the points from here on */
		tracer_reset_point(tr, &ps[i], i);
		tr->last = n - 1;
		tr->tc.counting = 1;
		pid_t pid = child_start(ps, i, n - 1, &s->old, &s->errfd, out);
		if (tracer_start(tr, pid, &s->errfd, out) < 0)
			return 1;
		ptrace(PTRACE_CONT, tr->pid, NULL, NULL);
	}
	int timed_out = tracer_follow(tr, s->sfd, s->errfd);
	if (tr->handoff)
		after_handoff(s, out);
	tracer_outcome(tr, timed_out, &o);
	int failed = report_point(out, tr, &o);
	if (!tr->handoff || i + 1 >= n) { /* gone: the next point gets a fresh child */
		tr->pid = 0;
		if (s->errfd >= 0)
			close(s->errfd);
		s->errfd = -1;
	}
	return failed;
}

/* The same child goes on with ps[i + 1], once ps[i]'s result is out: a next point that kills
 * the core (or the machine) must not take an earlier point's result with it. */
static void resume_next(struct session *s, struct point *ps, int n, int i)
{
	struct tracee *tr = s->tr;
	if (!tr || !tr->pid || !tr->handoff || i + 1 >= n)
		return;
	pid_t resume = tr->handoff;
	tracer_reset_point(tr, &ps[i + 1], i + 1);
	ptrace(PTRACE_CONT, resume, NULL, NULL);
}

int process_can_share(const struct point *a, const struct point *b)
{
	if (!a->shared || !b->shared || a->ncounters != b->ncounters || app_point(a) ||
	    app_point(b))
		return 0;
	for (int i = 0; i < a->ncounters; i++)
		if (strcmp(a->counter_names[i], b->counter_names[i]) != 0)
			return 0;
	return 1;
}

int process_measure(struct point *ps, int n, process_done done, void *ctx)
{
	struct session s;
	int rc = 0;
	session_open(&s, ps, n);
	for (int i = 0; i < n; i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);
		if (!out) {
			rc = 1;
			break;
		}
		int failed = measure_one(&s, ps, n, i, out);
		fclose(out);
		done(ctx, i, text, len, failed);
		free(text);
		resume_next(&s, ps, n, i);
		rc |= failed;
	}
	session_close(&s);
	return rc;
}
