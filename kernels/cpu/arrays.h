/* arrays: a kernel's state with its arrays, allocated, listed and freed as one. The state's
 * struct begins with a struct arrays; arrays_dispose and arrays_buffers are its kernel's own. */
#ifndef ROT_KERNEL_ARRAYS_H
#define ROT_KERNEL_ARRAYS_H

#include "kernel.h"

#include <stdlib.h>

#define ARRAYS_MAX 3

struct arrays {
	void *at[ARRAYS_MAX]; /* NULL: no array there */
	size_t bytes[ARRAYS_MAX];
};

/* Frees a state arrays_new made, and its arrays: a kernel's dispose. */
static inline void arrays_dispose(void *state)
{
	struct arrays *s = state;
	for (int i = 0; i < ARRAYS_MAX; i++)
		free(s->at[i]);
	free(s);
}

/* A zeroed state of size bytes, its struct arrays first, holding for each nonzero bytes[i] of
 * bytes[0..n) (n at most ARRAYS_MAX) an array of that many (rot_alloc: page-aligned, zeroed).
 * NULL with errno when any allocation fails: nothing is kept. */
static inline void *arrays_new(size_t size, const size_t *bytes, int n)
{
	struct arrays *s = calloc(1, size);
	if (!s)
		return NULL;
	for (int i = 0; i < n && i < ARRAYS_MAX; i++) {
		s->bytes[i] = bytes[i];
		if (bytes[i] && !(s->at[i] = rot_alloc(bytes[i]))) {
			arrays_dispose(s);
			return NULL;
		}
	}
	return s;
}

/* The state's arrays in out[0..max), in their order, those absent left out: a kernel's buffers.
 * Returns how many. */
static inline int arrays_buffers(void *state, struct rot_buffer *out, int max)
{
	struct arrays *s = state;
	int n = 0;
	for (int i = 0; i < ARRAYS_MAX && n < max; i++)
		if (s->at[i])
			out[n++] = (struct rot_buffer){s->at[i], s->bytes[i]};
	return n;
}

#endif
