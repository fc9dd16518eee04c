/* cache: result-cache entries: the measurement description, the core hash, metadata and
 * every run's raw outputs (a count's: the counting tool's output), in a checksummed text file
 * written atomically. */
#include "cache.h"
#include "protocol.h"
#include "sha256.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cache_entry_init(struct cache_entry *e)
{
	memset(e, 0, sizeof *e);
}

static void free_kv(struct cache_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

/* A list of records (runs, regions, samples): each one block, its pairs and their text. */
static void free_records(struct cache_run *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(r[i].kv);
	free(r);
}

void cache_entry_free(struct cache_entry *e)
{
	free(e->description);
	free_kv(e->meta, e->nmeta);
	free_records(e->runs, e->nruns);
	free_records(e->regions, e->nregions);
	free_records(e->samples, e->nsamples);
	for (size_t i = 0; i < e->ncounted; i++)
		free(e->counted[i]);
	free(e->counted);
	cache_entry_init(e);
}

static int bad_token(const char *s, int allow_space)
{
	if (!*s && !allow_space)
		return 1;
	for (; *s; s++)
		if (*s == '\n' || *s == '\r' || (!allow_space && (*s == ' ' || *s == '=')))
			return 1;
	return 0;
}

/* The length of a record's key or value, or -1 when it is empty or holds a space, '=' or a
 * line break (bad_token's, counted on the way). */
static long token_len(const char *s)
{
	const char *p = s;
	for (; *p; p++)
		if (*p == ' ' || *p == '=' || *p == '\n' || *p == '\r')
			return -1;
	return p == s ? -1 : (long)(p - s);
}

int cache_entry_set_meta(struct cache_entry *e, const char *key, const char *value)
{
	if (bad_token(key, 0) || bad_token(value, 1)) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < e->nmeta; i++) {
		/* (keys are not empty: their first two bytes tell most apart without a call) */
		const char *k = e->meta[i].key;
		if (k[0] == key[0] && k[1] == key[1] && strcmp(k, key) == 0) {
			char *v = strdup(value);
			if (!v)
				return -1;
			free(e->meta[i].value);
			e->meta[i].value = v;
			return 0;
		}
	}
	struct cache_kv *m = realloc(e->meta, (e->nmeta + 1) * sizeof *m);
	if (!m)
		return -1;
	e->meta = m;
	m[e->nmeta].key = strdup(key);
	m[e->nmeta].value = strdup(value);
	if (!m[e->nmeta].key || !m[e->nmeta].value) {
		free(m[e->nmeta].key);
		free(m[e->nmeta].value);
		return -1;
	}
	e->nmeta++;
	return 0;
}

const char *cache_entry_get_meta(const struct cache_entry *e, const char *key)
{
	for (size_t i = 0; i < e->nmeta; i++)
		if (strcmp(e->meta[i].key, key) == 0)
			return e->meta[i].value;
	return NULL;
}

/* Appends a record of key=value pairs to a list (the runs, the regions): one block holds its
 * pairs and then their text (an entry's thousands of runs read with one allocation each). The
 * list grows to the next power of two. */
static int add_record(struct cache_run **list, size_t *len, const struct cache_kv *kv, size_t n)
{
	size_t text = 0;
	for (size_t i = 0; i < n; i++) {
		long k = token_len(kv[i].key), v = token_len(kv[i].value);
		if (k < 0 || v < 0) {
			errno = EINVAL;
			return -1;
		}
		text += (size_t)(k + v) + 2;
	}
	if ((*len & (*len - 1)) == 0) { /* 0, 1, 2, 4, ...: full */
		struct cache_run *r = realloc(*list, (*len ? 2 * *len : 1) * sizeof *r);
		if (!r)
			return -1;
		*list = r;
	}
	struct cache_kv *copy = malloc(n * sizeof *copy + text + 1);
	if (!copy)
		return -1;
	char *at = (char *)(copy + n);
	for (size_t i = 0; i < n; i++) {
		size_t k = strlen(kv[i].key) + 1, v = strlen(kv[i].value) + 1;
		copy[i].key = memcpy(at, kv[i].key, k);
		copy[i].value = memcpy(at + k, kv[i].value, v);
		at += k + v;
	}
	(*list)[*len].kv = copy;
	(*list)[*len].n = n;
	(*len)++;
	return 0;
}

int cache_entry_add_run(struct cache_entry *e, const struct cache_kv *kv, size_t n)
{
	return add_record(&e->runs, &e->nruns, kv, n);
}

