/* gpu_triad: a = b + s*c on the GPU. The loop is in stream.cuh. */
#include "macro/GSTREAM_BLOCK.h"
#include "macro/GSTREAM_TYPE.h"

#define GSTREAM_NAME gpu_triad
#define GSTREAM_DESCRIPTION "a = b + s*c"
#define GSTREAM_ACCESSES 3
#define GSTREAM_FLOPS 2
#define GSTREAM_OP(i) (a[i] = b[i] + s * c[i])
#include "stream.cuh"
