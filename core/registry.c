/* registry: the kernels compiled into this core (each registered itself) and the
 * parameter values of one measurement, checked against what the kernel declares. */
#include "registry.h"
#include "pool.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KERNELS 256

static const struct rot_kernel *kernels[MAX_KERNELS];
static int nkernels;

void rot_kernel_register(const struct rot_kernel *k)
{
	if (nkernels < MAX_KERNELS)
		kernels[nkernels++] = k;
}

const struct rot_kernel *registry_find(const char *name)
{
	for (int i = 0; i < nkernels; i++)
		if (strcmp(kernels[i]->name, name) == 0)
			return kernels[i];
	return NULL;
}

void registry_names(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < nkernels && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 kernels[i]->name);
}

int registry_set_arg(struct rot_args *a, const char *name, double value, char *err, size_t len)
{
	const struct rot_param *p = a->kernel->params;
	for (; p && p->name; p++)
		if (strcmp(p->name, name) == 0)
			break;
	if (!p || !p->name) {
		size_t used = (size_t)snprintf(err, len, "kernel '%s' has no parameter '%s' (it has:",
					       a->kernel->name, name);
		for (p = a->kernel->params; p && p->name && used < len; p++)
			used += (size_t)snprintf(err + used, len - used, " %s", p->name);
		if (used < len)
			snprintf(err + used, len - used, ")");
		return -1;
	}
	for (int i = 0; i < a->n; i++) {
		if (strcmp(a->name[i], name) == 0) {
			a->value[i] = value;
			return 0;
		}
	}
	if (a->n == ROT_MAX_ARGS) {
		snprintf(err, len, "too many parameters");
		return -1;
	}
	a->name[a->n] = p->name;
	a->value[a->n++] = value;
	return 0;
}

double rot_arg(const struct rot_args *a, const char *name)
{
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->name[i], name) == 0)
			return a->value[i];
	for (const struct rot_param *p = a->kernel->params; p && p->name; p++)
		if (strcmp(p->name, name) == 0)
			return p->def;
	return 0;
}

void *rot_alloc(size_t bytes)
{
	if (bytes > SIZE_MAX - 4095) { /* its pages cannot be counted: no memory holds them */
		errno = ENOMEM;
		return NULL;
	}
	size_t rounded = (bytes + 4095) & ~(size_t)4095;
	void *p = pool_alloc(rounded ? rounded : 4096);
	if (p)
		memset(p, 0, rounded);
	return p;
}
