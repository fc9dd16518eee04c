/* measure: what the traced child does for one point: initialize the kernel, bring caches
 * to the asked state, time runs until the best-k rule is met, and write the raw outputs. */
#define _GNU_SOURCE
#include "measure.h"
#include "flush.h"
#include "timer.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define MAX_BUFFERS 16

struct run {
	uint64_t ns, tsc;
	long vcsw, ivcsw;
	int cpu;
};

static void timed(const struct rot_kernel *k, void *state, long reps, struct run *r)
{
	struct rusage before, after;
	getrusage(RUSAGE_THREAD, &before);
	uint64_t n0 = timer_ns();
	uint64_t c0 = timer_tsc_start();
	for (long i = 0; i < reps; i++)
		k->run(state);
	uint64_t c1 = timer_tsc_stop();
	uint64_t n1 = timer_ns();
	getrusage(RUSAGE_THREAD, &after);
	r->ns = n1 - n0;
	r->tsc = c1 - c0;
	r->vcsw = after.ru_nvcsw - before.ru_nvcsw;
	r->ivcsw = after.ru_nivcsw - before.ru_nivcsw;
	r->cpu = sched_getcpu();
}

/* Repetitions so that one warm run lasts at least min_time seconds. */
static long calibrate(const struct rot_kernel *k, void *state, double min_time)
{
	long reps = 1;
	struct run r;
	for (int i = 0; i < 30; i++) {
		timed(k, state, reps, &r);
		double t = (double)r.ns * 1e-9;
		if (t >= min_time)
			break;
		double grow = t > 0 ? 1.2 * min_time / t : 1000;
		if (grow > 1000)
			grow = 1000;
		reps = (long)(reps * grow) + 1;
	}
	return reps;
}

int measure_point(const struct point *p, FILE *out)
{
	const struct rot_kernel *k = p->args.kernel;
	struct rot_buffer bufs[MAX_BUFFERS];
	double *times = NULL;
	int nbufs = 0, rc = -1;
	size_t working = 0;

	errno = 0;
	void *state = k->init(&p->args);
	if (!state) {
		fprintf(out, "error kernel '%s' failed to initialize: %s\n", k->name,
			errno ? strerror(errno) : "init returned NULL");
		return -1;
	}
	if (k->buffers)
		nbufs = k->buffers(state, bufs, MAX_BUFFERS);
	for (int i = 0; i < nbufs; i++)
		working += bufs[i].bytes;
	if (p->cold && flush_init() < 0) {
		fprintf(out, "error cannot allocate the cache-eviction buffer: %s\n", strerror(errno));
		goto out;
	}
	times = calloc((size_t)p->rule.max_runs, sizeof *times);
	if (!times) {
		fprintf(out, "error out of memory\n");
		goto out;
	}
	long reps = 1;
	if (!p->cold) {
		k->run(state); /* warm-up: the working set and the code are in cache */
		reps = calibrate(k, state, p->min_run_time);
	}
	fprintf(out, "meta kernel %s\n", k->name);
	fprintf(out, "meta flops %.17g\n", k->flops ? k->flops(&p->args) : 0.0);
	fprintf(out, "meta bytes %.17g\n", k->bytes ? k->bytes(&p->args) : 0.0);
	fprintf(out, "meta workingSet %zu\n", working);
	fprintf(out, "meta cacheMode %s\n", p->cold ? "cold" : "warm");
	fprintf(out, "meta tscAvailable %d\n", TIMER_HAVE_TSC);
	int n = 0, converged = 0;
	while (n < p->rule.max_runs) {
		struct run r;
		if (p->cold)
			flush_caches(bufs, nbufs);
		timed(k, state, reps, &r);
		times[n++] = (double)r.ns / (double)reps;
		fprintf(out, "run ns=%llu tsc=%llu reps=%ld cpu=%d vcsw=%ld ivcsw=%ld\n",
			(unsigned long long)r.ns, (unsigned long long)r.tsc, reps, r.cpu, r.vcsw,
			r.ivcsw);
		if (bestk_converged(&p->rule, times, (size_t)n)) {
			converged = 1;
			break;
		}
	}
	fprintf(out, "meta converged %d\nmeta complete 1\n", converged);
	rc = 0;
out:
	if (p->cold)
		flush_dispose();
	free(times);
	if (k->dispose)
		k->dispose(state);
	return rc;
}
