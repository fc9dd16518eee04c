/* Unit tests for core/tracer: the state in a /proc task stat line (the busy-thread check), what
 * a shared child keeps for its next point, and a failed wait that gives up on a task in time.
 * judges no time */
#include "procfs.h"
#include "tracer.h"
#include "tap.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void stat_state(void)
{
	ok(procfs_stat_running("4242 (rot-core) R 1 4242 4242 0 -1 4194560 0"), "R: running");
	ok(!procfs_stat_running("4242 (rot-core) S 1 4242 4242 0 -1 4194560 0"), "S: sleeping");
	ok(!procfs_stat_running("4242 (cuda-EvtHandlr) D 1 2 3"), "D: waiting for I/O");
	ok(!procfs_stat_running("4242 (a) R (b) S 1 2 3"),
	   "a name holding ') R': the state follows the last ')'");
	ok(procfs_stat_running("4242 (x) S) R 1 2 3"), "and a name holding ') S' with state R");
	ok(!procfs_stat_running("4242 (cut"), "a cut line: not running");
	ok(!procfs_stat_running(""), "an empty one: not running");
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
	eventlog_add(&tr->events, EV_RUN_END, 0, -1, NULL);
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

static pid_t sleeper(int group)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (group)
			setpgid(0, 0);
		sleep(20);
		_exit(0);
	}
	if (pid > 0 && group)
		setpgid(pid, pid); /* either side may run first */
	return pid;
}

/* A poll that fails (2 descriptors past RLIMIT_NOFILE: EINVAL) kills and reaps the child; a
 * child of the core the kill misses stands for a task stuck in an uninterruptible sleep. */
static void abort_bounded(void)
{
	static struct point p; /* no timeout */
	static const struct rot_kernel k = {.name = "k"};
	struct tracee *tr = calloc(1, sizeof *tr);
	pid_t kid = sleeper(1), stuck = sleeper(0);
	struct rlimit old, low;
	struct timespec t0, t1;
	getrlimit(RLIMIT_NOFILE, &old);
	low = (struct rlimit){1, old.rlim_max};
	p.w[0].args.kernel = &k;
	tr->p = &p;
	tr->pid = kid;
	tr->th.n = 1;
	tr->th.t[0] = (struct thread){.tid = kid, .state = T_RUNNING};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	setrlimit(RLIMIT_NOFILE, &low);
	tracer_follow(tr, -1, -1);
	setrlimit(RLIMIT_NOFILE, &old);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	struct outcome o;
	struct failure f;
	tracer_outcome(tr, 0, &o);
	ok(report_decide(&o, &f) == REPORT_FAILED && f.kind == FAILURE_SETUP && f.err == EINVAL,
	   "the failed poll fails the point, with its errno");
	ok(tr->main_done && WIFSIGNALED(tr->p_status) && WTERMSIG(tr->p_status) == SIGKILL &&
	       tr->th.t[0].state == T_EXITED,
	   "the child was killed and reaped, its thread closed");
	ok(s >= 4.5 && s < 10, "the task that did not go was waited for %.2f s, not until it went",
	   s);
	ok(tr->stuck, "and marked: no later point waits for it (its wait would never end)");
	struct failure r;
	ok(tracer_refuses(tr, &r) && r.kind == FAILURE_SETUP && strstr(r.message, "did not exit"),
	   "a later point is refused, saying why: %s", tracer_refuses(tr, &r) ? r.message : "-");
	struct tracee *fresh = calloc(1, sizeof *fresh);
	ok(fresh && !tracer_refuses(fresh, &r), "a tracee with nothing stuck refuses nothing");
	free(fresh);
	kill(stuck, SIGKILL);
	ok(waitpid(stuck, NULL, 0) == stuck, "and left unreaped");
	free(tr);
}

int main(void)
{
	stat_state();
	reset();
	abort_bounded();
	return done_testing();
}
