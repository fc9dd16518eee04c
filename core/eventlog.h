/* eventlog: a point's event log as its result carries it (meta events): each event the tracer
 * saw or a rule acted on, with its run, thread and detail ("runEnd/run=2/marker=half"). */
#ifndef ROT_EVENTLOG_H
#define ROT_EVENTLOG_H

#include "rules.h"

#include <stddef.h>

struct eventlog {
	char text[8192];
	size_t len;
};

/* Adds "EVENT[/run=R][/thread=T][/DETAIL]" (run, thread -1: none; detail NULL: none); an event
 * that no longer fits is left out. */
void eventlog_add(struct eventlog *l, enum rot_event e, int run, int thread, const char *detail);

void eventlog_clear(struct eventlog *l);

#endif
