/* process: runs one point in a child process controlled with ptrace: the child stops
 * itself under PTRACE_TRACEME, the parent follows its threads, faults and timeout. */
#ifndef ROT_PROCESS_H
#define ROT_PROCESS_H

#include "measure.h"

#include <stdio.h>

/*
 * Forks a child that measures p and writes its records to a temp file; the parent traces
 * it (PTRACE_O_TRACECLONE | TRACEEXIT | EXITKILL), keeps a table of its threads, kills it
 * after p->timeout seconds, and reports a fault with the signal, thread and address.
 * Writes the child's records plus `status ok|failed`, `error ...` and thread metadata to out.
 * Returns 0 when the point was measured, 1 when it failed (out says why).
 */
int process_measure(const struct point *p, FILE *out);

#endif
