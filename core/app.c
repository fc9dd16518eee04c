/* app: an application point: its program run again and again until best-k holds, each
 * invocation a fresh traced child with rot's marker recorder preloaded; what each invocation
 * did (its time, what it used, its regions) is written as it ends, and a failure named. */
#define _GNU_SOURCE
#include "app.h"
#include "child.h"
#include "escape.h"
#include "regions.h"
#include "report.h"
#include "sampler.h"
#include "sysinfo.h"
#include "timer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_TIMES ROT_ARENA_REGIONS
#define SHARE_JUDGED 0.01 /* regions of at least this share of the program's time must agree */
#define OWN 5		  /* environment entries rot adds: the recorder's three, CUDA's two */

/* The times of one region over the invocations. */
struct series {
	char name[ROT_ARENA_NAME];
	double *t;
	int n, cap;
};

/* One application point being measured. */
struct app_run {
	const struct point *p;
	struct tracee *tr;
	int sfd;
	const sigset_t *old;
	struct regions rg;
	char lib[PATH_MAX];  /* the recorder */
	char cuda[PATH_MAX]; /* rot's CUDA library (a CUDA program's: app.cuda) */
	char **argv, **envp; /* what the program is started with */
	char *own[OWN];	     /* the entries of envp rot adds */
	struct outtail tail, best_tail;
	int best_run;
	double *times; /* the program's, per invocation */
	struct series *series;
	int nseries;
	struct region_time rt[MAX_TIMES];
	struct sampler smp; /* the invocation's sampling */
	int sampling;	    /* 1: invocations are sampled (0: not asked, or refused) */
};

/* The library file beside the running core (librot-markers.so, librot-cuda.so): 0, or -1 when
 * it is not there. */
static int find_beside(char *lib, size_t len, const char *file)
{
	ssize_t n = readlink("/proc/self/exe", lib, len - 32);
	if (n <= 0)
		return -1;
	lib[n] = '\0';
	char *slash = strrchr(lib, '/');
	snprintf(slash ? slash + 1 : lib, len - (size_t)(slash ? slash + 1 - lib : 0), "%s", file);
	return access(lib, R_OK);
}

/* Whether the environment entry e sets one of the names given (NAME=...). */
static int sets(const char *e, const char *const *names)
{
	for (; *names; names++) {
		size_t n = strlen(*names);
		if (strncmp(e, *names, n) == 0 && e[n] == '=')
			return 1;
	}
	return 0;
}

/* The value of NAME in the point's environment, else the core's (NULL: unset). */
static const char *env_value(const struct app *a, const char *name)
{
	size_t n = strlen(name);
	for (int i = a->nenv - 1; i >= 0; i--) {
		const char *e = a->strings + a->env[i];
		if (strncmp(e, name, n) == 0 && e[n] == '=')
			return e + n + 1;
	}
	return getenv(name);
}

/* argv and envp of the program: the core's environment without what rot sets, the point's on
 * top, then rot's: the recorder preloaded ahead of any LD_PRELOAD and the arena at fd 3; for a
 * CUDA program, rot's CUDA library as CUDA's and NVTX's injection. */
