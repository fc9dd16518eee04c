/* tracer: follows a traced child with ptrace: starts it stopped, keeps the tables of its threads
 * and of the processes it starts, handles their wait statuses, its timeout and its kills. */
#define _GNU_SOURCE
#include "tracer.h"
#include "child.h"
#include "procfs.h"
#include "timer.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RECORDS (64u << 20)
#define ABORT_REAP_S 5 /* the most seconds follow_abort waits for the tasks it killed */

static int thread_index(const struct tracee *tr, pid_t tid)
{
	for (int i = 0; i < tr->th.n; i++)
		if (tr->th.t[i].tid == tid)
			return i;
	return -1;
}

static struct thread *thread_find(struct tracee *tr, pid_t tid)
{
	int i = thread_index(tr, tid);
	return i < 0 ? NULL : &tr->th.t[i];
}

static struct other *other_find(struct tracee *tr, pid_t tid)
{
	for (int i = 0; i < tr->ot.n; i++)
		if (tr->ot.o[i].tid == tid)
			return &tr->ot.o[i];
	return NULL;
}

static struct other *other_add(struct tracee *tr, pid_t tid)
{
	struct other *o = other_find(tr, tid);
	if (!o && tr->ot.n < TRACER_MAX_PROCS) {
		o = &tr->ot.o[tr->ot.n++];
		*o = (struct other){tid, 1};
	}
	return o;
}

/* A new thread of the kernel's process (or its main one): its counters open at once, so
 * nothing it does is missed. */
static struct thread *thread_add(struct tracee *tr, pid_t tid)
{
	struct thread *t = thread_find(tr, tid);
	if (t)
		return t;
	if (tr->th.n == TRACER_MAX_THREADS)
		return NULL;
	t = &tr->th.t[tr->th.n];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	t->index = tr->th.n++;
	t->state = T_NEW;
	tr->th.counted += threadcounters_thread_open(&tr->tc, &t->c, tid);
	return t;
}

static void thread_exit(struct tracee *tr, struct thread *t)
{
	if (t->state == T_EXITED)
		return;
	procfs_schedstat(tr->pid, t->tid, &t->run, &t->wait); /* (at its exit stop: still there) */
	threadcounters_thread_close(&tr->tc, &t->c);
	t->state = T_EXITED;
	tr->th.exited++;
	eventlog_add(&tr->events, EV_THREAD_EXITED, -1, t->index, NULL);
}

static void run_start(struct tracee *tr)
{
	for (int j = 0; j < tr->th.n; j++)
		threadcounters_thread_snap(&tr->tc, &tr->th.t[j].c, tr->th.t[j].state == T_EXITED);
}

static void run_end(struct tracee *tr, int run)
{
	if (threadcounters_run_begin(&tr->tc, run) < 0)
		return;
	for (int j = 0; j < tr->th.n; j++)
		threadcounters_thread_add(&tr->tc, &tr->th.t[j].c, run,
					  tr->th.t[j].state == T_EXITED);
}

static void set_counting(struct tracee *tr, int on)
{
	tr->tc.counting = on;
	for (int j = 0; j < tr->th.n; j++)
		if (tr->th.t[j].state != T_EXITED)
			threadcounters_thread_enable(&tr->tc, &tr->th.t[j].c, on);
}

/* The rules whose action the tracer takes (pin, marker, counters on and off), at event e. */
static void parent_rules(struct tracee *tr, enum rot_event e, int run, struct thread *t)
{
	const struct point *p = tr->p;
	int thread = t ? t->index : -1;
	for (int i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		char detail[64];
		if (!rules_parent_side(r->action) || !rules_match(r, e, run, thread))
			continue;
		switch (r->action) {
		case ACT_PIN: {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET(r->cpu, &set);
			int ok = t && sched_setaffinity(t->tid, sizeof set, &set) == 0;
			snprintf(detail, sizeof detail, "pin=%d%s", r->cpu, ok ? "" : ":failed");
			eventlog_add(&tr->events, e, run, thread, detail);
			break;
		}
		case ACT_MARKER:
			snprintf(detail, sizeof detail, "marker=%s", r->text);
			eventlog_add(&tr->events, e, run, thread, detail);
			break;
		case ACT_START_COUNTERS:
			set_counting(tr, 1);
			eventlog_add(&tr->events, e, run, -1, "counters=on");
			break;
		case ACT_STOP_COUNTERS:
			set_counting(tr, 0);
			eventlog_add(&tr->events, e, run, -1, "counters=off");
			break;
		default:
			break;
		}
	}
}

