/* fill: a[i] = s (write only).
 * Element type, non-temporal stores and unrolling by macro; the loop is in stream.h. */
#include "macro/ROT_TALLY.h"
#include "macro/STREAM_NT.h"
#include "macro/STREAM_TYPE.h"
#include "macro/STREAM_UNROLL.h"

#define STREAM_NAME fill
#define STREAM_DESCRIPTION "a[i] = s (write only)"
#define STREAM_READS_A 0
#define STREAM_READS_B 0
#define STREAM_READS_C 0
#define STREAM_FLOPS 0
#define STREAM_EXPR(a, b, c) (S)
#include "stream.h"
