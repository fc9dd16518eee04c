/* measure: what the traced child does for one point: its workloads and their threads, warm-up,
 * timed runs on its device (device.h) until the best-k rule holds, events told, records. */
#define _GNU_SOURCE
#include "measure.h"
#include "device.h"
#include "failure.h"
#include "flush.h"
#include "protocol.h"
#include "sysinfo.h"
#include "timer.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORT 32
#define MAX_BUFFERS 64

struct team;

struct worker {
	pthread_t th;
	struct workload *wl;
	int index, cpu_pin;
	struct team *team;
	struct device_timing t; /* its share of the last run */
};

struct team {
	const struct device *dev;
	char err[512];	      /* the kernel's failure inside a run (a GPU error) */
	pthread_mutex_t gate; /* held by team_spawn while it sets the threads up */
	pthread_barrier_t start, end;
	volatile int stop;
	long reps;
	struct worker *w;
	int n;
	int inline_run; /* one thread in all: the main thread runs the kernel itself */
	int started;	/* threads created by team_spawn */
	int gated;	/* the gate was initialized */
	int running;	/* every thread started and pinned: the barriers live */
};

/* ROT_TALLY=1 kernels add the work they did here (see kernels/cpu/tally.h) */
double rot_tally_flops, rot_tally_bytes, rot_tally_written;
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

volatile int *measure_run_slot;

/* An event of the measurement: the run slot says which run is in progress; the tracer hears of
 * it (a stop) only when it follows events (counters, parent-side rules). */
static void notify(const struct point *p, enum rot_event e, int run)
{
	if (measure_run_slot && (e == EV_RUN_START || e == EV_WORKLOAD_START))
		*measure_run_slot = e == EV_RUN_START ? run : -1;
	if (!p->notify)
		return;
	union sigval v = {.sival_int = ROT_EVENT_CODE(e, run < 0 ? 0xffff : run)};
	measure_tell(ROT_EVENT_SIGNAL, v);
}

int measure_flush_rules(const struct point *p, enum rot_event e, int run,
			const struct rot_buffer *b, int nb)
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

/* The CPU set of one CPU (none: the CPU is beyond what a cpu_set_t holds). */
static cpu_set_t one_cpu(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (cpu >= 0 && cpu < CPU_SETSIZE)
		CPU_SET(cpu, &set);
	return set;
}

/* Pins the calling thread to cpu: 0, or an errno value. */
static int pin_self(int cpu)
{
	cpu_set_t set = one_cpu(cpu);
	return sched_setaffinity(0, sizeof set, &set) < 0 ? errno : 0;
}

/* Pins thread th to cpu: 0, or an errno value. */
static int pin_thread(pthread_t th, int cpu)
{
	cpu_set_t set = one_cpu(cpu);
	return pthread_setaffinity_np(th, sizeof set, &set);
}

/* Thread w's share of a run of reps invocations, timed by the device. */
static void work(struct worker *w, long reps)
{
	struct team *t = w->team;
	t->dev->time(w->wl, w->index, reps, &w->t, t->err, sizeof t->err);
}

/* A workload thread: waits at the gate until team_spawn has set the team up (or gives up with
 * it), then does its share of each run between the start and end barriers. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct team *t = w->team;
	pthread_mutex_lock(&t->gate);
	int go = !t->stop;
	pthread_mutex_unlock(&t->gate);
	while (go) {
		pthread_barrier_wait(&t->start);
		if (t->stop)
			break;
		work(w, t->reps);
		pthread_barrier_wait(&t->end);
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
		const struct device_timing *w = &t->w[i].t;
		t0 = w->t0 < t0 ? w->t0 : t0;
		t1 = w->t1 > t1 ? w->t1 : t1;
		c0 = w->c0 < c0 ? w->c0 : c0;
		c1 = w->c1 > c1 ? w->c1 : c1;
		r->vcsw += w->vcsw;
		r->ivcsw += w->ivcsw;
		r->migrations += w->cpu0 != w->cpu1;
		if (used < sizeof r->cpus - 8)
			used += (size_t)snprintf(r->cpus + used, sizeof r->cpus - used, "%s%d",
						 i ? "," : "", w->cpu1);
	}
	r->ns = t1 - t0;
	r->tsc = c1 - c0;
}

/* The team's workers, one per thread of each workload, with the CPU each is pinned to. */
static int team_plan(struct point *p, const struct device *dev, struct team *t, char *err,
		     size_t errlen)
{
	int n = 0, k = 0;
	t->dev = dev;
	for (int i = 0; i < p->nw; i++)
		n += p->w[i].threads;
	t->w = calloc((size_t)n, sizeof *t->w);
	if (!t->w) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->n = n;
	t->inline_run = n == 1;
	for (int i = 0; i < p->nw; i++) {
		for (int j = 0; j < p->w[i].threads; j++, k++) {
			struct worker *w = &t->w[k];
			w->wl = &p->w[i];
			w->index = j;
			w->team = t;
			w->cpu_pin = p->w[i].npin ? p->w[i].pin[j % p->w[i].npin] : -1;
		}
	}
	return 0;
}