int cache_entry_add_region(struct cache_entry *e, const struct cache_kv *kv, size_t n)
{
	return add_record(&e->regions, &e->nregions, kv, n);
}

/* Whether word is a sampled invocation's record kind. */
static int sample_word(const char *word)
{
	static const enum protocol_record kinds[] = {RECORD_SAMPLED, RECORD_OBJECT, RECORD_SAMPLE};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(word, protocol_record_word(kinds[i])) == 0)
			return 1;
	return 0;
}

int cache_entry_add_sample(struct cache_entry *e, const struct cache_kv *kv, size_t n)
{
	if (n < 1 || strcmp(kv[0].key, CACHE_RECORD_KEY) != 0 || !sample_word(kv[0].value)) {
		errno = EINVAL;
		return -1;
	}
	return add_record(&e->samples, &e->nsamples, kv, n);
}

int cache_entry_add_counted(struct cache_entry *e, const char *line)
{
	if (bad_token(line, 1)) {
		errno = EINVAL;
		return -1;
	}
	char **c = realloc(e->counted, (e->ncounted + 1) * sizeof *c);
	if (!c)
		return -1;
	e->counted = c;
	if (!(c[e->ncounted] = strdup(line)))
		return -1;
	e->ncounted++;
	return 0;
}

/* " key=value key=value ..." (changed in place) into a record of list (a sampled invocation's
 * record word: its samples, the word first), each key and value a token (not empty, no space,
 * '=' or line break): 1, or -1 when malformed or refused. */
static int scan_record(char *p, enum cache_list list, const char *word, const struct cache_sink *s)
{
	struct cache_kv kv[64];
	size_t n = 0;
	if (word)
		kv[n++] = (struct cache_kv){(char *)CACHE_RECORD_KEY, (char *)word};
	while (*p) { /* tokens between spaces, each key=value (its key up to the first '=') */
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		char *tok = p, *eq = NULL;
		int bad = 0; /* a second '=', a carriage return */
		for (; *p && *p != ' '; p++) {
			if (*p == '=')
				bad |= eq != NULL, eq = eq ? eq : p;
			bad |= *p == '\r';
		}
		if (*p)
			*p++ = '\0';
		if (bad || !eq || eq == tok || !eq[1] || n == 64)
			return -1;
		*eq = '\0';
		kv[n].key = tok;
		kv[n].value = eq + 1;
		n++;
	}
	return s->record(s->ctx, list, kv, n) < 0 ? -1 : 1;
}

/* The rest of line after its record kind r's word (at its space or end), or NULL. */
static char *after_word(char *line, enum protocol_record r)
{
	const char *w = protocol_record_word(r);
	size_t n = strlen(w);
	return strncmp(line, w, n) == 0 && (line[n] == ' ' || line[n] == '\0') ? line + n : NULL;
}

int cache_line_scan(char *line, const struct cache_sink *s)
{
	char *rest;
	if ((rest = after_word(line, RECORD_META)) && *rest) {
		char *k = rest + 1, *sp = strchr(k, ' ');
		if (!sp || sp == k)
			return -1;
		*sp = '\0';
		if (bad_token(k, 0) || bad_token(sp + 1, 1))
			return -1;
		return s->meta(s->ctx, k, sp + 1) < 0 ? -1 : 1;
	}
	if ((rest = after_word(line, RECORD_RUN)))
		return scan_record(rest, CACHE_RUNS, NULL, s);
	if ((rest = after_word(line, RECORD_REGION)) && *rest)
		return scan_record(rest, CACHE_REGIONS, NULL, s);
	static const enum protocol_record kinds[] = {RECORD_SAMPLED, RECORD_OBJECT, RECORD_SAMPLE};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if ((rest = after_word(line, kinds[i])) && *rest)
			return scan_record(rest, CACHE_SAMPLES, protocol_record_word(kinds[i]), s);
	size_t n = strlen(CACHE_COUNTED);
	if (strncmp(line, CACHE_COUNTED, n) == 0 && line[n] == ' ') {
		if (bad_token(line + n + 1, 1))
			return -1;
		return s->counted(s->ctx, line + n + 1) < 0 ? -1 : 1;
	}
	return 0;
}

/* The sink that fills a struct cache_entry (ctx). */
static int entry_meta(void *ctx, const char *key, const char *value)
{
	return cache_entry_set_meta(ctx, key, value);
}

static int entry_record(void *ctx, enum cache_list list, const struct cache_kv *kv, size_t n)
{
	struct cache_entry *e = ctx;
	return list == CACHE_SAMPLES   ? cache_entry_add_sample(e, kv, n)
	       : list == CACHE_REGIONS ? cache_entry_add_region(e, kv, n)
				       : cache_entry_add_run(e, kv, n);
}

