/* config: every configuration key, declared once, and the sources that set them.
 * Precedence, strongest first: command line, user file, config/site.conf, declared default. */
#include "config.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* keys without a range leave its fields out: zero, not ranged */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const struct config_key config_keys[] = {
    {"outputDir", CONFIG_PATH, ".", NULL, "directory for tables, CSV files and plots (created when missing)"},
    {"cacheDir", CONFIG_PATH, "@cache/rot", NULL, "result cache and machine data"},
    {"userConfigFile", CONFIG_PATH, "@config/rot/config", NULL,
     "user configuration file (key=value lines)"},
    {"useCachedResults", CONFIG_BOOL, "true", NULL,
     "reuse cached results; false re-measures and overwrites"},
    {"shouldCheckCoreHash", CONFIG_BOOL, "true", NULL,
     "ignore cached results measured by a different core build"},
    {"runs", CONFIG_INT, "3", NULL, "minimum number of timed runs per round of a point",
     .ranged = 1, .lo = 1, .hi = 100000},
    {"rounds", CONFIG_INT, "2", NULL,
     "a CPU point's rounds: best-k measurements, each in a core process of its own, visiting "
     "the points in an order that changes; its value is the best round",
     .ranged = 1, .lo = 1, .hi = 1000},
    {"maxRounds", CONFIG_INT, "4", NULL,
     "rounds one run gives a point whose rounds disagree, before it is flagged", .ranged = 1,
     .lo = 1, .hi = 1000},
    {"roundsEpsilon", CONFIG_NUMBER, "0.05", NULL,
     "rounds agree when their `rounds` best lie within this relative distance of the best", .ranged = 1,
     .lo = 1e-6, .hi = 100},
    {"remeasureUnstable", CONFIG_BOOL, "true", NULL,
     "measure a cached point whose rounds disagree again on the next run (until its rounds "
     "come from two runs)"},
    {"busyCpus", CONFIG_NUMBER, "0.5", NULL,
     "CPUs busy outside rot's own processes while a round was measured that make it one beside "
     "a neighbour: its point flagged busy and measured again (0: never)",
     .ranged = 1, .lo = 0, .hi = 100000},
    {"busyWait", CONFIG_NUMBER, "0.2", NULL,
     "the share of their time a round's threads waited for a CPU that does the same (0: never)",
     .ranged = 1, .lo = 0, .hi = 1},
    {"bestK", CONFIG_INT, "3", NULL, "best-k rule: number of fastest runs that must agree",
     .ranged = 1, .lo = 1, .hi = 1000},
    {"bestEpsilon", CONFIG_NUMBER, "0.02", NULL,
     "best-k rule: relative spread allowed among the k fastest runs", .ranged = 1, .lo = 1e-6,
     .hi = 1},
    {"maxRuns", CONFIG_INT, "10", NULL, "best-k rule: give up after this many runs of a round",
     .ranged = 1, .lo = 1, .hi = 100000},
    {"minRunTime", CONFIG_NUMBER, "0.001", NULL,
     "warm mode: repeat the kernel inside one timed run until it lasts this many seconds",
     .ranged = 1, .lo = 0, .hi = 3600},
    {"cacheMode", CONFIG_ENUM, "warm", "warm,cold", "cache state before each timed run"},
    {"compiler", CONFIG_STRING, "gcc", NULL, "C compiler for the measuring core (run via ccache)"},
    {"buildDir", CONFIG_STRING, "", NULL,
     "where measuring cores are built, under its own build lock (empty: the checkout's "
     "build/core)"},
    {"timeout", CONFIG_NUMBER, "600", NULL, "seconds before a measurement is killed", .ranged = 1,
     .lo = 0.001, .hi = 1e6},
    {"onFailure", CONFIG_ENUM, "continue", "continue,stop",
     "after a failed point: go on with the next or stop"},
    {"pointChild", CONFIG_ENUM, "auto", "auto,each,shared",
     "process per point: each (a fresh traced child), shared (one child for consecutive points "
     "until one fails), auto (shared for GPU points: one CUDA context and CUPTI host set-up)"},
    {"ignoreDisturbed", CONFIG_BOOL, "false", NULL,
     "best-k ignores runs with an involuntary context switch or a migration"},
    {"governor", CONFIG_STRING, "", NULL,
     "set this cpufreq governor on every CPU before measuring (needs permission)"},
    {"quick", CONFIG_BOOL, "false", NULL, "few points and few runs, for tests and smoke checks"},
    {"count", CONFIG_BOOL, "false", NULL,
     "count every point's flops, bytes and simulated cache traffic once, under Valgrind (a "
     "point's own count = true does it for that point); never during its timed runs"},
    {"samplingInterval", CONFIG_NUMBER, "4", NULL,
     "an application's timed invocations are sampled every this many ms of a thread's CPU time "
     "(the loop survey's rows: its hot loops and functions); 0: not sampled",
     .ranged = 1, .lo = 0, .hi = 1000},
    {"surveyThreshold", CONFIG_NUMBER, "1", NULL,
     "the loop survey: a loop or function with at least this percent of a program's samples is a "
     "row of its own; the rest are one row",
     .ranged = 1, .lo = 0, .hi = 100},
    {"showOutput", CONFIG_BOOL, "false", NULL,
     "print each program's own output under the table: its fastest invocation's and, where it "
     "was counted, the counted run's (the last 16 KiB of each; -showOutput alone sets it)"},
    {"peaksFile", CONFIG_STRING, "", NULL,
     "peaks.csv whose ceilings rooflines and bounds use; empty: this machine's, measured on first "
     "use"},
    {"cuda", CONFIG_PATH, "/usr/local/cuda", NULL, "CUDA toolkit (nvcc, CUPTI) for GPU kernels"},
    {"gpuArch", CONFIG_STRING, "sm_90", NULL,
     "GPU architecture GPU kernels are built for (nvcc -arch)"},
    {"gpuChip", CONFIG_STRING, "auto", NULL,
     "chip CUPTI metric names are checked for (e.g. GH100); auto: the device's"},
    {"pdf", CONFIG_BOOL, "false", NULL, "plots also as PDF (SVG and PNG always)"},
    {"gnuplot", CONFIG_STRING, "gnuplot", NULL, "gnuplot program used for plots"},
    {"progress", CONFIG_ENUM, "auto", "auto,always,never",
     "progress line on stderr (auto: when stderr is a terminal)"},
    {"executor", CONFIG_ENUM, "local", "local,slurm",
     "where missing points are measured: here, or on a Slurm cluster (sbatch)"},
    {"slurmPartition", CONFIG_STRING, "", NULL,
     "Slurm partition for -executor=slurm (empty: the default)"},
    {"slurmConstraint", CONFIG_STRING, "", NULL,
     "Slurm node features; a comma-separated list measures the points once per node type"},
    {"slurmAccount", CONFIG_STRING, "", NULL, "Slurm account to charge (empty: the default)"},
    {"slurmTimeLimit", CONFIG_STRING, "", NULL,
     "time limit of each Slurm task, as sbatch --time takes it (empty: the partition's)"},
    {"slurmNodes", CONFIG_INT, "4", NULL,
     "array tasks (each on an exclusive node) the missing points are split over", .ranged = 1,
     .lo = 1, .hi = 100000},
    {"historyRuns", CONFIG_INT, "50", NULL,
     "run records kept per measurement and machine (rot history, rot compare); 0 writes none",
     .ranged = 1, .lo = 0, .hi = 100000},
    {"machineIdentity", CONFIG_ENUM, "hardware", "hardware,hostname",
     "what results are kept under: the hardware (identical machines share results) or also "
     "the hostname"},
};
const size_t config_nkeys = sizeof config_keys / sizeof config_keys[0];

