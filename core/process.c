/* process: runs points in a child process controlled with ptrace: the child stops itself
 * under PTRACE_TRACEME, the parent follows its threads and every process it starts, counts
 * their events per run, applies the parent-side rules, reports faults, timeouts and leftover
 * processes, and reads the child's records out of its memory, point by point. */
#define _GNU_SOURCE
#include "process.h"
#include "counters.h"
#include "failure.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_THREADS 1024
#define MAX_PROCS 256
#define MAX_RUNS 100000
#define MAX_RECORDS (64u << 20)
#define ERR_KEEP 2048 /* bytes of the kernel's stderr kept for a failed point */
#define ERR_LINES 20

enum thread_state { T_NEW, T_RUNNING, T_EXITED };

struct thread {
	pid_t tid;
	int index; /* creation order, main thread 0 */
	enum thread_state state;
	int fds[COUNTERS_MAX];
	int counted;
	uint64_t snap[COUNTERS_MAX][3]; /* at run start (or creation) */
	uint64_t last[COUNTERS_MAX][3]; /* final values, read at exit */
	int snap_valid;
};

/* A process the kernel started (fork, vfork, or a thread of one), traced like the kernel. */
struct other {
	pid_t tid;
	int alive;
};

struct tracee {
	pid_t pid;
	const struct point *p;
	struct counters ctr;
	struct thread t[MAX_THREADS];
	int n, created, exited, counted;
	struct other o[MAX_PROCS];
	int no, forks;
	pid_t leftover; /* a process still alive when the kernel's process ended */
	int stopped;	/* the kernel's process sat in a group stop (this signal) */
	int run;	/* the timed run in progress, -1 before the first */
	int main_done, p_status;
	siginfo_t info[65]; /* the first delivery of each signal, and its thread */
	pid_t info_tid[65];
	int counting, multiplexed;
	/* per run: scaled counts, smallest running/enabled ratio, whether counting was on */
	double (*runval)[COUNTERS_MAX];
	double *runratio;
	char *runcounting;
	int nruns;
	char *records; /* what the child measured, read from its memory */
	size_t nrecords;
	int point, last; /* the point being measured, the last one this child measures */
	int records_rc;	 /* the child's verdict on the point (0: measured) */
	int measured;	 /* the point's records came with a 0 verdict and the child waits */
	pid_t handoff;	 /* the thread left stopped after a measured point, the next to come */
	char errtail[ERR_KEEP]; /* the last bytes the kernel wrote to stderr */
	size_t errlen, errtotal;
	char events[8192];
	size_t evlen;
	char err[1024];
};

static struct thread *thread_find(struct tracee *tr, pid_t tid)
{
	for (int i = 0; i < tr->n; i++)
		if (tr->t[i].tid == tid)
			return &tr->t[i];
	return NULL;
}

static struct other *other_find(struct tracee *tr, pid_t tid)
{
	for (int i = 0; i < tr->no; i++)
		if (tr->o[i].tid == tid)
			return &tr->o[i];
	return NULL;
}

static void other_add(struct tracee *tr, pid_t tid)
{
	if (!other_find(tr, tid) && tr->no < MAX_PROCS)
		tr->o[tr->no++] = (struct other){tid, 1};
}

/* The thread group a task belongs to (from /proc), 0 when it is gone. */
static pid_t tgid_of(pid_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *t = strstr(buf, "\nTgid:");
	return t ? (pid_t)atoi(t + 6) : 0;
}

static void log_event(struct tracee *tr, enum rot_event e, int run, int thread, const char *detail)
{
	if (tr->evlen + 96 >= sizeof tr->events)
		return;
	tr->evlen += (size_t)snprintf(tr->events + tr->evlen, sizeof tr->events - tr->evlen, "%s%s",
				      tr->evlen ? ";" : "", rules_event_name(e));
	if (run >= 0)
		tr->evlen += (size_t)snprintf(tr->events + tr->evlen, sizeof tr->events - tr->evlen,
					      "/run=%d", run);
	if (thread >= 0)
		tr->evlen += (size_t)snprintf(tr->events + tr->evlen, sizeof tr->events - tr->evlen,
					      "/thread=%d", thread);
	if (detail)
		tr->evlen += (size_t)snprintf(tr->events + tr->evlen, sizeof tr->events - tr->evlen,
					      "/%s", detail);
}

