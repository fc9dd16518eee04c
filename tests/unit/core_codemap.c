/* Unit tests for core/codemap: an address of a mapping of this test's own executable becomes
 * the offset its file links it at (what nm says of a function), wherever it is mapped; the
 * latest mapping wins, an exec ends a process's mappings, a fork copies them; memory of no file
 * is unknown code; the vdso an object of its own.
 * judges no time */
#define _GNU_SOURCE
#include "codemap.h"
#include "tap.h"

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) int probe(int x)
{
	return x * 3 + 1;
}

static uintptr_t bias;

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size, (void)data;
	bias = info->dlpi_addr;
	return 1;
}

/* The executable segment of this test's file: its file offset, size and link address. */
static int text_segment(const char *path, uint64_t *off, uint64_t *size, uint64_t *vaddr)
{
	FILE *f = fopen(path, "rb");
	Elf64_Ehdr eh;
	int found = 0;
	if (!f || fread(&eh, sizeof eh, 1, f) != 1)
		goto out;
	for (int i = 0; i < eh.e_phnum && !found; i++) {
		Elf64_Phdr ph;
		if (fseek(f, (long)(eh.e_phoff + (uint64_t)i * sizeof ph), SEEK_SET) != 0 ||
		    fread(&ph, sizeof ph, 1, f) != 1)
			break;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			*off = ph.p_offset;
			*size = ph.p_filesz;
			*vaddr = ph.p_vaddr;
			found = 1;
		}
	}
out:
	if (f)
		fclose(f);
	return found;
}

int main(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	uint64_t off = 0, size = 0, vaddr = 0, got;
	struct codemap m;
	exe[n > 0 ? n : 0] = '\0';
	dl_iterate_phdr(first_object, NULL);
	uint64_t link = (uint64_t)(uintptr_t)probe - bias; /* where the file links probe */
	ok(n > 0 && text_segment(exe, &off, &size, &vaddr), "this test's text segment read");
	codemap_init(&m);
	/* mapped as the kernel would, page-aligned, at an address of our own choosing */
	uint64_t pg = off & ~4095ull, start = 0x7f0000000000ull;
	ok(codemap_mmap(&m, 100, start, size + (off - pg), pg, exe, 10) == 0, "a mapping added");
	uint64_t addr = start + (link - vaddr + off) - pg; /* probe's file offset, mapped */
	int obj = codemap_find(&m, 100, addr, 20, &got);
	ok(obj == CODEMAP_FILES && got == link,
	   "an address of probe becomes its link offset 0x%llx (got %d:0x%llx)",
	   (unsigned long long)link, obj, (unsigned long long)got);
	ok(codemap_find(&m, 100, addr, 5, &got) == CODEMAP_UNKNOWN,
	   "before the mapping was made: unknown code");
	ok(codemap_find(&m, 101, addr, 20, &got) == CODEMAP_UNKNOWN,
	   "another process's address: unknown");
	ok(codemap_fork(&m, 101, 100, 30) == 0 && codemap_find(&m, 101, addr, 40, &got) == obj &&
	       got == link,
	   "a forked process has its parent's mappings");
	codemap_exec(&m, 100, 50);
	ok(codemap_find(&m, 100, addr, 60, &got) == CODEMAP_UNKNOWN &&
	       codemap_find(&m, 100, addr, 45, &got) == obj &&
	       codemap_find(&m, 101, addr, 60, &got) == obj,
	   "an exec ends the process's mappings (at its time; not its child's)");
	ok(codemap_mmap(&m, 100, start, 4096, 0, "//anon", 70) == 0 &&
	       codemap_find(&m, 100, start + 8, 80, &got) == CODEMAP_UNKNOWN && got == 0,
	   "anonymous memory (a JIT's buffer) is unknown code at offset 0");
	ok(codemap_mmap(&m, 100, 0x7ffff000, 8192, 0, "[vdso]", 70) == 0 &&
	       codemap_find(&m, 100, 0x7ffff010, 80, &got) >= CODEMAP_FILES && got == 0x10,
	   "the vdso is an object, its offset from its start");
	ok(codemap_mmap(&m, 102, start, 4096, 0, "/nonexistent/lib.so", 1) == 0 &&
	       codemap_find(&m, 102, start + 0x20, 2, &got) >= CODEMAP_FILES && got == 0x20,
	   "a file that cannot be read: its file offset");
	codemap_free(&m);
	return done_testing();
}
