/* Unit tests for core/input: a point's settings read from protocol.h's keys (every key, unknown
 * keys, bad values, a missing end, param before workload), against kernels registered here.
 * judges no time */
#include "input.h"
#include "tap.h"

#include <math.h>

static const struct rot_param params[] = {{"n", 10, "elements"}, {NULL, 0, NULL}};
static void *init(const struct rot_args *a)
{
	return (void *)a;
}
static void run(void *s)
{
}
static void run_thread(void *s, int t, int n)
{
}
static const struct rot_kernel tk = {
    .name = "tk", .params = params, .init = init, .run = run, .run_thread = run_thread};
ROT_KERNEL(tk)
static const struct rot_kernel single = {.name = "single", .init = init, .run = run};
ROT_KERNEL(single)

static struct point p;
static char id[INPUT_ID_MAX], err[1024];

/* Reads text as a batch's input: input_next_point's verdict on its first point. */
static int read_text(const char *text)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	err[0] = id[0] = '\0';
	int rc = input_next_point(in, &p, id, err, sizeof err);
	fclose(in);
	return rc;
}

/* One point of kernel tk with one more line; 1 when it is read, -1 when refused. */
static int with(const char *line)
{
	char text[1024];
	snprintf(text, sizeof text, "point x\nworkload tk\n%s\nend\n", line);
	return read_text(text);
}

static void every_key(void)
{
	int rc = read_text("# comment\npoint p-7\n"
			   "workload tk threads 2 pin 1,0\n"
			   "param n 1e6\n"
			   "\n"
			   "kernel single\n"
			   "counter perf::TASK-CLOCK\n"
			   "gpumetric lts__t_bytes.sum\n"
			   "rule runEnd marker every=2 text=half\n"
			   "runs 7\nbestK 4\nbestEpsilon 0.05\nmaxRuns 90\nminRunTime 0.002\n"
			   "cacheMode cold\ntimeout 2.5\nignoreDisturbed 1\nchild shared\n"
			   "end\n");
	ok(rc == 1, "a point with every key is read: %s", err);
	is_str(id, "p-7", "its ID");
	ok(p.nw == 2 && strcmp(p.w[0].args.kernel->name, "tk") == 0 && p.w[0].threads == 2 &&
	       p.w[0].npin == 2 && p.w[0].pin[0] == 1 && p.w[0].pin[1] == 0,
	   "workload: kernel, threads and pinned CPUs");
	ok(p.w[0].args.n == 1 && p.w[0].args.value[0] == 1e6, "param: set on the workload before");
	ok(strcmp(p.w[1].args.kernel->name, "single") == 0 && p.w[1].threads == 1,
	   "kernel: a second workload of one thread");
	ok(p.ncounters == 1 && strcmp(p.counter_names[0], "perf::TASK-CLOCK") == 0 && p.notify,
	   "counter: named, and the tracer hears of the runs");
	ok(p.ngpu_metrics == 1 && strcmp(p.gpu_metrics[0], "lts__t_bytes.sum") == 0, "gpumetric");
	ok(p.nrules == 1 && p.rules[0].on == EV_RUN_END && p.rules[0].action == ACT_MARKER &&
	       p.rules[0].every == 2 && strcmp(p.rules[0].text, "half") == 0,
	   "rule: parsed by rules_parse");
	ok(p.rule.min_runs == 7 && p.rule.k == 4 && p.rule.epsilon == 0.05 &&
	       p.rule.max_runs == 90 && p.min_run_time == 0.002,
	   "runs, bestK, bestEpsilon, maxRuns, minRunTime");
	ok(p.cold == 1 && p.timeout == 2.5 && p.ignore_disturbed == 1 && p.shared == 1,
	   "cacheMode, timeout, ignoreDisturbed, child");
}

static void defaults_and_limits(void)
{
	ok(read_text("point d\nkernel tk\nend\n") == 1 && p.rule.k == 3 && p.rule.epsilon == 0.02 &&
	       p.rule.min_runs == 3 && p.rule.max_runs == 40 && p.timeout == 600 && !p.cold &&
	       !p.shared && p.min_run_time == 1e-3,
	   "defaults: best 3 within 2%%, 3..40 runs, timeout 600 s, warm, a child each");
	ok(with("runs 50") == 1 && p.rule.max_runs == 50, "runs above maxRuns raise maxRuns");
	ok(with("maxRuns 0") == 1 && p.rule.max_runs == 3, "maxRuns at least 1 and at least runs");
	ok(with("runs 5.0") == 1 && p.rule.min_runs == 5, "a whole number written as 5.0");
	ok(with("cacheMode warm") == 1 && !p.cold && with("child each") == 1 && !p.shared,
	   "the first alternatives: warm, each");
}

/* A pin list that is not plain CPU numbers separated by commas is refused, naming it. */
static void pins_refused(void)
{
	const char *bad[] = {"x", "0,x", "-1", "1,-2", "1,", ",1", "1;2", "+1", "99999999999"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char line[64], want[160];
		snprintf(line, sizeof line, "workload tk threads 2 pin %s", bad[i]);
		snprintf(want, sizeof want,
			 "workload 'tk': pin must be CPU numbers separated by commas, not '%s'",
			 bad[i]);
		ok(with(line) < 0 && strcmp(err, want) == 0, "pin '%s' refused: %s", bad[i], err);
	}
	char line[1024] = "workload tk pin 0";
	for (int i = 1; i <= MAX_PIN; i++)
		strcat(line, ",0");
	ok(with(line) < 0 && strcmp(err, "workload 'tk': at most 256 CPUs to pin to") == 0,
	   "more CPUs than MAX_PIN: %s", err);
	ok(with("workload tk threads 3 pin 7,0,12") == 1 && p.w[1].npin == 3 &&
	       p.w[1].pin[0] == 7 && p.w[1].pin[1] == 0 && p.w[1].pin[2] == 12,
	   "a good list is read in order");
}

