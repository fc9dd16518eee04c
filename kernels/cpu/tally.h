/* tally: instrumented counting for tests. With the macro ROT_TALLY=1 a kernel adds the flops
 * and bytes of the work it actually did (and, with ROT_TALLY_WRITTEN, the bytes of it written),
 * at the place it does it; the core reports the sums beside the declared counts, so tests can
 * check one against the other. */
#ifndef ROT_TALLY_H
#define ROT_TALLY_H

#include "macro/ROT_TALLY.h"

#if defined(ROT_TALLY) && ROT_TALLY
extern double rot_tally_flops, rot_tally_bytes, rot_tally_written;
#define ROT_TALLY(f, b) (rot_tally_flops += (f), rot_tally_bytes += (b))
#define ROT_TALLY_WRITTEN(w) (rot_tally_written += (w))
#else
#define ROT_TALLY(f, b) ((void)0)
#define ROT_TALLY_WRITTEN(w) ((void)0)
#endif

#endif