static void read_thread(struct tracee *tr, struct thread *t, uint64_t v[][3])
{
	for (int i = 0; i < tr->ctr.n; i++)
		if (t->state == T_EXITED || counters_read(t->fds[i], v[i]) < 0)
			memcpy(v[i], t->last[i], sizeof v[i]);
}

/* A new thread of the kernel's process (or its main one): open its counters at once, so
 * nothing it does is missed. */
static struct thread *thread_add(struct tracee *tr, pid_t tid)
{
	struct thread *t = thread_find(tr, tid);
	if (t)
		return t;
	if (tr->n == MAX_THREADS)
		return NULL;
	t = &tr->t[tr->n];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	t->index = tr->n++;
	t->state = T_NEW;
	if (tr->ctr.n > 0 && !tr->err[0]) {
		if (counters_open(&tr->ctr, tid, t->fds, tr->err, sizeof tr->err) == 0) {
			t->counted = 1;
			tr->counted++;
			t->snap_valid = 1; /* zero: everything since creation */
			if (!tr->counting)
				for (int i = 0; i < tr->ctr.n; i++)
					counters_enable(t->fds[i], 0);
		}
	}
	return t;
}

static void thread_exit(struct tracee *tr, struct thread *t)
{
	if (t->state == T_EXITED)
		return;
	if (t->counted) {
		for (int i = 0; i < tr->ctr.n; i++) {
			if (counters_read(t->fds[i], t->last[i]) < 0)
				memset(t->last[i], 0, sizeof t->last[i]);
			close(t->fds[i]);
		}
	}
	t->state = T_EXITED;
	tr->exited++;
	log_event(tr, EV_THREAD_EXITED, -1, t->index, NULL);
}

static void run_start(struct tracee *tr)
{
	for (int j = 0; j < tr->n; j++) {
		struct thread *t = &tr->t[j];
		if (!t->counted)
			continue;
		t->snap_valid = t->state != T_EXITED; /* gone before this run: nothing to add */
		if (t->snap_valid)
			read_thread(tr, t, t->snap);
	}
}

static void run_end(struct tracee *tr, int run)
{
	if (run < 0 || run >= MAX_RUNS || tr->ctr.n == 0)
		return;
	if (run >= tr->nruns) {
		int n = run + 64;
		void *a = realloc(tr->runval, (size_t)n * sizeof *tr->runval);
		void *b = a ? realloc(tr->runratio, (size_t)n * sizeof *tr->runratio) : NULL;
		void *c = b ? realloc(tr->runcounting, (size_t)n) : NULL;
		if (a)
			tr->runval = a;
		if (b)
			tr->runratio = b;
		if (!c)
			return;
		tr->runcounting = c;
		for (int i = tr->nruns; i < n; i++) {
			memset(tr->runval[i], 0, sizeof tr->runval[i]);
			tr->runratio[i] = 1;
			tr->runcounting[i] = 0;
		}
		tr->nruns = n;
	}
	tr->runcounting[run] = (char)tr->counting;
	for (int j = 0; j < tr->n; j++) {
		struct thread *t = &tr->t[j];
		if (!t->counted || !t->snap_valid)
			continue;
		uint64_t cur[COUNTERS_MAX][3];
		read_thread(tr, t, cur);
		for (int i = 0; i < tr->ctr.n; i++) {
			double v = (double)(cur[i][0] - t->snap[i][0]);
			double en = (double)(cur[i][1] - t->snap[i][1]);
			double rn = (double)(cur[i][2] - t->snap[i][2]);
			if (rn > 0 && rn < en) {
				v *=
				    en /
				    rn; /* multiplexed: scale to the time the counter was enabled */
				tr->multiplexed = 1;
				if (rn / en < tr->runratio[run])
					tr->runratio[run] = rn / en;
			}
			tr->runval[run][i] += v;
		}
		if (t->state == T_EXITED)
			t->snap_valid = 0;
	}
}

