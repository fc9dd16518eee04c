/* gpu_read: sum of a[i] on the GPU (read only). The loop is in stream.cuh. */
#include "macro/GSTREAM_BLOCK.h"
#include "macro/GSTREAM_TYPE.h"

#define GSTREAM_NAME gpu_read
#define GSTREAM_DESCRIPTION "sum of a (read only)"
#define GSTREAM_ACCESSES 1
#define GSTREAM_FLOPS 1
#define GSTREAM_DOT 1
#define GSTREAM_TERM(i) ((double)a[i])
#include "stream.cuh"
