/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* A file's error memory (dcio_file.em); errmem.h has its functions. */
#ifndef DCIO_ERRMEM_TYPES_H
#define DCIO_ERRMEM_TYPES_H

#include "ranges.h"

#define DCIO_PENDING_CAP 1024
/* lost, relost, trunc_lost: past this many ranges neighbours merge */
#define DCIO_LOST_CAP 1024

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

#endif
