/* sampler: a software clock event on every CPU, inherited through the program's threads and
 * forks, its ring buffers read while the program runs; records taken in time order (a mapping
 * before the samples in it), samples turned into places (codemap.c) and counted by place and
 * callers; the invocation's records written at its end. */
#define _GNU_SOURCE
#include "sampler.h"
#include "protocol.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

/* A record read from a ring buffer: its time, the order it was read in, where it is kept. */
struct sampler_record {
	uint64_t time, seq;
	size_t at;
};

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static size_t ring_bytes(void)
{
	return (1 + SAMPLER_BUFFER_PAGES) * page_size();
}

/* The event: the CPU clock, every period ns, from the exec on, inherited, with the mappings,
 * execs and forks told, times on CLOCK_MONOTONIC (comparable across CPUs and with the core's). */
static void attr_of(struct perf_event_attr *a, uint64_t period, int kernel, int max_stack)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = period;
	a->sample_type =
	    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->exclude_kernel = !kernel;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	a->sample_max_stack = (uint16_t)(max_stack ? SAMPLER_CALLERS + 2 : 0);
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(SAMPLER_BUFFER_PAGES * page_size() / 4);
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

static void close_events(struct sampler *s)
{
	for (int i = 0; i < s->ncpu; i++) {
		if (s->ring && s->ring[i])
			munmap(s->ring[i], ring_bytes());
		if (s->fd && s->fd[i] >= 0)
			close(s->fd[i]);
		if (s->ring)
			s->ring[i] = NULL;
		if (s->fd)
			s->fd[i] = -1;
	}
	if (s->epfd >= 0)
		close(s->epfd);
	s->epfd = -1;
}

/* One event a CPU on pid (an offline CPU skipped): 0, or the errno of the first that failed. */
static int open_events(struct sampler *s, pid_t pid, int kernel, int max_stack)
{
	struct perf_event_attr a;
	int opened = 0;
	attr_of(&a, s->period, kernel, max_stack);
	for (int i = 0; i < s->ncpu; i++) {
		s->fd[i] = (int)syscall(SYS_perf_event_open, &a, pid, i, -1, PERF_FLAG_FD_CLOEXEC);
		if (s->fd[i] < 0 && errno != ENODEV) {
			int err = errno;
			close_events(s);
			return err;
		}
		opened += s->fd[i] >= 0;
	}
	return opened ? 0 : ENODEV;
}

/* The ring buffers mapped and the events polled: 0, or errno. */
static int map_rings(struct sampler *s)
{
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		return errno;
	for (int i = 0; i < s->ncpu; i++) {
		if (s->fd[i] < 0)
			continue;
		void *r = mmap(NULL, ring_bytes(), PROT_READ | PROT_WRITE, MAP_SHARED, s->fd[i], 0);
		if (r == MAP_FAILED)
			return errno;
		s->ring[i] = r;
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->fd[i], &ev) < 0)
			return errno;
	}
	return 0;
}

/* A number from a /proc/sys file, or fallback. */
static long proc_number(const char *path, long fallback)
{
	FILE *f = fopen(path, "re");
	long v = fallback;
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = fallback;
		fclose(f);
	}
	return v;
}

