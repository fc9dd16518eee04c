/* arena: the memory an application's marker recorder (recorder.c, preloaded into every process
 * of the program that runs with it) shares with the measuring core (app.c): what the core sets
 * up, which processes attached, and per thread and region what ran. */
#ifndef ROT_ARENA_H
#define ROT_ARENA_H

#include "../vocabulary.h" /* COUNTERS_MAX */

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ROT_ARENA_MAGIC 0x726f742d6172656eULL /* "rot-aren" */
#define ROT_ARENA_VERSION 3
#define ROT_ARENA_BYTES (64u << 20)   /* a sparse memfd: only the pages written cost */
#define ROT_ARENA_REGIONS 1024	      /* region names per invocation */
#define ROT_ARENA_NAME 128	      /* bytes of a name, its NUL included */
#define ROT_ARENA_EVENTS COUNTERS_MAX /* counters */
#define ROT_ARENA_ATTR 256	      /* bytes of one encoded perf_event_attr */
#define ROT_ARENA_DEPTH 64	      /* regions open at once in one thread */
#define ROT_ARENA_TEXT 512
#define ROT_ARENA_PROCS 64 /* processes of the program that attach */

/* The environment variables the core sets for the program (the header's dlopen reads the
 * first; the recorder the second: the arena's descriptor, which every process the program
 * starts inherits, so a program started through a launcher, sh -c, env, a script, records). */
#define ROT_ARENA_ENV_LIBRARY "ROT_MARKERS"
#define ROT_ARENA_ENV_FD "ROT_MARKERS_FD"

/* What a tick is: a nanosecond of CLOCK_MONOTONIC, or a TSC cycle (where the kernel's own
 * clocksource is the TSC, so it runs at one rate on every CPU: a read costs less than a clock
 * call's) */
enum rot_arena_clock { ROT_CLOCK_NS, ROT_CLOCK_TSC };

/* What went wrong with the markers (the first misuse is kept, with its words). */
enum rot_misuse {
	ROT_MISUSE_NONE,
	ROT_MISUSE_OTHER_THREAD,  /* ended in a thread where it is not open */
	ROT_MISUSE_NOT_INNERMOST, /* ended while a region begun inside it is still open */
	ROT_MISUSE_DEPTH,	  /* more than ROT_ARENA_DEPTH regions open in one thread */
	ROT_MISUSE_NAME,	  /* no name, or one of ROT_ARENA_NAME bytes or more */
	ROT_MISUSE_REGIONS,	  /* more than ROT_ARENA_REGIONS names */
	ROT_MISUSE_WORK, /* work declared with no region open, or a negative or NaN count */
};

/* One thread's record of one region (written by that thread only; read by the core once every
 * task of the program is gone). Times in ticks of the arena's clock, nested regions included. */
struct rot_arena_slot {
	uint32_t thread, region;
	uint32_t proc;				   /* the process (procs[]) whose thread it is */
	uint64_t calls;				   /* completed begin..end pairs */
	uint64_t open;				   /* begun, not (yet) ended */
	uint64_t ticks, min_ticks, max_ticks;	   /* in all, the shortest call, the longest */
	double flops, bytes, written, working_set; /* declared: summed over calls; the largest */
	uint64_t work_calls, written_calls;	   /* calls that declared work, written bytes */
	uint64_t counted_calls;			   /* calls whose counters ran all through */
	double counts[ROT_ARENA_EVENTS]; /* summed over counted calls, scaled when multiplexed */
	uint64_t multiplexed_calls;
	uint32_t missing; /* the events this thread could not open (bit i: event i) */
	/* the whole process's counts over the same calls (its first thread only: the one a
	 * region begun outside any parallel region runs in), summed over the calls whose
	 * process-wide counters ran all through */
	uint64_t process_calls;
	double process_counts[ROT_ARENA_EVENTS];
};