static void set_counting(struct tracee *tr, int on)
{
	tr->counting = on;
	for (int j = 0; j < tr->n; j++)
		if (tr->t[j].counted && tr->t[j].state != T_EXITED)
			for (int i = 0; i < tr->ctr.n; i++)
				counters_enable(tr->t[j].fds[i], on);
}

static void parent_rules(struct tracee *tr, enum rot_event e, int run, struct thread *t)
{
	const struct point *p = tr->p;
	for (int i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		if (!rules_parent_side(r->action) || !rules_match(r, e, run, t ? t->index : -1))
			continue;
		switch (r->action) {
		case ACT_PIN: {
			cpu_set_t set;
			char detail[64];
			CPU_ZERO(&set);
			CPU_SET(r->cpu, &set);
			int ok = t && sched_setaffinity(t->tid, sizeof set, &set) == 0;
			snprintf(detail, sizeof detail, "pin=%d%s", r->cpu, ok ? "" : ":failed");
			log_event(tr, e, run, t ? t->index : -1, detail);
			break;
		}
		case ACT_MARKER: {
			char detail[64];
			snprintf(detail, sizeof detail, "marker=%s", r->text);
			log_event(tr, e, run, t ? t->index : -1, detail);
			break;
		}
		case ACT_START_COUNTERS:
			set_counting(tr, 1);
			log_event(tr, e, run, -1, "counters=on");
			break;
		case ACT_STOP_COUNTERS:
			set_counting(tr, 0);
			log_event(tr, e, run, -1, "counters=off");
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
	if (process_vm_readv(tid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof rr ||
	    rr.magic != ROT_RECORDS_MAGIC || rr.len > MAX_RECORDS || rr.index != tr->point)
		return -1;
	char *buf = malloc(rr.len + 1);
	if (!buf)
		return -1;
	local = (struct iovec){buf, rr.len};
	remote = (struct iovec){rr.buf, rr.len};
	if (rr.len && process_vm_readv(tid, &local, 1, &remote, 1, 0) != (ssize_t)rr.len) {
		free(buf);
		return -1;
	}
	buf[rr.len] = '\0';
	free(tr->records);
	tr->records = buf;
	tr->nrecords = rr.len;
	tr->records_rc = rr.rc;
	return 0;
}

/* Measures ps[first..last] in order, each point's records announced to the tracer; ends at
 * the first point that fails. Async-signal-safe between fork and the measurement: no
 * allocation, no stdio. */
static void child_main(struct point *ps, int first, int last, pid_t core, int err_pipe, int err_fd)
{
	/* a core that dies before it set PTRACE_O_EXITKILL must not leave this child stopped */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != core)
		_exit(127);
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
		int e = errno;
		ssize_t w = write(err_pipe, &e, sizeof e);
		(void)w;
		_exit(126);
	}
	setpgid(0, 0); /* one group to kill: the kernel and the processes it starts */
	int devnull = open("/dev/null", O_RDWR);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1); /* kernels that print must not disturb anything */
	}
	if (err_fd >= 0)
		dup2(err_fd, 2);
	/* nothing else reaches the kernel: not the driver's pipe, not the batch input */
	if (syscall(SYS_close_range, 3u, ~0u, 0u) < 0)
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	raise(SIGSTOP);
	for (int i = first; i <= last; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);
		if (!out)
			_exit(125);
		int rc = measure_point(&ps[i], out);
		fclose(out);
		/* the parent reads the records out of this memory: no descriptor the kernel
		 * could write */
		static struct rot_records rr;
		rr = (struct rot_records){ROT_RECORDS_MAGIC, buf, len, i, rc};
		union sigval v = {.sival_ptr = &rr};
		measure_tell(ROT_RECORDS_SIGNAL, v);
		/* a failed point may leave the process unfit: a fresh one goes on */
		if (rc != 0)
			_exit(3);
		free(buf);
	}
	_exit(0);
}

static int is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP;
}

