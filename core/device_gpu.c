/* device_gpu: a CUDA GPU as a device (device.h): launches timed with CUDA events, L2 flushed on
 * the device, metrics profiled after the runs; the only file that asks whether ROT_GPU is set. */
#define _GNU_SOURCE
#include "device.h"
#include "failure.h"

#include <sched.h>
#include <string.h>

#ifdef ROT_GPU
#include "gpu.h"
#include "gpuprof.h"
#endif

static void fail(FILE *out, enum failure_kind kind, const char *message)
{
	failure_write_error(out, &(struct failure){.kind = kind, .message = message});
}

static int gpu_open(FILE *out);

/* One workload, one host thread, a usable device: its meta lines. */
static int gpu_prepare(struct point *p, FILE *out)
{
	if (p->nw != 1 || p->w[0].threads != 1) {
		fail(out, FAILURE_INPUT,
		     "a GPU kernel runs as the only workload, with one host thread");
		return -1;
	}
	return gpu_open(out);
}

#ifdef ROT_GPU
static int gpu_open(FILE *out)
{
	char err[512];
	if (gpu_available(err, sizeof err) < 0) {
		fail(out, FAILURE_NODEVICE, err);
		return -1;
	}
	gpu_info(out);
	return 0;
}

/* CUDA events around the launches: the run's time is the GPU's. */
static int gpu_time_run(struct workload *wl, int index, long reps, struct device_timing *t,
			char *err, size_t len)
{
	double ns = gpu_time(wl->args.kernel, wl->state, reps, err, len);
	t->t0 = 0;
	t->t1 = ns > 0 ? (uint64_t)ns : 0;
	t->c0 = t->c1 = 0;
	t->cpu0 = t->cpu1 = sched_getcpu();
	t->vcsw = t->ivcsw = 0;
	return ns < 0 ? -1 : 0;
}

/* Cold mode: L2 evicted on the device (the host's caches are not the kernel's). */
static int gpu_before_run(struct point *p, int run, const struct rot_buffer *bufs, int nbufs,
			  char *err, size_t len)
{
	return p->cold && gpu_flush_l2(err, len) < 0 ? -1 : 0;
}

/* The point's metrics, from their own runs after (never during) the timed ones. */
static int gpu_after_runs(struct point *p, FILE *out)
{
	const char *names[GPU_MAX_METRICS];
	double values[GPU_MAX_METRICS];
	char err[512];
	int passes = 0;
	if (p->ngpu_metrics == 0)
		return 0;
	for (int i = 0; i < p->ngpu_metrics; i++)
		names[i] = p->gpu_metrics[i];
	if (gpuprof_profile(p->w[0].args.kernel, p->w[0].state, names, p->ngpu_metrics, values,
			    &passes, err, sizeof err) < 0) {
		fail(out, FAILURE_PROFILE, err);
		return -1;
	}
	for (int i = 0; i < p->ngpu_metrics; i++)
		fprintf(out, "meta gpuMetric%d %s\nmeta gpuValue%d %.17g\n", i, names[i], i,
			values[i]);
	fprintf(out, "meta gpuPasses %d\n", passes);
	return 0;
}

/* The device, for the driver: --chip (for metric checks), --device (for the machine's
 * identity), --metrics CHIP NAME... (the metrics' names checked). */
int device_command(int argc, char **argv, int *rc)
{
	char err[512];
	int chip = argc == 2 && strcmp(argv[1], "--chip") == 0;
	if (chip || (argc == 2 && strcmp(argv[1], "--device") == 0)) {
		if (gpu_available(err, sizeof err) < 0) {
			fprintf(stderr, "%s\n", err);
			*rc = 1;
		} else {
			*rc = (chip ? gpuprof_chip(stdout) : gpu_identity(stdout)) == 0 ? 0 : 1;
		}
		return 1;
	}
	if (argc >= 4 && strcmp(argv[1], "--metrics") == 0) {
		*rc = gpuprof_check_metrics(stdout, argv[2], (const char *const *)argv + 3,
					    argc - 3) == 0
			  ? 0
			  : 1;
		return 1;
	}
	return 0;
}

const struct device device_gpu = {
    .name = "gpu",
    .host_caches = 0,
    .prepare = gpu_prepare,
    .time = gpu_time_run,
    .before_run = gpu_before_run,
    .after_runs = gpu_after_runs,
};
#else
/* Built without CUDA: a GPU point is refused (the rest is never reached). */
static int gpu_open(FILE *out)
{
	fail(out, FAILURE_INPUT, "this core was built without CUDA");
	return -1;
}

static int gpu_time_run(struct workload *wl, int index, long reps, struct device_timing *t,
			char *err, size_t len)
{
	snprintf(err, len, "this core was built without CUDA");
	return -1;
}

static int gpu_before_run(struct point *p, int run, const struct rot_buffer *bufs, int nbufs,
			  char *err, size_t len)
{
	snprintf(err, len, "this core was built without CUDA");
	return -1;
}

int device_command(int argc, char **argv, int *rc)
{
	return 0;
}

const struct device device_gpu = {
    .name = "gpu",
    .host_caches = 0,
    .prepare = gpu_prepare,
    .time = gpu_time_run,
    .before_run = gpu_before_run,
    .after_runs = NULL,
};
#endif