/* The child's records of the point in progress: a buffer in its memory, announced with
 * ROT_RECORDS_SIGNAL. Returns 0 when they were read. */
static int read_records(struct tracee *tr, pid_t tid, const siginfo_t *si)
{
	struct rot_records rr;
	struct iovec local = {&rr, sizeof rr}, remote = {si->si_value.sival_ptr, sizeof rr};
	char *buf = NULL;
	int rc = -1;
	if (process_vm_readv(tid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof rr ||
	    rr.magic != ROT_RECORDS_MAGIC || rr.len > MAX_RECORDS || rr.index != tr->point ||
	    !(buf = malloc(rr.len + 1)))
		goto out;
	local = (struct iovec){buf, rr.len};
	remote = (struct iovec){rr.buf, rr.len};
	if (rr.len && process_vm_readv(tid, &local, 1, &remote, 1, 0) != (ssize_t)rr.len)
		goto out;
	buf[rr.len] = '\0';
	free(tr->rec.text);
	tr->rec = (struct records){buf, rr.len, rr.rc};
	buf = NULL;
	rc = 0;
out:
	free(buf);
	return rc;
}

static int is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP;
}

static int is_stop(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

void tracer_kill_all(struct tracee *tr)
{
	kill(-tr->pid, SIGKILL);
	kill(tr->pid, SIGKILL);
	for (int i = 0; i < tr->ot.n; i++)
		if (tr->ot.o[i].alive)
			kill(tr->ot.o[i].tid, SIGKILL);
}

void tracer_kill_leftovers(struct tracee *tr)
{
	for (int i = 0; i < tr->ot.n; i++) {
		if (tr->ot.o[i].alive) {
			if (!tr->leftover)
				tr->leftover = tr->ot.o[i].tid;
			kill(tr->ot.o[i].tid, SIGKILL);
		}
	}
}

/* A task ended: a thread of the kernel's process, a process it started, or the process. */
static void on_end(struct tracee *tr, pid_t w, int st, struct thread *t, struct other *o)
{
	if (t)
		thread_exit(tr, t);
	if (o)
		o->alive = 0;
	if (w == tr->pid) {
		tr->p_status = st;
		tr->main_done = 1;
	}
}

/* A clone, fork or vfork event of task w: a new thread of the kernel's process, or another
 * process to follow. */
static void on_new_task(struct tracee *tr, pid_t w, int event, struct thread *t)
{
	unsigned long child;
	ptrace(PTRACE_GETEVENTMSG, w, NULL, &child);
	if (event == PTRACE_EVENT_CLONE && t) {
		struct thread *nt = thread_add(tr, (pid_t)child);
		tr->th.created++;
		if (nt) {
			eventlog_add(&tr->events, EV_THREAD_CREATED, -1, nt->index, NULL);
			parent_rules(tr, EV_THREAD_CREATED, -1, nt);
		}
	} else if (!thread_find(tr, (pid_t)child)) {
		other_add(tr, (pid_t)child);
		tr->ot.forks += event != PTRACE_EVENT_CLONE;
	}
}

/* The child stopped to tell of an event or of its records (sig). Returns 1 when it stays
 * stopped: its point is measured and it waits to go on with the next. */
static int on_tell(struct tracee *tr, pid_t w, int sig, struct thread *t)
{
	siginfo_t si;
	if (ptrace(PTRACE_GETSIGINFO, w, NULL, &si) < 0)
		return 0; /* gone meanwhile */
	if (sig == ROT_RECORDS_SIGNAL) {
		/* a measured point with more to come: the child waits, stopped, until this one is
		 * reported */
		if (read_records(tr, w, &si) == 0 && tr->rec.rc == 0 && tr->point < tr->last &&
		    w == tr->pid) {
			tr->handoff = w;
			tr->measured = 1;
			return 1;
		}
		return 0;
	}
	enum rot_event e = (enum rot_event)(si.si_value.sival_int >> 16);
	int run = si.si_value.sival_int & 0xffff;
	run = run == 0xffff ? -1 : run;
	if (e == EV_RUN_START) {
		tr->run = run;
		run_start(tr);
	} else if (e == EV_RUN_END) {
		run_end(tr, run);
	}
	if (tr->p->notify) {
		eventlog_add(&tr->events, e, run, -1, NULL);
		parent_rules(tr, e, run, t);
	}
	return 0;
}

/* Any other signal for task w: remembered (the first of each kind), a fault logged. Returns
 * the signal to deliver, or -1 when w sits in a group stop (the timeout decides). */
static int on_signal(struct tracee *tr, pid_t w, int sig, struct thread *t)
{
	siginfo_t si;
	if (ptrace(PTRACE_GETSIGINFO, w, NULL, &si) < 0) { /* a group stop: SIGSTOP, SIGTSTP... */
		if (is_stop(sig) && t)
			tr->stopped = sig;
		return -1;
	}
	if (sig > 0 && sig < 65 && !tr->info_tid[sig]) {
		tr->info[sig] = si;
		tr->info_tid[sig] = w;
		if (t && is_fault(sig)) {
			eventlog_add(&tr->events, EV_FAULT, -1, t->index, strsignal(sig));
			parent_rules(tr, EV_FAULT, -1, t);
		}
	}
	return sig;
}

/* One wait status of a traced task. */
static void on_status(struct tracee *tr, pid_t w, int st)
{
	struct thread *t = thread_find(tr, w);
	struct other *o = t ? NULL : other_find(tr, w);
	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		on_end(tr, w, st, t, o);
		return;
	}
	if (!WIFSTOPPED(st))
		return;
	int sig = WSTOPSIG(st), event = (unsigned)st >> 16, deliver = 0;
	if (!t && !o) { /* a task's first stop can come before its creator's event */
		if (procfs_tgid(w) == tr->pid)
			t = thread_add(tr, w);
		else
			o = other_add(tr, w);
	}
	if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
	    event == PTRACE_EVENT_VFORK) {
		on_new_task(tr, w, event, t);
	} else if (event == PTRACE_EVENT_EXIT) {
		if (t)
			thread_exit(tr, t);
	} else if (event != 0) {
		/* exec and the rest: go on */
	} else if (sig == SIGSTOP && t && t->state == T_NEW) {
		t->state = T_RUNNING; /* the first stop of a new thread */
	} else if (sig == SIGSTOP && o && o->alive == 1) {
		o->alive = 2; /* the first stop of a process the kernel started */
	} else if (!tr->app && t && (sig == ROT_EVENT_SIGNAL || sig == ROT_RECORDS_SIGNAL)) {
		if (on_tell(tr, w, sig, t))
			return;
	} else if ((deliver = on_signal(tr, w, sig, t)) < 0) {
		return;
	}
	ptrace(PTRACE_CONT, w, NULL, (void *)(long)deliver);
}

