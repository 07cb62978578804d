/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* bounce.c: page-aligned O_DIRECT bounce buffers. */
#ifndef DCIO_BOUNCE_H
#define DCIO_BOUNCE_H

#include <pthread.h>
#include <stddef.h>

#define BOUNCE_SLAB (1u << 20)
#define BOUNCE_KEEP 32

struct dcio_bounce {
	size_t page; /* mappings past BOUNCE_SLAB round up to it */
	pthread_mutex_t mu; /* guards free, n */
	void *free[BOUNCE_KEEP];
	unsigned int n;
};

void *bounce_get(struct dcio_bounce *b, size_t len);
void bounce_put(struct dcio_bounce *b, void *p, size_t len);
void bounce_init(struct dcio_bounce *b, size_t page);
void bounce_fini(struct dcio_bounce *b);

#endif
