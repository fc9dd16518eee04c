/* symbols: where code lies, in a program's own words, read from its files with elfutils'
 * libdwfl: an object's offset (the address its file links it at, as rot's sampler and counting
 * tool give it) becomes the function holding it, its source file and line, and the functions
 * inlined there; without -g, the symbol table's names; in a stripped file, the object and the
 * offset. A shared library is named as such (libm.so.6: exp). */
#ifndef ROT_SYMBOLS_H
#define ROT_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#define SYMBOLS_INLINED 16 /* levels of inlining a place tells */
#define SYMBOLS_NAME 512   /* bytes of a place's name */

/* A function at a place: its name (NULL: unknown) and the source line there (file NULL: none). */
struct symbols_frame {
	const char *function, *file;
	int line, column;
};

/*
 * A place: its object's name (a shared library's soname, else its file's name), its symbol
 * (the function holding it: NULL in a stripped file; its offset and size), its source line
 * (file NULL: none, built without -g), the functions there from the innermost inlined one out
 * to the symbol's (inlined[0] at the source line, each next one at the line it inlined the one
 * before; none without -g), and its name in words (SYMBOLS_NAME: "exp" in a program,
 * "libm.so.6: exp" in a shared library, "mv+0x1139" where no symbol holds it).
 */
struct symbols_place {
	const char *object;
	int shared;
	const char *function;
	uint64_t function_off, function_size;
	const char *file;
	int line, column;
	struct symbols_frame inlined[SYMBOLS_INLINED];
	int ninlined;
	char name[SYMBOLS_NAME];
	char symbol[SYMBOLS_NAME]; /* function's text: the symbol without its version (@GLIBC_2.29)
				    */
};

struct symbols;

/* A session: each file read once, kept until symbols_free. NULL when memory ran out. */
struct symbols *symbols_new(void);

/* Where offset off of the file at path lies (the strings live as long as s): 0, or -1 with
 * why in err (the file cannot be read, or is no ELF file). */
int symbols_lookup(struct symbols *s, const char *path, uint64_t off, struct symbols_place *p,
		   char *err, size_t len);

void symbols_free(struct symbols *s);

#endif