/* Starts the team's threads, held at the gate, and pins them; only then are the barriers set
 * up for all of them and the gate opened. On a failure the gate opens onto stop: the threads
 * started end without touching a barrier and are joined here. */
static int team_spawn(struct team *t, char *err, size_t errlen)
{
	int rc = -1, e;
	pthread_mutex_init(&t->gate, NULL);
	t->gated = 1;
	pthread_mutex_lock(&t->gate);
	for (; t->started < t->n; t->started++) {
		struct worker *w = &t->w[t->started];
		if ((e = pthread_create(&w->th, NULL, worker_main, w)) != 0) {
			snprintf(err, errlen, "cannot start workload thread %d: %s", t->started,
				 strerror(e));
			goto out;
		}
	}
	for (int i = 0; i < t->n; i++) {
		int cpu = t->w[i].cpu_pin;
		if (cpu >= 0 && (e = pin_thread(t->w[i].th, cpu)) != 0) {
			snprintf(err, errlen, "cannot pin to cpu %d: %s", cpu, strerror(e));
			goto out;
		}
	}
	pthread_barrier_init(&t->start, NULL, (unsigned)t->n + 1);
	pthread_barrier_init(&t->end, NULL, (unsigned)t->n + 1);
	t->running = 1;
	rc = 0;
out:
	t->stop = rc < 0;
	pthread_mutex_unlock(&t->gate);
	for (int i = 0; rc < 0 && i < t->started; i++)
		pthread_join(t->w[i].th, NULL);
	return rc;
}

/* The point's workload threads, pinned where asked: the main thread alone for one thread in
 * all, else a thread each. 0, or -1 with err (nothing left running). */
static int team_start(struct point *p, const struct device *dev, struct team *t, char *err,
		      size_t errlen)
{
	int e;
	if (team_plan(p, dev, t, err, errlen) < 0)
		return -1;
	if (!t->inline_run)
		return team_spawn(t, err, errlen);
	if (t->w[0].cpu_pin >= 0 && (e = pin_self(t->w[0].cpu_pin)) != 0) {
		snprintf(err, errlen, "cannot pin to cpu %d: %s", t->w[0].cpu_pin, strerror(e));
		return -1;
	}
	return 0;
}

/* Stops and joins the threads of a running team; frees the workers. */
static void team_stop(struct team *t)
{
	if (t->running) {
		t->stop = 1;
		pthread_barrier_wait(&t->start);
		for (int i = 0; i < t->n; i++)
			pthread_join(t->w[i].th, NULL);
		pthread_barrier_destroy(&t->start);
		pthread_barrier_destroy(&t->end);
		t->running = 0;
	}
	if (t->gated)
		pthread_mutex_destroy(&t->gate);
	t->gated = 0;
	free(t->w);
	t->w = NULL;
}

/* The most repetitions of one run: about 1000 s at 1 ns an invocation, past any timeout. */
#define MAX_REPS (1L << 40)

/* Repetitions so that one warm run lasts at least min_time seconds, grown from 1 by what the
 * last run took: 0 with them in *reps, or -1 when neither 30 runs nor MAX_REPS repetitions get
 * there (the run does not grow with its repetitions), *reps and *s then the last run's. */
