/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* flusher.c: coalesced sync_file_range and drop-behind for buffered writes. */
#ifndef DCIO_FLUSHER_H
#define DCIO_FLUSHER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ranges.h"

struct dcio_engine;
struct dcio_file;

/* The engine's flusher; mu also guards every export's and file's `fl`. */
struct dcio_flusher {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, kicked, started;
	uint64_t gen; /* pass number */
	struct dcio_file *head; /* files with ranges to flush or drop */
};

/* An export's flusher state (dcio_export.fl), under the engine's fl.mu. */
struct fl_export {
	uint64_t dirty; /* bytes noted, not yet taken by a pass */
	uint64_t held; /* bytes noted, not yet dropped (flusher_throttle) */
	bool urgent; /* over flush_export_bytes */
	uint64_t gen, urgent_gen; /* pass last counted / flushing all */
	uint64_t pass_writes;
};

/* A file's flusher state (dcio_file.fl), under the engine's fl.mu. */
struct fl_file {
	struct dcio_file *next, *prev;
	bool listed, busy, urgent;
	struct dcio_rangeset dirty; /* to start: sync_file_range(WRITE) */
	struct dcio_rangeset wb; /* started: wait, then drop */
	uint64_t dirty_bytes, nwrites, last;
	uint64_t wb_bytes; /* noted bytes whose ranges are in wb */
	/* while busy (taken by a pass, only the flusher touches these) */
	struct dcio_file *batch; /* next file of the pass */
	struct dcio_rangeset old, fresh; /* to wait and drop / to start */
	uint64_t old_bytes, fresh_bytes;
};

int flusher_start(struct dcio_engine *e);
void flusher_stop(struct dcio_engine *e);
void flusher_note(struct dcio_file *f, uint64_t off, uint64_t len,
		  bool written);
void flusher_forget(struct dcio_file *f);
/* Before a buffered write of the export is issued: while the export holds
 * more than DCIO_THROTTLE_FACTOR x flush_export_bytes noted and not yet
 * dropped, wait (at most DCIO_THROTTLE_MAX_MS in all) for passes to drop
 * some. (In steady state a pass starts at flush_export_bytes dirty and
 * drops the previous pass's ranges at the next: the export holds 1-2x;
 * a factor of 2 stalled 16 writers at every pass, 4 leaves them room.) Keeps the
 * page cache the writers fill near the thresholds when the disk is slower
 * than they are, instead of at the kernel's dirty limit. */
void flusher_throttle(struct dcio_export *x);
#define DCIO_THROTTLE_MAX_MS 2000
#define DCIO_THROTTLE_FACTOR 4

#endif
