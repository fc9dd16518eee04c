/* child: the traced child: forked, stopped under PTRACE_TRACEME with the tracing options set,
 * and what it runs: points measured one after another, each one's records announced, or (an
 * application point) the plan's program. */
#define _GNU_SOURCE
#include "child.h"
#include "failure.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a kernel child runs after its prologue: points first..last of ps. */
struct kernel_run {
	struct point *ps;
	int first, last;
};

/* Moves the descriptors a child keeps to 3, 4, ... (through fds above them all first, so none
 * overwrites another), each close-on-exec as asked. */
static void keep_fds(const struct child_plan *plan)
{
	int moved[CHILD_KEEP];
	for (int i = 0; i < plan->nkeep; i++)
		moved[i] = fcntl(plan->keep[i], F_DUPFD, 64);
	for (int i = 0; i < plan->nkeep; i++) {
		dup2(moved[i], 3 + i);
		fcntl(3 + i, F_SETFD, plan->cloexec[i] ? FD_CLOEXEC : 0);
	}
}

/* The child's prologue, the same for kernels and applications: it dies with the core, is
 * traced, leads its own process group, has stdin on /dev/null, stdout on plan->out_fd (else
 * /dev/null), stderr on err_fd, the plan's descriptors at 3, 4, ... and no other, and stops
 * for the tracer. Async-signal-safe: no allocation, no stdio. */
static void child_prologue(const struct child_plan *plan, pid_t core, int err_pipe, int err_fd)
{
	/* a core that dies before it set PTRACE_O_EXITKILL must not leave this child stopped */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != core)
		_exit(127);
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
		int e = errno;
		ssize_t w = write(err_pipe, &e, sizeof e);
		(void)w;
		_exit(126);
	}
	setpgid(0, 0); /* one group to kill: the kernel and the processes it starts */
	int devnull = open("/dev/null", O_RDWR);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(plan->out_fd >= 0 ? plan->out_fd : devnull, 1); /* kernels print to nothing */
	}
	if (err_fd >= 0)
		dup2(err_fd, 2);
	keep_fds(plan);
	/* nothing else reaches the kernel: not the driver's pipe, not the batch input */
	unsigned from = 3u + (unsigned)plan->nkeep;
	if (syscall(SYS_close_range, from, ~0u, 0u) < 0)
		for (int fd = (int)from; fd < 1024; fd++)
			close(fd);
	raise(SIGSTOP);
}

/* Measures ps[first..last] in order, each point's records announced to the tracer; ends at
 * the first point that fails. */
static void kernel_main(void *ctx)
{
	struct kernel_run *k = ctx;
	for (int i = k->first; i <= k->last; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);
		if (!out)
			_exit(125);
		int rc = measure_point(&k->ps[i], out);
		fclose(out);
		/* the parent reads the records out of this memory: no descriptor the kernel
		 * could write */
		static struct rot_records rr;
		rr = (struct rot_records){ROT_RECORDS_MAGIC, buf, len, i, rc};
		union sigval v = {.sival_ptr = &rr};
		measure_tell(ROT_RECORDS_SIGNAL, v);
		/* a failed point may leave the process unfit: a fresh one goes on */
		if (rc != 0)
			_exit(3);
		free(buf);
	}
	_exit(0);
}

/* Why the forked child is gone before its first stop: PTRACE_TRACEME refused (errno e from
 * its err_pipe), or it ended otherwise (wait status st: its parent was not the core, say). */
static void gone_early(int e, int st, FILE *out)
{
	char msg[128];
	if (e) {
		failure_write(out,
			      &(struct failure){.kind = FAILURE_SETUP,
						.message = "ptrace(PTRACE_TRACEME) was refused",
						.err = e,
						.hint = failure_hint_ptrace});
		return;
	}
	if (WIFSIGNALED(st))
		snprintf(msg, sizeof msg,
			 "the measuring child was killed by %s (signal %d) before it started",
			 strsignal(WTERMSIG(st)), WTERMSIG(st));
	else
		snprintf(msg, sizeof msg,
			 "the measuring child exited with status %d before it started",
			 WEXITSTATUS(st));
	failure_write(out, &(struct failure){.kind = FAILURE_SETUP, .message = msg});
}

/* Waits for the forked child's first stop and sets the tracing options. 0, or -1 after
 * writing the failure: the child gone (*reaped set: its pid is no longer ours), or the
 * wait or the options refused. */
static int attach(pid_t pid, int err_pipe, FILE *out, int *reaped)
{
	int st = 0, e = 0;
	pid_t w;
	while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (w < 0) {
		failure_write(out,
			      &(struct failure){.kind = FAILURE_SETUP,
						.message = "cannot wait for the measuring child",
						.err = errno});
		return -1;
	}
	if (!WIFSTOPPED(st)) {
		*reaped = 1;
		if (read(err_pipe, &e, sizeof e) != (ssize_t)sizeof e)
			e = 0;
		gone_early(e, st, out);
		return -1;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
				  PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)) <
	    0) {
		failure_write(out, &(struct failure){.kind = FAILURE_SETUP,
						     .message = "ptrace(PTRACE_SETOPTIONS)",
						     .err = errno});
		return -1;
	}
	return 0;
}

void child_end(pid_t pid)
{
	int st;
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
		;
}

pid_t child_start(struct point *ps, int first, int last, const sigset_t *old, int *errfd, FILE *out)
{
	struct kernel_run k = {ps, first, last};
	struct child_plan plan = {.run = kernel_main, .ctx = &k, .out_fd = -1};
	return child_fork(&plan, old, errfd, out);
}

pid_t child_fork(const struct child_plan *plan, const sigset_t *old, int *errfd, FILE *out)
{
	int err_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1}, started = 0, reaped = 0;
	pid_t pid = -1, core = getpid();
	if (pipe2(err_pipe, O_CLOEXEC) < 0 || pipe2(out_pipe, O_CLOEXEC) < 0) {
		failure_write(out, &(struct failure){.kind = FAILURE_SETUP,
						     .message = "cannot set up the child",
						     .err = errno});
		goto out;
	}
	fflush(NULL);
	if ((pid = fork()) < 0) {
		failure_write(
		    out, &(struct failure){.kind = FAILURE_SETUP, .message = "fork", .err = errno});
		goto out;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, old, NULL);
		child_prologue(plan, core, err_pipe[1], out_pipe[1]);
		plan->run(plan->ctx);
		_exit(127);
	}
	setpgid(pid, pid); /* the child does it too: whoever runs first */
	close(err_pipe[1]);
	close(out_pipe[1]);
	err_pipe[1] = out_pipe[1] = -1;
	if (attach(pid, err_pipe[0], out, &reaped) < 0)
		goto out;
	fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
	*errfd = out_pipe[0];
	out_pipe[0] = -1;
	started = 1;
out:
	if (pid > 0 && !started) {
		if (!reaped)
			child_end(pid);
		pid = -1;
	}
	for (int i = 0; i < 2; i++) {
		if (err_pipe[i] >= 0)
			close(err_pipe[i]);
		if (out_pipe[i] >= 0)
			close(out_pipe[i]);
	}
	return pid;
}
