/* Benchmark helper: what this machine charges for the things a point's child does: a system
 * call (getppid), a page fault (first touch of fresh anonymous memory), a fork of a small
 * process and its exit. Prints "syscall_us X", "fault_us Y", "fork_ms Z". */
#define _GNU_SOURCE
#include "timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* seconds, from the clock rot's core times with (core/timer.h) */
static double now(void)
{
	return (double)timer_ns() * 1e-9;
}

int main(void)
{
	double t0 = now();
	for (int i = 0; i < 2000; i++)
		syscall(SYS_getppid);
	double t1 = now();
	size_t pages = 4096;
	volatile char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	double t2 = now();
	for (size_t i = 0; i < pages; i++)
		p[i * 4096] = 1;
	double t3 = now();
	for (int i = 0; i < 20; i++) {
		pid_t c = fork();
		if (c == 0)
			_exit(0);
		while (waitpid(c, NULL, 0) < 0)
			;
	}
	double t4 = now();
	printf("syscall_us %.2f\nfault_us %.2f\nfork_ms %.3f\n", (t1 - t0) / 2000 * 1e6,
	       (t3 - t2) / (double)pages * 1e6, (t4 - t3) / 20 * 1e3);
	return 0;
}
