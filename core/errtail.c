/* errtail: the end of what a kernel wrote to its stderr: the last 2 KiB kept as it comes
 * through the pipe, written as its last 20 whole lines for a point's result. */
#include "errtail.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void errtail_add(struct errtail *e, const char *data, size_t n)
{
	e->total += n;
	if (n >= ERRTAIL_KEEP) {
		memcpy(e->buf, data + n - ERRTAIL_KEEP, ERRTAIL_KEEP);
		e->len = ERRTAIL_KEEP;
		return;
	}
	size_t keep = e->len + n > ERRTAIL_KEEP ? ERRTAIL_KEEP - n : e->len;
	memmove(e->buf, e->buf + e->len - keep, keep);
	memcpy(e->buf + keep, data, n);
	e->len = keep + n;
}

int errtail_read(struct errtail *e, int fd)
{
	char data[4096];
	ssize_t r;
	while ((r = read(fd, data, sizeof data)) < 0 && errno == EINTR)
		;
	if (r <= 0)
		return r < 0 && errno == EAGAIN ? 0 : -1;
	errtail_add(e, data, (size_t)r);
	return 0;
}

/* Where the last ERRTAIL_LINES whole lines begin. */
static size_t lines_start(const struct errtail *e)
{
	size_t start = 0, len = e->len;
	int lines = 0;
	if (e->total > e->len) /* cut: begin at a whole line */
		while (start < len && e->buf[start++] != '\n')
			;
	for (size_t i = len; i > start; i--) /* a last newline ends the last line: not counted */
		if (e->buf[i - 1] == '\n' && i < len && ++lines == ERRTAIL_LINES)
			return i;
	return start;
}

void errtail_write(const struct errtail *e, FILE *out)
{
	for (size_t i = lines_start(e); i < e->len;) {
		size_t j = i;
		while (j < e->len && e->buf[j] != '\n')
			j++;
		fputs("stderr ", out);
		for (size_t k = i; k < j; k++) {
			unsigned char c = (unsigned char)e->buf[k];
			fputc(c < 32 || c == 127 ? '?' : c, out);
		}
		fputc('\n', out);
		i = j + 1;
	}
}

void errtail_clear(struct errtail *e)
{
	e->len = e->total = 0;
}
