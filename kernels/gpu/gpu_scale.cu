/* gpu_scale: b = s*c on the GPU. The loop is in stream.cuh. */
#include "macro/GSTREAM_BLOCK.h"
#include "macro/GSTREAM_TYPE.h"

#define GSTREAM_NAME gpu_scale
#define GSTREAM_DESCRIPTION "b = s*c"
#define GSTREAM_ACCESSES 2
#define GSTREAM_FLOPS 1
#define GSTREAM_OP(i) (b[i] = s * c[i])
#include "stream.cuh"
