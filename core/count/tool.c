/* tool: rotcount, rot's Valgrind tool (built by core/Makefile, run by rot's counting pass):
 * counts per thread what instrument.c counts, per region what the marker requests bracket (a
 * region one thread entered: the whole process's while it was open), the simulated caches'
 * traffic, tells contexts.c the region each thread is in, and writes them all to --rot-out when
 * the program ends (a process it forks, its own to --rot-out.PID). */
#include "instrument.h"
#include "cachesim.h"
#include "loops.h"
#include "contexts.h"

#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "valgrind.h"

#define REGIONS 1024 /* region names a program may use */
#define DEPTH 64     /* regions open at once in one thread */

ULong count_live[COUNT_N];
Bool count_simulating;

static const HChar *out_path;	/* --rot-out=FILE */
static const HChar *cache_spec; /* --rot-cache=SIZE:ASSOC,...: the levels, L1 first */
static Long line_size = 64;	/* --rot-line=BYTES */
static Int first_pid; /* the program's: a process it forks (still under the tool) writes nothing */
static struct cachesim sim;
struct cachesim *count_cachesim = &sim;

/* What each thread counted while it ran (the running one's latest in count_live). */
struct thread {
	ULong total[COUNT_N];
	Bool ran;
	Int depth, overdepth;
	struct frame {
		Int region;
		ULong seq;		   /* the begins before it, in any thread */
		ULong at[COUNT_N];	   /* the thread's counts when it began */
		ULong process_at[COUNT_N]; /* the whole process's */
	} stack[DEPTH];
};
static struct thread *threads;
static ThreadId running = VG_INVALID_THREADID;
static ULong process_total[COUNT_N]; /* every thread's counts but the running one's latest */
static ULong begins;		     /* regions begun, in any thread */
static ThreadId last_tid;	     /* the highest thread that ran */

/* Per region: its name, its counts summed over calls and threads (and the whole process's
 * while a call of it was open), its calls, its threads. */
static struct region {
	HChar name[COUNT_NAME_MAX];
	ULong counts[COUNT_N];
	ULong process_counts[COUNT_N];
	ULong calls, threads;
	ThreadId last; /* the thread that last began it, to count threads once each */
} * regions;
static Int nregions;
static ULong misuses; /* ends that end no open region, names too long, too many regions */
static ULong forks;   /* processes the program forked (each writes its own counts: FILE.PID) */
static Bool child;    /* this process was forked under the tool: it counts its own work */

/*
 * The context loops.c counts thread tid's code in: 2r+1 where its innermost open region is r;
 * where it is in none, 2r+2 where r is the region last begun in another thread and still open
 * (a region one thread entered around others' work: the whole process's), else 0.
 */
static UInt context_of(ThreadId tid)
{
	const struct thread *t = &threads[tid];
	if (t->depth > 0)
		return 2 * (UInt)t->stack[t->depth - 1].region + 1;
	const struct frame *last = NULL;
	for (ThreadId o = 1; o <= last_tid; o++) {
		const struct thread *x = &threads[o];
		if (x->depth > 0 && (!last || x->stack[x->depth - 1].seq > last->seq))
			last = &x->stack[x->depth - 1];
	}
	return last ? 2 * (UInt)last->region + 2 : 0;
}

/* The region whose part a context's counts are (loops.c's region_of): a region's own, and
 * another thread's in it where one thread entered it (its counts are the whole process's). */
static Int region_of_context(UInt ctx)
{
	if (ctx == 0)
		return -1;
	Int r = (Int)((ctx - 1) / 2);
	return ctx % 2 || regions[r].threads == 1 ? r : -1;
}

static const HChar *region_name(Int r)
{
	return regions[r].name;
}

static void started(ThreadId tid, ULong blocks)
{
	running = tid;
	threads[tid].ran = True;
	if (tid > last_tid)
		last_tid = tid;
	if (count_loops)
		contexts_enter(context_of(tid));
}

static void stopped(ThreadId tid, ULong blocks)
{
	for (Int i = 0; i < COUNT_N; i++) {
		threads[tid].total[i] += count_live[i];
		process_total[i] += count_live[i];
		count_live[i] = 0;
	}
	running = VG_INVALID_THREADID;
}

/* Thread tid's counts now. */
static void counts_now(ThreadId tid, ULong *out)
{
	for (Int i = 0; i < COUNT_N; i++)
		out[i] = threads[tid].total[i] + (tid == running ? count_live[i] : 0);
}

