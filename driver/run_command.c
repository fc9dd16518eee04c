/* run_command: starts programs from an argv, never through a shell, and waits for them.
 * Shaped like git's run-command: the contract is stated here, errors come back with errno. */
#include "run_command.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int run_command_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
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
		if (run_command_executable(cand))
			return cand;
		free(cand);
		if (!end)
			break;
		path = end + 1;
	}
	errno = ENOENT;
	return NULL;
}

/* A program path that holds after chdir: a relative one (or a relative PATH entry's) made
 * absolute against our working directory. Takes prog (malloc'd); NULL with errno on failure. */
static char *absolute(char *prog)
{
	if (!prog || prog[0] == '/')
		return prog;
	char *cwd = getcwd(NULL, 0), *abs = NULL;
	if (cwd && asprintf(&abs, "%s/%s", cwd, prog) < 0)
		abs = NULL;
	free(cwd);
	free(prog);
	return abs;
}

const char *run_command_error(const struct child_process *cp, int err, char *buf, size_t len)
{
	const char *prog = cp->argv[0], *why = strerror(err);
	switch (cp->fail_stage) {
	case RUN_FAILED_LOCATE:
		snprintf(buf, len, "cannot find '%s': %s", prog,
			 err == ENOENT ? "not in PATH" : why);
		break;
	case RUN_FAILED_START:
		snprintf(buf, len, "cannot start '%s': %s", prog, why);
		break;
	case RUN_FAILED_CHDIR:
		snprintf(buf, len, "cannot run '%s' in '%s': %s", prog, cp->dir ? cp->dir : "?",
			 why);
		break;
	case RUN_FAILED_REDIRECT:
		snprintf(buf, len, "cannot run '%s': its output could not be redirected%s%s: %s",
			 prog, cp->err_path ? " to " : "", cp->err_path ? cp->err_path : "", why);
		break;
	case RUN_FAILED_EXEC:
		snprintf(buf, len, "cannot run '%s': %s", prog, why);
		break;
	default:
		snprintf(buf, len, "'%s': %s", prog, why);
	}
	return buf;
}

static _Noreturn void child_fail(int fd, enum run_failure stage)
{
	int msg[2] = {stage, errno};
	ssize_t w = write(fd, msg, sizeof msg);
	(void)w;
	_exit(127);
}

