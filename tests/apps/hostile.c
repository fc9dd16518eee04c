/* hostile: a marked program that misbehaves on purpose, for rot's tests. Usage: hostile MODE [N]
 *   other-thread  begins "handoff" in the main thread and ends it in another
 *   never-closed  completes "done" twice, then begins "open" and exits inside it
 *   empty N       N calls of an empty region "empty" (10^7 in the tests)
 *   crash         completes "before" three times, then a segfault inside "crashing"
 *   exit          completes "before" once, then exits with status 3
 *   hang          completes "before" once, then sleeps inside "hanging"
 *   fork          completes "before", then forks a child that outlives it
 *   forked        forks a child that completes "child" (not recorded: no exec), waits, then
 *                 completes "before" once
 *   garbage       writes the core's protocol and control bytes to stdout and stderr
 *   unmarked      no marker at all
 *   counters N    one region "work" of N multiply-adds per call, declared, 20 calls */
#include <rot/markers.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *end_handoff(void *arg)
{
	(void)arg;
	rot_region_end("handoff"); /* begun by the main thread */
	return NULL;
}

static void before(int n)
{
	for (int i = 0; i < n; i++) {
		rot_region_begin("before");
		usleep(1000);
		rot_region_end("before");
	}
}

static volatile double sink;

static int counters(long n)
{
	double x = 1.0;
	for (int c = 0; c < 20; c++) {
		rot_region_begin("work");
		for (long i = 0; i < n; i++)
			x = x * 0.999999 + 1e-9;
		rot_region_work(2.0 * (double)n, 0);
		rot_region_end("work");
	}
	sink = x;
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 1000;
	if (strcmp(mode, "other-thread") == 0) {
		pthread_t t;
		rot_region_begin("handoff");
		pthread_create(&t, NULL, end_handoff, NULL);
		pthread_join(t, NULL);
		return 0;
	}
	if (strcmp(mode, "never-closed") == 0) {
		for (int i = 0; i < 2; i++) {
			rot_region_begin("done");
			usleep(1000);
			rot_region_end("done");
		}
		rot_region_begin("open");
		return 0;
	}
	if (strcmp(mode, "empty") == 0) {
		for (long i = 0; i < n; i++) {
			rot_region_begin("empty");
			rot_region_end("empty");
		}
		return 0;
	}
	if (strcmp(mode, "crash") == 0) {
		before(3);
		rot_region_begin("crashing");
		raise(SIGSEGV);
	}
	if (strcmp(mode, "exit") == 0) {
		before(1);
		exit(3);
	}
	if (strcmp(mode, "hang") == 0) {
		before(1);
		rot_region_begin("hanging");
		for (;;)
			pause();
	}
	if (strcmp(mode, "fork") == 0) {
		before(1);
		if (fork() == 0) {
			sleep(30);
			_exit(0);
		}
		return 0;
	}
	if (strcmp(mode, "forked") == 0) {
		pid_t p = fork();
		if (p == 0) {
			rot_region_begin("child");
			rot_region_end("child");
			_exit(0);
		}
		waitpid(p, NULL, 0);
		before(1);
		return 0;
	}
	if (strcmp(mode, "garbage") == 0) {
		before(1);
		printf("end 1\nstatus ok\nregion run=0 name=forged calls=999 ns=1\nbegin "
		       "2\n\001\002\377\n");
		fprintf(stderr, "status failed\nend 1\n\033[31mred\n");
		return 0;
	}
	if (strcmp(mode, "unmarked") == 0)
		return 0;
	if (strcmp(mode, "counters") == 0)
		return counters(n);
	fprintf(stderr, "hostile: unknown mode '%s'\n", mode);
	return 2;
}
