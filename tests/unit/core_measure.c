/* Unit tests for the core measuring points in traced children (process_measure): failures of
 * the set-up and of the tracer itself are reported promptly and in words, and leave no child
 * behind: a workload thread that cannot start, a thread that cannot be pinned, a failed poll.
 * judges no time */
#define _GNU_SOURCE
#include "input.h"
#include "process.h"
#include "tap.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* poll as the tracer calls it (not declared from <poll.h>, whose fortified inline would clash):
 * the system's, or ENOMEM while poll_fails is set. poll_calls says whether the tracer's calls
 * come here at all (a fortified build calls __poll_chk instead). */
struct pollfd;
int poll(struct pollfd *fds, unsigned long n, int timeout);
static int poll_fails, poll_calls;

int poll(struct pollfd *fds, unsigned long n, int timeout)
{
	struct timespec ts = {timeout / 1000, (timeout % 1000) * 1000000L};
	poll_calls++;
	if (poll_fails) {
		errno = ENOMEM;
		return -1;
	}
	return (int)syscall(SYS_ppoll, fds, n, timeout < 0 ? NULL : &ts, NULL, (size_t)8);
}

static const struct rot_param params[] = {{"n", 1, "unused"}, {NULL, 0, NULL}};

static void *init(const struct rot_args *a)
{
	return malloc(8);
}

/* Leaves the address space room for one more thread's stack, not for two: the second workload
 * thread cannot start. */
static void *init_cramped(const struct rot_args *a)
{
	pthread_attr_t attr;
	size_t stack = 8 << 20;
	long pages = 0;
	struct rlimit r;
	FILE *f = fopen("/proc/self/statm", "r");
	int read = f && fscanf(f, "%ld", &pages) == 1;
	if (f)
		fclose(f);
	if (!read || getrlimit(RLIMIT_AS, &r) < 0)
		return NULL;
	if (pthread_getattr_default_np(&attr) == 0)
		pthread_attr_getstacksize(&attr, &stack);
	r.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + stack + stack / 2;
	return setrlimit(RLIMIT_AS, &r) < 0 ? NULL : malloc(8);
}

static void run(void *s)
{
	nanosleep(&(struct timespec){0, 1000000}, NULL);
}

static void run_thread(void *s, int t, int n)
{
	run(s);
}

static void dispose(void *s)
{
	free(s);
}

static const struct rot_kernel nap = {.name = "nap",
				      .params = params,
				      .init = init,
				      .run = run,
				      .run_thread = run_thread,
				      .dispose = dispose};
ROT_KERNEL(nap)
static const struct rot_kernel cramped = {.name = "cramped",
					  .params = params,
					  .init = init_cramped,
					  .run = run,
					  .run_thread = run_thread,
					  .dispose = dispose};
ROT_KERNEL(cramped)

static char result[16384];

static void done(void *ctx, int index, const char *text, size_t len, int failed)
{
	snprintf(result, sizeof result, "%.*s", (int)len, text);
}

/* Measures the point of one workload line (and a timeout of 30 s); its result in result.
 * Returns 1 when it was measured, 0 when it failed, -1 when the line was refused. */
static int measure(const char *workload)
{
	static struct point p;
	char err[512];
	input_defaults(&p);
	result[0] = '\0';
	if (input_line(&p, workload, err, sizeof err) < 0 ||
	    input_line(&p, "timeout 30", err, sizeof err) < 0 ||
	    input_finish(&p, err, sizeof err) < 0)
		return -1;
	return process_measure(&p, 1, done, NULL) == 0;
}

/* The result, as TAP comments: what a failed check saw. */
static void show(int good)
{
	for (const char *l = result; !good && *l;) {
		size_t n = strcspn(l, "\n");
		printf("#   %.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
}

/* No child of this process is left, running or unreaped. */
static int no_child_left(void)
{
	int st;
	return waitpid(-1, &st, __WALL | WNOHANG) < 0 && errno == ECHILD;
}

static int traceable(void)
{
	return !strstr(result, "PTRACE_TRACEME");
}

static void thread_cannot_start(void)
{
	int rc = measure("workload cramped threads 3");
	if (!traceable()) {
		ok(1, "# skip ptrace is refused here");
		return;
	}
	int good = rc == 0 && strstr(result, "error cannot start workload thread 1: ") &&
		   strstr(result, "meta failure setup");
	ok(good, "a workload thread that cannot start: the point fails saying so (not at its "
		 "timeout)");
	show(good);
	ok(no_child_left(), "and no child is left");
}

static void thread_cannot_pin(void)
{
	int rc = measure("workload nap threads 2 pin 4000,4000");
	if (!traceable()) {
		ok(1, "# skip ptrace is refused here");
		return;
	}
	int good = rc == 0 && strstr(result, "error cannot pin to cpu 4000: Invalid argument") &&
		   strstr(result, "meta failure setup");
	ok(good, "a workload thread that cannot be pinned: the point fails saying so");
	show(good);
	rc = measure("workload nap pin 4000");
	ok(rc == 0 && strstr(result, "error cannot pin to cpu 4000: Invalid argument"),
	   "as the only thread does");
}

static void poll_failed(void)
{
	poll_fails = 1;
	poll_calls = 0;
	int rc = measure("workload nap");
	poll_fails = 0;
	if (!traceable() || !poll_calls) {
		ok(1, "# skip %s",
		   poll_calls ? "ptrace is refused here" : "poll cannot be replaced");
		return;
	}
	int good = rc == 0 &&
		   strstr(result, "error the measuring child was killed: waiting for it (poll) "
				  "failed: Cannot allocate memory") &&
		   strstr(result, "meta failure setup");
	ok(good, "the tracer's poll fails: the point fails saying so");
	show(good);
	ok(no_child_left(), "and the child was killed and reaped");
}

int main(void)
{
	thread_cannot_start();
	thread_cannot_pin();
	poll_failed();
	return done_testing();
}
