/* Unit tests for core/cuda/records: what rot's CUDA library makes of CUPTI's records, on records
 * built here (none captured from a device): kernel names demangled with their launch shape, a
 * kernel record read at its fields' offsets, calls grouped per name and shape into the arena
 * and read back as region records (calls, time, best call), NVTX ranges as regions (push/pop
 * nested per domain, start/end by id across threads, wide and registered names).
 * judges no time */
#include "cuda/records.h"
#include "escape.h"
#include "regions.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static void names(void)
{
	char out[ROT_ARENA_NAME];
	uint32_t g1[3] = {32768, 1, 1}, b1[3] = {1024, 1, 1}, g2[3] = {64, 64, 1},
		 b2[3] = {16, 16, 1}, g3[3] = {4, 2, 3};
	cudarec_name("_Z12triad_kernelIdEvPKT_S2_PS0_S0_", g1, b1, out, sizeof out);
	is_str(out, "triad_kernel<double> <<<32768, 1024>>>",
	       "a template kernel: demangled, no return type or parameters, its grid and block");
	cudarec_name("_ZN6stream4copyEPKfPf", g2, b2, out, sizeof out);
	is_str(out, "stream::copy <<<64x64, 16x16>>>",
	       "a kernel in a namespace; dimensions of 1 left off the end");
	cudarec_name("plain_c_kernel", g3, b1, out, sizeof out);
	is_str(out, "plain_c_kernel <<<4x2x3, 1024>>>", "an extern \"C\" kernel keeps its name");
	cudarec_name("_ZN12_GLOBAL__N_16kernelEv", g1, b1, out, sizeof out);
	is_str(out, "(anonymous namespace)::kernel <<<32768, 1024>>>",
	       "a kernel in an anonymous namespace");
	/* nvcc's extended lambdas: BabelStream's (57637d5, nvcc 13), a host-device one */
	uint32_t g4[3] = {1056, 1, 1};
	cudarec_name(
	    "_Z15for_each_kernelI17__nv_dl_wrapper_tI11__nv_dl_tagIM10CUDAStreamIdEFvvEXadL_"
	    "ZNS3_4copyEvEELj1EEJPdS7_EEEvmmT_",
	    g4, b1, out, sizeof out);
	is_str(out, "for_each_kernel<CUDAStream<double>::copy {lambda #1}> <<<1056, 1024>>>",
	       "a device lambda's kernel: named by the function that holds the lambda");
	char triad[ROT_ARENA_NAME];
	cudarec_name(
	    "_Z15for_each_kernelI17__nv_dl_wrapper_tI11__nv_dl_tagIM10CUDAStreamIdEFvvEXadL_"
	    "ZNS3_5triadEvEELj1EEJPdS7_S7_EEEvmmT_",
	    g4, b1, triad, sizeof triad);
	is_str(triad, "for_each_kernel<CUDAStream<double>::triad {lambda #1}> <<<1056, 1024>>>",
	       "another lambda's kernel: another name");
	cudarec_name(
	    "_Z15for_each_kernelI17__nv_dl_wrapper_tI11__nv_dl_tagIM10CUDAStreamIfEFvfffEXadL_"
	    "ZNS3_11init_arraysEfffEELj1EEJPfS7_S7_fffEEEvmmT_",
	    g4, b1, out, sizeof out);
	is_str(out, "for_each_kernel<CUDAStream<float>::init_arrays {lambda #1}> <<<1056, 1024>>>",
	       "a lambda of a function with parameters, capturing values");
	cudarec_name("_Z5applyI18__nv_hdl_wrapper_tILb0ELb0ELb0E11__nv_dl_tagIM1SFvPiiEXadL_ZNS2_"
		     "3runES3_iEELj1EEFiiEJiEEEvT_S3_",
		     g4, b1, out, sizeof out);
	is_str(out, "apply<S::run {lambda #1}> <<<1056, 1024>>>",
	       "a host-device lambda's kernel: the same form");
	cudarec_name("_Z1kI17__nv_dl_wrapper_tIiEEvv", g4, b1, out, sizeof out);
	is_str(out, "k<__nv_dl_wrapper_t<int> > <<<1056, 1024>>>",
	       "a wrapper without nvcc's tag is left as it is");
	char longname[400] = "_Z300";
	memset(longname + 5, 'k', 300);
	longname[305] = '\0';
	strcat(longname, "v");
	cudarec_name(longname, g1, b1, out, sizeof out);
	ok(strlen(out) == ROT_ARENA_NAME - 1 && strstr(out, " <<<32768, 1024>>>") != NULL,
	   "a name too long for a region is cut, its shape kept");
	char other[ROT_ARENA_NAME];
	longname[303] = 'j'; /* the same name but for its end: another kernel */
	cudarec_name(longname, g1, b1, other, sizeof other);
	ok(strlen(other) == ROT_ARENA_NAME - 1 && strcmp(out, other) != 0,
	   "two long names that differ only past the cut stay two regions (the cut ends in a "
	   "hash)");
}

