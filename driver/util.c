/* util: small helpers shared by the driver's modules: files written atomically,
 * whole-file reads, directory creation and nearest-name suggestions (core/strdist.c). */
#include "util.h"
#include "strdist.h"

#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *util_read_file(const char *path, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			size_t ncap = cap ? cap * 2 : 8192;
			char *p = realloc(buf, ncap);
			if (!p)
				goto fail;
			buf = p;
			cap = ncap;
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail : {
	int e = errno;
	free(buf);
	close(fd);
	errno = e;
	return NULL;
}
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int util_write_atomic(const char *path, const void *data, size_t len)
{
	return util_write_atomic_mode(path, data, len, 0644);
}

int util_write_atomic_mode(const char *path, const void *data, size_t len, mode_t mode)
{
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 16);
	int fd = -1, rc = -1, e = 0;
	if (!tmp)
		return -1;
	snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		goto out;
	/* no fsync: rename makes the switch atomic; a crash can at worst leave a short file,
	 * which readers detect (cache entries carry a checksum) and redo */
	if (fchmod(fd, mode) < 0 || write_all(fd, data, len) < 0)
		goto out_unlink;
	if (close(fd) < 0) {
		fd = -1;
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto out_unlink;
	rc = 0;
	goto out;
out_unlink:
	e = errno;
	unlink(tmp);
	errno = e;
out:
	e = errno;
	if (fd >= 0)
		close(fd);
	free(tmp);
	errno = e;
	return rc;
}

int util_write_if_changed(const char *path, const void *data, size_t len)
{
	size_t old_len;
	char *old = util_read_file(path, &old_len);
	int same = old && old_len == len && memcmp(old, data, len) == 0;
	free(old);
	if (same)
		return 0;
	return util_write_atomic(path, data, len) < 0 ? -1 : 1;
}

int util_file_identity(const char *path, char *buf, size_t len)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	return snprintf(buf, len, "%lld %lld.%09ld %lld.%09ld %llu", (long long)st.st_size,
			(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			(long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
			(unsigned long long)st.st_ino);
}

int util_mkdir_p(const char *path, int mode)
{
	char buf[4096];
	size_t len = strlen(path);
	if (len == 0 || len >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, (mode_t)mode) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, (mode_t)mode) < 0 && errno != EEXIST)
		return -1;
	struct stat st;
	if (stat(buf, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

const char *util_nearest(const char *name, const char *const *candidates, size_t n)
{
	const char *best = NULL;
	int best_d = 1 << 20;
	for (size_t i = 0; i < n; i++) {
		int d = strdist_distance(name, candidates[i]);
		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	/* a typo: at most a third of the name's letters wrong, and at least one letter right */
	size_t len = strlen(name);
	if (best && (best_d <= 1 || (size_t)best_d * 3 <= len + 1) && (size_t)best_d < len)
		return best;
	return NULL;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int util_remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
