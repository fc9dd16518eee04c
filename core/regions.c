/* regions: the arena an application's marker recorder shares with the core (markers/arena.h):
 * made for each invocation with the counters encoded, read once the invocation has ended into
 * region records (PROTOCOL_REGION_KEYS), each summed over the threads that entered it. */
#define _GNU_SOURCE
#include "regions.h"
#include "escape.h"
#include "protocol.h"
#include "timer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum region_key {
#define X(id, key, meaning) RK_##id,
	PROTOCOL_REGION_KEYS(X)
#undef X
	    RK_COUNT
};

static const char *const region_keys[RK_COUNT] = {
#define X(id, key, meaning) [RK_##id] = key,
    PROTOCOL_REGION_KEYS(X)
#undef X
};

/* One region of an invocation, over its threads. */
struct agg {
	double v[RK_COUNT];
	double counts[ROT_ARENA_EVENTS];
	double process_counts[ROT_ARENA_EVENTS]; /* the whole process's over its calls */
	uint32_t missing; /* events some thread of it could not open */
	uint64_t procs;	  /* the processes whose threads entered it (bit i: procs[i]) */
	int seen;
};

/* Whether the kernel's clocksource is the TSC: then it runs at one rate on every CPU. */
static int tsc_clock(void)
{
#if TIMER_HAVE_TSC
	char buf[32] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (f) {
		if (!fgets(buf, sizeof buf, f))
			buf[0] = '\0';
		fclose(f);
	}
	return strncmp(buf, "tsc\n", 4) == 0;
#else
	return 0;
#endif
}

int regions_setup(struct regions *r, char names[][128], int n)
{
	memset(r, 0, sizeof *r);
	r->fd = -1;
	r->clock = tsc_clock() ? ROT_CLOCK_TSC : ROT_CLOCK_NS;
	return counters_setup(&r->ctr, names, n, r->err, sizeof r->err);
}

/* The TSC and the monotonic clock read together (the TSC twice around, averaged). */
static void clocks_now(uint64_t *tsc, uint64_t *ns)
{
	uint64_t a = timer_tsc_start();
	*ns = timer_ns();
	*tsc = a + (timer_tsc_stop() - a) / 2;
}

