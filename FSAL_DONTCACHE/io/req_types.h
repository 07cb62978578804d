/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* One I/O request (or a split parent): what every policy reads of it;
 * req.h has the functions of its life. */
#ifndef DCIO_REQ_TYPES_H
#define DCIO_REQ_TYPES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "commit_types.h"
#include "dcio.h"
#include "pool.h"

struct cred_copy;
struct dcio_file;

/* A syscall answering EINTR or EAGAIN is issued at most this many times in
 * a row (no byte transferred in between), with a short backoff growing from
 * the third try (req_retry_delay_ns); then the request fails with that
 * error. */
#define DCIO_IO_MAX_TRIES 16

enum req_op { REQ_WRITE, REQ_READ };
enum req_status { REQ_DONE, REQ_AGAIN };

struct dcio_req {
	struct dcio_job job;
	struct dcio_req *next; /* rangelock start list */
	struct dcio_file *f;
	struct dcio_req *parent;
	atomic_int children;
	enum req_op op;
	enum dcio_write_mode mode; /* the leaf's, by which it goes out */
	enum dcio_write_mode top_mode; /* the write's, as accepted */
	int fd, rwflags, err;
	int retries; /* EINTR/EAGAIN answers in a row (DCIO_IO_MAX_TRIES) */
	bool inline_, direct;
	/* issued and completed on the caller's thread, done before dcio_write
	 * returns (a direct write up to caller_write_max, and its children):
	 * the range lock is waited for there, as for inline_ */
	bool caller;
	bool kick_timed; /* kick.c: its syscall time is a kick_sample */
	uint64_t throttled; /* bytes flusher_throttle counts as being written */
	enum dcio_stable stable;
	bool opportunistic; /* UNSTABLE, joined a group flush (stable_reply_ms) */
	bool is_durable; /* flushed before done */
	bool *durable; /* the caller's, set before done (dcio_write) */
	uint64_t off, len; /* the caller's range */
	/* bytes counted in the export's in-flight bound until done: len, and
	 * as much again for a direct write's bounce copy */
	uint64_t held;
	uint64_t io_off, io_len, xfer; /* the syscall's range and progress */
	uint64_t t0;
	uint64_t err_gen; /* em_write_begin() at submission */
	dcio_done_fn done;
	void *arg;
	void *bounce;
	size_t bounce_len;
	/* a write's caller (dcio_write): its syscalls run as it; the top
	 * request owns it, split children point at their parent's */
	struct cred_copy *cred;
	const struct iovec *uiov; /* caller's iovec, for bounce copy-back */
	int uiovcnt;
	struct gc_waiter w;
	struct dcio_req *kids[3]; /* direct split: submitted together */
	int nkids;
	/* rangelock.c, under the file's mu */
	uint64_t rl_lo, rl_hi;
	struct dcio_req *rl_next;
	bool rl_held;
	/* falloc.c, under the file's mu: in-flight writes */
	struct dcio_req *wr_next, *wr_prev;
	uint64_t wr_seq; /* 0: not (or no longer) tracked */
	bool db_written; /* (top request) some leaf went buffered/dropbehind */
	bool dc_written; /* (top request) some leaf went RWF_DONTCACHE */
	int iovcnt;
	struct iovec *iov;
	struct iovec iovs[];
};

#endif
