/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* commit.c: group commit, per file. */
#ifndef DCIO_COMMIT_H
#define DCIO_COMMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "commit_types.h"

struct dcio_file;
struct dcio_req;

enum gc_flags {
	GC_FSYNC = 1, /* fsync instead of fdatasync */
	GC_FORCE = 2, /* flush even when nothing is pending */
	GC_CHECK_LOST = 4, /* also fail on lost ranges in [off, off+len) */
};

void gc_init(struct dcio_file *f);
void gc_fini(struct dcio_file *f);
/* q completes (complete(q, err)) after a flush that covers it */
void gc_join_async(struct dcio_file *f, struct dcio_req *q,
		   void (*complete)(struct dcio_req *q, int err));
int gc_commit(struct dcio_file *f, uint64_t off, uint64_t len,
	      unsigned int flags);
bool gc_dirty(struct dcio_file *f);
/* flush_seq now: odd while a flush of the file runs */
uint64_t gc_flush_seq(struct dcio_file *f);

#endif
