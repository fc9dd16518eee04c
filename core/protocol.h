/* protocol: the driver–core protocol declared once: a point's input keys, the framing words,
 * the record kinds of a result, the rule vocabulary and the failure kinds (X-macro tables, the
 * result's keys in vocabulary.h); the core's writers of records in those words (protocol.c). */
#ifndef ROT_PROTOCOL_H
#define ROT_PROTOCOL_H

#include "vocabulary.h"

#include <stdio.h>

#define PROTOCOL_STR_(x) #x
#define PROTOCOL_STR(x) PROTOCOL_STR_(x) /* a limit's value as text */

/*
 * The core reads a batch of points (rot-core --batch FILE). Each point is framed as
 *
 *   point ID
 *   KEY VALUE...      one setting a line, keys from PROTOCOL_INPUT; blank and # lines ignored
 *   end
 *
 * and its result is written to stdout as soon as it is measured, framed as
 *
 *   begin ID
 *   RECORD...         one record a line, kinds from PROTOCOL_RECORDS
 *   end ID
 */
#define PROTOCOL_POINT "point" /* input: starts a point, followed by its ID */
#define PROTOCOL_END "end"     /* input: ends a point's settings; output: ends a result (+ ID) */
#define PROTOCOL_BEGIN "begin" /* output: starts a point's result, followed by its ID */

/* X(ID, key, syntax, meaning): the keys of a point's input, in the order the driver writes
 * them. A key may come more than once where its meaning says so (workload, param, counter,
 * gpumetric, rule); otherwise the last one counts. */
#define PROTOCOL_INPUT(X)                                                                          \
	X(WORKLOAD, "workload", "workload NAME [threads N] [pin CPU,CPU,...]",                     \
	  "a workload: a kernel of this core run by N threads (1..4096), thread i pinned to the "  \
	  "i-th CPU of the list (cyclically)")                                                     \
	X(KERNEL, "kernel", "kernel NAME", "a workload of one thread (workload NAME)")             \
	X(PARAM, "param", "param NAME VALUE", "a parameter of the last workload's kernel")         \
	X(COUNTER, "counter", "counter EVENT",                                                     \
	  "a libpfm4 event counted on every thread of the kernel (at most " PROTOCOL_STR(          \
	      COUNTERS_MAX) ")")                                                                   \
	X(GPUMETRIC, "gpumetric", "gpumetric NAME",                                                \
	  "a CUPTI metric, profiled after (never during) the timed runs (at most " PROTOCOL_STR(   \
	      GPU_MAX_METRICS) ")")                                                                \
	X(RULE, "rule", "rule EVENT ACTION [key=value ...]",                                       \
	  "an action at an event, with predicates (PROTOCOL_EVENTS, _ACTIONS, _RULE_KEYS)")        \
	X(RUNS, "runs", "runs N", "timed runs at least")                                           \
	X(BESTK, "bestK", "bestK N", "the best-k rule's k: the k fastest runs must agree")         \
	X(BESTEPSILON, "bestEpsilon", "bestEpsilon X",                                             \
	  "the best-k rule's relative spread the k fastest runs may have")                         \
	X(MAXRUNS, "maxRuns", "maxRuns N", "timed runs at most (at least 1, at least runs)")       \
	X(MINRUNTIME, "minRunTime", "minRunTime SECONDS",                                          \
	  "warm mode: how long one timed run lasts at least (repetitions are calibrated)")         \
	X(CACHEMODE, "cacheMode", "cacheMode warm|cold",                                           \
	  "warm: warmed up and calibrated; cold: caches evicted before every run")                 \
	X(TIMEOUT, "timeout", "timeout SECONDS", "the point is killed after this long (0: never)") \
	X(IGNOREDISTURBED, "ignoreDisturbed", "ignoreDisturbed 0|1",                               \
	  "1: best-k looks only at runs without preemption or migration")                          \
	X(CHILD, "child", "child each|shared",                                                     \
	  "shared: one child measures this point and the shareable ones after it, until one "      \
	  "fails; each: a fresh child")                                                            \
	X(APP, "app", "app PATH",                                                                  \
	  "an application point: the program (an absolute path, %XX-escaped), each timed run one " \
	  "invocation of it in a fresh traced child, its marked regions recorded")                 \
	X(ARG, "arg", "arg TEXT", "the application's next argument (%XX-escaped: a space is %20)") \
	X(ENV, "env", "env NAME=VALUE",                                                            \
	  "set in the application's environment, on top of the core's (VALUE %XX-escaped)")        \
	X(DIR, "dir", "dir PATH", "the directory the application runs in (%XX-escaped)")           \
	X(CUDA, "cuda", "cuda 1",                                                                  \
	  "the application is a CUDA program: rot's CUDA library is loaded beside the recorder")   \
	X(SAMPLE, "sample", "sample PERIOD_NS",                                                    \
	  "an application point: where its threads are sampled every PERIOD_NS of a thread's "     \
	  "CPU time in each invocation (0: not sampled; else " PROTOCOL_STR(                       \
	      SAMPLER_MIN_NS) " to " PROTOCOL_STR(SAMPLER_MAX_NS) ")")

