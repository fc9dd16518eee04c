/* regadd: the thesis's ADD kernel: a constant added to several accumulators, all in
 * registers, scalar double; PEAK_CHAINS accumulators (default 4). */
#include "macro/PEAK_CHAINS.h"
#include "macro/ROT_TALLY.h"

#define PEAK_TYPE double
#define PEAK_LANES 1
#define PEAK_OP 1
#ifndef PEAK_CHAINS
#define PEAK_CHAINS 4
#endif
#define CHAINS_NAME regadd
#define CHAINS_DESCRIPTION "the thesis's ADD: scalar adds into several accumulators"
#include "chains.h"
