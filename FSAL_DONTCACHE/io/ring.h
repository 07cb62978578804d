/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* ring.c: an engine thread owning one io_uring. */
#ifndef DCIO_RING_H
#define DCIO_RING_H

#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct dcio_engine;
struct dcio_req;
struct cred_copy;

/* Personalities registered per ring (one per caller identity seen lately):
 * past this many the least recently used is unregistered. */
#define DCIO_RING_PERSONALITIES 16

struct ring_pers {
	struct cred_copy *c; /* NULL: free slot */
	int id;
	uint64_t used; /* the ring's tick when last used */
};

struct dcio_ring {
	struct dcio_engine *e;
	pthread_t tid;
	struct io_uring ring; /* the ring thread's own */
	int efd;
	uint64_t efd_val;
	pthread_mutex_t mu; /* guards qh, qt, stop */
	struct dcio_req *qh, *qt;
	bool stop;
	atomic_int wake;
	unsigned int cap;
	/* ring thread only */
	struct ring_pers pers[DCIO_RING_PERSONALITIES];
	uint64_t pers_tick;
	bool pers_off; /* the kernel refused to register one: pool */
};

int ring_start(struct dcio_engine *e, struct dcio_ring *r, unsigned int entries,
	       unsigned int idx);
void ring_post(struct dcio_ring *r, struct dcio_req *q);
void ring_stop(struct dcio_ring *r);

#endif