/* X(ID, word, syntax, meaning): the record kinds of a point's result, one record a line */
#define PROTOCOL_RECORDS(X)                                                                        \
	X(STATUS, "status", "status " PROTOCOL_OK "|" PROTOCOL_FAILED,                             \
	  "what became of the point (once)")                                                       \
	X(ERROR, "error", "error MESSAGE", "why it failed, in words for the user")                 \
	X(META, "meta", "meta NAME VALUE",                                                         \
	  "a fact about the measurement (PROTOCOL_META: machine state, counts, thread table, "     \
	  "failure KIND, hint ...)")                                                               \
	X(RUN, "run", "run KEY=VALUE ...", "one timed run (PROTOCOL_RUN_KEYS)")                    \
	X(STDERR, "stderr", "stderr TEXT",                                                         \
	  "one of the last lines the kernel wrote to its stderr (control bytes as '?')")           \
	X(REGION, "region", "region KEY=VALUE ...",                                                \
	  "an application's marked region in one invocation (run=I, the run it belongs to): "      \
	  "name (%XX-escaped), then PROTOCOL_REGION_KEYS and counts")                              \
	X(SAMPLED, "sampled", "sampled run=I KEY=VALUE ...",                                       \
	  "an application's invocation was sampled (run=I): PROTOCOL_SAMPLE_KEYS' sampled ones")   \
	X(OBJECT, "object", "object run=I id=K path=PATH",                                         \
	  "a file the invocation's samples landed in (PROTOCOL_SAMPLE_KEYS' object ones)")         \
	X(SAMPLE, "sample", "sample run=I obj=K off=0xHEX n=N callers=K:0xHEX,...|-",              \
	  "the invocation's samples at one place with the same callers (PROTOCOL_SAMPLE_KEYS' "    \
	  "sample ones)")

/* X(ID, name, meaning): the events a measurement raises, which rules attach to */
#define PROTOCOL_EVENTS(X)                                                                         \
	X(WORKLOAD_START, "workloadStart", "the workloads are initialized, before warm-up")        \
	X(WORKLOAD_STOP, "workloadStop", "after the last timed run")                               \
	X(THREAD_CREATED, "threadCreated", "the kernel's process created a thread")                \
	X(THREAD_EXITED, "threadExited", "a thread of the kernel's process ended")                 \
	X(RUN_START, "runStart", "a timed run starts (its timer not yet)")                         \
	X(RUN_END, "runEnd", "a timed run ended")                                                  \
	X(FAULT, "fault", "a thread of the kernel faulted (SIGSEGV, SIGBUS, SIGFPE, ...)")

/* X(ID, name, side, meaning): the actions of rules; side: where it runs (CHILD: the measuring
 * child itself, PARENT: its tracer, which then has to hear of the event) */
#define PROTOCOL_ACTIONS(X)                                                                        \
	X(FLUSH, "flush", CHILD, "evict caches now (before the run's timer starts)")               \
	X(PIN, "pin", PARENT, "pin the event's thread to cpu")                                     \
	X(MARKER, "marker", PARENT, "record a marker with text in the event log")                  \
	X(START_COUNTERS, "startCounters", PARENT, "resume counting")                              \
	X(STOP_COUNTERS, "stopCounters", PARENT, "pause counting")

