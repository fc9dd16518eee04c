/* old-cupti: a CUPTI that says it is version 28 (CUDA 12.9 Update 1's), preloaded before the
 * real one by tests/e2e/cuda-app.t: rot's CUDA library, built with newer headers, refuses it. */
#include <stdint.h>

int cuptiGetVersion(uint32_t *version)
{
	*version = 28;
	return 0;
}
