/* counters: hardware and software event counters: names encoded by libpfm4, opened per
 * thread with perf_event_open, read with time enabled/running so multiplexing is scaled. */
#include "counters.h"

/* libpfm4's header brings its own perf_event definitions: never add <linux/perf_event.h> */
#include <perfmon/pfmlib_perf_event.h>

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <unistd.h>

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static int pfm_ready(char *err, size_t errlen)
{
	static int done, rc;
	if (!done) {
		rc = pfm_initialize();
		done = 1;
	}
	if (rc != PFM_SUCCESS) {
		snprintf(err, errlen, "libpfm4 cannot initialize: %s", pfm_strerror(rc));
		return -1;
	}
	return 0;
}

/* Whether the kernel registered a core PMU (libpfm4 may know the CPU model even when a
 * virtual machine hides the PMU, so its view alone is not enough). */
static int kernel_core_pmu(void)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *de;
	int found = 0;
	while (d && (de = readdir(d)) != NULL)
		found |= strncmp(de->d_name, "cpu", 3) == 0 ||
			 strncmp(de->d_name, "armv", 4) == 0 || strstr(de->d_name, "pmu") != NULL;
	if (d)
		closedir(d);
	return found;
}

/* Fills info for pmu; 1 when libpfm4 finds that PMU on this machine. */
static int pmu_present(int pmu, pfm_pmu_info_t *info)
{
	memset(info, 0, sizeof *info);
	info->size = sizeof *info;
	return pfm_get_pmu_info(pmu, info) == PFM_SUCCESS && info->is_present;
}

/* "counters on this machine: perf (82 events), ...; `rot events` lists every event" */
static void present_pmus(char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "counters on this machine:");
	int any_hw = kernel_core_pmu(), pmu;
	pfm_for_all_pmus(pmu)
	{
		pfm_pmu_info_t info;
		if (!pmu_present(pmu, &info))
			continue;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, " %s (%d events)",
						 info.name, info.nevents);
	}
	if (used < len)
		snprintf(
		    buf + used, len - used,
		    "%s; software events such as perf::TASK-CLOCK, perf::CONTEXT-SWITCHES, "
		    "perf::CPU-MIGRATIONS, perf::PAGE-FAULTS always work; `rot events` lists all",
		    any_hw ? ""
			   : "; the kernel exposes no core PMU (/sys/bus/event_source/devices has "
			     "no cpu entry: a virtual machine without PMU passthrough?)");
}

int counters_setup(struct counters *c, char names[][128], int n, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	if (n > COUNTERS_MAX) {
		snprintf(err, errlen, "at most %d counters per measurement", COUNTERS_MAX);
		return -1;
	}
	if (pfm_ready(err, errlen) < 0)
		return -1;
	struct perf_event_attr *attr = calloc((size_t)(n ? n : 1), sizeof *attr);
	if (!attr)
		return -1;
	c->attr = attr;
	c->user_only = paranoid_level() >= 2 && geteuid() != 0;
	for (int i = 0; i < n; i++) {
		pfm_perf_encode_arg_t arg;
		memset(&arg, 0, sizeof arg);
		arg.size = sizeof arg;
		arg.attr = &attr[i];
		attr[i].size = sizeof attr[i];
		int plm = c->user_only ? PFM_PLM3 : (PFM_PLM0 | PFM_PLM3);
		int rc = pfm_get_os_event_encoding(names[i], plm, PFM_OS_PERF_EVENT_EXT, &arg);
		if (rc != PFM_SUCCESS) {
			char avail[768];
			present_pmus(avail, sizeof avail);
			snprintf(err, errlen, "event '%s' cannot be counted: %s (%s)", names[i],
				 rc == PFM_ERR_NOTFOUND ? "unknown event name" : pfm_strerror(rc),
				 avail);
			return -1;
		}
		attr[i].read_format =
		    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		attr[i].disabled = 0;
		attr[i].inherit = 0;
		snprintf(c->name[i], sizeof c->name[i], "%s", names[i]);
	}
	c->n = n;
	return 0;
}

void counters_why(const struct counters *c, int i, int e, char *err, size_t errlen)
{
	int para = paranoid_level();
	char avail[768];
	present_pmus(avail, sizeof avail);
	const char *why;
	if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
		why = "the machine has no counter for it (no PMU, or this PMU lacks the event)";
	else if (e == EACCES || e == EPERM)
		why = "not permitted at this perf_event_paranoid level";
	else
		why = strerror(e);
	snprintf(err, errlen, "event '%s' cannot be counted: %s [%s; perf_event_paranoid=%d] (%s)",
		 i >= 0 && i < c->n ? c->name[i] : "?", why, strerror(e), para, avail);
	if (e == EACCES || e == EPERM)
		snprintf(err + strlen(err), errlen - strlen(err),
			 "\nhint: sudo sysctl kernel.perf_event_paranoid=1 (or run as root)");
}

int counters_open(const struct counters *c, pid_t tid, int *fds, char *err, size_t errlen)
{
	struct perf_event_attr *attr = c->attr;
	for (int i = 0; i < c->n; i++) {
		fds[i] = perf_event_open(&attr[i], tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[i] >= 0)
			continue;
		counters_why(c, i, errno, err, errlen);
		for (int j = 0; j < i; j++)
			close(fds[j]);
		return -1;
	}
	return 0;
}