struct rot_arena {
	uint64_t magic;
	uint32_t version, bytes;
	/* set by the core before the program starts */
	uint32_t clock; /* enum rot_arena_clock: what a tick is */
	uint32_t nevents;
	uint32_t attr_size;
	unsigned char attr[ROT_ARENA_EVENTS][ROT_ARENA_ATTR];
	/* set by the recorder, in every process of the program that loads it */
	int32_t attached;  /* 1 once the first process has mapped the arena and calibrated */
	int32_t attaching; /* 1 once a process began to: the first calibrates, the others wait */
	uint32_t lock;	   /* taken to add a name, or keep a misuse: processes share it */
	int32_t pid;	   /* the first process's */
	uint32_t nprocs;   /* processes that attached (past ROT_ARENA_PROCS: counted only) */
	struct {
		int32_t pid, marked; /* marked: it called a marker */
		char name[16];	     /* its command (comm) */
	} procs[ROT_ARENA_PROCS];
	uint64_t forked_calls; /* markers called in a process forked without exec: not recorded */
	int32_t forked_pid;    /* the first such process */
	uint32_t nthreads, nregions, nslots;	/* threads that called a marker; names; slots */
	uint32_t overflow;			/* slots that did not fit (their calls are lost) */
	int32_t event_errno[ROT_ARENA_EVENTS];	/* each event's first failure to open: errno, */
	int32_t event_thread[ROT_ARENA_EVENTS]; /* and the thread */
	uint32_t process_missing; /* events the process-wide counters lack (bit i: event i) */
	int32_t process_errno;	  /* the first of them's errno */
	uint32_t misuse;	  /* enum rot_misuse of the first misuse, its thread and region */
	int32_t misuse_thread, misuse_other;
	char misuse_region[ROT_ARENA_NAME];
	char misuse_inner[ROT_ARENA_NAME];
	uint64_t misuses;     /* how many in all */
	uint64_t pair_ticks;  /* what a begin/end pair costs the program (calibrated at start) */
	uint64_t empty_ticks; /* the time an empty region measures (the smallest of many) */
	char names[ROT_ARENA_REGIONS][ROT_ARENA_NAME];
	struct rot_arena_slot slots[]; /* up to the end of the arena */
};

/* How many slots an arena of `bytes` holds. */
#define ROT_ARENA_SLOTS(bytes)                                                                     \
	(((bytes) - sizeof(struct rot_arena)) / sizeof(struct rot_arena_slot))

/* The arena's lock, which every process of the program shares (adding a name, keeping a
 * misuse: rare, short). */
static inline void arena_lock(struct rot_arena *a)
{
	while (__atomic_exchange_n(&a->lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static inline void arena_unlock(struct rot_arena *a)
{
	__atomic_store_n(&a->lock, 0, __ATOMIC_RELEASE);
}

/* The number of region name (n bytes, 0 < n < ROT_ARENA_NAME), added when it is new and create
 * is set: -1 when it is not there, or there is no room for it (recorder.c and the CUDA library,
 * cuda/records.c, share the names). */
static inline int arena_name(struct rot_arena *a, const char *name, size_t n, int create)
{
	int id = -1;
	arena_lock(a);
	uint32_t have = __atomic_load_n(&a->nregions, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < have && id < 0; i++)
		if (strcmp(a->names[i], name) == 0)
			id = (int)i;
	if (id < 0 && create && have < ROT_ARENA_REGIONS) {
		memcpy(a->names[have], name, n);
		a->names[have][n] = '\0';
		__atomic_store_n(&a->nregions, have + 1, __ATOMIC_RELEASE);
		id = (int)have;
	}
	arena_unlock(a);
	return id;
}

/* A process's entry in the arena, its pid and command (name) kept: its index (past
 * ROT_ARENA_PROCS: counted only). The recorder enters each process it starts in; the CUDA
 * library one it did not (cuda/inject.c). */
static inline uint32_t arena_enter(struct rot_arena *a, const char *name)
{
	uint32_t me = __atomic_fetch_add(&a->nprocs, 1, __ATOMIC_ACQ_REL);
	if (me < ROT_ARENA_PROCS) {
		a->procs[me].pid = (int32_t)getpid();
		strncpy(a->procs[me].name, name, sizeof a->procs[me].name - 1);
	}
	return me;
}

/* The arena of the descriptor v names (ROT_ARENA_ENV_FD's value), mapped: the core's memfd of
 * ROT_ARENA_BYTES, of this version; else NULL (a descriptor the program closed, or reused for a
 * file of its own, is never mapped). */
static inline struct rot_arena *arena_map(const char *v)
{
	char *end;
	long fd = v ? strtol(v, &end, 10) : -1;
	struct stat st;
	if (fd < 0 || *end != '\0' || fstat((int)fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size != ROT_ARENA_BYTES)
		return NULL;
	void *m = mmap(NULL, ROT_ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	struct rot_arena *a = m;
	if (a->magic != ROT_ARENA_MAGIC || a->version != ROT_ARENA_VERSION ||
	    a->bytes != ROT_ARENA_BYTES) {
		munmap(m, ROT_ARENA_BYTES);
		return NULL;
	}
	return a;
}

#endif
