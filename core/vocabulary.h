/* vocabulary: the result vocabulary declared once: the keys of a point's report (meta facts, run
 * and region records), the limits on them, and every field of a results row (X-macro tables). */
#ifndef ROT_VOCABULARY_H
#define ROT_VOCABULARY_H

/* The limits of a point's report, which the driver reads as rot.protocol.limits. */
#define COUNTERS_MAX 16	     /* counters one point counts: input counter, meta eventN, run eN */
#define GPU_MAX_METRICS 64   /* CUPTI metrics one GPU point profiles: gpumetric, meta gpuMetricN */
#define SAMPLER_MIN_NS 10000 /* the shortest sampling period (input sample): 100 kHz */
#define SAMPLER_MAX_NS 1000000000  /* the longest: 1 s */
#define SAMPLER_DEFAULT_NS 4000000 /* the period to sample at: its cost, make bench's */
#define SAMPLER_CALLERS 4	   /* callers a sample record keeps */

/* The words of a status record: what became of the point. */
#define PROTOCOL_OK "ok"
#define PROTOCOL_FAILED "failed"

/* A region record's first keys, before PROTOCOL_REGION_KEYS: "region run=I name=NAME ...". */
#define PROTOCOL_REGION_RUN "run"
#define PROTOCOL_REGION_NAME "name"

/*
 * X(ID, name, type, unit, side, meaning): the facts of a point's report, one "meta NAME VALUE"
 * record each (a cache entry keeps them). type: int, number or text (a value to the end of its
 * line); a name with %d is a family, one key per index from 0 (event0, event1, ...), with %s
 * one per name (report.NAME); side: who writes it (core: the measuring core, driver: the
 * driver adds it to the cache entry, count: the counting pass writes it in a count's entry). The
 * driver refuses to read or write a meta key not declared here (rot.protocol.meta_key).
 */
