/* input: reads a batch's points (protocol.h: "point ID", PROTOCOL_INPUT keys, "end") into
 * struct point, each key through its entry in one table of readers. */
#include "input.h"
#include "escape.h"
#include "registry.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *key, *syntax;
} keys[INPUT_COUNT] = {
#define X(id, key, syntax, meaning) [INPUT_##id] = {key, syntax},
    PROTOCOL_INPUT(X)
#undef X
};

typedef int (*value_reader)(struct point *p, const char *val, char *err, size_t len);

static int read_workload(struct point *p, const char *val, char *err, size_t len);
static int read_param(struct point *p, const char *val, char *err, size_t len);
static int read_counter(struct point *p, const char *val, char *err, size_t len);
static int read_gpumetric(struct point *p, const char *val, char *err, size_t len);
static int read_rule(struct point *p, const char *val, char *err, size_t len);
static int read_app(struct point *p, const char *val, char *err, size_t len);
static int read_arg(struct point *p, const char *val, char *err, size_t len);
static int read_env(struct point *p, const char *val, char *err, size_t len);
static int read_dir(struct point *p, const char *val, char *err, size_t len);
static int read_sample(struct point *p, const char *val, char *err, size_t len);

/* VALUE_INT: a whole number into an int of struct point; VALUE_REAL: a number into a double;
 * VALUE_CHOICE: the index of one of the alternatives of the key's syntax ("warm|cold") into
 * an int; VALUE_OWN: its own reader. */
enum value_kind { VALUE_NONE, VALUE_INT, VALUE_REAL, VALUE_CHOICE, VALUE_OWN };

#define FIELD(f) offsetof(struct point, f)
static const struct {
	enum value_kind kind;
	size_t field;
	value_reader read;
} readers[INPUT_COUNT] = {
    [INPUT_WORKLOAD] = {VALUE_OWN, 0, read_workload},
    [INPUT_KERNEL] = {VALUE_OWN, 0, read_workload},
    [INPUT_PARAM] = {VALUE_OWN, 0, read_param},
    [INPUT_COUNTER] = {VALUE_OWN, 0, read_counter},
    [INPUT_GPUMETRIC] = {VALUE_OWN, 0, read_gpumetric},
    [INPUT_RULE] = {VALUE_OWN, 0, read_rule},
    [INPUT_RUNS] = {VALUE_INT, FIELD(rule.min_runs), NULL},
    [INPUT_BESTK] = {VALUE_INT, FIELD(rule.k), NULL},
    [INPUT_BESTEPSILON] = {VALUE_REAL, FIELD(rule.epsilon), NULL},
    [INPUT_MAXRUNS] = {VALUE_INT, FIELD(rule.max_runs), NULL},
    [INPUT_MINRUNTIME] = {VALUE_REAL, FIELD(min_run_time), NULL},
    [INPUT_CACHEMODE] = {VALUE_CHOICE, FIELD(cold), NULL},
    [INPUT_TIMEOUT] = {VALUE_REAL, FIELD(timeout), NULL},
    [INPUT_IGNOREDISTURBED] = {VALUE_CHOICE, FIELD(ignore_disturbed), NULL},
    [INPUT_CHILD] = {VALUE_CHOICE, FIELD(shared), NULL},
    [INPUT_APP] = {VALUE_OWN, 0, read_app},
    [INPUT_ARG] = {VALUE_OWN, 0, read_arg},
    [INPUT_ENV] = {VALUE_OWN, 0, read_env},
    [INPUT_DIR] = {VALUE_OWN, 0, read_dir},
    [INPUT_CUDA] = {VALUE_INT, FIELD(app.cuda), NULL},
    [INPUT_SAMPLE] = {VALUE_OWN, 0, read_sample},
};

