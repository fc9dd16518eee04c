/* measure: what the traced child does for one point: initialize the workloads, start their
 * threads (optionally pinned), bring caches to the asked state, time runs until the best-k
 * rule is met, tell the parent about events, and write the raw outputs. */
#define _GNU_SOURCE
#include "measure.h"
#include "failure.h"
#include "flush.h"
#include "sysinfo.h"
#include "timer.h"
#ifdef ROT_GPU
#include "gpu.h"
#include "gpuprof.h"
#endif

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define MAX_REPORT 32
#define MAX_BUFFERS 64

struct team;

struct worker {
	pthread_t th;
	struct workload *wl;
	int index, cpu_pin;
	struct team *team;
	uint64_t t0, t1, c0, c1;
	long vcsw, ivcsw;
	int cpu0, cpu1;
};

struct team {
	char gpu_err[512]; /* a GPU kernel's failure inside a timed run */
	pthread_barrier_t start, end;
	volatile int stop;
	long reps;
	struct worker *w;
	int n;
	int inline_run; /* one thread in all: the main thread runs the kernel itself */
};

/* ROT_TALLY=1 kernels add the work they did here (see kernels/cpu/tally.h) */
double rot_tally_flops, rot_tally_bytes;
static long invocations;

struct run {
	uint64_t ns, tsc;
	long vcsw, ivcsw;
	int migrations;
	char cpus[256];
};

void measure_tell(int sig, union sigval v)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL); /* a kernel may have blocked every signal */
	pthread_sigqueue(pthread_self(), sig, v);
}

static void notify(const struct point *p, enum rot_event e, int run)
{
	union sigval v = {.sival_int = ROT_EVENT_CODE(e, run < 0 ? 0xffff : run)};
	measure_tell(ROT_EVENT_SIGNAL, v);
}

/* Child-side actions (flush); returns how many ran. */
static int child_rules(const struct point *p, enum rot_event e, int run, const struct rot_buffer *b,
		       int nb)
{
	int n = 0;
	for (int i = 0; i < p->nrules; i++) {
		if (p->rules[i].action == ACT_FLUSH && rules_match(&p->rules[i], e, run, -1)) {
			flush_caches(b, nb);
			n++;
		}
	}
	return n;
}

static int pin_self(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof set, &set);
}

static void work(struct worker *w, long reps)
{
	struct rusage a, b;
	const struct rot_kernel *k = w->wl->args.kernel;
	int nt = w->wl->threads;
#ifdef ROT_GPU
	if (k->gpu) { /* CUDA events around the launches: the run's time is the GPU's */
		double ns =
		    gpu_time(k, w->wl->state, reps, w->team->gpu_err, sizeof w->team->gpu_err);
		w->t0 = 0;
		w->t1 = ns > 0 ? (uint64_t)ns : 0;
		w->c0 = w->c1 = 0;
		w->cpu0 = w->cpu1 = sched_getcpu();
		w->vcsw = w->ivcsw = 0;
		return;
	}
#endif
	getrusage(RUSAGE_THREAD, &a);
	w->cpu0 = sched_getcpu();
	w->t0 = timer_ns();
	w->c0 = timer_tsc_start();
	if (nt > 1)
		for (long r = 0; r < reps; r++)
			k->run_thread(w->wl->state, w->index, nt);
	else
		for (long r = 0; r < reps; r++)
			k->run(w->wl->state);
	w->c1 = timer_tsc_stop();
	w->t1 = timer_ns();
	w->cpu1 = sched_getcpu();
	getrusage(RUSAGE_THREAD, &b);
	w->vcsw = b.ru_nvcsw - a.ru_nvcsw;
	w->ivcsw = b.ru_nivcsw - a.ru_nivcsw;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	if (w->cpu_pin >= 0)
		pin_self(w->cpu_pin);
	for (;;) {
		pthread_barrier_wait(&w->team->start);
		if (w->team->stop)
			break;
		work(w, w->team->reps);
		pthread_barrier_wait(&w->team->end);
	}
	return NULL;
}

