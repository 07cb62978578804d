/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Log-linear latency histogram (HDR-style): values below 2^HIST_SUB_BITS are
 * exact; above, each power of two is split into 2^HIST_SUB_BITS linear
 * sub-buckets, so a reported value (bucket midpoint) is within
 * 1/2^(HIST_SUB_BITS+1) (0.4%) of any value that landed in the bucket. */
#ifndef DCB_HIST_H
#define DCB_HIST_H
#include <stdint.h>
#include <stdio.h>

#define HIST_SUB_BITS 7
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t min, max;
	long double sum;
	uint64_t b[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t v);
void hist_add_n(struct hist *h, uint64_t v, uint64_t n);
void hist_merge(struct hist *dst, const struct hist *src);
/* p in [0,100]; returns 0 for an empty histogram. Exact min for p==0, exact max for p==100. */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);
unsigned hist_index(uint64_t v);
uint64_t hist_bucket_low(unsigned idx);
uint64_t hist_bucket_high(unsigned idx); /* inclusive */
/* Writes "value cumulative_fraction" lines (value divided by div), one per non-empty bucket. */
void hist_write_cdf(const struct hist *h, FILE *f, double div);
#endif