int regions_open(struct regions *r)
{
	regions_close(r);
	r->fd = memfd_create("rot-arena", MFD_CLOEXEC);
	if (r->fd < 0 || ftruncate(r->fd, ROT_ARENA_BYTES) < 0)
		return -1;
	void *m = mmap(NULL, ROT_ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (m == MAP_FAILED)
		return -1;
	struct rot_arena *a = r->a = m;
	a->magic = ROT_ARENA_MAGIC;
	a->version = ROT_ARENA_VERSION;
	a->bytes = ROT_ARENA_BYTES;
	a->clock = (uint32_t)r->clock;
	a->nevents = (uint32_t)r->ctr.n;
	for (int i = 0; i < r->ctr.n; i++) {
		const void *attr;
		size_t n = counters_attr(&r->ctr, i, &attr);
		a->attr_size = (uint32_t)(n < ROT_ARENA_ATTR ? n : ROT_ARENA_ATTR);
		memcpy(a->attr[i], attr, a->attr_size);
	}
	if (!r->ns0)
		clocks_now(&r->tsc0, &r->ns0);
	return 0;
}

/* Nanoseconds a tick: 1, or the TSC's rate since the first invocation started. */
static double ns_per_tick(const struct regions *r)
{
	uint64_t tsc, ns;
	if (r->clock != ROT_CLOCK_TSC)
		return 1;
	clocks_now(&tsc, &ns);
	return tsc > r->tsc0 ? (double)(ns - r->ns0) / (double)(tsc - r->tsc0) : 1;
}

/* Adds one thread's slot to its region's sums. */
static void add_slot(struct agg *g, const struct rot_arena_slot *s, int nevents, double tick)
{
	double *v = g->v, ns = (double)s->ticks * tick;
	if (!g->seen)
		v[RK_MIN_NS] = -1;
	g->seen = 1;
	v[RK_CALLS] = (double)s->calls > v[RK_CALLS] ? (double)s->calls : v[RK_CALLS];
	v[RK_CALLS_TOTAL] += (double)s->calls;
	v[RK_THREADS] += s->calls > 0 || s->open > 0;
	if (s->calls > 0 || s->open > 0)
		g->procs |= 1ull << (s->proc < ROT_ARENA_PROCS ? s->proc : ROT_ARENA_PROCS - 1);
	v[RK_PROCESSES] = __builtin_popcountll(g->procs);
	v[RK_NS] = ns > v[RK_NS] ? ns : v[RK_NS];
	v[RK_NS_SUM] += ns;
	if (s->calls && (v[RK_MIN_NS] < 0 || (double)s->min_ticks * tick < v[RK_MIN_NS]))
		v[RK_MIN_NS] = (double)s->min_ticks * tick;
	if ((double)s->max_ticks * tick > v[RK_MAX_NS])
		v[RK_MAX_NS] = (double)s->max_ticks * tick;
	v[RK_OPEN] += (double)s->open;
	v[RK_FLOPS] += s->flops;
	v[RK_BYTES] += s->bytes;
	v[RK_WRITTEN] += s->written;
	v[RK_WORKING_SET] = s->working_set > v[RK_WORKING_SET] ? s->working_set : v[RK_WORKING_SET];
	v[RK_WORK_CALLS] += (double)s->work_calls;
	v[RK_WRITTEN_CALLS] += (double)s->written_calls;
	v[RK_COUNTED_CALLS] += (double)s->counted_calls;
	v[RK_MULTIPLEXED_CALLS] += (double)s->multiplexed_calls;
	v[RK_PROCESS_CALLS] += (double)s->process_calls;
	for (int i = 0; i < nevents; i++) {
		g->counts[i] += s->counts[i];
		g->process_counts[i] += s->process_counts[i];
	}
	g->missing |= s->missing;
}

/* One region's record: run, name, the keys, and each event's count when every call counted.
 * A region one thread entered (begun outside any parallel region, around the program's
 * parallel work, or in a program of one thread) takes the whole process's counts while it was
 * open (those of its first thread's process-wide counters); others are summed over their
 * threads. process_missing: the events the process-wide counters lack. */
static void write_region(FILE *out, int run, const char *name, struct agg *g, int nevents,
			 uint32_t process_missing)
{
	int whole = g->v[RK_THREADS] == 1;
	g->v[RK_WHOLE_PROCESS] = whole;
	fprintf(out, "%s %s=%d %s=", protocol_record_word(RECORD_REGION), PROTOCOL_REGION_RUN, run,
		PROTOCOL_REGION_NAME);
	escape_write(out, name, strlen(name));
	for (int k = 0; k < RK_COUNT; k++)
		if (k != RK_MIN_NS || g->v[k] >= 0)
			fprintf(out, " %s=%.17g", region_keys[k], g->v[k]);
	double ran = whole ? g->v[RK_PROCESS_CALLS] : g->v[RK_COUNTED_CALLS];
	int all = ran >= g->v[RK_CALLS_TOTAL] && g->v[RK_CALLS_TOTAL] > 0;
	uint32_t missing = whole ? process_missing : g->missing;
	for (int i = 0; all && i < nevents; i++)
		if (!(missing & (1u << i)))
			protocol_run_value_at(out, RUNKEY_EVENT, i, "%.17g",
					      whole ? g->process_counts[i] : g->counts[i]);
	fputc('\n', out);
}

int regions_write(struct regions *r, int run, FILE *out, struct region_time *times, int max)
{
	const struct rot_arena *a = r->a;
	if (!a || !a->attached)
		return 0;
	uint32_t nreg = a->nregions < ROT_ARENA_REGIONS ? a->nregions : ROT_ARENA_REGIONS;
	uint64_t nslots =
	    a->nslots < ROT_ARENA_SLOTS(a->bytes) ? a->nslots : ROT_ARENA_SLOTS(a->bytes);
	struct agg *g = calloc(nreg ? nreg : 1, sizeof *g);
	double tick = ns_per_tick(r);
	int n = 0;
	if (!g)
		return 0;
	for (uint64_t i = 0; i < nslots; i++)
		if (a->slots[i].region < nreg)
			add_slot(&g[a->slots[i].region], &a->slots[i], r->ctr.n, tick);
	for (uint32_t i = 0; i < nreg; i++) {
		if (!g[i].seen)
			continue;
		char name[ROT_ARENA_NAME];
		memcpy(name, a->names[i], sizeof name);
		name[sizeof name - 1] = '\0';
		write_region(out, run, name, &g[i], r->ctr.n, a->process_missing);
		if (n < max)
			times[n] = (struct region_time){a->names[i], g[i].v[RK_NS]};
		n++;
	}
	free(g);
	return n;
}

void regions_write_meta(const struct regions *r, FILE *out)
{
	const struct rot_arena *a = r->a;
	double tick = ns_per_tick(r);
	protocol_meta(out, META_MARKER_CLOCK, "%s",
		      r->clock == ROT_CLOCK_TSC ? "tsc" : "monotonic");
	protocol_meta(out, META_MARKERS_ATTACHED, "%d", a && a->attached);
	if (!a || !a->attached)
		return;
	protocol_meta(out, META_MARKER_PAIR_NS, "%.4g", (double)a->pair_ticks * tick);
	protocol_meta(out, META_MARKER_EMPTY_NS, "%.4g", (double)a->empty_ticks * tick);
	if (a->overflow)
		protocol_meta(out, META_REGION_CALLS_LOST, "%u", a->overflow);
	for (uint32_t i = 0; i < a->nprocs && i < ROT_ARENA_PROCS; i++) {
		char name[sizeof a->procs[i].name];
		memcpy(name, a->procs[i].name, sizeof name);
		name[sizeof name - 1] = '\0';
		for (char *c = name; *c; c++) /* a word of the record: the program named it */
			if (*c <= ' ' || *c == 0x7f)
				*c = '_';
		protocol_meta_at(out, META_MARKER_PROCESS, (int)i, "%s pid=%d marked=%d",
				 name[0] ? name : "?", a->procs[i].pid, a->procs[i].marked);
	}
	if (a->nprocs > ROT_ARENA_PROCS)
		protocol_meta(out, META_MARKER_PROCESSES_LOST, "%u", a->nprocs - ROT_ARENA_PROCS);
	if (a->forked_calls) {
		protocol_meta(out, META_MARKERS_FORKED, "%llu",
			      (unsigned long long)a->forked_calls);
		protocol_meta(out, META_MARKERS_FORKED_PID, "%d", a->forked_pid);
	}
	for (int i = 0; i < r->ctr.n; i++) {
		if (!a->event_errno[i])
			continue;
		char why[1024];
		counters_why(&r->ctr, i, a->event_errno[i], why, sizeof why);
		char *hint = strstr(why, "\nhint: ");
		if (hint)
			*hint = '\0';
		protocol_meta_at(out, META_EVENT_ERROR, i, "%s", why);
		if (hint)
			protocol_meta(out, META_COUNTERS_HINT, "%s", hint + 7);
	}
	for (int i = 0; i < r->ctr.n && a->process_errno; i++) {
		if (!(a->process_missing & (1u << i)))
			continue;
		char why[1024];
		counters_why(&r->ctr, i, a->process_errno, why, sizeof why);
		why[strcspn(why, "\n")] = '\0';
		protocol_meta(out, META_PROCESS_COUNTERS_ERROR, "%s", why);
		break;
	}
}

void regions_misuse(const struct regions *r, char *buf, size_t len)
{
	const struct rot_arena *a = r->a;
	buf[0] = '\0';
	if (!a || !a->misuse)
		return;
	const char *reg = a->misuse_region, *in = a->misuse_inner;
	int t = a->misuse_thread;
	unsigned long long more = a->misuses > 1 ? a->misuses - 1 : 0;
	char tail[96] = "";
	if (more)
		snprintf(tail, sizeof tail, " (and %llu more misuse%s)", more, more > 1 ? "s" : "");
	switch (a->misuse) {
	case ROT_MISUSE_OTHER_THREAD:
		if (a->misuse_other >= 0)
			snprintf(buf, len,
				 "region '%s' ended in thread %d, but thread %d began it: a region "
				 "ends in the thread that began it%s",
				 reg, t, a->misuse_other, tail);
		else
			snprintf(buf, len,
				 "region '%s' ended in thread %d, where it was not begun%s", reg, t,
				 tail);
		break;
	case ROT_MISUSE_NOT_INNERMOST:
		snprintf(
		    buf, len,
		    "region '%s' ended in thread %d while '%s', begun inside it, was still open: "
		    "regions end innermost first%s",
		    reg, t, in, tail);
		break;
	case ROT_MISUSE_DEPTH:
		snprintf(buf, len, "region '%s' began in thread %d with %d regions open already%s",
			 reg, t, ROT_ARENA_DEPTH, tail);
		break;
	case ROT_MISUSE_NAME:
		snprintf(buf, len,
			 "a region name in thread %d is empty or has %d bytes or more: '%.40s'%s",
			 t, ROT_ARENA_NAME, reg, tail);
		break;
	case ROT_MISUSE_REGIONS:
		snprintf(buf, len, "region '%s' is one name more than the %d a program may use%s",
			 reg, ROT_ARENA_REGIONS, tail);
		break;
	default:
		snprintf(
		    buf, len,
		    "thread %d declared work outside any region, or a negative, NaN or infinite "
		    "count (in region '%s')%s",
		    t, *reg ? reg : "none", tail);
		break;
	}
}

void regions_close(struct regions *r)
{
	if (r->a)
		munmap(r->a, ROT_ARENA_BYTES);
	if (r->fd >= 0)
		close(r->fd);
	r->a = NULL;
	r->fd = -1;
}

void regions_free(struct regions *r)
{
	regions_close(r);
	counters_free(&r->ctr);
}