/* One timed run of every workload thread; the run lasts from the first start to the last end. */
static void team_run(struct team *t, long reps, struct run *r)
{
	t->reps = reps;
	invocations += reps;
	if (t->inline_run) {
		work(&t->w[0], reps);
	} else {
		pthread_barrier_wait(&t->start);
		pthread_barrier_wait(&t->end);
	}
	uint64_t t0 = UINT64_MAX, t1 = 0, c0 = UINT64_MAX, c1 = 0;
	size_t used = 0;
	memset(r, 0, sizeof *r);
	for (int i = 0; i < t->n; i++) {
		struct worker *w = &t->w[i];
		t0 = w->t0 < t0 ? w->t0 : t0;
		t1 = w->t1 > t1 ? w->t1 : t1;
		c0 = w->c0 < c0 ? w->c0 : c0;
		c1 = w->c1 > c1 ? w->c1 : c1;
		r->vcsw += w->vcsw;
		r->ivcsw += w->ivcsw;
		r->migrations += w->cpu0 != w->cpu1;
		if (used < sizeof r->cpus - 8)
			used += (size_t)snprintf(r->cpus + used, sizeof r->cpus - used, "%s%d",
						 i ? "." : "", w->cpu1);
	}
	r->ns = t1 - t0;
	r->tsc = c1 - c0;
}

static int team_start(struct point *p, struct team *t, char *err, size_t errlen)
{
	int n = 0;
	for (int i = 0; i < p->nw; i++)
		n += p->w[i].threads;
	t->w = calloc((size_t)n, sizeof *t->w);
	if (!t->w) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->n = n;
	int k = 0, pinned = 0;
	for (int i = 0; i < p->nw; i++) {
		for (int j = 0; j < p->w[i].threads; j++, k++) {
			struct worker *w = &t->w[k];
			w->wl = &p->w[i];
			w->index = j;
			w->team = t;
			w->cpu_pin = p->w[i].npin ? p->w[i].pin[j % p->w[i].npin] : -1;
			pinned |= w->cpu_pin >= 0;
		}
	}
	t->inline_run = n == 1;
	if (t->inline_run) {
		if (pinned && pin_self(t->w[0].cpu_pin) < 0) {
			snprintf(err, errlen, "cannot pin to cpu %d: %s", t->w[0].cpu_pin,
				 strerror(errno));
			return -1;
		}
		return 0;
	}
	pthread_barrier_init(&t->start, NULL, (unsigned)n + 1);
	pthread_barrier_init(&t->end, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++) {
		int rc = pthread_create(&t->w[i].th, NULL, worker_main, &t->w[i]);
		if (rc) {
			snprintf(err, errlen, "cannot start workload thread %d: %s", i,
				 strerror(rc));
			t->n = i; /* the started ones are stopped by team_stop */
			return -1;
		}
	}
	return 0;
}

static void team_stop(struct team *t)
{
	if (!t->inline_run && t->n > 0) {
		t->stop = 1;
		pthread_barrier_wait(&t->start);
		for (int i = 0; i < t->n; i++)
			pthread_join(t->w[i].th, NULL);
		pthread_barrier_destroy(&t->start);
		pthread_barrier_destroy(&t->end);
	}
	free(t->w);
}

/* Repetitions so that one warm run lasts at least min_time seconds. */
static long calibrate(struct team *t, double min_time)
{
	long reps = 1;
	struct run r;
	for (int i = 0; i < 30; i++) {
		team_run(t, reps, &r);
		double s = (double)r.ns * 1e-9;
		if (s >= min_time)
			break;
		double grow = s > 0 ? 1.2 * min_time / s : 1000;
		reps = (long)(reps * (grow > 1000 ? 1000 : grow)) + 1;
	}
	return reps;
}

/* Cost of the timing itself: the smallest of many empty timed regions. */
static void timer_overhead(uint64_t *ns, uint64_t *tsc)
{
	*ns = *tsc = UINT64_MAX;
	for (int i = 0; i < 1000; i++) {
		uint64_t n0 = timer_ns(), c0 = timer_tsc_start();
		uint64_t c1 = timer_tsc_stop(), n1 = timer_ns();
		if (n1 - n0 < *ns)
			*ns = n1 - n0;
		if (c1 - c0 < *tsc)
			*tsc = c1 - c0;
	}
}

/* What the kernel measured itself, as "meta report.NAME VALUE" lines. */
static void kernel_report(const struct rot_kernel *k, void *state, FILE *out)
{
	struct rot_value v[MAX_REPORT];
	if (!k->report)
		return;
	int n = k->report(state, v, MAX_REPORT);
	for (int i = 0; i < n && i < MAX_REPORT; i++)
		if (v[i].name && v[i].name[0] &&
		    v[i].name[strspn(v[i].name, "abcdefghijklmnopqrstuvwxyz"
						"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")] == '\0')
			fprintf(out, "meta report.%s %.17g\n", v[i].name, v[i].value);
}

