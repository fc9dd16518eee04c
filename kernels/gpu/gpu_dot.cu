/* gpu_dot: sum of a[i] * b[i] on the GPU (BabelStream's dot): warp shuffles, one atomic per
 * warp. The loop is in stream.cuh. */
#include "macro/GSTREAM_BLOCK.h"
#include "macro/GSTREAM_TYPE.h"

#define GSTREAM_NAME gpu_dot
#define GSTREAM_DESCRIPTION "sum of a*b"
#define GSTREAM_ACCESSES 2
#define GSTREAM_FLOPS 2
#define GSTREAM_DOT 1
#define GSTREAM_TERM(i) ((double)a[i] * (double)b[i])
#include "stream.cuh"
