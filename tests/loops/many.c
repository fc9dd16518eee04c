/* many: sixteen hot loops of about equal weight, each in a function of its own, no markers: a loop
 * survey with more rows than a roofline's key can name (tests/e2e/survey.t). Usage: many REPS.
 * Each function runs REPS passes of a multiply-add over 4096 doubles (in L1 and L2). */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
static double a[N], b[N], c[N];

#define PASS(k)                                                                                    \
	__attribute__((noinline)) static double f##k(int reps)                                     \
	{                                                                                          \
		double s = 0;                                                                      \
		for (int r = 0; r < reps; r++)                                                     \
			for (int i = 0; i < N; i++) {                                              \
				a[i] = b[i] * (k + 2.0) + c[i];                                    \
				s += a[i];                                                         \
			}                                                                          \
		return s;                                                                          \
	}
PASS(0)
PASS(1)
PASS(2)
PASS(3)
PASS(4)
PASS(5)
PASS(6)
PASS(7)
PASS(8)
PASS(9)
PASS(10)
PASS(11)
PASS(12)
PASS(13)
PASS(14)
PASS(15)

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 200;
	for (int i = 0; i < N; i++)
		b[i] = i, c[i] = 1;
	double s = f0(reps) + f1(reps) + f2(reps) + f3(reps) + f4(reps) + f5(reps) + f6(reps) +
		   f7(reps) + f8(reps) + f9(reps) + f10(reps) + f11(reps) + f12(reps) + f13(reps) +
		   f14(reps) + f15(reps);
	printf("%g\n", s);
	return 0;
}
