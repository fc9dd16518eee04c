/* registry: the kernels compiled into this core (each registered itself) and the
 * parameter values of one measurement, checked against what the kernel declares. */
#ifndef ROT_REGISTRY_H
#define ROT_REGISTRY_H

#include "kernel.h"

#define ROT_MAX_ARGS 32

struct rot_args {
	const struct rot_kernel *kernel;
	int n;
	const char *name[ROT_MAX_ARGS];
	double value[ROT_MAX_ARGS];
};

const struct rot_kernel *registry_find(const char *name);

/* Lists the registered kernel names into buf (comma separated). */
void registry_names(char *buf, size_t len);

/* Sets a parameter; -1 with a message in err when the kernel has no such parameter. */
int registry_set_arg(struct rot_args *a, const char *name, double value, char *err, size_t len);

#endif
