/* recorder: rot's marker recorder (librot-markers.so), preloaded into a measured application
 * and every process it execs: per thread and region, calls, time, declared work and counters,
 * into the arena (arena.h) they all share. */
#define _GNU_SOURCE
#include "arena.h"
#include "../include/rot/markers.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#define CACHE 256 /* a thread's name -> region cache (by the name's address) */
#define EV ROT_ARENA_EVENTS

/* One open region of a thread: when it began, its counters then (the process's too, in its
 * first thread), the work declared so far. */
struct frame {
	uint32_t region;
	uint64_t t0;
	uint64_t c0[EV + 3]; /* nr, time enabled, time running, values */
	uint64_t p0[EV + 3]; /* the same of the process-wide counters */
	double flops, bytes, written, working_set;
	int work, has_written;
};

/* A counter group: a thread's own, or the process's (inherited by every thread it starts). */
struct group {
	int fd;		  /* its leader (-1: none) */
	int fds[EV];	  /* each event's descriptor (-1: it could not be opened) */
	int at[EV];	  /* where each event's value is in a read of the group (-1: absent) */
	int ngroup;	  /* events in the group */
	uint32_t missing; /* events it could not open (bit i: event i) */
};

/* A thread's state: its number, open regions, its slot of each region, its counters. */
struct tstate {
	uint32_t index;
	int depth, overdepth; /* open regions; begins past ROT_ARENA_DEPTH, ignored */
	int first;	      /* the process's first thread: it reads the process's counters too */
	struct group g;
	struct frame stack[ROT_ARENA_DEPTH];
	struct rot_arena_slot *slot[ROT_ARENA_REGIONS];
	struct {
		const char *name;
		uint32_t id;
	} cache[CACHE];
};

static struct rot_arena *arena; /* NULL: nothing is recorded */
static struct group process;	/* the whole process's counters (fd -1: none) */
static int recording;		/* 0 in a process the program forked: it shares the arena */
static uint32_t me;		/* this process's entry in arena->procs */
static int marked;		/* this process called a marker (said in its entry) */
static uint64_t max_slots;
static pthread_key_t thread_key;
static __thread struct tstate *self;

static inline uint64_t now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (arena->clock == ROT_CLOCK_TSC)
		return __rdtsc();
#endif
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The first misuse is kept with its words' pieces; every one is counted. */
static void misuse(enum rot_misuse kind, const struct tstate *t, const char *region,
		   const char *inner, int other)
{
	arena_lock(arena);
	if (!arena->misuse) {
		arena->misuse = kind;
		arena->misuse_thread = t ? (int32_t)t->index : -1;
		arena->misuse_other = other;
		strncpy(arena->misuse_region, region ? region : "", ROT_ARENA_NAME - 1);
		strncpy(arena->misuse_inner, inner ? inner : "", ROT_ARENA_NAME - 1);
	}
	arena->misuses++;
	arena_unlock(arena);
}

/* The region of a name, its number added to the arena when it is new: -1 after a misuse (no
 * name, too long a one, too many). create 0: -1 for a name never seen. */
static int region_of(struct tstate *t, const char *name, int create)
{
	unsigned h = (unsigned)(((uintptr_t)name >> 3) & (CACHE - 1));
	if (t->cache[h].name == name && strcmp(arena->names[t->cache[h].id], name) == 0)
		return (int)t->cache[h].id;
	size_t n = strnlen(name, ROT_ARENA_NAME);
	if (n == 0 || n == ROT_ARENA_NAME) {
		misuse(ROT_MISUSE_NAME, t, n ? name : "(empty)", NULL, -1);
		return -1;
	}
	int id = arena_name(arena, name, n, create);
	if (id < 0 && create)
		misuse(ROT_MISUSE_REGIONS, t, name, NULL, -1);
	if (id >= 0) {
		t->cache[h].name = name;
		t->cache[h].id = (uint32_t)id;
	}
	return id;
}

/* The calling thread's record of region id, made on its first call (NULL when the arena is
 * full: the call is lost, and counted). */
