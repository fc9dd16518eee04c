/* Unit tests for driver/run_command: exit codes, 128+signal, a program that cannot start
 * (errno, not 127), captured output, and arguments that never meet a shell. */
#include "run_command.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>

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

	const char *notexec[] = {"/etc/passwd", NULL};
	cp = (struct child_process){.argv = notexec};
	ok(run_command(&cp) == -1 && errno == EACCES, "non-executable file: -1 with EACCES from exec");

	const char *echo[] = {"printf", "%s|", "a b", "$(touch /tmp/rot-pwned)", ";", NULL};
	cp = (struct child_process){.argv = echo, .capture = 1};
	ok(run_command(&cp) == 0, "printf runs");
	is_str(cp.output, "a b|$(touch /tmp/rot-pwned)|;|", "arguments reach the program verbatim");
	free(cp.output);

	const char *both[] = {"sh", "-c", "echo out; echo err >&2", NULL};
	cp = (struct child_process){.argv = both, .capture = 1};
	run_command(&cp);
	ok(cp.output && strstr(cp.output, "out") && strstr(cp.output, "err"), "stdout and stderr captured");
	free(cp.output);

	const char *pwd[] = {"pwd", NULL};
	cp = (struct child_process){.argv = pwd, .capture = 1, .dir = "/tmp"};
	run_command(&cp);
	is_str(cp.output, "/tmp\n", "runs in the given directory");
	free(cp.output);
	return done_testing();
}
