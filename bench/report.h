/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* dcbench reports: JSON (complete, machine-readable), timeline CSV, latency CDFs. */
#ifndef DCB_REPORT_H
#define DCB_REPORT_H
#include <stdio.h>
#include "opts.h"
#include "stats.h"
#include "sampler.h"

enum dcb_role { ROLE_WRITER = 0, ROLE_READER = 1 };

struct dcb_conn_info {
	int role;
	int url;
	const char *file; /* writer file name (readers: NULL) */
	int failed;
	uint64_t verf_changes;
};

struct dcb_run_info {
	double elapsed_s; /* whole run, after setup */
	int finished; /* every writer wrote and committed everything it was asked */
	const char *stop_reason;
	uint64_t writemax, readmax;
	int use_cachestat;
};

struct dcb_series {
	double peak, mean, last;
	int n;
};
/* Summary over samples of one field (offset into struct dcb_sample, type double or uint64/int64). */
void dcb_write_json(FILE *f, const struct dcb_opts *o,
		    const struct dcb_results *r, const struct dcb_sampler *sp,
		    const struct dcb_conn_info *ci, int nconns,
		    const struct dcb_run_info *ri);
void dcb_write_timeline_csv(FILE *f, const struct dcb_results *r,
			    const struct dcb_sampler *sp);
#endif
