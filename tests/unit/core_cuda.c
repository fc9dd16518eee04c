/* Unit tests for core/cuda/records: what rot's CUDA library makes of CUPTI's records, on records
 * built here (none captured from a device): kernel names demangled with their launch shape,
 * calls grouped per name and shape into the arena and read back as region records (calls, time,
 * best call), NVTX pushes and pops nested as regions.
 * judges no time */
#include "cuda/records.h"
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
	   "two long names that differ only past the cut stay two regions (the cut ends in a hash)");
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

/* NVTX: what a pop ends, through a recorder that logs its begins and ends. */
static char log_[512];
static void lbegin(const char *n)
{
	snprintf(log_ + strlen(log_), sizeof log_ - strlen(log_), "+%s ", n);
}
static void lend(const char *n)
{
	snprintf(log_ + strlen(log_), sizeof log_ - strlen(log_), "-%s ", n);
}

static void nvtx(void)
{
	struct rot_markers_api api = {ROT_MARKERS_VERSION, lbegin, lend, NULL, NULL, NULL};
	struct cudarec_nvtx *t = calloc(1, sizeof *t), *u = calloc(1, sizeof *u);
	cudarec_push(t, &api, "step");
	cudarec_push(t, &api, "solve");
	cudarec_push(u, &api, "io"); /* another thread's range, in between */
	cudarec_pop(t, &api);
	cudarec_push(t, &api, NULL);
	cudarec_pop(t, &api);
	cudarec_pop(u, &api);
	cudarec_pop(t, &api);
	cudarec_pop(t, &api); /* nothing pushed */
	is_str(log_, "+step +solve +io -solve +(unnamed) -(unnamed) -io -step ",
	       "pops end each thread's innermost range by name; an unnamed range is named so");
	ok(t->stray == 1, "a pop with nothing pushed is counted, not ended");
	log_[0] = '\0';
	for (int i = 0; i < CUDAREC_DEPTH + 2; i++)
		cudarec_push(t, &api, "deep");
	for (int i = 0; i < CUDAREC_DEPTH + 2; i++)
		cudarec_pop(t, &api);
	ok(t->depth == 0 && t->over == 0, "ranges pushed past the depth are popped in turn");
	free(t);
	free(u);
}

int main(void)
{
	names();
	grouping();
	nvtx();
	return done_testing();
}
