/* measure: what the traced child does for one point: its workloads and their threads, warm-up,
 * timed runs on its device (device.h) until the best-k rule holds, events told, records. */
#ifndef ROT_MEASURE_H
#define ROT_MEASURE_H

#include "bestk.h"
#include "counters.h"
#include "registry.h"
#include "rules.h"

#include <signal.h>
#include <stdio.h>

#define MAX_WORKLOADS 8
#define MAX_PIN 256
#define MAX_RULES 16
/* the child stops with this signal to tell its tracer about an event (never delivered) */
#define ROT_EVENT_SIGNAL (SIGRTMIN + 3)
#define ROT_EVENT_CODE(e, run) (((int)(e) << 16) | ((run)&0xffff))
/* ... and with this one, carrying the address of a struct rot_records, when its records are
 * complete: the tracer reads them out of the child's memory, so no descriptor a kernel can
 * reach carries results */
#define ROT_RECORDS_SIGNAL (SIGRTMIN + 4)
#define ROT_RECORDS_MAGIC 0x7265636f7264735fULL

struct rot_records {
	unsigned long long magic;
	char *buf;
	size_t len;
	int index; /* the point's place in its batch */
	int rc;	   /* measure_point's verdict: 0 measured */
};

struct workload {
	struct rot_args args;
	int threads;
	int pin[MAX_PIN]; /* thread i runs on pin[i % npin]; npin == 0: not pinned */
	int npin;
	void *state;
};

#define APP_STRINGS                                                                                \
	16384 /* bytes of an application's path, directory, arguments and environment              \
	       */
#define APP_MAX_ARGS 256
#define APP_MAX_ENV 128

/* An application point's program (app.c): its strings, each NUL-terminated in strings at an
 * offset (offsets, not pointers: points are copied). */
struct app {
	char name[64]; /* the program's file name, for words */
	char strings[APP_STRINGS];
	int used;
	int path, dir; /* -1: none (dir: the core's own) */
	int args[APP_MAX_ARGS], nargs;
	int env[APP_MAX_ENV], nenv; /* NAME=VALUE, on top of the core's environment */
	int cuda; /* 1: a CUDA program, rot's CUDA library loaded beside the recorder */
};

struct point {
	struct workload w[MAX_WORKLOADS];
	int nw;
	struct bestk rule;
	double min_run_time; /* warm mode: seconds one timed run should last at least */
	int cold;
	double timeout;
	int ignore_disturbed; /* best-k looks only at runs without preemption or migration */
	struct rule rules[MAX_RULES];
	int nrules;
	char counter_names[COUNTERS_MAX][128];
	int ncounters;
	int notify; /* the parent wants run and workload events (counters, parent-side rules):
		     * without, the child does not stop for them */
	/* CUPTI metrics, profiled after (never during) the timed runs */
	char gpu_metrics[GPU_MAX_METRICS][128];
	int ngpu_metrics;
	int shared; /* may share its child with the points beside it (a GPU context set up once) */
	struct app app; /* an application point: no workload, app.path set */
	int sample_ns;	/* an application point: sampled every this many ns of CPU time (0: not) */
};

/* Where the child says which timed run it is in (-1: none yet), for a tracer that does not
 * follow run events: a page shared between the core and its children, set up by the core
 * before it forks them (NULL: none). A stop for every run event costs a dozen system calls;
 * this costs a store. */
extern volatile int *measure_run_slot;

/* Stops the calling thread for its tracer with sig (ROT_EVENT_SIGNAL, ROT_RECORDS_SIGNAL)
 * carrying v; unblocks sig first, since a kernel may have blocked every signal. */
void measure_tell(int sig, union sigval v);

/* Measures what the children share once, before the core forks them: the cost of an empty
 * timed region. */
void measure_prepare(void);

/* Writes `meta` and `run` lines to out. Returns 0, or -1 after writing the failure (`error`,
 * `meta failure KIND`). The kernels run on their device (device.h). */
int measure_point(struct point *p, FILE *out);

/* The point's flush rules that fire at event e (run: its index, or -1): each evicts the
 * host's caches now. Returns how many fired. */
int measure_flush_rules(const struct point *p, enum rot_event e, int run,
			const struct rot_buffer *b, int nb);

#endif