static int entry_counted(void *ctx, const char *line)
{
	return cache_entry_add_counted(ctx, line);
}

int cache_entry_parse_line(struct cache_entry *e, const char *line)
{
	const struct cache_sink s = {e, entry_meta, entry_record, entry_counted};
	char *copy = strdup(line);
	if (!copy)
		return -1;
	int rc = cache_line_scan(copy, &s);
	free(copy);
	return rc;
}

struct buf {
	char *p;
	size_t len, cap;
	int oom;
};

static void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if (b->p && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		size_t ncap = (b->cap + (size_t)n + 1) * 2;
		char *p = realloc(b->p, ncap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = ncap;
	}
}

char *cache_entry_format(const struct cache_entry *e, size_t *len)
{
	struct buf b = {0};
	const char *d = e->description ? e->description : "";
	char sum[65];
	buf_printf(&b, "rot-cache 1\ndescription %zu\n%s\ncore %s\n", strlen(d), d,
		   e->core_hash[0] ? e->core_hash : "-");
	for (size_t i = 0; i < e->nmeta; i++)
		buf_printf(&b, "%s %s %s\n", protocol_record_word(RECORD_META), e->meta[i].key,
			   e->meta[i].value);
	for (size_t i = 0; i < e->nruns; i++) {
		buf_printf(&b, "%s", protocol_record_word(RECORD_RUN));
		for (size_t j = 0; j < e->runs[i].n; j++)
			buf_printf(&b, " %s=%s", e->runs[i].kv[j].key, e->runs[i].kv[j].value);
		buf_printf(&b, "\n");
	}
	for (size_t i = 0; i < e->nregions; i++) {
		buf_printf(&b, "%s", protocol_record_word(RECORD_REGION));
		for (size_t j = 0; j < e->regions[i].n; j++)
			buf_printf(&b, " %s=%s", e->regions[i].kv[j].key,
				   e->regions[i].kv[j].value);
		buf_printf(&b, "\n");
	}
	for (size_t i = 0; i < e->nsamples; i++) { /* its word, then its keys */
		buf_printf(&b, "%s", e->samples[i].kv[0].value);
		for (size_t j = 1; j < e->samples[i].n; j++)
			buf_printf(&b, " %s=%s", e->samples[i].kv[j].key,
				   e->samples[i].kv[j].value);
		buf_printf(&b, "\n");
	}
	for (size_t i = 0; i < e->ncounted; i++)
		buf_printf(&b, "%s %s\n", CACHE_COUNTED, e->counted[i]);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	sha256_hex(b.p, b.len, sum);
	buf_printf(&b, "checksum %s\n", sum);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	if (len)
		*len = b.len;
	return b.p;
}

/* The header "rot-cache 1\ndescription N\n" of an entry's size bytes: the description's
 * length N and where it starts; -1 when the header is not that, or the description and the
 * newline after it do not fit. */
static int parse_header(const char *text, size_t size, size_t *dlen, size_t *start)
{
	static const char magic[] = "rot-cache 1\ndescription ";
	const size_t m = sizeof magic - 1;
	if (size <= m || memcmp(text, magic, m) != 0 || !isdigit((unsigned char)text[m]))
		return -1;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(text + m, &end, 10);
	if (errno != 0 || *end != '\n')
		return -1;
	size_t at = (size_t)(end + 1 - text);
	if (at > size || n >= size - at || text[at + n] != '\n')
		return -1;
	*dlen = (size_t)n;
	*start = at;
	return 0;
}

int cache_text_scan(char *text, size_t len, const struct cache_sink *s, struct cache_text *t,
		    char *err, size_t errlen)
{
	/* the checksum line covers everything before it */
	char *ck = NULL;
	for (char *p = text + len; p > text; p--) {
		if (p[-1] == '\n' && strncmp(p, "checksum ", 9) == 0) {
			ck = p;
			break;
		}
	}
	char sum[65];
	if (!ck || strlen(ck) != 9 + 64 + 1 || ck[9 + 64] != '\n') {
		snprintf(err, errlen, "truncated (no checksum line)");
		return -1;
	}
	sha256_hex(text, (size_t)(ck - text), sum);
	if (memcmp(sum, ck + 9, 64) != 0) {
		snprintf(err, errlen, "checksum mismatch");
		return -1;
	}
	*ck = '\0';
	size_t used;
	if (parse_header(text, (size_t)(ck - text), &t->dlen, &used) != 0) {
		snprintf(err, errlen, "bad header");
		return -1;
	}
	t->description = text + used;
	t->core_hash[0] = '\0';
	char *line = text + used + t->dlen + 1, *next;
	for (; line && *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		if (strncmp(line, "core ", 5) == 0 && strlen(line + 5) <= 64) {
			strcpy(t->core_hash, strcmp(line + 5, "-") ? line + 5 : "");
			continue;
		}
		char head[41]; /* the line's start, for the message: the scan changes it */
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		memcpy(head, line, n < 40 ? n : 40);
		head[n < 40 ? n : 40] = '\0';
		if (cache_line_scan(line, s) != 1) {
			snprintf(err, errlen, "bad line '%s'", head);
			return -1;
		}
	}
	return 0;
}

