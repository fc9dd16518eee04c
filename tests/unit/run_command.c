/* Unit tests for driver/run_command: exit codes, 128+signal, a program that cannot start
 * (errno, not 127), captured output, arguments that never meet a shell, a child whose
 * leftover holds the pipe, and interruption.
 * judges no time */
#include "run_command.h"
#include "tap.h"

#include <sys/stat.h>
#include <unistd.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* How a start that failed is worded, a relative program path, a directory in PATH. */
static void words_and_paths(void)
{
	const char *t[] = {"true", NULL};
	const char *none[] = {"rot-no-such-program-xyz", NULL};
	struct child_process cp = {.argv = none};
	errno = 0;
	run_command(&cp);
	char why[512];
	run_command_error(&cp, errno, why, sizeof why);
	is_str(why, "cannot find 'rot-no-such-program-xyz': not in PATH",
	       "a missing program worded as such");

	const char *notexec[] = {"/etc/passwd", NULL};
	cp = (struct child_process){.argv = notexec};
	ok(run_command(&cp) == -1 && errno == EACCES,
	   "non-executable file: -1 with EACCES from exec");
	run_command_error(&cp, errno, why, sizeof why);
	is_str(why, "cannot run '/etc/passwd': Permission denied", "and worded as such");

	/* a missing folder is said as one, not as a missing program */
	cp = (struct child_process){.argv = t, .dir = "/nonexistent-rot-dir"};
	ok(run_command(&cp) == -1 && errno == ENOENT,
	   "a missing working directory: -1 with ENOENT");
	run_command_error(&cp, errno, why, sizeof why);
	is_str(why, "cannot run 'true' in '/nonexistent-rot-dir': No such file or directory",
	       "and worded as the folder's fault");

	/* a relative program path is the caller's, not the child's after chdir */
	char tmp[] = "/tmp/rot-test-run-XXXXXX", link[64], here[4096];
	if (mkdtemp(tmp) && getcwd(here, sizeof here) && chdir(tmp) == 0) {
		snprintf(link, sizeof link, "%s/bin", tmp);
		mkdir(link, 0755);
		int made = symlink("/bin/true", "bin/yes-true") == 0;
		const char *rel[] = {"./bin/yes-true", NULL};
		cp = (struct child_process){.argv = rel, .dir = "/"};
		ok(made && run_command(&cp) == 0,
		   "a relative program path holds when the child runs in another folder");
		unlink("bin/yes-true");
		rmdir(link);
		if (chdir(here) != 0)
			return;
		rmdir(tmp);
	} else {
		ok(0, "a temp folder to run a relative program path from");
	}

	/* a directory in PATH named like the program is no program */
	char saved_path[4096];
	snprintf(saved_path, sizeof saved_path, "%s", getenv("PATH"));
	setenv("PATH", "/:/usr/bin:/bin", 1);
	char *found = run_command_locate("tmp");
	ok(found == NULL, "a directory ('/tmp') is not taken for a program in PATH");
	free(found);
	setenv("PATH", saved_path, 1);
}

int main(void)
{
	const char *t[] = {"true", NULL};
	struct child_process cp = {.argv = t};
	ok(run_command(&cp) == 0, "true exits 0");

	const char *f[] = {"sh", "-c", "exit 7", NULL};
	cp = (struct child_process){.argv = f};
	ok(run_command(&cp) == 7, "exit status is passed through");

	const char *k[] = {"sh", "-c", "kill -SEGV $$", NULL};
	cp = (struct child_process){.argv = k};
	ok(run_command(&cp) == 128 + 11, "death by SIGSEGV reports 128+11");

	const char *none[] = {"rot-no-such-program-xyz", NULL};
	cp = (struct child_process){.argv = none};
	errno = 0;
	ok(run_command(&cp) == -1 && errno == ENOENT, "missing program: -1 with ENOENT");

	words_and_paths();

	const char *echo[] = {"printf", "%s|", "a b", "$(touch /tmp/rot-pwned)", ";", NULL};
	cp = (struct child_process){.argv = echo, .capture = 1};
	ok(run_command(&cp) == 0, "printf runs");
	is_str(cp.output, "a b|$(touch /tmp/rot-pwned)|;|", "arguments reach the program verbatim");
	free(cp.output);

	const char *both[] = {"sh", "-c", "echo out; echo err >&2", NULL};
	cp = (struct child_process){.argv = both, .capture = 1};
	run_command(&cp);
	ok(cp.output && strstr(cp.output, "out") && strstr(cp.output, "err"),
	   "stdout and stderr captured");
	free(cp.output);

	const char *pwd[] = {"pwd", NULL};
	cp = (struct child_process){.argv = pwd, .capture = 1, .dir = "/tmp"};
	run_command(&cp);
	is_str(cp.output, "/tmp\n", "runs in the given directory");
	free(cp.output);

	/* what the child leaves behind keeps the pipe open: the child's end is the end */
	const char *bg[] = {"sh", "-c", "sleep 30 & echo $!; echo done", NULL};
	cp = (struct child_process){.argv = bg, .capture = 1};
	double t0 = now();
	int st = run_command(&cp);
	ok(st == 0 && now() - t0 < 5, "a background process holding the pipe does not hold us");
	ok(cp.output && strstr(cp.output, "done"), "and the output before the child's end is kept");
	if (cp.output)
		kill(atoi(cp.output), SIGKILL);
	free(cp.output);

	/* started, then interrupted: the child is stopped and reaped, EINTR */
	const char *sl[] = {"sleep", "30", NULL};
	cp = (struct child_process){.argv = sl};
	ok(run_command_start(&cp) == 0 && cp.pid > 0, "run_command_start starts a child");
	ok(run_command_finish(&cp, 0.05) == -2, "finish with a timeout: still running");
	run_command_interrupted = SIGINT;
	t0 = now();
	errno = 0;
	ok(run_command_finish(&cp, -1) == -1 && errno == EINTR && now() - t0 < 5,
	   "interrupted: the child is stopped, reaped, and the wait fails with EINTR");
	run_command_interrupted = 0;
	return done_testing();
}
