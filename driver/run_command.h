/* run_command: starts programs from an argv, never through a shell, and waits for them.
 * Shaped like git's run-command: the contract is stated here, errors come back with errno. */
#ifndef ROT_RUN_COMMAND_H
#define ROT_RUN_COMMAND_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* Set (to the signal number) by the driver's SIGINT/SIGTERM/SIGHUP handler: every wait here
 * then stops its child (kill_signal to its process group), reaps it and fails with EINTR. */
extern volatile sig_atomic_t run_command_interrupted;

/* While above 0 (rot.sys.shielded), an interruption stops nothing: waits go on, programs run
 * to their end, sleeps are slept. A signal that comes meanwhile sets run_command_deferred
 * instead of stopping the Lua code; the shield raises it when it is lifted. */
extern volatile sig_atomic_t run_command_shield;
extern volatile sig_atomic_t run_command_deferred;

/* Whether waits stop now: the driver was interrupted and no shield is up. */
int run_command_stopping(void);

/* Seconds on the monotonic clock (the time every wait here is measured against). */
double run_command_now(void);

/* Why a program did not start (cp->fail_stage), worded in one place: run_command_error. */
enum run_failure {
	RUN_FAILED_NONE = 0,
	RUN_FAILED_LOCATE,   /* not found in PATH, or no memory for its path */
	RUN_FAILED_START,    /* no working folder to make its path absolute, no pipe, no fork */
	RUN_FAILED_CHDIR,    /* the child could not enter cp->dir */
	RUN_FAILED_REDIRECT, /* a pipe, /dev/null or err_path could not be opened or dup'd */
	RUN_FAILED_EXEC,     /* execv failed: not executable, not a program, ... */
};

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
	/* run_command_start only: stdout becomes a pipe whose read end (non-blocking,
	 * close-on-exec) is out; stderr goes to err_path (created or truncated) when set. */
	int out_pipe;
	const char *err_path;
	/* When set, stdin is /dev/null (else inherited). */
	int null_stdin;
	/* What stops the child when the driver is interrupted (default SIGTERM). */
	int kill_signal;
	/* run_command only: when > 0, a child still running after this many seconds is killed
	 * (SIGKILL to its group) and run_command fails with ETIMEDOUT. */
	double timeout;
	/* Filled by run_command_start (and status, reaped, by a caller that reaped it);
	 * fail_stage says where a start that failed failed. */
	pid_t pid;
	int out;
	int status, reaped;
	enum run_failure fail_stage;
};

/* What went wrong starting cp, with errno err, in words (into buf): "cannot find 'x': not in
 * PATH", "cannot run 'x' in 'dir': ...", "cannot run 'x': Permission denied". */
const char *run_command_error(const struct child_process *cp, int err, char *buf, size_t len);

/*
 * Runs the command to completion. The child leads its own process group.
 * Returns the exit status (0..255), 128+N when the child died of signal N, or -1 when the
 * program could not be started at all; then errno says why (ENOENT: not found in PATH,
 * EACCES: not executable, ...), when the driver was interrupted (EINTR; the child was
 * stopped and reaped; not while shielded), or when cp->timeout passed (ETIMEDOUT; killed).
 * The child's start is reported through a close-on-exec pipe carrying {stage, errno}, so a
 * failed exec is never confused with an exit status of 127. Only async-signal-safe calls run
 * between fork and exec. waitpid is retried on EINTR.
 */
int run_command(struct child_process *cp);

/* Starts the command and returns at once: 0 (cp->pid, and cp->out with out_pipe, set) or -1
 * with errno. The caller reads cp->out and ends with run_command_finish. */
int run_command_start(struct child_process *cp);

/* Waits at most timeout seconds (< 0: for ever) for the started child; returns its status as
 * run_command does, -2 when the timeout passed (the child still runs), or -1 with EINTR when
 * interrupted (the child was stopped and reaped). Closes cp->out once the child is reaped. */
int run_command_finish(struct child_process *cp, double timeout);

/* Sends sig to the child's process group. */
void run_command_kill(struct child_process *cp, int sig);

/* Whether path is a regular file we may execute (a directory is searchable, not a program). */
int run_command_executable(const char *path);

/* Finds an executable regular file in PATH: returns a malloc'd path, or NULL with errno =
 * ENOENT. A relative argv[0] with a '/', or found through a relative PATH entry, is made
 * absolute before the child changes to cp->dir. */
char *run_command_locate(const char *name);

#endif