/* X(ID, key, syntax, meaning): the keys of a rule, after EVENT ACTION, as key=value */
#define PROTOCOL_RULE_KEYS(X)                                                                      \
	X(RUN, "run", "run=N", "only at run N")                                                    \
	X(EVERY, "every", "every=N", "only at runs whose index is divisible by N")                 \
	X(THREAD, "thread", "thread=N", "only for the created or exited thread N (0: the first)")  \
	X(CPU, "cpu", "cpu=N", "pin: the CPU")                                                     \
	X(TEXT, "text", "text=WORD", "marker: its text")

/* X(ID, name, meaning): the kinds of a failed point (`meta failure KIND`) */
#define PROTOCOL_FAILURES(X)                                                                       \
	X(INPUT, "input",                                                                          \
	  "the point's settings were refused (the driver stops: a bug or a bad "                   \
	  "script)")                                                                               \
	X(NODEVICE, "nodevice", "a GPU point and no usable CUDA device")                           \
	X(SIGNAL, "signal", "the kernel's process was killed by a signal (meta signal N)")         \
	X(TIMEOUT, "timeout", "the kernel ran past the point's timeout and was killed")            \
	X(LEFTOVER, "leftover", "the kernel started a process that outlived it")                   \
	X(EXIT, "exit", "the kernel's process exited before its point was measured")               \
	X(KERNEL, "kernel", "the kernel failed: its init, or on the GPU in a run")                 \
	X(PROFILE, "profile", "the GPU profiler (CUPTI) failed on the point")                      \
	X(SETUP, "setup",                                                                          \
	  "the core could not set up the measurement: pipe, fork, ptrace, "                        \
	  "threads, memory")                                                                       \
	X(MARKERS, "markers",                                                                      \
	  "the application misused its markers (a region ended in a thread that did not begin "    \
	  "it, "                                                                                   \
	  "...): its regions are kept, the point fails")

enum protocol_record {
#define X(id, word, syntax, meaning) RECORD_##id,
	PROTOCOL_RECORDS(X)
#undef X
	    RECORD_COUNT
};

enum protocol_meta {
#define X(id, name, type, unit, side, meaning) META_##id,
	PROTOCOL_META(X)
#undef X
	    META_COUNT
};

enum protocol_run_key {
#define X(id, key, type, unit, meaning) RUNKEY_##id,
	PROTOCOL_RUN_KEYS(X)
#undef X
	    RUNKEY_COUNT
};

enum protocol_sample_key {
#define X(id, key, record, meaning) SAMPLEKEY_##id,
	PROTOCOL_SAMPLE_KEYS(X)
#undef X
	    SAMPLEKEY_COUNT
};

/* The words as declared: a record kind's, a meta key's (a family's with its %d or %s), a run
 * key's. */
const char *protocol_record_word(enum protocol_record r);
const char *protocol_meta_name(enum protocol_meta k);
const char *protocol_run_key(enum protocol_run_key k);

/* Writes "WORD " (a record's kind and the space after it). */
void protocol_record(FILE *out, enum protocol_record r);

/* Writes "status ok" or "status failed" (a line). */
void protocol_status(FILE *out, int ok);

/* Writes "meta NAME VALUE" (a line), VALUE as fmt says; _at names key i of a %d family;
 * _named writes a NAME its caller made from a %s family's (META_REPORT's report.NAME). */
void protocol_meta(FILE *out, enum protocol_meta k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void protocol_meta_at(FILE *out, enum protocol_meta k, int i, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void protocol_meta_named(FILE *out, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The keys every run record begins with (PROTOCOL_RUN_KEYS' first eight). */
struct protocol_run {
	double ns;
	unsigned long long tsc;
	long reps;
	const char *cpus;
	int mig;
	long vcsw, ivcsw;
	int disturbed;
};

/* Writes a run record's word and its first keys; the caller adds more (protocol_run_value) and
 * the line's end. */
void protocol_run(FILE *out, const struct protocol_run *r);

/* Writes " KEY=VALUE" of a run record (or of a region record's counts: _at, key i of a %d
 * family). */
void protocol_run_value(FILE *out, enum protocol_run_key k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void protocol_run_value_at(FILE *out, enum protocol_run_key k, int i, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Writes " KEY=VALUE" of a sampled, object or sample record. */
void protocol_sample_value(FILE *out, enum protocol_sample_key k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
