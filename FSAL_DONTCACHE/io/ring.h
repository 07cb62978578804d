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
	unsigned cap;
};

int ring_start(struct dcio_engine *e, struct dcio_ring *r, unsigned entries,
	       unsigned idx);
void ring_post(struct dcio_ring *r, struct dcio_req *q);
void ring_stop(struct dcio_ring *r);

#endif
