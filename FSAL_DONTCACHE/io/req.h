/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* req.c: one I/O request (or a split parent) and its life. */
#ifndef DCIO_REQ_H
#define DCIO_REQ_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "dcio.h"
#include "req_types.h"

struct dcio_export;

enum dcio_write_mode cached_write_mode(const struct dcio_export *x);
int cached_read_flags(const struct dcio_export *x);
void req_set_mode(struct dcio_req *q, enum dcio_write_mode mode);
struct dcio_req *req_new(struct dcio_file *f, enum req_op op, int niov);
enum req_status req_result(struct dcio_req *q, long res);
uint64_t req_retry_delay_ns(const struct dcio_req *q);
void req_exec_sync(struct dcio_req *q);
void req_finish(struct dcio_req *q, int err);
void req_complete(struct dcio_req *q, int err);
/* frees a top request (and its cred) that never ran */
void req_free(struct dcio_req *q);
/* Runs the request: on the calling thread (inline, caller), else on a
 * pool thread. */
void req_submit(struct dcio_req *q);
/* Submits a write, or a direct write's split children (the parent may be
 * gone as soon as its last child completes). */
void req_start(struct dcio_req *q);
uint64_t iov_total(const struct iovec *iov, int cnt);
int iov_slice(const struct iovec *src, int cnt, uint64_t skip, uint64_t len,
	      struct iovec *dst);

#endif
