/* words: what rot's CUDA library writes in its metrics pass (cuda/sums.c), declared once: the
 * output's first line and each record's word (the driver reads them: rot.protocol.cuda). */
#ifndef ROT_CUDA_WORDS_H
#define ROT_CUDA_WORDS_H

/* The environment of the metrics pass: the metrics (comma-separated, rot.gpu.roofline_metrics)
 * and where the output goes (FILE.PID, one a process that ran kernels). */
#define CUDAMET_ENV_METRICS "ROT_CUDA_METRICS"
#define CUDAMET_ENV_OUT "ROT_CUDA_METRICS_OUT"

/* The first line of the output, and its version. */
#define CUDAMET_MAGIC "rotcudametrics 1"

/*
 * One record a line, its word first, written when the process exits; NAME and TEXT are
 * %XX-escaped; VALUES are each metric's value in the metric lines' order. A reader skips a
 * word it does not know. X(ID, word, syntax, meaning).
 */
#define CUDAMET_RECORDS(X)                                                                         \
	X(METRIC, "metric", "metric I NAME", "metric I of the list, in the values' order")         \
	X(CHIP, "chip", "chip NAME", "the device's chip")                                          \
	X(PASSES, "passes", "passes N", "the passes kernel replay runs each launch for")           \
	X(KERNEL, "kernel", "kernel NAME launches=N VALUES",                                       \
	  "a kernel region (name and launch shape): its launches profiled, each metric summed")    \
	X(RANGE, "range", "range NAME launches=N VALUES",                                          \
	  "an NVTX range: the launches made inside it on its thread (nested ones included), "      \
	  "summed")                                                                                \
	X(UNPROFILED, "unprofiled", "unprofiled N",                                                \
	  "launches not profiled: in another context, past the regions' room, after an error")     \
	X(UNATTRIBUTED, "unattributed", "unattributed N",                                          \
	  "profiled ranges whose values were dropped: their count did not match the launches")     \
	X(MISMATCH, "mismatch", "mismatch N RANGE KERNEL",                                         \
	  "ranges named unlike their launch's kernel (the first pair), their values kept")         \
	X(ERROR, "error", "error TEXT", "why profiling stopped")                                   \
	X(END, "end", "end", "the output is whole")

enum cudamet_record {
#define X(id, word, syntax, meaning) CUDAMET_##id,
	CUDAMET_RECORDS(X)
#undef X
	    CUDAMET_RECORD_N
};

/* A record kind's word. */
static inline const char *cudamet_word(enum cudamet_record r)
{
	static const char *const words[] = {
#define X(id, word, syntax, meaning) word,
	    CUDAMET_RECORDS(X)
#undef X
	};
	return words[r];
}

#endif
