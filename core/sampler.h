/* sampler: where a program's threads are, sampled at native speed: a software clock event of
 * perf_event_open on every CPU, following the program's process, its threads and the processes
 * it forks (inherited), its samples (instruction pointer, callers, thread, time) and its
 * executable mappings read from the ring buffers while it runs, and aggregated by object and
 * offset (codemap.c) into sample records. No PMU is needed. */
#ifndef ROT_SAMPLER_H
#define ROT_SAMPLER_H

#include "codemap.h"
#include "samples.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define SAMPLER_BUFFER_PAGES 64	   /* data pages of each CPU's ring buffer */

struct sampler_record; /* a record read from a ring buffer, waiting for its turn (sampler.c) */

struct sampler {
	int ncpu, epfd;
	int *fd;	 /* one event a CPU, -1 where the CPU is offline */
	void **ring;	 /* its mmap'd ring buffer */
	uint64_t period; /* ns of CPU time between samples */
	int kernel; /* 1: code in the kernel is sampled too (system time), else user code alone */
	struct codemap map;
	struct samples table;
	char *pending; /* records read and not yet handled (their time not yet safe) */
	size_t npending, cpending;
	struct sampler_record *order;
	size_t norder, corder;
	int *pids, *tids; /* the processes and threads seen */
	int npids, cpids, ntids, ctids;
	uint64_t samples, lost, throttled, unknown, bad;
	int oom; /* memory ran out: samples were dropped (counted in bad) */
};

/*
 * Opens the sampling of process pid, stopped before it execs its program (it starts at the
 * exec): one clock event a CPU, every period_ns of a thread's CPU time, inherited by its threads
 * and the processes it forks. Kernel code is sampled where allowed (kernel.perf_event_paranoid
 * 1 or lower, or privileges), else user code alone. 0, or -1 with why in words for the user (one
 * line, the setting to change; sampler_refusal) and nothing left open.
 */
int sampler_open(struct sampler *s, pid_t pid, uint64_t period_ns, char *why, size_t len);

/* The descriptor to poll: readable when a ring buffer is past its mark (-1: none). */
int sampler_fd(const struct sampler *s);

/* Reads the ring buffers (the program runs on): the records written before now are handled,
 * later ones kept for the next read (another CPU's buffer may still hold an earlier one). */
void sampler_drain(struct sampler *s);

/*
 * The program has ended: reads what is left, closes the events and writes the invocation's
 * records to out (run: its index; protocol.h's SAMPLED, then samples_write's). The samples stay
 * in s->table until sampler_free.
 */
void sampler_finish(struct sampler *s, int run, FILE *out);

void sampler_free(struct sampler *s);

/*
 * Why perf_event_open or its ring buffer's mmap (what) failed with errno err, in one line that
 * names the setting to change: paranoid is kernel.perf_event_paranoid (-99: unknown), mlock_kb
 * kernel.perf_event_mlock_kb (-1: unknown).
 */
void sampler_refusal(int err, const char *what, int paranoid, long mlock_kb, char *buf, size_t len);

#endif