static int calibrate(struct team *t, double min_time, long *reps, double *s)
{
	struct run r;
	long next = 1;
	*reps = 0;
	*s = 0;
	for (int i = 0; i < 30 && *reps < MAX_REPS && !t->err[0]; i++) {
		*reps = next;
		team_run(t, *reps, &r);
		*s = (double)r.ns * 1e-9;
		if (*s >= min_time)
			return 0;
		double grow = *s > 0 ? 1.2 * min_time / *s : 1000;
		double more = (double)*reps * (grow > 1000 ? 1000 : grow) + 1;
		next = more < (double)MAX_REPS ? (long)more : MAX_REPS;
	}
	return t->err[0] ? 0 : -1; /* a kernel's failure is the caller's to report */
}

/* The cost of an empty timed region, measured once by the core (measure_prepare) and so
 * inherited by every child it forks: measuring it in every child would cost each point. */
static uint64_t overhead_ns, overhead_tsc;
static int prepared;

void measure_prepare(void)
{
	if (!prepared)
		timer_overhead(1000, &overhead_ns, &overhead_tsc);
	prepared = 1;
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
						"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")] == '\0') {
			char name[512];
			snprintf(name, sizeof name, protocol_meta_name(META_REPORT), v[i].name);
			protocol_meta_named(out, name, "%.17g", v[i].value);
		}
}

/* Writes a failure of the point (its kind and message) for the tracer to report. */
static void fail(FILE *out, enum failure_kind kind, const char *message)
{
	failure_write_error(out, &(struct failure){.kind = kind, .message = message});
}

/* One point being measured. */
struct measurement {
	struct point *p;
	const struct device *dev;
	struct rot_buffer bufs[MAX_BUFFERS]; /* the kernels' buffers */
	int nbufs, inited;		     /* buffers, workloads initialized */
	double flops, bytes, written;	     /* declared, per invocation */
	int written_known;		     /* every workload declares its written bytes */
	size_t working;			     /* the working set: the buffers' bytes */
	int need_flush, llc_known;	     /* the host's caches are evicted (eviction buffer) */
	size_t flush_bytes;
	uint64_t ov_ns, ov_tsc; /* the cost of an empty timed region */
	struct team team;
	double *times; /* per invocation, of the runs best-k looks at */
	long reps;     /* per run */
	int flushes, converged;
	uint64_t sum_ns, sum_tsc;
	char err[512];
};

/* The device of a point: the GPU when one of its kernels is a GPU kernel. */
static const struct device *device_of(const struct point *p)
{
	for (int i = 0; i < p->nw; i++)
		if (p->w[i].args.kernel->gpu)
			return &device_gpu;
	return &device_cpu;
}

/* Adds workload w's declared counts to the point's: -1 (the point failed) when its written
 * bytes are not from 0 to its bytes. */
static int counts_add(struct measurement *m, const struct workload *w, int first, FILE *out)
{
	const struct rot_kernel *k = w->args.kernel;
	double bytes = k->bytes ? k->bytes(&w->args) : 0.0;
	double written = k->written ? k->written(&w->args) : 0.0;
	if (!(written >= 0 && written <= bytes)) { /* NaN too */
		snprintf(m->err, sizeof m->err,
			 "kernel '%s' declares %g bytes written of %g: its written bytes must be "
			 "from 0 to its bytes",
			 k->name, written, bytes);
		fail(out, FAILURE_KERNEL, m->err);
		return -1;
	}
	m->flops += k->flops ? k->flops(&w->args) : 0.0;
	m->bytes += bytes;
	m->written += written;
	m->written_known = (first || m->written_known) && k->written; /* every workload's */
	return 0;
}

/* Initializes the workloads: their states, buffers and declared counts. */
static int workloads_init(struct measurement *m, FILE *out)
{
	struct point *p = m->p;
	for (; m->inited < p->nw; m->inited++) {
		struct workload *w = &p->w[m->inited];
		const struct rot_kernel *k = w->args.kernel;
		errno = 0;
		w->state = k->init(&w->args);
		if (!w->state) {
			snprintf(m->err, sizeof m->err, "kernel '%s' failed to initialize: %s",
				 k->name, errno ? strerror(errno) : "init returned NULL");
			fail(out, FAILURE_KERNEL, m->err);
			return -1;
		}
		if (k->buffers)
			m->nbufs +=
			    k->buffers(w->state, m->bufs + m->nbufs, MAX_BUFFERS - m->nbufs);
		/* after init, which checks the args; a failure's state is disposed of with the
		 * others' */
		if (counts_add(m, w, m->inited == 0, out) < 0) {
			m->inited++;
			return -1;
		}
	}
	for (int i = 0; i < m->nbufs; i++)
		m->working += m->bufs[i].bytes;
	return 0;
}