const char *config_type_name(enum config_type t)
{
	switch (t) {
	case CONFIG_BOOL:
		return "bool";
	case CONFIG_INT:
		return "int";
	case CONFIG_NUMBER:
		return "number";
	case CONFIG_STRING:
		return "string";
	case CONFIG_PATH:
		return "path";
	case CONFIG_ENUM:
		return "enum";
	}
	return "?";
}

int config_find(const char *name)
{
	for (size_t i = 0; i < config_nkeys; i++)
		if (strcmp(config_keys[i].name, name) == 0)
			return (int)i;
	return -1;
}

static char *expand_default(const char *def)
{
	const char *env = NULL, *fallback = NULL, *rest = def;
	if (strncmp(def, "@cache", 6) == 0) {
		env = "XDG_CACHE_HOME", fallback = "/.cache", rest = def + 6;
	} else if (strncmp(def, "@config", 7) == 0) {
		env = "XDG_CONFIG_HOME", fallback = "/.config", rest = def + 7;
	} else {
		return strdup(def);
	}
	const char *base = getenv(env);
	char buf[4096];
	if (base && *base) {
		snprintf(buf, sizeof buf, "%s%s", base, rest);
	} else {
		const char *home = getenv("HOME");
		snprintf(buf, sizeof buf, "%s%s%s", home ? home : "/tmp", fallback, rest);
	}
	return strdup(buf);
}

