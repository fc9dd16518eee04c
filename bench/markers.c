/* markers: the programs make bench times rot's markers with (bench/apps.sh).
 *   markers pairs N OUT       N begin/end pairs of an empty region: ns a pair into OUT
 *   markers app N REPS OUT    REPS calls of a region of N dependent multiply-adds (a compute
 *                             chain: its time barely moves with the neighbours' memory traffic;
 *                             >= 1 ms a call for the bench's N): the program's own time, main to
 *                             end, ns into OUT
 *   markers spawn OUT PROG ARG...  PROG started, waited for: its time from fork to its end
 *                             (what rot's "(program)" row times: the bench's run without rot) */
#include <rot/markers.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int put(const char *path, double v)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%.6g\n", v);
	return fclose(f) != 0;
}

static int pairs(long n, const char *out)
{
	double t0 = now_ns();
	for (long i = 0; i < n; i++) {
		rot_region_begin("empty");
		rot_region_end("empty");
	}
	return put(out, (now_ns() - t0) / (double)n);
}

static int app(long n, long reps, const char *out)
{
	double t0 = now_ns(),
	       x = 0.5 + (double)reps * 1e-9; /* not known when compiled: no folding */
	for (long r = 0; r < reps; r++) {
		rot_region_begin("chain");
		for (long i = 0; i < n; i++)
			x = x * 0.9999999 + 1e-7;
		rot_region_work(2.0 * (double)n, 0);
		rot_region_end("chain");
	}
	volatile double sink = x;
	(void)sink;
	return put(out, now_ns() - t0);
}

static int spawn(const char *out, char **argv)
{
	int st;
	double t0 = now_ns();
	pid_t pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	return put(out, now_ns() - t0);
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "pairs") == 0)
		return pairs(atol(argv[2]), argv[3]);
	if (argc == 5 && strcmp(argv[1], "app") == 0)
		return app(atol(argv[2]), atol(argv[3]), argv[4]);
	if (argc >= 4 && strcmp(argv[1], "spawn") == 0)
		return spawn(argv[2], argv + 3);
	fprintf(stderr, "usage: markers pairs N OUT | app N REPS OUT | spawn OUT PROG ARG...\n");
	return 2;
}
