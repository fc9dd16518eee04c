/* device_cpu: the host CPU as a device (device.h): kernels timed in their threads with
 * CLOCK_MONOTONIC_RAW and the fenced TSC, caches evicted on the host. */
#define _GNU_SOURCE
#include "device.h"
#include "flush.h"
#include "timer.h"

#include <sched.h>
#include <sys/resource.h>

static int cpu_prepare(struct point *p, FILE *out)
{
	return 0;
}

static int cpu_time(struct workload *wl, int index, long reps, struct device_timing *t, char *err,
		    size_t len)
{
	struct rusage a, b;
	const struct rot_kernel *k = wl->args.kernel;
	int nt = wl->threads;
	getrusage(RUSAGE_THREAD, &a);
	t->cpu0 = sched_getcpu();
	t->t0 = timer_ns();
	t->c0 = timer_tsc_start();
	if (nt > 1)
		for (long r = 0; r < reps; r++)
			k->run_thread(wl->state, index, nt);
	else
		for (long r = 0; r < reps; r++)
			k->run(wl->state);
	t->c1 = timer_tsc_stop();
	t->t1 = timer_ns();
	t->cpu1 = sched_getcpu();
	getrusage(RUSAGE_THREAD, &b);
	t->vcsw = b.ru_nvcsw - a.ru_nvcsw;
	t->ivcsw = b.ru_nivcsw - a.ru_nivcsw;
	return 0;
}

/* The run's flush rules, then, in cold mode, the whole eviction. */
static int cpu_before_run(struct point *p, int run, const struct rot_buffer *bufs, int nbufs,
			  char *err, size_t len)
{
	int flushes = measure_flush_rules(p, EV_RUN_START, run, bufs, nbufs);
	if (p->cold)
		flush_caches(bufs, nbufs);
	return flushes;
}

const struct device device_cpu = {
    .name = "cpu",
    .host_caches = 1,
    .prepare = cpu_prepare,
    .time = cpu_time,
    .before_run = cpu_before_run,
    .after_runs = NULL,
};