int config_init(struct config *c)
{
	c->err[0] = '\0';
	c->value = calloc(config_nkeys, sizeof *c->value);
	c->origin = calloc(config_nkeys, sizeof *c->origin);
	if (!c->value || !c->origin)
		return -1;
	for (size_t i = 0; i < config_nkeys; i++) {
		c->value[i] = expand_default(config_keys[i].def);
		c->origin[i] = strdup("default");
		if (!c->value[i] || !c->origin[i])
			return -1; /* the caller frees what there is */
	}
	return 0;
}

void config_free(struct config *c)
{
	for (size_t i = 0; c->value && c->origin && i < config_nkeys; i++) {
		free(c->value[i]);
		free(c->origin[i]);
	}
	free(c->value);
	free(c->origin);
	c->value = c->origin = NULL;
}

static int in_choices(const char *value, const char *choices)
{
	size_t len = strlen(value);
	for (const char *p = choices; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == len && strncmp(p, value, n) == 0)
			return 1;
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

static const char *check_value(const struct config_key *k, const char *v)
{
	char *end;
	if (strchr(v, '\n'))
		return "a value cannot contain a newline";
	switch (k->type) {
	case CONFIG_BOOL:
		if (strcmp(v, "true") && strcmp(v, "false"))
			return "expected true or false";
		break;
	case CONFIG_INT:
	case CONFIG_NUMBER: {
		errno = 0;
		double x = k->type == CONFIG_INT ? (double)strtoll(v, &end, 10) : strtod(v, &end);
		if (!*v || *end || errno)
			return k->type == CONFIG_INT ? "expected an integer" : "expected a number";
		if (!isfinite(x))
			return "expected a finite number";
		if (k->ranged && (x < k->lo || x > k->hi)) {
			static char why[128];
			snprintf(why, sizeof why, "out of range: allowed %g to %g", k->lo, k->hi);
			return why;
		}
		break;
	}
	case CONFIG_ENUM:
		if (!in_choices(v, k->choices))
			return "not one of the allowed values";
		break;
	case CONFIG_PATH:
		if (!*v)
			return "expected a path";
		break;
	case CONFIG_STRING:
		break;
	}
	return NULL;
}

static const char *nearest_key(const char *name)
{
	const char *names[64];
	size_t n = config_nkeys < 64 ? config_nkeys : 64;
	for (size_t i = 0; i < n; i++)
		names[i] = config_keys[i].name;
	return util_nearest(name, names, n);
}

int config_set(struct config *c, const char *key, const char *value, const char *origin)
{
	int i = config_find(key);
	if (i < 0) {
		const char *near = nearest_key(key);
		snprintf(c->err, sizeof c->err, "unknown configuration key '%s' (%s)%s%s%s", key,
			 origin, near ? "; did you mean '" : "", near ? near : "",
			 near ? "'?" : "");
		return -1;
	}
	const char *why = check_value(&config_keys[i], value);
	if (why) {
		snprintf(c->err, sizeof c->err, "bad value '%s' for '%s' (%s): %s%s%s", value, key,
			 origin, why, config_keys[i].choices ? ": " : "",
			 config_keys[i].choices ? config_keys[i].choices : "");
		return -1;
	}
	char *v = strdup(value), *o = strdup(origin);
	if (!v || !o) {
		free(v);
		free(o);
		snprintf(c->err, sizeof c->err, "out of memory");
		return -1;
	}
	free(c->value[i]);
	free(c->origin[i]);
	c->value[i] = v;
	c->origin[i] = o;
	return 0;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int config_load_file(struct config *c, const char *path, int optional)
{
	size_t len;
	char *text = util_read_file(path, &len), *line, *save = NULL;
	int rc = 0, lineno = 0;
	if (!text) {
		if (optional && errno == ENOENT)
			return 0;
		snprintf(c->err, sizeof c->err, "cannot read configuration file '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	/* strtok_r would merge empty lines and break line numbers: split by hand */
	for (line = text; line && rc == 0; line = save) {
		char *nl = strchr(line, '\n');
		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *s = trim(line);
		if (!*s)
			continue;
		char origin[4200];
		snprintf(origin, sizeof origin, "%s:%d", path, lineno);
		char *eq = strchr(s, '=');
		if (!eq) {
			snprintf(c->err, sizeof c->err, "%s: expected key=value, got '%s'", origin,
				 s);
			rc = -1;
			break;
		}
		*eq = '\0';
		rc = config_set(c, trim(s), trim(eq + 1), origin);
	}
	free(text);
	return rc;
}

static int parse_arg(struct config *c, const char *arg, char **key, char **value)
{
	const char *p = arg + 1, *eq = strchr(arg, '=');
	if (arg[0] != '-' || !eq || eq == p) {
		snprintf(c->err, sizeof c->err, "bad option '%s': expected -key=value", arg);
		return -1;
	}
	*key = strndup(p, (size_t)(eq - p));
	*value = strdup(eq + 1);
	if (!*key || !*value) {
		free(*key);
		free(*value);
		snprintf(c->err, sizeof c->err, "out of memory");
		return -1;
	}
	return 0;
}

int config_load_all(struct config *c, const char *default_file, char **args, int nargs)
{
	char *key, *value;
	if (config_load_file(c, default_file, 1) < 0)
		return -1;
	for (int i = 0; i < nargs; i++) {
		if (parse_arg(c, args[i], &key, &value) < 0)
			return -1;
		int rc = strcmp(key, "userConfigFile") == 0
			     ? config_set(c, key, value, "command line")
			     : 0;
		free(key);
		free(value);
		if (rc < 0)
			return -1;
	}
	/* the default user file may be absent; one named explicitly must exist */
	int u = config_find("userConfigFile");
	if (config_load_file(c, c->value[u], strcmp(c->origin[u], "default") == 0) < 0)
		return -1;
	for (int i = 0; i < nargs; i++) {
		if (parse_arg(c, args[i], &key, &value) < 0)
			return -1;
		int rc = config_set(c, key, value, "command line");
		free(key);
		free(value);
		if (rc < 0)
			return -1;
	}
	return 0;
}

const char *config_get(const struct config *c, const char *key)
{
	int i = config_find(key);
	return i < 0 ? NULL : c->value[i];
}
