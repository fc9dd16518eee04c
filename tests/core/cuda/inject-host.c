/* inject-host: loads rot's CUDA library as CUDA would (its InitializeInjection), in a process
 * with an arena as the core makes it but without the recorder, for tests/e2e/cuda-app.t: what
 * the library does before CUPTI needs a device. Prints the arena's processes and writers.
 * inject-host LIBRARY */
#include "markers/arena.h"

#include <dlfcn.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd = memfd_create("rot-arena", 0);
	if (argc != 2 || fd < 0 || ftruncate(fd, ROT_ARENA_BYTES) < 0)
		return 2;
	struct rot_arena *a =
	    mmap(NULL, ROT_ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		return 2;
	a->magic = ROT_ARENA_MAGIC;
	a->version = ROT_ARENA_VERSION;
	a->bytes = ROT_ARENA_BYTES;
	a->attached = 1;
	char v[16];
	snprintf(v, sizeof v, "%d", fd);
	setenv(ROT_ARENA_ENV_FD, v, 1);
	void *lib = dlopen(argv[1], RTLD_NOW);
	int (*init)(void) = NULL;
	if (lib)
		*(void **)&init = dlsym(lib, "InitializeInjection");
	if (!init) {
		fprintf(stderr, "inject-host: %s\n", dlerror());
		return 2;
	}
	init();
	printf("processes %u, this one's %s, writers %u\n", a->nprocs,
	       a->nprocs && a->procs[0].pid == (int32_t)getpid() ? "entered" : "absent",
	       a->nthreads);
	return 0;
}