/* Kernel records into an arena, read back as region records. */
static void grouping(void)
{
	struct regions r;
	struct region_time times[8];
	char *text = NULL;
	size_t len = 0;
	regions_setup(&r, NULL, 0);
	r.clock = ROT_CLOCK_NS;
	ok(regions_open(&r) == 0, "an arena as the core makes it");
	r.a->attached = 1;
	struct cudarec_kernels *k = calloc(1, sizeof *k);
	cudarec_kernels_start(k, r.a, 0);
	int unmarked = !r.a->procs[0].marked;
	char a[ROT_ARENA_NAME], b[ROT_ARENA_NAME];
	uint32_t g1[3] = {1024, 1, 1}, g2[3] = {2048, 1, 1}, blk[3] = {256, 1, 1};
	cudarec_name("_Z5scalePdd", g1, blk, a, sizeof a);
	cudarec_name("_Z5scalePdd", g2, blk, b, sizeof b);
	cudarec_kernel(k, a, 1000, 3000); /* 2000 ns */
	cudarec_kernel(k, b, 4000, 9000); /* another shape: another region */
	cudarec_kernel(k, a, 10000, 11500);
	cudarec_kernel(k, a, 12000, 14500);
	FILE *out = open_memstream(&text, &len);
	int n = regions_write(&r, 0, out, times, 8);
	fclose(out);
	ok(n == 2, "one region per name and launch shape (%d)", n);
	ok(unmarked && r.a->procs[0].marked, "the process is marked as one that recorded regions");
	ok(strstr(text, "name=scale%20%3C%3C%3C1024,%20256%3E%3E%3E") != NULL,
	   "the region is named by the kernel and its shape");
	ok(strstr(text, " calls=3 ") != NULL, "three calls of the first shape");
	ok(strstr(text, " ns=6000 ") != NULL,
	   "its time: the calls' GPU time summed (2000+1500+2500 ns)");
	ok(strstr(text, " minNs=1500 ") != NULL, "its best call: the shortest (1500 ns)");
	ok(strstr(text, " calls=1 ") != NULL && strstr(text, " ns=5000 ") != NULL,
	   "the other shape: one call of 5000 ns");
	if (tap_failed)
		printf("# %s", text);
	free(text);
	free(k);
	regions_free(&r);
}

/* A kernel record as CUPTI lays it out (a version past CUDA 13's: more bytes after them). */
static void launch(void)
{
	unsigned char rec[256];
	uint64_t t0 = 123456789, t1 = 123459999;
	int32_t g[3] = {32768, 2, 1}, b[3] = {1024, 1, 1};
	const char *name = "_Z5scalePdd";
	memset(rec, 0xab, sizeof rec);
	memcpy(rec + CUDAREC_KERNEL_START, &t0, 8);
	memcpy(rec + CUDAREC_KERNEL_END, &t1, 8);
	memcpy(rec + CUDAREC_KERNEL_GRID, g, sizeof g);
	memcpy(rec + CUDAREC_KERNEL_BLOCK, b, sizeof b);
	memcpy(rec + CUDAREC_KERNEL_NAME, &name, sizeof name);
	struct cudarec_launch l;
	cudarec_launch_of(rec, &l);
	ok(l.start == t0 && l.end == t1, "a kernel record's start and end read at their offsets");
	ok(l.grid[0] == 32768 && l.grid[1] == 2 && l.grid[2] == 1 && l.block[0] == 1024 &&
	       l.block[1] == 1 && l.block[2] == 1,
	   "its grid and block");
	ok(l.name == name, "its name");
}

/* The arena the core makes, for the tests that read regions back. */
static struct regions arena_(void)
{
	struct regions r;
	regions_setup(&r, NULL, 0);
	r.clock = ROT_CLOCK_NS;
	if (regions_open(&r) == 0)
		r.a->attached = 1;
	return r;
}

