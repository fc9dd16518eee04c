/* Unit tests for core/regions and core/escape: an arena filled as the recorder fills it (no
 * program runs), read into region records: threads summed, the longest thread's time, counts
 * only where every call was counted and every thread could open the event, misuse in words;
 * and the %XX escaping of names both ways.
 * judges no time */
#include "escape.h"
#include "regions.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The records regions_write writes for run 0 of r, into *text; how many regions. */
static int records(struct regions *r, struct region_time *t, char **text)
{
	size_t len = 0;
	FILE *out = open_memstream(text, &len);
	int n = regions_write(r, 0, out, t, 8);
	fclose(out);
	return n;
}

static struct rot_arena_slot *slot(struct rot_arena *a, uint32_t thread, uint32_t region,
				   uint64_t calls, uint64_t ticks)
{
	struct rot_arena_slot *s = &a->slots[a->nslots++];
	*s = (struct rot_arena_slot){.thread = thread,
				     .region = region,
				     .calls = calls,
				     .ticks = ticks,
				     .min_ticks = ticks / calls / 2,
				     .max_ticks = ticks / calls * 2,
				     .counted_calls = calls};
	return s;
}

/* What the recorder could not do, in words: an event refused (as at perf_event_paranoid 3, on
 * any machine), with the hint; regions lost to a full arena. */
static void meta_words(struct regions *r)
{
	char *text = NULL;
	size_t len = 0;
	r->a->event_errno[1] = EACCES;
	r->a->overflow = 7;
	r->a->nprocs = 2;
	r->a->procs[0].pid = 100, r->a->procs[1].pid = 101, r->a->procs[1].marked = 1;
	strcpy(r->a->procs[0].name, "sh");
	strcpy(r->a->procs[1].name, "my prog");
	r->a->forked_calls = 2, r->a->forked_pid = 102;
	FILE *out = open_memstream(&text, &len);
	regions_write_meta(r, out);
	fclose(out);
	ok(strstr(text,
		  "meta eventError1 event 'perf::PAGE-FAULTS' cannot be counted: not permitted at "
		  "this perf_event_paranoid level [Permission denied; perf_event_paranoid=") !=
	       NULL,
	   "an event the kernel refuses: named, with the paranoid level");
	ok(strstr(
	       text,
	       "meta countersHint sudo sysctl kernel.perf_event_paranoid=1 (or run as root)\n") !=
	       NULL,
	   "and the hint on its own line");
	ok(strstr(text, "meta eventError0") == NULL, "the event that opened: no error");
	ok(strstr(text, "meta regionCallsLost 7\n") != NULL, "calls lost to a full arena: said");
	ok(strstr(text, "meta markersAttached 1\n") != NULL, "the recorder attached");
	ok(strstr(text, "meta markerProcess0 sh pid=100 marked=0\n") != NULL &&
	       strstr(text, "meta markerProcess1 my_prog pid=101 marked=1\n") != NULL,
	   "each process of the tree that attached: its name (a space made a word), pid, whether it "
	   "marked");
	ok(strstr(text, "meta markersForked 2\nmeta markersForkedPid 102\n") != NULL,
	   "markers a forked process called: counted, with its pid");
	free(text);
}

/* A phase: one thread entered it, around the others' work: its counts are the whole
 * process's while it was open (the process-wide counters its thread read), never the thread's
 * own; none where those did not run. */
static void phase_counts(void)
{
	struct regions r;
	char names[2][128] = {"perf::TASK-CLOCK", "perf::PAGE-FAULTS"};
	ok(regions_setup(&r, names, 2) == 0 && regions_open(&r) == 0, "an arena of two events");
	struct rot_arena *a = r.a;
	a->clock = r.clock = ROT_CLOCK_NS;
	a->attached = 1;
	a->nregions = 2;
	strcpy(a->names[0], "phase");
	strcpy(a->names[1], "other");
	struct rot_arena_slot *s = slot(a, 0, 0, 2, 9000);
	s->counts[0] = 900, s->counts[1] = 1;
	s->process_calls = 2, s->process_counts[0] = 1800, s->process_counts[1] = 4;
	s = slot(a, 3, 1, 2, 9000); /* begun in a thread that does not read the process's */
	s->counts[0] = 900;
	struct region_time t[8];
	char *text = NULL;
	ok(records(&r, t, &text) == 2, "two regions");
	ok(strstr(text, "name=phase calls=2 callsTotal=2 threads=1 ") != NULL &&
	       strstr(text, "wholeProcess=1 processCalls=2 e0=1800 e1=4\n") != NULL,
	   "a region one thread entered: the whole process's counts while it was open");
	char *other = strstr(text, "name=other ");
	ok(other && strstr(other, "wholeProcess=1 processCalls=0\n") != NULL,
	   "one whose process-wide counters did not run: no count at all, never its thread's");
	free(text);
	regions_free(&r);
}

