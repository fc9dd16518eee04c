/* process: runs one point in a child process controlled with ptrace: the child stops
 * itself under PTRACE_TRACEME, the parent follows its threads, faults and timeout. */
#define _GNU_SOURCE
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_THREADS 1024

enum thread_state { T_NEW, T_RUNNING, T_EXITED };

struct thread {
	pid_t tid;
	enum thread_state state;
};

struct tracee {
	pid_t pid;
	struct thread t[MAX_THREADS];
	int n, created, exited;
	int fault_sig, fault_tid;
	void *fault_addr;
};

static volatile sig_atomic_t alarm_fired;

static void on_alarm(int sig)
{
	(void)sig;
	alarm_fired = 1;
}

static struct thread *thread_find(struct tracee *tr, pid_t tid)
{
	for (int i = 0; i < tr->n; i++)
		if (tr->t[i].tid == tid)
			return &tr->t[i];
	return NULL;
}

static struct thread *thread_add(struct tracee *tr, pid_t tid, enum thread_state s)
{
	struct thread *t = thread_find(tr, tid);
	if (!t && tr->n < MAX_THREADS) {
		t = &tr->t[tr->n++];
		t->tid = tid;
	}
	if (t)
		t->state = s;
	return t;
}

static void child_main(const struct point *p, int out_fd, int err_pipe)
{
	/* between fork and the measurement: only async-signal-safe calls */
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
		int e = errno;
		ssize_t w = write(err_pipe, &e, sizeof e);
		(void)w;
		_exit(126);
	}
	close(err_pipe);
	int devnull = open("/dev/null", O_WRONLY);
	if (devnull >= 0)
		dup2(devnull, 1); /* kernels that print must not disturb anything */
	raise(SIGSTOP);
	FILE *out = fdopen(out_fd, "w");
	if (!out)
		_exit(125);
	int rc = measure_point(p, out);
	fflush(out);
	_exit(rc == 0 ? 0 : 3);
}

static int is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
	       sig == SIGABRT || sig == SIGTRAP;
}

/* Follows the child until it is gone. Returns its wait status. */
static int trace(struct tracee *tr, const struct point *p, int *timed_out)
{
	int main_status = 0;
	struct sigaction sa = {.sa_handler = on_alarm}, old;
	sigaction(SIGALRM, &sa, &old); /* no SA_RESTART: waitpid returns EINTR */
	alarm_fired = 0;
	unsigned secs = p->timeout > 0 ? (unsigned)(p->timeout + 0.999) : 0;
	alarm(secs);
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, __WALL);
		if (w < 0) {
			if (errno == EINTR) {
				if (alarm_fired && !*timed_out) {
					*timed_out = 1;
					kill(tr->pid, SIGKILL);
				}
				continue;
			}
			break; /* ECHILD: everyone is gone */
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			struct thread *t = thread_find(tr, w);
			if (t && t->state != T_EXITED) {
				t->state = T_EXITED;
				tr->exited++;
			}
			if (w == tr->pid)
				main_status = st;
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		int sig = WSTOPSIG(st), event = (unsigned)st >> 16, deliver = 0;
		struct thread *t = thread_find(tr, w);
		if (!t) /* a clone's first stop can arrive before its parent's event */
			t = thread_add(tr, w, T_NEW);
		if (event == PTRACE_EVENT_CLONE) {
			unsigned long tid;
			ptrace(PTRACE_GETEVENTMSG, w, NULL, &tid);
			if (!thread_find(tr, (pid_t)tid))
				thread_add(tr, (pid_t)tid, T_NEW);
			tr->created++;
		} else if (event == PTRACE_EVENT_EXIT) {
			if (t && t->state != T_EXITED) {
				t->state = T_EXITED;
				tr->exited++;
			}
		} else if (event == 0 && sig == SIGSTOP && t && t->state == T_NEW) {
			t->state = T_RUNNING; /* the first stop of a new thread */
		} else if (event == 0 && is_fault(sig)) {
			siginfo_t si;
			if (!tr->fault_sig && ptrace(PTRACE_GETSIGINFO, w, NULL, &si) == 0) {
				tr->fault_sig = sig;
				tr->fault_tid = w;
				tr->fault_addr = si.si_addr;
			}
			deliver = sig;
		} else if (event == 0) {
			deliver = sig;
		}
		ptrace(PTRACE_CONT, w, NULL, (void *)(long)deliver);
	}
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	return main_status;
}

