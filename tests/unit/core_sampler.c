/* Unit tests for core/sampler: this test run again as the sampled program (a spin in one
 * function for 300 ms of CPU time; the same split over two threads; over a forked process):
 * the samples count its CPU time by the period, land in the spinning function at the offsets
 * its file links, name its file, and count its threads and processes; a refusal (a seccomp
 * filter that denies perf_event_open, as a container's) in one line with the setting, and the
 * wording of the others.
 * judges no time */
#define _GNU_SOURCE
#include "sampler.h"
#include "tap.h"

#include <errno.h>
#include <link.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SPIN_NS 300000000.0
#define PERIOD 1000000

static double cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Spins for ns of this thread's CPU time, almost all of it in its own loop. */
__attribute__((noinline)) double spin(double ns)
{
	double x = 1, t0 = cpu_ns();
	while (cpu_ns() - t0 < ns)
		for (int k = 0; k < 2000000; k++)
			x = x * 1.0000001 + 1e-9;
	return x;
}

static void *spin_thread(void *arg)
{
	(void)arg;
	spin(SPIN_NS / 2);
	return NULL;
}

/* The sampled program: spin, threads (two threads, half each), fork (two processes). */
static int program(const char *mode)
{
	if (strcmp(mode, "threads") == 0) {
		pthread_t t[2];
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, spin_thread, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
	} else if (strcmp(mode, "fork") == 0) {
		pid_t c = fork();
		spin(SPIN_NS / 2);
		if (c == 0)
			_exit(0);
		waitpid(c, NULL, 0);
	} else {
		spin(SPIN_NS);
	}
	return 0;
}

/* The sampler's records of the program run in mode, in out (size bytes); the sampler returned
 * in s. -1 when it was refused (why). */
static int sample(const char *mode, struct sampler *s, char *out, size_t size, char *why)
{
	pid_t pid = fork();
	if (pid == 0) {
		raise(SIGSTOP);
		execl("/proc/self/exe", "core_sampler", mode, (char *)NULL);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, WUNTRACED);
	if (sampler_open(s, pid, PERIOD, why, 512) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -1;
	}
	kill(pid, SIGCONT);
	while (waitpid(pid, &st, WNOHANG) == 0)
		if (poll(&(struct pollfd){sampler_fd(s), POLLIN, 0}, 1, 20) > 0)
			sampler_drain(s);
	FILE *f = fmemopen(out, size, "w");
	sampler_finish(s, 0, f);
	fclose(f);
	return 0;
}

static long field(const char *text, const char *line, const char *key)
{
	const char *l = strstr(text, line), *k;
	char pat[64];
	snprintf(pat, sizeof pat, " %s=", key);
	return l && (k = strstr(l, pat)) ? atol(k + strlen(pat)) : -1;
}

static uintptr_t bias;

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size, (void)data;
	bias = info->dlpi_addr;
	return 1;
}

/* The samples whose place lies within [lo, hi) of object obj. */
static long samples_in(const char *text, int obj, uint64_t lo, uint64_t hi)
{
	long n = 0;
	char want[32];
	snprintf(want, sizeof want, "obj=%d ", obj);
	for (const char *l = strstr(text, "\nsample "); l; l = strstr(l + 1, "\nsample ")) {
		const char *o = strstr(l, " obj=");
		unsigned long long off = strtoull(strstr(l, " off=") + 5, NULL, 16);
		if (strncmp(o + 1, want, strlen(want)) == 0 && off >= lo && off < hi)
			n += atol(strstr(l, " n=") + 3);
	}
	return n;
}

