/* gen: the files the driver generates for a core build: one header per macro, the kernel
 * flags (a gcc response file) and the kernel list (a make fragment); each rewritten only on change. */
#ifndef ROT_GEN_H
#define ROT_GEN_H

#include <stddef.h>

struct gen_kernel {
	const char *name; /* C identifier */
	const char *path; /* absolute path of the kernel's .c file */
	const char *key;  /* names its object: the path relative to where it lives (moves keep it) */
};

/* Each returns 0 if valid, else -1 and a message in err. */
int gen_check_macro_name(const char *name, char *err, size_t errlen);
int gen_check_macro_value(const char *name, const char *value, char *err, size_t errlen);
int gen_check_flags(const char *flags, char *err, size_t errlen);
int gen_check_path(const char *what, const char *path, char *err, size_t errlen); /* no control chars */

/* Writes gendir/macro/NAME.h defining NAME as value, or stating it is not set when value
 * is NULL. Returns 1 if rewritten, 0 if unchanged, -1 on error (err set). */
int gen_macro(const char *gendir, const char *name, const char *value, char *err, size_t errlen);

/* Writes gendir/kernel.flags, read by gcc as @file so no shell ever sees the flags. */
int gen_flags(const char *gendir, const char *flags, char *err, size_t errlen);

/* Writes gendir/paths.flags: -ffile-prefix-map=from[i]=to[i] for each directory, quoted for a
 * gcc response file, so no absolute path of the checkout or study reaches the binary. */
int gen_paths(const char *gendir, const char *const *from, const char *const *to, size_t n,
	      char *err, size_t errlen);

/* Writes gendir/kernels.mk: one object and rule per kernel, each compiled from a generated
 * gendir/src file that includes the kernel by its real path. */
int gen_kernels(const char *gendir, const struct gen_kernel *k, size_t n, char *err, size_t errlen);

/* Names of the macros a kernel source uses, found as lines `#include "macro/NAME.h"`.
 * Returns the count (names malloc'd into out, at most max), or -1 with errno. */
int gen_scan_macros(const char *path, char **out, int max);

#endif
