/* report: writes a point's result: the child's records with each run's counts, the thread
 * table, the event log, the kernel's last stderr lines, and what became of the point. */
#include "report.h"
#include "procfs.h"
#include "protocol.h"
#include "tracer.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

static int is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP;
}

/* Who ended the kernel with its signal, and where a fault was. */
static void signal_failure(const struct outcome *o, struct failure *f)
{
	f->kind = FAILURE_SIGNAL;
	f->sig = WTERMSIG(o->status);
	f->tid = (int)o->sig_tid;
	if (o->sig_tid && is_fault(f->sig) && o->sig_code > 0) {
		f->sender = FAILURE_FAULT;
		f->addr = o->sig_addr;
	} else if (o->sig_tid && o->sig_code <= 0) {
		f->sender = o->sig_from_kernel ? FAILURE_SELF : FAILURE_PROCESS;
		f->pid = (int)o->sig_from;
		f->uid = o->sig_uid;
	} else {
		f->sender = o->sig_tid ? FAILURE_OS : FAILURE_UNSEEN;
	}
}

enum report_verdict report_decide(const struct outcome *o, struct failure *f)
{
	memset(f, 0, sizeof *f);
	f->kernel = o->kernel;
	f->app = o->app;
	if (o->refused) {
		f->kind = FAILURE_INPUT;
		f->message = o->refused;
	} else if (o->follow_err) {
		f->kind = FAILURE_SETUP;
		f->message = "the measuring child was killed: waiting for it (poll) failed";
		f->err = o->follow_err;
	} else if (o->timed_out) {
		f->kind = FAILURE_TIMEOUT;
		f->timeout = o->timeout;
		f->stopsig = o->stopsig;
	} else if (o->leftover) {
		f->kind = FAILURE_LEFTOVER;
		f->pid = (int)o->leftover;
	} else if (o->measured) {
		return REPORT_OK;
	} else if (WIFSIGNALED(o->status)) {
		signal_failure(o, f);
	} else if (!o->records) {
		f->kind = FAILURE_EXIT;
		f->status = WEXITSTATUS(o->status);
		f->run = o->run;
	} else if (WEXITSTATUS(o->status) == 0 && o->verdict == 0) {
		return REPORT_OK;
	} else {
		return REPORT_CHILD_FAILED;
	}
	return REPORT_FAILED;
}

void report_copy_records(FILE *out, const char *text, size_t len, const struct threadcounters *tc)
{
	int run = 0;
	const char *word = protocol_record_word(RECORD_RUN);
	size_t wlen = strlen(word);
	const char *end = text ? text + strnlen(text, len) : NULL;
	for (const char *line = text; line && line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
		fwrite(line, 1, n, out);
		if (n > wlen && strncmp(line, word, wlen) == 0 && line[wlen] == ' ' &&
		    tc->ctr.n > 0) {
			if (run < tc->nruns) {
				for (int i = 0; i < tc->ctr.n; i++)
					protocol_run_value_at(out, RUNKEY_EVENT, i, "%.0f",
							      tc->runval[run][i]);
				protocol_run_value(out, RUNKEY_COUNTING, "%d",
						   tc->runcounting[run]);
				if (tc->runratio[run] < 1)
					protocol_run_value(out, RUNKEY_MUX, "%.4f",
							   tc->runratio[run]);
			}
			run++;
		}
		fputc('\n', out);
		line += n + 1;
	}
}

/* The thread table, the processes started, the event log and the counted events. */
/* What the point's threads ran and waited on a run queue since the point began, summed (ns):
 * a live thread's read now, an exited one's at its exit. 0, or -1 when the kernel keeps no
 * such figures (no /proc/PID/task/TID/schedstat). */
static int queue_wait(const struct tracee *tr, uint64_t *run_ns, uint64_t *wait_ns)
{
	int any = 0;
	*run_ns = *wait_ns = 0;
	for (int i = 0; i < tr->th.n; i++) {
		const struct thread *t = &tr->th.t[i];
		uint64_t run = t->run, wait = t->wait;
		if (t->state != T_EXITED && procfs_schedstat(tr->pid, t->tid, &run, &wait) < 0)
			continue;
		if (run < t->run0 || wait < t->wait0)
			continue;
		*run_ns += run - t->run0;
		*wait_ns += wait - t->wait0;
		any |= run > 0 || wait > 0;
	}
	return any ? 0 : -1;
}

static void write_threads(FILE *out, const struct tracee *tr)
{
	const struct threads *th = &tr->th;
	uint64_t run, wait;
	if (queue_wait(tr, &run, &wait) == 0 && run + wait > 0) {
		protocol_meta(out, META_QUEUE_WAIT, "%.4f", (double)wait / (double)(run + wait));
		protocol_meta(out, META_QUEUE_WAIT_NS, "%llu", (unsigned long long)wait);
	}
	protocol_meta(out, META_THREADS_CREATED, "%d", th->created);
	protocol_meta(out, META_THREADS_EXITED, "%d", th->exited);
	protocol_meta(out, META_THREADS_COUNTED, "%d", th->counted);
	protocol_record(out, RECORD_META);
	fprintf(out, "%s ", protocol_meta_name(META_THREAD_TABLE));
	for (int i = 0; i < th->n; i++)
		fprintf(out, "%s%d:%s%s", i ? "," : "", th->t[i].index,
			th->t[i].state == T_EXITED ? "exited"
			: th->t[i].state == T_NEW  ? "new"
						   : "running",
			th->t[i].c.counted ? ":counted" : "");
	fprintf(out, "\n");
	if (tr->ot.forks)
		protocol_meta(out, META_PROCESSES_STARTED, "%d", tr->ot.forks);
	if (tr->events.len)
		protocol_meta(out, META_EVENTS, "%s", tr->events.text);
	for (int i = 0; i < tr->tc.ctr.n; i++)
		protocol_meta_at(out, META_EVENT, i, "%s", tr->tc.ctr.name[i]);
	if (tr->tc.ctr.n) {
		protocol_meta(out, META_COUNTER_DOMAIN, "%s",
			      tr->tc.ctr.user_only ? "user" : "user+kernel");
		protocol_meta(out, META_MULTIPLEXED, "%d", tr->tc.multiplexed);
	}
}

int report_point(FILE *out, const struct tracee *tr, const struct outcome *o)
{
	struct failure f;
	report_copy_records(out, tr->rec.text, tr->rec.len, &tr->tc);
	write_threads(out, tr);
	errtail_write(&tr->err, out);
	switch (report_decide(o, &f)) {
	case REPORT_OK:
		protocol_status(out, 1);
		return 0;
	case REPORT_FAILED:
		failure_write(out, &f);
		return 1;
	case REPORT_CHILD_FAILED:
	default:
		protocol_status(out, 0); /* the child wrote its own error line */
		return 1;
	}
}
