// SPDX-License-Identifier: LGPL-3.0-or-later
#include "hist.h"
#include <string.h>
#include <math.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned hist_index(uint64_t v)
{
	if (v < HIST_SUB)
		return (unsigned)v;
	unsigned msb = 63 - __builtin_clzll(v); /* >= HIST_SUB_BITS */
	unsigned shift = msb - HIST_SUB_BITS; /* 0.. */
	unsigned sub = (unsigned)(v >> shift) - HIST_SUB; /* 0..HIST_SUB-1 */
	return (shift + 1) * HIST_SUB + sub;
}

uint64_t hist_bucket_low(unsigned idx)
{
	if (idx < HIST_SUB)
		return idx;
	unsigned shift = idx / HIST_SUB - 1;
	uint64_t sub = idx % HIST_SUB + HIST_SUB;
	return sub << shift;
}

uint64_t hist_bucket_high(unsigned idx)
{
	if (idx < HIST_SUB)
		return idx;
	unsigned shift = idx / HIST_SUB - 1;
	return hist_bucket_low(idx) + ((1ULL << shift) - 1);
}

void hist_add_n(struct hist *h, uint64_t v, uint64_t n)
{
	if (!n)
		return;
	h->b[hist_index(v)] += n;
	h->count += n;
	h->sum += (long double)v * n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void hist_add(struct hist *h, uint64_t v)
{
	hist_add_n(h, v, 1);
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)(h->sum / h->count) : 0.0;
}

static uint64_t clampv(const struct hist *h, uint64_t v)
{
	if (v < h->min)
		return h->min;
	if (v > h->max)
		return h->max;
	return v;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	if (!h->count)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 100)
		return h->max;
	/* rank of the smallest sample with at least p% of samples <= it */
	uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	uint64_t cum = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		cum += h->b[i];
		if (cum >= rank) {
			uint64_t lo = hist_bucket_low(i),
				 hi = hist_bucket_high(i);
			return clampv(h, lo + (hi - lo) / 2);
		}
	}
	return h->max;
}

void hist_write_cdf(const struct hist *h, FILE *f, double div)
{
	uint64_t cum = 0;
	if (!h->count)
		return;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		if (!h->b[i])
			continue;
		cum += h->b[i];
		uint64_t lo = hist_bucket_low(i), hi = hist_bucket_high(i);
		fprintf(f, "%.3f %.6f\n",
			(double)clampv(h, lo + (hi - lo) / 2) / div,
			(double)cum / (double)h->count);
	}
}
