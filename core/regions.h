/* regions: the arena an application's marker recorder shares with the core (markers/arena.h):
 * made for each invocation with the counters encoded, read once the invocation has ended into
 * region records (PROTOCOL_REGION_KEYS), each summed over the threads that entered it. */
#ifndef ROT_REGIONS_H
#define ROT_REGIONS_H

#include "counters.h"
#include "markers/arena.h"

#include <stdint.h>
#include <stdio.h>

struct regions {
	int fd;		     /* the invocation's arena (a memfd; -1: none) */
	struct rot_arena *a; /* mapped in the core */
	struct counters ctr; /* the events, encoded with libpfm4 */
	char err[1024];	     /* why they cannot be encoded */
	int clock;	     /* enum rot_arena_clock */
	uint64_t tsc0, ns0;  /* the clocks when the first invocation started (the TSC's rate) */
};

/* One region's time in an invocation, for the stop rule. */
struct region_time {
	const char *name; /* in the arena: valid until the next regions_open */
	double ns;
};

/* Encodes the events (counters_setup) and chooses the clock: the TSC where the kernel's own
 * clocksource is the TSC. 0, or -1 with r->err. */
int regions_setup(struct regions *r, char names[][128], int n);

/* A fresh arena for the next invocation: its descriptor in r->fd. 0, or -1 with errno. */
int regions_open(struct regions *r);

/* The invocation ended: writes its region records (run: its index) to out and their times to
 * times[0..max); returns how many regions there were. */
int regions_write(struct regions *r, int run, FILE *out, struct region_time *times, int max);

/* What the arena says of the invocation as a whole: meta lines (the recorder attached, what a
 * marker pair costs, the counters' failure with a hint, regions lost). */
void regions_write_meta(const struct regions *r, FILE *out);

/* The first misuse of the markers in words (empty: none). */
void regions_misuse(const struct regions *r, char *buf, size_t len);

void regions_close(struct regions *r);

void regions_free(struct regions *r);

#endif