size_t counters_attr(const struct counters *c, int i, const void **attr)
{
	*attr = &((const struct perf_event_attr *)c->attr)[i];
	return sizeof(struct perf_event_attr);
}

int counters_read(int fd, uint64_t v[3])
{
	ssize_t r = read(fd, v, 3 * sizeof *v);
	return r == (ssize_t)(3 * sizeof *v) ? 0 : -1;
}

void counters_enable(int fd, int on)
{
	ioctl(fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* The kernel's own line on its PMU ("Performance Events: PMU not available due to
 * virtualization, ...") from its log, into buf; "" where the log cannot be read (it takes
 * CAP_SYSLOG where dmesg_restrict is set) or says nothing of it. */
static void kernel_pmu_line(char *buf, size_t len)
{
	buf[0] = '\0';
	int n = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *log = n > 0 ? malloc((size_t)n + 1) : NULL;
	if (!log)
		return;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, n);
	log[n > 0 ? n : 0] = '\0';
	const char *at = strstr(log, "Performance Events: ");
	if (at) {
		size_t k = strcspn(at, "\n");
		snprintf(buf, len, "%.*s", (int)(k < len ? k : len - 1), at);
	}
	free(log);
}

/* Opens and closes attr on the calling thread: 0, or the errno of perf_event_open. */
static int try_open(struct perf_event_attr *attr)
{
	attr->disabled = 1;
	attr->exclude_kernel = paranoid_level() >= 2 && geteuid() != 0;
	int fd = perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* Whether this machine counts hardware events: 1, else 0 with why (the errno of opening the
 * CPU's cycles, what the kernel registered, the kernel's own words where its log says). */
static int hardware_counts(char *why, size_t len)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	int e = try_open(&a);
	if (!e)
		return 1;
	char said[256];
	kernel_pmu_line(said, sizeof said);
	snprintf(why, len, "perf_event_open of the CPU's cycles fails: %s (errno %d)%s%s%s%s",
		 strerror(e), e,
		 kernel_core_pmu() ? ""
				   : "; the kernel registered no core PMU (no cpu entry in "
				     "/sys/bus/event_source/devices)",
		 said[0] ? "; the kernel says: '" : "", said, said[0] ? "'" : "");
	return 0;
}

/* Whether event pmu::name can be opened here: 0, else the errno of opening it (or -1 when
 * libpfm4 cannot encode it, *rc its error). */
static int event_opens(const char *pmu, const char *name, int *rc)
{
	char full[256];
	struct perf_event_attr a;
	pfm_perf_encode_arg_t arg;
	snprintf(full, sizeof full, "%s::%s", pmu, name);
	memset(&a, 0, sizeof a);
	memset(&arg, 0, sizeof arg);
	arg.size = sizeof arg;
	arg.attr = &a;
	a.size = sizeof a;
	*rc = pfm_get_os_event_encoding(full, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (*rc != PFM_SUCCESS)
		return -1;
	return try_open(&a);
}

/* The events of a PMU opened one by one: how many open here; with out, each event's line,
 * marked where it cannot be opened and why. */
static int pmu_events(FILE *out, const pfm_pmu_info_t *info)
{
	int opens = 0;
	for (int i = info->first_event; i != -1; i = pfm_get_event_next(i)) {
		pfm_event_info_t ev;
		memset(&ev, 0, sizeof ev);
		ev.size = sizeof ev;
		if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ev) != PFM_SUCCESS)
			continue;
		int rc, e = event_opens(info->name, ev.name, &rc);
		opens += e == 0;
		if (!out)
			continue;
		if (e == 0)
			fprintf(out, "event %s::%s\n", info->name, ev.name);
		else if (e < 0)
			fprintf(out, "event %s::%s (cannot be encoded alone: %s)\n", info->name,
				ev.name, pfm_strerror(rc));
		else
			fprintf(out, "event %s::%s (cannot be opened here: %s)\n", info->name,
				ev.name, strerror(e));
	}
	return opens;
}

void counters_list(FILE *out, int with_events)
{
	char err[512];
	int pmu;
	if (hardware_counts(err, sizeof err))
		fprintf(out, "hardware events: this machine counts them (the CPU's cycles open)\n");
	else
		fprintf(out,
			"hardware events: none can be counted on this machine: %s; software events "
			"(perf::TASK-CLOCK, ...) work\n",
			err);
	if (pfm_ready(err, sizeof err) < 0) {
		fprintf(out, "%s\n", err);
		return;
	}
	pfm_for_all_pmus(pmu)
	{
		pfm_pmu_info_t info;
		if (!pmu_present(pmu, &info))
			continue;
		fprintf(out, "pmu %s %s (%d events, %d of them open here)\n", info.name,
			info.desc ? info.desc : "", info.nevents, pmu_events(NULL, &info));
		if (with_events)
			pmu_events(out, &info);
	}
}

void counters_free(struct counters *c)
{
	free(c->attr);
	c->attr = NULL;
}
