/* sum: s += a[i] (read only), eight vector partial sums.
 * Element type by macro; the loop is in stream.h. */
#include "macro/ROT_TALLY.h"
#include "macro/STREAM_NT.h"
#include "macro/STREAM_TYPE.h"
#include "macro/STREAM_UNROLL.h"

#define STREAM_NAME sum
#define STREAM_DESCRIPTION "s += a[i] (read only)"
#define STREAM_SUM 1
#define STREAM_READS_A 1
#define STREAM_READS_B 0
#define STREAM_READS_C 0
#define STREAM_FLOPS 1
#define STREAM_EXPR(a, b, c) (a)
#include "stream.h"
