/* rules: the events a measurement raises (workload start/stop, thread created/exited, run
 * start/end, fault) and the rules a script attaches to them: a predicate and one action. */
#ifndef ROT_RULES_H
#define ROT_RULES_H

#include "protocol.h"

/* the events and actions of protocol.h, as enums in declaration order */
enum rot_event {
#define X(id, name, meaning) EV_##id,
	PROTOCOL_EVENTS(X)
#undef X
	    EV_COUNT
};

enum rot_action {
#define X(id, name, side, meaning) ACT_##id,
	PROTOCOL_ACTIONS(X)
#undef X
	    ACT_COUNT
};

struct rule {
	enum rot_event on;
	enum rot_action action;
	int run;    /* predicate: run index equals (-1: any) */
	int every;  /* predicate: run index divisible by (0: any) */
	int thread; /* predicate: index of the created/exited thread, 0 = first (-1: any) */
	int cpu;
	char text[48];
};

const char *rules_event_name(enum rot_event e);
const char *rules_action_name(enum rot_action a);

/* Parses "EVENT ACTION [key=value ...]" (keys: PROTOCOL_RULE_KEYS). -1 with err. */
int rules_parse(const char *spec, struct rule *r, char *err, int errlen);

/* 1 when r fires for event e at run index (or -1) and thread index (or -1). */
int rules_match(const struct rule *r, enum rot_event e, int run, int thread);

/* 1 when the action runs in the parent (it then needs to hear of the event). */
int rules_parent_side(enum rot_action a);

#endif