/* Handles every wait status there is now. Returns the last waitpid result: 0 when none is
 * left for now, -1 with errno (ECHILD: every task is gone). */
static pid_t reap(struct tracee *tr)
{
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, __WALL | WNOHANG);
		if (w > 0)
			on_status(tr, w, st);
		else if (!(w < 0 && errno == EINTR))
			return w;
	}
}

/* After the kill: every wait status handled (a stopped task, new or reparented, killed again)
 * until no task is left, polling from 1 ms to 50 ms apart for at most ABORT_REAP_S seconds. A
 * task stuck longer (in an uninterruptible sleep, say) is left unreaped: -1 (else 0). */
static int reap_killed(struct tracee *tr)
{
	struct timespec t0, pause = {0, 1000000};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, __WALL | WNOHANG);
		if (w > 0) {
			if (WIFSTOPPED(st))
				kill(w, SIGKILL); /* a task the kill missed, new or reparented */
			on_status(tr, w, st);
		} else if (w < 0 && errno != EINTR) {
			return 0; /* ECHILD: every task is gone */
		} else if (w == 0) {
			if (timer_since(&t0) >= ABORT_REAP_S)
				return -1;
			nanosleep(&pause, NULL); /* a signal cuts it short: no harm */
			pause.tv_nsec = pause.tv_nsec < 25000000 ? 2 * pause.tv_nsec : 50000000;
		}
	}
}

