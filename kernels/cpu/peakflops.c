/* peakflops: independent FMA (or add, or mul) chains in registers, for the compute ceilings.
 * The vector width is a macro; build it with the matching -m flags (-mavx512f -mfma, ...). */
#include "macro/PEAK_CHAINS.h"
#include "macro/PEAK_LANES.h"
#include "macro/PEAK_OP.h"
#include "macro/PEAK_TYPE.h"
#include "macro/ROT_TALLY.h"

#ifndef PEAK_TYPE
#define PEAK_TYPE double
#endif
#ifndef PEAK_LANES
#define PEAK_LANES 1
#endif
#ifndef PEAK_OP
#define PEAK_OP 0
#endif
#ifndef PEAK_CHAINS
#define PEAK_CHAINS 12
#endif
#define CHAINS_NAME peakflops
#define CHAINS_DESCRIPTION "independent FMA/add/mul chains in registers"
#include "chains.h"