/* The whole process's counts now: every thread's. */
static void process_now(ULong *out)
{
	for (Int i = 0; i < COUNT_N; i++)
		out[i] = process_total[i] + (running != VG_INVALID_THREADID ? count_live[i] : 0);
}

VG_REGPARM(3) void count_sim_access(Addr addr, UWord size, UWord write)
{
	cachesim_ref(&sim, addr, size, (int)write, &count_live[COUNT_FILL1], 0);
}

/* The region of a name the program passed (created when new): -1 after a misuse. */
static Int region_of(const HChar *name, Bool create)
{
	if (!name || VG_(strlen)(name) >= COUNT_NAME_MAX)
		return -1;
	for (Int i = 0; i < nregions; i++)
		if (VG_(strcmp)(regions[i].name, name) == 0)
			return i;
	if (!create || nregions == REGIONS)
		return -1;
	VG_(strcpy)(regions[nregions].name, name);
	regions[nregions].last = VG_INVALID_THREADID;
	return nregions++;
}

static void begin(ThreadId tid, const HChar *name)
{
	struct thread *t = &threads[tid];
	Int r = region_of(name, True);
	if (r < 0 || t->depth == DEPTH) {
		misuses++;
		t->overdepth += r >= 0;
		return;
	}
	struct frame *f = &t->stack[t->depth++];
	f->region = r;
	f->seq = ++begins;
	counts_now(tid, f->at);
	process_now(f->process_at);
	if (regions[r].last != tid)
		regions[r].threads++;
	regions[r].last = tid;
	if (count_loops)
		contexts_enter(context_of(tid));
}

static void end(ThreadId tid, const HChar *name)
{
	struct thread *t = &threads[tid];
	Int r = region_of(name, False);
	if (t->overdepth > 0) {
		t->overdepth--;
		return;
	}
	if (r < 0 || t->depth == 0 || t->stack[t->depth - 1].region != r) {
		misuses++;
		return;
	}
	struct frame *f = &t->stack[--t->depth];
	ULong now[COUNT_N], all[COUNT_N];
	counts_now(tid, now);
	process_now(all);
	for (Int i = 0; i < COUNT_N; i++) {
		regions[r].counts[i] += now[i] - f->at[i];
		regions[r].process_counts[i] += all[i] - f->process_at[i];
	}
	regions[r].calls++;
	if (count_loops)
		contexts_enter(context_of(tid));
}

static Bool request(ThreadId tid, UWord *arg, UWord *ret)
{
	if (!VG_IS_TOOL_USERREQ('R', 'C', arg[0]))
		return False;
	switch (arg[0]) {
	case COUNT_REQUEST_BEGIN:
		begin(tid, (const HChar *)arg[1]);
		break;
	case COUNT_REQUEST_END:
		end(tid, (const HChar *)arg[1]);
		break;
	case COUNT_REQUEST_FLUSH:
		if (count_simulating)
			cachesim_flush(&sim);
		break;
	default:
		return False;
	}
	*ret = 0;
	return True;
}

/* Output: lines into a buffer, written at the end (to a temp file then renamed). */
static HChar *buf;
static SizeT used, room;

static void put(const HChar *text)
{
	SizeT n = VG_(strlen)(text);
	if (used + n + 1 > room) {
		room = 2 * (used + n + 1);
		buf = VG_(realloc)("rotcount.out", buf, room);
	}
	VG_(memcpy)(buf + used, text, n);
	used += n;
}

static void put_counts(const ULong *c)
{
	static const HChar *names[] = {
#define X(id, name, meaning) name,
	    COUNT_FLOPS(X) COUNT_SHARES(X) COUNT_BYTES(X) COUNT_TRAFFIC(X)
#undef X
	};
	HChar s[64];
	for (Int i = 0; i < COUNT_N; i++) {
		VG_(snprintf)(s, sizeof s, " %s=%llu", names[i], c[i]);
		put(s);
	}
	put("\n");
}

/* A region's name as one token: %XX for every byte but letters, digits and _.-/:,+@ */
static void put_name(const HChar *name)
{
	HChar s[8];
	for (const HChar *c = name; *c; c++) {
		Bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			     (*c >= '0' && *c <= '9') || VG_(strchr)("_.-/:,+@", *c);
		VG_(snprintf)(s, sizeof s, plain ? "%c" : "%%%02X", plain ? *c : (UChar)*c);
		put(s);
	}
	if (!*name)
		put("%");
}

