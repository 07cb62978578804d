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

struct dcio_rangeset {
	struct dcio_range *r;
	size_t n, cap;
};

void rs_add(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi, int err);
void rs_sub(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi);
int rs_find(const struct dcio_rangeset *rs, uint64_t lo, uint64_t hi);
void rs_collapse(struct dcio_rangeset *rs);
void rs_merge_into(struct dcio_rangeset *dst, const struct dcio_rangeset *src,
		   int err);
bool rs_add_exact(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi, int err);
void rs_add_set(struct dcio_rangeset *dst, const struct dcio_rangeset *src);
void rs_take(struct dcio_rangeset *dst, struct dcio_rangeset *src);
uint64_t rs_bytes(const struct dcio_rangeset *rs);
void rs_free(struct dcio_rangeset *rs);

#endif