int process_measure(const struct point *p, FILE *out)
{
	struct tracee *tr = calloc(1, sizeof *tr);
	FILE *rec = tmpfile();
	int err_pipe[2] = {-1, -1}, rc = 1, timed_out = 0;
	const char *kname = p->args.kernel->name;
	if (!tr || !rec || pipe2(err_pipe, O_CLOEXEC) < 0) {
		fprintf(out, "status failed\nerror cannot set up the child: %s\n", strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(out, "status failed\nerror fork: %s\n", strerror(errno));
		goto out;
	}
	if (pid == 0)
		child_main(p, fileno(rec), err_pipe[1]);
	close(err_pipe[1]);
	err_pipe[1] = -1;
	tr->pid = pid;
	int st, e = ECHILD;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (read(err_pipe[0], &e, sizeof e) == (ssize_t)sizeof e || !WIFSTOPPED(st)) {
		fprintf(out, "status failed\nerror ptrace(PTRACE_TRACEME) was refused: %s\n",
			strerror(e));
		fprintf(out, "meta hint allow tracing one's own children: sysctl "
			     "kernel.yama.ptrace_scope=1 (or 0), or run the container with "
			     "--cap-add=SYS_PTRACE and without a seccomp profile that blocks ptrace\n");
		goto out;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)) < 0) {
		e = errno;
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		fprintf(out, "status failed\nerror ptrace(PTRACE_SETOPTIONS): %s\n", strerror(e));
		goto out;
	}
	thread_add(tr, pid, T_RUNNING);
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	int status = trace(tr, p, &timed_out);

	/* the child's records, then the verdict */
	char buf[8192];
	size_t got;
	rewind(rec);
	while ((got = fread(buf, 1, sizeof buf, rec)) > 0) {
		/* a failed init writes an `error` line; keep it for the verdict below */
		fwrite(buf, 1, got, out);
	}
	fprintf(out, "meta threadsCreated %d\nmeta threadsExited %d\n", tr->created, tr->exited);
	if (timed_out) {
		fprintf(out, "status failed\nerror kernel '%s' ran past the timeout of %g s and was "
			     "killed\nmeta failure timeout\n",
			kname, p->timeout);
	} else if (tr->fault_sig) {
		fprintf(out, "status failed\nerror kernel '%s' crashed: %s (signal %d) in thread %d "
			     "at address %p\nmeta failure signal\nmeta signal %d\n",
			kname, strsignal(tr->fault_sig), tr->fault_sig, tr->fault_tid,
			tr->fault_addr, tr->fault_sig);
	} else if (WIFSIGNALED(status)) {
		fprintf(out, "status failed\nerror kernel '%s' was killed by %s (signal %d)\n"
			     "meta failure signal\nmeta signal %d\n",
			kname, strsignal(WTERMSIG(status)), WTERMSIG(status), WTERMSIG(status));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		fprintf(out, "status ok\n");
		rc = 0;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
		fprintf(out, "status failed\n"); /* the child wrote its own error line */
	} else {
		fprintf(out, "status failed\nerror kernel '%s' exited with status %d during the "
			     "measurement\nmeta failure exit\n",
			kname, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
out:
	for (int i = 0; i < 2; i++)
		if (err_pipe[i] >= 0)
			close(err_pipe[i]);
	if (rec)
		fclose(rec);
	free(tr);
	return rc;
}
