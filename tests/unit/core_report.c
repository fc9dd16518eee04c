/* Unit tests for core/report: what became of a point as a pure function of its outcome (each
 * failure kind and its words, and which wins), and a result's records with per-run counts.
 * judges no time */
#include "report.h"
#include "tracer.h"
#include "tap.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

static struct failure f;
static char msg[2048];

/* The verdict on o; its failure's words in msg. */
static enum report_verdict decide(struct outcome o)
{
	o.kernel = o.kernel ? o.kernel : "k";
	enum report_verdict v = report_decide(&o, &f);
	msg[0] = '\0';
	if (v == REPORT_FAILED)
		failure_message(&f, msg, sizeof msg);
	return v;
}

static void verdicts(void)
{
	ok(decide((struct outcome){.records = 1, .status = W_EXITCODE(0, 0)}) == REPORT_OK,
	   "records, exit 0, verdict 0: measured");
	ok(decide((struct outcome){.measured = 1, .status = W_EXITCODE(0, SIGKILL)}) == REPORT_OK,
	   "a shared child's measured point: measured, whatever came later");
	ok(decide((struct outcome){.records = 1, .verdict = -1, .status = W_EXITCODE(3, 0)}) ==
	       REPORT_CHILD_FAILED,
	   "the child's own verdict: failed, its records say why");
	ok(decide((struct outcome){.records = 1, .status = W_EXITCODE(2, 0)}) ==
	       REPORT_CHILD_FAILED,
	   "records but a non-zero exit: failed");
	ok(decide((struct outcome){.refused = "event 'X' cannot be counted"}) == REPORT_FAILED &&
	       f.kind == FAILURE_INPUT,
	   "counters refused: input");
	is_str(msg, "event 'X' cannot be counted", "with the counters' reason");
	ok(decide((struct outcome){.follow_err = ENOMEM, .status = W_EXITCODE(0, SIGKILL)}) ==
		   REPORT_FAILED &&
	       f.kind == FAILURE_SETUP,
	   "the tracer's wait failed (the child killed): setup, not the SIGKILL");
	is_str(
	    msg,
	    "the measuring child was killed: waiting for it (poll) failed: Cannot allocate memory",
	    "its words");
	ok(decide((struct outcome){.timed_out = 1, .timeout = 1, .kernel = "hang"}) ==
		   REPORT_FAILED &&
	       f.kind == FAILURE_TIMEOUT,
	   "timed out: timeout");
	is_str(msg, "kernel 'hang' ran past the timeout of 1 s and was killed", "its words");
	decide((struct outcome){.timed_out = 1, .timeout = 2, .stopsig = SIGSTOP});
	is_str(msg,
	       "kernel 'k' ran past the timeout of 2 s and was killed; it had stopped itself with "
	       "Stopped (signal)",
	       "timed out in a stop: says so");
	ok(decide((struct outcome){.leftover = 4711, .records = 1}) == REPORT_FAILED &&
	       f.kind == FAILURE_LEFTOVER,
	   "a leftover process: leftover");
	is_str(msg, "kernel 'k' started a process that outlived it (pid 4711); killed",
	       "its words");
	ok(decide((struct outcome){.status = W_EXITCODE(3, 0), .run = 2, .kernel = "exits"}) ==
		   REPORT_FAILED &&
	       f.kind == FAILURE_EXIT,
	   "an exit without records: exit");
	is_str(msg, "kernel 'exits' exited with status 3 during run 2", "its words");
	decide((struct outcome){.status = W_EXITCODE(0, 0), .run = -1});
	is_str(msg, "kernel 'k' exited with status 0 before the first timed run",
	       "an exit before the runs, even with status 0");
}

static void signals(void)
{
	ok(decide((struct outcome){.status = W_EXITCODE(0, SIGSEGV),
				   .sig_tid = 77,
				   .sig_code = SEGV_MAPERR,
				   .sig_addr = (void *)0x40,
				   .kernel = "segv"}) == REPORT_FAILED &&
	       f.kind == FAILURE_SIGNAL && f.sig == SIGSEGV,
	   "killed by a signal: signal");
	is_str(msg,
	       "kernel 'segv' crashed: Segmentation fault (signal 11) in thread 77 at address 0x40",
	       "a fault: thread and address");
	decide((struct outcome){.status = W_EXITCODE(0, SIGSEGV),
				.sig_tid = 77,
				.sig_code = SI_USER,
				.sig_from = 77,
				.sig_from_kernel = 1});
	is_str(msg,
	       "kernel 'k' was killed by Segmentation fault (signal 11), raised by itself in "
	       "thread 77",
	       "a SIGSEGV the kernel sent itself: no address");
	decide((struct outcome){.status = W_EXITCODE(0, SIGABRT),
				.sig_tid = 5,
				.sig_code = SI_TKILL,
				.sig_from = 5,
				.sig_from_kernel = 1});
	is_str(msg, "kernel 'k' was killed by Aborted (signal 6), raised by itself in thread 5",
	       "abort(): raised by itself");
	decide((struct outcome){.status = W_EXITCODE(0, SIGTERM),
				.sig_tid = 5,
				.sig_code = SI_USER,
				.sig_from = 999,
				.sig_uid = 1000});
	is_str(msg,
	       "kernel 'k' was killed by Terminated (signal 15), sent by process 999 (uid 1000)",
	       "sent by another process");
	decide((struct outcome){
	    .status = W_EXITCODE(0, SIGXCPU), .sig_tid = 5, .sig_code = SI_KERNEL});
	is_str(
	    msg,
	    "kernel 'k' was killed by CPU time limit exceeded (signal 24), sent by the operating "
	    "system",
	    "sent by the operating system");
	decide((struct outcome){.status = W_EXITCODE(0, SIGKILL)});
	is_str(msg,
	       "kernel 'k' was killed by Killed (signal 9) from outside (the sender of a SIGKILL "
	       "cannot "
	       "be seen)",
	       "no delivery seen: from outside");
}