static int is_stop(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void kill_all(struct tracee *tr)
{
	kill(-tr->pid, SIGKILL);
	kill(tr->pid, SIGKILL);
	for (int i = 0; i < tr->no; i++)
		if (tr->o[i].alive)
			kill(tr->o[i].tid, SIGKILL);
}

/* One wait status of a traced task. */
static void on_status(struct tracee *tr, pid_t w, int st)
{
	struct thread *t = thread_find(tr, w);
	struct other *o = t ? NULL : other_find(tr, w);
	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		if (t)
			thread_exit(tr, t);
		if (o)
			o->alive = 0;
		if (w == tr->pid) {
			tr->p_status = st;
			tr->main_done = 1;
		}
		return;
	}
	if (!WIFSTOPPED(st))
		return;
	int sig = WSTOPSIG(st), event = (unsigned)st >> 16, deliver = 0;
	if (!t && !o) { /* a task's first stop can come before its creator's event */
		if (tgid_of(w) == tr->pid) {
			t = thread_add(tr, w);
		} else {
			other_add(tr, w);
			o = other_find(tr, w);
		}
	}
	if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
	    event == PTRACE_EVENT_VFORK) {
		unsigned long child;
		ptrace(PTRACE_GETEVENTMSG, w, NULL, &child);
		if (event == PTRACE_EVENT_CLONE && t) {
			struct thread *nt = thread_add(tr, (pid_t)child);
			tr->created++;
			if (nt) {
				log_event(tr, EV_THREAD_CREATED, -1, nt->index, NULL);
				parent_rules(tr, EV_THREAD_CREATED, -1, nt);
			}
		} else if (!thread_find(tr, (pid_t)child)) {
			other_add(tr, (pid_t)child);
			tr->forks += event != PTRACE_EVENT_CLONE;
		}
	} else if (event == PTRACE_EVENT_EXIT) {
		if (t)
			thread_exit(tr, t);
	} else if (event != 0) {
		/* exec and the rest: go on */
	} else if (sig == SIGSTOP && t && t->state == T_NEW) {
		t->state = T_RUNNING; /* the first stop of a new thread */
	} else if (sig == SIGSTOP && o && o->alive == 1) {
		o->alive = 2; /* the first stop of a process the kernel started */
	} else if (t && (sig == ROT_EVENT_SIGNAL || sig == ROT_RECORDS_SIGNAL)) {
		siginfo_t si;
		if (ptrace(PTRACE_GETSIGINFO, w, NULL, &si) < 0) {
			/* gone meanwhile */
		} else if (sig == ROT_RECORDS_SIGNAL) {
			/* a measured point with more to come: the child waits, stopped, until
			 * this one is reported */
			if (read_records(tr, w, &si) == 0 && tr->records_rc == 0 &&
			    tr->point < tr->last && w == tr->pid) {
				tr->handoff = w;
				tr->measured = 1;
				return;
			}
		} else {
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
				log_event(tr, e, run, -1, NULL);
				parent_rules(tr, e, run, t);
			}
		}
	} else {
		siginfo_t si;
		if (ptrace(PTRACE_GETSIGINFO, w, NULL, &si) < 0) {
			/* a group stop (SIGSTOP, SIGTSTP, ...): it stays stopped, the timeout
			 * decides */
			if (is_stop(sig) && t)
				tr->stopped = sig;
			return;
		}
		if (sig > 0 && sig < 65 && !tr->info_tid[sig]) {
			tr->info[sig] = si;
			tr->info_tid[sig] = w;
			if (t && is_fault(sig)) {
				log_event(tr, EV_FAULT, -1, t->index, strsignal(sig));
				parent_rules(tr, EV_FAULT, -1, t);
			}
		}
		deliver = sig;
	}
	ptrace(PTRACE_CONT, w, NULL, (void *)(long)deliver);
}

/* Kills every process the kernel started that is still alive, naming the first as leftover:
 * when the kernel's process is gone, and when a shared child's point is done. */
static void kill_leftovers(struct tracee *tr)
{
	for (int i = 0; i < tr->no; i++) {
		if (tr->o[i].alive) {
			if (!tr->leftover)
				tr->leftover = tr->o[i].tid;
			kill(tr->o[i].tid, SIGKILL);
		}
	}
}

