/* process: runs one point in a child process controlled with ptrace: the child stops
 * itself under PTRACE_TRACEME, the parent follows its threads, counts their events per run,
 * applies the parent-side rules, and reports faults and timeouts. */
#define _GNU_SOURCE
#include "process.h"
#include "counters.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_THREADS 1024
#define MAX_RUNS 100000

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

struct tracee {
	pid_t pid;
	const struct point *p;
	struct counters ctr;
	struct thread t[MAX_THREADS];
	int n, created, exited, counted;
	int fault_sig, fault_tid;
	void *fault_addr;
	int counting, multiplexed;
	/* per run: scaled counts, smallest running/enabled ratio, whether counting was on */
	double (*runval)[COUNTERS_MAX];
	double *runratio;
	char *runcounting;
	int nruns;
	char events[8192];
	size_t evlen;
	char err[1024];
};

static volatile sig_atomic_t alarm_fired;

static void on_alarm(int sig)
{
	(void)sig;
	alarm_fired = 1;
}

static struct thread *thread_find(struct tracee *tr, pid_t tid)
{
	for (int i = 0; i < tr->n; i++)
		if (tr->t[i].tid == tid)
			return &tr->t[i];
	return NULL;
}

static void log_event(struct tracee *tr, enum rot_event e, int run, int thread, const char *detail)
{
	if (tr->evlen + 96 >= sizeof tr->events)
		return;
	tr->evlen += (size_t)snprintf(tr->events + tr->evlen, sizeof tr->events - tr->evlen,
				      "%s%s", tr->evlen ? ";" : "", rules_event_name(e));
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

/* A new thread (or the main one): open its counters at once, so nothing it does is missed. */
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
	if (run < 0 || run >= MAX_RUNS)
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
				v *= en / rn; /* multiplexed: scale to the time the counter was enabled */
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

static void child_main(struct point *p, int out_fd, int err_pipe)
{
	/* between fork and the measurement: only async-signal-safe calls */
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
		int e = errno;
		ssize_t w = write(err_pipe, &e, sizeof e);
		(void)w;
		_exit(126);
	}
	close(err_pipe);
	int devnull = open("/dev/null", O_WRONLY);
	if (devnull >= 0)
		dup2(devnull, 1); /* kernels that print must not disturb anything */
	raise(SIGSTOP);
	FILE *out = fdopen(out_fd, "w");
	if (!out)
		_exit(125);
	int rc = measure_point(p, out);
	fflush(out);
	_exit(rc == 0 ? 0 : 3);
}

static int is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
	       sig == SIGABRT || sig == SIGTRAP;
}

/* Follows the child and its threads until all are gone. Returns the main thread's status. */
static int trace(struct tracee *tr, int *timed_out)
{
	int main_status = 0;
	struct sigaction sa = {.sa_handler = on_alarm}, old;
	sigaction(SIGALRM, &sa, &old); /* no SA_RESTART: waitpid returns EINTR */
	alarm_fired = 0;
	alarm(tr->p->timeout > 0 ? (unsigned)(tr->p->timeout + 0.999) : 0);
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, __WALL);
		if (w < 0) {
			if (errno == EINTR) {
				if (alarm_fired && !*timed_out) {
					*timed_out = 1;
					kill(tr->pid, SIGKILL);
				}
				continue;
			}
			break; /* ECHILD: everyone is gone */
		}
		struct thread *t = thread_find(tr, w);
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (t)
				thread_exit(tr, t);
			if (w == tr->pid)
				main_status = st;
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		int sig = WSTOPSIG(st), event = (unsigned)st >> 16, deliver = 0;
		if (!t) /* a clone's first stop can come before its creator's clone event */
			t = thread_add(tr, w);
		if (event == PTRACE_EVENT_CLONE) {
			unsigned long tid;
			ptrace(PTRACE_GETEVENTMSG, w, NULL, &tid);
			struct thread *nt = thread_add(tr, (pid_t)tid);
			tr->created++;
			if (nt) {
				log_event(tr, EV_THREAD_CREATED, -1, nt->index, NULL);
				parent_rules(tr, EV_THREAD_CREATED, -1, nt);
			}
		} else if (event == PTRACE_EVENT_EXIT) {
			if (t)
				thread_exit(tr, t);
		} else if (event == 0 && sig == SIGSTOP && t && t->state == T_NEW) {
			t->state = T_RUNNING; /* the first stop of a new thread */
		} else if (event == 0 && sig == ROT_EVENT_SIGNAL) {
			siginfo_t si;
			if (ptrace(PTRACE_GETSIGINFO, w, NULL, &si) == 0) {
				enum rot_event e = (enum rot_event)(si.si_value.sival_int >> 16);
				int run = si.si_value.sival_int & 0xffff;
				run = run == 0xffff ? -1 : run;
				if (e == EV_RUN_START)
					run_start(tr);
				else if (e == EV_RUN_END)
					run_end(tr, run);
				log_event(tr, e, run, -1, NULL);
				parent_rules(tr, e, run, t);
			}
		} else if (event == 0 && is_fault(sig)) {
			siginfo_t si;
			if (!tr->fault_sig && ptrace(PTRACE_GETSIGINFO, w, NULL, &si) == 0) {
				tr->fault_sig = sig;
				tr->fault_tid = w;
				tr->fault_addr = si.si_addr;
				log_event(tr, EV_FAULT, -1, t ? t->index : -1, strsignal(sig));
				parent_rules(tr, EV_FAULT, -1, t);
			}
			deliver = sig;
		} else if (event == 0) {
			deliver = sig;
		}
		ptrace(PTRACE_CONT, w, NULL, (void *)(long)deliver);
	}
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	return main_status;
}

