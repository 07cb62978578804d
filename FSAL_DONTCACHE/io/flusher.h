/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* flusher.c: coalesced sync_file_range and drop-behind for buffered writes. */
#ifndef DCIO_FLUSHER_H
#define DCIO_FLUSHER_H

#include <fcntl.h>
#include <stdint.h>

#include "flusher_types.h"

struct dcio_engine;
struct dcio_export;
struct dcio_file;

/* How a pass waits before its drop: writes what is dirty again and waits
 * on it all (WB_SYNC_ALL over the range). WAIT_BEFORE alone waits only on
 * writeback already under way: pages a concurrent fsync holds locked and
 * dirty (ext4 allocating their blocks) or re-dirtied behind the pass were
 * skipped by DONTNEED and stayed cached. */
#define DCIO_SFR_DRAIN                                         \
	(SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | \
	 SYNC_FILE_RANGE_WAIT_AFTER)

int flusher_start(struct dcio_engine *e);
void flusher_stop(struct dcio_engine *e);
/* What a completed write left for the flusher */
enum fl_note {
	FL_DIRTY, /* buffered: start its writeback, wait, drop */
	FL_STARTED, /* writeback started (an inline kick): wait, drop */
	/* RWF_DONTCACHE with the kernel's kick in the syscall: the kernel
	 * drops the pages when their writeback ends in task context; a pass
	 * drops what it left (ext4 overwrites end in IRQ context). Counts
	 * toward the export's threshold, not the file's: one writer's 1.9
	 * GB/s made 175 passes a second, 2-3% of ganesha's CPU. And at
	 * 1/DCIO_KICKED_SHARE of their bytes: 64 writers' kicked writes at
	 * ~1 GB/s counted in full made 150-194 passes in a 4 s run (a
	 * sync_file_range and a POSIX_FADV_DONTNEED per 2 MiB): 1.36x inline
	 * mode's CPU per byte and 1.9x its RSS; at a quarter, 1.01x and 0.98x
	 * (measured with the project's bench). */
	FL_KICKED,
};
#define DCIO_KICKED_SHARE 4
void flusher_note(struct dcio_file *f, uint64_t off, uint64_t len,
		  enum fl_note how);
void flusher_forget(struct dcio_file *f);
/* undoes flusher_forget's closing mark when the file stays open */
void flusher_keep(struct dcio_file *f);
/* Before a write of len bytes that leaves pages for the flusher is issued:
 * while the export's noted and not yet dropped bytes, with those of the
 * writes this let go and not yet ended, are over flusher_budget, wait (at
 * most DCIO_THROTTLE_MAX_MS in all, in arrival order) for passes to drop
 * some; then count len as being written. A bound on the page cache the
 * writers fill on a server whose dirty limit (a share of its memory) is
 * far larger; counting writes in flight makes it one: without them, 64
 * writers of 1 MiB passed a full budget of 64 MiB together and held
 * 96-137 MiB. */
void flusher_throttle(struct dcio_export *x, uint64_t len);
/* A write flusher_throttle let go ended (flusher_note counted it as held
 * first, or it failed or left nothing): its len is no longer being
 * written; room there is goes to the next waiting writer. */
void flusher_written(struct dcio_export *x, uint64_t len);
/* cache_budget_bytes, or DCIO_THROTTLE_FACTOR x flush_export_bytes */
uint64_t flusher_budget(const struct dcio_export *x);
#define DCIO_THROTTLE_MAX_MS 2000
#define DCIO_THROTTLE_FACTOR 8

#endif
