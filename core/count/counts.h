/* counts: what rot's counting tool (rotcount, a Valgrind tool) counts per thread and region,
 * declared once: the floating-point classes, the bytes of loads and stores, the simulated caches'
 * traffic, the client requests a program's markers and rot-count's kernels send it, and the
 * words of the tool's output and of rot-count's (the driver reads them: rot.protocol.count). */
#ifndef ROT_COUNT_COUNTS_H
#define ROT_COUNT_COUNTS_H

/* X(ID, name, meaning): one 64-bit counter each, in the output's order. Flops count an FMA as
 * two; a class is the precision and the width of the instruction that did them. */
#define COUNT_FLOPS(X)                                                                             \
	X(FP32_SCALAR, "fp32_scalar", "fp32 flops of scalar instructions")                         \
	X(FP32_128, "fp32_128", "fp32 flops of 128-bit vector instructions")                       \
	X(FP32_256, "fp32_256", "fp32 flops of 256-bit vector instructions")                       \
	X(FP64_SCALAR, "fp64_scalar", "fp64 flops of scalar instructions")                         \
	X(FP64_128, "fp64_128", "fp64 flops of 128-bit vector instructions")                       \
	X(FP64_256, "fp64_256", "fp64 flops of 256-bit vector instructions")

/* Of each class's flops, those of fused multiply-adds and those of adds and subtractions, in
 * COUNT_FLOPS' order (the rest: multiplies, divisions, square roots, minima, maxima). */
#define COUNT_SHARES(X)                                                                            \
	X(FP32_SCALAR_FMA, "fp32_scalar_fma", "of the fp32 scalar flops, FMAs'")                   \
	X(FP32_128_FMA, "fp32_128_fma", "of the fp32 128-bit flops, FMAs'")                        \
	X(FP32_256_FMA, "fp32_256_fma", "of the fp32 256-bit flops, FMAs'")                        \
	X(FP64_SCALAR_FMA, "fp64_scalar_fma", "of the fp64 scalar flops, FMAs'")                   \
	X(FP64_128_FMA, "fp64_128_fma", "of the fp64 128-bit flops, FMAs'")                        \
	X(FP64_256_FMA, "fp64_256_fma", "of the fp64 256-bit flops, FMAs'")                        \
	X(FP32_SCALAR_ADD, "fp32_scalar_add", "of the fp32 scalar flops, adds' and subs'")         \
	X(FP32_128_ADD, "fp32_128_add", "of the fp32 128-bit flops, adds' and subs'")              \
	X(FP32_256_ADD, "fp32_256_add", "of the fp32 256-bit flops, adds' and subs'")              \
	X(FP64_SCALAR_ADD, "fp64_scalar_add", "of the fp64 scalar flops, adds' and subs'")         \
	X(FP64_128_ADD, "fp64_128_add", "of the fp64 128-bit flops, adds' and subs'")              \
	X(FP64_256_ADD, "fp64_256_add", "of the fp64 256-bit flops, adds' and subs'")

#define COUNT_BYTES(X)                                                                             \
	X(LOADED, "loaded", "bytes the instructions loaded")                                       \
	X(STORED, "stored", "bytes the instructions stored")

/* The simulated hierarchy's traffic across boundary i (level i+1 and the one below it, the
 * last one memory): lines filled into level i+1, dirty lines written back from it. */
#define COUNT_LEVELS 4
#define COUNT_TRAFFIC(X)                                                                           \
	X(FILL1, "fill1", "bytes filled into L1 from below")                                       \
	X(EVICT1, "evict1", "dirty bytes L1 wrote back below")                                     \
	X(FILL2, "fill2", "bytes filled into L2 from below")                                       \
	X(EVICT2, "evict2", "dirty bytes L2 wrote back below")                                     \
	X(FILL3, "fill3", "bytes filled into L3 from below")                                       \
	X(EVICT3, "evict3", "dirty bytes L3 wrote back below")                                     \
	X(FILL4, "fill4", "bytes filled into L4 from below")                                       \
	X(EVICT4, "evict4", "dirty bytes L4 wrote back below")

enum count_id {
#define X(id, name, meaning) COUNT_##id,
	COUNT_FLOPS(X) COUNT_SHARES(X) COUNT_BYTES(X) COUNT_TRAFFIC(X)
#undef X
	    COUNT_N
};