/* poll failed (errno err): nothing would tell of the child any more. Kills it and all it
 * started, reaps them (reap_killed: a few seconds at most), closes the counters of the
 * threads left, and fails the point with err. */
static void follow_abort(struct tracee *tr, int err)
{
	tr->follow_err = err;
	tracer_kill_all(tr);
	if (reap_killed(tr) < 0)
		tr->stuck = 1; /* waiting for any child would wait for it too */
	for (int i = 0; i < tr->th.n; i++)
		thread_exit(tr, &tr->th.t[i]);
	tr->handoff = 0;
	tr->measured = 0;
}

int tracer_follow(struct tracee *tr, int sfd, int errfd)
{
	int tfd = timer_fd(tr->p->timeout), timed_out = 0, swept = 0;
	for (;;) {
		pid_t w = reap(tr);
		if ((w < 0 && errno == ECHILD) || tr->handoff)
			break;
		if (tr->main_done && !swept) { /* the kernel is gone: nothing it started stays */
			swept = 1;
			tracer_kill_leftovers(tr);
			kill(-tr->pid, SIGKILL);
			continue;
		}
		int outfd = tr->out ? tr->outfd : -1; /* an application's stdout */
		int smpfd = tr->smp ? sampler_fd(tr->smp) : -1;
		struct pollfd fds[5] = {{sfd, POLLIN, 0},
					{tfd, POLLIN, 0},
					{errfd, POLLIN, 0},
					{outfd, POLLIN, 0},
					{smpfd, POLLIN, 0}};
		if (poll(fds, 5, -1) < 0 && errno != EINTR) {
			follow_abort(tr, errno);
			break;
		}
		if (fds[0].revents & POLLIN) {
			struct signalfd_siginfo ssi;
			while (read(sfd, &ssi, sizeof ssi) == (ssize_t)sizeof ssi)
				;
		}
		uint64_t n;
		if ((fds[1].revents & POLLIN) && read(tfd, &n, sizeof n) > 0 && !timed_out) {
			timed_out = 1;
			tracer_kill_all(tr);
		}
		if (errfd >= 0 && (fds[2].revents & (POLLIN | POLLHUP)) &&
		    errtail_read(&tr->err, errfd) < 0)
			errfd = -1;
		if (outfd >= 0 && (fds[3].revents & (POLLIN | POLLHUP)) &&
		    outtail_read(tr->out, outfd) < 0)
			tr->outfd = -1;
		if (smpfd >= 0 && (fds[4].revents & POLLIN))
			sampler_drain(tr->smp);
	}
	while (errfd >= 0 && errtail_read(&tr->err, errfd) == 0 && tr->err.total)
		if (poll(&(struct pollfd){errfd, POLLIN, 0}, 1, 0) <= 0)
			break;
	if (tfd >= 0)
		close(tfd);
	return timed_out;
}

