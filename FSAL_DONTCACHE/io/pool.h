/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* pool.c: a job queue served by threads. */
#ifndef DCIO_POOL_H
#define DCIO_POOL_H

#include <pthread.h>
#include <stdbool.h>

#include "dcio.h"

struct dcio_job {
	void (*run)(struct dcio_job *);
	struct dcio_job *next;
};

struct dcio_pool {
	pthread_mutex_t mu; /* guards the queue and stop */
	pthread_cond_t cv;
	struct dcio_job *head, *tail;
	bool stop;
	unsigned int n;
	int nice;
	dcio_log_fn log;
	pthread_t *tids;
};

int pool_start(struct dcio_pool *p, unsigned int n, const char *name, int nice,
	       dcio_log_fn log);
void pool_post(struct dcio_pool *p, struct dcio_job *j);
void pool_stop(struct dcio_pool *p);

#endif
