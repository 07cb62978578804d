/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The flusher's state: the engine's (dcio_engine.fl), an export's and a
 * file's (their .fl); flusher.h has its functions. */
#ifndef DCIO_FLUSHER_TYPES_H
#define DCIO_FLUSHER_TYPES_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ranges.h"

struct dcio_file;

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
	/* bytes of writes flusher_throttle let go, not yet noted or ended:
	 * counted against the budget with held (atomic, no lock) */
	uint64_t writing;
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

#endif
