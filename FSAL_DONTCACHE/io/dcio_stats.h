/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* dcio_stats.c: per-export counters and log-linear latency histograms
 * (printed by json.c and prom.c). */
#ifndef DCIO_STATS_H
#define DCIO_STATS_H

#include <stdint.h>

#include "dcio.h"
#include "util.h" /* now_ns */

#define DCIO_NR_WMODES 4
#define DCIO_ERRNO_MAX 134

#define H_SUB_BITS 7
#define H_SUB (1u << H_SUB_BITS)
#define H_MAX_EXP 47
#define H_BUCKETS ((H_MAX_EXP - H_SUB_BITS + 2) * H_SUB)

struct dcio_hist {
	uint64_t b[H_BUCKETS];
	uint64_t max;
	uint64_t sum; /* ns, for Prometheus' _sum */
};

void hist_add(struct dcio_hist *h, uint64_t ns);
unsigned int hist_bucket(uint64_t v);
uint64_t hist_bucket_mid(unsigned int idx);
uint64_t hist_quantile(const struct dcio_hist *h, double q, uint64_t *count);

/* Updated with relaxed atomics by any thread, no lock. */
struct dcio_stats {
	uint64_t w_ops[DCIO_NR_WMODES], w_bytes[DCIO_NR_WMODES];
	uint64_t leaf_bytes[DCIO_NR_WMODES];
	uint64_t w_worker_ops,
		w_worker_bytes; /* issued on the caller's thread */
	uint64_t r_ops, r_bytes;
	uint64_t r_nowait; /* reads answered on the caller's thread */
	uint64_t fb_write, fb_read, fb_direct;
	uint64_t fl_passes, fl_files, fl_writes, fl_max_writes, fl_ranges,
		fl_bytes;
	uint64_t fl_sfr_calls, fl_dontneed;
	uint64_t fl_retried; /* drops a flush overlapped: done again later */

	uint64_t
		fl_busy_starts; /* busy files' new ranges started (start_busy) */
	uint64_t fl_throttled, fl_throttle_us; /* flusher_throttle waits */
	uint64_t fl_held_peak; /* most bytes held (noted, not dropped) */
	uint64_t kick_ops, kick_stops, kick_resumes; /* kick.c */

	uint64_t
		fl_inline_kicks; /* Flush_Mode=inline: writeback kicked by the writer */
	uint64_t gc_batches, gc_requests, gc_syscalls, gc_max_batch, gc_nodirty;
	uint64_t gc_lost_reports, gc_lost_inflight, gc_settles;
	uint64_t sr_joined, sr_durable; /* stable_reply_ms: UNSTABLE writes */
	uint64_t errors[DCIO_ERRNO_MAX + 1];
	uint64_t eagain, inflight_waits;
	struct dcio_hist lat_w, lat_r, lat_c;
};

#define ST_ADD(p, v) __atomic_fetch_add(&(p), (v), __ATOMIC_RELAXED)
#define ST_MAX(p, v) stat_max(&(p), (v))
void stat_max(uint64_t *p, uint64_t v);
void stat_error(struct dcio_stats *s, int err);

#endif
