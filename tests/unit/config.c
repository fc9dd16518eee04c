/* Unit tests for driver/config: precedence of the sources, typed validation, and errors
 * that name the source, the line and the nearest key.
 * judges no time */
#include "config.h"
#include "tap.h"

#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/rot-test-config-XXXXXX";

static const char *write_tmp(const char *name, const char *text)
{
	static char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

/* Declared defaults, site.conf, the user file and the command line, in that order. */
static void precedence(const char *deffile, char *arg_user)
{
	struct config c;
	/* declared default only */
	config_init(&c);
	is_str(config_get(&c, "runs"), "3", "declared default of runs");
	is_str(c.origin[config_find("runs")], "default", "origin of a declared default");
	config_free(&c);

	/* site.conf over declared defaults, user file over site.conf, command line over all
	 */
	char *args[] = {arg_user, "-bestK=6"};
	config_init(&c);
	ok(config_load_all(&c, deffile, args, 2) == 0, "all sources load: %s", c.err);
	is_str(config_get(&c, "runs"), "9", "user file beats site.conf");
	is_str(config_get(&c, "bestK"), "6", "command line beats site.conf");
	is_str(config_get(&c, "compiler"), "clang", "user file value");
	is_str(config_get(&c, "maxRuns"), "10", "untouched key keeps its declared default");
	ok(strstr(c.origin[config_find("runs")], "user:1") != NULL,
	   "origin names the user file and line: %s", c.origin[config_find("runs")]);
	is_str(c.origin[config_find("bestK")], "command line", "origin of a command-line value");
	config_free(&c);
}

/* Unknown keys (with the nearest), bad values, a line without '=', a missing user file. */
static void errors(const char *deffile)
{
	struct config c;
	/* an unknown key in a file: source, line and nearest key */
	const char *bad = write_tmp("bad", "runs=3\nbestEpsilom=0.1\n");
	config_init(&c);
	ok(config_load_file(&c, bad, 0) < 0, "unknown key in a file is an error");
	ok(strstr(c.err, "bad:2") != NULL, "error names file and line: %s", c.err);
	ok(strstr(c.err, "'bestEpsilon'") != NULL, "error suggests the nearest key: %s", c.err);
	config_free(&c);

	/* an unknown key on the command line */
	char *args2[] = {"-cacheDri=/tmp"};
	config_init(&c);
	ok(config_load_all(&c, deffile, args2, 1) < 0, "unknown command-line key is an error");
	ok(strstr(c.err, "command line") && strstr(c.err, "'cacheDir'"),
	   "names the command line and the nearest key: %s", c.err);
	config_free(&c);

	/* typed validation */
	config_init(&c);
	ok(config_set(&c, "runs", "many", "test") < 0 && strstr(c.err, "integer"),
	   "int key rejects text: %s", c.err);
	ok(config_set(&c, "useCachedResults", "yes", "test") < 0, "bool key rejects 'yes'");
	ok(config_set(&c, "cacheMode", "tepid", "test") < 0 && strstr(c.err, "warm,cold"),
	   "enum key lists its values: %s", c.err);
	ok(config_set(&c, "bestEpsilon", "1e-2", "test") == 0, "number key takes 1e-2");
	ok(config_set(&c, "outputDir", "a\nb", "test") < 0, "newline in a value is rejected");
	ok(config_set(&c, "cacheMode", "cold", "test") == 0, "enum key takes an allowed value");
	config_free(&c);

	/* a line without '=' */
	const char *noeq = write_tmp("noeq", "runs 3\n");
	config_init(&c);
	ok(config_load_file(&c, noeq, 0) < 0 && strstr(c.err, "noeq:1"), "line without '=': %s",
	   c.err);
	config_free(&c);

	/* an explicitly named user file must exist; the default one may be absent */
	char missing[300];
	snprintf(missing, sizeof missing, "-userConfigFile=%s/nope", dir);
	char *args3[] = {missing};
	config_init(&c);
	ok(config_load_all(&c, deffile, args3, 1) < 0 && strstr(c.err, "nope"),
	   "a named but missing user file is an error: %s", c.err);
	config_free(&c);
}

int main(void)
{
	struct config c;
	char deffile[256], userfile[256], arg_user[300];
	mkdtemp(dir);
	snprintf(deffile, sizeof deffile, "%s",
		 write_tmp("site.conf", "runs=7\nbestK=4\n# comment\n\n"));
	snprintf(userfile, sizeof userfile, "%s",
		 write_tmp("user", "  runs = 9   # trailing comment\ncompiler=clang\n"));
	snprintf(arg_user, sizeof arg_user, "-userConfigFile=%s", userfile);

	precedence(deffile, arg_user);
	errors(deffile);

	/* XDG locations */
	setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
	config_init(&c);
	is_str(config_get(&c, "cacheDir"), "/xdg/cache/rot", "cacheDir follows XDG_CACHE_HOME");
	config_free(&c);

	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return done_testing();
}
