/* sysinfo: the state of the machine around a measurement: CPU model, kernel version,
 * load average, CPU frequency and governor, so a disturbed measurement can be told apart. */
#include "sysinfo.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* spaces are allowed in meta values, newlines are not */
static void meta(FILE *out, enum protocol_meta key, const char *value)
{
	protocol_meta(out, key, "%s", value && *value ? value : "unknown");
}

void sysinfo_frequency(FILE *out, enum protocol_meta key, int cpu)
{
	char path[128], buf[64];
	snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
		 cpu < 0 ? 0 : cpu);
	meta(out, key, read_line(path, buf, sizeof buf) == 0 ? buf : NULL);
}

/* What does not change while the core runs, read once: reading /proc/cpuinfo is slow in a
 * virtual machine, and in every child it would be most of a point's overhead. */
static struct {
	int read;
	char model[256];
	char kernel[128];
} fixed;

/* The CPU's brand string from CPUID, blanks trimmed (0 when there is none): the name hwloc, and
 * so the machine's identity, plots and JSON, give the CPU; a guest's /proc/cpuinfo may differ. */
static int cpuid_brand(char *out, size_t len)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int r[12];
	char s[49];
	if (__get_cpuid_max(0x80000000, NULL) < 0x80000004)
		return 0;
	for (unsigned int i = 0; i < 3; i++)
		__get_cpuid(0x80000002 + i, &r[4 * i], &r[4 * i + 1], &r[4 * i + 2], &r[4 * i + 3]);
	memcpy(s, r, 48);
	s[48] = '\0';
	char *b = s + strspn(s, " ");
	size_t n = strlen(b);
	while (n > 0 && b[n - 1] == ' ')
		b[--n] = '\0';
	if (n == 0)
		return 0;
	snprintf(out, len, "%s", b);
	return 1;
#else
	(void)out;
	(void)len;
	return 0;
#endif
}

void sysinfo_prepare(void)
{
	char buf[256];
	struct utsname u;
	if (fixed.read)
		return;
	fixed.read = 1;
	FILE *f = cpuid_brand(fixed.model, sizeof fixed.model) ? NULL : fopen("/proc/cpuinfo", "r");
	while (f && fgets(buf, sizeof buf, f)) {
		char *colon = strchr(buf, ':');
		if (strncmp(buf, "model name", 10) == 0 && colon) {
			snprintf(fixed.model, sizeof fixed.model, "%s", colon + 2);
			fixed.model[strcspn(fixed.model, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
	if (uname(&u) == 0)
		snprintf(fixed.kernel, sizeof fixed.kernel, "%s", u.release);
}

void sysinfo_static(FILE *out, int cpu)
{
	char buf[256], path[128];
	sysinfo_prepare();
	meta(out, META_CPU_MODEL, fixed.model);
	meta(out, META_KERNEL_VERSION, fixed.kernel);
	meta(out, META_LOADAVG, read_line("/proc/loadavg", buf, sizeof buf) == 0 ? buf : NULL);
	snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
		 cpu < 0 ? 0 : cpu);
	meta(out, META_GOVERNOR, read_line(path, buf, sizeof buf) == 0 ? buf : NULL);
}