static void spin_case(void)
{
	static char out[1 << 20];
	char why[512], exe[4096], object[4200];
	struct sampler s;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	int rc = sample("spin", &s, out, sizeof out, why);
	ok(rc == 0, "a program sampled%s%s", rc ? ": " : "", rc ? why : "");
	if (rc)
		return;
	long total = field(out, "sampled ", "samples");
	ok(total >= 240 && total <= 360, "300 ms of CPU time at 1 ms: %ld samples", total);
	ok(field(out, "sampled ", "threads") == 1 && field(out, "sampled ", "processes") == 1 &&
	       field(out, "sampled ", "lost") == 0 && field(out, "sampled ", "bad") == 0,
	   "one thread, one process, none lost");
	snprintf(object, sizeof object, "object run=0 id=%d path=%s\n", CODEMAP_FILES, exe);
	ok(strstr(out, object) != NULL, "its file is an object record (%s)", exe);
	uint64_t at = (uint64_t)(uintptr_t)spin - bias;
	long in = samples_in(out, CODEMAP_FILES, at, at + 256);
	ok(in >= total * 9 / 10, "%ld of them in spin, at its link offset 0x%llx and after", in,
	   (unsigned long long)at);
	sampler_free(&s);
}

static void threads_case(void)
{
	static char out[1 << 20];
	char why[512];
	struct sampler s;
	if (sample("threads", &s, out, sizeof out, why) < 0)
		return;
	long total = field(out, "sampled ", "samples");
	/* the main thread as well where its start (exec, the loader) took a sample's CPU time */
	long nt = field(out, "sampled ", "threads");
	ok(nt >= 2 && nt <= 3 && total >= 240 && total <= 360,
	   "two threads followed: %ld threads, %ld samples", nt, total);
	sampler_free(&s);
	if (sample("fork", &s, out, sizeof out, why) < 0)
		return;
	total = field(out, "sampled ", "samples");
	ok(field(out, "sampled ", "processes") == 2 && total >= 240 && total <= 360,
	   "a forked process followed: %ld processes, %ld samples",
	   field(out, "sampled ", "processes"), total);
	sampler_free(&s);
}

/* perf_event_open denied by a seccomp filter, as a container's profile does (in a child). */
static void seccomp_case(void)
{
	int p[2];
	char why[512] = "";
	if (pipe(p) < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		struct sock_filter f[] = {
		    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
		struct sock_fprog prog = {sizeof f / sizeof f[0], f};
		struct sampler s;
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0 &&
		    sampler_open(&s, getpid(), PERIOD, why, sizeof why) < 0)
			(void)!write(p[1], why, strlen(why));
		_exit(0);
	}
	close(p[1]);
	ssize_t n = read(p[0], why, sizeof why - 1);
	why[n > 0 ? n : 0] = '\0';
	waitpid(pid, NULL, 0);
	close(p[0]);
	ok(strstr(why, "sampling refused: perf_event_open: Operation not permitted") &&
	       strstr(why, "seccomp") && strstr(why, "timed without") && !strchr(why, '\n'),
	   "denied by seccomp: one line that says so and what to allow (%s)", why);
}

static void wording_case(void)
{
	char w[512];
	sampler_refusal(EACCES, "perf_event_open", 3, -1, w, sizeof w);
	ok(strstr(w, "kernel.perf_event_paranoid is 3") &&
	       strstr(w, "sysctl kernel.perf_event_paranoid=2"),
	   "paranoid 3: the setting and its value (%s)", w);
	sampler_refusal(EPERM, "mmap", 2, 516, w, sizeof w);
	ok(strstr(w, "kernel.perf_event_mlock_kb (now 516)") != NULL,
	   "its buffers over the locked memory: that setting (%s)", w);
	sampler_refusal(ENOSYS, "perf_event_open", -99, -1, w, sizeof w);
	ok(strstr(w, "CONFIG_PERF_EVENTS") != NULL, "no perf events in the kernel (%s)", w);
	sampler_refusal(EMFILE, "perf_event_open", 2, -1, w, sizeof w);
	ok(strstr(w, "ulimit -n") != NULL, "no descriptors left: the limit (%s)", w);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return program(argv[1]);
	dl_iterate_phdr(first_object, NULL);
	spin_case();
	threads_case();
	seccomp_case();
	wording_case();
	return done_testing();
}
