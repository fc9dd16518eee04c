/* Unit tests for core/tails: the kernel's last stderr lines as a result shows them: cut to
 * whole lines, the last 20 only, control bytes as '?', whatever pieces the pipe gave.
 * judges no time */
#include "tails.h"
#include "tap.h"

#include <stdlib.h>
#include <unistd.h>

static char *written(const struct errtail *e)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	errtail_write(e, out);
	fclose(out);
	return text;
}

static void add(struct errtail *e, const char *s)
{
	errtail_add(e, s, strlen(s));
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void short_text(void)
{
	struct errtail e = {0};
	char *t = written(&e);
	is_str(t, "", "nothing written: no line");
	free(t);
	add(&e, "first\nsecond\n");
	t = written(&e);
	is_str(t, "stderr first\nstderr second\n", "each line a stderr record");
	free(t);
	errtail_clear(&e);
	add(&e, "tab\there\x01 del\x7f end\x1b[0m\nno newline");
	t = written(&e);
	is_str(t, "stderr tab?here? del? end?[0m\nstderr no newline\n",
	       "control bytes as '?', a last line without a newline kept");
	free(t);
}

static void last_lines(void)
{
	struct errtail e = {0};
	char line[32];
	for (int i = 1; i <= 30; i++) {
		snprintf(line, sizeof line, "line %d\n", i);
		add(&e, line);
	}
	char *t = written(&e);
	ok(count_lines(t) == ERRTAIL_LINES && strncmp(t, "stderr line 11\n", 15) == 0 &&
	       strstr(t, "stderr line 30\n") && !strstr(t, "line 10\n"),
	   "30 lines: the last 20 (11 to 30)");
	free(t);
}

static void cut(void)
{
	struct errtail e = {0}, pieces = {0};
	char line[201], big[3001] = "";
	for (int i = 0; i < 15; i++) { /* 15 lines of 200 bytes: 3000 */
		memset(line, 'a' + i, 199);
		line[199] = '\n';
		line[200] = '\0';
		strcat(big, line);
	}
	add(&e, big);
	for (size_t at = 0; at < 3000; at += 7) /* as a pipe may give it */
		errtail_add(&pieces, big + at, at + 7 <= 3000 ? 7 : 3000 - at);
	ok(e.len == ERRTAIL_KEEP && e.total == 3000,
	   "3000 bytes: the last 2048 kept, 3000 counted");
	char *t = written(&e), *u = written(&pieces);
	ok(count_lines(t) == 10 && strncmp(t, "stderr fffff", 12) == 0 &&
	       strlen(t) == 10 * (7 + 199 + 1),
	   "the line the cut went through is left out: 10 whole lines, f to o");
	is_str(u, t, "the same when it came in small pieces");
	free(t);
	free(u);
}

static void pipe_read(void)
{
	struct errtail e = {0};
	int fds[2];
	ok(pipe(fds) == 0, "a pipe");
	ssize_t w = write(fds[1], "from the pipe\n", 14);
	close(fds[1]);
	ok(w == 14 && errtail_read(&e, fds[0]) == 0 && e.total == 14,
	   "errtail_read takes what came");
	ok(errtail_read(&e, fds[0]) < 0, "and -1 at its end");
	close(fds[0]);
	char *t = written(&e);
	is_str(t, "stderr from the pipe\n", "as a line");
	free(t);
}

int main(void)
{
	short_text();
	last_lines();
	cut();
	pipe_read();
	return done_testing();
}
