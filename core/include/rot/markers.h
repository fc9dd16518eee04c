/* rot/markers.h: marked regions of your own program, for rot (docs/applications.md, "Your own
 * program on the roofline"). Header only: nothing of rot is linked into your program.
 *
 *   #include <rot/markers.h>          (cc -I ROT/core/include ...)
 *   rot_region_begin("solve");        a named region begins in this thread (regions nest)
 *   rot_region_work(flops, bytes);    optional: the work of this call of the innermost region
 *   rot_region_end("solve");          it ends, in the thread that began it
 *
 * Outside rot every call does nothing: a load and a branch (the first call in each file looks
 * once for the environment variable ROT_MARKERS, which rot sets). Under rot (`rot profile`, or
 * an `app` point of a script) the first call finds rot's recorder, which rot loaded into the
 * program, and every call records: per region and thread, calls, time and counters.
 * -DROT_MARKERS_DISABLE compiles every call to nothing. On glibc before 2.34 link with -ldl. */
#ifndef ROT_MARKERS_H
#define ROT_MARKERS_H

#ifdef __cplusplus
extern "C" {
#endif

#define ROT_MARKERS_VERSION 1

/* What the recorder gives the markers (rot_markers_api(ROT_MARKERS_VERSION)). */
struct rot_markers_api {
	int version;
	void (*begin)(const char *name);
	void (*end)(const char *name);
	void (*work)(double flops, double bytes);
	void (*written)(double bytes);
	void (*working_set)(double bytes);
};

#ifdef ROT_MARKERS_DISABLE
static inline void rot_region_begin(const char *name)
{
	(void)name;
}
static inline void rot_region_end(const char *name)
{
	(void)name;
}
static inline void rot_region_work(double flops, double bytes)
{
	(void)flops;
	(void)bytes;
}
static inline void rot_region_written(double bytes)
{
	(void)bytes;
}
static inline void rot_region_working_set(double bytes)
{
	(void)bytes;
}
#else
#include <dlfcn.h>
#include <stdlib.h>

/* The recorder, found once per file (a race between threads finds the same one): NULL outside
 * rot, where ROT_MARKERS is unset or names no recorder of this version. */
static inline const struct rot_markers_api *rot_markers_api_(void)
{
	static const struct rot_markers_api *api;
	static int state; /* 0: not looked for yet, 1: none, 2: api */
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	if (__builtin_expect(s != 0, 1))
		return s == 2 ? api : (const struct rot_markers_api *)0;
	const char *path = getenv("ROT_MARKERS");
	const struct rot_markers_api *found = 0;
	if (path && *path) {
		void *lib = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
		typedef const struct rot_markers_api *(*get_api)(int);
		get_api get = 0;
		if (lib) /* POSIX's way to a function from dlsym, warning-free in ISO C */
			*(void **)(&get) = dlsym(lib, "rot_markers_api");
		found = get ? get(ROT_MARKERS_VERSION) : 0;
	}
	api = found;
	__atomic_store_n(&state, found ? 2 : 1, __ATOMIC_RELEASE);
	return found;
}

/* A region named name begins in the calling thread (name: a string of at most 127 bytes; the
 * same name anywhere in the program is the same region). */
static inline void rot_region_begin(const char *name)
{
	const struct rot_markers_api *a = rot_markers_api_();
	if (a)
		a->begin(name);
}

/* The region ends: the innermost one open in this thread, which must have this name. */
static inline void rot_region_end(const char *name)
{
	const struct rot_markers_api *a = rot_markers_api_();
	if (a)
		a->end(name);
}

/* The work of the current call of this thread's innermost open region: floating-point
 * operations and bytes moved between core and memory (STREAM's convention: each element read
 * or written once). Calls add up. */
static inline void rot_region_work(double flops, double bytes)
{
	const struct rot_markers_api *a = rot_markers_api_();
	if (a)
		a->work(flops, bytes);
}

/* How many of those bytes are written (a read-only region says 0): its bound is then the read
 * or write ceiling where it only reads or only writes. */
static inline void rot_region_written(double bytes)
{
	const struct rot_markers_api *a = rot_markers_api_();
	if (a)
		a->written(bytes);
}

/* The bytes the region works on: its bound is the level that holds them (without it, DRAM). */
static inline void rot_region_working_set(double bytes)
{
	const struct rot_markers_api *a = rot_markers_api_();
	if (a)
		a->working_set(bytes);
}
#endif

#ifdef __cplusplus
}
#endif

#endif
