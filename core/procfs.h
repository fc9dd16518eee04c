/* procfs: what the core reads of its children's tasks in /proc: a task's process, whether it
 * runs, what it ran and waited on a run queue. */
#ifndef ROT_PROCFS_H
#define ROT_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The head of the /proc file at path (one read, up to size - 1 bytes) into buf, as a string:
 * 1, or 0 when the task is gone. */
int procfs_read(const char *path, char *buf, size_t size);

/* The thread group a task belongs to, 0 when it is gone. */
pid_t procfs_tgid(pid_t tid);

/* 1 when a /proc/PID/task/TID/stat line says the task is running or runnable (state R). */
int procfs_stat_running(const char *stat);

/* Whether task tid of process pid is running or runnable (state R) now. */
int procfs_running(pid_t pid, pid_t tid);

/* What task tid of process pid has run and waited on a run queue, in ns, from
 * /proc/PID/task/TID/schedstat (the kernel's CONFIG_SCHED_INFO): 0, or -1 when it cannot be
 * read (the task is gone, or the kernel keeps no such figures); nothing is written then. */
int procfs_schedstat(pid_t pid, pid_t tid, uint64_t *run_ns, uint64_t *wait_ns);

#endif
