/* sums: the metrics pass of rot's CUDA library with no CUPTI in it: each launch attributed when
 * it is made (its kernel region, the NVTX ranges open on its thread), each profiled range's
 * values summed into them, the sums written as cuda/words.h declares. */
#include "sums.h"
#include "../escape.h"
#include "words.h"

#include <stdlib.h>
#include <string.h>

int cudamet_init(struct cudamet *m, int n)
{
	memset(m, 0, sizeof *m);
	if (n < 1 || n > GPU_MAX_METRICS)
		return -1;
	m->n = n;
	return 0;
}

void cudamet_free(struct cudamet *m)
{
	free(m->log);
	m->log = NULL;
	m->nlog = m->cap = 0;
}

/* The index of region name among r[0..*n), added when new; -1 when there is no room. */
static int region(struct cudamet_region *r, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(r[i].name, name) == 0)
			return i;
	if (*n == CUDAMET_REGIONS)
		return -1;
	snprintf(r[*n].name, sizeof r[*n].name, "%s", name);
	return (*n)++;
}

/* The distinct ranges open on t into l (a range nested in one of its own name counts once). */
static int open_ranges(struct cudamet *m, struct cudamet_launch *l, const struct cudarec_nvtx *t)
{
	l->nranges = 0;
	for (int d = 0; t && d < t->depth && d < CUDAREC_DEPTH; d++) {
		int id = region(m->ranges, &m->nranges, t->names[d]), seen = 0;
		if (id < 0)
			return -1;
		for (int j = 0; j < l->nranges; j++)
			seen |= l->range[j] == id;
		if (!seen)
			l->range[l->nranges++] = id;
	}
	return 0;
}

long cudamet_launch(struct cudamet *m, const char *name, const char *mangled,
		    const struct cudarec_nvtx *t)
{
	if (m->nlog == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct cudamet_launch *log = realloc(m->log, cap * sizeof *log);
		if (!log) {
			m->unprofiled++;
			return -1;
		}
		m->log = log;
		m->cap = cap;
	}
	struct cudamet_launch *l = &m->log[m->nlog];
	l->kernel = region(m->kernels, &m->nkernels, name);
	if (l->kernel < 0 || open_ranges(m, l, t) < 0) {
		/* no room: profiled all the same (range i is launch i), its values dropped */
		l->kernel = -1;
		l->nranges = 0;
	}
	snprintf(l->mangled, sizeof l->mangled, "%s", mangled ? mangled : "");
	l->done = 0;
	return (long)++m->nlog;
}

/* Whether a range's name is its launch's kernel: the kernel's own (mangled) name, or its
 * region's name up to the launch shape, within it. */
static int same_kernel(const char *range, const char *mangled, const char *region)
{
	if (*mangled && strstr(range, mangled))
		return 1;
	const char *shape = strstr(region, " <<<");
	size_t n = shape ? (size_t)(shape - region) : strlen(region);
	for (const char *p = range; (p = strchr(p, *region)) != NULL; p++)
		if (n && strncmp(p, region, n) == 0)
			return 1;
	return 0;
}

static void add(double *sum, const double *v, int n)
{
	for (int i = 0; i < n; i++)
		sum[i] += v[i];
}

/* Range i of the batch: its values added to launch i's kernel region and open ranges. */
static void range(struct cudamet *m, size_t i, const char *name, const double *values)
{
	const struct cudamet_launch *l = &m->log[i];
	if (l->kernel < 0) {
		m->unprofiled++;
		return;
	}
	struct cudamet_region *k = &m->kernels[l->kernel];
	if (name && !same_kernel(name, l->mangled, k->name) && m->mismatched++ == 0) {
		snprintf(m->mismatch[0], sizeof m->mismatch[0], "%s", name);
		snprintf(m->mismatch[1], sizeof m->mismatch[1], "%s", k->name);
	}
	k->launches++;
	add(k->v, values, m->n);
	for (int j = 0; j < l->nranges; j++) {
		m->ranges[l->range[j]].launches++;
		add(m->ranges[l->range[j]].v, values, m->n);
	}
}

/* Whether range `name` is launch j's kernel (a launch that found no room is none). */
static int is_launch(const struct cudamet *m, size_t j, const char *name)
{
	const struct cudamet_launch *l = &m->log[j];
	return name && l->kernel >= 0 && same_kernel(name, l->mangled, m->kernels[l->kernel].name);
}