/* Keeps the last ERR_KEEP bytes the kernel wrote to stderr. */
static int read_stderr(struct tracee *tr, int fd)
{
	char buf[4096];
	ssize_t r = read(fd, buf, sizeof buf);
	if (r <= 0)
		return r < 0 && errno == EAGAIN ? 0 : -1;
	tr->errtotal += (size_t)r;
	if ((size_t)r >= ERR_KEEP) {
		memcpy(tr->errtail, buf + r - ERR_KEEP, ERR_KEEP);
		tr->errlen = ERR_KEEP;
	} else {
		size_t keep = tr->errlen + (size_t)r > ERR_KEEP ? ERR_KEEP - (size_t)r : tr->errlen;
		memmove(tr->errtail, tr->errtail + tr->errlen - keep, keep);
		memcpy(tr->errtail + keep, buf, (size_t)r);
		tr->errlen = keep + (size_t)r;
	}
	return 0;
}

/*
 * Follows the child, its threads and every process it starts until all are gone: SIGCHLD
 * through a signalfd, the timeout through a timerfd (fractions of a second count), the
 * kernel's stderr through a pipe. When the kernel's process is gone, whatever it started and
 * left running is killed (and named). Returns 1 when the timeout fired; returns early, with
 * tr->handoff set, when the point was measured and the child waits to go on with the next.
 */
static int trace(struct tracee *tr, int sfd, int errfd)
{
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC), timed_out = 0, swept = 0;
	double to = tr->p->timeout;
	if (tfd >= 0 && to > 0) {
		struct itimerspec its = {0};
		its.it_value.tv_sec = (time_t)to;
		its.it_value.tv_nsec = (long)((to - (double)(time_t)to) * 1e9);
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1;
		timerfd_settime(tfd, 0, &its, NULL);
	}
	for (;;) {
		int st;
		pid_t w;
		while ((w = waitpid(-1, &st, __WALL | WNOHANG)) > 0)
			on_status(tr, w, st);
		if ((w < 0 && errno == ECHILD) || tr->handoff)
			break;
		if (tr->main_done && !swept) { /* the kernel is gone: nothing it started stays */
			swept = 1;
			kill_leftovers(tr);
			kill(-tr->pid, SIGKILL);
			continue;
		}
		struct pollfd fds[3] = {{sfd, POLLIN, 0}, {tfd, POLLIN, 0}, {errfd, POLLIN, 0}};
		if (poll(fds, errfd >= 0 ? 3 : 2, -1) < 0 && errno != EINTR)
			break;
		if (fds[0].revents & POLLIN) {
			struct signalfd_siginfo ssi;
			while (read(sfd, &ssi, sizeof ssi) == (ssize_t)sizeof ssi)
				;
		}
		if (fds[1].revents & POLLIN) {
			uint64_t n;
			if (read(tfd, &n, sizeof n) > 0 && !timed_out) {
				timed_out = 1;
				kill_all(tr);
			}
		}
		if (errfd >= 0 && (fds[2].revents & (POLLIN | POLLHUP)) &&
		    read_stderr(tr, errfd) < 0)
			errfd = -1;
	}
	while (errfd >= 0 && read_stderr(tr, errfd) == 0 && tr->errtotal)
		if (poll(&(struct pollfd){errfd, POLLIN, 0}, 1, 0) <= 0)
			break;
	if (tfd >= 0)
		close(tfd);
	return timed_out;
}

/* Copies the child's records, adding each run's counts to its run line. */
static void copy_records(struct tracee *tr, FILE *out)
{
	int run = 0;
	for (char *line = tr->records, *next; line && *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		fputs(line, out);
		if (strncmp(line, "run ", 4) == 0 && tr->ctr.n > 0) {
			if (run < tr->nruns) {
				for (int i = 0; i < tr->ctr.n; i++)
					fprintf(out, " e%d=%.0f", i, tr->runval[run][i]);
				fprintf(out, " counting=%d", tr->runcounting[run]);
				if (tr->runratio[run] < 1)
					fprintf(out, " mux=%.4f", tr->runratio[run]);
			}
			run++;
		}
		fputc('\n', out);
	}
}

