/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* rangelock.c: overlapping writes of a direct-mode file, one after
 * another. */
#ifndef DCIO_RANGELOCK_H
#define DCIO_RANGELOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct dcio_req;

/* A file's range lock (dcio_file.rl): the writes holding their ranges and
 * those waiting, in arrival order, under the file's mu; a write waiting on
 * its caller's thread waits on the file's cv. */
struct rangelock {
	struct dcio_req *active, *waitq;
	pthread_mutex_t *mu;
	pthread_cond_t *cv;
};

void rl_init(struct rangelock *rl, pthread_mutex_t *mu, pthread_cond_t *cv);
/* q's range rounded out to unit (DIO_UNIT). true: q holds its range, its
 * caller starts it now (req_start); false: queued, started by the
 * rl_release that frees its range */
bool rl_start(struct rangelock *rl, struct dcio_req *q, uint64_t unit);
/* The queued requests q's release let hold their ranges, chained by next:
 * the caller starts each (req_start). */
struct dcio_req *rl_release(struct rangelock *rl, struct dcio_req *q);

#endif
