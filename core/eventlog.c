/* eventlog: a point's event log as its result carries it (meta events): each event the tracer
 * saw or a rule acted on, with its run, thread and detail ("runEnd/run=2/marker=half"). */
#include "eventlog.h"

#include <stdarg.h>
#include <stdio.h>

static void append(struct eventlog *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(l->text + l->len, sizeof l->text - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n;
	if (l->len >= sizeof l->text) /* cut */
		l->len = sizeof l->text - 1;
}

void eventlog_add(struct eventlog *l, enum rot_event e, int run, int thread, const char *detail)
{
	if (l->len + 96 >= sizeof l->text)
		return;
	append(l, "%s%s", l->len ? ";" : "", rules_event_name(e));
	if (run >= 0)
		append(l, "/run=%d", run);
	if (thread >= 0)
		append(l, "/thread=%d", thread);
	if (detail)
		append(l, "/%s", detail);
}

void eventlog_clear(struct eventlog *l)
{
	l->len = 0;
	l->text[0] = '\0';
}
