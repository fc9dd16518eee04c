/* Unit tests for driver/cache: round trip, merge of runs, atomic writes, and detection of
 * truncated or altered entries.
 * judges no time */
#include "cache.h"
#include "sha256.h"
#include "tap.h"
#include "util.h"

#include <dirent.h>
#include <stdlib.h>

static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Write, read back, merge and rewrite. */
static void round_trip(const char *path, struct cache_entry *e)
{
	struct cache_entry r, more;
	char err[256] = "";
	ok(strstr(path, "/results/ff/ffee00") != NULL,
	   "entries fan out by the hash's first byte: %s", path);
	ok(cache_entry_write(path, e) == 0, "write creates directories and the entry");
	ok(cache_entry_read(path, &r, err, sizeof err) == 0, "read back: %s", err);
	is_str(r.description, e->description, "description survives, newline included");
	is_str(r.core_hash, "abc123", "core hash survives");
	is_str(cache_entry_get_meta(&r, "note"), "a value with spaces", "meta value with spaces");
	ok(r.nruns == 2 && strcmp(r.runs[1].kv[0].value, "990") == 0, "both runs survive in order");

	/* merge: more runs appended, newer metadata wins */
	cache_entry_init(&more);
	struct cache_kv run3[] = {{"ns", "995"}, {"reps", "2"}};
	cache_entry_add_run(&more, run3, 2);
	cache_entry_set_meta(&more, "kernel", "triad2");
	ok(cache_entry_merge(&r, &more) == 0 && r.nruns == 3, "merge appends runs (%zu)", r.nruns);
	is_str(r.runs[2].kv[0].value, "995", "merged run comes last");
	is_str(cache_entry_get_meta(&r, "kernel"), "triad2", "merged metadata replaces the old");
	ok(cache_entry_write(path, &r) == 0, "rewrite the merged entry");
	cache_entry_free(&r);
	ok(cache_entry_read(path, &r, err, sizeof err) == 0 && r.nruns == 3,
	   "merged entry reads back");
	cache_entry_free(&r);
	cache_entry_free(&more);
}

/* No temp files left; a missing, a truncated and an altered entry. */
static void damage(const char *dir, const char *path)
{
	struct cache_entry r;
	char err[256] = "";
	/* atomic: no temp files left behind */
	char sub[300];
	snprintf(sub, sizeof sub, "%s/results/ff", dir);
	ok(count_files(sub) == 1, "only the entry is in its directory (no temp files)");

	/* missing vs corrupted */
	char *nopath = cache_entry_path(dir, "000000");
	ok(cache_entry_read(nopath, &r, err, sizeof err) == 1, "a missing entry reads as missing");
	/* one the system cannot read: its reason, never "corrupted" (a path under a file) */
	char under[600];
	snprintf(under, sizeof under, "%s/entry", path);
	ok(cache_entry_read(under, &r, err, sizeof err) == -2 &&
	       strcmp(err, "not a directory") == 0,
	   "an entry that cannot be read says why: %s", err);

	size_t len;
	char *text = util_read_file(path, &len);
	FILE *f = fopen(path, "w");
	fwrite(text, 1, len / 2, f);
	fclose(f);
	ok(cache_entry_read(path, &r, err, sizeof err) == -1, "a truncated entry is detected: %s",
	   err);

	text[len / 3] ^= 1; /* flip one bit of the body */
	f = fopen(path, "w");
	fwrite(text, 1, len, f);
	fclose(f);
	ok(cache_entry_read(path, &r, err, sizeof err) == -1 && strstr(err, "checksum"),
	   "an altered entry fails its checksum: %s", err);
	free(text);
	free(nopath);
}