/* The host's eviction buffer, when cold mode or a flush rule needs it on this device. */
static int flush_prepare(struct measurement *m, FILE *out)
{
	int need = m->p->cold;
	for (int i = 0; i < m->p->nrules; i++)
		need |= m->p->rules[i].action == ACT_FLUSH;
	if (!need || !m->dev->host_caches) /* a GPU flushes its L2 on the device instead */
		return 0;
	m->need_flush = 1;
	m->llc_known = 1;
	if ((m->flush_bytes = flush_init(&m->llc_known)) == 0) {
		failure_write_error(out, &(struct failure){.kind = FAILURE_SETUP,
							   .message = "cannot allocate the "
								      "cache-eviction buffer",
							   .err = errno});
		return -1;
	}
	return 0;
}

/* Warm mode: one warm-up run, then the repetitions that make a run last minRunTime. */
static int warm_up(struct measurement *m, FILE *out)
{
	struct run r;
	double s = 0;
	int rc = 0;
	m->reps = 1;
	if (!m->p->cold) {
		team_run(&m->team, 1, &r); /* the working set and the code are in cache */
		rc = calibrate(&m->team, m->p->min_run_time, &m->reps, &s);
	}
	if (m->team.err[0]) {
		fail(out, FAILURE_KERNEL, m->team.err);
		return -1;
	}
	if (rc < 0) {
		snprintf(m->err, sizeof m->err,
			 "kernel '%s': a run of %ld repetitions lasted %.3g s, short of minRunTime "
			 "%g s: its time does not grow with its repetitions (is its work optimised "
			 "away?)",
			 m->p->w[0].args.kernel->name, m->reps, s, m->p->min_run_time);
		fail(out, FAILURE_KERNEL, m->err);
		return -1;
	}
	return 0;
}

/* What was set up: workloads, counts, working set, threads, mode, timer, eviction. */
static void write_setup(const struct measurement *m, FILE *out)
{
	const struct point *p = m->p;
	for (int i = 0; i < p->nw; i++)
		protocol_meta_at(out, META_WORKLOAD, i, "%s threads=%d", p->w[i].args.kernel->name,
				 p->w[i].threads);
	protocol_meta(out, META_KERNEL, "%s", p->w[0].args.kernel->name);
	protocol_meta(out, META_FLOPS, "%.17g", m->flops);
	protocol_meta(out, META_BYTES, "%.17g", m->bytes);
	protocol_meta(out, META_WORKING_SET, "%zu", m->working);
	if (m->written_known)
		protocol_meta(out, META_BYTES_WRITTEN, "%.17g", m->written);
	protocol_meta(out, META_THREADS, "%d", m->team.n);
	protocol_meta(out, META_CACHE_MODE, "%s", p->cold ? "cold" : "warm");
	protocol_meta(out, META_TIMER_OVERHEAD_NS, "%llu", (unsigned long long)m->ov_ns);
	protocol_meta(out, META_TIMER_OVERHEAD_TSC, "%llu", (unsigned long long)m->ov_tsc);
	protocol_meta(out, META_TSC_AVAILABLE, "%d", TIMER_HAVE_TSC);
	if (m->need_flush) { /* guessed: hwloc knows no cache size on this machine */
		protocol_meta(out, META_FLUSH_BYTES, "%zu", m->flush_bytes);
		protocol_meta(out, META_FLUSH_SIZE, "%s", m->llc_known ? "topology" : "guessed");
	}
}