static int build_exec(struct app_run *ar)
{
	const struct app *a = &ar->p->app;
	/* the CUDA pair last: a program that is no CUDA one keeps a user's own injection */
	static const char *const all[] = {"LD_PRELOAD",
					  ROT_ARENA_ENV_LIBRARY,
					  ROT_ARENA_ENV_FD,
					  "ROT_DRIVER_PID",
					  "CUDA_INJECTION64_PATH",
					  "NVTX_INJECTION64_PATH",
					  NULL};
	static const char *const cpu[] = {"LD_PRELOAD", ROT_ARENA_ENV_LIBRARY, ROT_ARENA_ENV_FD,
					  "ROT_DRIVER_PID", NULL};
	const char *const *ours = a->cuda ? all : cpu;
	size_t ne = 0;
	while (environ[ne])
		ne++;
	ar->argv = calloc((size_t)a->nargs + 2, sizeof *ar->argv);
	ar->envp = calloc(ne + (size_t)a->nenv + OWN + 1, sizeof *ar->envp);
	if (!ar->argv || !ar->envp)
		return -1;
	ar->argv[0] = (char *)a->strings + a->path;
	for (int i = 0; i < a->nargs; i++)
		ar->argv[i + 1] = (char *)a->strings + a->args[i];
	size_t k = 0;
	for (size_t i = 0; i < ne; i++) {
		int mine = 0;
		for (int j = 0; j < a->nenv && !mine; j++) {
			const char *e = a->strings + a->env[j];
			mine = strncmp(environ[i], e, (size_t)(strchr(e, '=') - e) + 1) == 0;
		}
		if (!mine && !sets(environ[i], ours))
			ar->envp[k++] = environ[i];
	}
	for (int j = 0; j < a->nenv; j++)
		if (!sets(a->strings + a->env[j], ours))
			ar->envp[k++] = (char *)a->strings + a->env[j];
	const char *pre = env_value(a, "LD_PRELOAD");
	if (asprintf(&ar->own[0], "LD_PRELOAD=%s%s%s", ar->lib, pre && *pre ? ":" : "",
		     pre ? pre : "") < 0 ||
	    asprintf(&ar->own[1], "%s=%s", ROT_ARENA_ENV_LIBRARY, ar->lib) < 0 ||
	    asprintf(&ar->own[2], "%s=3", ROT_ARENA_ENV_FD) < 0)
		return -1;
	if (a->cuda && (asprintf(&ar->own[3], "CUDA_INJECTION64_PATH=%s", ar->cuda) < 0 ||
			asprintf(&ar->own[4], "NVTX_INJECTION64_PATH=%s", ar->cuda) < 0))
		return -1;
	for (int i = 0; i < OWN; i++)
		if (ar->own[i])
			ar->envp[k++] = ar->own[i];
	return 0;
}

/* The invocation's child, stopped once for its tracer: into the point's directory, then the
 * program. A failure says at which step (0: chdir, 1: execve) and why through fd 4. */
static void app_exec(void *ctx)
{
	struct app_run *ar = ctx;
	const struct app *a = &ar->p->app;
	int why[2] = {0, 0};
	if (a->dir >= 0 && chdir(a->strings + a->dir) < 0)
		why[1] = errno;
	else {
		execve(a->strings + a->path, ar->argv, ar->envp);
		why[0] = 1;
		why[1] = errno;
	}
	ssize_t w = write(4, why, sizeof why);
	(void)w;
	_exit(127);
}

/* Why the program could not be started, from its child's pipe: 1 with f filled, else 0. */
static int start_failed(struct app_run *ar, int fd, struct failure *f, char *msg, size_t len)
{
	int why[2];
	if (read(fd, why, sizeof why) != (ssize_t)sizeof why)
		return 0;
	const struct app *a = &ar->p->app;
	if (why[0])
		snprintf(msg, len, "cannot start application '%s' (%s)", a->name,
			 a->strings + a->path);
	else
		snprintf(msg, len, "cannot run application '%s' in '%s'", a->name,
			 a->strings + a->dir);
	*f = (struct failure){.kind = FAILURE_SETUP, .message = msg, .err = why[1]};
	return 1;
}