/* Values that would break the format; the record parser shared with the core's output. */
static void records(struct cache_entry *e)
{
	/* values that would break the format are refused */
	ok(cache_entry_set_meta(e, "bad key", "x") < 0, "meta key with a space refused");
	ok(cache_entry_set_meta(e, "k", "two\nlines") < 0, "meta value with a newline refused");
	struct cache_kv bad[] = {{"ns", "1 2"}};
	ok(cache_entry_add_run(e, bad, 1) < 0, "run value with a space refused");

	/* the record parser shared with the core's output */
	struct cache_entry p;
	cache_entry_init(&p);
	ok(cache_entry_parse_line(&p, "run ns=5 tsc=10") == 1 && p.nruns == 1, "parses a run line");
	ok(cache_entry_parse_line(&p, "meta flops 2048") == 1, "parses a meta line");
	ok(cache_entry_parse_line(&p, "status ok") == 0, "leaves other lines to the caller");
	ok(cache_entry_parse_line(&p, "run ns") == -1, "rejects a malformed run line");
	cache_entry_free(&p);
}

/* A sampled invocation's records: read as the core writes them, kept in order, written back
 * the same, their runs renumbered when entries merge. */
static void samples(const char *dir)
{
	static const char *const lines[] = {
	    "sampled run=0 periodNs=4000000 samples=3 lost=0",
	    "object run=0 id=2 path=/tmp/a%20b/mv",
	    "sample run=0 obj=2 off=0x1324 n=2 callers=-",
	    "sample run=0 obj=1 off=0x0 n=1 callers=2:0x13d1,2:0x1400",
	};
	struct cache_entry e, r, m;
	char err[256] = "", *path = cache_entry_path(dir, "cd0000");
	cache_entry_init(&e);
	cache_entry_init(&m);
	e.description = strdup("sampled");
	int parsed = 1;
	for (size_t i = 0; i < 4; i++)
		parsed &= cache_entry_parse_line(&e, lines[i]) == 1;
	ok(parsed && e.nsamples == 4 && strcmp(e.samples[2].kv[0].value, "sample") == 0 &&
	       strcmp(e.samples[2].kv[3].key, "off") == 0,
	   "a sampled invocation's records read, each with its word, in order");
	size_t len;
	char *text = cache_entry_format(&e, &len);
	int kept = text != NULL;
	for (size_t i = 0; i < 4 && kept; i++)
		kept = strstr(text, lines[i]) != NULL;
	ok(kept, "written back as the core wrote them");
	free(text);
	ok(cache_entry_write(path, &e) == 0 && cache_entry_read(path, &r, err, sizeof err) == 0 &&
	       r.nsamples == 4 && strcmp(r.samples[3].kv[5].value, "2:0x13d1,2:0x1400") == 0,
	   "an entry with them reads back whole: %s", err);
	struct cache_kv run[] = {{"ns", "5"}};
	cache_entry_add_run(&m, run, 1);
	ok(cache_entry_merge(&m, &r) == 0 && m.nsamples == 4 &&
	       strcmp(m.samples[0].kv[1].value, "1") == 0,
	   "merged after another entry's run: their run renumbered");
	struct cache_kv bad[] = {{"record", "region"}, {"run", "0"}};
	ok(cache_entry_add_sample(&m, bad, 2) < 0, "a record of another kind is refused");
	cache_entry_free(&e);
	cache_entry_free(&r);
	cache_entry_free(&m);
	free(path);
}

/* A count's entry: the counting tool's lines kept as it wrote them, in order, checksummed; a
 * merge takes the newer count whole. */
