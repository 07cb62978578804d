/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* flusher.c: coalesced sync_file_range and drop-behind for buffered writes. */
#ifndef DCIO_FLUSHER_H
#define DCIO_FLUSHER_H

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ranges.h"

struct dcio_engine;
struct dcio_file;

/* How a pass waits before its drop: writes what is dirty again and waits
 * on it all (WB_SYNC_ALL over the range). WAIT_BEFORE alone waits only on
 * writeback already under way: pages a concurrent fsync holds locked and
 * dirty (ext4 allocating their blocks) or re-dirtied behind the pass were
 * skipped by DONTNEED and stayed cached. */
#define DCIO_SFR_DRAIN                                         \
	(SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | \
	 SYNC_FILE_RANGE_WAIT_AFTER)

/* The engine's flushers: one thread per engine thread (Engine_Threads), so
 * one blocked in writeback submission or a wait does not stall the others'
 * files. mu also guards every export's and file's `fl`. */
struct dcio_flusher {
	pthread_t *tids;
	unsigned int n, idle; /* threads; threads not in a pass */
	pthread_mutex_t mu;
	pthread_cond_t cv; /* flusher threads wait here */
	pthread_cond_t wcv; /* writers (throttle) and closers (forget) */
	bool stop, kicked, started;
	uint64_t gen; /* pass number, over all threads */
	struct dcio_file *head; /* files with ranges to flush or drop */
	unsigned int nlisted; /* files on that list */
	/* busy files whose new ranges wait to be started */
	unsigned int nstart;
};

struct fl_waiter;

/* An export's flusher state (dcio_export.fl), under the engine's fl.mu. */
struct fl_export {
	uint64_t dirty; /* bytes noted, not yet taken by a pass */
	uint64_t held; /* bytes noted, not yet dropped (flusher_throttle;
			* changed under the lock, read without it there) */
	unsigned int waiters; /* writers in flusher_throttle */
	/* those writers in arrival order, each on a condition of its own:
	 * the first goes on once the export is back within its budget and
	 * lets the next one go (flusher.c) */
	struct fl_waiter *qhead, *qtail;
	bool urgent; /* over flush_export_bytes */
	/* urgent_gen: files taken by a pass before it are due at once */
	uint64_t gen, urgent_gen; /* pass last counted / went urgent */
	uint64_t pass_writes;
};

/* A file's flusher state (dcio_file.fl), under the engine's fl.mu. */
struct fl_file {
	struct dcio_file *next, *prev;
	bool listed, busy, urgent;
	bool closing; /* flusher_forget waits for the pass to give it back */
	bool start_now; /* busy, and dirtied a threshold since: start it */
	bool starting; /* a thread is starting those (forget waits) */
	struct dcio_rangeset dirty; /* to start: sync_file_range(WRITE) */
	struct dcio_rangeset wb; /* started: wait, then drop */
	uint64_t dirty_bytes, nwrites, last;
	uint64_t x_bytes; /* of dirty_bytes, counted toward the export's */
	uint64_t wb_bytes; /* noted bytes whose ranges are in wb */
	uint64_t taken_gen; /* the pass that last took the file */
	/* while busy (taken by a pass; its thread, or a closer taking the
	 * file out of the pass under mu, touches these) */
	struct dcio_file *batch; /* next file of the pass */
	struct dcio_file **batch_pp; /* the link to this file */
	bool in_pass; /* the pass works on this file (forget waits) */
	/* old: started before (wait, drop); fresh: start, wait, drop */
	struct dcio_rangeset old, fresh;
	uint64_t old_bytes, fresh_bytes;
};

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
