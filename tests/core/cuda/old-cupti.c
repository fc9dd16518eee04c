/* old-cupti: a CUPTI that says it is version 28 (CUDA 12.9 Update 1's), or the version
 * ROT_TEST_CUPTI_VERSION gives, preloaded before the real one by tests/e2e/cuda-app.t: rot's
 * CUDA library refuses a CUPTI of an older major release than its headers, and reads 13.0's.
 * With ROT_TEST_CUPTI_REENTER (the library's path), registering the activity callbacks calls
 * the library's InitializeInjection first, as a driver initialized from within CUPTI would. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

int cuptiGetVersion(uint32_t *version)
{
	const char *v = getenv("ROT_TEST_CUPTI_VERSION");
	*version = v ? (uint32_t)strtoul(v, NULL, 10) : 28;
	return 0;
}

int cuptiActivityRegisterCallbacks(void *requested, void *completed)
{
	const char *lib = getenv("ROT_TEST_CUPTI_REENTER");
	void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : NULL;
	int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
	if (init)
		init();
	int (*real)(void *, void *) =
	    (int (*)(void *, void *))dlsym(RTLD_NEXT, "cuptiActivityRegisterCallbacks");
	return real ? real(requested, completed) : 1;
}
