/* Unit tests for core/failure: the words of every failure kind, and the record lines a failure
 * becomes (status, error, meta failure, meta signal, meta hint).
 * judges no time */
#include "failure.h"
#include "tap.h"

#include <signal.h>
#include <errno.h>
#include <stdlib.h>

static char msg[2048];

static const char *words(struct failure f)
{
	failure_message(&f, msg, sizeof msg);
	return msg;
}

/* The record lines failure_write writes for f. */
static char *lines(struct failure f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	failure_write(out, &f);
	fclose(out);
	return text;
}

static void kinds(void)
{
	const char *names[FAILURE_COUNT] = {"input", "nodevice", "signal",  "timeout", "leftover",
					    "exit",  "kernel",	 "profile", "setup",   "markers"};
	int same = 1;
	for (int k = 0; k < FAILURE_COUNT; k++)
		same &= strcmp(failure_kind_name((enum failure_kind)k), names[k]) == 0;
	ok(FAILURE_COUNT == 10 && same, "the kinds, in protocol.h's order: input nodevice signal "
					"timeout leftover exit kernel profile setup markers");
	is_str(failure_kind_name(FAILURE_COUNT), "?", "no name beyond them");
}

static void signals(void)
{
	is_str(
	    words((struct failure){.kind = FAILURE_SIGNAL,
				   .kernel = "segv",
				   .sig = SIGSEGV,
				   .sender = FAILURE_FAULT,
				   .tid = 4242,
				   .addr = (void *)0x40}),
	    "kernel 'segv' crashed: Segmentation fault (signal 11) in thread 4242 at address 0x40",
	    "a fault: signal, thread and address");
	is_str(words((struct failure){.kind = FAILURE_SIGNAL,
				      .kernel = "aborts",
				      .sig = SIGABRT,
				      .sender = FAILURE_SELF,
				      .tid = 7}),
	       "kernel 'aborts' was killed by Aborted (signal 6), raised by itself in thread 7",
	       "raised by the kernel itself");
	is_str(words((struct failure){.kind = FAILURE_SIGNAL,
				      .kernel = "k",
				      .sig = SIGTERM,
				      .sender = FAILURE_PROCESS,
				      .pid = 99,
				      .uid = 1000}),
	       "kernel 'k' was killed by Terminated (signal 15), sent by process 99 (uid 1000)",
	       "sent by another process");
	is_str(
	    words((struct failure){
		.kind = FAILURE_SIGNAL, .kernel = "k", .sig = SIGXCPU, .sender = FAILURE_OS}),
	    "kernel 'k' was killed by CPU time limit exceeded (signal 24), sent by the operating "
	    "system",
	    "sent by the operating system");
	is_str(
	    words((struct failure){
		.kind = FAILURE_SIGNAL, .kernel = "k", .sig = SIGKILL, .sender = FAILURE_UNSEEN}),
	    "kernel 'k' was killed by Killed (signal 9) from outside (the sender of a SIGKILL "
	    "cannot be seen)",
	    "a SIGKILL from outside");
}

static void others(void)
{
	is_str(words((struct failure){.kind = FAILURE_TIMEOUT, .kernel = "hang", .timeout = 1}),
	       "kernel 'hang' ran past the timeout of 1 s and was killed", "the timeout");
	is_str(
	    words((struct failure){
		.kind = FAILURE_TIMEOUT, .kernel = "s", .timeout = 0.3, .stopsig = SIGSTOP}),
	    "kernel 's' ran past the timeout of 0.3 s and was killed; it had stopped itself with "
	    "Stopped (signal)",
	    "the timeout of a kernel that stopped itself");
	is_str(words((struct failure){.kind = FAILURE_LEFTOVER, .kernel = "linger", .pid = 321}),
	       "kernel 'linger' started a process that outlived it (pid 321); killed",
	       "a leftover process");
	is_str(
	    words((struct failure){.kind = FAILURE_EXIT, .kernel = "exits", .status = 3, .run = 2}),
	    "kernel 'exits' exited with status 3 during run 2", "an exit during a run");
	is_str(words((struct failure){.kind = FAILURE_EXIT, .kernel = "e", .status = 1, .run = -1}),
	       "kernel 'e' exited with status 1 before the first timed run",
	       "an exit before the runs");
	is_str(words((struct failure){.kind = FAILURE_SETUP, .message = "fork", .err = EAGAIN}),
	       "fork: Resource temporarily unavailable", "a setup step with its errno");
	is_str(words((struct failure){.kind = FAILURE_SETUP, .message = "out of memory"}),
	       "out of memory", "a setup message without errno");
	is_str(words((struct failure){.kind = FAILURE_NODEVICE, .message = "no CUDA device: x"}),
	       "no CUDA device: x", "nodevice: its message");
}