static void write_thread_table(struct tracee *tr, FILE *out)
{
	fprintf(out, "meta threadsCreated %d\nmeta threadsExited %d\nmeta threadsCounted %d\n",
		tr->created, tr->exited, tr->counted);
	fprintf(out, "meta threadTable ");
	for (int i = 0; i < tr->n; i++)
		fprintf(out, "%s%d:%s%s", i ? "," : "", tr->t[i].index,
			tr->t[i].state == T_EXITED ? "exited"
			: tr->t[i].state == T_NEW  ? "new"
						   : "running",
			tr->t[i].counted ? ":counted" : "");
	fprintf(out, "\n");
	if (tr->forks)
		fprintf(out, "meta processesStarted %d\n", tr->forks);
	if (tr->evlen)
		fprintf(out, "meta events %s\n", tr->events);
	for (int i = 0; i < tr->ctr.n; i++)
		fprintf(out, "meta event%d %s\n", i, tr->ctr.name[i]);
	if (tr->ctr.n)
		fprintf(out, "meta counterDomain %s\nmeta multiplexed %d\n",
			tr->ctr.user_only ? "user" : "user+kernel", tr->multiplexed);
}

/* The last ERR_LINES lines the kernel wrote to stderr, one "stderr" line each (control bytes
 * as '?'). */
static void write_stderr(struct tracee *tr, FILE *out)
{
	size_t start = 0, len = tr->errlen;
	if (tr->errtotal > tr->errlen) /* cut: begin at a whole line */
		while (start < len && tr->errtail[start++] != '\n')
			;
	int lines = 0;
	for (size_t i = len; i > start; i--) { /* the last ERR_LINES lines only */
		if (tr->errtail[i - 1] == '\n' && i < len && ++lines == ERR_LINES) {
			start = i;
			break;
		}
	}
	for (size_t i = start; i < tr->errlen;) {
		size_t j = i;
		while (j < tr->errlen && tr->errtail[j] != '\n')
			j++;
		fputs("stderr ", out);
		for (size_t k = i; k < j; k++) {
			unsigned char c = (unsigned char)tr->errtail[k];
			fputc(c < 32 || c == 127 ? '?' : c, out);
		}
		fputc('\n', out);
		i = j + 1;
	}
}

/* Says who sent signal sig that ended the kernel, and where a fault was. */
static void describe_signal(struct tracee *tr, const char *kname, int sig, FILE *out)
{
	const siginfo_t *si = &tr->info[sig];
	pid_t tid = sig > 0 && sig < 65 ? tr->info_tid[sig] : 0;
	struct failure f = {.kind = FAILURE_SIGNAL, .kernel = kname, .sig = sig, .tid = (int)tid};
	if (tid && is_fault(sig) && si->si_code > 0) {
		f.sender = FAILURE_FAULT;
		f.addr = si->si_addr;
	} else if (tid && si->si_code <= 0) {
		pid_t from = si->si_pid;
		if (from == tr->pid || tgid_of(from) == tr->pid || thread_find(tr, from)) {
			f.sender = FAILURE_SELF;
		} else {
			f.sender = FAILURE_PROCESS;
			f.pid = (int)from;
			f.uid = (int)si->si_uid;
		}
	} else {
		f.sender = tid ? FAILURE_OS : FAILURE_UNSEEN;
	}
	failure_write(out, &f);
}

/* Clears what belongs to one point, keeping the child's live threads (renumbered, the main
 * one first) and their counters. */
static void point_reset(struct tracee *tr, const struct point *p, int index)
{
	int n = 0;
	tr->counted = 0;
	for (int i = 0; i < tr->n; i++) {
		if (tr->t[i].state == T_EXITED)
			continue;
		if (n != i)
			tr->t[n] = tr->t[i];
		tr->t[n].index = n;
		tr->counted += tr->t[n].counted;
		n++;
	}
	tr->n = n;
	tr->p = p;
	tr->point = index;
	tr->created = tr->exited = tr->forks = tr->multiplexed = 0;
	tr->no = 0; /* processes of the last point are gone, or were reported and killed */
	tr->leftover = 0;
	tr->stopped = 0;
	tr->run = -1;
	tr->handoff = 0;
	tr->measured = 0;
	tr->records_rc = 0;
	free(tr->records);
	tr->records = NULL;
	tr->nrecords = 0;
	memset(tr->info_tid, 0, sizeof tr->info_tid);
	for (int i = 0; i < tr->nruns; i++) {
		memset(tr->runval[i], 0, sizeof tr->runval[i]);
		tr->runratio[i] = 1;
		tr->runcounting[i] = 0;
	}
	tr->errlen = tr->errtotal = 0;
	tr->evlen = 0;
	tr->events[0] = '\0';
	if (!tr->counting)
		set_counting(tr, 1);
}

