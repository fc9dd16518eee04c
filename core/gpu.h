/* gpu: the CUDA runtime side of the measuring core (built only when a point has a GPU kernel):
 * the device's availability, properties and identity, event timing and L2 flushing. */
#ifndef ROT_GPU_H
#define ROT_GPU_H

#include "kernel.h"

#include <stddef.h>
#include <stdio.h>

/* 0 when a CUDA device can be used; -1 with "no CUDA device: ..." in err. */
int gpu_available(char *err, size_t len);

/* Writes `meta` lines: device name, chip, SMs, clocks, memory, L2, versions. */
void gpu_info(FILE *out);

/* Launches reps invocations between two CUDA events and waits; returns their elapsed ns
 * (or -1 with err set). */
double gpu_time(const struct rot_kernel *k, void *state, long reps, char *err, size_t len);

/* Evicts L2 by writing a scratch buffer twice its size; waits for it. */
int gpu_flush_l2(char *err, size_t len);

/* Prints "device NAME, N SMs, cc X.Y, driver V": what identifies the device in a result. */
int gpu_identity(FILE *out);

#endif
