/* sysinfo: the state of the machine around a measurement: CPU model, kernel version,
 * load average, CPU frequency and governor, so a disturbed measurement can be told apart. */
#ifndef ROT_SYSINFO_H
#define ROT_SYSINFO_H

#include "protocol.h"

#include <stdio.h>

/* Writes the meta record key (META_CPU_KHZ_BEFORE or _AFTER): the frequency of cpu. */
void sysinfo_frequency(FILE *out, enum protocol_meta key, int cpu);

/* Reads what does not change while the core runs (CPU model, kernel version); the core calls
 * it before it forks the children that measure, so they inherit it. */
void sysinfo_prepare(void);

/* Writes cpuModel, kernel, loadavg, governor. */
void sysinfo_static(FILE *out, int cpu);

#endif
