/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* errmem.c: a file's error memory: pending and lost ranges, the error
 * generation, the sync_file_range bracket, truncate trimming. */
#ifndef DCIO_ERRMEM_H
#define DCIO_ERRMEM_H

#include <stdbool.h>
#include <stdint.h>

#include "ranges.h"

#define DCIO_PENDING_CAP 1024
/* lost, relost, trunc_lost: past this many ranges neighbours merge */
#define DCIO_LOST_CAP 1024

struct dcio_file;

/* dcio_file.em, under the file's gc.mu. */
struct errmem {
	struct dcio_rangeset pending, lost;
	/* clear: the parts of acknowledged writes that rewrote lost ranges
	 * (exact, never over-approximated: a good flush removes them from
	 * lost); flush_clear: the running flush's snapshot of it; relost:
	 * ranges lost while that flush ran (a good flush leaves them lost);
	 * flush_pending: the running flush's snapshot of pending (what it
	 * makes durable) */
	struct dcio_rangeset clear, flush_clear, relost, flush_pending;
	/* ranges acknowledged / lost while a truncate runs: kept by its trim */
	struct dcio_rangeset trunc_acked, trunc_lost;
	int trunc_busy;
	int unreported;
	int last_err; /* errno of the latest data-losing error */
	uint64_t err_gen; /* bumped by each data-losing error (atomic reads) */
	int sfr_busy; /* sync_file_range calls whose errors are not recorded yet */
	int flush_taint; /* a sync_file_range error seen while flushing */
};

/* [off, off+len); len 0 (or past the end of offsets) means to the end. */
static inline uint64_t range_end(uint64_t off, uint64_t len)
{
	return len == 0 || off + len < off ? UINT64_MAX : off + len;
}

/* A write's range (a zero-length write still marks its offset). */
static inline uint64_t write_end(uint64_t off, uint64_t len)
{
	return range_end(off, len ? len : 1);
}

/* Called with gc.mu held. */
void em_note_error(struct dcio_file *f, int err);
void em_lose(struct dcio_file *f, uint64_t lo, uint64_t hi, int err);
void em_lose_pending(struct dcio_file *f, int err);

/* A write reads the error generation before its first syscall and hands it
 * to em_acked: an error in between may have consumed its writeback error. */
uint64_t em_write_begin(struct dcio_file *f);
void em_acked(struct dcio_file *f, uint64_t off, uint64_t len, uint64_t gen);
void em_write_error(struct dcio_file *f, uint64_t off, uint64_t len, int err);
/* A writeback syscall outside group commit (sync_file_range, `how` its
 * flags), bracketed: a COMMIT waits until its error, if any, is recorded,
 * because the syscall already consumed the kernel's one report of it. */
void em_sync_file_range(struct dcio_file *f, uint64_t off, uint64_t len,
			unsigned int how);
int em_lost_err(struct dcio_file *f);
int em_take_unreported(struct dcio_file *f);
void em_truncate_begin(struct dcio_file *f);
void em_truncate_end(struct dcio_file *f, uint64_t size, bool done);
void em_fini(struct dcio_file *f);

#endif
