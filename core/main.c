/* main: the measuring core's entry point. Reads the descriptions of a batch of points (kernel,
 * parameters, run policy), measures them in traced children, streams each result out. */
#define _GNU_SOURCE
#include "process.h"
#include "sysinfo.h"
#include "counters.h"
#include "device.h"
#include "failure.h"
#include "input.h"
#include "registry.h"
#include "timer.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

/* rot-core --timer: cost and granularity of the time measurers */
static int timer_report(void)
{
	struct timespec res;
	uint64_t ov_ns, ov_tsc, step = UINT64_MAX;
	timer_overhead(100000, &ov_ns, &ov_tsc);
	for (int i = 0; i < 100000; i++) {
		uint64_t a = timer_ns(), b;
		while ((b = timer_ns()) == a)
			;
		if (b - a < step)
			step = b - a;
	}
	uint64_t n0 = timer_ns(), c0 = timer_tsc_start();
	while (timer_ns() - n0 < 100000000)
		;
	uint64_t c1 = timer_tsc_stop(), n1 = timer_ns();
	clock_getres(CLOCK_MONOTONIC_RAW, &res);
	printf("timer overhead %llu ns, %llu TSC cycles (smallest of 100000 empty timed regions)\n",
	       (unsigned long long)ov_ns, (unsigned long long)ov_tsc);
	printf(
	    "timer resolution %ld ns (clock_getres), smallest observed step %llu ns, TSC %.4f GHz "
	    "(1 cycle = %.3f ns)\n",
	    res.tv_nsec, (unsigned long long)step, (double)(c1 - c0) / (double)(n1 - n0),
	    (double)(n1 - n0) / (double)(c1 - c0));
	return 0;
}

/* Reads a kernel and its parameters (KERNEL [NAME=VALUE ...]) into a: 0, or -1 with why in msg. */
static int spec_read(int argc, char **argv, struct rot_args *a, char *msg, size_t len)
{
	*a = (struct rot_args){0};
	a->kernel = registry_find(argv[0]);
	if (!a->kernel) {
		snprintf(msg, len, "no kernel '%s' in this core", argv[0]);
		return -1;
	}
	for (int i = 1; i < argc; i++) {
		char name[64];
		double v;
		int end = 0;
		if (sscanf(argv[i], "%63[^=]=%lf%n", name, &v, &end) != 2 || argv[i][end] != '\0') {
			snprintf(msg, len,
				 "bad parameter '%s': expected NAME=VALUE, VALUE a number",
				 argv[i]);
			return -1;
		}
		if (registry_set_arg(a, name, v, msg, len) < 0)
			return -1;
	}
	return 0;
}

/* rot-core --declared KERNEL [NAME=VALUE ...]: the kernel's declared counts, nothing run; 2
 * when a parameter is one the kernel refuses (its check says why on stderr) */
static int declared(int argc, char **argv)
{
	struct rot_args a;
	char msg[512];
	if (spec_read(argc, argv, &a, msg, sizeof msg) < 0) {
		fprintf(stderr, "rot-core: %s\n", msg);
		return 2;
	}
	if (a.kernel->check && a.kernel->check(&a) < 0)
		return 2;
	printf("flops %.17g\nbytes %.17g\n", a.kernel->flops ? a.kernel->flops(&a) : 0.0,
	       a.kernel->bytes ? a.kernel->bytes(&a) : 0.0);
	if (a.kernel->written)
		printf("written %.17g\n", a.kernel->written(&a));
	return 0;
}

/* The first line a's kernel check wrote to stderr when it refused a (stderr taken into a memory
 * file meanwhile) into msg: -1, else 0 (accepted, or no check). */
static int check_one(const struct rot_args *a, char *msg, size_t len)
{
	int fd = -1, saved = -1, rc = 0;
	snprintf(msg, len, "kernel '%s' refuses its parameters", a->kernel->name);
	if (!a->kernel->check)
		goto out;
	fflush(stderr);
	if ((fd = memfd_create("refusal", MFD_CLOEXEC)) < 0 || (saved = dup(2)) < 0 ||
	    dup2(fd, 2) < 0) {
		rc = a->kernel->check(a); /* said on stderr as it is */
		goto out;
	}
	rc = a->kernel->check(a);
	fflush(stderr);
	if (dup2(saved, 2) < 0)
		abort(); /* stderr would stay in the memory file: nothing after could be said */
	ssize_t got = rc < 0 ? pread(fd, msg, len - 1, 0) : 0;
	if (got > 0) {
		msg[got] = '\0';
		msg[strcspn(msg, "\n")] = '\0';
	}
out:
	if (saved >= 0)
		close(saved);
	if (fd >= 0)
		close(fd);
	return rc < 0 ? -1 : 0;
}