/* Starts invocation `run` stopped under ptrace: its pid, or -1 after writing the failure. */
static pid_t start(struct app_run *ar, int run, int *errfd, int *outfd, int *execfd, FILE *out)
{
	int po[2] = {-1, -1}, pe[2] = {-1, -1};
	pid_t pid = -1;
	if (regions_open(&ar->rg) < 0 || pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
		failure_write(out, &(struct failure){.kind = FAILURE_SETUP,
						     .message = "cannot set up the invocation",
						     .err = errno});
		goto out;
	}
	struct tracee *tr = ar->tr;
	tracer_reset_point(tr, ar->p, run);
	tr->th.n = 0;
	tr->app = 1;
	tr->out = &ar->tail;
	tr->outfd = -1;
	ar->tail.len = ar->tail.total = 0;
	struct child_plan plan = {.run = app_exec,
				  .ctx = ar,
				  .out_fd = po[1],
				  .keep = {ar->rg.fd, pe[1]},
				  .cloexec = {0, 1},
				  .nkeep = 2};
	pid = tracer_start(tr, child_fork(&plan, ar->old, errfd, out), errfd, out);
	if (pid > 0) {
		fcntl(po[0], F_SETFL, O_NONBLOCK);
		fcntl(pe[0], F_SETFL, O_NONBLOCK);
		*outfd = tr->outfd = po[0];
		*execfd = pe[0];
		po[0] = pe[0] = -1;
	}
out:
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	return pid;
}

/* What became of an invocation that ran: 0 when it ended well, else 1 with f filled. */
static int ended(struct app_run *ar, int run, int timed_out, int execfd, struct failure *f,
		 char *msg, size_t len)
{
	struct outcome o;
	if (start_failed(ar, execfd, f, msg, len))
		return 1;
	tracer_outcome(ar->tr, timed_out, &o);
	o.app = 1;
	o.records = WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0;
	o.verdict = 0;
	o.run = run;
	if (report_decide(&o, f) != REPORT_OK)
		return 1;
	regions_misuse(&ar->rg, msg, len);
	if (!msg[0])
		return 0;
	*f = (struct failure){.kind = FAILURE_MARKERS, .message = msg};
	return 1;
}

/* The times of region name over the invocations (made on its first time). */
static struct series *series_of(struct app_run *ar, const char *name)
{
	for (int i = 0; i < ar->nseries; i++)
		if (strcmp(ar->series[i].name, name) == 0)
			return &ar->series[i];
	if (ar->nseries == MAX_TIMES)
		return NULL;
	struct series *s = &ar->series[ar->nseries++];
	snprintf(s->name, sizeof s->name, "%s", name);
	return s;
}

/* Keeps the invocation's times: the program's, each region's. */
static void keep_times(struct app_run *ar, int run, double ns, int nregions)
{
	ar->times[run] = ns;
	for (int i = 0; i < nregions && i < MAX_TIMES; i++) {
		struct series *s = series_of(ar, ar->rt[i].name);
		if (!s)
			continue;
		if (s->n == s->cap) {
			int cap = s->cap ? 2 * s->cap : 16;
			double *t = realloc(s->t, (size_t)cap * sizeof *t);
			if (!t)
				continue;
			s->t = t;
			s->cap = cap;
		}
		s->t[s->n++] = ar->rt[i].ns;
	}
}

/* best-k over the invocations: the program's times, and each region's that takes at least
 * SHARE_JUDGED of the program's time in the last invocation. */
static int converged(const struct app_run *ar, int n, int nregions)
{
	const struct bestk *rule = &ar->p->rule;
	if (n < rule->min_runs || !bestk_converged(rule, ar->times, (size_t)n))
		return 0;
	for (int i = 0; i < ar->nseries; i++) {
		const struct series *s = &ar->series[i];
		double last = s->n ? s->t[s->n - 1] : 0;
		int judged = 0;
		for (int j = 0; j < nregions && j < MAX_TIMES; j++)
			judged |= strcmp(ar->rt[j].name, s->name) == 0;
		if (judged && last >= SHARE_JUDGED * ar->times[n - 1] &&
		    !bestk_converged(rule, s->t, (size_t)s->n))
			return 0;
	}
	return 1;
}

static double tv_ns(struct timeval t)
{
	return (double)t.tv_sec * 1e9 + (double)t.tv_usec * 1e3;
}

/* The invocation's run record: its time from start to end; what it and the processes it
 * started used (u0, u1: the core's children's use before and after); its threads. */
