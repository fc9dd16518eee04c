/* Unit tests for driver/gen: macro headers rewritten only when their content changes,
 * validation of macro names, values and flags, the kernel list, and macro scanning.
 * judges no time */
#include "gen.h"
#include "tap.h"

#include <errno.h>
#include "util.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static long long mtime_ns(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

/* Macro headers: written, kept when unchanged, rewritten; names and values checked. */
static void macros(const char *dir)
{
	char err[512], path[300];
	snprintf(path, sizeof path, "%s/macro/UNROLL.h", dir);

	ok(gen_macro(dir, "UNROLL", "4", err, sizeof err) == 1, "first write of a macro header");
	char *text = util_read_file(path, NULL);
	ok(text && strstr(text, "#define UNROLL 4\n"), "header defines the macro");
	free(text);
	long long t1 = mtime_ns(path);
	usleep(20000);
	ok(gen_macro(dir, "UNROLL", "4", err, sizeof err) == 0, "same value: reported unchanged");
	ok(mtime_ns(path) == t1, "same value: file not touched (mtime kept)");
	ok(gen_macro(dir, "UNROLL", "8", err, sizeof err) == 1, "new value: rewritten");
	ok(mtime_ns(path) != t1, "new value: mtime changes, so make recompiles its users");
	ok(gen_macro(dir, "UNROLL", NULL, err, sizeof err) == 1, "unset macro rewrites the header");
	text = util_read_file(path, NULL);
	ok(text && !strstr(text, "#define"), "unset macro header defines nothing");
	free(text);

	ok(gen_macro(dir, "2BAD", "1", err, sizeof err) < 0 && strstr(err, "not a C identifier"),
	   "macro name must be a C identifier: %s", err);
	ok(gen_macro(dir, "A-B", "1", err, sizeof err) < 0, "macro name with '-' refused");
	ok(gen_macro(dir, "X", "1\n#include </etc/passwd>", err, sizeof err) < 0 &&
	       strstr(err, "newline"),
	   "macro value with a newline refused: %s", err);
	snprintf(path, sizeof path, "%s/macro/X.h", dir);
	ok(access(path, F_OK) != 0, "refused macro wrote no header");
	ok(gen_macro(dir, "_ok9", "(1 + 2)", err, sizeof err) == 1,
	   "identifier with underscore and digit");
}

/* The flags file: written once, refused when not options. */
static void flags(const char *dir)
{
	char err[512];
	ok(gen_flags(dir, "-O3 -march=native", err, sizeof err) == 1, "flags file written");
	ok(gen_flags(dir, "-O3 -march=native", err, sizeof err) == 0, "same flags: unchanged");
	ok(gen_flags(dir, "-O2; rm -rf /", err, sizeof err) < 0, "a non-option word is refused: %s",
	   err);
	ok(gen_flags(dir, "-O2\n-O3", err, sizeof err) < 0, "flags with a newline refused");
}

/* The kernel list: objects, their sources by real path, odd and bad paths. */
static void kernels(const char *dir)
{
	char err[512], path[300], *text;
	struct gen_kernel k[] = {{"triad", "/src/kernels/triad.c", NULL}};
	ok(gen_kernels(dir, k, 1, err, sizeof err) == 1, "kernel list written");
	snprintf(path, sizeof path, "%s/kernels.mk", dir);
	text = util_read_file(path, NULL);
	ok(text && strstr(text, ".o: $(GEN)/src/triad-") &&
	       strstr(text, ".c $(GEN)/kernel.flags $(GEN)/paths.flags"),
	   "kernel object depends on its generated source, the flags and the path maps");
	ok(text && strstr(text, "KERNEL_OBJS += $(O)/kernels/triad-"),
	   "object is named after the kernel");
	free(text);
	struct gen_kernel other[] = {{"triad", "/elsewhere/kernels/triad.c", NULL}};
	char *first = util_read_file(path, NULL);
	gen_kernels(dir, other, 1, err, sizeof err);
	text = util_read_file(path, NULL);
	char *o1 = strstr(first, "triad-"), *o2 = strstr(text, "triad-");
	ok(o1 && o2 && strncmp(o1, o2, 18) != 0, "same kernel name, other path: another object");
	free(first);
	free(text);
	struct gen_kernel odd[] = {{"triad", "/src/my \"kernels\" é/triad.c", "kernels/triad.c"}};
	ok(gen_kernels(dir, odd, 1, err, sizeof err) >= 0,
	   "a path with a space, quotes and an accent is fine");
	text = util_read_file(path, NULL);
	char *src = text ? strstr(text, "$(GEN)/src/") : NULL, wrapper[4096] = "";
	if (src)
		snprintf(wrapper, sizeof wrapper, "%s/src/%.*s", dir, (int)strcspn(src + 11, " "),
			 src + 11);
	free(text);
	text = util_read_file(wrapper, NULL);
	ok(text && strstr(text, "#include \"/src/my \\\"kernels\\\" é/triad.c\""),
	   "its generated source includes it by its real path, quotes escaped");
	free(text);
	struct gen_kernel bad[] = {{"triad", "/src/kernels\n/triad.c", NULL}};
	ok(gen_kernels(dir, bad, 1, err, sizeof err) < 0 && strstr(err, "control character"),
	   "a path with a newline is refused: %s", err);
}

/* The macros a kernel includes. */
static void scan(const char *dir)
{
	char path[300];
	snprintf(path, sizeof path, "%s/k.c", dir);
	FILE *f = fopen(path, "w");
	fputs("#include \"kernel.h\"\n#include \"macro/A.h\"\n  # include \"macro/B_2.h\"\n"
	      "#include \"macro/A.h\"\n#include \"macro/C.hpp\"\n",
	      f);
	fclose(f);
	char *names[8];
	int n = gen_scan_macros(path, names, 8);
	ok(n == 2 && strcmp(names[0], "A") == 0 && strcmp(names[1], "B_2") == 0,
	   "scan finds each macro a kernel includes, once, and no macro/C.hpp (%d)", n);
	for (int i = 0; i < n; i++)
		free(names[i]);
	ok(gen_scan_macros(path, names, 1) == -1 && errno == E2BIG,
	   "more macros than room: an error, none dropped");

	char err[256], big[9000];
	memset(big, '1', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ok(gen_macro(dir, "BIG", big, err, sizeof err) < 0 && strstr(err, "too long"),
	   "a value longer than a header holds is refused, not cut: %s", err);
}

int main(void)
{
	char dir[] = "/tmp/rot-test-gen-XXXXXX";
	mkdtemp(dir);
	macros(dir);
	flags(dir);
	kernels(dir);
	scan(dir);

	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return done_testing();
}
