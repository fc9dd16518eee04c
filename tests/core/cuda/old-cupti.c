/* old-cupti: a CUPTI that says it is version 28 (CUDA 12.9 Update 1's), or the version
 * ROT_TEST_CUPTI_VERSION gives, preloaded before the real one by tests/e2e/cuda-app.t: rot's
 * CUDA library refuses a CUPTI of an older major release than its headers, and reads 13.0's. */
#include <stdint.h>
#include <stdlib.h>

int cuptiGetVersion(uint32_t *version)
{
	const char *v = getenv("ROT_TEST_CUPTI_VERSION");
	*version = v ? (uint32_t)strtoul(v, NULL, 10) : 28;
	return 0;
}
