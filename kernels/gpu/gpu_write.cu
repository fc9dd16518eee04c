/* gpu_write: a = s (write only) on the GPU. The loop is in stream.cuh. */
#include "macro/GSTREAM_BLOCK.h"
#include "macro/GSTREAM_TYPE.h"

#define GSTREAM_NAME gpu_write
#define GSTREAM_DESCRIPTION "a = s (write only)"
#define GSTREAM_ACCESSES 1
#define GSTREAM_FLOPS 0
#define GSTREAM_OP(i) (a[i] = s)
#include "stream.cuh"