static void write_out(const HChar *out_path)
{
	HChar s[160], *tmp = VG_(malloc)("rotcount.path", VG_(strlen)(out_path) + 8);
	ULong all[COUNT_N], n = 0;
	VG_(memset)(all, 0, sizeof all);
	for (UInt t = 1; t < VG_N_THREADS; t++) {
		ULong c[COUNT_N];
		counts_now(t, c);
		for (Int i = 0; i < COUNT_N; i++)
			all[i] += c[i];
		n += threads[t].ran;
	}
	put(COUNT_OUTPUT_MAGIC "\n");
	VG_(snprintf)(s, sizeof s, "%s %lld\n", count_record_word(COUNT_RECORD_LINE), line_size);
	put(s);
	for (Int i = 0; count_simulating && i < sim.n; i++) {
		VG_(snprintf)
		(s, sizeof s, "%s %d size=%llu assoc=%u\n", count_record_word(COUNT_RECORD_LEVEL),
		 i + 1, sim.lv[i].sets * sim.lv[i].assoc * sim.line, sim.lv[i].assoc);
		put(s);
	}
	if (forks) {
		VG_(snprintf)
		(s, sizeof s, "%s n=%llu\n", count_record_word(COUNT_RECORD_FORKS), forks);
		put(s);
	}
	VG_(snprintf)
	(s, sizeof s, "%s %llu\n%s threads=%llu", count_record_word(COUNT_RECORD_MISUSES), misuses,
	 count_record_word(COUNT_RECORD_PROGRAM), n);
	put(s);
	put_counts(all);
	for (Int r = 0; r < nregions; r++) {
		put(count_record_word(COUNT_RECORD_REGION));
		put(" name=");
		put_name(regions[r].name);
		/* one thread entered it (begun outside any parallel region, around the program's
		 * parallel work): the whole process's counts while it was open; else its threads'
		 */
		Bool whole = regions[r].threads == 1;
		VG_(snprintf)
		(s, sizeof s, " calls=%llu threads=%llu whole_process=%d", regions[r].calls,
		 regions[r].threads, whole ? 1 : 0);
		put(s);
		put_counts(whole ? regions[r].process_counts : regions[r].counts);
	}
	if (count_loops)
		loops_write(put, put_name, put_counts, region_of_context, region_name);
	VG_(sprintf)(tmp, "%s.tmp", out_path);
	Int fd = VG_(fd_open)(tmp, VKI_O_CREAT | VKI_O_WRONLY | VKI_O_TRUNC, 0644);
	if (fd < 0 || VG_(write)(fd, buf, (Int)used) != (Int)used || VG_(rename)(tmp, out_path))
		VG_(umsg)("rotcount: cannot write '%s'\n", out_path);
	if (fd >= 0)
		VG_(close)(fd);
}

static void fini(Int exitcode)
{
	if (VG_(getpid)() == first_pid) {
		write_out(out_path);
	} else if (child) {
		HChar *path = VG_(malloc)("rotcount.path", VG_(strlen)(out_path) + 16);
		VG_(sprintf)(path, "%s.%d", out_path, VG_(getpid)());
		write_out(path);
	}
}

/* The parent forked: its child writes its own counts. */
static void forked_parent(ThreadId tid)
{
	forks++;
}

/* A thread ended: the regions it left open end with it, uncounted (as a call never closed), and
 * no other thread's work is theirs from now on (its counts so far stay: the process's). */
static void thread_exited(ThreadId tid)
{
	if (threads)
		threads[tid].depth = threads[tid].overdepth = 0;
}

/* A thread made: its number may be one an exited thread had; a region that thread entered is
 * entered anew by this one (a thread more). */
static void thread_created(ThreadId parent, ThreadId child)
{
	(void)parent;
	if (!threads) /* (the first thread: made before the options are read) */
		return;
	threads[child].depth = threads[child].overdepth = 0;
	for (Int r = 0; r < nregions; r++)
		if (regions[r].last == child)
			regions[r].last = VG_INVALID_THREADID;
}

/* In a child forked under the tool: from here it counts its own work alone, in its thread (the
 * one thread a fork keeps: the others' open regions are gone with them). A region open in it
 * goes on from the fork, as one thread's. */
