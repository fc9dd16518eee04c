/* util: small helpers shared by the driver's modules: files written atomically,
 * whole-file reads, a file's identity, directory creation and nearest-name suggestions. */
#ifndef ROT_UTIL_H
#define ROT_UTIL_H

#include <stddef.h>
#include <sys/types.h>

/* Reads a whole file into a NUL-terminated malloc'd buffer; NULL with errno set on failure. */
char *util_read_file(const char *path, size_t *len);

/* Writes data to path through a temp file in the same directory and rename(2), so readers
 * see the old or the new content, never a half-written file (a system crash can still leave
 * a short one: nothing is fsynced). Returns 0 or -1 with errno. */
int util_write_atomic(const char *path, const void *data, size_t len);
/* The same with the file's permission bits (util_write_atomic: 0644; a program: 0755). */
int util_write_atomic_mode(const char *path, const void *data, size_t len, mode_t mode);

/* Like util_write_atomic, but leaves the file (and its mtime) untouched when its content
 * is already data. Returns 1 if written, 0 if unchanged, -1 with errno on failure. */
int util_write_if_changed(const char *path, const void *data, size_t len);

/* A file's identity as a kept result is checked against it: "SIZE MTIME CTIME INODE" (times
 * to the nanosecond) in buf. Returns the text's length, or -1 with errno where path cannot be
 * stat'ed. An edit changes it, even one that keeps the size and sets the mtime back. */
int util_file_identity(const char *path, char *buf, size_t len);

/* mkdir -p. Returns 0 or -1 with errno. */
int util_mkdir_p(const char *path, int mode);

/* Removes path and, when it is a directory, everything below it (symlinks themselves, never
 * what they point to). 0, or -1 with errno; a missing path is no error. */
int util_remove_tree(const char *path);

/* The candidate nearest to name (strdist_distance), or NULL when none is close enough to be a
 * likely typo. */
const char *util_nearest(const char *name, const char *const *candidates, size_t n);

#endif
