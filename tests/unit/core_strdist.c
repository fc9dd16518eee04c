/* Unit tests for core/strdist: the one edit distance of rot (optimal string alignment,
 * case-insensitive, any length), as the driver's suggestions and CUPTI's metric hints use it.
 * judges no time */
#include "strdist.h"
#include "tap.h"

#include <stdlib.h>

int main(void)
{
	ok(strdist_distance("runs", "runs") == 0, "equal names: 0");
	ok(strdist_distance("RunS", "runs") == 0, "case does not count");
	ok(strdist_distance("rnus", "runs") == 1, "a swap of adjacent letters is one edit");
	ok(strdist_distance("kitten", "sitting") == 3,
	   "kitten -> sitting: 3 (two substitutions, one insertion)");
	ok(strdist_distance("", "abc") == 3 && strdist_distance("abc", "") == 3,
	   "from or to nothing: the length");
	ok(strdist_distance("ca", "abc") == 3,
	   "optimal string alignment: no edit of a swapped pair (ca -> abc is 3, not Damerau's 2)");
	ok(strdist_distance("lts__t_bytez", "lts__t_bytes") == 1 &&
	       strdist_distance("lts__t_bytez", "lts__t_sectors") > 1,
	   "a metric's typo is nearer the metric than its neighbour");
	char a[301], b[301];
	memset(a, 'x', 300);
	memset(b, 'x', 300);
	a[300] = b[300] = '\0';
	b[150] = 'y';
	ok(strdist_distance(a, b) == 1, "no length limit: one edit in 300 letters is 1");
	return done_testing();
}