/* Copies the child's records, adding each run's counts to its run line. */
static void copy_records(struct tracee *tr, FILE *rec, FILE *out)
{
	char line[4096];
	int run = 0;
	rewind(rec);
	while (fgets(line, sizeof line, rec)) {
		size_t len = strcspn(line, "\n");
		line[len] = '\0';
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
			tr->t[i].state == T_EXITED ? "exited" : tr->t[i].state == T_NEW ? "new" : "running",
			tr->t[i].counted ? ":counted" : "");
	fprintf(out, "\n");
	if (tr->evlen)
		fprintf(out, "meta events %s\n", tr->events);
	for (int i = 0; i < tr->ctr.n; i++)
		fprintf(out, "meta event%d %s\n", i, tr->ctr.name[i]);
	if (tr->ctr.n)
		fprintf(out, "meta counterDomain %s\nmeta multiplexed %d\n",
			tr->ctr.user_only ? "user" : "user+kernel", tr->multiplexed);
}

int process_measure(const struct point *p, FILE *out)
{
	struct tracee *tr = calloc(1, sizeof *tr);
	FILE *rec = tmpfile();
	int err_pipe[2] = {-1, -1}, rc = 1, timed_out = 0;
	const char *kname = p->w[0].args.kernel->name;
	if (!tr || !rec || pipe2(err_pipe, O_CLOEXEC) < 0) {
		fprintf(out, "status failed\nerror cannot set up the child: %s\n", strerror(errno));
		goto out;
	}
	tr->p = p;
	tr->counting = 1;
	if (p->ncounters &&
	    counters_setup(&tr->ctr, (char(*)[128])p->counter_names, p->ncounters, tr->err,
			   sizeof tr->err) < 0) {
		fprintf(out, "status failed\nerror %s\nmeta failure input\n", tr->err);
		goto out;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(out, "status failed\nerror fork: %s\n", strerror(errno));
		goto out;
	}
	if (pid == 0)
		child_main((struct point *)p, fileno(rec), err_pipe[1]);
	close(err_pipe[1]);
	err_pipe[1] = -1;
	tr->pid = pid;
	int st, e = ECHILD;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (read(err_pipe[0], &e, sizeof e) == (ssize_t)sizeof e || !WIFSTOPPED(st)) {
		fprintf(out, "status failed\nerror ptrace(PTRACE_TRACEME) was refused: %s\n",
			strerror(e));
		fprintf(out, "meta hint allow tracing one's own children: sysctl "
			     "kernel.yama.ptrace_scope=1 (or 0), or run the container with "
			     "--cap-add=SYS_PTRACE and without a seccomp profile that blocks ptrace\n");
		goto out;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)) < 0) {
		e = errno;
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		fprintf(out, "status failed\nerror ptrace(PTRACE_SETOPTIONS): %s\n", strerror(e));
		goto out;
	}
	struct thread *main_thread = thread_add(tr, pid);
	main_thread->state = T_RUNNING;
	if (tr->err[0]) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		fprintf(out, "status failed\nerror %s\nmeta failure input\n", tr->err);
		goto out;
	}
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	int status = trace(tr, &timed_out);

	copy_records(tr, rec, out);
	write_thread_table(tr, out);
	if (tr->err[0]) {
		fprintf(out, "status failed\nerror %s\nmeta failure input\n", tr->err);
	} else if (timed_out) {
		fprintf(out, "status failed\nerror kernel '%s' ran past the timeout of %g s and was "
			     "killed\nmeta failure timeout\n",
			kname, p->timeout);
	} else if (tr->fault_sig) {
		fprintf(out, "status failed\nerror kernel '%s' crashed: %s (signal %d) in thread %d "
			     "at address %p\nmeta failure signal\nmeta signal %d\n",
			kname, strsignal(tr->fault_sig), tr->fault_sig, tr->fault_tid,
			tr->fault_addr, tr->fault_sig);
	} else if (WIFSIGNALED(status)) {
		fprintf(out, "status failed\nerror kernel '%s' was killed by %s (signal %d)\n"
			     "meta failure signal\nmeta signal %d\n",
			kname, strsignal(WTERMSIG(status)), WTERMSIG(status), WTERMSIG(status));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		fprintf(out, "status ok\n");
		rc = 0;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
		fprintf(out, "status failed\n"); /* the child wrote its own error line */
	} else {
		fprintf(out, "status failed\nerror kernel '%s' exited with status %d during the "
			     "measurement\nmeta failure exit\n",
			kname, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
out:
	for (int i = 0; i < 2; i++)
		if (err_pipe[i] >= 0)
			close(err_pipe[i]);
	if (rec)
		fclose(rec);
	if (tr) {
		counters_free(&tr->ctr);
		free(tr->runval);
		free(tr->runratio);
		free(tr->runcounting);
	}
	free(tr);
	return rc;
}
