/* moody: does what its parameter `act` says in its first run: 0 nothing odd, 1 a segfault,
 * 2 hangs, 3 forks a child that outlives it, 4 exits with status 3, 5 starts a thread that
 * spins for ever, 6 one that sleeps for ever, 7 kills its parent (the measuring core);
 * reports its process. */
#include "kernel.h"
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static const struct rot_param params[] = {
    {"n", 1000, "work units"}, {"act", 0, "what to do"}, {NULL, 0, NULL}};

struct moody {
	long n;
	int act, runs;
};

static int inits; /* points initialized in this process */

static void *init(const struct rot_args *a)
{
	struct moody *m = calloc(1, sizeof *m);
	if (m) {
		m->n = (long)rot_arg(a, "n");
		m->act = (int)rot_arg(a, "act");
		inits++;
	}
	return m;
}

static void *spin(void *arg)
{
	volatile long x = 0;
	(void)arg;
	for (;;)
		x++;
	return NULL;
}

static void *sleep_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void run(void *s)
{
	struct moody *m = s;
	volatile double x = 1.0;
	if (!m->runs++) {
		if (m->act == 1)
			*(volatile int *)16 = 1;
		if (m->act == 2)
			for (;;)
				pause();
		if (m->act == 3 && fork() == 0)
			for (;;)
				pause();
		if (m->act == 4)
			exit(3);
		if (m->act == 7)
			kill(getppid(), SIGKILL);
		pthread_t t;
		if (m->act == 5 || m->act == 6)
			pthread_create(&t, NULL, m->act == 5 ? spin : sleep_forever, NULL);
	}
	for (long i = 0; i < m->n; i++)
		x = x * 0.9999999 + 1e-9;
}

static int report(void *s, struct rot_value *out, int max)
{
	(void)s;
	if (max < 2)
		return 0;
	out[0] = (struct rot_value){"pid", (double)getpid()};
	out[1] = (struct rot_value){"inits", (double)inits};
	return 2;
}

static double one(const struct rot_args *a)
{
	return rot_arg(a, "n");
}

static void dispose(void *s)
{
	free(s);
}

static const struct rot_kernel moody = {.name = "moody",
					.params = params,
					.init = init,
					.run = run,
					.dispose = dispose,
					.flops = one,
					.bytes = one,
					.report = report};
ROT_KERNEL(moody)
