/* threadcounters: the counters of a traced kernel's threads: opened on each thread as it is
 * created, read at each run's start and end, scaled when multiplexed, paused and resumed by rules.
 */
#include "threadcounters.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int threadcounters_setup(struct threadcounters *tc, char names[][128], int n)
{
	return counters_setup(&tc->ctr, names, n, tc->err, sizeof tc->err);
}

int threadcounters_thread_open(struct threadcounters *tc, struct threadcounters_thread *t,
			       pid_t tid)
{
	if (tc->ctr.n == 0 || tc->err[0] ||
	    counters_open(&tc->ctr, tid, t->fds, tc->err, sizeof tc->err) < 0)
		return 0;
	t->counted = 1;
	t->snap_valid = 1; /* zero: everything since creation */
	if (!tc->counting)
		for (int i = 0; i < tc->ctr.n; i++)
			counters_enable(t->fds[i], 0);
	return 1;
}

void threadcounters_thread_close(const struct threadcounters *tc, struct threadcounters_thread *t)
{
	if (!t->counted)
		return;
	for (int i = 0; i < tc->ctr.n; i++) {
		if (counters_read(t->fds[i], t->last[i]) < 0)
			memset(t->last[i], 0, sizeof t->last[i]);
		close(t->fds[i]);
	}
}

/* The thread's values now; its final ones when it is gone. */
static void read_values(const struct threadcounters *tc, struct threadcounters_thread *t,
			int exited, uint64_t v[][3])
{
	for (int i = 0; i < tc->ctr.n; i++)
		if (exited || counters_read(t->fds[i], v[i]) < 0)
			memcpy(v[i], t->last[i], sizeof v[i]);
}

void threadcounters_thread_snap(const struct threadcounters *tc, struct threadcounters_thread *t,
				int exited)
{
	if (!t->counted)
		return;
	t->snap_valid = !exited; /* gone before this run: nothing to add */
	if (t->snap_valid)
		read_values(tc, t, exited, t->snap);
}

int threadcounters_run_begin(struct threadcounters *tc, int run)
{
	if (run < 0 || run >= THREADCOUNTERS_MAX_RUNS || tc->ctr.n == 0)
		return -1;
	if (run >= tc->nruns) {
		int n = run + 64;
		void *a = realloc(tc->runval, (size_t)n * sizeof *tc->runval);
		void *b = a ? realloc(tc->runratio, (size_t)n * sizeof *tc->runratio) : NULL;
		void *c = b ? realloc(tc->runcounting, (size_t)n) : NULL;
		if (a)
			tc->runval = a;
		if (b)
			tc->runratio = b;
		if (!c)
			return -1;
		tc->runcounting = c;
		for (int i = tc->nruns; i < n; i++) {
			memset(tc->runval[i], 0, sizeof tc->runval[i]);
			tc->runratio[i] = 1;
			tc->runcounting[i] = 0;
		}
		tc->nruns = n;
	}
	tc->runcounting[run] = (char)tc->counting;
	return 0;
}

void threadcounters_thread_add(struct threadcounters *tc, struct threadcounters_thread *t, int run,
			       int exited)
{
	uint64_t cur[COUNTERS_MAX][3];
	if (!t->counted || !t->snap_valid)
		return;
	read_values(tc, t, exited, cur);
	for (int i = 0; i < tc->ctr.n; i++) {
		double v = (double)(cur[i][0] - t->snap[i][0]);
		double en = (double)(cur[i][1] - t->snap[i][1]);
		double rn = (double)(cur[i][2] - t->snap[i][2]);
		if (rn > 0 && rn < en) {
			v *= en / rn; /* multiplexed: scale to the time the counter was enabled */
			tc->multiplexed = 1;
			if (rn / en < tc->runratio[run])
				tc->runratio[run] = rn / en;
		}
		tc->runval[run][i] += v;
	}
	if (exited)
		t->snap_valid = 0;
}

void threadcounters_thread_enable(const struct threadcounters *tc, struct threadcounters_thread *t,
				  int on)
{
	if (t->counted)
		for (int i = 0; i < tc->ctr.n; i++)
			counters_enable(t->fds[i], on);
}

void threadcounters_clear_runs(struct threadcounters *tc)
{
	tc->multiplexed = 0;
	for (int i = 0; i < tc->nruns; i++) {
		memset(tc->runval[i], 0, sizeof tc->runval[i]);
		tc->runratio[i] = 1;
		tc->runcounting[i] = 0;
	}
}

void threadcounters_free(struct threadcounters *tc)
{
	counters_free(&tc->ctr);
	free(tc->runval);
	free(tc->runratio);
	free(tc->runcounting);
	tc->runval = NULL;
	tc->runratio = NULL;
	tc->runcounting = NULL;
	tc->nruns = 0;
}