static void refused(void)
{
	ok(with("frobnicate 1") < 0, "an unknown key is refused");
	is_str(err, "unknown input key 'frobnicate'", "and named");
	ok(with("runs") < 0, "a key without a value is refused");
	is_str(err, "bad input line 'runs'", "as a bad line");
	ok(with("runs abc") < 0, "runs abc");
	is_str(err, "runs: 'abc' is not a whole number", "runs needs a whole number");
	ok(with("bestK 2.5") < 0 && strcmp(err, "bestK: '2.5' is not a whole number") == 0,
	   "bestK 2.5: %s", err);
	ok(with("timeout 1s") < 0 && strcmp(err, "timeout: '1s' is not a number") == 0,
	   "timeout 1s: %s", err);
	ok(with("bestEpsilon nan") < 0, "bestEpsilon nan: %s", err);
	ok(with("cacheMode lukewarm") < 0, "cacheMode lukewarm");
	is_str(err, "cacheMode must be 'warm' or 'cold', not 'lukewarm'", "alternatives named");
	ok(with("child both") < 0, "child both");
	is_str(err, "child must be 'each' or 'shared', not 'both'", "alternatives named");
	ok(with("ignoreDisturbed 2") < 0 &&
	       strcmp(err, "ignoreDisturbed must be '0' or '1', not '2'") == 0,
	   "ignoreDisturbed 2: %s", err);
	ok(with("param m 1") < 0, "an unknown parameter");
	is_str(err, "kernel 'tk' has no parameter 'm' (it has: n)",
	       "names the kernel's parameters");
	ok(with("param n lots") < 0 && strstr(err, "expected NAME VALUE"), "param n lots: %s", err);
	ok(with("rule runStart explode") < 0 && strstr(err, "unknown action 'explode'"),
	   "a bad rule: %s", err);
	ok(with("workload nope") < 0 &&
	       strstr(err, "kernel 'nope' is not in this core (it has: ") && strstr(err, "tk") &&
	       strstr(err, "single"),
	   "an unknown kernel, with the ones there are: %s", err);
	ok(with("workload single threads 2") < 0, "two threads of a kernel without run_thread");
	is_str(err, "kernel 'single' cannot run with 2 threads: it has no run_thread", "says why");
	ok(with("workload tk threads 0") < 0 &&
	       strcmp(err, "workload 'tk': threads must be 1..4096") == 0,
	   "threads 0: %s", err);
	ok(with("workload tk threads") < 0 &&
	       strcmp(err, "workload 'tk': 'threads' needs a value") == 0,
	   "threads without a value: %s", err);
	ok(with("workload tk threads 4x") < 0 &&
	       strcmp(err, "workload 'tk': threads: '4x' is not a whole number") == 0,
	   "threads 4x: %s", err);
	pins_refused();
	ok(read_text("point a\nparam n 3\nworkload tk\nend\n") < 0, "param before workload");
	is_str(err, "'param' before 'workload'", "says so");
	ok(read_text("point a\nruns 3\nend\n") < 0, "no kernel");
	is_str(err, "no kernel given", "says so");
	ok(read_text("point a\nworkload tk\nruns 3\n") < 0, "settings without an end line");
	is_str(err, "the point's settings end without an 'end' line", "says so");
	is_str(id, "a", "the refused point's ID is known");
}

/* An application's sampling period: within its bounds, an application's alone. */
static void sampling(void)
{
	ok(read_text("point a\napp /bin/true\nsample 4000000\nend\n") == 1 &&
	       p.sample_ns == 4000000,
	   "an application sampled every 4 ms: %s", err);
	ok(read_text("point a\napp /bin/true\nsample 0\nend\n") == 1 && p.sample_ns == 0,
	   "sample 0: not sampled");
	ok(read_text("point a\napp /bin/true\nsample 500\nend\n") < 0 &&
	       strstr(err, "sample must be 0 or a period from 10000 to 1000000000 ns"),
	   "a period too short refused: %s", err);
	ok(with("sample 4000000") < 0 &&
	       strcmp(err, "sample is for an application point, not a kernel's") == 0,
	   "a kernel point's sampling refused: %s", err);
}

static void batch(void)
{
	const char *text = "point one\nworkload tk\nrunz 3\nruns 4\nend\n"
			   "pointless line\n"
			   "point two\nworkload tk\nruns 6\nend\n";
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int a = input_next_point(in, &p, id, err, sizeof err);
	ok(a < 0 && strcmp(id, "one") == 0, "a batch: the first point is refused (%s)", err);
	int b = input_next_point(in, &p, id, err, sizeof err);
	ok(b == 1 && strcmp(id, "two") == 0 && p.rule.min_runs == 6,
	   "the next call skips the rest of it and reads the next point");
	ok(input_next_point(in, &p, id, err, sizeof err) == 0, "then the end of the input");
	fclose(in);
}

int main(void)
{
	every_key();
	defaults_and_limits();
	refused();
	sampling();
	batch();
	return done_testing();
}
