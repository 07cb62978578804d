/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Group commit's state, embedded in a file (dcio_file.gc) and a request
 * (dcio_req.w); commit.h has its functions. */
#ifndef DCIO_COMMIT_TYPES_H
#define DCIO_COMMIT_TYPES_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "pool.h"

struct dcio_req;

struct gc_waiter {
	struct gc_waiter *next;
	struct dcio_req *req; /* async stable write, or NULL */
	/* completes req once its flush is done (req.c's req_complete) */
	void (*complete)(struct dcio_req *req, int err);
	bool fsync, done;
	int err;
};

/* A file's group-commit state (dcio_file.gc); mu also guards the file's
 * error memory (dcio_file.em). */
struct gc_file {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t write_seq, flushed_seq; /* acknowledged / flushed writes */
	struct gc_waiter *wh, **wt; /* queued for the next flush */
	struct gc_waiter *riders; /* joined the running flush */
	uint64_t flush_covered; /* write_seq the running flush covers */
	bool flushing, flush_fsync, job_posted;
	bool settle; /* a flush is due after a failed or lost write */
	/* +1 as a flush starts and as it ends (odd while one runs): read
	 * without mu by the flusher (gc_flush_seq) */
	uint64_t flush_seq;
	struct dcio_job job;
};

#endif
