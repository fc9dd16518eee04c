/* bestk: the best-k stop rule: repeat until the k fastest runs lie within a relative
 * epsilon of each other, or a maximum number of runs is reached. */
#include "bestk.h"

#include <stdlib.h>

double bestk_spread(const double *t, size_t n, int k)
{
	double best[64];
	if (k < 1 || (size_t)k > n || k > 64)
		return -1;
	int m = 0; /* best[0..m) sorted ascending, the m smallest seen */
	for (size_t i = 0; i < n; i++) {
		if (m == k && t[i] >= best[k - 1])
			continue;
		int j = m < k ? m++ : k - 1;
		while (j > 0 && best[j - 1] > t[i]) {
			best[j] = best[j - 1];
			j--;
		}
		best[j] = t[i];
	}
	return best[0] > 0 ? (best[k - 1] - best[0]) / best[0] : 0;
}

int bestk_converged(const struct bestk *r, const double *t, size_t n)
{
	if ((int)n < r->min_runs)
		return 0;
	double s = bestk_spread(t, n, r->k);
	return s >= 0 && s <= r->epsilon;
}