static void counted(const char *dir)
{
	static const char *const lines[] = {
	    "line 64",
	    "level 1 size=49152 assoc=12",
	    "misuses 0",
	    "region name=a%20b calls=1 threads=1 whole_process=1 fp64_256=8000 loaded=16000",
	};
	struct cache_entry e, r, m;
	char err[256] = "", *path = cache_entry_path(dir, "ce0000");
	cache_entry_init(&e);
	cache_entry_init(&m);
	e.description = strdup("{count=2}");
	cache_entry_set_meta(&e, "countNote", "counted as built with -O2");
	int added = 1;
	for (size_t i = 0; i < 4; i++)
		added &= cache_entry_add_counted(&e, lines[i]) == 0;
	ok(added && cache_entry_add_counted(&e, "two\nlines") < 0,
	   "a line with a newline is refused");
	ok(cache_entry_write(path, &e) == 0 && cache_entry_read(path, &r, err, sizeof err) == 0 &&
	       r.ncounted == 4 && strcmp(r.counted[3], lines[3]) == 0 &&
	       strcmp(cache_entry_get_meta(&r, "countNote"), "counted as built with -O2") == 0,
	   "a count's entry reads back whole, its lines in order: %s", err);
	size_t len;
	char *text = cache_entry_format(&r, &len);
	ok(text && strstr(text, "\ncounted level 1 size=49152 assoc=12\n"),
	   "each line after its word");
	free(text);
	cache_entry_add_counted(&m, "line 32");
	ok(cache_entry_merge(&m, &r) == 0 && m.ncounted == 4 &&
	       strcmp(m.counted[0], "line 64") == 0,
	   "a merge takes the newer count whole");
	cache_entry_free(&m);
	FILE *f = fopen(path, "r+");
	ok(f && fseek(f, -80, SEEK_END) == 0 && fputc('X', f) != EOF && fclose(f) == 0 &&
	       cache_entry_read(path, &m, err, sizeof err) == -1 && strstr(err, "checksum"),
	   "a changed count is caught by its checksum: %s", err);
	cache_entry_free(&e);
	cache_entry_free(&r);
	free(path);
}

/* An entry file of this body with a valid checksum line: what the header says is all that
 * can be wrong with it. */
static int forged(const char *path, const char *body)
{
	char sum[65];
	sha256_hex(body, strlen(body), sum);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%schecksum %s\n", body, sum);
	return fclose(f);
}

/* The header: a description that begins with a blank, lengths that do not fit. */
static void headers(const char *dir)
{
	struct cache_entry e, r;
	char err[256] = "";
	char *path = cache_entry_path(dir, "ab0000");
	cache_entry_init(&e);
	e.description = strdup("  {leading blanks}");
	ok(cache_entry_write(path, &e) == 0 && cache_entry_read(path, &r, err, sizeof err) == 0 &&
	       strcmp(r.description, "  {leading blanks}") == 0,
	   "a description that begins with blanks reads back whole: %s", err);
	cache_entry_free(&r);
	forged(path, "rot-cache 1\ndescription 18446744073709551615\nx\n");
	ok(cache_entry_read(path, &r, err, sizeof err) == -1 && strstr(err, "bad header"),
	   "a length that wraps around is a bad header, read nowhere: %s", err);
	forged(path, "rot-cache 1\ndescription 5\nx\n");
	ok(cache_entry_read(path, &r, err, sizeof err) == -1 && strstr(err, "bad header"),
	   "a length past the end is a bad header: %s", err);
	forged(path, "rot-cache 1\ndescription -1\nx\n");
	ok(cache_entry_read(path, &r, err, sizeof err) == -1 && strstr(err, "bad header"),
	   "a negative length is a bad header: %s", err);
	cache_entry_free(&e);
	free(path);
}

int main(void)
{
	char dir[] = "/tmp/rot-test-cache-XXXXXX";
	mkdtemp(dir);
	struct cache_entry e;
	cache_entry_init(&e);
	e.description = strdup("{[\"kernel\"]=\"triad\",[\"n\"]=1024}\nwith a newline");
	strcpy(e.core_hash, "abc123");
	cache_entry_set_meta(&e, "kernel", "triad");
	cache_entry_set_meta(&e, "note", "a value with spaces");
	struct cache_kv run1[] = {{"ns", "1000"}, {"reps", "2"}},
			run2[] = {{"ns", "990"}, {"reps", "2"}};
	cache_entry_add_run(&e, run1, 2);
	cache_entry_add_run(&e, run2, 2);

	char *path = cache_entry_path(dir, "ffee00");
	round_trip(path, &e);
	damage(dir, path);
	records(&e);
	headers(dir);
	samples(dir);
	counted(dir);

	free(path);
	cache_entry_free(&e);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return done_testing();
}
