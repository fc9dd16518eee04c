/* gpu_copy: c = a on the GPU. The loop is in stream.cuh. */
#include "macro/GSTREAM_BLOCK.h"
#include "macro/GSTREAM_TYPE.h"

#define GSTREAM_NAME gpu_copy
#define GSTREAM_DESCRIPTION "c = a"
#define GSTREAM_ACCESSES 2
#define GSTREAM_FLOPS 0
#define GSTREAM_OP(i) (c[i] = a[i])
#include "stream.cuh"
