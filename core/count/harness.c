/* harness: rot-count, the kernels of a core's build run once each under rot's counting tool:
 * per point its workloads initialized, warmed by one uncounted invocation (or, cold, the
 * simulated caches emptied), then one invocation counted as the region named by its ID. */
#define _GNU_SOURCE
#include "../registry.h"
#include "counts.h"
#include "valgrind.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORKLOADS 8
#define THREADS 256

/* what ROT_TALLY kernels add to (measure.c's, which rot-count does not link) */
double rot_tally_flops, rot_tally_bytes, rot_tally_written;

struct workload {
	struct rot_args args;
	int threads;
	void *state;
};

struct point {
	const char *id;
	int cold, nw;
	struct workload w[WORKLOADS];
};

/* One thread of one workload's invocation; counted: inside the point's region. */
struct share {
	const struct point *p;
	struct workload *w;
	int index, counted;
	pthread_t th;
};

static void invoke(struct workload *w, int index)
{
	if (w->threads > 1)
		w->args.kernel->run_thread(w->state, index, w->threads);
	else
		w->args.kernel->run(w->state);
}

static void *share_main(void *arg)
{
	struct share *s = arg;
	if (s->counted)
		VALGRIND_DO_CLIENT_REQUEST_STMT(COUNT_REQUEST_BEGIN, s->p->id, 0, 0, 0, 0);
	invoke(s->w, s->index);
	if (s->counted)
		VALGRIND_DO_CLIENT_REQUEST_STMT(COUNT_REQUEST_END, s->p->id, 0, 0, 0, 0);
	return NULL;
}

/* One invocation of every workload, their threads together (counted: each thread's work
 * within the point's region). 0, or -1 with why on stderr. */
static int invocation(const struct point *p, int counted)
{
	static struct share sh[THREADS];
	int n = 0, rc = 0;
	for (int i = 0; i < p->nw; i++)
		for (int j = 0; j < p->w[i].threads && n < THREADS; j++)
			sh[n++] = (struct share){p, (struct workload *)&p->w[i], j, counted, 0};
	if (n == 1) {
		share_main(&sh[0]);
		return 0;
	}
	int started = 0;
	for (; started < n; started++)
		if ((errno = pthread_create(&sh[started].th, NULL, share_main, &sh[started])) !=
		    0) {
			fprintf(stderr, COUNT_HARNESS_POINT " %s: cannot start a thread: %s\n",
				p->id, strerror(errno));
			rc = -1;
			break;
		}
	for (int i = 0; i < started; i++)
		pthread_join(sh[i].th, NULL);
	return rc;
}

/* Reads POINT's words (ID warm|cold KERNEL THREADS [NAME=VALUE ...] [+ KERNEL ...]) from
 * argv; returns how many it took, or -1 with why on stderr. */
static int point_read(int argc, char **argv, struct point *p)
{
	char msg[256];
	memset(p, 0, sizeof *p);
	if (argc < 4 || (strcmp(argv[1], "warm") && strcmp(argv[1], "cold"))) {
		fprintf(stderr, "rot-count: expected ID warm|cold KERNEL THREADS ...\n");
		return -1;
	}
	p->id = argv[0];
	p->cold = strcmp(argv[1], "cold") == 0;
	int i = 2;
	while (i + 1 < argc && strcmp(argv[i], "--") && p->nw < WORKLOADS) {
		struct workload *w = &p->w[p->nw++];
		w->args.kernel = registry_find(argv[i]);
		w->threads = atoi(argv[i + 1]);
		if (!w->args.kernel || w->threads < 1 || w->threads > THREADS) {
			fprintf(stderr, COUNT_HARNESS_POINT " %s: no kernel '%s' with %s threads\n",
				p->id, argv[i], argv[i + 1]);
			return -1;
		}
		for (i += 2; i < argc && strcmp(argv[i], "--") && strcmp(argv[i], "+"); i++) {
			char name[64];
			double v;
			if (sscanf(argv[i], "%63[^=]=%lf", name, &v) != 2 ||
			    registry_set_arg(&w->args, name, v, msg, sizeof msg) < 0) {
				fprintf(stderr, COUNT_HARNESS_POINT " %s: bad parameter '%s'\n",
					p->id, argv[i]);
				return -1;
			}
		}
		if (i < argc && !strcmp(argv[i], "+"))
			i++;
	}
	return i;
}

/* Counts one point: its workloads set up, warmed (or the caches emptied), one invocation
 * counted, then disposed. 0, or -1 with why on stderr (its region then missing). */
static int count_point(struct point *p)
{
	int rc = 0, ready = 0;
	for (; ready < p->nw; ready++) {
		struct workload *w = &p->w[ready];
		errno = 0;
		w->state = w->args.kernel->init(&w->args);
		if (!w->state) {
			fprintf(stderr,
				COUNT_HARNESS_POINT " %s: kernel '%s' did not initialize: %s\n",
				p->id, w->args.kernel->name, strerror(errno ? errno : EINVAL));
			rc = -1;
			goto out;
		}
	}
	if (p->cold)
		VALGRIND_DO_CLIENT_REQUEST_STMT(COUNT_REQUEST_FLUSH, 0, 0, 0, 0, 0);
	else
		rc = invocation(p, 0);
	if (rc == 0)
		rc = invocation(p, 1);
out:
	for (int i = 0; i < ready; i++)
		if (p->w[i].args.kernel->dispose)
			p->w[i].args.kernel->dispose(p->w[i].state);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: rot-count ID warm|cold KERNEL THREADS [NAME=VALUE ...] "
				"[+ KERNEL ...] [-- ID ...]\n");
		return 2;
	}
	for (int i = 1; i < argc;) {
		struct point p;
		int used = point_read(argc - i, argv + i, &p);
		if (used < 0)
			return 2;
		int ok = count_point(&p) == 0;
		printf("%s %s\n", ok ? COUNT_HARNESS_COUNTED : COUNT_HARNESS_FAILED,
		       p.id); /* the driver's progress */
		fflush(stdout);
		rc |= !ok;
		i += used + (i + used < argc); /* past the "--" */
	}
	return rc;
}
