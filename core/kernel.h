/* kernel: what a kernel file gives rot: its parameters, init/run/dispose, the buffers it
 * touches (for cache flushing) and its operation and byte counts as functions of its parameters. */
#ifndef ROT_KERNEL_H
#define ROT_KERNEL_H

#include <stddef.h>

#ifdef __cplusplus /* GPU kernels are CUDA C++ */
extern "C" {
#endif

struct rot_args;

/* A declared parameter, with its default. The list ends with {NULL}. */
struct rot_param {
	const char *name;
	double def;
	const char *desc;
};

struct rot_buffer {
	void *p;
	size_t bytes;
};

/* A quantity a kernel measured itself (cycles from the GPU's own clock, say). */
struct rot_value {
	const char *name; /* a C identifier */
	double value;
};

struct rot_kernel {
	const char *name;
	const char *description;
	const struct rot_param *params;
	/* Allocates and initializes; returns the state, or NULL with errno set. */
	void *(*init)(const struct rot_args *a);
	/* One invocation: the thing being measured. */
	void (*run)(void *state);
	/* Optional: thread `thread` of `nthreads` does its share of one invocation (e.g. its
	 * slice of the arrays). Needed for a workload with more than one thread. */
	void (*run_thread)(void *state, int thread, int nthreads);
	void (*dispose)(void *state);
	/* Fills out with up to max buffers the kernel touches; returns how many. */
	int (*buffers)(void *state, struct rot_buffer *out, int max);
	/* Declared counts for one invocation: floating-point operations and bytes moved
	 * between core and memory (STREAM convention: each array element read or written once). */
	double (*flops)(const struct rot_args *a);
	double (*bytes)(const struct rot_args *a);
	/* GPU kernels (.cu files): run() only launches (asynchronously); the core times the
	 * launches with CUDA events, flushes L2 for cold runs, and profiles with CUPTI. */
	int gpu;
	/* Optional: restores the inputs, so each profiling pass sees what the first one saw. */
	void (*reset)(void *state);
	/* Optional: after the timed runs, fills out with up to max quantities the kernel measured
	 * itself; returns how many. Scripts read them as row.report.NAME. */
	int (*report)(void *state, struct rot_value *out, int max);
	/* Optional: how many of the declared bytes are written (the rest are read). A kernel that
	 * reads only (0) or writes only (all of them) is bounded by the read or write ceilings of
	 * `rot measure peaks`; any other mix, or none declared, by triad's. (This member and the
	 * next come last, so kernels that initialize this struct by position, as the .cu files do,
	 * need not name them.) */
	double (*written)(const struct rot_args *a);
	/* Optional: 0 when the parameters are ones init accepts, else -1 after saying why on
	 * stderr, as init would; nothing allocated. `rot build` asks it (rot-core --check), so a
	 * bad parameter shows before anything is measured; rot-core --declared refuses then too. */
	int (*check)(const struct rot_args *a);
};

/* Value of a declared parameter: the measurement's, else the declared default. */
double rot_arg(const struct rot_args *a, const char *name);

void rot_kernel_register(const struct rot_kernel *k);

/* Put after the kernel's definition: registers it before main runs, no central list.
 * (Two levels, so k may itself be a macro that names the kernel.) */
#define ROT_KERNEL(k) ROT_KERNEL_(k)
#define ROT_KERNEL_(k)                                                                             \
	__attribute__((constructor)) static void rot_register_##k(void)                            \
	{                                                                                          \
		rot_kernel_register(&k);                                                           \
	}

/* For shared kernel bodies that get their name from a macro (kernels/cpu/stream.h):
 * ROT_KSYM(name) is the kernel's variable, ROT_KSTR(name) its name as a string. */
#define ROT_KSYM_(n) n##_kernel
#define ROT_KSYM(n) ROT_KSYM_(n)
#define ROT_KSTR_(n) #n
#define ROT_KSTR(n) ROT_KSTR_(n)

/* Allocation aligned to a 4 KiB page, zeroed; NULL with errno on failure. Release it with free()
 * (core/pool.c keeps its pages for the next point of a shared child). */
void *rot_alloc(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
