/* run_command: starts programs from an argv, never through a shell, and waits for them.
 * Shaped like git's run-command: the contract is stated here, errors come back with errno. */
#ifndef ROT_RUN_COMMAND_H
#define ROT_RUN_COMMAND_H

#include <stddef.h>

struct child_process {
	/* argv[0] is looked up in PATH (in the parent, before fork) unless it holds a '/'. */
	const char *const *argv;
	/* Working directory of the child, or NULL to keep ours. */
	const char *dir;
	/* When set, stdout and stderr are captured together into output (NUL-terminated,
	 * output_len bytes, caller frees); otherwise they are inherited, or sent to
	 * /dev/null when quiet is set. */
	int capture;
	int quiet;
	char *output;
	size_t output_len;
};

/*
 * Runs the command to completion.
 * Returns the exit status (0..255), 128+N when the child died of signal N, or -1 when the
 * program could not be started at all; then errno says why (ENOENT: not found in PATH,
 * EACCES: not executable, ...). The child's start is reported through a close-on-exec pipe
 * carrying {stage, errno}, so a failed exec is never confused with an exit status of 127.
 * Only async-signal-safe calls run between fork and exec. waitpid is retried on EINTR.
 */
int run_command(struct child_process *cp);

/* Finds an executable in PATH: returns a malloc'd path, or NULL with errno = ENOENT. */
char *run_command_locate(const char *name);

#endif
