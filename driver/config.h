/* config: every configuration key, declared once, and the sources that set them.
 * Precedence, strongest first: command line, user file, config/site.conf, declared default. */
#ifndef ROT_CONFIG_H
#define ROT_CONFIG_H

#include <stddef.h>

enum config_type { CONFIG_BOOL, CONFIG_INT, CONFIG_NUMBER, CONFIG_STRING, CONFIG_PATH, CONFIG_ENUM };

struct config_key {
	const char *name;
	enum config_type type;
	const char *def;     /* declared default; "@cache" and "@config" expand to XDG dirs */
	const char *choices; /* CONFIG_ENUM: comma-separated values */
	const char *desc;
	/* CONFIG_INT, CONFIG_NUMBER: the allowed range, inclusive (when ranged) */
	int ranged;
	double lo, hi;
};

extern const struct config_key config_keys[];
extern const size_t config_nkeys;

struct config {
	char **value;  /* current value of each key, as text */
	char **origin; /* "default", "config/site.conf:3", "~/.config/rot/config:2", "command line" */
	char err[4608];
};

int config_init(struct config *c);
void config_free(struct config *c);

/* Index of a key, or -1. */
int config_find(const char *name);

/* Checks value against the key's type and sets it. Returns 0, or -1 with c->err set. */
int config_set(struct config *c, const char *key, const char *value, const char *origin);

/* Reads `key=value` lines (# comments, blank lines). A missing file is fine when optional.
 * Errors name the file, the line and, for unknown keys, the nearest key. */
int config_load_file(struct config *c, const char *path, int optional);

/* Loads every source in order: defaults, default_file, the user file (the key
 * userConfigFile, itself settable from the command line), then the `-key=value` arguments
 * in args. Returns 0 or -1 with c->err. */
int config_load_all(struct config *c, const char *default_file, char **args, int nargs);

const char *config_get(const struct config *c, const char *key);

/* Type name for `rot config`. */
const char *config_type_name(enum config_type t);

#endif
