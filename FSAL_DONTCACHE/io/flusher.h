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
/* Before a buffered write of the export is issued: while the export holds
 * more than DCIO_THROTTLE_FACTOR x flush_export_bytes noted and not yet
 * dropped (512 MiB by default), wait (at most DCIO_THROTTLE_MAX_MS in all)
 * for passes to drop some: a bound on the page cache the writers fill on
 * a server whose dirty limit (a share of its memory) is far larger. 8x:
 * no writer waited on this machine's ext4 (~700 MB/s) at 1-64 writers,
 * and an xfs that drains ~300 MB/s held 550 MiB instead of 1 GiB (16x).
 * Not tighter: at 2-4x (128-256 MiB) ext4's 64 writers waited at nearly
 * every pass (0.39-0.77x the MB/s, p99.9 1.3-1.6 s). */
void flusher_throttle(struct dcio_export *x);
/* cache_budget_bytes, or DCIO_THROTTLE_FACTOR x flush_export_bytes */
uint64_t flusher_budget(const struct dcio_export *x);
#define DCIO_THROTTLE_MAX_MS 2000
#define DCIO_THROTTLE_FACTOR 8

#endif
