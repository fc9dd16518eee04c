/* tails: the ends of what a program wrote, kept as they come through a pipe. errtail: a
 * kernel's stderr, its last 2 KiB, written as its last 20 whole lines for a point's result;
 * outtail: an application's stdout, its last 16 KiB. */
#include "tails.h"
#include "protocol.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Keeps the last cap bytes of buf[0..*len) and data[0..n) in buf. */
static void keep_tail(char *buf, size_t cap, size_t *len, const char *data, size_t n)
{
	if (n >= cap) {
		memcpy(buf, data + n - cap, cap);
		*len = cap;
		return;
	}
	size_t keep = *len + n > cap ? cap - n : *len;
	memmove(buf, buf + *len - keep, keep);
	memcpy(buf + keep, data, n);
	*len = keep + n;
}

void errtail_add(struct errtail *e, const char *data, size_t n)
{
	e->total += n;
	keep_tail(e->buf, ERRTAIL_KEEP, &e->len, data, n);
}

/* Reads what fd holds now into data: its length, 0 when nothing is there yet (EAGAIN), -1 at
 * its end or on an error. */
static ssize_t read_now(int fd, char *data, size_t size)
{
	ssize_t r;
	while ((r = read(fd, data, size)) < 0 && errno == EINTR)
		;
	if (r <= 0)
		return r < 0 && errno == EAGAIN ? 0 : -1;
	return r;
}

int errtail_read(struct errtail *e, int fd)
{
	char data[4096];
	ssize_t r = read_now(fd, data, sizeof data);
	if (r > 0)
		errtail_add(e, data, (size_t)r);
	return r < 0 ? -1 : 0;
}

int outtail_read(struct outtail *o, int fd)
{
	char data[4096];
	ssize_t r = read_now(fd, data, sizeof data);
	if (r > 0) {
		o->total += (size_t)r;
		keep_tail(o->buf, OUTTAIL_KEEP, &o->len, data, (size_t)r);
	}
	return r < 0 ? -1 : 0;
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
		protocol_record(out, RECORD_STDERR);
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
