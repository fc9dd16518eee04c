/* counters: hardware and software event counters: names encoded by libpfm4, opened per
 * thread with perf_event_open, read with time enabled/running so multiplexing is scaled. */
#ifndef ROT_COUNTERS_H
#define ROT_COUNTERS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "vocabulary.h" /* COUNTERS_MAX */

struct counters {
	int n;
	char name[COUNTERS_MAX][128];
	/* the encoded attributes; opaque here so users of this header need no perf headers */
	void *attr;
	int user_only; /* perf_event_paranoid forces counting user space only */
};

/* Encodes every name with libpfm4. Returns 0, or -1 with a message saying which name and
 * why, plus what this machine offers. */
int counters_setup(struct counters *c, char names[][128], int n, char *err, size_t errlen);

/* Opens the counters for thread tid into fds[0..c->n). -1 with a message naming the event
 * and the reason (no PMU, paranoid level, ...). */
int counters_open(const struct counters *c, pid_t tid, int *fds, char *err, size_t errlen);

/* Why event i cannot be opened (errno e), in the words of counters_open, with the paranoid
 * level, what the machine offers and a hint where a setting is the cause. */
void counters_why(const struct counters *c, int i, int e, char *err, size_t errlen);

/* Event i's encoded perf_event_attr (*attr) and its size: for a process that opens it itself
 * (an application's marker recorder). */
size_t counters_attr(const struct counters *c, int i, const void **attr);

/* Reads one counter: raw value, time enabled and time running (ns). */
int counters_read(int fd, uint64_t v[3]);

void counters_enable(int fd, int on);

/* Writes the PMUs libpfm4 finds here and the events of each (names only). */
void counters_list(FILE *out, int with_events);

void counters_free(struct counters *c);

#endif
