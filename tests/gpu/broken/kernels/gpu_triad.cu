/* broken gpu_triad (tests/ptx.t): a float triad with an unsuffixed 2.0, so the multiply is
 * done in double precision: the precision leak the compiled-code checks must catch. */
#include "macro/GSTREAM_TYPE.h" /* float, as the test sets it */
#define GSTREAM_BLOCK 256
#define GSTREAM_NAME gpu_triad
#define GSTREAM_DESCRIPTION "a = b + 2.0*c (leaks into f64)"
#define GSTREAM_ACCESSES 3
#define GSTREAM_FLOPS 2
#define GSTREAM_OP(i) (a[i] = b[i] + 2.0 * c[i])
#include "../../../../kernels/gpu/stream.cuh"