static struct rot_arena_slot *slot_of(struct tstate *t, uint32_t id)
{
	if (t->slot[id])
		return t->slot[id];
	uint64_t i = __atomic_fetch_add(&arena->nslots, 1, __ATOMIC_RELAXED);
	if (i >= max_slots) {
		__atomic_fetch_add(&arena->overflow, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	struct rot_arena_slot *s = &arena->slots[i];
	s->thread = t->index;
	s->region = id;
	s->proc = me;
	s->min_ticks = UINT64_MAX;
	s->missing = t->g.missing;
	return t->slot[id] = s;
}

/* Opens the calling thread's counters as one group (those in it count together, or none does:
 * a counter that did not run is never read as 0; a single counter is read alone); inherit: the
 * process's, counting every thread it starts from now on too. An event that cannot be opened is
 * left out (in g->missing), the others count; err(i, errno) hears of each failure. */
static void counters_open(struct group *g, int inherit, void (*err)(uint32_t, int, uint32_t),
			  uint32_t who)
{
	g->fd = -1;
	for (uint32_t i = 0; i < arena->nevents; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof a);
		memcpy(&a, arena->attr[i],
		       arena->attr_size < sizeof a ? arena->attr_size : sizeof a);
		a.size = sizeof a;
		/* one event reads alone ({value, enabled, running}: read_counters puts it in the
		 * group's layout), a fifth of a read's cost off a software counter here */
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
				(arena->nevents > 1 ? PERF_FORMAT_GROUP : 0);
		a.disabled = 0;
		a.inherit = (unsigned)inherit;
		g->at[i] = -1;
		g->fds[i] =
		    (int)syscall(SYS_perf_event_open, &a, 0, -1, g->fd, PERF_FLAG_FD_CLOEXEC);
		if (g->fds[i] < 0) {
			err(i, errno, who);
			g->missing |= 1u << i;
			continue;
		}
		if (g->fd < 0)
			g->fd = g->fds[i];
		g->at[i] = g->ngroup++;
	}
}

/* A thread's event i could not be opened: its first failure is kept, with the thread. */
static void thread_failed(uint32_t i, int e, uint32_t thread)
{
	int zero = 0;
	if (__atomic_compare_exchange_n(&arena->event_errno[i], &zero, e, 0, __ATOMIC_RELAXED,
					__ATOMIC_RELAXED))
		arena->event_thread[i] = (int32_t)thread;
}

/* The process-wide event i could not be opened: the first failure's errno is kept. */
static void process_failed(uint32_t i, int e, uint32_t unused)
{
	(void)unused;
	if (!arena->process_errno)
		arena->process_errno = e;
	arena->process_missing |= 1u << i;
}

static void thread_end(void *p)
{
	struct tstate *t = p;
	for (uint32_t i = 0; i < arena->nevents; i++)
		if (t->g.fds[i] >= 0)
			close(t->g.fds[i]);
	if (self == t)
		self = NULL;
	free(t);
}

/* The calling thread's state, made at its first marker. */
static struct tstate *thread_state(void)
{
	if (self)
		return self;
	struct tstate *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->index = __atomic_fetch_add(&arena->nthreads, 1, __ATOMIC_RELAXED);
	t->g.fd = -1;
	t->first = process.fd >= 0 && (pid_t)syscall(SYS_gettid) == getpid();
	if (arena->nevents)
		counters_open(&t->g, 0, thread_failed, t->index);
	pthread_setspecific(thread_key, t);
	return self = t;
}

/* The group's counts as a group read lays them out: {events, enabled, running, values...} */
static void read_counters(const struct group *g, uint64_t *v)
{
	if (arena->nevents == 1) { /* read alone: {value, enabled, running} */
		uint64_t one[3];
		if (read(g->fd, one, sizeof one) < 0)
			one[2] = UINT64_MAX;
		v[0] = 1, v[1] = one[1], v[2] = one[2], v[3] = one[0];
		return;
	}
	if (read(g->fd, v, (3 + (size_t)g->ngroup) * sizeof *v) < 0)
		v[2] = UINT64_MAX; /* marks the read as failed: the call is not counted */
}

/* A marker called where nothing is recorded: in a process forked from one that records (it
 * shares the arena's pages with its parent), counted for the core to say. */
static void unrecorded(void)
{
	if (arena && !__atomic_fetch_add(&arena->forked_calls, 1, __ATOMIC_RELAXED))
		arena->forked_pid = (int32_t)getpid();
}

static void region_begin(const char *name)
{
	if (!recording) {
		unrecorded();
		return;
	}
	if (!marked && me < ROT_ARENA_PROCS)
		marked = arena->procs[me].marked = 1;
	struct tstate *t = thread_state();
	if (!t)
		return;
	if (!name) {
		misuse(ROT_MISUSE_NAME, t, "(null)", NULL, -1);
		return;
	}
	int id = region_of(t, name, 1);
	if (id < 0)
		return;
	if (t->depth == ROT_ARENA_DEPTH) {
		if (!t->overdepth++)
			misuse(ROT_MISUSE_DEPTH, t, name, NULL, -1);
		return;
	}
	struct rot_arena_slot *s = slot_of(t, (uint32_t)id);
	struct frame *f = &t->stack[t->depth++];
	f->region = (uint32_t)id;
	f->flops = f->bytes = f->written = f->working_set = 0;
	f->work = f->has_written = 0;
	if (s)
		s->open++;
	if (t->first) /* outside the timed window, as the thread's own */
		read_counters(&process, f->p0);
	if (t->g.fd >= 0)
		read_counters(&t->g, f->c0);
	f->t0 = now();
}

/* Adds a call's counts (c1 now, c0 at its begin) of group g to counts: -1 when the group did
 * not run all through the call (or a read failed: the call is not counted), 1 when its counts
 * were scaled (multiplexed), else 0. */
static int add_counts(const struct group *g, double *counts, const uint64_t *c0, const uint64_t *c1)
{
	uint64_t en = c1[1] - c0[1], run = c1[2] - c0[2];
	if (c0[2] == UINT64_MAX || c1[2] == UINT64_MAX || run == 0 || run > en)
		return -1;
	double scale = run < en ? (double)en / (double)run : 1.0;
	for (uint32_t i = 0; i < arena->nevents; i++)
		if (g->at[i] >= 0)
			counts[i] += (double)(c1[3 + g->at[i]] - c0[3 + g->at[i]]) * scale;
	return run < en;
}

/* Where name is open in this thread, innermost first: its depth index, or -1. */
static int open_at(const struct tstate *t, int id)
{
	for (int d = t->depth - 1; d >= 0; d--)
		if ((int)t->stack[d].region == id)
			return d;
	return -1;
}

/* A thread other than t where region id is open (for the misuse's words), or -1. */
static int opened_elsewhere(const struct tstate *t, int id)
{
	uint64_t n = __atomic_load_n(&arena->nslots, __ATOMIC_RELAXED);
	for (uint64_t i = 0; i < n && i < max_slots; i++)
		if ((int)arena->slots[i].region == id && arena->slots[i].thread != t->index &&
		    arena->slots[i].open > 0)
			return (int)arena->slots[i].thread;
	return -1;
}

/* An end that does not end this thread's innermost region: said, and ignored. */
static void bad_end(struct tstate *t, const char *name, int id)
{
	int at = id >= 0 ? open_at(t, id) : -1;
	if (at >= 0)
		misuse(ROT_MISUSE_NOT_INNERMOST, t, name,
		       arena->names[t->stack[t->depth - 1].region], -1);
	else
		misuse(ROT_MISUSE_OTHER_THREAD, t, name, NULL,
		       id >= 0 ? opened_elsewhere(t, id) : -1);
}

static void region_end(const char *name)
{
	if (!recording)
		return;
	uint64_t t1 = now(), c1[EV + 3];
	struct tstate *t = thread_state();
	if (!t)
		return;
	if (t->overdepth) {
		t->overdepth--;
		return;
	}
	int id = name ? region_of(t, name, 0) : -1;
	if (!name || t->depth == 0 || id < 0 || (int)t->stack[t->depth - 1].region != id) {
		bad_end(t, name ? name : "(null)", id);
		return;
	}
	struct frame *f = &t->stack[--t->depth];
	uint64_t p1[EV + 3];
	if (t->g.fd >= 0)
		read_counters(&t->g, c1);
	if (t->first)
		read_counters(&process, p1);
	struct rot_arena_slot *s = t->slot[id];
	if (!s)
		return;
	uint64_t d = t1 - f->t0;
	s->calls++;
	s->open--;
	s->ticks += d;
	s->min_ticks = d < s->min_ticks ? d : s->min_ticks;
	s->max_ticks = d > s->max_ticks ? d : s->max_ticks;
	s->flops += f->flops;
	s->bytes += f->bytes;
	s->written += f->written;
	s->working_set = f->working_set > s->working_set ? f->working_set : s->working_set;
	s->work_calls += f->work;
	s->written_calls += f->has_written;
	int c = t->g.fd >= 0 ? add_counts(&t->g, s->counts, f->c0, c1) : -1;
	if (c >= 0) {
		s->counted_calls++;
		s->multiplexed_calls += (uint64_t)c;
	}
	if (t->first && add_counts(&process, s->process_counts, f->p0, p1) >= 0)
		s->process_calls++;
}

/* The calling thread's innermost open region, for a declaration (NULL after a misuse). */
static struct frame *declaring(double a, double b)
{
	if (!recording)
		return NULL;
	struct tstate *t = thread_state();
	if (!t)
		return NULL;
	if (t->depth == 0 || !(a >= 0) || !(b >= 0) || isinf(a) || isinf(b)) {
		misuse(ROT_MISUSE_WORK, t,
		       t->depth ? arena->names[t->stack[t->depth - 1].region] : "", NULL, -1);
		return NULL;
	}
	return &t->stack[t->depth - 1];
}

static void region_work(double flops, double bytes)
{
	struct frame *f = declaring(flops, bytes);
	if (f) {
		f->flops += flops;
		f->bytes += bytes;
		f->work = 1;
	}
}

static void region_written(double bytes)
{
	struct frame *f = declaring(bytes, 0);
	if (f) {
		f->written += bytes;
		f->has_written = 1;
	}
}

static void region_working_set(double bytes)
{
	struct frame *f = declaring(bytes, 0);
	if (f && bytes > f->working_set)
		f->working_set = bytes;
}

static const struct rot_markers_api api = {ROT_MARKERS_VERSION, region_begin,	region_end,
					   region_work,		region_written, region_working_set};

__attribute__((visibility("default"))) const struct rot_markers_api *rot_markers_api(int version)
{
	return version == ROT_MARKERS_VERSION && arena
		   ? &api
		   : NULL; /* (a forked child's calls: counted) */
}

/* A process the program forks (without exec) shares the arena's pages and its parent's thread
 * states: it records nothing (its markers' calls are counted: unrecorded). One that execs
 * loads the recorder afresh and records. */
static void forked(void)
{
	recording = 0;
}

/* What a marker costs the program, and what an empty region measures (the smallest of many),
 * from pairs of a region the arena then forgets: the recording starts empty. */
static void calibrate(void)
{
	enum { WARM = 500, PAIRS = 2000 };
	for (int i = 0; i < WARM; i++) { /* a thread's first reads of its counters are slow */
		region_begin("rot:calibration");
		region_end("rot:calibration");
	}
	uint64_t t0 = now();
	for (int i = 0; i < PAIRS; i++) {
		region_begin("rot:calibration");
		region_end("rot:calibration");
	}
	uint64_t t1 = now();
	struct tstate *t = self;
	if (t && t->slot[0])
		arena->empty_ticks = t->slot[0]->min_ticks;
	arena->pair_ticks = (t1 - t0) / PAIRS;
	if (t) {
		memset(t->slot, 0, sizeof t->slot);
		memset(t->cache, 0, sizeof t->cache);
	}
	if (arena->nslots)
		memset(&arena->slots[0], 0, sizeof arena->slots[0]);
	memset(arena->names[0], 0, ROT_ARENA_NAME);
	arena->nslots = arena->nregions = 0;
	marked = 0;
	if (me < ROT_ARENA_PROCS)
		arena->procs[me].marked = 0;
}

/* In every process of the program rot started that loads it (the program, and what it or a
 * launcher before it execs: sh -c, env, a script): the arena of the descriptor the core left,
 * mapped and left open, so the processes it starts inherit it too. The first process to attach
 * calibrates the markers; the others wait until it has (it empties the arena after). */
__attribute__((constructor)) static void recorder_start(void)
{
	struct rot_arena *a = arena_map(getenv(ROT_ARENA_ENV_FD));
	if (!a)
		return;
	if (pthread_key_create(&thread_key, thread_end) != 0) {
		munmap(a, ROT_ARENA_BYTES);
		return;
	}
	max_slots = ROT_ARENA_SLOTS(a->bytes);
	arena = a;
	process.fd = -1;
	if (a->nevents && (pid_t)syscall(SYS_gettid) == getpid()) /* before it starts a thread */
		counters_open(&process, 1, process_failed, 0);
	me = arena_enter(a, program_invocation_short_name);
	pthread_atfork(NULL, NULL, forked);
	recording = 1;
	if (!__atomic_exchange_n(&a->attaching, 1, __ATOMIC_ACQ_REL)) {
		a->pid = (int32_t)getpid();
		calibrate();
		__atomic_store_n(&a->attached, 1, __ATOMIC_RELEASE);
	}
	for (int i = 0; i < 1000000 && !__atomic_load_n(&a->attached, __ATOMIC_ACQUIRE); i++)
		sched_yield();
}