/* Writes a failure of the point (its kind and message) for the tracer to report. */
static void fail(FILE *out, enum failure_kind kind, const char *message)
{
	failure_write_error(out, &(struct failure){.kind = kind, .message = message});
}

/* GPU points: one workload, one host thread, a usable device. -1 after an error line. */
static int gpu_check(struct point *p, FILE *out, int *gpu)
{
	*gpu = 0;
	for (int i = 0; i < p->nw; i++)
		*gpu |= p->w[i].args.kernel->gpu;
	if (!*gpu)
		return 0;
	if (p->nw != 1 || p->w[0].threads != 1) {
		fail(out, FAILURE_INPUT,
		     "a GPU kernel runs as the only workload, with one host thread");
		return -1;
	}
#ifdef ROT_GPU
	char err[512];
	if (gpu_available(err, sizeof err) < 0) {
		fail(out, FAILURE_NODEVICE, err);
		return -1;
	}
	gpu_info(out);
	return 0;
#else
	fail(out, FAILURE_INPUT, "this core was built without CUDA");
	return -1;
#endif
}

int measure_point(struct point *p, FILE *out)
{
	struct rot_buffer bufs[MAX_BUFFERS];
	struct team team = {0};
	double *times = NULL;
	int nbufs = 0, rc = -1, inited = 0, need_flush = p->cold;
	size_t working = 0;
	double flops = 0, bytes = 0;
	char err[512];
	int gpu;

	if (gpu_check(p, out, &gpu) < 0)
		return -1;

	for (; inited < p->nw; inited++) {
		struct workload *w = &p->w[inited];
		const struct rot_kernel *k = w->args.kernel;
		errno = 0;
		w->state = k->init(&w->args);
		if (!w->state) {
			snprintf(err, sizeof err, "kernel '%s' failed to initialize: %s", k->name,
				 errno ? strerror(errno) : "init returned NULL");
			fail(out, FAILURE_KERNEL, err);
			goto out;
		}
		if (k->buffers)
			nbufs += k->buffers(w->state, bufs + nbufs, MAX_BUFFERS - nbufs);
		flops += k->flops ? k->flops(&w->args) : 0.0;
		bytes += k->bytes ? k->bytes(&w->args) : 0.0;
	}
	for (int i = 0; i < nbufs; i++)
		working += bufs[i].bytes;
	for (int i = 0; i < p->nrules; i++)
		need_flush |= p->rules[i].action == ACT_FLUSH;
	need_flush &= !gpu; /* a GPU point flushes L2 on the device instead */
	size_t flush_bytes = 0;
	int llc_known = 1;
	if (need_flush && (flush_bytes = flush_init(&llc_known)) == 0) {
		failure_write_error(out, &(struct failure){.kind = FAILURE_SETUP,
							   .message = "cannot allocate the "
								      "cache-eviction buffer",
							   .err = errno});
		goto out;
	}
	times = calloc((size_t)p->rule.max_runs, sizeof *times);
	if (!times) {
		fail(out, FAILURE_SETUP, "out of memory");
		goto out;
	}
	uint64_t ov_ns, ov_tsc;
	timer_overhead(&ov_ns, &ov_tsc);
	sysinfo_static(out, sched_getcpu());
	sysinfo_frequency(out, "Before", sched_getcpu());
	if (team_start(p, &team, err, sizeof err) < 0) {
		fail(out, FAILURE_SETUP, err);
		goto out_team;
	}
	notify(p, EV_WORKLOAD_START, -1);
	int flushes = child_rules(p, EV_WORKLOAD_START, -1, bufs, nbufs);
	long reps = 1;
	struct run r;
	if (!p->cold) {
		team_run(&team, 1, &r); /* warm-up: the working set and the code are in cache */
		reps = calibrate(&team, p->min_run_time);
	}
	if (team.gpu_err[0]) {
		fail(out, FAILURE_KERNEL, team.gpu_err);
		goto out_team;
	}
	for (int i = 0; i < p->nw; i++)
		fprintf(out, "meta workload%d %s threads=%d\n", i, p->w[i].args.kernel->name,
			p->w[i].threads);
	fprintf(out, "meta kernel %s\n", p->w[0].args.kernel->name);
	fprintf(out, "meta flops %.17g\nmeta bytes %.17g\nmeta workingSet %zu\n", flops, bytes,
		working);
	fprintf(out, "meta threads %d\n", team.n);
	fprintf(out, "meta cacheMode %s\n", p->cold ? "cold" : "warm");
	fprintf(out, "meta timerOverheadNs %llu\nmeta timerOverheadTsc %llu\n",
		(unsigned long long)ov_ns, (unsigned long long)ov_tsc);
	fprintf(out, "meta tscAvailable %d\n", TIMER_HAVE_TSC);
	if (need_flush) /* guessed: hwloc knows no cache size on this machine */
		fprintf(out, "meta flushBytes %zu\nmeta flushSize %s\n", flush_bytes,
			llc_known ? "topology" : "guessed");
	int n = 0, kept = 0, converged = 0;
	uint64_t sum_ns = 0, sum_tsc = 0;
	while (n < p->rule.max_runs) {
		if (!gpu)
			flushes += child_rules(p, EV_RUN_START, n, bufs, nbufs);
		if (p->cold && !gpu)
			flush_caches(bufs, nbufs);
#ifdef ROT_GPU
		if (p->cold && gpu && gpu_flush_l2(err, sizeof err) < 0) {
			fail(out, FAILURE_KERNEL, err);
			goto out_team;
		}
#endif
		notify(p, EV_RUN_START, n);
		team_run(&team, reps, &r);
		notify(p, EV_RUN_END, n);
		if (team.gpu_err[0]) {
			fail(out, FAILURE_KERNEL, team.gpu_err);
			goto out_team;
		}
		int disturbed = r.ivcsw > 0 || r.migrations > 0;
		fprintf(out,
			"run ns=%llu tsc=%llu reps=%ld cpus=%s mig=%d vcsw=%ld ivcsw=%ld "
			"disturbed=%d\n",
			(unsigned long long)r.ns, (unsigned long long)r.tsc, reps, r.cpus,
			r.migrations, r.vcsw, r.ivcsw, disturbed);
		sum_ns += r.ns;
		sum_tsc += r.tsc;
		n++;
		if (!(p->ignore_disturbed && disturbed))
			times[kept++] = (double)r.ns / (double)reps;
		if (n >= p->rule.min_runs && bestk_converged(&p->rule, times, (size_t)kept)) {
			converged = 1;
			break;
		}
	}
	notify(p, EV_WORKLOAD_STOP, -1);
#ifdef ROT_GPU
	if (gpu && p->ngpu_metrics > 0) { /* counters come from their own runs, after the timing */
		const char *names[64];
		double values[64];
		int passes = 0;
		for (int i = 0; i < p->ngpu_metrics; i++)
			names[i] = p->gpu_metrics[i];
		if (gpuprof_profile(p->w[0].args.kernel, p->w[0].state, names, p->ngpu_metrics,
				    values, &passes, err, sizeof err) < 0) {
			fail(out, FAILURE_PROFILE, err);
			goto out_team;
		}
		for (int i = 0; i < p->ngpu_metrics; i++)
			fprintf(out, "meta gpuMetric%d %s\nmeta gpuValue%d %.17g\n", i, names[i], i,
				values[i]);
		fprintf(out, "meta gpuPasses %d\n", passes);
	}
#endif
	for (int i = 0; i < p->nw; i++)
		kernel_report(p->w[i].args.kernel, p->w[i].state, out);
	sysinfo_frequency(out, "After", sched_getcpu());
	if (TIMER_HAVE_TSC && sum_ns > 0)
		fprintf(out, "meta tscHz %.6g\n", (double)sum_tsc / (double)sum_ns * 1e9);
	fprintf(out, "meta ruleFlushes %d\n", flushes);
	if (invocations > 0 && (rot_tally_flops > 0 || rot_tally_bytes > 0))
		fprintf(out, "meta tallyFlops %.17g\nmeta tallyBytes %.17g\n",
			rot_tally_flops / (double)invocations,
			rot_tally_bytes / (double)invocations);
	fprintf(out, "meta converged %d\nmeta complete 1\n", converged);
	rc = 0;
out_team:
	team_stop(&team);
out:
	if (need_flush)
		flush_dispose();
	free(times);
	for (int i = 0; i < inited; i++)
		if (p->w[i].args.kernel->dispose)
			p->w[i].args.kernel->dispose(p->w[i].state);
	return rc;
}
