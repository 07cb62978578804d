/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Result accounting for dcbench: totals, the measured window (after warm-up),
 * per-connection counters, per-second timeline and errors by NFS status.
 * Pure bookkeeping, no I/O: unit-tested. Times are nanoseconds since the run start. */
#ifndef DCB_STATS_H
#define DCB_STATS_H
#include <stdint.h>
#include "hist.h"

enum dcb_op { OP_WRITE = 0, OP_COMMIT = 1, OP_READ = 2, OP_NUM = 3 };
#define DCB_MAX_STATUS 32

struct dcb_tl { /* one second of the run */
	uint64_t bytes[OP_NUM];
	uint64_t ops[OP_NUM];
	uint64_t lat_sum_ns[OP_NUM];
	uint64_t lat_max_ns[OP_NUM];
};

struct dcb_conn_stats {
	uint64_t bytes[OP_NUM], ops[OP_NUM]; /* all */
	uint64_t m_bytes[OP_NUM], m_ops[OP_NUM]; /* measured window */
	uint64_t errors;
};

struct dcb_results {
	uint64_t measure_start_ns; /* warm-up end */
	uint64_t tl_ns; /* timeline bucket width (default 1 s) */
	uint64_t end_ns; /* last write acknowledged (writers) / run end */
	uint64_t durable_ns; /* last writer's final COMMIT answered */
	struct hist lat[OP_NUM]; /* measured window only */
	uint64_t bytes[OP_NUM], ops[OP_NUM];
	uint64_t m_bytes[OP_NUM], m_ops[OP_NUM];
	uint64_t bytes_asked; /* writers: bytes the run set out to write */
	uint64_t
		bytes_written; /* acknowledged OK, counted once per byte asked */
	uint64_t bytes_resent,
		writes_resent; /* resent after a verifier change */
	uint64_t short_writes, stability_downgrades, jukebox_retries;
	uint64_t
		verf_changes; /* write/commit verifier differed from the previous one */
	uint64_t
		commit_failures; /* COMMIT answered with an error: data not known durable */
	uint64_t rpc_errors;
	struct {
		int status;
		uint64_t count;
	} nfs_err[DCB_MAX_STATUS];
	int n_nfs_err;
	struct dcb_conn_stats *conn;
	int nconns;
	struct dcb_tl *tl;
	int ntl, cap_tl;
};

int dcb_results_init(struct dcb_results *r, int nconns,
		     uint64_t measure_start_ns);
void dcb_results_free(struct dcb_results *r);
/* A completed operation of `bytes` on connection `conn` at time `now` that took `lat`.
 * Only completions at or after measure_start count toward the measured window. */
void dcb_account(struct dcb_results *r, int conn, enum dcb_op op,
		 uint64_t bytes, uint64_t now_ns, uint64_t lat_ns);
void dcb_account_nfs_error(struct dcb_results *r, int conn, int status);
uint64_t dcb_nfs_error_count(const struct dcb_results *r, int status);
uint64_t dcb_nfs_errors_total(const struct dcb_results *r);
const char *dcb_nfs_status_name(int status);
/* Ensures the timeline has entries up to second `sec`. */
struct dcb_tl *dcb_tl_at(struct dcb_results *r, int sec);
/* Measured MB/s (10^6 bytes per second) of `op` between measure_start and end. */
double dcb_rate_mbps(const struct dcb_results *r, enum dcb_op op,
		     uint64_t end_ns);
double dcb_rate_iops(const struct dcb_results *r, enum dcb_op op,
		     uint64_t end_ns);
#endif
