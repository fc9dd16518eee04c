/* run_command: starts programs from an argv, never through a shell, and waits for them.
 * Shaped like git's run-command: the contract is stated here, errors come back with errno. */
#include "run_command.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

int run_command(struct child_process *cp)
{
	int status_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1};
	char *prog = NULL;
	pid_t pid;
	int rc = -1, saved = 0, msg[2];
	size_t cap = 0;

	cp->output = NULL;
	cp->output_len = 0;
	if (strchr(cp->argv[0], '/'))
		prog = strdup(cp->argv[0]);
	else
		prog = run_command_locate(cp->argv[0]);
	if (!prog)
		return -1;
	if (pipe2(status_pipe, O_CLOEXEC) < 0)
		goto out;
	if (cp->capture && pipe2(out_pipe, O_CLOEXEC) < 0)
		goto out;
	int devnull = cp->quiet ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;
	pid = fork();
	if (pid < 0) {
		if (devnull >= 0)
			close(devnull);
		goto out;
	}
	if (pid == 0) {
		/* child: async-signal-safe calls only */
		close(status_pipe[0]);
		if (cp->dir && chdir(cp->dir) < 0)
			child_fail(status_pipe[1], STAGE_CHDIR);
		int to = cp->capture ? out_pipe[1] : devnull;
		if (to >= 0 && (dup2(to, 1) < 0 || dup2(to, 2) < 0))
			child_fail(status_pipe[1], STAGE_DUP);
		execv(prog, (char *const *)cp->argv);
		child_fail(status_pipe[1], STAGE_EXEC);
	}
	if (devnull >= 0)
		close(devnull);
	close(status_pipe[1]);
	status_pipe[1] = -1;
	if (cp->capture) {
		close(out_pipe[1]);
		out_pipe[1] = -1;
		for (;;) {
			if (cp->output_len + 4097 > cap) {
				cap = cap ? cap * 2 : 8192;
				char *p = realloc(cp->output, cap);
				if (!p)
					break;
				cp->output = p;
			}
			ssize_t r = read(out_pipe[0], cp->output + cp->output_len,
					 cap - cp->output_len - 1);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			cp->output_len += (size_t)r;
		}
		if (cp->output)
			cp->output[cp->output_len] = '\0';
	}
	ssize_t got;
	do
		got = read(status_pipe[0], msg, sizeof msg);
	while (got < 0 && errno == EINTR);
	int status;
	pid_t w;
	do
		w = waitpid(pid, &status, 0);
	while (w < 0 && errno == EINTR);
	if (got == (ssize_t)sizeof msg) {
		saved = msg[1];
		rc = -1;
	} else if (w < 0) {
		saved = errno;
	} else if (WIFEXITED(status)) {
		rc = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		rc = 128 + WTERMSIG(status);
	}
out:
	if (!saved && rc == -1)
		saved = errno;
	for (int i = 0; i < 2; i++) {
		if (status_pipe[i] >= 0)
			close(status_pipe[i]);
		if (out_pipe[i] >= 0)
			close(out_pipe[i]);
	}
	free(prog);
	errno = saved;
	return rc;
}
