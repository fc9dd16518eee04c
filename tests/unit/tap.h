/* tap: a minimal TAP producer for the C unit tests (run by prove).
 * ok(cond, name) prints one test line; done_testing() prints the plan and sets the exit code. */
#ifndef ROT_TAP_H
#define ROT_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...)                                                                              \
	do {                                                                                       \
		int ok_ = !!(cond);                                                                \
		tap_n++;                                                                           \
		if (!ok_)                                                                          \
			tap_failed++;                                                              \
		printf("%sok %d - ", ok_ ? "" : "not ", tap_n);                                    \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
		if (!ok_)                                                                          \
			printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);            \
	} while (0)

#define is_str(got, want, ...)                                                                     \
	do {                                                                                       \
		const char *g_ = (got), *w_ = (want);                                              \
		ok(g_ && w_ && strcmp(g_, w_) == 0, __VA_ARGS__);                                  \
		if (!(g_ && w_ && strcmp(g_, w_) == 0))                                            \
			printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)");  \
	} while (0)

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