#define PROTOCOL_META(X)                                                                           \
	X(WORKLOAD, "workload%d", "text", "", "core", "workload i: its kernel and threads=N")      \
	X(KERNEL, "kernel", "text", "", "core", "the first workload's kernel")                     \
	X(FLOPS, "flops", "number", "flop per invocation", "core",                                 \
	  "floating-point operations the kernels declared")                                        \
	X(BYTES, "bytes", "number", "B per invocation", "core", "bytes the kernels declared")      \
	X(WORKING_SET, "workingSet", "int", "B", "core", "the working set the kernels declared")   \
	X(BYTES_WRITTEN, "bytesWritten", "number", "B per invocation", "core",                     \
	  "the declared bytes that are written (kernels that declare it)")                         \
	X(THREADS, "threads", "int", "", "core", "threads the workloads ran")                      \
	X(CACHE_MODE, "cacheMode", "text", "", "core", "warm or cold")                             \
	X(TIMER_OVERHEAD_NS, "timerOverheadNs", "int", "ns", "core",                               \
	  "the measured cost of an empty timed region, subtracted from every run")                 \
	X(TIMER_OVERHEAD_TSC, "timerOverheadTsc", "int", "TSC cycles", "core",                     \
	  "the same in TSC cycles")                                                                \
	X(TSC_AVAILABLE, "tscAvailable", "int", "", "core", "1: runs read the TSC")                \
	X(FLUSH_BYTES, "flushBytes", "int", "B", "core", "cold mode: the buffer walked to evict")  \
	X(FLUSH_SIZE, "flushSize", "text", "", "core",                                             \
	  "where that size came from: topology, or guessed (hwloc knew no last-level cache)")      \
	X(REPORT, "report.%s", "number", "", "core", "what a kernel measured itself")              \
	X(CPU_MODEL, "cpuModel", "text", "", "core", "the CPU's brand string")                     \
	X(KERNEL_VERSION, "kernelVersion", "text", "", "core", "the operating system's kernel")    \
	X(LOADAVG, "loadavg", "text", "", "core", "/proc/loadavg before the measurement")          \
	X(GOVERNOR, "governor", "text", "", "core", "the cpufreq governor, or unknown")            \
	X(CPU_KHZ_BEFORE, "cpuKHzBefore", "text", "kHz", "core",                                   \
	  "the CPU's frequency before the measurement, or unknown")                                \
	X(CPU_KHZ_AFTER, "cpuKHzAfter", "text", "kHz", "core", "the same after it")                \
	X(TSC_HZ, "tscHz", "number", "Hz", "core", "the TSC's rate over the runs")                 \
	X(RULE_FLUSHES, "ruleFlushes", "int", "", "core", "cache flushes rules did")               \
	X(TALLY_FLOPS, "tallyFlops", "number", "flop per invocation", "core",                      \
	  "flops the kernel counted as it ran (rot_tally)")                                        \
	X(TALLY_BYTES, "tallyBytes", "number", "B per invocation", "core", "bytes it counted")     \
	X(TALLY_WRITTEN, "tallyWritten", "number", "B per invocation", "core",                     \
	  "written bytes it counted")                                                              \
	X(CONVERGED, "converged", "int", "", "core", "1: the best-k rule held in the core")        \
	X(COMPLETE, "complete", "int", "", "core", "1: the measurement ran to its end")            \
	X(THREADS_CREATED, "threadsCreated", "int", "", "core", "threads the kernel created")      \
	X(THREADS_EXITED, "threadsExited", "int", "", "core", "of them, the ones that ended")      \
	X(THREADS_COUNTED, "threadsCounted", "int", "", "core", "threads the counters counted")    \
	X(THREAD_TABLE, "threadTable", "text", "", "core",                                         \
	  "every thread: index:state[:counted], comma-separated")                                  \
	X(QUEUE_WAIT, "queueWait", "number", "fraction", "core",                                   \
	  "the share of their time on the CPU or waiting for one that the point's threads waited " \
	  "on a run queue (/proc/PID/schedstat): a neighbour on their CPUs")                       \
	X(QUEUE_WAIT_NS, "queueWaitNs", "int", "ns", "core", "that wait, summed over the threads") \
	X(NEIGHBOUR_CPUS, "neighbourCpus", "number", "CPUs", "driver",                             \
	  "CPUs busy outside rot's own processes over the point's window (/proc/stat against "     \
	  "rot's /proc/PID/stat): a neighbour anywhere on the machine")                            \
	X(PROCESSES_STARTED, "processesStarted", "int", "", "core",                                \
	  "processes the kernel started")                                                          \
	X(EVENTS, "events", "text", "", "core", "the event log (rules' markers)")                  \
	X(EVENT, "event%d", "text", "", "core", "counter i's event (its counts: run eI)")          \
	X(COUNTER_DOMAIN, "counterDomain", "text", "", "core",                                     \
	  "what the counters count: user, or user+kernel")                                         \
	X(MULTIPLEXED, "multiplexed", "int", "", "core", "1: the counters were multiplexed")       \
	X(FAILURE, "failure", "text", "", "core", "a failed point's kind (PROTOCOL_FAILURES)")     \
	X(SIGNAL, "signal", "int", "", "core", "the signal that ended the kernel")                 \
	X(HINT, "hint", "text", "", "core", "what to set or do about the failure")                 \
	X(CHILD_ENDED, "childEnded", "text", "", "core",                                           \
	  "why a shared child ended after this point")                                             \
	X(APP, "app", "text", "", "core", "an application point's program")                        \
	X(INVOCATIONS, "invocations", "int", "", "core", "the program's invocations")              \
	X(STDOUT_RUN, "stdoutRun", "int", "", "core",                                              \
	  "the fastest invocation, whose output it is")                                            \
	X(STDOUT_BYTES, "stdoutBytes", "int", "B", "core", "how much that invocation wrote")       \
	X(STDOUT, "stdout", "text", "", "core", "its last 16 KiB (%XX-escaped)")                   \
	X(MARKER_CLOCK, "markerClock", "text", "", "core", "the markers' clock: tsc or monotonic") \
	X(MARKERS_ATTACHED, "markersAttached", "int", "", "core",                                  \
	  "1: the marker recorder was loaded into the program")                                    \
	X(MARKER_PROCESS, "markerProcess%d", "text", "", "core",                                   \
	  "process i that loaded the recorder: NAME pid=PID marked=0|1 (1: it called a marker)")   \
	X(MARKER_PROCESSES_LOST, "markerProcessesLost", "int", "", "core",                         \
	  "processes that loaded it past those the arena names")                                   \
	X(MARKERS_FORKED, "markersForked", "int", "", "core",                                      \
	  "markers called in a process forked without exec: not recorded")                         \
	X(MARKERS_FORKED_PID, "markersForkedPid", "int", "", "core", "the first such process")     \
	X(MARKER_PAIR_NS, "markerPairNs", "number", "ns", "core", "what a begin/end pair costs")   \
	X(MARKER_EMPTY_NS, "markerEmptyNs", "number", "ns", "core",                                \
	  "what an empty region measures a call (subtracted)")                                     \
	X(REGION_CALLS_LOST, "regionCallsLost", "int", "", "core",                                 \
	  "calls the recorder had no room for")                                                    \
	X(EVENT_ERROR, "eventError%d", "text", "", "core", "why counter i did not count")          \
	X(COUNTERS_HINT, "countersHint", "text", "", "core", "what to set so they count")          \
	X(PROCESS_COUNTERS_ERROR, "processCountersError", "text", "", "core",                      \
	  "why the process-wide counters (a region one thread entered) did not count")             \
	X(SAMPLING, "sampling", "text", "", "core",                                                \
	  "why an application's invocations were not sampled (sample): one line, the setting to "  \
	  "change; they are timed all the same")                                                   \
	X(GPU_METRIC, "gpuMetric%d", "text", "", "core", "CUPTI metric i")                         \
	X(GPU_VALUE, "gpuValue%d", "number", "", "core", "its value in the profiled invocation")   \
	X(GPU_PASSES, "gpuPasses", "int", "", "core", "the profiler's replay passes")              \
	X(GPU_NAME, "gpuName", "text", "", "core", "the GPU's name")                               \
	X(GPU_CC, "gpuCC", "text", "", "core", "its compute capability, major.minor")              \
	X(GPU_GLOBAL_MEM, "gpuGlobalMem", "int", "B", "core", "its global memory")                 \
	X(GPU_SHARED_PER_SM, "gpuSharedPerSM", "int", "B", "core", "shared memory an SM has")      \
	X(GPU_MAX_WARPS_PER_SM, "gpuMaxWarpsPerSM", "int", "", "core",                             \
	  "resident warps an SM holds")                                                            \
	X(GPU_SMS, "gpuSMs", "int", "", "core", "its SMs")                                         \
	X(GPU_CLOCK_KHZ, "gpuClockKHz", "int", "kHz", "core", "its SM clock")                      \
	X(GPU_MEM_CLOCK_KHZ, "gpuMemClockKHz", "int", "kHz", "core", "its memory clock")           \
	X(GPU_BUS_WIDTH, "gpuBusWidth", "int", "bit", "core", "its memory bus")                    \
	X(GPU_L2, "gpuL2", "int", "B", "core", "its L2 cache")                                     \
	X(CUDA_DRIVER, "cudaDriver", "int", "", "core", "the CUDA driver's version")               \
	X(CUDA_RUNTIME, "cudaRuntime", "int", "", "core", "the CUDA runtime's version")            \
	X(GPU_CHIP, "gpuChip", "text", "", "core", "its chip as CUPTI names it (GH100)")           \
	X(POINT_SECONDS, "pointSeconds", "number", "s", "driver",                                  \
	  "what the point took to measure here (the peaks' time budget counts it)")                \
	X(SCRIPT, "script", "text", "", "driver", "the measurement that wrote the cache entry")    \
	X(MEASURED_AT, "measuredAt", "text", "UTC", "driver",                                      \
	  "when the point was measured (a ceiling's date is its best round's)")                    \
	X(COUNT_REGION, "countRegion", "text", "", "count",                                        \
	  "a kernel's count: the region of its point in the counted run (rot-count's ID)")         \
	X(COUNT_FLAGS, "countFlags", "text", "", "count", "the flags a kernel was counted with")   \
	X(COUNT_NOTE, "countNote", "text", "", "count",                                            \
	  "how it was counted where not as timed (a build without AVX-512, the environment)")      \
	X(COUNT_CACHES, "countCaches", "text", "", "count",                                        \
	  "the cache hierarchy the count simulated")

