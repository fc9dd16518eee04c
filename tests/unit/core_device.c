/* Unit tests for core/measure over core/device (CPU variant, no tracer): a CPU point timed run by
 * run with its flush rules, a GPU point refused by a core built without CUDA, a failed init.
 * judges no time */
#include "device.h"
#include "tap.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>

static long calls;
static void *init(const struct rot_args *a)
{
	return &calls;
}
static void run(void *s)
{
	calls++;
}
static const struct rot_kernel count = {.name = "count", .init = init, .run = run};
ROT_KERNEL(count)
static const struct rot_kernel cuda = {.name = "cuda", .init = init, .run = run, .gpu = 1};
ROT_KERNEL(cuda)
static void *no_init(const struct rot_args *a)
{
	errno = ENOMEM;
	return NULL;
}
static const struct rot_kernel bad = {.name = "bad", .init = no_init, .run = run};
ROT_KERNEL(bad)

/* What measure_point writes for a point of kernel k (threads, rule: one or none); *rc its
 * verdict. */
static char *measured(const struct rot_kernel *k, int threads, const char *rule, int *rc)
{
	static struct point p;
	char *text = NULL, err[256];
	size_t len = 0;
	memset(&p, 0, sizeof p);
	p.nw = 1;
	p.w[0] = (struct workload){.args = {.kernel = k}, .threads = threads};
	p.rule = (struct bestk){.k = 3, .epsilon = 0.02, .min_runs = 3, .max_runs = 3};
	if (rule && rules_parse(rule, &p.rules[p.nrules++], err, sizeof err) < 0)
		return strdup(err);
	FILE *out = open_memstream(&text, &len);
	*rc = measure_point(&p, out);
	fclose(out);
	return text;
}

static int count_runs(const char *text)
{
	int n = 0;
	for (const char *l = text; (l = strstr(l, "\nrun ns=")); l++)
		n++;
	return n;
}

int main(void)
{
	int rc;
	/* no tracer here: the child's event signals go nowhere; a machine with a 30 MiB last
	 * level (this VM's reports 508 MiB: a flush buffer of 1 GiB) */
	signal(ROT_EVENT_SIGNAL, SIG_IGN);
	setenv("HWLOC_XMLFILE", "tests/fixtures/topology/ordinary.xml", 1);
	char *t = measured(&count, 1, "runStart flush every=2", &rc);
	ok(rc == 0 && strstr(t, "meta complete 1\n"), "a CPU point is measured");
	ok(count_runs(t) == 3, "three timed runs (maxRuns 3), one run line each");
	const char *f = strstr(t, "meta ruleFlushes ");
	ok(f && atoi(f + 17) == 2, "the CPU flushes before runs 0 and 2 for 'every=2' (%d)",
	   f ? atoi(f + 17) : -1);
	ok(strstr(t, "meta flushBytes 62914560\nmeta flushSize topology\n") &&
	       strstr(t, "meta cacheMode warm\n") && strstr(t, "meta threads 1\n"),
	   "its setup: the eviction buffer a flush rule needs (twice the last level), warm, one "
	   "thread");
	ok(calls >= 3, "the kernel ran (%ld calls)", calls);
	free(t);
	t = measured(&cuda, 1, NULL, &rc);
	ok(rc < 0, "a GPU point in a core built without CUDA fails");
	is_str(t, "error this core was built without CUDA\nmeta failure input\n",
	       "refused as input, with today's words");
	free(t);
	t = measured(&cuda, 2, NULL, &rc);
	is_str(t,
	       "error a GPU kernel runs as the only workload, with one host thread\n"
	       "meta failure input\n",
	       "a GPU point with two host threads is refused first");
	free(t);
	t = measured(&bad, 1, NULL, &rc);
	ok(rc < 0, "a failed init fails the point");
	is_str(t,
	       "error kernel 'bad' failed to initialize: Cannot allocate memory\nmeta failure "
	       "kernel\n",
	       "as a kernel failure, with its errno");
	free(t);
	char *chip[] = {"rot-core", "--chip", NULL};
	ok(device_command(2, chip, &rc) == 0, "no --chip without CUDA");
	return done_testing();
}
