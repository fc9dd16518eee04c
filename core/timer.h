/* timer: the time measurers: CLOCK_MONOTONIC_RAW in nanoseconds and the TSC read with
 * fences, so the timed region neither leaks out nor lets the kernel's work leak in; and the
 * clocks a tracer waits by (a timeout's timerfd, seconds since a start). */
#ifndef ROT_TIMER_H
#define ROT_TIMER_H

#include <stdint.h>
#include <sys/timerfd.h>
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

/* A timerfd that fires after seconds (fractions count; 0 or less: never), or -1. */
static inline int timer_fd(double seconds)
{
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (tfd >= 0 && seconds > 0) {
		struct itimerspec its = {0};
		its.it_value.tv_sec = (time_t)seconds;
		its.it_value.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9);
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1;
		timerfd_settime(tfd, 0, &its, NULL);
	}
	return tfd;
}

/* Seconds since t0, on the monotonic clock. */
static inline double timer_since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

#endif