static void arena_read(void)
{
	struct regions r;
	char names[2][128] = {"perf::TASK-CLOCK", "perf::PAGE-FAULTS"};
	ok(regions_setup(&r, names, 2) == 0, "two software events encoded");
	r.clock = ROT_CLOCK_NS; /* ticks are nanoseconds here */
	ok(regions_open(&r) == 0 && r.a && r.a->magic == ROT_ARENA_MAGIC && r.a->nevents == 2,
	   "an arena for an invocation: its magic and events set");
	struct rot_arena *a = r.a;
	a->clock = ROT_CLOCK_NS;
	a->attached = 1;
	a->nregions = 2;
	strcpy(a->names[0], "solve");
	strcpy(a->names[1], "2 pass");
	struct rot_arena_slot *s = slot(a, 0, 0, 10, 4000);
	s->flops = 100, s->bytes = 800, s->work_calls = 10, s->counts[0] = 3000, s->counts[1] = 2;
	s = slot(a, 1, 0, 8, 6000);
	s->flops = 50, s->bytes = 400, s->work_calls = 8, s->counts[0] = 5000, s->counts[1] = 1;
	s = slot(a, 1, 1, 4, 100);
	s->counted_calls = 3;
	s->open = 1;
	s = slot(a, 2, 1, 4, 100);
	s->missing = 1;
	s->proc = 1; /* another process of the program's tree: its thread counts as the program's */
	struct region_time t[8];
	char *text = NULL;
	ok(records(&r, t, &text) == 2, "two regions");
	ok(strstr(text,
		  "region run=0 name=solve calls=10 callsTotal=18 threads=2 processes=1 ns=6000 nsSum=10000 "
		  "minNs=200 maxNs=1500 open=0 flops=150 bytes=1200 ") != NULL,
	   "solve over its two threads: calls of the busiest, all calls, the longest thread's "
	   "time, "
	   "the shortest and longest call, the work summed");
	ok(strstr(text, "countedCalls=18 multiplexedCalls=0 wholeProcess=0 processCalls=0 e0=8000 "
			"e1=3\n") != NULL,
	   "every call counted: both events' counts, summed over the threads that entered it");
	ok(strstr(text, "name=%32%20pass ") != NULL,
	   "a name escaped: a leading digit too (never a number)");
	char *pass = strstr(text, "name=%32");
	ok(pass && strstr(pass, " e0=") == NULL && strstr(pass, " e1=") == NULL,
	   "a call not counted, or a thread that could not open an event: no count at all, never "
	   "0");
	ok(pass && strstr(pass, " open=1 ") != NULL, "a call never closed is said");
	ok(pass && strstr(pass, " threads=2 processes=2 ") != NULL,
	   "a region two processes entered: their threads are its threads, and the processes counted");
	ok(t[0].ns == 6000 && strcmp(t[0].name, "solve") == 0, "the times for the stop rule");
	free(text);
	char why[512];
	a->misuse = ROT_MISUSE_OTHER_THREAD, a->misuse_thread = 1, a->misuse_other = 0,
	a->misuses = 3;
	strcpy(a->misuse_region, "handoff");
	regions_misuse(&r, why, sizeof why);
	is_str(why,
	       "region 'handoff' ended in thread 1, but thread 0 began it: a region ends in the "
	       "thread that began it (and 2 more misuses)",
	       "a region ended in another thread: both threads named");
	a->misuse = ROT_MISUSE_NOT_INNERMOST, a->misuses = 1;
	strcpy(a->misuse_inner, "inner");
	regions_misuse(&r, why, sizeof why);
	is_str(why,
	       "region 'handoff' ended in thread 1 while 'inner', begun inside it, was still open: "
	       "regions end innermost first",
	       "a region ended before one begun inside it");
	meta_words(&r);
	regions_free(&r);
}

static void escaping(void)
{
	char *text = NULL, back[64];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	escape_write(out, "a b%c=d\n", 8);
	fclose(out);
	is_str(text, "a%20b%25c%3Dd%0A", "escaped: space, %%, =, newline");
	ok(escape_decode(text, back, sizeof back) == 8 && strcmp(back, "a b%c=d\n") == 0,
	   "and decoded back");
	ok(escape_decode("%4", back, sizeof back) < 0 &&
	       escape_decode("%zz", back, sizeof back) < 0,
	   "a %% without two hex digits is refused");
	ok(escape_decode("abcdef", back, 4) < 0, "so is text longer than its room");
	free(text);
}

int main(void)
{
	arena_read();
	phase_counts();
	escaping();
	return done_testing();
}
