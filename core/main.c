/* main: the measuring core's entry point. Reads the descriptions of a batch of points (kernel,
 * parameters, run policy), measures them in traced children, streams each result out. */
#include "process.h"
#include "counters.h"
#include "failure.h"
#include "registry.h"
#include "timer.h"
#ifdef ROT_GPU
#include "gpu.h"
#endif

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/*
 * Input: points, each "point ID", one setting a line, then "end":
 *   workload NAME [threads N] [pin CPU,CPU,...]   (or: kernel NAME, one thread)
 *   param NAME VALUE        (for the last workload)
 *   counter EVENT           (a libpfm4 event name)
 *   gpumetric NAME          (a CUPTI metric, profiled after the timed runs)
 *   rule EVENT ACTION [key=value ...]
 *   runs N | bestK N | bestEpsilon X | maxRuns N | minRunTime SECONDS
 *   cacheMode warm|cold | timeout SECONDS | ignoreDisturbed 0|1
 *   child each|shared       (shared: one child measures this point and the shareable ones
 *                            after it, until one fails)
 * Output on stdout, per point as soon as it is measured: "begin ID", the record lines of
 * process_measure(), "end ID".
 */
static int parse_workload(struct point *p, const char *line, char *err, size_t len)
{
	char name[64], rest[900] = "";
	if (p->nw == MAX_WORKLOADS) {
		snprintf(err, len, "at most %d workloads", MAX_WORKLOADS);
		return -1;
	}
	if (sscanf(line, "%*s %63s %899[^\n]", name, rest) < 1) {
		snprintf(err, len, "bad workload line '%.60s'", line);
		return -1;
	}
	struct workload *w = &p->w[p->nw];
	memset(w, 0, sizeof *w);
	w->threads = 1;
	w->args.kernel = registry_find(name);
	if (!w->args.kernel) {
		char names[512];
		registry_names(names, sizeof names);
		snprintf(err, len, "kernel '%s' is not in this core (it has: %.400s)", name, names);
		return -1;
	}
	char *save = NULL;
	for (char *tok = strtok_r(rest, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *val = strtok_r(NULL, " ", &save);
		if (!val) {
			snprintf(err, len, "workload '%s': '%s' needs a value", name, tok);
			return -1;
		}
		if (strcmp(tok, "threads") == 0) {
			w->threads = atoi(val);
		} else if (strcmp(tok, "pin") == 0) {
			for (char *c = val; *c && w->npin < MAX_PIN; c++) {
				w->pin[w->npin++] = (int)strtol(c, &c, 10);
				if (*c != ',')
					break;
			}
		} else {
			snprintf(err, len, "workload '%s': unknown setting '%s'", name, tok);
			return -1;
		}
	}
	if (w->threads < 1 || w->threads > 4096) {
		snprintf(err, len, "workload '%s': threads must be 1..4096", name);
		return -1;
	}
	if (w->threads > 1 && !w->args.kernel->run_thread) {
		snprintf(err, len, "kernel '%s' cannot run with %d threads: it has no run_thread",
			 name, w->threads);
		return -1;
	}
	p->nw++;
	return 0;
}

/* Reads one point's settings, up to its "end" line. */
static int parse(FILE *in, struct point *p, char *err, size_t len)
{
	char line[1024], key[64], val[960];
	int ended = 0;
	memset(p, 0, sizeof *p);
	p->rule = (struct bestk){.k = 3, .epsilon = 0.02, .min_runs = 3, .max_runs = 40};
	p->min_run_time = 1e-3;
	p->timeout = 600;
	while (fgets(line, sizeof line, in)) {
		char name[64];
		double v;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (strcmp(line, "end") == 0) {
			ended = 1;
			break;
		}
		if (sscanf(line, "param %63s %lf", name, &v) == 2) {
			if (!p->nw) {
				snprintf(err, len, "'param' before 'workload'");
				return -1;
			}
			if (registry_set_arg(&p->w[p->nw - 1].args, name, v, err, len) < 0)
				return -1;
			continue;
		}
		if (sscanf(line, "%63s %959[^\n]", key, val) != 2) {
			snprintf(err, len, "bad input line '%.60s'", line);
			return -1;
		}
		if (strcmp(key, "kernel") == 0 || strcmp(key, "workload") == 0) {
			if (parse_workload(p, line, err, len) < 0)
				return -1;
		} else if (strcmp(key, "counter") == 0) {
			if (p->ncounters == COUNTERS_MAX) {
				snprintf(err, len, "at most %d counters", COUNTERS_MAX);
				return -1;
			}
			snprintf(p->counter_names[p->ncounters++], 128, "%.127s", val);
			p->notify = 1;
		} else if (strcmp(key, "gpumetric") == 0) {
			if (p->ngpu_metrics == 64) {
				snprintf(err, len, "at most 64 GPU metrics");
				return -1;
			}
			snprintf(p->gpu_metrics[p->ngpu_metrics++], 128, "%.127s", val);
		} else if (strcmp(key, "rule") == 0) {
			if (p->nrules == MAX_RULES) {
				snprintf(err, len, "at most %d rules", MAX_RULES);
				return -1;
			}
			if (rules_parse(val, &p->rules[p->nrules], err, (int)len) < 0)
				return -1;
			p->notify |= rules_parent_side(p->rules[p->nrules].action);
			p->nrules++;
		} else if (strcmp(key, "runs") == 0) {
			p->rule.min_runs = atoi(val);
		} else if (strcmp(key, "bestK") == 0) {
			p->rule.k = atoi(val);
		} else if (strcmp(key, "bestEpsilon") == 0) {
			p->rule.epsilon = atof(val);
		} else if (strcmp(key, "maxRuns") == 0) {
			p->rule.max_runs = atoi(val);
		} else if (strcmp(key, "minRunTime") == 0) {
			p->min_run_time = atof(val);
		} else if (strcmp(key, "cacheMode") == 0) {
			p->cold = strcmp(val, "cold") == 0;
		} else if (strcmp(key, "timeout") == 0) {
			p->timeout = atof(val);
		} else if (strcmp(key, "ignoreDisturbed") == 0) {
			p->ignore_disturbed = atoi(val);
		} else if (strcmp(key, "child") == 0) {
			if (strcmp(val, "shared") != 0 && strcmp(val, "each") != 0) {
				snprintf(err, len, "child must be 'each' or 'shared', not '%.40s'",
					 val);
				return -1;
			}
			p->shared = strcmp(val, "shared") == 0;
		} else {
			snprintf(err, len, "unknown input key '%s'", key);
			return -1;
		}
	}
	if (!ended) {
		snprintf(err, len, "the point's settings end without an 'end' line");
		return -1;
	}
	if (!p->nw) {
		snprintf(err, len, "no kernel given");
		return -1;
	}
	if (p->rule.max_runs < 1)
		p->rule.max_runs = 1;
	if (p->rule.min_runs > p->rule.max_runs)
		p->rule.max_runs = p->rule.min_runs;
	return 0;
}

/* rot-core --timer: cost and granularity of the time measurers */
static int timer_report(void)
{
	struct timespec res;
	uint64_t ov_ns = UINT64_MAX, ov_tsc = UINT64_MAX, step = UINT64_MAX;
	for (int i = 0; i < 100000; i++) {
		uint64_t n0 = timer_ns(), c0 = timer_tsc_start();
		uint64_t c1 = timer_tsc_stop(), n1 = timer_ns();
		if (n1 - n0 < ov_ns)
			ov_ns = n1 - n0;
		if (c1 - c0 < ov_tsc)
			ov_tsc = c1 - c0;
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

/* rot-core --declared KERNEL [NAME=VALUE ...]: the kernel's declared counts, nothing run */
static int declared(int argc, char **argv)
{
	struct rot_args a = {0};
	char err[512];
	a.kernel = registry_find(argv[0]);
	if (!a.kernel) {
		fprintf(stderr, "rot-core: no kernel '%s' in this core\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		char name[64];
		double v;
		if (sscanf(argv[i], "%63[^=]=%lf", name, &v) != 2 ||
		    registry_set_arg(&a, name, v, err, sizeof err) < 0) {
			fprintf(stderr, "rot-core: bad parameter '%s' %s\n", argv[i], err);
			return 2;
		}
	}
	printf("flops %.17g\nbytes %.17g\n", a.kernel->flops ? a.kernel->flops(&a) : 0.0,
	       a.kernel->bytes ? a.kernel->bytes(&a) : 0.0);
	return 0;
}

/* rot-core --events [all]: what this machine can count */
static int list_events(int all)
{
	counters_list(stdout, all);
	return 0;
}

#define GROUP_MAX 256 /* points one shared child measures at most */

/* Streams one point's result out: "begin ID", its records, "end ID". */
static void emit_point(void *ctx, int index, const char *text, size_t len, int failed)
{
	char(*ids)[64] = ctx;
	(void)failed;
	printf("begin %s\n", ids[index]);
	fwrite(text, 1, len, stdout);
	printf("end %s\n", ids[index]);
	fflush(stdout);
}

/* Reads the next point into p; returns 0 at the end of the input, 1 with *bad set (and err)
 * when its settings were refused. */
static int next_point(FILE *in, struct point *p, char *id, char *err, size_t len, int *bad)
{
	char line[256];
	while (fgets(line, sizeof line, in)) {
		if (sscanf(line, "point %63s", id) == 1) {
			*bad = parse(in, p, err, len) < 0;
			return 1;
		}
	}
	return 0;
}

/* rot-core --batch INPUT: measures the points of INPUT in order, in traced children (one per
 * point, or one for a run of points that share it), and writes each result to stdout as soon
 * as it is done. */
static int batch(const char *input)
{
	char err[1024];
	int rc = 0, bad = 0;
	/* the driver's death takes the core (and, through PTRACE_O_EXITKILL, the kernels) along */
	const char *driver = getenv("ROT_DRIVER_PID");
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (driver && getppid() != (pid_t)atoi(driver))
		return 2;
	prctl(PR_SET_CHILD_SUBREAPER, 1); /* what a kernel leaves behind comes back to us */
	FILE *in = fopen(input, "r");
	struct point *ps = calloc(GROUP_MAX + 1, sizeof *ps);
	char(*ids)[64] = calloc(GROUP_MAX + 1, sizeof *ids);
	if (!in || !ps || !ids) {
		fprintf(stderr, "rot-core: cannot read '%s': %s\n", input, strerror(errno));
		rc = 2;
		goto out;
	}
	int have = next_point(in, &ps[0], ids[0], err, sizeof err, &bad);
	while (have) {
		if (bad) {
			printf("begin %s\n", ids[0]);
			failure_write(stdout,
				      &(struct failure){.kind = FAILURE_INPUT, .message = err});
			printf("end %s\n", ids[0]);
			fflush(stdout);
			rc = 1;
			have = next_point(in, &ps[0], ids[0], err, sizeof err, &bad);
			continue;
		}
		int n = 1;
		have = next_point(in, &ps[n], ids[n], err, sizeof err, &bad);
		while (have && !bad && n < GROUP_MAX && process_can_share(&ps[0], &ps[n])) {
			n++;
			have = next_point(in, &ps[n], ids[n], err, sizeof err, &bad);
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
#ifdef ROT_GPU
	if (argc == 2 &&
	    strcmp(argv[1], "--chip") == 0) { /* the device's chip, for metric checks */
		char err[512];
		if (gpu_available(err, sizeof err) < 0) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		return gpu_chip(stdout) == 0 ? 0 : 1;
	}
	if (argc == 2 && strcmp(argv[1], "--device") == 0) { /* the device, for machine identity */
		char err[512];
		if (gpu_available(err, sizeof err) < 0) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		return gpu_identity(stdout) == 0 ? 0 : 1;
	}
	if (argc >= 4 && strcmp(argv[1], "--metrics") == 0) /* --metrics CHIP NAME... */
		return gpu_check_metrics(stdout, argv[2], (const char *const *)argv + 3,
					 argc - 3) == 0
			   ? 0
			   : 1;
#endif
	if (argc >= 2 && strcmp(argv[1], "--events") == 0)
		return list_events(argc >= 3 && strcmp(argv[2], "all") == 0);
	if (argc == 3 && strcmp(argv[1], "--batch") == 0)
		return batch(argv[2]);
	fprintf(stderr,
		"usage: rot-core --batch INPUT | --timer | --declared KERNEL [NAME=VALUE ...] | "
		"--events [all]\n");
	return 2;
}