pid_t tracer_start(struct tracee *tr, pid_t pid, int *errfd, FILE *out)
{
	if (pid < 0)
		return -1;
	tr->pid = pid;
	tr->th.n = 0;
	tr->main_done = 0;
	thread_add(tr, pid)->state = T_RUNNING;
	if (tr->tc.err[0]) { /* its counters cannot be opened */
		failure_write(out, &(struct failure){.kind = FAILURE_INPUT, .message = tr->tc.err});
		child_end(pid);
		close(*errfd);
		*errfd = -1;
		tr->pid = 0;
		return -1;
	}
	return pid;
}

int tracer_busy_thread(const struct tracee *tr)
{
	for (int i = 0; i < tr->th.n; i++) {
		const struct thread *t = &tr->th.t[i];
		if (t->state == T_EXITED || t->tid == tr->handoff ||
		    !procfs_running(tr->pid, t->tid))
			continue;
		/* a thread just woken, or not yet at the sleep it is heading for, is R for a moment
		 * too: it is still running 2 ms later only when it computes */
		nanosleep(&(struct timespec){.tv_nsec = 2000000}, NULL);
		if (procfs_running(tr->pid, t->tid))
			return t->index;
	}
	return -1;
}

void tracer_reset_point(struct tracee *tr, const struct point *p, int index)
{
	struct threads *th = &tr->th;
	int n = 0;
	th->counted = 0;
	for (int i = 0; i < th->n; i++) {
		if (th->t[i].state == T_EXITED)
			continue;
		if (n != i)
			th->t[n] = th->t[i];
		th->t[n].index = n;
		procfs_schedstat(tr->pid, th->t[n].tid, &th->t[n].run0,
				 &th->t[n].wait0); /* from here */
		th->counted += th->t[n].c.counted;
		n++;
	}
	th->n = n;
	th->created = th->exited = 0;
	tr->p = p;
	tr->point = index;
	tr->ot.n = tr->ot.forks =
	    0; /* the last point's processes are gone, or reported and killed */
	tr->leftover = 0;
	tr->stopped = 0;
	tr->run = -1;
	tr->handoff = 0;
	tr->measured = 0;
	tr->follow_err = 0;
	free(tr->rec.text);
	tr->rec = (struct records){NULL, 0, 0};
	memset(tr->info_tid, 0, sizeof tr->info_tid);
	threadcounters_clear_runs(&tr->tc);
	errtail_clear(&tr->err);
	eventlog_clear(&tr->events);
	if (!tr->tc.counting)
		set_counting(tr, 1);
}

int tracer_refuses(const struct tracee *tr, struct failure *f)
{
	if (!tr->stuck)
		return 0;
	*f = (struct failure){.kind = FAILURE_SETUP,
			      .message = "a task of an earlier point, killed, did not exit: no "
					 "further point is measured"};
	return 1;
}

void tracer_outcome(const struct tracee *tr, int timed_out, struct outcome *o)
{
	int st = tr->p_status, sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	*o = (struct outcome){.kernel = tr->p->nw ? tr->p->w[0].args.kernel->name : tr->p->app.name,
			      .refused = tr->tc.err[0] ? tr->tc.err : NULL,
			      .follow_err = tr->follow_err,
			      .timed_out = timed_out,
			      .timeout = tr->p->timeout,
			      .stopsig = tr->stopped,
			      .leftover = tr->leftover,
			      .measured = tr->measured,
			      .status = st,
			      .records = tr->rec.text != NULL,
			      .verdict = tr->rec.rc,
			      .run =
				  tr->p->notify || !measure_run_slot ? tr->run : *measure_run_slot};
	if (sig <= 0 || sig >= 65 || !tr->info_tid[sig])
		return;
	const siginfo_t *si = &tr->info[sig];
	o->sig_tid = tr->info_tid[sig];
	o->sig_code = si->si_code;
	if (si->si_code > 0) {
		o->sig_addr = si->si_addr;
	} else {
		pid_t from = si->si_pid;
		o->sig_from = from;
		o->sig_uid = (int)si->si_uid;
		o->sig_from_kernel =
		    from == tr->pid || procfs_tgid(from) == tr->pid || thread_index(tr, from) >= 0;
	}
}
