/* timer: the time measurers: CLOCK_MONOTONIC_RAW in nanoseconds and the TSC read with
 * fences, so the timed region neither leaks out nor lets the kernel's work leak in. */
#ifndef ROT_TIMER_H
#define ROT_TIMER_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t timer_tsc_start(void)
{
	_mm_mfence();
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
}
static inline uint64_t timer_tsc_stop(void)
{
	unsigned aux;
	uint64_t t = __rdtscp(&aux);
	_mm_lfence();
	return t;
}
#define TIMER_HAVE_TSC 1
#else
static inline uint64_t timer_tsc_start(void)
{
	return 0;
}
static inline uint64_t timer_tsc_stop(void)
{
	return 0;
}
#define TIMER_HAVE_TSC 0
#endif

static inline uint64_t timer_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The cost of the timing itself: the smallest of n empty timed regions, in nanoseconds and
 * TSC cycles. */
static inline void timer_overhead(int n, uint64_t *ns, uint64_t *tsc)
{
	*ns = *tsc = UINT64_MAX;
	for (int i = 0; i < n; i++) {
		uint64_t n0 = timer_ns(), c0 = timer_tsc_start();
		uint64_t c1 = timer_tsc_stop(), n1 = timer_ns();
		if (n1 - n0 < *ns)
			*ns = n1 - n0;
		if (c1 - c0 < *tsc)
			*tsc = c1 - c0;
	}
}

#endif
