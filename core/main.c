/* main: the measuring core's entry point. Reads one point's description (kernel,
 * parameters, run policy) from a file, measures it in a traced child, writes the results. */
#include "process.h"
#include "registry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Input, one setting a line:
 *   kernel NAME | param NAME VALUE | runs N | bestK N | bestEpsilon X | maxRuns N
 *   minRunTime SECONDS | cacheMode warm|cold | timeout SECONDS
 * Output: the record lines of process_measure(), written to a temp file and renamed.
 */
static int parse(FILE *in, struct point *p, char *err, size_t len)
{
	char line[1024], key[64], val[960];
	memset(p, 0, sizeof *p);
	p->rule = (struct bestk){.k = 3, .epsilon = 0.02, .min_runs = 3, .max_runs = 40};
	p->min_run_time = 1e-3;
	p->timeout = 600;
	while (fgets(line, sizeof line, in)) {
		char name[64];
		double v;
		if (line[0] == '\n' || line[0] == '#')
			continue;
		if (sscanf(line, "param %63s %lf", name, &v) == 2) {
			if (!p->args.kernel) {
				snprintf(err, len, "'param' before 'kernel'");
				return -1;
			}
			if (registry_set_arg(&p->args, name, v, err, len) < 0)
				return -1;
			continue;
		}
		if (sscanf(line, "%63s %959s", key, val) != 2) {
			snprintf(err, len, "bad input line '%.60s'", line);
			return -1;
		}
		if (strcmp(key, "kernel") == 0) {
			p->args.kernel = registry_find(val);
			if (!p->args.kernel) {
				char names[512];
				registry_names(names, sizeof names);
				snprintf(err, len, "kernel '%s' is not in this core (it has: %s)", val,
					 names);
				return -1;
			}
		} else if (strcmp(key, "runs") == 0) {
			p->rule.min_runs = atoi(val);
		} else if (strcmp(key, "bestK") == 0) {
			p->rule.k = atoi(val);
		} else if (strcmp(key, "bestEpsilon") == 0) {
			p->rule.epsilon = atof(val);
		} else if (strcmp(key, "maxRuns") == 0) {
			p->rule.max_runs = atoi(val);
		} else if (strcmp(key, "minRunTime") == 0) {
			p->min_run_time = atof(val);
		} else if (strcmp(key, "cacheMode") == 0) {
			p->cold = strcmp(val, "cold") == 0;
		} else if (strcmp(key, "timeout") == 0) {
			p->timeout = atof(val);
		} else {
			snprintf(err, len, "unknown input key '%s'", key);
			return -1;
		}
	}
	if (!p->args.kernel) {
		snprintf(err, len, "no kernel given");
		return -1;
	}
	if (p->rule.max_runs < 1)
		p->rule.max_runs = 1;
	if (p->rule.min_runs > p->rule.max_runs)
		p->rule.max_runs = p->rule.min_runs;
	return 0;
}

int main(int argc, char **argv)
{
	struct point p;
	char err[1024], tmp[4096];
	int rc = 2;
	if (argc != 3) {
		fprintf(stderr, "usage: rot-core INPUT OUTPUT\n");
		return 2;
	}
	FILE *in = fopen(argv[1], "r");
	if (!in) {
		fprintf(stderr, "rot-core: cannot read '%s': %s\n", argv[1], strerror(errno));
		return 2;
	}
	snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
	FILE *out = fopen(tmp, "w");
	if (!out) {
		fprintf(stderr, "rot-core: cannot write '%s': %s\n", tmp, strerror(errno));
		fclose(in);
		return 2;
	}
	if (parse(in, &p, err, sizeof err) < 0) {
		fprintf(out, "status failed\nerror %s\nmeta failure input\n", err);
		rc = 1;
	} else {
		rc = process_measure(&p, out);
	}
	fclose(in);
	if (fclose(out) != 0 || rename(tmp, argv[2]) < 0) {
		fprintf(stderr, "rot-core: cannot write '%s': %s\n", argv[2], strerror(errno));
		unlink(tmp);
		return 2;
	}
	return rc;
}
