/* strdist: the edit distance between names, for "did you mean" suggestions: the driver's
 * (config keys, kernels, ...) and the core's (CUPTI metric names). */
#include "strdist.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int strdist_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), w = lb + 1;
	int *d = malloc((la + 1) * w * sizeof *d), r = 1 << 20;
	if (!d)
		goto out;
	for (size_t i = 0; i <= la; i++)
		d[i * w] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]),
			    cb = tolower((unsigned char)b[j - 1]);
			int best = d[(i - 1) * w + j - 1] + (ca != cb);
			if (d[(i - 1) * w + j] + 1 < best)
				best = d[(i - 1) * w + j] + 1;
			if (d[i * w + j - 1] + 1 < best)
				best = d[i * w + j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb &&
			    d[(i - 2) * w + j - 2] + 1 < best)
				best = d[(i - 2) * w + j - 2] + 1;
			d[i * w + j] = best;
		}
	}
	r = d[la * w + lb];
out:
	free(d);
	return r;
}