/* The first launch from `from` on not yet given a range, whose kernel range `name` is; -1. */
static long find(const struct cudamet *m, const char *name, size_t from)
{
	for (size_t j = from; j < m->nlog; j++)
		if (!m->log[j].done && is_launch(m, j, name))
			return (long)j;
	return -1;
}

int cudamet_batch(struct cudamet *m, size_t ranges, cudamet_values get, void *ctx)
{
	double v[GPU_MAX_METRICS];
	int rc = 0, by_name = ranges != m->nlog;
	size_t next = 0, i = 0, given = 0; /* the first launch without its range, the range */
	for (; i < ranges && given < m->nlog; i++) {
		const char *name = NULL;
		if (get(ctx, i, &name, v) < 0) {
			rc = -1;
			goto out;
		}
		/* as many ranges as launches: range i is launch i, unless its name is another
		 * launch's kernel (threads launched in another order than they logged): from there
		 * on, and where the numbers differ, a range is the first launch left of its kernel
		 * (a range of no launch of the program's is dropped) */
		long j = (long)i;
		if (!by_name && name && !is_launch(m, i, name) && find(m, name, i + 1) >= 0)
			by_name = 1;
		if (by_name)
			j = find(m, name, next);
		if (j < 0) {
			m->unattributed++;
			continue;
		}
		m->log[j].done = 1;
		given++;
		range(m, (size_t)j, name, v);
		while (next < m->nlog && m->log[next].done)
			next++;
	}
	m->unattributed += ranges - i; /* ranges past the last launch */
out:
	m->unprofiled += m->nlog - given;
	m->nlog = 0;
	return rc;
}

void cudamet_drop(struct cudamet *m, uint64_t launches)
{
	m->unprofiled += launches + m->nlog;
	m->nlog = 0;
}

/* A name as one token: escaped, and "%" for the empty one (as rot.util.escape_token). */
static void token(FILE *out, const char *s)
{
	if (*s)
		escape_write(out, s, strlen(s));
	else
		fputc('%', out);
}

static void values(FILE *out, const double *v, int n)
{
	for (int i = 0; i < n; i++)
		fprintf(out, " %.17g", v[i]);
	fputc('\n', out);
}

static void regions(FILE *out, enum cudamet_record word, const struct cudamet_region *r, int nr,
		    int n)
{
	for (int i = 0; i < nr; i++) {
		if (!r[i].launches)
			continue;
		fprintf(out, "%s ", cudamet_word(word));
		token(out, r[i].name);
		fprintf(out, " launches=%llu", (unsigned long long)r[i].launches);
		values(out, r[i].v, n);
	}
}

void cudamet_write(FILE *out, const struct cudamet *m, const char *const *metrics, const char *chip)
{
	fprintf(out, "%s\n", CUDAMET_MAGIC);
	for (int i = 0; i < m->n; i++)
		fprintf(out, "%s %d %s\n", cudamet_word(CUDAMET_METRIC), i, metrics[i]);
	if (chip) {
		fprintf(out, "%s ", cudamet_word(CUDAMET_CHIP));
		token(out, chip);
		fputc('\n', out);
	}
	if (m->passes)
		fprintf(out, "%s %zu\n", cudamet_word(CUDAMET_PASSES), m->passes);
	regions(out, CUDAMET_KERNEL, m->kernels, m->nkernels, m->n);
	regions(out, CUDAMET_RANGE, m->ranges, m->nranges, m->n);
	if (m->unprofiled + m->nlog)
		fprintf(out, "%s %llu\n", cudamet_word(CUDAMET_UNPROFILED),
			(unsigned long long)(m->unprofiled + m->nlog));
	if (m->unattributed)
		fprintf(out, "%s %llu\n", cudamet_word(CUDAMET_UNATTRIBUTED),
			(unsigned long long)m->unattributed);
	if (m->mismatched) {
		fprintf(out, "%s %llu ", cudamet_word(CUDAMET_MISMATCH),
			(unsigned long long)m->mismatched);
		token(out, m->mismatch[0]);
		fputc(' ', out);
		token(out, m->mismatch[1]);
		fputc('\n', out);
	}
	if (m->error[0]) {
		fprintf(out, "%s ", cudamet_word(CUDAMET_ERROR));
		token(out, m->error);
		fputc('\n', out);
	}
	fprintf(out, "%s\n", cudamet_word(CUDAMET_END));
}