/* X(ID, key, type, unit, meaning): the values of a run record, "run KEY=VALUE ...": one timed
 * run (an application's: one invocation) */
#define PROTOCOL_RUN_KEYS(X)                                                                       \
	X(NS, "ns", "number", "ns", "the run's time (timer overhead included)")                    \
	X(TSC, "tsc", "int", "TSC cycles", "the same in TSC cycles (0: not read)")                 \
	X(REPS, "reps", "int", "", "invocations of the kernels in the run")                        \
	X(CPUS, "cpus", "text", "", "the CPU each thread ran on, comma-separated (-: not known)")  \
	X(MIG, "mig", "int", "", "migrations between CPUs")                                        \
	X(VCSW, "vcsw", "int", "", "voluntary context switches")                                   \
	X(IVCSW, "ivcsw", "int", "", "involuntary context switches")                               \
	X(DISTURBED, "disturbed", "int", "", "1: a migration or an involuntary switch")            \
	X(EVENT, "e%d", "number", "", "counter i's count over the run (regions: over the calls)")  \
	X(COUNTING, "counting", "int", "", "threads whose counters ran")                           \
	X(MUX, "mux", "number", "", "time running over time enabled, when below 1 (multiplexed)")  \
	X(UTIME_NS, "utimeNs", "number", "ns", "an invocation's user CPU time, all its processes") \
	X(STIME_NS, "stimeNs", "number", "ns", "its system CPU time")                              \
	X(MAXRSS_KIB, "maxrssKiB", "int", "KiB", "its largest resident set")                       \
	X(RAN_THREADS, "threads", "int", "", "the threads it ran")                                 \
	X(ROUND, "round", "int", "", "the round of the point it belongs to (the driver's stamp)")  \
	X(INVOCATION, "inv", "text", "", "the invocation of rot that measured that round")         \
	X(NEIGHBOUR, "nbr", "number", "CPUs", "its round's neighbourCpus (the driver's stamp)")    \
	X(QUEUE, "qwait", "number", "fraction", "its round's queueWait (the driver's stamp)")      \
	X(AT, "at", "number", "s", "when its round's result arrived (CLOCK_MONOTONIC; the driver's)")

/* X(ID, key, meaning): the values of a region record, after its run=I and name=NAME, each over
 * the threads that entered the region in that invocation (times inclusive of the regions nested
 * in it; work as the program declared it; counts where every call was counted) */
#define PROTOCOL_REGION_KEYS(X)                                                                    \
	X(CALLS, "calls", "completed calls of the thread that made the most")                      \
	X(CALLS_TOTAL, "callsTotal", "completed calls, summed over the threads")                   \
	X(THREADS, "threads", "threads that entered the region")                                   \
	X(PROCESSES, "processes", "processes whose threads entered it (a program's tree)")         \
	X(NS, "ns", "time in the region of the thread that spent the longest (ns)")                \
	X(NS_SUM, "nsSum", "time in the region summed over the threads (ns)")                      \
	X(MIN_NS, "minNs", "the shortest call (ns)")                                               \
	X(MAX_NS, "maxNs", "the longest call (ns)")                                                \
	X(OPEN, "open", "calls begun and never ended")                                             \
	X(FLOPS, "flops", "declared floating-point operations, summed")                            \
	X(BYTES, "bytes", "declared bytes, summed")                                                \
	X(WRITTEN, "written", "declared written bytes, summed")                                    \
	X(WORKING_SET, "workingSet", "the largest declared working set (bytes)")                   \
	X(WORK_CALLS, "workCalls", "calls that declared work")                                     \
	X(WRITTEN_CALLS, "writtenCalls", "calls that declared their written bytes")                \
	X(COUNTED_CALLS, "countedCalls", "calls whose counters ran (eI only when all did)")        \
	X(MULTIPLEXED_CALLS, "multiplexedCalls", "counted calls whose counts were scaled")         \
	X(WHOLE_PROCESS, "wholeProcess",                                                           \
	  "1: one thread entered it: its counts are the whole process's while it was open")        \
	X(PROCESS_CALLS, "processCalls", "calls the process-wide counters ran all through")

/* X(ID, key, record, meaning): the values of the records of a sampled invocation (record: which
 * of them holds it), each after the record's run=I (PROTOCOL_REGION_RUN) */
#define PROTOCOL_SAMPLE_KEYS(X)                                                                    \
	X(PERIOD_NS, "periodNs", "sampled", "ns of a thread's CPU time between two samples")       \
	X(SAMPLES, "samples", "sampled", "samples taken (each a period of a thread's CPU time)")   \
	X(LOST, "lost", "sampled", "samples the kernel dropped: a ring buffer was full")           \
	X(THROTTLED, "throttled", "sampled", "times the kernel throttled the sampling")            \
	X(KERNEL, "kernel", "sampled",                                                             \
	  "1: code in the kernel was sampled too (system time), 0: user code alone "               \
	  "(kernel.perf_event_paranoid 2 or more)")                                                \
	X(THREADS, "threads", "sampled", "threads sampled")                                        \
	X(PROCESSES, "processes", "sampled",                                                       \
	  "processes sampled: the program and every process it forked, sampled alike")             \
	X(UNKNOWN, "unknown", "sampled", "samples in code of no file (a JIT's buffer)")            \
	X(BAD, "bad", "sampled", "samples the core could not take in (malformed, no memory)")      \
	X(ID, "id", "object",                                                                      \
	  "the object's number in the invocation (0: unknown code, 1: kernel)")                    \
	X(PATH, "path", "object", "its file, as the kernel named it (%XX-escaped)")                \
	X(OBJ, "obj", "sample", "the object the samples landed in (an object record's id)")        \
	X(OFF, "off", "sample",                                                                    \
	  "where, in hex: the address as the object's file links it (rotcount's loops use the "    \
	  "same; unknown and kernel code: 0)")                                                     \
	X(N, "n", "sample", "samples there")                                                       \
	X(CALLERS, "callers", "sample",                                                            \
	  "the callers' return addresses, innermost first, OBJ:0xOFF comma-separated, at most "    \
	  "SAMPLER_CALLERS (-: none); read through frame pointers: code built without them gives " \
	  "wrong ones")