/* Starts a child that measures ps[first..last], stopped under ptrace with its options set.
 * Returns its pid, or -1 after writing the failure of point `first` to out. */
static pid_t child_start(struct tracee *tr, struct point *ps, int first, int last,
			 const sigset_t *old, int *errfd, FILE *out)
{
	int err_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1}, st, e = ECHILD;
	pid_t pid = -1;
	if (pipe2(err_pipe, O_CLOEXEC) < 0 || pipe2(out_pipe, O_CLOEXEC) < 0) {
		failure_write(out, &(struct failure){.kind = FAILURE_SETUP,
						     .message = "cannot set up the child",
						     .err = errno});
		goto out;
	}
	fflush(NULL);
	pid_t core = getpid();
	pid = fork();
	if (pid < 0) {
		failure_write(
		    out, &(struct failure){.kind = FAILURE_SETUP, .message = "fork", .err = errno});
		goto out;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, old, NULL);
		child_main(ps, first, last, core, err_pipe[1], out_pipe[1]);
	}
	setpgid(pid, pid); /* the child does it too: whoever runs first */
	close(err_pipe[1]);
	close(out_pipe[1]);
	err_pipe[1] = out_pipe[1] = -1;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (read(err_pipe[0], &e, sizeof e) == (ssize_t)sizeof e || !WIFSTOPPED(st)) {
		failure_write(out,
			      &(struct failure){.kind = FAILURE_SETUP,
						.message = "ptrace(PTRACE_TRACEME) was refused",
						.err = e,
						.hint = failure_hint_ptrace});
		goto fail;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
				  PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)) <
	    0) {
		failure_write(out, &(struct failure){.kind = FAILURE_SETUP,
						     .message = "ptrace(PTRACE_SETOPTIONS)",
						     .err = errno});
		goto fail;
	}
	tr->pid = pid;
	tr->n = 0;
	tr->main_done = 0;
	thread_add(tr, pid)->state = T_RUNNING;
	if (tr->err[0]) {
		failure_write(out, &(struct failure){.kind = FAILURE_INPUT, .message = tr->err});
		goto fail;
	}
	fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
	*errfd = out_pipe[0];
	out_pipe[0] = -1;
	goto out;
fail:
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
		;
	pid = -1;
out:
	for (int i = 0; i < 2; i++) {
		if (err_pipe[i] >= 0)
			close(err_pipe[i]);
		if (out_pipe[i] >= 0)
			close(out_pipe[i]);
	}
	return pid;
}

/* Writes what became of the point in progress; returns 0 when it was measured. */
static int point_report(struct tracee *tr, int timed_out, FILE *out)
{
	const struct point *p = tr->p;
	const char *kname = p->w[0].args.kernel->name;
	int status = tr->p_status;
	copy_records(tr, out);
	write_thread_table(tr, out);
	write_stderr(tr, out);
	if (tr->err[0]) {
		failure_write(out, &(struct failure){.kind = FAILURE_INPUT, .message = tr->err});
	} else if (timed_out) {
		failure_write(out, &(struct failure){.kind = FAILURE_TIMEOUT,
						     .kernel = kname,
						     .timeout = p->timeout,
						     .stopsig = tr->stopped});
	} else if (tr->leftover) {
		failure_write(out, &(struct failure){.kind = FAILURE_LEFTOVER,
						     .kernel = kname,
						     .pid = (int)tr->leftover});
	} else if (tr->measured) {
		fprintf(out, "status ok\n");
		return 0;
	} else if (WIFSIGNALED(status)) {
		describe_signal(tr, kname, WTERMSIG(status), out);
	} else if (!tr->records) {
		failure_write(out, &(struct failure){.kind = FAILURE_EXIT,
						     .kernel = kname,
						     .status = WEXITSTATUS(status),
						     .run = tr->run});
	} else if (WEXITSTATUS(status) == 0 && tr->records_rc == 0) {
		fprintf(out, "status ok\n");
		return 0;
	} else {
		fprintf(out, "status failed\n"); /* the child wrote its own error line */
	}
	return 1;
}

