/* pool: the memory rot_alloc hands to kernels: page-aligned blocks from one reserved region that
 * keeps the pages a point touched, so the next point of a shared child reuses them. */
#define _GNU_SOURCE
#include "pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096UL
#define MAX_BLOCKS 4096
/* The gap after every block (ordinary memory, not protected): blocks lie at least this far
 * apart beyond their sizes, never back to back. Arrays of a power-of-two size placed exactly
 * that far apart can stream from DRAM at half speed, as their addresses meet in the same cache
 * sets and banks; a page between them breaks that. */
#define GAP PAGE

struct extent {
	uintptr_t at;
	size_t len;
};

static struct {
	pthread_mutex_t lock;
	uintptr_t base;			    /* the reserved region (0 before the first block) */
	size_t size;
	struct extent freed[MAX_BLOCKS + 1]; /* free extents, by address, neighbours merged */
	int nfree;
	struct extent used[MAX_BLOCKS]; /* blocks handed out */
	int nused;
	int failed; /* the region could not be reserved: the C library serves every block */
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Reserves the region once: twice the machine's memory, nothing committed until touched. */
static int reserve(void)
{
	if (pool.base || pool.failed)
		return pool.base != 0;
	long pages = sysconf(_SC_PHYS_PAGES);
	size_t size = 2 * (pages > 0 ? (size_t)pages * PAGE : (size_t)64 << 30);
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		pool.failed = 1;
		return 0;
	}
	/* transparent huge pages where the system allows them for madvise'd memory: fewer
	 * faults, and a physical placement within each 2 MiB that is the same in every process */
	madvise(p, size, MADV_HUGEPAGE);
	pool.base = (uintptr_t)p;
	pool.size = size;
	pool.freed[0] = (struct extent){pool.base, size};
	pool.nfree = 1;
	return 1;
}

/* The lowest free extent that holds len bytes, split (first fit: pages touched before are
 * used again first). NULL when none does. */
static void *take(size_t len)
{
	for (int i = 0; i < pool.nfree; i++) {
		struct extent *e = &pool.freed[i];
		if (e->len < len)
			continue;
		uintptr_t at = e->at;
		e->at += len;
		e->len -= len;
		if (e->len == 0) {
			memmove(e, e + 1, (size_t)(pool.nfree - i - 1) * sizeof *e);
			pool.nfree--;
		}
		pool.used[pool.nused++] = (struct extent){at, len};
		return (void *)at;
	}
	return NULL;
}

/* Block u goes back to the free extents, merged with its neighbours. */
static void give_back(int u)
{
	struct extent b = pool.used[u];
	pool.used[u] = pool.used[--pool.nused];
	int i = 0;
	while (i < pool.nfree && pool.freed[i].at < b.at)
		i++;
	int prev = i > 0 && pool.freed[i - 1].at + pool.freed[i - 1].len == b.at;
	int next = i < pool.nfree && b.at + b.len == pool.freed[i].at;
	if (prev && next) {
		pool.freed[i - 1].len += b.len + pool.freed[i].len;
		memmove(&pool.freed[i], &pool.freed[i + 1],
			(size_t)(pool.nfree - i - 1) * sizeof pool.freed[0]);
		pool.nfree--;
	} else if (prev) {
		pool.freed[i - 1].len += b.len;
	} else if (next) {
		pool.freed[i].at = b.at;
		pool.freed[i].len += b.len;
	} else { /* at most one more extent than blocks: room is always there */
		memmove(&pool.freed[i + 1], &pool.freed[i],
			(size_t)(pool.nfree - i) * sizeof pool.freed[0]);
		pool.freed[i] = b;
		pool.nfree++;
	}
}

int pool_owns(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	return pool.base && a >= pool.base && a < pool.base + pool.size;
}

void *pool_alloc(size_t bytes)
{
	if (bytes > SIZE_MAX - (PAGE - 1)) { /* whole pages of it cannot be counted */
		errno = ENOMEM;
		return NULL;
	}
	size_t len = bytes ? (bytes + PAGE - 1) & ~(PAGE - 1) : PAGE;
	void *p = NULL;
#ifdef __GLIBC__
	pthread_mutex_lock(&pool.lock);
	if (pool.nused < MAX_BLOCKS && len <= SIZE_MAX - GAP && reserve())
		p = take(len + GAP);
	pthread_mutex_unlock(&pool.lock);
#endif
	if (!p) { /* the region cannot hold it: the C library's */
		int rc = posix_memalign(&p, PAGE, len);
		if (rc) {
			errno = rc;
			return NULL;
		}
	}
	return p;
}

#ifdef __GLIBC__
/* free() and realloc() of the whole process: the pool's blocks are the pool's, every other
 * pointer the C library's (glibc exports its own as __libc_free and __libc_realloc). */
void __libc_free(void *p);
void *__libc_realloc(void *p, size_t n);

void free(void *p)
{
	if (!pool_owns(p)) {
		__libc_free(p);
		return;
	}
	pthread_mutex_lock(&pool.lock);
	for (int u = 0; u < pool.nused; u++) {
		if (pool.used[u].at == (uintptr_t)p) {
			give_back(u);
			break;
		}
	}
	pthread_mutex_unlock(&pool.lock);
}

void *realloc(void *p, size_t n)
{
	if (!pool_owns(p))
		return __libc_realloc(p, n);
	size_t have = 0;
	pthread_mutex_lock(&pool.lock);
	for (int u = 0; u < pool.nused; u++)
		if (pool.used[u].at == (uintptr_t)p)
			have = pool.used[u].len - GAP;
	pthread_mutex_unlock(&pool.lock);
	if (n <= have)
		return p;
	void *q = pool_alloc(n);
	if (q) {
		memcpy(q, p, have);
		free(p);
	}
	return q;
}
#endif
