/* rules: the events a measurement raises (workload start/stop, thread created/exited, run
 * start/end, fault) and the rules a script attaches to them: a predicate and one action. */
#include "rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const event_names[EV_COUNT] = {
#define X(id, name, meaning) [EV_##id] = name,
    PROTOCOL_EVENTS(X)
#undef X
};

enum action_side { ACTION_SIDE_CHILD, ACTION_SIDE_PARENT };

static const struct {
	const char *name;
	enum action_side side;
} actions[ACT_COUNT] = {
#define X(id, name, side, meaning) [ACT_##id] = {name, ACTION_SIDE_##side},
    PROTOCOL_ACTIONS(X)
#undef X
};

enum rule_key {
#define X(id, key, syntax, meaning) RULE_KEY_##id,
	PROTOCOL_RULE_KEYS(X)
#undef X
	    RULE_KEY_COUNT
};

static const char *const rule_keys[RULE_KEY_COUNT] = {
#define X(id, key, syntax, meaning) [RULE_KEY_##id] = key,
    PROTOCOL_RULE_KEYS(X)
#undef X
};

const char *rules_event_name(enum rot_event e)
{
	return e < EV_COUNT ? event_names[e] : "?";
}

const char *rules_action_name(enum rot_action a)
{
	return a < ACT_COUNT ? actions[a].name : "?";
}

int rules_parent_side(enum rot_action a)
{
	return a < ACT_COUNT && actions[a].side == ACTION_SIDE_PARENT;
}

int rules_parse(const char *spec, struct rule *r, char *err, int errlen)
{
	char ev[32], act[32];
	int used = 0;
	memset(r, 0, sizeof *r);
	r->run = -1;
	r->thread = -1;
	r->cpu = -1;
	if (sscanf(spec, "%31s %31s%n", ev, act, &used) != 2) {
		snprintf(err, errlen, "rule '%s': expected EVENT ACTION", spec);
		return -1;
	}
	int e = -1, a = -1;
	for (int i = 0; i < EV_COUNT; i++)
		if (strcmp(ev, event_names[i]) == 0)
			e = i;
	for (int i = 0; i < ACT_COUNT; i++)
		if (strcmp(act, actions[i].name) == 0)
			a = i;
	if (e < 0 || a < 0) {
		snprintf(err, errlen, "rule '%s': unknown %s '%s'", spec,
			 e < 0 ? "event" : "action", e < 0 ? ev : act);
		return -1;
	}
	r->on = (enum rot_event)e;
	r->action = (enum rot_action)a;
	for (const char *p = spec + used; *p;) {
		char key[16], val[48];
		int n = 0;
		if (sscanf(p, " %15[a-z]=%47s%n", key, val, &n) != 2) {
			if (sscanf(p, " %n", &n) == 0 && p[n] == '\0')
				break;
			snprintf(err, errlen, "rule '%s': expected key=value", spec);
			return -1;
		}
		p += n;
		int k = 0;
		while (k < RULE_KEY_COUNT && strcmp(key, rule_keys[k]) != 0)
			k++;
		switch ((enum rule_key)k) {
		case RULE_KEY_RUN:
			r->run = atoi(val);
			break;
		case RULE_KEY_EVERY:
			r->every = atoi(val);
			break;
		case RULE_KEY_THREAD:
			r->thread = atoi(val);
			break;
		case RULE_KEY_CPU:
			r->cpu = atoi(val);
			break;
		case RULE_KEY_TEXT:
			snprintf(r->text, sizeof r->text, "%s", val);
			break;
		default:
			snprintf(err, errlen, "rule '%s': unknown key '%s'", spec, key);
			return -1;
		}
	}
	if (r->action == ACT_FLUSH && r->on != EV_RUN_START && r->on != EV_WORKLOAD_START) {
		snprintf(err, errlen, "rule '%s': flush works on runStart or workloadStart", spec);
		return -1;
	}
	if (r->action == ACT_PIN && r->cpu < 0) {
		snprintf(err, errlen, "rule '%s': pin needs cpu=N", spec);
		return -1;
	}
	return 0;
}

int rules_match(const struct rule *r, enum rot_event e, int run, int thread)
{
	if (r->on != e)
		return 0;
	if (r->run >= 0 && r->run != run)
		return 0;
	if (r->every > 0 && (run < 0 || run % r->every != 0))
		return 0;
	if (r->thread >= 0 && r->thread != thread)
		return 0;
	return 1;
}
