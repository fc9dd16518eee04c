/* symbols: each file reported to a libdwfl session of its own at base 0 (so its addresses are
 * its link addresses), looked up for its symbol, its line table's line, and the scopes that
 * hold the address (the inlined subroutines out to the function). */
#include "symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A file as read: its session and module (NULL: it could not be read, err says why), its name
 * in words, whether it is a shared library. */
struct object {
	char *path, *name;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	int shared;
	char err[256];
};

struct symbols {
	struct object *o;
	int n, cap;
};

/* libdwfl's standard search for separate debug information (/usr/lib/debug, .debug). */
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

struct symbols *symbols_new(void)
{
	return calloc(1, sizeof(struct symbols));
}

/* The file's DT_SONAME, or NULL (a program, or no dynamic section). */
static const char *soname(Dwfl_Module *m)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(m, &bias);
	for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			if (gelf_getdyn(d, (int)i, &dyn) && dyn.d_tag == DT_SONAME)
				return elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
		}
	}
	return NULL;
}

/* Reads the file at path into o: 0, or -1 with o->err. */
static int object_read(struct object *o, const char *path)
{
	const char *base = strrchr(path, '/');
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(o->err, sizeof o->err, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	close(fd); /* (libdwfl opens it again: the error above is the one a user can act on) */
	o->dwfl = dwfl_begin(&callbacks);
	if (o->dwfl) {
		dwfl_report_begin(o->dwfl);
		o->mod = dwfl_report_elf(o->dwfl, base ? base + 1 : path, path, -1, 0, false);
		dwfl_report_end(o->dwfl, NULL, NULL);
	}
	if (!o->mod) {
		snprintf(o->err, sizeof o->err, "'%s' is no ELF file rot can read: %s", path,
			 dwfl_errmsg(-1));
		return -1;
	}
	const char *so = soname(o->mod);
	o->shared = so != NULL;
	o->name = strdup(so ? so : base ? base + 1 : path);
	return o->name ? 0 : -1;
}

/* The file at path as read (once a session): its object, or NULL with why in err. */
static struct object *object_of(struct symbols *s, const char *path, char *err, size_t len)
{
	struct object *o = NULL;
	for (int i = 0; i < s->n && !o; i++)
		if (strcmp(s->o[i].path, path) == 0)
			o = &s->o[i];
	if (!o) {
		if (s->n == s->cap) {
			int cap = s->cap ? 2 * s->cap : 16;
			struct object *p = realloc(s->o, (size_t)cap * sizeof *p);
			if (!p) {
				snprintf(err, len, "out of memory");
				return NULL;
			}
			s->o = p;
			s->cap = cap;
		}
		o = &s->o[s->n];
		*o = (struct object){.path = strdup(path)};
		if (!o->path) {
			snprintf(err, len, "out of memory");
			return NULL;
		}
		s->n++;
		object_read(o, path);
	}
	if (o->mod && o->name)
		return o;
	snprintf(err, len, "%s", o->err[0] ? o->err : "out of memory");
	return NULL;
}

/* A scope's name, through its abstract origin (an inlined subroutine names none itself). */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	return name ? name : dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
}

static int die_number(Dwarf_Die *die, int at, Dwarf_Word *w)
{
	Dwarf_Attribute a;
	return dwarf_formudata(dwarf_attr(die, at, &a), w) == 0;
}

/* The functions at off, from the innermost inlined one out to the one that is no inlined
 * copy, each at its line: the first at the place's own, each next one at the call it inlined
 * the one before at. */
static void inline_chain(Dwfl_Module *m, uint64_t off, struct symbols_place *p)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(m, off, &bias), *scopes = NULL, inner;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	int n = cu ? dwarf_getscopes(cu, off - bias, &scopes) : 0;
	struct symbols_frame at = {NULL, p->file, p->line, p->column};
	if (n > 0) { /* the innermost scope's chain of concrete scopes (as eu-addr2line -i) */
		inner = scopes[0];
		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&inner, &scopes);
	}
	if (cu && dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
		files = NULL;
	for (int i = 0; i < n && p->ninlined < SYMBOLS_INLINED; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Word w;
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		at.function = die_name(&scopes[i]);
		p->inlined[p->ninlined++] = at;
		if (tag == DW_TAG_subprogram)
			break;
		at = (struct symbols_frame){NULL, NULL, 0, 0}; /* where this copy was inlined */
		if (files && die_number(&scopes[i], DW_AT_call_file, &w) && w < nfiles)
			at.file = dwarf_filesrc(files, w, NULL, NULL);
		if (die_number(&scopes[i], DW_AT_call_line, &w))
			at.line = (int)w;
		if (die_number(&scopes[i], DW_AT_call_column, &w))
			at.column = (int)w;
	}
	free(scopes);
}

int symbols_lookup(struct symbols *s, const char *path, uint64_t off, struct symbols_place *p,
		   char *err, size_t len)
{
	struct object *o = object_of(s, path, err, len);
	GElf_Off in;
	GElf_Sym sym;
	if (!o)
		return -1;
	memset(p, 0, sizeof *p);
	p->object = o->name;
	p->shared = o->shared;
	const char *fn = dwfl_module_addrinfo(o->mod, off, &in, &sym, NULL, NULL, NULL);
	if (fn && (sym.st_size == 0 || in < sym.st_size)) {
		snprintf(p->symbol, sizeof p->symbol, "%.*s", (int)strcspn(fn, "@"), fn);
		p->function = p->symbol;
		p->function_off = off - in;
		p->function_size = sym.st_size;
	}
	Dwfl_Line *line = dwfl_module_getsrc(o->mod, off);
	if (line)
		p->file = dwfl_lineinfo(line, NULL, &p->line, &p->column, NULL, NULL);
	inline_chain(o->mod, off, p);
	if (!p->function)
		snprintf(p->name, sizeof p->name, "%s+0x%llx", p->object, (unsigned long long)off);
	else if (p->shared)
		snprintf(p->name, sizeof p->name, "%s: %s", p->object, p->function);
	else
		snprintf(p->name, sizeof p->name, "%s", p->function);
	return 0;
}

void symbols_free(struct symbols *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++) {
		if (s->o[i].dwfl)
			dwfl_end(s->o[i].dwfl);
		free(s->o[i].path);
		free(s->o[i].name);
	}
	free(s->o);
	free(s);
}
