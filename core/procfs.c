/* procfs: what the core reads of its children's tasks in /proc: a task's process, whether it
 * runs, what it ran and waited on a run queue. */
#define _GNU_SOURCE
#include "procfs.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int procfs_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return 1;
}

pid_t procfs_tgid(pid_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	if (!procfs_read(path, buf, sizeof buf))
		return 0;
	char *t = strstr(buf, "\nTgid:");
	return t ? (pid_t)atoi(t + 6) : 0;
}

int procfs_stat_running(const char *stat)
{
	const char *end = strrchr(stat, ')'); /* the name may hold anything: the state follows */
	return end && end[1] == ' ' && end[2] == 'R';
}

int procfs_running(pid_t pid, pid_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	return procfs_read(path, buf, sizeof buf) && procfs_stat_running(buf);
}

int procfs_schedstat(pid_t pid, pid_t tid, uint64_t *run_ns, uint64_t *wait_ns)
{
	char path[96], buf[128];
	unsigned long long run, wait;
	snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	if (!procfs_read(path, buf, sizeof buf) || sscanf(buf, "%llu %llu", &run, &wait) != 2)
		return -1;
	*run_ns = run;
	*wait_ns = wait;
	return 0;
}