int cache_file_read(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
	if ((*text = util_read_file(path, len)))
		return 0;
	if (errno == ENOENT)
		return 1;
	snprintf(err, errlen, "%s", strerror(errno));
	err[0] = (char)tolower((unsigned char)err[0]);
	return -2;
}

int cache_entry_read(const char *path, struct cache_entry *e, char *err, size_t errlen)
{
	size_t len;
	char *text;
	cache_entry_init(e);
	int rc = cache_file_read(path, &text, &len, err, errlen);
	if (rc != 0)
		return rc;
	rc = -1;
	const struct cache_sink s = {e, entry_meta, entry_record, entry_counted};
	struct cache_text t;
	if (cache_text_scan(text, len, &s, &t, err, errlen) != 0)
		goto out;
	memcpy(e->core_hash, t.core_hash, sizeof e->core_hash);
	e->description = strndup(t.description, t.dlen);
	if (!e->description) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rc = 0;
out:
	if (rc < 0)
		cache_entry_free(e);
	free(text);
	return rc;
}

int cache_entry_write(const char *path, const struct cache_entry *e)
{
	size_t len;
	char *text = cache_entry_format(e, &len);
	char *dir = strdup(path);
	int rc = -1;
	if (!text || !dir) {
		errno = ENOMEM;
		goto out;
	}
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		if (*dir && util_mkdir_p(dir, 0755) < 0)
			goto out;
	}
	rc = util_write_atomic(path, text, len);
out:
	free(text);
	free(dir);
	return rc;
}

/* Appends a region (sample: a sampled invocation's record) of more to e, its run renumbered by
 * offset (e's runs before the merge). */
static int merge_region(struct cache_entry *e, const struct cache_run *r, size_t offset, int sample)
{
	struct cache_kv kv[64];
	char run[32];
	size_t n = r->n < 64 ? r->n : 64;
	for (size_t j = 0; j < n; j++) {
		kv[j] = r->kv[j];
		if (strcmp(kv[j].key, PROTOCOL_REGION_RUN) == 0) {
			snprintf(run, sizeof run, "%zu",
				 (size_t)strtoull(kv[j].value, NULL, 10) + offset);
			kv[j].value = run;
		}
	}
	return sample ? cache_entry_add_sample(e, kv, n) : cache_entry_add_region(e, kv, n);
}

int cache_entry_merge(struct cache_entry *e, const struct cache_entry *more)
{
	size_t offset = e->nruns;
	for (size_t i = 0; i < more->nmeta; i++)
		if (cache_entry_set_meta(e, more->meta[i].key, more->meta[i].value) < 0)
			return -1;
	for (size_t i = 0; i < more->nregions; i++)
		if (merge_region(e, &more->regions[i], offset, 0) < 0)
			return -1;
	for (size_t i = 0; i < more->nsamples; i++)
		if (merge_region(e, &more->samples[i], offset, 1) < 0)
			return -1;
	for (size_t i = 0; i < more->nruns; i++)
		if (cache_entry_add_run(e, more->runs[i].kv, more->runs[i].n) < 0)
			return -1;
	if (more->ncounted) {
		for (size_t i = 0; i < e->ncounted; i++)
			free(e->counted[i]);
		e->ncounted = 0;
		for (size_t i = 0; i < more->ncounted; i++)
			if (cache_entry_add_counted(e, more->counted[i]) < 0)
				return -1;
	}
	if (more->core_hash[0])
		memcpy(e->core_hash, more->core_hash, sizeof e->core_hash);
	return 0;
}

char *cache_entry_path(const char *dir, const char *hash)
{
	size_t len = strlen(dir) + strlen(hash) + 16;
	char *p = malloc(len);
	if (p)
		snprintf(p, len, "%s/results/%.2s/%s", dir, hash, hash);
	return p;
}
