// SPDX-License-Identifier: LGPL-3.0-or-later
/* Bounce buffers for O_DIRECT: page-aligned anonymous mappings, the common
 * 1 MiB size kept on a short free list. malloc would keep every buffer it
 * was ever given in its arenas (memalign'd chunks fragment them: measured
 * 900 MiB RSS at 64 direct writers and an OOM kill in a 1 GiB cgroup), and a
 * fresh mapping per write would fault in every page. */
#include <sys/mman.h>

#include "bounce.h"

static size_t mapped_len(const struct dcio_bounce *b, size_t len)
{
	if (len <= BOUNCE_SLAB)
		return BOUNCE_SLAB;
	return (len + b->page - 1) & ~(b->page - 1);
}

void *bounce_get(struct dcio_bounce *b, size_t len)
{
	void *p = NULL;

	if (len <= BOUNCE_SLAB) {
		pthread_mutex_lock(&b->mu);
		if (b->n)
			p = b->free[--b->n];
		pthread_mutex_unlock(&b->mu);
		if (p)
			return p;
	}
	p = mmap(NULL, mapped_len(b, len), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void bounce_put(struct dcio_bounce *b, void *p, size_t len)
{
	if (!p)
		return;
	if (len <= BOUNCE_SLAB) {
		pthread_mutex_lock(&b->mu);
		if (b->n < BOUNCE_KEEP) {
			b->free[b->n++] = p;
			p = NULL;
		}
		pthread_mutex_unlock(&b->mu);
		if (!p)
			return;
	}
	munmap(p, mapped_len(b, len));
}

void bounce_init(struct dcio_bounce *b, size_t page)
{
	b->page = page;
	pthread_mutex_init(&b->mu, NULL);
}

void bounce_fini(struct dcio_bounce *b)
{
	while (b->n)
		munmap(b->free[--b->n], BOUNCE_SLAB);
	pthread_mutex_destroy(&b->mu);
}