/* A number, nothing after it but blanks; -1 when s is none (or not finite). */
static int parse_real(const char *s, double *v)
{
	char *end;
	*v = strtod(s, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	return end != s && *end == '\0' && isfinite(*v) ? 0 : -1;
}

/* A whole number that fits an int ("5" or "5.0", as a script's float may be written). */
static int parse_int(const char *s, int *v)
{
	double d;
	if (parse_real(s, &d) < 0 || d != floor(d) || d < INT_MIN || d > INT_MAX)
		return -1;
	*v = (int)d;
	return 0;
}

/* The index of val among the alternatives of syntax ("cacheMode warm|cold"), or -1 with
 * "cacheMode must be 'warm' or 'cold', not 'x'" in err. */
static int parse_choice(const char *syntax, const char *val, char *err, size_t len)
{
	const char *alt = strchr(syntax, ' ') + 1, *key = syntax;
	size_t vlen = strlen(val), used;
	int i = 0;
	for (const char *a = alt; *a; i++) {
		size_t n = strcspn(a, "|");
		if (n == vlen && strncmp(a, val, n) == 0)
			return i;
		a += n + (a[n] == '|');
	}
	used = (size_t)snprintf(err, len, "%.*s must be", (int)(alt - 1 - key), key);
	for (const char *a = alt; *a && used < len;) {
		size_t n = strcspn(a, "|");
		const char *sep = a == alt ? " " : a[n] ? ", " : " or ";
		used += (size_t)snprintf(err + used, len - used, "%s'%.*s'", sep, (int)n, a);
		a += n + (a[n] == '|');
	}
	if (used < len)
		snprintf(err + used, len - used, ", not '%.40s'", val);
	return -1;
}

/* "pin 0,2,...": the CPUs of a workload's threads, in order, each a plain CPU number. 0, or -1
 * with err naming the workload. */
static int read_pins(struct workload *w, const char *name, const char *val, char *err, size_t len)
{
	for (const char *c = val;; c++) {
		char *end = NULL;
		long cpu = *c >= '0' && *c <= '9' ? strtol(c, &end, 10) : -1;
		if (cpu < 0 || cpu > INT_MAX || (*end != ',' && *end != '\0')) {
			snprintf(err, len,
				 "workload '%s': pin must be CPU numbers separated by commas, not "
				 "'%.40s'",
				 name, val);
			return -1;
		}
		if (w->npin == MAX_PIN) {
			snprintf(err, len, "workload '%s': at most %d CPUs to pin to", name,
				 MAX_PIN);
			return -1;
		}
		w->pin[w->npin++] = (int)cpu;
		c = end;
		if (*c == '\0')
			return 0;
	}
}

/* "NAME [threads N] [pin CPU,CPU,...]" */
static int read_workload(struct point *p, const char *val, char *err, size_t len)
{
	char name[64], rest[900] = "", *save = NULL;
	if (p->nw == MAX_WORKLOADS) {
		snprintf(err, len, "at most %d workloads", MAX_WORKLOADS);
		return -1;
	}
	if (sscanf(val, "%63s %899[^\n]", name, rest) < 1) {
		snprintf(err, len, "bad workload line '%.60s'", val);
		return -1;
	}
	struct workload *w = &p->w[p->nw];
	memset(w, 0, sizeof *w);
	w->threads = 1;
	w->args.kernel = registry_find(name);
	if (!w->args.kernel) {
		char names[512];
		registry_names(names, sizeof names);
		snprintf(err, len, "kernel '%s' is not in this core (it has: %.400s)", name, names);
		return -1;
	}
	for (char *tok = strtok_r(rest, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *v = strtok_r(NULL, " ", &save);
		if (!v) {
			snprintf(err, len, "workload '%s': '%s' needs a value", name, tok);
			return -1;
		}
		if (strcmp(tok, "threads") == 0) {
			if (parse_int(v, &w->threads) < 0) {
				snprintf(err, len,
					 "workload '%s': threads: '%.40s' is not a whole number",
					 name, v);
				return -1;
			}
		} else if (strcmp(tok, "pin") == 0) {
			if (read_pins(w, name, v, err, len) < 0)
				return -1;
		} else {
			snprintf(err, len, "workload '%s': unknown setting '%s'", name, tok);
			return -1;
		}
	}
	if (w->threads < 1 || w->threads > 4096) {
		snprintf(err, len, "workload '%s': threads must be 1..4096", name);
		return -1;
	}
	if (w->threads > 1 && !w->args.kernel->run_thread) {
		snprintf(err, len, "kernel '%s' cannot run with %d threads: it has no run_thread",
			 name, w->threads);
		return -1;
	}
	p->nw++;
	return 0;
}

/* "NAME VALUE", for the last workload */
static int read_param(struct point *p, const char *val, char *err, size_t len)
{
	char name[64];
	int n = 0;
	double v;
	if (!p->nw) {
		snprintf(err, len, "'param' before 'workload'");
		return -1;
	}
	if (sscanf(val, "%63s %n", name, &n) != 1 || parse_real(val + n, &v) < 0) {
		snprintf(err, len, "param: expected NAME VALUE (a number), not '%.60s'", val);
		return -1;
	}
	return registry_set_arg(&p->w[p->nw - 1].args, name, v, err, len);
}

static int read_counter(struct point *p, const char *val, char *err, size_t len)
{
	if (p->ncounters == COUNTERS_MAX) {
		snprintf(err, len, "at most %d counters", COUNTERS_MAX);
		return -1;
	}
	snprintf(p->counter_names[p->ncounters++], sizeof p->counter_names[0], "%.127s", val);
	p->notify = 1;
	return 0;
}

static int read_gpumetric(struct point *p, const char *val, char *err, size_t len)
{
	int max = (int)(sizeof p->gpu_metrics / sizeof p->gpu_metrics[0]);
	if (p->ngpu_metrics == max) {
		snprintf(err, len, "at most %d GPU metrics", max);
		return -1;
	}
	snprintf(p->gpu_metrics[p->ngpu_metrics++], sizeof p->gpu_metrics[0], "%.127s", val);
	return 0;
}

static int read_rule(struct point *p, const char *val, char *err, size_t len)
{
	if (p->nrules == MAX_RULES) {
		snprintf(err, len, "at most %d rules", MAX_RULES);
		return -1;
	}
	if (rules_parse(val, &p->rules[p->nrules], err, (int)len) < 0)
		return -1;
	p->notify |= rules_parent_side(p->rules[p->nrules].action);
	p->nrules++;
	return 0;
}

/* An application's string, decoded into its strings: its offset, or -1 with err (what: the
 * key, for the words). */
static int app_string(struct app *a, const char *what, const char *val, char *err, size_t len)
{
	int n = escape_decode(val, a->strings + a->used, sizeof a->strings - (size_t)a->used);
	if (n < 0) {
		snprintf(err, len,
			 "%s: '%.40s' is badly escaped, or the application's strings pass %d bytes",
			 what, val, APP_STRINGS);
		return -1;
	}
	int at = a->used;
	a->used += n + 1;
	return at;
}

/* "app PATH": the program; its file name names it */
static int read_app(struct point *p, const char *val, char *err, size_t len)
{
	struct app *a = &p->app;
	if ((a->path = app_string(a, "app", val, err, len)) < 0)
		return -1;
	const char *path = a->strings + a->path, *slash = strrchr(path, '/');
	snprintf(a->name, sizeof a->name, "%s", slash ? slash + 1 : path);
	return 0;
}

static int read_arg(struct point *p, const char *val, char *err, size_t len)
{
	struct app *a = &p->app;
	if (a->nargs == APP_MAX_ARGS) {
		snprintf(err, len, "at most %d arguments", APP_MAX_ARGS);
		return -1;
	}
	int at = app_string(a, "arg", strcmp(val, "%") == 0 ? "" : val, err, len);
	if (at < 0)
		return -1;
	a->args[a->nargs++] = at;
	return 0;
}

static int read_env(struct point *p, const char *val, char *err, size_t len)
{
	struct app *a = &p->app;
	const char *eq = strchr(val, '=');
	if (!eq || eq == val || a->nenv == APP_MAX_ENV) {
		snprintf(err, len, "env: expected NAME=VALUE (at most %d), not '%.40s'",
			 APP_MAX_ENV, val);
		return -1;
	}
	int at = app_string(a, "env", val, err, len);
	if (at < 0)
		return -1;
	a->env[a->nenv++] = at;
	return 0;
}

static int read_dir(struct point *p, const char *val, char *err, size_t len)
{
	return (p->app.dir = app_string(&p->app, "dir", val, err, len)) < 0 ? -1 : 0;
}

/* Reads val into the field of p that the key's reader names. */
static int read_value(struct point *p, enum input_key k, const char *val, char *err, size_t len)
{
	void *field = (char *)p + readers[k].field;
	int choice;
	switch (readers[k].kind) {
	case VALUE_INT:
		if (parse_int(val, field) == 0)
			return 0;
		snprintf(err, len, "%s: '%.40s' is not a whole number", keys[k].key, val);
		return -1;
	case VALUE_REAL:
		if (parse_real(val, field) == 0)
			return 0;
		snprintf(err, len, "%s: '%.40s' is not a number", keys[k].key, val);
		return -1;
	case VALUE_CHOICE:
		if ((choice = parse_choice(keys[k].syntax, val, err, len)) < 0)
			return -1;
		*(int *)field = choice;
		return 0;
	case VALUE_OWN:
		return readers[k].read(p, val, err, len);
	case VALUE_NONE:
	default:
		snprintf(err, len, "this core cannot read input key '%s'", keys[k].key);
		return -1;
	}
}

/* "sample PERIOD_NS": 0, or a period within SAMPLER_MIN_NS..SAMPLER_MAX_NS */
static int read_sample(struct point *p, const char *val, char *err, size_t len)
{
	if (parse_int(val, &p->sample_ns) < 0 ||
	    (p->sample_ns != 0 &&
	     (p->sample_ns < SAMPLER_MIN_NS || p->sample_ns > SAMPLER_MAX_NS))) {
		snprintf(err, len,
			 "sample must be 0 or a period from %d to %d ns of CPU time, not '%.40s'",
			 SAMPLER_MIN_NS, SAMPLER_MAX_NS, val);
		return -1;
	}
	return 0;
}

void input_defaults(struct point *p)
{
	memset(p, 0, sizeof *p);
	p->rule = (struct bestk){.k = 3, .epsilon = 0.02, .min_runs = 3, .max_runs = 40};
	p->min_run_time = 1e-3;
	p->timeout = 600;
	p->app.path = p->app.dir = -1;
}

int input_line(struct point *p, const char *line, char *err, size_t len)
{
	char key[64], val[INPUT_LINE];
	if (sscanf(line, "%63s %4095[^\n]", key, val) != 2) {
		snprintf(err, len, "bad input line '%.60s'", line);
		return -1;
	}
	for (size_t n = strlen(val); n > 0 && (val[n - 1] == ' ' || val[n - 1] == '\t'); n--)
		val[n - 1] = '\0';
	for (int k = 0; k < INPUT_COUNT; k++)
		if (strcmp(key, keys[k].key) == 0)
			return read_value(p, (enum input_key)k, val, err, len);
	snprintf(err, len, "unknown input key '%s'", key);
	return -1;
}

int input_finish(struct point *p, char *err, size_t len)
{
	if (!p->nw && p->app.path < 0) {
		snprintf(err, len, "no kernel given");
		return -1;
	}
	if (p->nw && p->app.path >= 0) {
		snprintf(err, len, "a point measures kernels or an application, not both");
		return -1;
	}
	if (p->nw && p->sample_ns) {
		snprintf(err, len, "sample is for an application point, not a kernel's");
		return -1;
	}
	if (p->rule.max_runs < 1)
		p->rule.max_runs = 1;
	if (p->rule.min_runs > p->rule.max_runs)
		p->rule.max_runs = p->rule.min_runs;
	return 0;
}

/* Reads one point's settings, up to its "end" line. */
static int read_settings(FILE *in, struct point *p, char *err, size_t len)
{
	char line[INPUT_LINE];
	input_defaults(p);
	while (fgets(line, sizeof line, in)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (strcmp(line, PROTOCOL_END) == 0)
			return input_finish(p, err, len);
		if (input_line(p, line, err, len) < 0)
			return -1;
	}
	snprintf(err, len, "the point's settings end without an '" PROTOCOL_END "' line");
	return -1;
}

int input_next_point(FILE *in, struct point *p, char id[INPUT_ID_MAX], char *err, size_t len)
{
	char line[INPUT_LINE];
	const size_t n = sizeof PROTOCOL_POINT - 1;
	while (fgets(line, sizeof line, in)) {
		if (strncmp(line, PROTOCOL_POINT, n) == 0 && line[n] == ' ' &&
		    sscanf(line + n, " %63s", id) == 1)
			return read_settings(in, p, err, len) < 0 ? -1 : 1;
	}
	return 0;
}