/* A thread of the child, other than the stopped main one, still running or runnable after its
 * point (a sleeping one, such as CUDA's helpers, does not disturb the next): its index, or -1. */
static int busy_thread(struct tracee *tr)
{
	for (int i = 0; i < tr->n; i++) {
		struct thread *t = &tr->t[i];
		char path[64], buf[512];
		if (t->state == T_EXITED || t->tid == tr->handoff)
			continue;
		snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)tr->pid, (int)t->tid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* the name may hold anything: the state follows its last ')' */
		char *end = strrchr(buf, ')');
		if (end && end[1] == ' ' && end[2] == 'R')
			return t->index;
	}
	return -1;
}

int process_can_share(const struct point *a, const struct point *b)
{
	if (!a->shared || !b->shared || a->ncounters != b->ncounters)
		return 0;
	for (int i = 0; i < a->ncounters; i++)
		if (strcmp(a->counter_names[i], b->counter_names[i]) != 0)
			return 0;
	return 1;
}

int process_measure(struct point *ps, int n, process_done done, void *ctx)
{
	struct tracee *tr = calloc(1, sizeof *tr);
	int sfd = -1, errfd = -1, rc = 0, next = 0, refused = 0;
	sigset_t chld, old;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old); /* before fork: no SIGCHLD is lost */
	if (tr && (sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK)) >= 0 && n > 0 &&
	    ps[0].ncounters)
		refused = counters_setup(&tr->ctr, (char(*)[128])ps[0].counter_names,
					 ps[0].ncounters, tr->err, sizeof tr->err) < 0;
	while (next < n) {
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);
		if (!out) {
			rc = 1;
			break;
		}
		int failed = 1;
		if (!tr || sfd < 0) {
			failure_write(out, &(struct failure){.kind = FAILURE_SETUP,
							     .message = "cannot set up the child",
							     .err = errno});
		} else if (refused) { /* the counters: every point says why */
			failure_write(out,
				      &(struct failure){.kind = FAILURE_INPUT, .message = tr->err});
		} else {
			if (!tr->pid) { /* a fresh child for the points from here on */
				point_reset(tr, &ps[next], next);
				tr->last = n - 1;
				tr->counting = 1;
				if (child_start(tr, ps, next, n - 1, &old, &errfd, out) < 0)
					goto emit;
				ptrace(PTRACE_CONT, tr->pid, NULL, NULL);
			}
			int timed_out = trace(tr, sfd, errfd), busy = -1;
			if (tr->handoff) {
				kill_leftovers(tr);
				if (!tr->leftover && (busy = busy_thread(tr)) >= 0)
					fprintf(out,
						"meta childEnded thread %d of the point was still "
						"running: a fresh child measures the next point\n",
						busy);
			}
			if (tr->handoff && (tr->leftover || busy >= 0)) { /* the child goes */
				kill_all(tr);
				ptrace(PTRACE_CONT, tr->handoff, NULL, NULL);
				tr->handoff = 0;
				trace(tr, sfd, errfd);
				tr->handoff = 0;
			}
			failed = point_report(tr, timed_out, out);
			if (tr->handoff && next + 1 < n) {
				pid_t resume = tr->handoff;
				point_reset(tr, &ps[next + 1], next + 1);
				ptrace(PTRACE_CONT, resume, NULL, NULL);
			} else {
				tr->pid = 0; /* gone: the next point gets a fresh child */
				if (errfd >= 0)
					close(errfd);
				errfd = -1;
			}
		}
	emit:
		fclose(out);
		done(ctx, next, text, len, failed);
		free(text);
		rc |= failed;
		next++;
	}
	if (errfd >= 0)
		close(errfd);
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (tr) {
		counters_free(&tr->ctr);
		free(tr->runval);
		free(tr->runratio);
		free(tr->runcounting);
		free(tr->records);
	}
	free(tr);
	return rc;
}