void sampler_refusal(int err, const char *what, int paranoid, long mlock_kb, char *buf, size_t len)
{
	const char *e = strerror(err);
	int denied = err == EACCES || err == EPERM;
	if (err == ENOSYS || err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
		snprintf(buf, len,
			 "sampling refused: %s: %s: this kernel has no perf events "
			 "(CONFIG_PERF_EVENTS); the program is timed without",
			 what, e);
	else if (denied && strcmp(what, "mmap") == 0)
		snprintf(
		    buf, len,
		    "sampling refused: its ring buffers exceed the memory a user may lock (%s): "
		    "raise kernel.perf_event_mlock_kb (now %ld) or ulimit -l; the program is "
		    "timed without",
		    e, mlock_kb);
	else if (denied && paranoid > 2)
		snprintf(buf, len,
			 "sampling refused: %s: %s (kernel.perf_event_paranoid is %d): set it to 2 "
			 "or lower (sysctl kernel.perf_event_paranoid=2) to sample; the program is "
			 "timed without",
			 what, e, paranoid);
	else if (denied)
		snprintf(buf, len,
			 "sampling refused: %s: %s though kernel.perf_event_paranoid is %d: a "
			 "seccomp profile forbids it (a container's: allow perf_event_open, docker "
			 "--security-opt seccomp=..., or grant CAP_PERFMON); the program is timed "
			 "without",
			 what, e, paranoid);
	else if (err == EMFILE || err == ENFILE)
		snprintf(buf, len,
			 "sampling refused: %s: %s (an event a CPU): raise the open files limit "
			 "(ulimit -n); the program is timed without",
			 what, e);
	else
		snprintf(buf, len, "sampling refused: %s: %s; the program is timed without", what,
			 e);
}

int sampler_open(struct sampler *s, pid_t pid, uint64_t period_ns, char *why, size_t len)
{
	int err = 0;
	memset(s, 0, sizeof *s);
	s->epfd = -1;
	s->period = period_ns;
	s->ncpu = get_nprocs_conf();
	codemap_init(&s->map);
	s->fd = malloc((size_t)s->ncpu * sizeof *s->fd);
	s->ring = calloc((size_t)s->ncpu, sizeof *s->ring);
	if (!s->fd || !s->ring) {
		err = ENOMEM;
		goto out;
	}
	for (int i = 0; i < s->ncpu; i++)
		s->fd[i] = -1;
	/* kernel code where allowed, else user code; a kernel without sample_max_stack: all */
	for (int kernel = 1; kernel >= 0; kernel--) {
		err = open_events(s, pid, kernel, 1);
		if (err == EINVAL || err == E2BIG)
			err = open_events(s, pid, kernel, 0);
		s->kernel = kernel;
		if (err != EACCES && err != EPERM)
			break;
	}
	if (err)
		goto out;
	if ((err = map_rings(s)) != 0) {
		sampler_refusal(err, "mmap", 0,
				proc_number("/proc/sys/kernel/perf_event_mlock_kb", -1), why, len);
		close_events(s);
		sampler_free(s);
		return -1;
	}
out:
	if (err) {
		sampler_refusal(err, "perf_event_open",
				(int)proc_number("/proc/sys/kernel/perf_event_paranoid", -99), -1,
				why, len);
		sampler_free(s);
		return -1;
	}
	return 0;
}

int sampler_fd(const struct sampler *s)
{
	return s->epfd;
}

/* Room for n more bytes of pending records and one more record: 0, or -1. */
static int pending_room(struct sampler *s, size_t n)
{
	if (s->npending + n > s->cpending) {
		size_t c = 2 * (s->npending + n);
		char *p = realloc(s->pending, c);
		if (!p)
			return -1;
		s->pending = p;
		s->cpending = c;
	}
	if (s->norder == s->corder) {
		size_t c = s->corder ? 2 * s->corder : 1024;
		struct sampler_record *o = realloc(s->order, c * sizeof *o);
		if (!o)
			return -1;
		s->order = o;
		s->corder = c;
	}
	return 0;
}

/* n bytes from the ring's data at position pos (wrapping) into to. */
static void ring_copy(const char *data, size_t size, uint64_t pos, void *to, size_t n)
{
	size_t at = (size_t)(pos % size), first = n < size - at ? n : size - at;
	memcpy(to, data + at, first);
	memcpy((char *)to + first, data, n - first);
}

/* A record's time: a sample's own field, else its sample_id's (the record's last 8 bytes). */
static uint64_t record_time(const char *r)
{
	const struct perf_event_header *h = (const void *)r;
	uint64_t t;
	if (h->type == PERF_RECORD_SAMPLE)
		memcpy(&t, r + 24, sizeof t);
	else
		memcpy(&t, r + h->size - 8, sizeof t);
	return t;
}

/* Moves ring i's records into the pending ones. */
static void read_ring(struct sampler *s, int i)
{
	struct perf_event_mmap_page *mp = s->ring[i];
	const char *data = (const char *)mp + page_size();
	size_t size = SAMPLER_BUFFER_PAGES * page_size();
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE), tail = mp->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		ring_copy(data, size, tail, &h, sizeof h);
		if (h.size < sizeof h + 8 || h.size > head - tail) {
			s->bad++;
			tail = head; /* a record that cannot be: the rest is skipped */
			break;
		}
		if (pending_room(s, h.size) == 0) {
			char *r = s->pending + s->npending;
			ring_copy(data, size, tail, r, h.size);
			s->order[s->norder] =
			    (struct sampler_record){record_time(r), s->norder, s->npending};
			s->norder++;
			s->npending += h.size;
		} else {
			s->oom = 1;
			s->bad += h.type == PERF_RECORD_SAMPLE;
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static int by_time(const void *a, const void *b)
{
	const struct sampler_record *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void note_id(int **set, int *n, int *cap, int id)
{
	for (int i = 0; i < *n; i++)
		if ((*set)[i] == id)
			return;
	if (*n == *cap) {
		int c = *cap ? 2 * *cap : 64;
		int *p = realloc(*set, (size_t)c * sizeof *p);
		if (!p)
			return;
		*set = p;
		*cap = c;
	}
	(*set)[(*n)++] = id;
}

static struct samples_place place_of(const struct sampler *s, pid_t pid, uint64_t addr, uint64_t t)
{
	struct samples_place p;
	p.obj = codemap_find(&s->map, pid, addr, t, &p.off);
	return p;
}

/*
 * A sample: its place (kernel code: the kernel's object), and its callers from the user part of
 * its call chain (a user sample's first entry is its own address; a kernel sample's is where the
 * program entered the kernel), up to the first that lies in no file (a frame pointer the code
 * does not keep leads nowhere).
 */
static void take_sample(struct sampler *s, const char *r)
{
	const struct perf_event_header *h = (const void *)r;
	uint64_t ip, nr, t;
	uint32_t ids[2];
	memcpy(&ip, r + 8, 8);
	memcpy(ids, r + 16, 8);
	memcpy(&t, r + 24, 8);
	memcpy(&nr, r + 32, 8);
	if (40 + 8 * nr > h->size) {
		s->bad++;
		return;
	}
	int kernel = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	int user = 0, skip = !kernel;
	struct samples_entry e = {.at = {CODEMAP_KERNEL, 0}};
	if (!kernel)
		e.at = place_of(s, (pid_t)ids[0], ip, t);
	for (uint64_t k = 0; k < nr && e.ncallers < SAMPLER_CALLERS; k++) {
		uint64_t a;
		memcpy(&a, r + 40 + 8 * k, 8);
		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			user = a == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (!user)
			continue;
		if (skip) {
			skip = 0; /* the sample's own address */
			continue;
		}
		struct samples_place c = place_of(s, (pid_t)ids[0], a, t);
		if (c.obj == CODEMAP_UNKNOWN)
			break;
		e.callers[e.ncallers++] = c;
	}
	if (samples_add(&s->table, &e) < 0) {
		s->oom = 1;
		s->bad++;
		return;
	}
	s->samples++;
	s->unknown += e.at.obj == CODEMAP_UNKNOWN;
	note_id(&s->pids, &s->npids, &s->cpids, (int)ids[0]);
	note_id(&s->tids, &s->ntids, &s->ctids, (int)ids[1]);
}

/* A record in its turn: a sample, a mapping, an exec, a fork, a loss, a throttling. */
static void handle(struct sampler *s, const char *r, uint64_t t)
{
	const struct perf_event_header *h = (const void *)r;
	uint32_t ids[4];
	uint64_t u[3];
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		take_sample(s, r);
		break;
	case PERF_RECORD_MMAP2: /* pid tid, addr len pgoff, maj min, ino gen, prot flags, name */
		memcpy(ids, r + 8, 8);
		memcpy(u, r + 16, 24);
		if (h->size > 80 && memchr(r + 72, '\0', h->size - 72 - 8) &&
		    codemap_mmap(&s->map, (pid_t)ids[0], u[0], u[1], u[2], r + 72, t) < 0)
			s->oom = 1;
		break;
	case PERF_RECORD_COMM:
		memcpy(ids, r + 8, 8);
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
			codemap_exec(&s->map, (pid_t)ids[0], t);
		break;
	case PERF_RECORD_FORK: /* pid ppid tid ptid: a new process where pid is not ppid */
		memcpy(ids, r + 8, 16);
		if (ids[0] != ids[1] && codemap_fork(&s->map, (pid_t)ids[0], (pid_t)ids[1], t) < 0)
			s->oom = 1;
		break;
	case PERF_RECORD_LOST:
		memcpy(u, r + 8, 16);
		s->lost += u[1];
		break;
	case PERF_RECORD_THROTTLE:
		s->throttled++;
		break;
	default:
		break;
	}
}

/* Reads every ring; handles, in time order, the pending records up to `upto` and keeps the
 * rest (compacted) for the next read. */
static void read_all(struct sampler *s, uint64_t upto)
{
	for (int i = 0; i < s->ncpu; i++)
		if (s->ring[i])
			read_ring(s, i);
	qsort(s->order, s->norder, sizeof *s->order, by_time);
	size_t k = 0;
	for (; k < s->norder && s->order[k].time <= upto; k++)
		handle(s, s->pending + s->order[k].at, s->order[k].time);
	size_t left = 0, bytes = 0;
	for (size_t j = k; j < s->norder; j++) { /* the later ones, to the front */
		const char *r = s->pending + s->order[j].at;
		size_t n = ((const struct perf_event_header *)(const void *)r)->size;
		memmove(s->pending + bytes, r, n);
		s->order[left++] =
		    (struct sampler_record){s->order[j].time, s->order[j].seq, bytes};
		bytes += n;
	}
	s->norder = left;
	s->npending = bytes;
}

void sampler_drain(struct sampler *s)
{
	struct epoll_event ev[16];
	struct timespec now;
	int n = epoll_wait(s->epfd, ev, 16, 0); /* (takes the wakeups: the descriptor quietens) */
	for (int i = 0; i < n; i++)
		if (ev[i].events & (EPOLLHUP | EPOLLERR)) /* its task ended: read at the end */
			epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->fd[ev[i].data.u32], NULL);
	clock_gettime(CLOCK_MONOTONIC, &now);
	read_all(s, (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec);
}

static void write_sampled(const struct sampler *s, int run, FILE *out)
{
	protocol_record(out, RECORD_SAMPLED);
	fprintf(out, "%s=%d", PROTOCOL_REGION_RUN, run);
	protocol_sample_value(out, SAMPLEKEY_PERIOD_NS, "%llu", (unsigned long long)s->period);
	protocol_sample_value(out, SAMPLEKEY_SAMPLES, "%llu", (unsigned long long)s->samples);
	protocol_sample_value(out, SAMPLEKEY_LOST, "%llu", (unsigned long long)s->lost);
	protocol_sample_value(out, SAMPLEKEY_THROTTLED, "%llu", (unsigned long long)s->throttled);
	protocol_sample_value(out, SAMPLEKEY_KERNEL, "%d", s->kernel);
	protocol_sample_value(out, SAMPLEKEY_THREADS, "%d", s->ntids);
	protocol_sample_value(out, SAMPLEKEY_PROCESSES, "%d", s->npids);
	protocol_sample_value(out, SAMPLEKEY_UNKNOWN, "%llu", (unsigned long long)s->unknown);
	protocol_sample_value(out, SAMPLEKEY_BAD, "%llu", (unsigned long long)s->bad);
	fputc('\n', out);
}

void sampler_finish(struct sampler *s, int run, FILE *out)
{
	if (s->epfd >= 0)
		read_all(s, UINT64_MAX);
	close_events(s);
	write_sampled(s, run, out);
	samples_write(&s->table, &s->map, run, out);
}

void sampler_free(struct sampler *s)
{
	close_events(s);
	codemap_free(&s->map);
	free(s->fd);
	free(s->ring);
	samples_free(&s->table);
	free(s->pending);
	free(s->order);
	free(s->pids);
	free(s->tids);
	memset(s, 0, sizeof *s);
	s->epfd = -1;
}