static void write_run(FILE *out, const struct tracee *tr, double ns, const struct rusage *u0,
		      const struct rusage *u1)
{
	protocol_run(out, &(struct protocol_run){ns, 0, 1, "-", 0, u1->ru_nvcsw - u0->ru_nvcsw,
						 u1->ru_nivcsw - u0->ru_nivcsw, 0});
	protocol_run_value(out, RUNKEY_UTIME_NS, "%.0f", tv_ns(u1->ru_utime) - tv_ns(u0->ru_utime));
	protocol_run_value(out, RUNKEY_STIME_NS, "%.0f", tv_ns(u1->ru_stime) - tv_ns(u0->ru_stime));
	protocol_run_value(out, RUNKEY_MAXRSS_KIB, "%ld", u1->ru_maxrss);
	protocol_run_value(out, RUNKEY_RAN_THREADS, "%d", tr->th.created + 1);
	fputc('\n', out);
}

/* The sampling of the invocation pid, stopped before its exec: its tracer reads it. A refusal
 * is said once (meta) and the invocations go on unsampled. */
static void sample_start(struct app_run *ar, pid_t pid, FILE *out)
{
	char why[512];
	if (!ar->sampling)
		return;
	if (sampler_open(&ar->smp, pid, (uint64_t)ar->p->sample_ns, why, sizeof why) < 0) {
		protocol_meta(out, META_SAMPLING, "%s", why);
		ar->sampling = 0;
		return;
	}
	ar->tr->smp = &ar->smp;
}

/* The invocation ended (run: its index): its samples' records written when it was sampled
 * (out NULL: dropped, it never ran). */
static void sample_end(struct app_run *ar, int run, FILE *out)
{
	if (!ar->tr->smp)
		return;
	if (out)
		sampler_finish(&ar->smp, run, out);
	sampler_free(&ar->smp);
	ar->tr->smp = NULL;
}

/* One invocation, followed to its end; its records written. 0, 1 when it failed (said). */
static int invoke(struct app_run *ar, int run, FILE *out)
{
	int errfd = -1, outfd = -1, execfd = -1, rc = 1;
	char msg[1024] = "";
	struct failure f;
	pid_t pid = start(ar, run, &errfd, &outfd, &execfd, out);
	if (pid < 0)
		return 1;
	struct rusage u0, u1;
	sample_start(ar, pid, out);
	getrusage(RUSAGE_CHILDREN, &u0);
	uint64_t t0 = timer_ns();
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	int timed_out = tracer_follow(ar->tr, ar->sfd, errfd);
	uint64_t t1 = timer_ns(); /* every task of it reaped, microseconds after the last ended */
	getrusage(RUSAGE_CHILDREN, &u1);
	while (outtail_read(&ar->tail, outfd) == 0 &&
	       poll(&(struct pollfd){outfd, POLLIN, 0}, 1, 0) > 0)
		;
	int failed = ended(ar, run, timed_out, execfd, &f, msg, sizeof msg);
	if (!(failed && f.kind == FAILURE_SETUP)) {
		write_run(out, ar->tr, (double)(t1 - t0), &u0, &u1);
		int nr = regions_write(&ar->rg, run, out, ar->rt, MAX_TIMES);
		sample_end(ar, run, out);
		keep_times(ar, run, (double)(t1 - t0), nr);
		if (!failed && (ar->best_run < 0 || ar->times[run] < ar->times[ar->best_run])) {
			ar->best_run = run;
			ar->best_tail = ar->tail;
		}
	}
	sample_end(ar, run, NULL); /* a setup failure's (the program never ran) */
	if (failed) {
		regions_write_meta(&ar->rg, out);
		errtail_write(&ar->tr->err, out);
		failure_write(out, &f);
	}
	rc = failed;
	for (int fd, i = 0; i < 3; i++)
		if ((fd = i == 0 ? errfd : i == 1 ? outfd : execfd) >= 0)
			close(fd);
	return rc;
}

/* What the point's invocations share: the program, the fastest one's output, the arena's word
 * on the markers, the counters. */
