/* codemap: processes' executable mappings over time and the files they map, each file's
 * loadable segments read from its ELF headers once, so an address becomes (object, link
 * offset). */
#include "codemap.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void codemap_init(struct codemap *m)
{
	memset(m, 0, sizeof *m);
}

/* Grows an array of n items of size bytes to room for one more: 0, or -1. */
static int grow(void **a, int n, int *cap, size_t size)
{
	if (n < *cap)
		return 0;
	int c = *cap ? 2 * *cap : 16;
	void *p = realloc(*a, (size_t)c * size);
	if (!p)
		return -1;
	*a = p;
	*cap = c;
	return 0;
}

/* The loadable segments of the ELF file at path into o (none where it is no 64-bit ELF file
 * that can be read). */
static void read_segments(struct codemap_object *o, const char *path)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr))
		goto out;
	for (int i = 0; i < eh.e_phnum && o->nseg < CODEMAP_SEGMENTS; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph)) !=
		    (ssize_t)sizeof ph)
			break;
		if (ph.p_type == PT_LOAD)
			o->seg[o->nseg++] =
			    (typeof(o->seg[0])){ph.p_offset, ph.p_filesz, ph.p_vaddr};
	}
out:
	close(fd);
}

/* Whether the kernel's name for a mapping names a file code can be found in again. */
static int is_file(const char *path)
{
	return path[0] == '/' && path[1] != '/' && strncmp(path, "/memfd:", 7) != 0;
}

/* The object of a path, made (its segments read) when new: its index, or -1. */
static int object_of(struct codemap *m, const char *path)
{
	if (!is_file(path) && strcmp(path, "[vdso]") != 0)
		return CODEMAP_UNKNOWN;
	for (int i = CODEMAP_FILES; i < m->nobjects; i++)
		if (strcmp(m->objects[i].path, path) == 0)
			return i;
	while (m->nobjects < CODEMAP_FILES) { /* the unknown and the kernel's, first */
		if (grow((void **)&m->objects, m->nobjects, &m->cobjects, sizeof *m->objects) < 0)
			return -1;
		m->objects[m->nobjects++] = (struct codemap_object){0};
	}
	if (grow((void **)&m->objects, m->nobjects, &m->cobjects, sizeof *m->objects) < 0)
		return -1;
	struct codemap_object *o = &m->objects[m->nobjects];
	*o = (struct codemap_object){.path = strdup(path)};
	if (!o->path)
		return -1;
	if (is_file(path))
		read_segments(o, path);
	return m->nobjects++;
}

static int add_mapping(struct codemap *m, const struct codemap_mapping *map)
{
	if (grow((void **)&m->maps, m->nmaps, &m->cmaps, sizeof *m->maps) < 0)
		return -1;
	m->maps[m->nmaps++] = *map;
	return 0;
}

int codemap_mmap(struct codemap *m, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		 const char *path, uint64_t t)
{
	int obj = object_of(m, path);
	if (obj < 0)
		return -1;
	return add_mapping(
	    m, &(struct codemap_mapping){pid, obj, start, start + len, pgoff, t, UINT64_MAX});
}

void codemap_exec(struct codemap *m, pid_t pid, uint64_t t)
{
	for (int i = 0; i < m->nmaps; i++)
		if (m->maps[i].pid == pid && m->maps[i].to > t)
			m->maps[i].to = t;
}

int codemap_fork(struct codemap *m, pid_t child, pid_t parent, uint64_t t)
{
	int n = m->nmaps;
	for (int i = 0; i < n; i++) {
		struct codemap_mapping c = m->maps[i];
		if (c.pid != parent || c.to <= t)
			continue;
		c.pid = child;
		c.from = t;
		if (add_mapping(m, &c) < 0)
			return -1;
	}
	return 0;
}

int codemap_find(const struct codemap *m, pid_t pid, uint64_t addr, uint64_t t, uint64_t *off)
{
	*off = 0;
	for (int i = m->nmaps - 1; i >= 0; i--) {
		const struct codemap_mapping *c = &m->maps[i];
		if (c->pid != pid || addr < c->start || addr >= c->end || t < c->from || t >= c->to)
			continue;
		if (c->obj == CODEMAP_UNKNOWN)
			return CODEMAP_UNKNOWN;
		const struct codemap_object *o = &m->objects[c->obj];
		uint64_t f = addr - c->start + c->pgoff;
		*off = f;
		for (int s = 0; s < o->nseg; s++)
			if (f >= o->seg[s].off && f < o->seg[s].off + o->seg[s].size) {
				*off = f - o->seg[s].off + o->seg[s].vaddr;
				break;
			}
		return c->obj;
	}
	return CODEMAP_UNKNOWN;
}

void codemap_free(struct codemap *m)
{
	for (int i = 0; i < m->nobjects; i++)
		free(m->objects[i].path);
	free(m->objects);
	free(m->maps);
	codemap_init(m);
}
