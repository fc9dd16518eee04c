/* failure: the kinds of a failed point (protocol.h's PROTOCOL_FAILURES) as one enum, and the
 * one place that words them: status failed, error MESSAGE, meta failure KIND, meta hint. */
#define _GNU_SOURCE
#include "failure.h"

#include <string.h>

static const char *const kind_names[FAILURE_COUNT] = {
#define X(id, name, meaning) [FAILURE_##id] = name,
    PROTOCOL_FAILURES(X)
#undef X
};

const char failure_hint_ptrace[] =
    "allow tracing one's own children: sysctl kernel.yama.ptrace_scope=1 (or 0), or run the "
    "container with --cap-add=SYS_PTRACE and without a seccomp profile that blocks ptrace";

const char *failure_kind_name(enum failure_kind k)
{
	return k < FAILURE_COUNT ? kind_names[k] : "?";
}

/* "kernel", or "application" for an application's invocation. */
static const char *subject(const struct failure *f)
{
	return f->app ? "application" : "kernel";
}

/* Who ended the kernel with a signal, and where a fault was. */
static void signal_message(const struct failure *f, char *buf, size_t len)
{
	const char *k = f->kernel, *name = strsignal(f->sig), *w = subject(f);
	switch (f->sender) {
	case FAILURE_FAULT:
		snprintf(buf, len, "%s '%s' crashed: %s (signal %d) in thread %d at address %p", w,
			 k, name, f->sig, f->tid, f->addr);
		break;
	case FAILURE_SELF:
		snprintf(buf, len,
			 "%s '%s' was killed by %s (signal %d), raised by itself in thread %d", w,
			 k, name, f->sig, f->tid);
		break;
	case FAILURE_PROCESS:
		snprintf(buf, len,
			 "%s '%s' was killed by %s (signal %d), sent by process %d (uid %d)", w, k,
			 name, f->sig, f->pid, f->uid);
		break;
	case FAILURE_OS:
		snprintf(buf, len,
			 "%s '%s' was killed by %s (signal %d), sent by the operating system", w, k,
			 name, f->sig);
		break;
	case FAILURE_UNSEEN:
	default:
		snprintf(buf, len,
			 "%s '%s' was killed by %s (signal %d) from outside (the sender of a "
			 "SIGKILL cannot be seen)",
			 w, k, name, f->sig);
		break;
	}
}

void failure_message(const struct failure *f, char *buf, size_t len)
{
	switch (f->kind) {
	case FAILURE_SIGNAL:
		signal_message(f, buf, len);
		break;
	case FAILURE_TIMEOUT:
		snprintf(buf, len, "%s '%s' ran past the timeout of %g s and was killed%s%s",
			 subject(f), f->kernel, f->timeout,
			 f->stopsig ? "; it had stopped itself with " : "",
			 f->stopsig ? strsignal(f->stopsig) : "");
		break;
	case FAILURE_LEFTOVER:
		snprintf(buf, len, "%s '%s' started a process that outlived it (pid %d); killed",
			 subject(f), f->kernel, f->pid);
		break;
	case FAILURE_EXIT:
		if (f->app)
			snprintf(buf, len,
				 "application '%s' exited with status %d in invocation %d",
				 f->kernel, f->status, f->run + 1);
		else if (f->run < 0)
			snprintf(buf, len,
				 "kernel '%s' exited with status %d before the first timed run",
				 f->kernel, f->status);
		else
			snprintf(buf, len, "kernel '%s' exited with status %d during run %d",
				 f->kernel, f->status, f->run);
		break;
	case FAILURE_SETUP:
		if (f->err)
			snprintf(buf, len, "%s: %s", f->message, strerror(f->err));
		else
			snprintf(buf, len, "%s", f->message);
		break;
	case FAILURE_INPUT:
	case FAILURE_MARKERS:
	case FAILURE_NODEVICE:
	case FAILURE_KERNEL:
	case FAILURE_PROFILE:
	default:
		snprintf(buf, len, "%s", f->message ? f->message : "failed");
		break;
	}
}

/* Writes text as the rest of a record line: a newline inside it becomes a space. */
static void put_line(FILE *out, const char *text)
{
	for (const char *c = text; *c; c++)
		fputc(*c == '\n' ? ' ' : *c, out);
	fputc('\n', out);
}

void failure_write_error(FILE *out, const struct failure *f)
{
	char msg[2048];
	const char *hint = f->hint;
	failure_message(f, msg, sizeof msg);
	char *tail = strstr(msg, "\nhint: "); /* a message with its own hint (CUPTI's) */
	if (tail) {
		*tail = '\0';
		if (!hint)
			hint = tail + 7;
	}
	protocol_record(out, RECORD_ERROR);
	put_line(out, msg);
	protocol_meta(out, META_FAILURE, "%s", failure_kind_name(f->kind));
	if (f->kind == FAILURE_SIGNAL)
		protocol_meta(out, META_SIGNAL, "%d", f->sig);
	if (hint) {
		protocol_record(out, RECORD_META);
		fprintf(out, "%s ", protocol_meta_name(META_HINT));
		put_line(out, hint);
	}
}

void failure_write(FILE *out, const struct failure *f)
{
	protocol_status(out, 0);
	failure_write_error(out, f);
}