static void write_end(struct app_run *ar, int n, int conv, FILE *out)
{
	const struct app *a = &ar->p->app;
	protocol_meta(out, META_APP, "%s", a->name);
	protocol_meta(out, META_INVOCATIONS, "%d", n);
	protocol_meta(out, META_CONVERGED, "%d", conv);
	if (ar->best_run >= 0) {
		protocol_meta(out, META_STDOUT_RUN, "%d", ar->best_run);
		protocol_meta(out, META_STDOUT_BYTES, "%zu", ar->best_tail.total);
		protocol_record(out, RECORD_META);
		fprintf(out, "%s ", protocol_meta_name(META_STDOUT));
		escape_write(out, ar->best_tail.buf, ar->best_tail.len);
		fputc('\n', out);
	}
	regions_write_meta(&ar->rg, out);
	for (int i = 0; i < ar->rg.ctr.n; i++)
		protocol_meta_at(out, META_EVENT, i, "%s", ar->rg.ctr.name[i]);
	if (ar->rg.ctr.n)
		protocol_meta(out, META_COUNTER_DOMAIN, "%s",
			      ar->rg.ctr.user_only ? "user" : "user+kernel");
	sysinfo_frequency(out, META_CPU_KHZ_AFTER, -1);
	errtail_write(&ar->tr->err, out);
	protocol_meta(out, META_COMPLETE, "1");
	protocol_status(out, 1);
}

/* Sets up what the invocations share: 0, or 1 after writing why it cannot run. */
static int prepare(struct app_run *ar, FILE *out)
{
	if (regions_setup(&ar->rg, (char(*)[128])ar->p->counter_names, ar->p->ncounters) < 0) {
		failure_write(out, &(struct failure){.kind = FAILURE_INPUT, .message = ar->rg.err});
		return 1;
	}
	if (ar->p->app.cuda) /* CUPTI's kernel times are nanoseconds */
		ar->rg.clock = ROT_CLOCK_NS;
	if (ar->p->app.cuda && find_beside(ar->cuda, sizeof ar->cuda, "librot-cuda.so") < 0) {
		failure_write(out,
			      &(struct failure){.kind = FAILURE_SETUP,
						.message = "rot's CUDA library is missing beside "
							   "the core (librot-cuda.so)",
						.err = errno});
		return 1;
	}
	if (find_beside(ar->lib, sizeof ar->lib, "librot-markers.so") < 0) {
		failure_write(out, &(struct failure){.kind = FAILURE_SETUP,
						     .message =
							 "rot's marker recorder is missing beside "
							 "the core (librot-markers.so)",
						     .err = errno});
		return 1;
	}
	ar->sampling = ar->p->sample_ns > 0;
	ar->times = calloc((size_t)ar->p->rule.max_runs, sizeof *ar->times);
	ar->series = calloc(MAX_TIMES, sizeof *ar->series);
	if (!ar->times || !ar->series || build_exec(ar) < 0) {
		failure_write(out,
			      &(struct failure){.kind = FAILURE_SETUP, .message = "out of memory"});
		return 1;
	}
	return 0;
}

int app_measure(const struct point *p, struct tracee *tr, int sfd, const sigset_t *old, FILE *out)
{
	struct app_run ar = {.p = p, .tr = tr, .sfd = sfd, .old = old, .best_run = -1};
	int rc = 1, n = 0, conv = 0;
	ar.rg.fd = -1;
	if (prepare(&ar, out) == 0) {
		sysinfo_static(out, -1);
		sysinfo_frequency(out, META_CPU_KHZ_BEFORE, -1);
		while (n < p->rule.max_runs && !conv) {
			if (invoke(&ar, n, out))
				goto out;
			n++;
			conv = converged(&ar, n, ar.nseries);
		}
		write_end(&ar, n, conv, out);
		rc = 0;
	}
out:
	tr->out = NULL;
	tr->app = 0;
	regions_free(&ar.rg);
	for (int i = 0; i < ar.nseries; i++)
		free(ar.series[i].t);
	free(ar.series);
	free(ar.times);
	for (int i = 0; i < OWN; i++)
		free(ar.own[i]);
	free(ar.envp);
	free(ar.argv);
	return rc;
}
