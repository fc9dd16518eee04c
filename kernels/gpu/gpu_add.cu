/* gpu_add: c = a + b on the GPU. The loop is in stream.cuh. */
#include "macro/GSTREAM_BLOCK.h"
#include "macro/GSTREAM_TYPE.h"

#define GSTREAM_NAME gpu_add
#define GSTREAM_DESCRIPTION "c = a + b"
#define GSTREAM_ACCESSES 3
#define GSTREAM_FLOPS 1
#define GSTREAM_OP(i) (c[i] = a[i] + b[i])
#include "stream.cuh"