static void forked_child(ThreadId tid)
{
	VG_(memset)(count_live, 0, sizeof count_live);
	VG_(memset)(process_total, 0, sizeof process_total);
	for (Int r = 0; r < nregions; r++) {
		VG_(memset)(regions[r].counts, 0, sizeof regions[r].counts);
		VG_(memset)(regions[r].process_counts, 0, sizeof regions[r].process_counts);
		regions[r].calls = regions[r].threads = 0;
		regions[r].last = VG_INVALID_THREADID;
	}
	for (UInt t = 0; t < VG_N_THREADS; t++) {
		struct thread *x = &threads[t];
		VG_(memset)(x->total, 0, sizeof x->total);
		if (t != tid)
			x->depth = x->overdepth = 0;
		for (Int d = 0; d < x->depth; d++) {
			VG_(memset)(x->stack[d].at, 0, sizeof x->stack[d].at);
			VG_(memset)(x->stack[d].process_at, 0, sizeof x->stack[d].process_at);
			regions[x->stack[d].region].threads = 1;
			regions[x->stack[d].region].last = tid;
		}
		x->ran = t == tid;
	}
	misuses = forks = 0;
	child = True;
	if (count_loops)
		loops_forget();
}

/* --rot-cache=SIZE:ASSOC,...: the simulated levels; False when the text is no hierarchy. */
static Bool caches_set(const HChar *spec)
{
	struct cachesim_level lv[CACHESIM_MAX_LEVELS];
	Int n = 0;
	HChar *end;
	for (const HChar *p = spec; *p && n < CACHESIM_MAX_LEVELS; n++) {
		lv[n].size = (ULong)VG_(strtoll10)(p, &end);
		if (*end != ':')
			return False;
		lv[n].assoc = (UInt)VG_(strtoll10)(end + 1, &end);
		if (*end != ',' && *end != '\0')
			return False;
		p = *end ? end + 1 : end;
	}
	ULong words = cachesim_words(lv, n, (ULong)line_size);
	if (words == 0)
		return False;
	cachesim_init(&sim, lv, n, (ULong)line_size,
		      VG_(malloc)("rotcount.cache", words * sizeof(ULong)));
	count_simulating = True;
	return True;
}

static Bool option(const HChar *arg)
{
	if VG_STR_CLO (arg, "--rot-out", out_path) {
	} else if VG_STR_CLO (arg, "--rot-cache", cache_spec) {
	} else if VG_INT_CLO (arg, "--rot-line", line_size) {
	} else if VG_BOOL_CLO (arg, "--rot-loops", count_loops) {
	} else
		return False;
	return True;
}

static void usage(void)
{
	VG_(printf)
	("    --rot-out=FILE               where the counts go [required]\n"
	 "    --rot-cache=SIZE:WAYS,...    caches to simulate, L1 first [none]\n"
	 "    --rot-line=BYTES             their line size [64]\n"
	 "    --rot-loops=no|yes           count loops and functions apart [no]\n");
}

static void post_clo_init(void)
{
	if (!out_path)
		VG_(fmsg_bad_option)("--rot-out", "rotcount needs --rot-out=FILE\n");
	if (cache_spec && !caches_set(cache_spec))
		VG_(fmsg_bad_option)("--rot-cache", "not a cache hierarchy: '%s'\n", cache_spec);
	first_pid = VG_(getpid)();
	threads = VG_(calloc)("rotcount.threads", VG_N_THREADS, sizeof *threads);
	regions = VG_(calloc)("rotcount.regions", REGIONS, sizeof *regions);
	if (count_loops)
		contexts_enter(0);
	VG_(atfork)(NULL, forked_parent, forked_child);
}

static void pre_clo_init(void)
{
	VG_(details_name)("rotcount");
	VG_(details_version)("1");
	VG_(details_description)("rot's counting pass: flops, bytes, simulated caches");
	VG_(details_copyright_author)("rot");
	VG_(details_bug_reports_to)("rot's maintainers");
	VG_(details_avg_translation_sizeB)(400);
	VG_(basic_tool_funcs)(post_clo_init, count_instrument, fini);
	VG_(needs_command_line_options)(option, usage, NULL);
	VG_(needs_client_requests)(request);
	VG_(track_start_client_code)(started);
	VG_(track_stop_client_code)(stopped);
	VG_(track_pre_thread_ll_create)(thread_created);
	VG_(track_pre_thread_ll_exit)(thread_exited);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
