/* copier: a busy neighbour for rot's tests: copies a buffer of MIB MiB back and forth, a core's
 * worth of memory traffic, for SECONDS, then exits. Usage: copier MIB SECONDS. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	size_t n = (size_t)(argc > 1 ? atof(argv[1]) : 64) << 20;
	double end = now() + (argc > 2 ? atof(argv[2]) : 10);
	char *a = malloc(n), *b = malloc(n);
	if (!a || !b)
		return 1;
	memset(a, 1, n);
	memset(b, 2, n);
	while (now() < end) {
		memcpy(b, a, n);
		memcpy(a, b, n);
	}
	return a[n / 2] == 3; /* (the copies are used: never optimized away) */
}