double run_command_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The descriptors a start opens: the status pipe (the child's exec report), the output pipe,
 * /dev/null for a quiet child, err_path; -1 where unused. */
struct fds {
	int status[2], out[2], null, err;
};

static int open_fds(struct child_process *cp, struct fds *f)
{
	*f = (struct fds){{-1, -1}, {-1, -1}, -1, -1};
	if (pipe2(f->status, O_CLOEXEC) < 0)
		return -1;
	if ((cp->capture || cp->out_pipe) && pipe2(f->out, O_CLOEXEC) < 0)
		return -1;
	cp->fail_stage = RUN_FAILED_REDIRECT;
	if (cp->quiet && !cp->capture && (f->null = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	if (cp->err_path &&
	    (f->err = open(cp->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return -1;
	cp->fail_stage = RUN_FAILED_START; /* the fork next */
	return 0;
}

static void close_fds(struct fds *f)
{
	int *all[] = {&f->status[0], &f->status[1], &f->out[0], &f->out[1], &f->null, &f->err};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
		if (*all[i] >= 0)
			close(*all[i]);
		*all[i] = -1;
	}
}

/* The child, between fork and exec: async-signal-safe calls only; never returns. */
static _Noreturn void child_exec(const struct child_process *cp, const char *prog,
				 const struct fds *f)
{
	close(f->status[0]);
	setpgid(0, 0);
	if (cp->dir && chdir(cp->dir) < 0)
		child_fail(f->status[1], RUN_FAILED_CHDIR);
	if (cp->null_stdin) {
		int in = open("/dev/null", O_RDONLY);
		if (in < 0 || dup2(in, 0) < 0)
			child_fail(f->status[1], RUN_FAILED_REDIRECT);
	}
	int o = f->out[1] >= 0 ? f->out[1] : f->null;
	if (o >= 0 && dup2(o, 1) < 0)
		child_fail(f->status[1], RUN_FAILED_REDIRECT);
	int e = f->err >= 0 ? f->err : cp->capture ? f->out[1] : f->null;
	if (e >= 0 && dup2(e, 2) < 0)
		child_fail(f->status[1], RUN_FAILED_REDIRECT);
	execv(prog, (char *const *)cp->argv);
	child_fail(f->status[1], RUN_FAILED_EXEC);
}

/* Whether the forked child reached exec: 0, or -1 with errno (and cp->fail_stage) when its
 * status pipe says it failed before (it is reaped then). */
static int started(struct child_process *cp, struct fds *f)
{
	int msg[2];
	ssize_t got;
	setpgid(cp->pid, cp->pid); /* the child does it too: whoever runs first */
	close(f->status[1]);
	f->status[1] = -1;
	do
		got = read(f->status[0], msg, sizeof msg);
	while (got < 0 && errno == EINTR);
	if (got != (ssize_t)sizeof msg)
		return 0; /* closed on exec: it runs */
	cp->fail_stage = msg[0];
	while (waitpid(cp->pid, NULL, 0) < 0 && errno == EINTR)
		;
	cp->pid = -1;
	errno = msg[1];
	return -1;
}

int run_command_start(struct child_process *cp)
{
	struct fds f = {{-1, -1}, {-1, -1}, -1, -1};
	char *prog = NULL;
	int rc = -1, saved;

	cp->pid = -1;
	cp->out = -1;
	cp->reaped = 0;
	cp->fail_stage = RUN_FAILED_LOCATE;
	if (strchr(cp->argv[0], '/'))
		prog = strdup(cp->argv[0]);
	else
		prog = run_command_locate(cp->argv[0]);
	if (!prog)
		return -1;
	cp->fail_stage = RUN_FAILED_START;
	if (!(prog = absolute(prog)))
		return -1;
	if (open_fds(cp, &f) < 0 || (cp->pid = fork()) < 0)
		goto out;
	if (cp->pid == 0)
		child_exec(cp, prog, &f);
	if (started(cp, &f) < 0)
		goto out;
	if (f.out[0] >= 0) {
		cp->out = f.out[0];
		f.out[0] = -1;
		fcntl(cp->out, F_SETFL, O_NONBLOCK);
	}
	cp->fail_stage = RUN_FAILED_NONE;
	rc = 0;
out:
	saved = errno;
	close_fds(&f);
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
	double until = timeout >= 0 ? run_command_now() + timeout : 0;
	int status = cp->status, stopped = 0;
	for (;;) {
		pid_t w = cp->reaped ? cp->pid : waitpid(cp->pid, &status, WNOHANG);
		if (w == cp->pid)
			break;
		if (w < 0 && errno != EINTR) {
			int e = errno;
			cp->pid = -1;
			if (cp->out >= 0) { /* its output ends with it */
				close(cp->out);
				cp->out = -1;
			}
			errno = e;
			return -1;
		}
		if (run_command_stopping() && !stopped) {
			run_command_kill(cp, cp->kill_signal ? cp->kill_signal : SIGTERM);
			stopped = 1;
		}
		if (!stopped && timeout >= 0 && run_command_now() >= until)
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
	double until = cp->timeout > 0 ? run_command_now() + cp->timeout : 0;
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
		if (run_command_stopping() || (until && run_command_now() >= until))
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
	double left = until ? until - run_command_now() : -1;
	int st = run_command_finish(cp, until && left < 0 ? 0 : left);
	if (st == -2) { /* past its timeout: killed */
		run_command_kill(cp, SIGKILL);
		run_command_finish(cp, -1);
		errno = ETIMEDOUT;
		return -1;
	}
	return st;
}
