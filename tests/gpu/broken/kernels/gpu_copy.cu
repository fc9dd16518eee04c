/* broken gpu_copy (tests/ptx.t): computes each element and never stores it, so the compiler
 * drops the loop: the eliminated work the compiled-code checks must catch. */
#define GSTREAM_TYPE double
#define GSTREAM_BLOCK 256
#define GSTREAM_NAME gpu_copy
#define GSTREAM_DESCRIPTION "a = b, never stored"
#define GSTREAM_ACCESSES 2
#define GSTREAM_FLOPS 0
#define GSTREAM_OP(i) ((void)(b[i] + c[i]))
#include "../../../../kernels/gpu/stream.cuh"
