/* sysinfo: the state of the machine around a measurement: CPU model, kernel version,
 * load average, CPU frequency and governor, so a disturbed measurement can be told apart. */
#ifndef ROT_SYSINFO_H
#define ROT_SYSINFO_H

#include <stdio.h>

/* Writes `meta` lines with prefix (e.g. "Before") for the frequency of cpu. */
void sysinfo_frequency(FILE *out, const char *suffix, int cpu);

/* Reads what does not change while the core runs (CPU model, kernel version); the core calls
 * it before it forks the children that measure, so they inherit it. */
void sysinfo_prepare(void);

/* Writes cpuModel, kernel, loadavg, governor. */
void sysinfo_static(FILE *out, int cpu);

#endif