/* The regions' records, as the core reads them. */
static char *records_of(struct regions *r)
{
	struct region_time times[16];
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	regions_write(r, 0, out, times, 16);
	fclose(out);
	return text;
}

/* Key key of region name's record in text: -1 when there is none. */
static double value(const char *text, const char *name, const char *key)
{
	char want[512], *esc = NULL, k[64];
	size_t n = 0;
	FILE *f = open_memstream(&esc, &n);
	escape_write(f, name, strlen(name));
	fclose(f);
	snprintf(want, sizeof want, " name=%s ", esc);
	free(esc);
	const char *line = strstr(text, want);
	if (!line)
		return -1;
	const char *end = strchr(line, '\n');
	snprintf(k, sizeof k, " %s=", key);
	const char *at = strstr(line, k);
	return at && (!end || at < end) ? strtod(at + strlen(k), NULL) : -1;
}

static void names_nvtx(void)
{
	char out[ROT_ARENA_NAME], small[7];
	const wchar_t w[] = {L'r', 0xe9, L'g', 0x4e2d, 0x1f680, 0xd800, 0};
	cudarec_utf8(w, out, sizeof out);
	is_str(out, "r\xc3\xa9g\xe4\xb8\xad\xf0\x9f\x9a\x80\xef\xbf\xbd",
	       "a wide name in UTF-8: 1 to 4 bytes a character, a surrogate as U+FFFD");
	cudarec_utf8(w, small, sizeof small);
	is_str(small, "r\xc3\xa9g", "cut at a character's end, not inside one");
	cudarec_utf8(NULL, out, sizeof out);
	is_str(out, "", "no wide name: empty");
	cudarec_range_name(NULL, "step", out, sizeof out);
	is_str(out, "step", "a range of NVTX's default domain: its message");
	cudarec_range_name("solver", "step", out, sizeof out);
	is_str(out, "solver:step", "a range of a domain: the domain's name, a colon, its message");
	cudarec_range_name("", NULL, out, sizeof out);
	is_str(out, "(domain):(unnamed)", "an unknown domain and no message are named so");

	struct cudarec_handles *h = calloc(1, sizeof *h);
	int a, b;
	cudarec_handle_add(h, &a, "solver");
	cudarec_handle_add(h, &b, "io");
	is_str(cudarec_handle_name(h, &b), "io", "a handle's name");
	ok(cudarec_handle_name(h, h) == NULL, "an unknown handle has none");
	cudarec_handle_add(h, &a, "solver2");
	is_str(cudarec_handle_name(h, &a), "solver2", "a handle seen again takes its new name");
	for (int i = 0; i < CUDAREC_HANDLES; i++)
		cudarec_handle_add(h, (char *)h + i, "x");
	ok(h->n == CUDAREC_HANDLES && h->lost == 2, "handles past the table's room are counted");
	free(h);
}

