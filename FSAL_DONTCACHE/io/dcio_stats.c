// SPDX-License-Identifier: LGPL-3.0-or-later
/* Counters and log-linear latency histograms (128 sub-buckets per power of
 * two: bucket width <= 1/128 of its lower bound, midpoint error < 0.4%). */
#include <errno.h>
#include <string.h>

#include "dcio_stats.h"

void stat_max(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (v > cur &&
	       !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

void stat_error(struct dcio_stats *s, int err)
{
	if (err <= 0 || err > DCIO_ERRNO_MAX)
		err = 0;
	ST_ADD(s->errors[err], 1);
}

unsigned int hist_bucket(uint64_t v)
{
	if (v < H_SUB)
		return v;
	unsigned int e = 63 - __builtin_clzll(v);

	if (e > H_MAX_EXP)
		return H_BUCKETS - 1;
	unsigned int sub = (v >> (e - H_SUB_BITS)) & (H_SUB - 1);

	return (e - H_SUB_BITS + 1) * H_SUB + sub;
}

uint64_t hist_bucket_mid(unsigned int idx)
{
	if (idx < H_SUB)
		return idx;
	unsigned int e = idx / H_SUB - 1 + H_SUB_BITS;
	uint64_t sub = idx % H_SUB;
	uint64_t lo = (H_SUB + sub) << (e - H_SUB_BITS);

	return lo + ((1ull << (e - H_SUB_BITS)) >> 1);
}

void hist_add(struct dcio_hist *h, uint64_t ns)
{
	ST_ADD(h->b[hist_bucket(ns)], 1);
	ST_MAX(h->max, ns);
	ST_ADD(h->sum, ns);
}

/* value at quantile q (0..1); the bucket midpoint, capped at the exact max */
uint64_t hist_quantile(const struct dcio_hist *h, double q, uint64_t *count)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < H_BUCKETS; i++)
		n += __atomic_load_n(&h->b[i], __ATOMIC_RELAXED);
	if (count)
		*count = n;
	if (!n)
		return 0;
	uint64_t max = __atomic_load_n(&h->max, __ATOMIC_RELAXED);

	if (q >= 1.0)
		return max;
	uint64_t rank = (uint64_t)(q * (double)n);

	if (rank >= n)
		rank = n - 1;
	uint64_t seen = 0;

	for (unsigned int i = 0; i < H_BUCKETS; i++) {
		seen += __atomic_load_n(&h->b[i], __ATOMIC_RELAXED);
		if (seen > rank) {
			uint64_t v = hist_bucket_mid(i);

			return v > max ? max : v;
		}
	}
	return max;
}