/* The timed runs, one run record each, until the best-k rule holds or maxRuns. */
static int timed_runs(struct measurement *m, FILE *out)
{
	struct point *p = m->p;
	int n = 0, kept = 0;
	while (n < p->rule.max_runs) {
		struct run r;
		int flushes = m->dev->before_run(p, n, m->bufs, m->nbufs, m->err, sizeof m->err);
		if (flushes < 0) {
			fail(out, FAILURE_KERNEL, m->err);
			return -1;
		}
		m->flushes += flushes;
		notify(p, EV_RUN_START, n);
		team_run(&m->team, m->reps, &r);
		notify(p, EV_RUN_END, n);
		if (m->team.err[0]) {
			fail(out, FAILURE_KERNEL, m->team.err);
			return -1;
		}
		int disturbed = r.ivcsw > 0 || r.migrations > 0;
		protocol_run(out, &(struct protocol_run){(double)r.ns, (unsigned long long)r.tsc,
							 m->reps, r.cpus, r.migrations, r.vcsw,
							 r.ivcsw, disturbed});
		fputc('\n', out);
		m->sum_ns += r.ns;
		m->sum_tsc += r.tsc;
		n++;
		if (!(p->ignore_disturbed && disturbed))
			m->times[kept++] = (double)r.ns / (double)m->reps;
		if (n >= p->rule.min_runs && bestk_converged(&p->rule, m->times, (size_t)kept)) {
			m->converged = 1;
			break;
		}
	}
	return 0;
}

/* What the kernels measured, the machine after, the TSC rate, flushes, tallies, the end. */
static void write_end(const struct measurement *m, FILE *out)
{
	const struct point *p = m->p;
	for (int i = 0; i < p->nw; i++)
		kernel_report(p->w[i].args.kernel, p->w[i].state, out);
	sysinfo_frequency(out, META_CPU_KHZ_AFTER, sched_getcpu());
	if (TIMER_HAVE_TSC && m->sum_ns > 0)
		protocol_meta(out, META_TSC_HZ, "%.6g",
			      (double)m->sum_tsc / (double)m->sum_ns * 1e9);
	protocol_meta(out, META_RULE_FLUSHES, "%d", m->flushes);
	if (invocations > 0 && (rot_tally_flops > 0 || rot_tally_bytes > 0)) {
		protocol_meta(out, META_TALLY_FLOPS, "%.17g",
			      rot_tally_flops / (double)invocations);
		protocol_meta(out, META_TALLY_BYTES, "%.17g",
			      rot_tally_bytes / (double)invocations);
		protocol_meta(out, META_TALLY_WRITTEN, "%.17g",
			      rot_tally_written / (double)invocations);
	}
	protocol_meta(out, META_CONVERGED, "%d", m->converged);
	protocol_meta(out, META_COMPLETE, "1");
}

int measure_point(struct point *p, FILE *out)
{
	struct measurement m = {.p = p, .dev = device_of(p)};
	int rc = -1;
	invocations = 0; /* a shared child's earlier points are not this one's tally */
	rot_tally_flops = rot_tally_bytes = rot_tally_written = 0;
	if (m.dev->prepare(p, out) < 0)
		return -1;
	if (workloads_init(&m, out) < 0 || flush_prepare(&m, out) < 0)
		goto out;
	if (!(m.times = calloc((size_t)p->rule.max_runs, sizeof *m.times))) {
		fail(out, FAILURE_SETUP, "out of memory");
		goto out;
	}
	measure_prepare(); /* a no-op in the core's children */
	m.ov_ns = overhead_ns;
	m.ov_tsc = overhead_tsc;
	sysinfo_static(out, sched_getcpu());
	sysinfo_frequency(out, META_CPU_KHZ_BEFORE, sched_getcpu());
	if (team_start(p, m.dev, &m.team, m.err, sizeof m.err) < 0) {
		fail(out, FAILURE_SETUP, m.err);
		goto out;
	}
	notify(p, EV_WORKLOAD_START, -1);
	m.flushes = measure_flush_rules(p, EV_WORKLOAD_START, -1, m.bufs, m.nbufs);
	if (warm_up(&m, out) < 0)
		goto out;
	write_setup(&m, out);
	if (timed_runs(&m, out) < 0)
		goto out;
	notify(p, EV_WORKLOAD_STOP, -1);
	if (m.dev->after_runs && m.dev->after_runs(p, out) < 0)
		goto out;
	write_end(&m, out);
	rc = 0;
out:
	team_stop(&m.team);
	if (m.need_flush)
		flush_dispose();
	free(m.times);
	for (int i = 0; i < m.inited; i++)
		if (p->w[i].args.kernel->dispose)
			p->w[i].args.kernel->dispose(p->w[i].state);
	return rc;
}