/* Push/pop ranges: each domain nests on its own, timed by push and pop. */
static void nvtx(void)
{
	struct regions r = arena_();
	struct cudarec_nvtx *t = calloc(1, sizeof *t), *u = calloc(1, sizeof *u);
	int dom; /* a domain's handle */
	cudarec_nvtx_start(t, r.a, 0);
	cudarec_nvtx_start(u, r.a, 0);
	cudarec_push(t, NULL, "step", 1000);
	cudarec_push(t, &dom, "lib:solve", 1100);
	cudarec_push(u, NULL, "io", 1150); /* another thread's, in between */
	cudarec_pop(t, NULL, 1500);	   /* ends step, though lib:solve began inside it */
	cudarec_push(t, NULL, "step", 2000);
	cudarec_pop(t, &dom, 2400); /* lib:solve: 1300 */
	cudarec_pop(t, NULL, 2100);
	cudarec_pop(u, NULL, 1250);
	cudarec_pop(t, NULL, 3000); /* nothing pushed */
	cudarec_pop(t, &dom, 3000);
	cudarec_push(t, NULL, "left open", 4000);
	char *text = records_of(&r);
	ok(value(text, "step", "calls") == 2 && value(text, "step", "ns") == 600 &&
	       value(text, "step", "minNs") == 100,
	   "a default-domain range: two calls, 500 and 100 ns, though a domain's range was open");
	ok(value(text, "lib:solve", "calls") == 1 && value(text, "lib:solve", "ns") == 1300,
	   "the domain's range: one call, from its push to its domain's pop (1300 ns)");
	ok(value(text, "io", "calls") == 1 && value(text, "io", "ns") == 100,
	   "another thread's range is its own");
	ok(t->stray == 2, "a pop with nothing pushed in its domain is counted, not ended");
	ok(value(text, "left open", "calls") == 0 && value(text, "left open", "open") == 1,
	   "a range never popped is counted open");
	if (tap_failed)
		printf("# %s", text);
	free(text);
	free(t);
	text = records_of(&r);
	ok(value(text, "left open", "open") == 1,
	   "its thread's state freed (the thread ended): the range is still counted open");
	free(text);

	cudarec_nvtx_start(u, r.a, 0);
	for (int i = 0; i < CUDAREC_DEPTH + 2; i++)
		cudarec_push(u, NULL, "deep", 10 * (uint64_t)i);
	cudarec_push(u, &dom, "lib:past", 5000); /* past the depth too, in a domain */
	cudarec_pop(u, &dom, 5100);
	for (int i = CUDAREC_DEPTH + 2; i-- > 0;)
		cudarec_pop(u, NULL, 1000 + 20 * (uint64_t)i);
	text = records_of(&r);
	ok(u->depth == 0 && u->stray == 0 && value(text, "deep", "calls") == CUDAREC_DEPTH &&
	       value(text, "deep", "open") == 0,
	   "ranges pushed past the depth are not timed, and popped in turn (%g calls)",
	   value(text, "deep", "calls"));
	ok(value(text, "deep", "maxNs") == 1000 + 10 * (CUDAREC_DEPTH - 1),
	   "the timed ones are the outer ones (the longest: the innermost of them, %g ns)",
	   value(text, "deep", "maxNs"));
	free(text);
	free(u);
	regions_free(&r);
}

/* Without an arena (the metrics pass): the names of the ranges open, outermost first. */
static void nvtx_names(void)
{
	struct cudarec_nvtx *t = malloc(sizeof *t);
	int dom;
	cudarec_nvtx_start(t, NULL, 0);
	cudarec_push(t, NULL, "a", 1);
	cudarec_push(t, &dom, "lib:b", 2);
	cudarec_push(t, NULL, "c", 3);
	cudarec_pop(t, NULL, 4);
	ok(t->depth == 2 && strcmp(t->names[0], "a") == 0 && strcmp(t->names[1], "lib:b") == 0,
	   "without an arena, the open ranges' names are kept, a pop ending its own");
	cudarec_pop(t, NULL, 5); /* "a", under the domain's "lib:b" */
	ok(t->depth == 1 && strcmp(t->names[0], "lib:b") == 0 && t->w.lost == 0,
	   "a default-domain pop under a domain's range leaves that range's name; nothing lost");
	free(t);
}

/* Start/end ranges, by id: they overlap and end in any order. */
static void ranges(void)
{
	struct regions r = arena_();
	struct cudarec_ranges *g = malloc(sizeof *g);
	cudarec_ranges_start(g, r.a, 0);
	cudarec_range_start(g, 7, "load", 100);
	cudarec_range_start(g, 8, "solver:step", 150);
	cudarec_range_start(g, 9, "load", 200);
	cudarec_range_end(g, 7, 1100); /* ends before 8 and 9, which began after it */
	cudarec_range_end(g, 9, 400);
	cudarec_range_end(g, 8, 950);
	cudarec_range_end(g, 8, 990); /* ended already */
	cudarec_range_start(g, 10, "load", 2000);
	char *text = records_of(&r);
	ok(value(text, "load", "calls") == 2 && value(text, "load", "ns") == 1200 &&
	       value(text, "load", "minNs") == 200,
	   "overlapping ranges of one name: each timed by its own start and end (1000 and 200 ns)");
	ok(value(text, "solver:step", "calls") == 1 && value(text, "solver:step", "ns") == 800,
	   "a domain's start/end range");
	ok(g->stray == 1 && g->n == 1 && value(text, "load", "open") == 1,
	   "an end of an id not open is counted; one never ended is counted open");
	if (tap_failed)
		printf("# %s", text);
	free(text);
	free(g);
	regions_free(&r);
}

int main(void)
{
	names();
	launch();
	grouping();
	names_nvtx();
	nvtx();
	nvtx_names();
	ranges();
	return done_testing();
}
