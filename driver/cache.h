/* cache: result-cache entries: the measurement description, the core hash, metadata and
 * every run's raw outputs (a count's: the counting tool's output), in a checksummed text file
 * written atomically. */
#ifndef ROT_CACHE_H
#define ROT_CACHE_H

#include <stddef.h>

#define CACHE_RECORD_KEY "record" /* a sampled invocation's record's word, its first key */
#define CACHE_COUNTED "counted"	  /* a count's line: the counting tool's output, a line each */

struct cache_kv {
	char *key;
	char *value;
};

struct cache_run {
	size_t n;
	struct cache_kv *kv;
};

struct cache_entry {
	char *description;
	char core_hash[65];
	size_t nmeta;
	struct cache_kv *meta;
	size_t nruns;
	struct cache_run *runs;
	size_t nregions; /* an application's marked regions, each of one run (key run=I) */
	struct cache_run *regions;
	size_t nsamples; /* a sampled application's sampled, object and sample records, in order: */
	struct cache_run *samples; /* each first its word (key record=WORD), then run=I, ... */
	size_t ncounted; /* a count's entry (rot.count): the counting tool's output, each line */
	char **counted;	 /* after its first as the tool wrote it */
};

/*
 * File format (text, one record a line):
 *   rot-cache 1
 *   description <length>\n<length bytes>\n
 *   core <hash>
 *   meta <key> <value to end of line>
 *   run <key>=<value> <key>=<value> ...
 *   region run=<index of its run> <key>=<value> ...   (an application point's regions)
 *   sampled|object|sample run=<index of its run> <key>=<value> ...   (a sampled invocation's)
 *   counted <a line of the counting tool's output>   (a count's)
 *   checksum <sha256 of every byte before this line>
 */

/* The lists of an entry's records. */
enum cache_list { CACHE_RUNS, CACHE_REGIONS, CACHE_SAMPLES };
/* Where a scan puts the lines it reads: each callback gets ctx and returns 0, or -1 to stop the
 * scan (refused, out of memory). What it is handed is the scan's text: copy what is kept. A
 * sampled invocation's record comes with record=WORD first. */
struct cache_sink {
	void *ctx;
	int (*meta)(void *ctx, const char *key, const char *value);
	int (*record)(void *ctx, enum cache_list list, const struct cache_kv *kv, size_t n);
	int (*counted)(void *ctx, const char *line);
};
/* An entry's text as a scan found it: its description (dlen bytes, not terminated) and core. */
struct cache_text {
	const char *description;
	size_t dlen;
	char core_hash[65];
};
void cache_entry_init(struct cache_entry *e);
void cache_entry_free(struct cache_entry *e);

/* Adds or replaces a metadata value. Returns 0 or -1 (ENOMEM, or EINVAL: newline in value
 * or a key with spaces). */
int cache_entry_set_meta(struct cache_entry *e, const char *key, const char *value);
const char *cache_entry_get_meta(const struct cache_entry *e, const char *key);
/* Appends a run; keys and values must hold no spaces, '=' or newlines. */
int cache_entry_add_run(struct cache_entry *e, const struct cache_kv *kv, size_t n);

/* Appends a region record (an application's region in one run: its key run=I); as a run's. */
int cache_entry_add_region(struct cache_entry *e, const struct cache_kv *kv, size_t n);

/* Appends a sampled invocation's record: kv[0] is record=WORD (sampled, object or sample), then
 * its keys, run=I first; as a run's. */
int cache_entry_add_sample(struct cache_entry *e, const struct cache_kv *kv, size_t n);

/* Appends a line of the counting tool's output (no newline in it). 0, or -1 (EINVAL, ENOMEM). */
int cache_entry_add_counted(struct cache_entry *e, const char *line);

/* Parses one `meta`, `run`, `region`, `sampled`, `object`, `sample` or `counted` line into e.
 * Returns 1 if it was one, 0 if not, -1 if malformed. Shared with the reader of the core's output,
 * which uses the same lines. */
int cache_entry_parse_line(struct cache_entry *e, const char *line);

/* Scans one line (changed in place) into s. Returns 1 if it was a meta, record or counted line,
 * 0 if not, -1 if malformed or refused. */
int cache_line_scan(char *line, const struct cache_sink *s);
/* Checks an entry's text of len bytes (its header, its checksum) and scans its lines into s,
 * changing the text in place; t says where its description lies and holds its core hash.
 * Returns 0, or -1 with err saying why the entry is corrupt. */
int cache_text_scan(char *text, size_t len, const struct cache_sink *s, struct cache_text *t,
		    char *err, size_t errlen);
/* Serializes e; returns a malloc'd string. */
char *cache_entry_format(const struct cache_entry *e, size_t *len);

/* Reads the file at path (malloc'd, NUL-terminated: *text, *len bytes): 0; 1 when there is
 * none; -2 when it cannot be read (err: the system's reason in lower case). */
int cache_file_read(const char *path, char **text, size_t *len, char *err, size_t errlen);
/* Reads path into e. Returns 0 on success, 1 when there is no such file, -1 when the file is
 * corrupted (err says how), -2 when it cannot be read (err: the system's reason in lower case,
 * "permission denied", "not a directory": no word on the entry itself). */
int cache_entry_read(const char *path, struct cache_entry *e, char *err, size_t errlen);

/* Writes e atomically (temp file and rename), creating parent directories. 0 or -1/errno. */
int cache_entry_write(const char *path, const struct cache_entry *e);

/* Appends the runs of more to e (and their regions and sampled records, renumbered after e's
 * runs); metadata in more replaces e's, and so do its counted lines where it has any (a count
 * is one run of the tool, whole). */
int cache_entry_merge(struct cache_entry *e, const struct cache_entry *more);

/* "<dir>/results/<first two hex digits>/<hash>", malloc'd. */
char *cache_entry_path(const char *dir, const char *hash);

#endif
