/* Unit tests for core/tracer without a child: the state in a /proc task stat line (the busy-
 * thread check), and what a shared child keeps for its next point. */
#include "tracer.h"
#include "tap.h"

#include <stdlib.h>

static void stat_state(void)
{
	ok(tracer_stat_running("4242 (rot-core) R 1 4242 4242 0 -1 4194560 0"), "R: running");
	ok(!tracer_stat_running("4242 (rot-core) S 1 4242 4242 0 -1 4194560 0"), "S: sleeping");
	ok(!tracer_stat_running("4242 (cuda-EvtHandlr) D 1 2 3"), "D: waiting for I/O");
	ok(!tracer_stat_running("4242 (a) R (b) S 1 2 3"),
	   "a name holding ') R': the state follows the last ')'");
	ok(tracer_stat_running("4242 (x) S) R 1 2 3"), "and a name holding ') S' with state R");
	ok(!tracer_stat_running("4242 (cut"), "a cut line: not running");
	ok(!tracer_stat_running(""), "an empty one: not running");
}

static void reset(void)
{
	struct tracee *tr = calloc(1, sizeof *tr);
	struct point p = {0};
	tr->th.n = 3;
	tr->th.created = 2;
	tr->th.exited = 1;
	tr->th.t[0] = (struct thread){.tid = 100, .index = 0, .state = T_RUNNING};
	tr->th.t[1] = (struct thread){.tid = 101, .index = 1, .state = T_EXITED};
	tr->th.t[2] = (struct thread){.tid = 102, .index = 2, .state = T_RUNNING};
	tr->th.t[2].c.counted = 1;
	tr->ot.n = tr->ot.forks = 1;
	tr->leftover = 7;
	tr->run = 4;
	tr->measured = 1;
	tr->rec.text = strdup("run ns=1\n");
	tr->tc.counting = 1;
	errtail_add(&tr->err, "x\n", 2);
	evlog_add(&tr->events, EV_RUN_END, 0, -1, NULL);
	tracer_reset_point(tr, &p, 5);
	ok(tr->th.n == 2 && tr->th.t[0].tid == 100 && tr->th.t[1].tid == 102 &&
	       tr->th.t[1].index == 1,
	   "live threads kept, renumbered from 0 (the main one first)");
	ok(tr->th.counted == 1 && tr->th.created == 0 && tr->th.exited == 0,
	   "counted threads recounted, created and exited from 0");
	ok(tr->p == &p && tr->point == 5 && tr->run == -1 && !tr->measured && !tr->leftover &&
	       tr->ot.n == 0 && tr->ot.forks == 0,
	   "the next point, before its first run, nothing left over");
	ok(!tr->rec.text && tr->err.len == 0 && tr->events.len == 0,
	   "no records, stderr or events of the last point");
	free(tr);
}

int main(void)
{
	stat_state();
	reset();
	return done_testing();
}