/* The version of the JSON document rot writes (rot.results' json: points, levels, ceilings);
 * raised when a field changes. 3: the schema (every point field's unit and meaning), the time
 * bound and its dominant term. 4: a counted point's bound from its counts, the declared one
 * beside. 5: the loop survey's rows (survey, samples, sourceFile, sourceLine, function, ...).
 * 6: a CUDA program's regions' profiled metrics (gpuRegion, gpuFlops, gpuBytes, ...). */
#define RESULT_JSON_VERSION 6

/*
 * X(ID, key, type, unit, csv, json, record, group, side, meaning): every field of a results
 * row (rot.results: one point, or one region of an application point), in the CSV's column
 * order. key: the row's field; csv, json, record: its CSV column, its JSON key and its name in
 * a run record's point ("": not written there; csv "counter:%s", one column per name); group:
 * the rows the CSV column is written for ("": every row's file; app: when a row is a region of
 * an application, node: when rows come from Slurm node types, gpu: when rows have CUPTI
 * metrics, cuda: when rows are a CUDA program's kernels and ranges); side: the Lua module that sets
 * it (entry: read from the report's meta; format: computed where it is written).
 */
#define RESULT_ROW(X)                                                                              \
	X(WORKING_SET, "workingSet", "int", "B", "workingSet_bytes", "workingSet", "ws", "",       \
	  "quantities", "the working set the kernel declared (a region: its largest)")             \
	X(TIME, "time", "number", "s", "time_s", "time", "time", "", "quantities",                 \
	  "time per invocation: the fastest usable run less the timer overhead, over its "         \
	  "repetitions")                                                                           \
	X(GBS, "gbs", "number", "GB/s", "bandwidth_GBs", "gbs", "gbs", "", "quantities",           \
	  "bytes over time")                                                                       \
	X(GFLOPS, "gflops", "number", "GFLOP/s", "performance_GFLOPs", "gflops", "gflops", "",     \
	  "quantities", "flops over time")                                                         \
	X(INTENSITY, "intensity", "number", "flop/B", "intensity_flop_per_byte", "intensity",      \
	  "intensity", "", "quantities", "flops over bytes")                                       \
	X(FLOPS, "flops", "number", "flop per invocation", "flops", "flops", "", "", "quantities", \
	  "floating-point operations: measured where the counts say so, else declared")            \
	X(BYTES, "bytes", "number", "B per invocation", "bytes", "bytes", "", "", "quantities",    \
	  "bytes moved: measured where the counts say so, else declared")                          \
	X(COUNTS, "counts", "text", "", "counts", "counts", "", "", "quantities",                  \
	  "where flops and bytes come from: declared, measured, counted, none, or each's")         \
	X(FLOPS_DECLARED, "flopsDeclared", "number", "flop per invocation", "flops_declared",      \
	  "flopsDeclared", "", "", "quantities", "the flops the kernel declared")                  \
	X(BYTES_DECLARED, "bytesDeclared", "number", "B per invocation", "bytes_declared",         \
	  "bytesDeclared", "", "", "quantities", "the bytes it declared")                          \
	X(BYTES_WRITTEN, "bytesWritten", "number", "B per invocation", "bytes_written_declared",   \
	  "bytesWritten", "", "", "quantities", "of them, the bytes written (where declared)")     \
	X(FLOPS_RATIO, "flopsRatio", "number", "", "flops_measured_over_declared", "", "", "",     \
	  "quantities", "measured flops over declared")                                            \
	X(BYTES_RATIO, "bytesRatio", "number", "", "bytes_measured_over_declared", "", "", "",     \
	  "quantities", "measured bytes over declared")                                            \
	X(FLOPS_COUNTED, "flopsCounted", "number", "flop per invocation", "flops_counted",         \
	  "flopsCounted", "cflops", "count", "counted",                                            \
	  "flops counted under Valgrind (rot.count): one invocation, an FMA two")                  \
	X(FLOPS_CLASSES, "flopsClasses", "table", "flop per invocation", "flops_counted:%s",       \
	  "flopsClasses", "", "count", "counted",                                                  \
	  "counted flops by precision and instruction width (fp64_256: 256-bit fp64 vectors)")     \
	X(FLOPS_FMA, "flopsFma", "table", "flop per invocation", "flops_counted_fma:%s",           \
	  "flopsFma", "", "count", "counted", "of each class's counted flops, those of FMAs")      \
	X(FLOPS_ADD, "flopsAdd", "table", "flop per invocation", "flops_counted_add:%s",           \
	  "flopsAdd", "", "count", "counted",                                                      \
	  "of each class's counted flops, those of adds and subtractions")                         \
	X(BYTES_COUNTED, "bytesCounted", "number", "B per invocation", "bytes_counted",            \
	  "bytesCounted", "cbytes", "count", "counted",                                            \
	  "bytes the instructions loaded and stored (the cache-aware roofline's bytes)")           \
	X(BYTES_LOADED, "bytesLoaded", "number", "B per invocation", "bytes_loaded_counted",       \
	  "bytesLoaded", "", "count", "counted", "of them, loaded")                                \
	X(BYTES_STORED, "bytesStored", "number", "B per invocation", "bytes_stored_counted",       \
	  "bytesStored", "", "count", "counted", "of them, stored")                                \
	X(TRAFFIC, "traffic", "table", "B per invocation", "traffic_bytes:%s", "simulatedBytes",   \
	  "", "count", "counted",                                                                  \
	  "simulated bytes between each cache level and the one above, by the lower (DRAM: "       \
	  "beyond the last), write-allocate fills and write-backs included")                       \
	X(TRAFFIC_WRITTEN, "trafficWritten", "table", "B per invocation",                          \
	  "traffic_written_bytes:%s", "simulatedWrittenBytes", "", "count", "counted",             \
	  "of them, dirty lines written back")                                                     \
	X(FLOPS_COUNTED_RATIO, "flopsCountedRatio", "number", "", "flops_counted_over_declared",   \
	  "flopsCountedRatio", "", "count", "counted", "counted flops over declared")              \
	X(BYTES_COUNTED_RATIO, "bytesCountedRatio", "number", "", "bytes_counted_over_declared",   \
	  "bytesCountedRatio", "", "count", "counted", "counted bytes over declared")              \
	X(FLOPS_PMU, "flopsPmu", "number", "flop per invocation", "flops_pmu", "flopsPmu", "",     \
	  "count", "counted", "flops the PMU measured (its counts), beside the counted")           \
	X(BYTES_PMU, "bytesPmu", "number", "B per invocation", "bytes_pmu", "bytesPmu", "",        \
	  "count", "counted", "bytes the PMU measured (its counts), beside the simulated")         \
	X(DISAGREE, "disagree", "text", "", "sources_disagree", "disagree", "", "count",           \
	  "counted",                                                                               \
	  "where its sources of flops and bytes disagree beyond rot.results.counted's tolerances") \
	X(COUNT_NOTE, "countNote", "text", "", "count_note", "countNote", "", "count", "counted",  \
	  "how it was counted where not as timed (a build without AVX-512, the environment)")      \
	X(COUNT_CACHES, "countCaches", "text", "", "count_caches", "countCaches", "", "count",     \
	  "counted", "the cache hierarchy the count simulated")                                    \
	X(COUNT_FAILED, "countFailed", "text", "", "count_failed", "countFailed", "", "count",     \
	  "counted", "why counting it failed")                                                     \
	X(COUNT_RECORD, "countRecord", "table", "", "", "", "", "", "count",                       \
	  "its count (rot.count): what the counting tool counted, and how")                        \
	X(GPU_REGION, "gpuRegion", "text", "", "gpu_region", "gpuRegion", "", "cuda",              \
	  "gpuregions",                                                                            \
	  "a CUDA program's region: kernel (a kernel's launches of one shape) or nvtx (a range)")  \
	X(GPU_FLOPS, "gpuFlops", "table", "flop per invocation", "gpu_flops:%s", "gpuFlops", "",   \
	  "cuda", "gpuregions",                                                                    \
	  "its profiled flops by precision (double, single, half), an FMA two")                    \
	X(GPU_BYTES, "gpuBytes", "table", "B per invocation", "gpu_bytes:%s", "gpuBytes", "",      \
	  "cuda", "gpuregions",                                                                    \
	  "its profiled bytes by level: L1 (l1tex__t_bytes), L2 (lts__t_bytes), HBM "              \
	  "(dram__bytes)")                                                                         \
	X(GPU_INTENSITY, "gpuIntensity", "table", "flop/B", "gpu_intensity:%s", "gpuIntensity",    \
	  "", "cuda", "gpuregions", "its flops over each level's bytes: its point per level")      \
	X(GPU_LAUNCHES, "gpuLaunches", "int", "launches", "gpu_launches_profiled", "gpuLaunches",  \
	  "", "cuda", "gpuregions", "the launches the metrics pass profiled in it")                \
	X(GPU_NOTE, "gpuNote", "text", "", "gpu_note", "gpuNote", "", "cuda", "gpuregions",        \
	  "why it has no metrics or no bound, or how its metrics were scaled")                     \
	X(CUDA_RECORD, "cudaRecord", "table", "", "", "", "", "", "gpuregions",                    \
	  "a CUDA point's metrics pass (rot.count.cuda): its regions' sums, and what was lost")    \
	X(CUDA_FAILED, "cudaFailed", "text", "", "", "", "", "", "gpuregions",                     \
	  "why a CUDA point's metrics pass failed")                                                \
	X(RUNS, "runs", "int", "", "runs", "runs", "runs", "", "quantities",                       \
	  "timed runs (an application: invocations)")                                              \
	X(DISTURBED, "disturbed", "int", "", "disturbed_runs", "", "", "", "quantities",           \
	  "runs with a migration or an involuntary context switch")                                \
	X(SPREAD, "spread", "number", "fraction", "spread", "spread", "spread", "", "quantities",  \
	  "how far a rerun may land: its rounds' spread, at least the measurement's pooled "       \
	  "spread (one round: how far the k-th fastest run lies above the fastest)")               \
	X(CONVERGED, "converged", "bool", "", "converged", "", "converged", "", "quantities",      \
	  "whether the k fastest runs of its best round agree within epsilon")                     \
	X(ROUNDS, "rounds", "int", "", "rounds", "rounds", "rounds", "", "quantities",             \
	  "its rounds: best-k measurements, each in a core process of its own")                    \
	X(ROUNDS_SPREAD, "roundsSpread", "number", "fraction", "rounds_spread", "roundsSpread",    \
	  "", "", "quantities", "how far its slowest round lies above its best")                   \
	X(ROUNDS_BEST_SPREAD, "roundsBestSpread", "number", "fraction", "rounds_best_spread",      \
	  "roundsBestSpread", "", "", "quantities",                                                \
	  "how far the k-th best of its rounds lies above the best, k the rounds a point wants")   \
	X(ROUNDS_AGREE, "roundsAgree", "bool", "", "rounds_agree", "roundsAgree", "agree", "",     \
	  "quantities",                                                                            \
	  "whether its best rounds lie within roundsEpsilon of the best (false: "                  \
	  "flagged)")                                                                              \
	X(ROUNDS_RATIO, "roundsRatio", "number", "", "rounds_ratio", "roundsRatio", "", "",        \
	  "quantities", "its slowest round's time over its best's")                                \
	X(BESIDE_NEIGHBOUR, "besideNeighbour", "bool", "", "beside_neighbour", "besideNeighbour",  \
	  "", "", "quantities",                                                                    \
	  "whether its best round ran beside a busy neighbour (true: flagged, measured again)")    \
	X(NEIGHBOUR_CPUS, "neighbourCpus", "number", "CPUs", "neighbour_cpus", "neighbourCpus",    \
	  "", "", "quantities",                                                                    \
	  "CPUs busy outside rot while its best round was measured (/proc/stat)")                  \
	X(QUEUE_WAIT, "queueWait", "number", "fraction", "queue_wait", "queueWait", "", "",        \
	  "quantities",                                                                            \
	  "the share of their time its best round's threads waited for a CPU (schedstat)")        \
	X(POOLED_SPREAD, "pooledSpread", "number", "fraction", "pooled_spread", "pooledSpread",    \
	  "", "", "quantities", "the measurement's pooled spread its spread was raised to")        \
	X(THREADS, "threads", "int", "", "threads", "threads", "", "", "quantities",               \
	  "threads the point ran (its bounds are this count's)")                                   \
	X(CACHE_MODE, "cacheMode", "text", "", "cache_mode", "cacheMode", "", "", "quantities",    \
	  "warm or cold")                                                                          \
	X(TIMER_OVERHEAD_NS, "timerOverheadNs", "number", "ns", "timer_overhead_ns", "", "", "",   \
	  "quantities", "the timer overhead subtracted from each run")                             \
	X(BOUND, "bound", "number", "GFLOP/s", "bound_GFLOPs", "bound", "bound", "", "bounds",     \
	  "the attainable performance: min(compute ceiling, intensity x bandwidth ceiling)")       \
	X(BOUND_GBS, "boundGbs", "number", "GB/s", "bound_GBs", "", "", "", "format",              \
	  "the bandwidth the time bound allows: bytes over it")                                    \
	X(LIMITER, "limiter", "text", "", "limiter", "limiter", "limiter", "", "bounds",           \
	  "the ceiling that bounds it")                                                            \
	X(BOUND_UNSTABLE, "boundUnstable", "bool", "", "bound_unstable", "boundUnstable", "", "",  \
	  "bounds", "whether that ceiling still varies over its rounds")                           \
	X(FRACTION, "fraction", "number", "fraction of the bound", "fraction_of_bound",            \
	  "fraction", "fraction", "", "bounds", "performance (or bandwidth) over the bound")       \
	X(ABOVE, "above", "bool", "", "above_bound", "aboveBound", "above", "", "bounds",          \
	  "above its bound beyond its spread and the ceiling's")                                   \
	X(LEVEL, "level", "text", "", "level", "level", "", "", "bounds",                          \
	  "the memory level its data live in")                                                     \
	X(TIME_BOUND, "timeBound", "number", "s", "time_bound_s", "timeBound", "", "", "bounds",   \
	  "the shortest time the ceilings allow")                                                  \
	X(DOMINANT, "dominant", "text", "", "time_bound_dominant", "dominant", "", "", "bounds",   \
	  "the term of the time bound that dominates")                                             \
	X(BOUND_SOURCE, "boundSource", "text", "", "bound_source", "boundSource", "", "count",     \
	  "bounds",                                                                                \
	  "what its bound is from: counted (its counted flops, bytes and simulated traffic: "      \
	  "rot.results.placed) or declared")                                                       \
	X(BOUND_TERMS, "boundTerms", "table", "s", "time_bound_term_s:%s", "boundTerms", "",       \
	  "count", "bounds",                                                                       \
	  "the counted bound's terms: compute, and each level's traffic over its ceiling (L1 "     \
	  "its loads and stores, DRAM the traffic beyond the last level)")                         \
	X(BOUND_NOTE, "boundNote", "text", "", "bound_note", "boundNote", "", "count", "bounds",   \
	  "what the counted bound took where the peaks lack a ceiling")                            \
	X(BOUND_DECLARED, "boundDeclared", "number", "GFLOP/s", "bound_declared_GFLOPs",           \
	  "boundDeclared", "", "count", "bounds",                                                  \
	  "a counted row's bound from its declared flops, bytes and working set (its counted one " \
	  "is its bound)")                                                                         \
	X(LIMITER_DECLARED, "limiterDeclared", "text", "", "limiter_declared", "limiterDeclared",  \
	  "", "count", "bounds", "the ceiling of that declared bound")                             \
	X(FRACTION_DECLARED, "fractionDeclared", "number", "fraction of the bound",                \
	  "fraction_of_declared_bound", "fractionDeclared", "", "count", "bounds",                 \
	  "performance (or bandwidth) over that declared bound")                                   \
	X(SOURCE, "source", "text", "", "source", "source", "", "", "format",                      \
	  "how its values were had: measured (by this run or an earlier one), failed or planned")  \
	X(KERNEL, "kernel", "text", "", "kernel", "kernel", "", "", "format",                      \
	  "its kernels (the JSON: the first)")                                                     \
	X(FLAGS, "flags", "text", "", "flags", "flags", "", "", "format", "its compiler flags")    \
	X(MACHINE, "machine", "text", "", "machine", "machine", "", "", "executor",                \
	  "the machine identity it was measured on")                                               \
	X(REGION, "region", "text", "", "region", "region", "", "app", "regions",                  \
	  "the marked region; (program): the whole program, from its start to its end")            \
	X(PROGRAM, "program", "text", "", "program", "program", "", "app", "regions",              \
	  "the program's file name")                                                               \
	X(CALLS, "calls", "int", "calls per invocation", "calls", "calls", "", "app", "regions",   \
	  "completed calls of the thread that made the most")                                      \
	X(CALLS_TOTAL, "callsTotal", "int", "calls per invocation", "calls_total", "callsTotal",   \
	  "", "app", "regions", "completed calls, summed over the threads")                        \
	X(MARKED_THREADS, "markedThreads", "int", "", "marked_threads", "markedThreads", "",       \
	  "app", "regions",                                                                        \
	  "threads that entered the region (its bound is theirs); (program): the threads it ran")  \
	X(REGION_RULE, "regionRule", "text", "", "region_rule", "regionRule", "", "app",           \
	  "regions",                                                                               \
	  "whose work a region takes: process (one thread entered it, begun outside any parallel " \
	  "region: the whole process's while it is open) or threads (the threads that entered it)") \
	X(TIME_PER_CALL, "timePerCall", "number", "s", "time_per_call_s", "timePerCall", "",       \
	  "app", "regions", "time over calls, in the fastest invocation")                          \
	X(BEST_CALL, "bestCall", "number", "s", "best_call_s", "bestCall", "", "app", "regions",   \
	  "the shortest call of any invocation (STREAM's best time)")                              \
	X(BEST_CALL_GBS, "bestCallGbs", "number", "GB/s", "best_call_bandwidth_GBs",               \
	  "bestCallGbs", "", "app", "regions",                                                     \
	  "bytes a call over the best call (STREAM's best "                                        \
	  "rate)")                                                                                 \
	X(SHARE, "share", "number", "fraction", "share_of_program", "share", "", "app", "regions", \
	  "time in the region over the program's, in the same invocation")                         \
	X(BUSY_THREADS, "busyThreads", "number", "", "busy_threads", "busyThreads", "", "app",     \
	  "regions",                                                                               \
	  "(program) its CPU time (user and system, all threads) over its time: threads busy on "  \
	  "average")                                                                               \
	X(FLOPS_SOURCE, "flopsSource", "text", "", "flops_source", "flopsSource", "", "app",       \
	  "regions",                                                                               \
	  "where its flops come from: declared (rot_region_work), measured (counters), counted "   \
	  "(rot.count, where it declares none), profiled (a CUDA region's), none")                 \
	X(BYTES_SOURCE, "bytesSource", "text", "", "bytes_source", "bytesSource", "", "app",       \
	  "regions",                                                                               \
	  "where its bytes come from: declared (rot_region_work), measured (counters), counted "   \
	  "(rot.count, where it declares none), profiled (a CUDA region's HBM bytes), none")       \
	X(NEVER_CLOSED, "neverClosed", "int", "calls", "never_closed", "neverClosed", "", "app",   \
	  "regions", "calls begun and not ended when the invocation ended (left out of its time)") \
	X(MARKER_SHARE, "markerShare", "number", "fraction", "marker_share", "markerShare", "",    \
	  "app", "regions",                                                                        \
	  "what a begin/end pair costs the program, over the region's time per "                   \
	  "call")                                                                                  \
	X(PROGRAM_THREADS, "programThreads", "int", "", "", "", "", "app", "regions",              \
	  "a region: the threads its program ran (a line says when fewer entered it)")             \
	X(BOUND_THREADS, "boundThreads", "int", "", "", "", "", "app", "regions",                  \
	  "a region: the thread count whose ceilings bound it: the threads that entered it, or "   \
	  "the program's (regionRule process)")                                                    \
	X(FAILED_INVOCATION, "failedInvocation", "text", "", "failed_invocation",                  \
	  "failedInvocation", "", "app", "regions",                                                \
	  "the point failed: its regions are those the invocations before the failure and the "    \
	  "failed one completed")                                                                  \
	X(SURVEY, "survey", "text", "", "survey", "survey", "survey", "app", "survey",             \
	  "a row of the loop survey (rot.results.survey): loop, function, unknown (code of no "     \
	  "file), kernel or other (the rows under surveyThreshold)")                               \
	X(SAMPLES, "samples", "int", "", "samples", "samples", "", "app", "survey",                \
	  "a survey row: the samples that landed in it, over the invocations")                     \
	X(SOURCE_FILE, "sourceFile", "text", "", "source_file", "sourceFile", "file", "app",       \
	  "survey", "a survey loop: the source file of its latch (the jump its for compiles to)")  \
	X(SOURCE_LINE, "sourceLine", "int", "", "source_line", "sourceLine", "line", "app",        \
	  "survey", "its line there")                                                              \
	X(FUNC, "func", "text", "", "function", "function", "fn", "app", "survey",                 \
	  "a survey loop: the function its latch is in (the innermost inlined one)")               \
	X(OBJECT, "object", "text", "", "object", "object", "", "app", "survey",                   \
	  "a survey row: the file its code is in (the program, a shared library)")                 \
	X(LOOP_DEPTH, "loopDepth", "int", "", "loop_depth", "loopDepth", "depth", "app",           \
	  "survey", "a survey loop: its depth in its nest (1: outermost)")                         \
	X(NEST_DEPTH, "nestDepth", "int", "", "nest_depth", "nestDepth", "", "app", "survey",      \
	  "a survey loop: the depth of its nest's deepest loop")                                   \
	X(LOOP_ENTRIES, "loopEntries", "int", "", "loop_entries", "loopEntries", "", "app",        \
	  "survey", "a survey loop: the times control came into it, in the counted run")           \
	X(LOOP_ITERATIONS, "loopIterations", "int", "", "loop_iterations", "loopIterations", "",   \
	  "app", "survey", "a survey loop: the times its head ran, in the counted run")            \
	X(SURVEY_COUNTS, "surveyCounts", "table", "", "", "", "", "", "survey",                    \
	  "a survey row's counts: its loops' or function's lines of the counting tool")            \
	X(NODE_TYPE, "nodeType", "text", "", "node_type", "nodeType", "", "node", "executor",      \
	  "the Slurm node type it was measured on")                                                \
	X(COUNTERS, "counters", "table", "per invocation", "counter:%s", "counters", "counters",   \
	  "", "quantities",                                                                        \
	  "each counter's count per invocation, by event (the JSON: a region's)")                  \
	X(NOT_COUNTED, "notCounted", "table", "", "", "notCounted", "", "", "regions",             \
	  "a region's counters that did not count, and why")                                       \
	X(GPU_NAME, "gpuName", "text", "", "gpu_name", "", "", "gpu", "entry", "the GPU")          \
	X(GPU_SMS, "gpuSMs", "int", "", "gpu_sms", "", "", "gpu", "entry", "its SMs")              \
	X(GPU_MAX_WARPS_PER_SM, "gpuMaxWarpsPerSM", "int", "", "gpu_max_warps_per_sm", "", "",     \
	  "gpu", "entry", "resident warps an SM holds")                                            \
	X(GPU_METRICS, "gpuMetrics", "table", "", "gpu:%s", "", "", "gpu", "quantities",           \
	  "each CUPTI metric's value in the profiled invocation")                                  \
	X(POINT, "point", "table", "", "", "point", "point", "", "executor",                       \
	  "its coordinates (an application's region among them)")                                  \
	X(CEILING, "ceiling", "text", "", "", "ceiling", "", "", "bounds",                         \
	  "the ceiling of its bound, by name")                                                     \
	X(BOUND_FAMILY, "boundFamily", "text", "", "", "traffic", "", "", "bounds",                \
	  "the traffic its bandwidth ceiling is of: triad, read or write")                         \
	X(FAILED, "failed", "text", "", "", "failed", "", "", "executor", "why it failed")         \
	X(CACHED, "cached", "bool", "", "", "", "", "", "executor", "found in the result cache")   \
	X(MEASURED, "measured", "bool", "", "", "", "", "", "executor", "measured in this run")    \
	X(PLANNED, "planned", "bool", "", "", "", "", "", "executor", "rot build: built, not run") \
	X(SLURM, "slurm", "bool", "", "", "", "", "", "executor", "measured on Slurm")             \
	X(ENTRY, "entry", "table", "", "", "", "", "", "executor",                                 \
	  "its cache entry: the report's meta, runs and regions")                                  \
	X(DESC, "desc", "table", "", "", "", "", "", "executor",                                   \
	  "its description (rot.describe): everything that can change the result")                 \
	X(COUNTER_NAMES, "counterNames", "table", "", "", "", "", "", "quantities",                \
	  "its counters' events, in order")                                                        \
	X(MULTIPLEXED, "multiplexed", "bool", "", "", "", "", "", "quantities",                    \
	  "its counts were scaled")                                                                \
	X(TSC_HZ, "tscHz", "number", "Hz", "", "", "", "", "quantities", "the TSC's rate")         \
	X(REPORT, "report", "table", "", "", "", "", "", "quantities",                             \
	  "what the kernel measured itself, by name")                                              \
	X(GPU, "gpu", "table", "", "", "", "", "", "quantities",                                   \
	  "a GPU point's quantities from its metrics (rot.gpu.quantities)")                        \
	X(BYTES_MEASURED, "bytesMeasured", "bool", "", "", "", "", "", "quantities",               \
	  "its bytes were measured")                                                               \
	X(STEP_BOUND, "stepBound", "table", "", "", "", "", "", "bounds",                          \
	  "the sweep's bandwidth at its working set, in the step to DRAM")                         \
	X(BOUND_KEY, "boundKey", "text", "", "", "", "", "", "gpu", "a GPU bound's ceiling key")   \
	X(APP_POINT, "appPoint", "table", "", "", "", "", "", "regions",                           \
	  "a region row's application point")                                                      \
	X(RAN_THREADS, "ranThreads", "int", "", "", "", "", "", "regions",                         \
	  "(program) the threads its fastest invocation ran")                                      \
	X(STDOUT, "stdout", "text", "", "", "stdout", "", "app", "regions",                       \
	  "(program) the fastest invocation's output (its last 16 KiB)")                           \
	X(STDOUT_RUN, "stdoutRun", "int", "", "", "stdoutRun", "", "app", "regions",               \
	  "(program) that invocation (0: the first)")                                              \
	X(STDOUT_BYTES, "stdoutBytes", "int", "B", "", "stdoutBytes", "", "app", "regions",        \
	  "(program) how much that invocation wrote (stdout holds the last 16 KiB)")               \
	X(COUNTED_STDOUT, "countedStdout", "text", "", "", "countedStdout", "", "app", "regions",  \
	  "(program) the counted run's output, under Valgrind (its last 16 KiB)")                  \
	X(PARTIAL, "partial", "table", "", "", "", "", "", "executor",                             \
	  "a failed application point: what its invocations completed (the core's result)")        \
	X(SPEC, "spec", "table", "", "", "", "", "", "executor", "the script's spec of the point") \
	X(TEXT, "text", "text", "", "", "", "", "", "executor", "its description's text")          \
	X(HASH, "hash", "text", "", "", "", "", "", "executor",                                    \
	  "its description's hash: the cache key")                                                 \
	X(KINFO, "kinfo", "table", "", "", "", "", "", "executor", "its kernels, found")           \
	X(PATH, "path", "text", "", "", "", "", "", "executor", "its cache entry's file")          \
	X(KEY, "key", "text", "", "", "", "", "", "executor", "its build key (rot.build.keys)")    \
	X(ITEM, "item", "int", "", "", "", "", "", "executor",                                     \
	  "its place in the executor's items")                                                     \
	X(CACHED_ENTRY, "cached_entry", "table", "", "", "", "", "", "executor",                   \
	  "the entry the cache held when it was looked up")                                        \
	X(SETTLED, "settled", "bool", "", "", "", "", "", "session", "settled with the session")   \
	X(WAITED_FOR, "waited_for", "text", "", "", "", "", "", "executor",                        \
	  "a Slurm task's point: the task whose lock it waited for")

#endif