static void precedence(void)
{
	decide((struct outcome){.refused = "r", .timed_out = 1, .leftover = 1});
	ok(f.kind == FAILURE_INPUT, "refused counters come first");
	decide((struct outcome){.timed_out = 1, .leftover = 1, .status = W_EXITCODE(0, SIGKILL)});
	ok(f.kind == FAILURE_TIMEOUT, "then the timeout (its kill is no signal failure)");
	decide((struct outcome){.leftover = 1, .measured = 1});
	ok(f.kind == FAILURE_LEFTOVER, "then a leftover, even for a measured point");
}

/* What report_copy_records writes for text. */
static char *copied(const char *text, const struct threadcounters *tc)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	report_copy_records(f, text, strlen(text), tc);
	fclose(f);
	return out;
}

static void copy_records(void)
{
	struct threadcounters tc = {.ctr = {.n = 2}, .nruns = 2};
	double val[2][COUNTERS_MAX] = {{1000, 20}, {3000.4, 40}};
	double ratio[2] = {1, 0.25};
	char counting[2] = {1, 0};
	tc.runval = val;
	tc.runratio = ratio;
	tc.runcounting = counting;
	const char *text =
	    "meta a 1\nrun ns=5 reps=1\nmeta b 2\nrun ns=6 reps=1\nrun ns=7 reps=1\n";
	char *out = copied(text, &tc);
	is_str(out,
	       "meta a 1\nrun ns=5 reps=1 e0=1000 e1=20 counting=1\nmeta b 2\n"
	       "run ns=6 reps=1 e0=3000 e1=40 counting=0 mux=0.2500\nrun ns=7 reps=1\n",
	       "each run line gets its run's counts, counting, and the multiplexing ratio");
	free(out);
	struct threadcounters none = {0};
	out = copied(text, &none);
	is_str(out, text, "without counters the records are copied as they are");
	free(out);
	out = copied("run ns=1", &tc);
	is_str(out, "run ns=1 e0=1000 e1=20 counting=1\n", "a last line without a newline");
	free(out);
}

static void point(void)
{
	struct tracee *tr = calloc(1, sizeof *tr);
	struct outcome o;
	char *text = NULL;
	size_t len = 0;
	tr->rec.text = strdup("meta kernel k\nrun ns=5\n");
	tr->rec.len = strlen(tr->rec.text);
	tr->th.n = 2;
	tr->th.created = tr->th.exited = 1;
	tr->th.t[0] = (struct thread){.tid = 10, .index = 0, .state = T_RUNNING};
	tr->th.t[1] = (struct thread){.tid = 11, .index = 1, .state = T_EXITED};
	eventlog_add(&tr->events, EV_THREAD_CREATED, -1, 1, NULL);
	eventlog_add(&tr->events, EV_RUN_END, 0, -1, "marker=x");
	errtail_add(&tr->err, "oops\n", 5);
	FILE *out = open_memstream(&text, &len);
	o = (struct outcome){.kernel = "k", .records = 1};
	int rc = report_point(out, tr, &o);
	fclose(out);
	ok(rc == 0, "a measured point reports 0");
	is_str(text,
	       "meta kernel k\nrun ns=5\nmeta threadsCreated 1\nmeta threadsExited 1\n"
	       "meta threadsCounted 0\nmeta threadTable 0:running,1:exited\n"
	       "meta events threadCreated/thread=1;runEnd/run=0/marker=x\nstderr oops\nstatus ok\n",
	       "its result: records, thread table, events, stderr, status");
	free(text);
	free(tr->rec.text);
	free(tr);
}

int main(void)
{
	verdicts();
	signals();
	precedence();
	copy_records();
	point();
	return done_testing();
}
