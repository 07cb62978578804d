/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* commit.c: group commit, per file. */
#ifndef DCIO_COMMIT_H
#define DCIO_COMMIT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "pool.h"

struct dcio_file;
struct dcio_req;

struct gc_waiter {
	struct gc_waiter *next;
	struct dcio_req *req; /* async stable write, or NULL */
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

enum gc_flags {
	GC_FSYNC = 1, /* fsync instead of fdatasync */
	GC_FORCE = 2, /* flush even when nothing is pending */
	GC_CHECK_LOST = 4, /* also fail on lost ranges in [off, off+len) */
};

void gc_init(struct dcio_file *f);
void gc_fini(struct dcio_file *f);
void gc_want_settle(struct dcio_file *f);
void gc_join_async(struct dcio_file *f, struct dcio_req *q);
int gc_commit(struct dcio_file *f, uint64_t off, uint64_t len,
	      unsigned int flags);
bool gc_dirty(struct dcio_file *f);
/* flush_seq now: odd while a flush of the file runs */
uint64_t gc_flush_seq(struct dcio_file *f);

#endif