/* rot-core --check SPEC [-- SPEC ...], SPEC: KERNEL [NAME=VALUE ...]: one line a spec, in order,
 * "ok", "refused WHY" (a value the kernel's check refuses) or "invalid WHY" (a kernel or
 * parameter the core lacks): what `rot build` asks of a core for all its points at once,
 * nothing allocated or run */
static int check(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		int n = 0;
		while (i + n < argc && strcmp(argv[i + n], "--") != 0)
			n++;
		struct rot_args a;
		char msg[512];
		if (n == 0)
			printf("invalid an empty spec\n");
		else if (spec_read(n, argv + i, &a, msg, sizeof msg) < 0)
			printf("invalid %s\n", msg);
		else if (check_one(&a, msg, sizeof msg) < 0)
			printf("refused %s\n", msg);
		else
			printf("ok\n");
		i += n;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

/* rot-core --events [all]: what this machine can count */
static int list_events(int all)
{
	counters_list(stdout, all);
	return 0;
}

/*
 * Input: points, each "point ID", one setting a line, then "end"; the keys, their syntax and
 * meaning are declared in protocol.h (PROTOCOL_INPUT) and read by input.c. Output on stdout,
 * per point as soon as it is measured: "begin ID", the records of process_measure()
 * (PROTOCOL_RECORDS), "end ID".
 */

#define GROUP_MAX 256 /* points one shared child measures at most */

/* Streams one point's result out: "begin ID", its records, "end ID". */
static void emit_point(void *ctx, int index, const char *text, size_t len, int failed)
{
	char(*ids)[INPUT_ID_MAX] = ctx;
	(void)failed;
	printf("%s %s\n", PROTOCOL_BEGIN, ids[index]);
	fwrite(text, 1, len, stdout);
	printf("%s %s\n", PROTOCOL_END, ids[index]);
	fflush(stdout);
}

/* rot-core --batch INPUT: measures the points of INPUT in order, in traced children (one per
 * point, or one for a run of points that share it), and writes each result to stdout as soon
 * as it is done. */
static int batch(const char *input)
{
	char err[1024];
	int rc = 0;
	/* the driver's death takes the core (and, through PTRACE_O_EXITKILL, the kernels) along */
	const char *driver = getenv("ROT_DRIVER_PID");
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (driver && getppid() != (pid_t)atoi(driver))
		return 2;
	prctl(PR_SET_CHILD_SUBREAPER, 1); /* what a kernel leaves behind comes back to us */
	sysinfo_prepare();		  /* once, not in every point's child */
	measure_prepare();
	FILE *in = fopen(input, "r");
	struct point *ps = calloc(GROUP_MAX + 1, sizeof *ps);
	char(*ids)[INPUT_ID_MAX] = calloc(GROUP_MAX + 1, sizeof *ids);
	if (!in || !ps || !ids) {
		fprintf(stderr, "rot-core: cannot read '%s': %s\n", input, strerror(errno));
		rc = 2;
		goto out;
	}
	int have = input_next_point(in, &ps[0], ids[0], err, sizeof err);
	while (have) {
		if (have < 0) { /* refused: the driver hears why */
			printf("%s %s\n", PROTOCOL_BEGIN, ids[0]);
			failure_write(stdout,
				      &(struct failure){.kind = FAILURE_INPUT, .message = err});
			printf("%s %s\n", PROTOCOL_END, ids[0]);
			fflush(stdout);
			rc = 1;
			have = input_next_point(in, &ps[0], ids[0], err, sizeof err);
			continue;
		}
		int n = 1;
		have = input_next_point(in, &ps[n], ids[n], err, sizeof err);
		while (have > 0 && n < GROUP_MAX && process_can_share(&ps[0], &ps[n])) {
			n++;
			have = input_next_point(in, &ps[n], ids[n], err, sizeof err);
		}
		rc |= process_measure(ps, n, emit_point, ids);
		if (have) { /* the point read ahead starts the next run */
			ps[0] = ps[n];
			memcpy(ids[0], ids[n], sizeof ids[0]);
		}
	}
out:
	if (in)
		fclose(in);
	free(ps);
	free(ids);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--timer") == 0)
		return timer_report();
	if (argc >= 3 && strcmp(argv[1], "--declared") == 0)
		return declared(argc - 2, argv + 2);
	if (argc >= 3 && strcmp(argv[1], "--check") == 0)
		return check(argc - 2, argv + 2);
	int rc;
	if (device_command(argc, argv, &rc)) /* the GPU's --chip, --device, --metrics */
		return rc;
	if (argc >= 2 && strcmp(argv[1], "--events") == 0)
		return list_events(argc >= 3 && strcmp(argv[2], "all") == 0);
	if (argc == 3 && strcmp(argv[1], "--batch") == 0)
		return batch(argv[2]);
	fprintf(stderr,
		"usage: rot-core --batch INPUT | --timer | --declared KERNEL [NAME=VALUE ...] | "
		"--check KERNEL [NAME=VALUE ...] [-- KERNEL ...] | --events [all]\n");
	return 2;
}
