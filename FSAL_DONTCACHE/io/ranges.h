/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* ranges.c: sorted, disjoint [lo, hi) byte ranges, each with an errno. */
#ifndef DCIO_RANGES_H
#define DCIO_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dcio_range {
	uint64_t lo, hi;
	int err;
};

/* r is NULL (empty), heap memory, or &one: when the first range finds no
 * memory it is kept in `one`, so that a set never fails to remember a range
 * (it over-approximates instead: rs_collapse). A set moves only by rs_take. */
struct dcio_rangeset {
	struct dcio_range *r;
	size_t n, cap;
	struct dcio_range one;
};

/* The allocation seam of every range set (realloc semantics): tests make it
 * fail. */
extern void *(*dcio_rs_realloc)(void *p, size_t size);

void rs_add(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi, int err);
/* Without memory to split a range, rs_sub keeps it whole (the set then
 * holds more, never less); rs_sub_shrink drops its tail (less, never more:
 * for a set that must not over-approximate). */
void rs_sub(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi);
void rs_sub_shrink(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi);
/* Once it holds max ranges, neighbours are merged pairwise (the gaps between
 * them join the set, each pair keeping the first errno it has) until fewer
 * remain. */
void rs_bound(struct dcio_rangeset *rs, size_t max);
int rs_find(const struct dcio_rangeset *rs, uint64_t lo, uint64_t hi);
void rs_collapse(struct dcio_rangeset *rs);
void rs_merge_into(struct dcio_rangeset *dst, const struct dcio_rangeset *src,
		   int err);
bool rs_add_exact(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi, int err);
void rs_add_set(struct dcio_rangeset *dst, const struct dcio_rangeset *src);
void rs_take(struct dcio_rangeset *dst, struct dcio_rangeset *src);
uint64_t rs_bytes(const struct dcio_rangeset *rs);
void rs_free(struct dcio_rangeset *rs);

/* [off, off+len); len 0 (or past the end of offsets) means to the end. */
static inline uint64_t range_end(uint64_t off, uint64_t len)
{
	return len == 0 || off + len < off ? UINT64_MAX : off + len;
}

/* A write's range (a zero-length write still marks its offset). */
static inline uint64_t write_end(uint64_t off, uint64_t len)
{
	return range_end(off, len ? len : 1);
}

#endif