/* The client requests (valgrind.h's VG_USERREQ_TOOL_BASE('R','C') on): a region named by a
 * NUL-terminated string begins or ends in the calling thread; FLUSH empties the simulated
 * caches (a cold run's start). */
#define COUNT_REQUEST_BASE (((unsigned)'R' & 0xff) << 24 | ((unsigned)'C' & 0xff) << 16)
enum count_request {
	COUNT_REQUEST_BEGIN = COUNT_REQUEST_BASE,
	COUNT_REQUEST_END,
	COUNT_REQUEST_FLUSH,
};

/* The first line of the tool's output file, and its version. */
#define COUNT_OUTPUT_MAGIC "rotcount 1"
#define COUNT_NAME_MAX 128 /* bytes of a region's name, its NUL included */

/*
 * The tool's output file (--rot-out=FILE; a process the program forks writes FILE.PID): its
 * first line COUNT_OUTPUT_MAGIC, then one record a line, its word first. COUNTS is " NAME=N"
 * for every counter above, in their order; NAME and PATH are %XX-escaped. A reader skips a
 * word it does not know. X(ID, word, syntax, meaning).
 */
#define COUNT_RECORDS(X)                                                                           \
	X(LINE, "line", "line BYTES", "the simulated caches' line")                                \
	X(LEVEL, "level", "level I size=BYTES assoc=WAYS", "simulated level I, from 1")            \
	X(FORKS, "forks", "forks n=N", "processes the program forked, each counted in FILE.PID")   \
	X(MISUSES, "misuses", "misuses N",                                                         \
	  "ends that ended no open region, names too long, regions past the tool's room")          \
	X(PROGRAM, "program", "program threads=N COUNTS", "the whole program's counts")            \
	X(REGION, "region", "region name=NAME calls=N threads=N whole_process=0|1 COUNTS",         \
	  "a marked region's counts (whole_process 1: one thread entered it, the process's)")      \
	X(LOOPS, "loops", "loops n=N",                                                             \
	  "--rot-loops=yes: the loops found; objects, loops, functions, unknown code and each "    \
	  "region's part of them follow")                                                          \
	X(OBJECT, "object", "object id=K path=PATH", "a file whose code ran")                      \
	X(LOOP, "loop",                                                                            \
	  "loop id=I obj=K head=0xHEX end=0xHEX latches=0xHEX,... depth=D parent=I entries=N "     \
	  "iterations=N back=N instrs=N COUNTS",                                                   \
	  "a loop: its range in its object, its nest, how often it ran, its instructions' runs, "  \
	  "its counts")                                                                            \
	X(FUNCTION, "function", "function obj=K off=0xHEX named=0|1 instrs=N COUNTS",              \
	  "a function's code outside its loops")                                                   \
	X(UNKNOWN, "unknown", "unknown instrs=N COUNTS", "code in no file")                        \
	X(REGIONLOOP, "regionloop",                                                                \
	  "regionloop region=NAME id=I entries=N iterations=N back=N instrs=N COUNTS",             \
	  "loop I's part run while region NAME was its thread's innermost open one (or, for a "    \
	  "thread in none, the one last begun in another thread and open; whole_process 0: none)") \
	X(REGIONFUNCTION, "regionfunction",                                                        \
	  "regionfunction region=NAME obj=K off=0xHEX named=0|1 instrs=N COUNTS",                  \
	  "a function's part outside its loops run in region NAME, as regionloop's")               \
	X(REGIONUNKNOWN, "regionunknown", "regionunknown region=NAME instrs=N COUNTS",             \
	  "unknown code's part run in region NAME, as regionloop's")

enum count_record {
#define X(id, word, syntax, meaning) COUNT_RECORD_##id,
	COUNT_RECORDS(X)
#undef X
	    COUNT_RECORD_N
};

/* A record kind's word. */
static inline const char *count_record_word(enum count_record r)
{
	static const char *const words[] = {
#define X(id, word, syntax, meaning) word,
	    COUNT_RECORDS(X)
#undef X
	};
	return words[r];
}

/* rot-count's words (harness.c): on stdout "counted ID" or "failed ID" as each point ends (the
 * driver's progress); on stderr "rot-count: point ID: WHY" where a point fails. */
#define COUNT_HARNESS_COUNTED "counted"
#define COUNT_HARNESS_FAILED "failed"
#define COUNT_HARNESS_POINT "rot-count: point"

#endif