/* An application's invocation is worded as the application's, an exit with its invocation. */
static void apps(void)
{
	is_str(
	    words((struct failure){.kind = FAILURE_SIGNAL,
				   .kernel = "solver",
				   .app = 1,
				   .sig = SIGSEGV,
				   .sender = FAILURE_FAULT,
				   .tid = 77,
				   .addr = NULL}),
	    "application 'solver' crashed: Segmentation fault (signal 11) in thread 77 at address "
	    "(nil)",
	    "an application's crash");
	is_str(words((struct failure){
		   .kind = FAILURE_EXIT, .kernel = "solver", .app = 1, .status = 2, .run = 0}),
	       "application 'solver' exited with status 2 in invocation 1",
	       "an application's exit status, with its invocation (counted from 1)");
	is_str(
	    words((struct failure){.kind = FAILURE_TIMEOUT, .kernel = "s", .app = 1, .timeout = 2}),
	    "application 's' ran past the timeout of 2 s and was killed", "its timeout");
	is_str(words((struct failure){.kind = FAILURE_LEFTOVER, .kernel = "d", .app = 1, .pid = 9}),
	       "application 'd' started a process that outlived it (pid 9); killed",
	       "a process it left running");
	is_str(words((struct failure){.kind = FAILURE_MARKERS, .message = "region 'r' ended"}),
	       "region 'r' ended", "misused markers: their message");
}

static void records(void)
{
	char *t =
	    lines((struct failure){.kind = FAILURE_INPUT, .message = "unknown input key 'x'"});
	is_str(t, "status failed\nerror unknown input key 'x'\nmeta failure input\n",
	       "input: status, error, kind");
	free(t);
	t = lines((struct failure){
	    .kind = FAILURE_SIGNAL, .kernel = "k", .sig = SIGKILL, .sender = FAILURE_UNSEEN});
	ok(strstr(t, "\nmeta failure signal\nmeta signal 9\n") != NULL, "a signal: its number too");
	free(t);
	t = lines((struct failure){.kind = FAILURE_SETUP,
				   .message = "ptrace(PTRACE_TRACEME) was refused",
				   .err = EPERM,
				   .hint = failure_hint_ptrace});
	is_str(t,
	       "status failed\nerror ptrace(PTRACE_TRACEME) was refused: Operation not permitted\n"
	       "meta failure setup\nmeta hint allow tracing one's own children: sysctl "
	       "kernel.yama.ptrace_scope=1 (or 0), or run the container with --cap-add=SYS_PTRACE "
	       "and without a seccomp profile that blocks ptrace\n",
	       "ptrace refused: the error and what to set");
	free(t);
	t = lines((struct failure){.kind = FAILURE_PROFILE,
				   .message = "cuptiX: denied\nhint: load the driver with Y"});
	is_str(t,
	       "status failed\nerror cuptiX: denied\nmeta failure profile\nmeta hint load the "
	       "driver with Y\n",
	       "a message's own hint line becomes meta hint: every record stays one line");
	free(t);
	t = lines((struct failure){.kind = FAILURE_KERNEL, .message = "a\nb"});
	is_str(t, "status failed\nerror a b\nmeta failure kernel\n", "another newline: a space");
	free(t);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	failure_write_error(out, &(struct failure){.kind = FAILURE_KERNEL, .message = "init"});
	fclose(out);
	is_str(text, "error init\nmeta failure kernel\n", "the child's part: no status line");
	free(text);
}

int main(void)
{
	kinds();
	signals();
	others();
	apps();
	records();
	return done_testing();
}
