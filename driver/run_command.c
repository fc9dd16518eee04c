/* run_command: starts programs from an argv, never through a shell, and waits for them.
 * Shaped like git's run-command: the contract is stated here, errors come back with errno. */
#include "run_command.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t run_command_interrupted;
volatile sig_atomic_t run_command_shield;
volatile sig_atomic_t run_command_deferred;

int run_command_stopping(void)
{
	return run_command_interrupted && !run_command_shield;
}

char *run_command_locate(const char *name)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchr(path, ':');
		size_t dl = end ? (size_t)(end - path) : strlen(path);
		size_t len = dl + 1 + strlen(name) + 1;
		char *cand = malloc(len);
		if (!cand)
			return NULL;
		snprintf(cand, len, "%.*s/%s", (int)dl, dl ? path : ".", name);
		if (access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (!end)
			break;
		path = end + 1;
	}
	errno = ENOENT;
	return NULL;
}

enum { STAGE_CHDIR = 1, STAGE_DUP = 2, STAGE_EXEC = 3 };

static void child_fail(int fd, int stage)
{
	int msg[2] = {stage, errno};
	ssize_t w = write(fd, msg, sizeof msg);
	(void)w;
	_exit(127);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int run_command_start(struct child_process *cp)
{
	int status_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1}, to = -1, err = -1;
	char *prog = NULL;
	int rc = -1, saved = 0, msg[2];

	cp->pid = -1;
	cp->out = -1;
	cp->reaped = 0;
	if (strchr(cp->argv[0], '/'))
		prog = strdup(cp->argv[0]);
	else
		prog = run_command_locate(cp->argv[0]);
	if (!prog)
		return -1;
	if (pipe2(status_pipe, O_CLOEXEC) < 0)
		goto out;
	if ((cp->capture || cp->out_pipe) && pipe2(out_pipe, O_CLOEXEC) < 0)
		goto out;
	if (cp->quiet && !cp->capture && (to = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		goto out;
	if (cp->err_path &&
	    (err = open(cp->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		goto out;
	cp->pid = fork();
	if (cp->pid < 0)
		goto out;
	if (cp->pid == 0) {
		/* child: async-signal-safe calls only */
		close(status_pipe[0]);
		setpgid(0, 0);
		if (cp->dir && chdir(cp->dir) < 0)
			child_fail(status_pipe[1], STAGE_CHDIR);
		int o = out_pipe[1] >= 0 ? out_pipe[1] : to;
		if (o >= 0 && dup2(o, 1) < 0)
			child_fail(status_pipe[1], STAGE_DUP);
		int e = err >= 0 ? err : cp->capture ? out_pipe[1] : to;
		if (e >= 0 && dup2(e, 2) < 0)
			child_fail(status_pipe[1], STAGE_DUP);
		execv(prog, (char *const *)cp->argv);
		child_fail(status_pipe[1], STAGE_EXEC);
	}
	setpgid(cp->pid, cp->pid); /* the child does it too: whoever runs first */
	close(status_pipe[1]);
	status_pipe[1] = -1;
	ssize_t got;
	do
		got = read(status_pipe[0], msg, sizeof msg);
	while (got < 0 && errno == EINTR);
	if (got == (ssize_t)sizeof msg) { /* it never started */
		saved = msg[1];
		while (waitpid(cp->pid, NULL, 0) < 0 && errno == EINTR)
			;
		cp->pid = -1;
		goto out;
	}
	if (out_pipe[0] >= 0) {
		cp->out = out_pipe[0];
		out_pipe[0] = -1;
		fcntl(cp->out, F_SETFL, O_NONBLOCK);
	}
	rc = 0;
out:
	if (!saved && rc < 0)
		saved = errno;
	for (int i = 0; i < 2; i++) {
		if (status_pipe[i] >= 0)
			close(status_pipe[i]);
		if (out_pipe[i] >= 0)
			close(out_pipe[i]);
	}
	if (to >= 0)
		close(to);
	if (err >= 0)
		close(err);
	free(prog);
	errno = saved;
	return rc;
}

void run_command_kill(struct child_process *cp, int sig)
{
	if (cp->pid > 0)
		kill(-cp->pid, sig);
}

/* The child's status: reaped now (status), still running (-2), or interrupted (-1/EINTR). */
int run_command_finish(struct child_process *cp, double timeout)
{
	double until = timeout >= 0 ? now() + timeout : 0;
	int status = cp->status, stopped = 0;
	for (;;) {
		pid_t w = cp->reaped ? cp->pid : waitpid(cp->pid, &status, WNOHANG);
		if (w == cp->pid)
			break;
		if (w < 0 && errno != EINTR) {
			cp->pid = -1;
			return -1;
		}
		if (run_command_stopping() && !stopped) {
			run_command_kill(cp, cp->kill_signal ? cp->kill_signal : SIGTERM);
			stopped = 1;
		}
		if (!stopped && timeout >= 0 && now() >= until)
			return -2;
		poll(NULL, 0, 5);
	}
	cp->pid = -1;
	cp->reaped = 0;
	if (cp->out >= 0) {
		close(cp->out);
		cp->out = -1;
	}
	if (stopped) {
		errno = EINTR;
		return -1;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

int run_command(struct child_process *cp)
{
	size_t cap = 0;
	double until = cp->timeout > 0 ? now() + cp->timeout : 0;
	cp->output = NULL;
	cp->output_len = 0;
	if (run_command_start(cp) < 0)
		return -1;
	while (cp->capture && cp->out >= 0) {
		if (cp->output_len + 4097 > cap) {
			cap = cap ? cap * 2 : 8192;
			char *p = realloc(cp->output, cap);
			if (!p)
				break;
			cp->output = p;
		}
		if (run_command_stopping() || (until && now() >= until))
			break;
		ssize_t r = read(cp->out, cp->output + cp->output_len, cap - cp->output_len - 1);
		if (r > 0) {
			cp->output_len += (size_t)r;
			continue;
		}
		if (r == 0 || (errno != EAGAIN && errno != EINTR) || cp->reaped)
			break; /* end of file; or the child is gone and its output drained */
		poll(&(struct pollfd){cp->out, POLLIN, 0}, 1, 100);
		/* a process the child left behind may hold the pipe: the child's end is the end */
		if (waitpid(cp->pid, &cp->status, WNOHANG) == cp->pid)
			cp->reaped = 1;
	}
	if (cp->output)
		cp->output[cp->output_len] = '\0';
	double left = until ? until - now() : -1;
	int st = run_command_finish(cp, until && left < 0 ? 0 : left);
	if (st == -2) { /* past its timeout: killed */
		run_command_kill(cp, SIGKILL);
		run_command_finish(cp, -1);
		errno = ETIMEDOUT;
		return -1;
	}
	return st;
}
