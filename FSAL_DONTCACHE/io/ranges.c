// SPDX-License-Identifier: LGPL-3.0-or-later
/* Sorted, disjoint byte ranges with an errno each: acknowledged-but-unflushed
 * writes (err 0), lost ranges (err != 0), flusher dirty/writeback sets. */
#include <stdlib.h>
#include <string.h>

#include "ranges.h"

void *(*dcio_rs_realloc)(void *p, size_t size) = realloc;

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}
static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* On allocation failure the set degrades to one covering range: an over-
 * approximation, which errs on the side of reporting data as lost. (A set
 * that must not over-approximate, `clear`, adds only through rs_add_exact and
 * subtracts through rs_sub_shrink: it never comes here.) */
void rs_collapse(struct dcio_rangeset *rs)
{
	if (rs->n < 2)
		return;
	rs->r[0].hi = rs->r[rs->n - 1].hi;
	for (size_t i = 1; i < rs->n; i++)
		if (!rs->r[0].err)
			rs->r[0].err = rs->r[i].err;
	rs->n = 1;
}

static bool grow(struct dcio_rangeset *rs, size_t need)
{
	if (need <= rs->cap)
		return true;
	size_t cap = rs->cap > 1 ? rs->cap * 2 : 8;

	while (cap < need)
		cap *= 2;
	bool inline_one = rs->r == &rs->one;
	struct dcio_range *r =
		dcio_rs_realloc(inline_one ? NULL : rs->r, cap * sizeof(*r));
	if (!r)
		return false;
	if (inline_one)
		memcpy(r, &rs->one, rs->n * sizeof(*r));
	rs->r = r;
	rs->cap = cap;
	return true;
}

/* first index whose hi >= lo (ranges touching lo included) */
static size_t lower(const struct dcio_rangeset *rs, uint64_t lo)
{
	size_t a = 0, b = rs->n;

	while (a < b) {
		size_t m = (a + b) / 2;

		if (rs->r[m].hi < lo)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* Without memory for v, a set of at least one range becomes one range
 * covering itself and v, with the first errno it holds: toward lost. */
static void widen(struct dcio_rangeset *rs, struct dcio_range v)
{
	rs_collapse(rs);
	rs->r[0].lo = min64(rs->r[0].lo, v.lo);
	rs->r[0].hi = max64(rs->r[0].hi, v.hi);
	if (!rs->r[0].err)
		rs->r[0].err = v.err;
}

/* false: not inserted as such, the set over-approximates instead (one
 * covering range); a first range without memory goes to the set's own slot */
static bool insert_at(struct dcio_rangeset *rs, size_t i, struct dcio_range v)
{
	if (!grow(rs, rs->n + 1)) {
		if (rs->n == 0) {
			rs->one = v;
			rs->r = &rs->one;
			rs->cap = 1;
			rs->n = 1;
			return true;
		}
		widen(rs, v);
		return false;
	}
	memmove(&rs->r[i + 1], &rs->r[i], (rs->n - i) * sizeof(v));
	rs->r[i] = v;
	rs->n++;
	return true;
}

/* [lo, hi) takes err over whatever overlapped it; merges with touching
 * neighbours that carry the same err. The memory comes first (a split and
 * the insert: two more ranges at most), as in rs_add_exact: a split that
 * failed and an insert that then succeeded would put [lo, hi) before the
 * unsplit range around it, and the set would no longer be sorted. Without
 * it the set widens toward lost. */
static void add_replacing(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi,
			  int err)
{
	if (!grow(rs, rs->n + 2)) {
		widen(rs, (struct dcio_range){ lo, hi, err });
		return;
	}
	rs_sub(rs, lo, hi);
	size_t p = lower(rs, lo);

	if (p < rs->n && rs->r[p].hi == lo)
		p++;
	if (!insert_at(rs, p, (struct dcio_range){ lo, hi, err }))
		return;
	if (p + 1 < rs->n && rs->r[p + 1].lo == hi && rs->r[p + 1].err == err) {
		rs->r[p].hi = rs->r[p + 1].hi;
		memmove(&rs->r[p + 1], &rs->r[p + 2],
			(rs->n - p - 2) * sizeof(rs->r[0]));
		rs->n--;
	}
	if (p > 0 && rs->r[p - 1].hi == lo && rs->r[p - 1].err == err) {
		rs->r[p - 1].hi = rs->r[p].hi;
		memmove(&rs->r[p], &rs->r[p + 1],
			(rs->n - p - 1) * sizeof(rs->r[0]));
		rs->n--;
	}
}

void rs_add(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi, int err)
{
	if (lo >= hi)
		return;
	size_t i = lower(rs, lo), j = i;
	bool same = true;

	while (j < rs->n && rs->r[j].lo <= hi) {
		if (rs->r[j].err != err)
			same = false;
		j++;
	}
	if (!same) {
		add_replacing(rs, lo, hi, err);
		return;
	}
	if (i == j) {
		insert_at(rs, i, (struct dcio_range){ lo, hi, err });
		return;
	}
	rs->r[i].lo = min64(rs->r[i].lo, lo);
	rs->r[i].hi = max64(rs->r[j - 1].hi, hi);
	memmove(&rs->r[i + 1], &rs->r[j], (rs->n - j) * sizeof(rs->r[0]));
	rs->n -= j - i - 1;
}

static void sub(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi, bool shrink)
{
	if (lo >= hi)
		return;
	for (size_t i = lower(rs, lo); i < rs->n && rs->r[i].lo < hi;) {
		struct dcio_range *r = &rs->r[i];

		if (r->hi <= lo) {
			i++;
		} else if (r->lo >= lo && r->hi <= hi) {
			memmove(r, r + 1, (rs->n - i - 1) * sizeof(*r));
			rs->n--;
		} else if (r->lo < lo && r->hi > hi) {
			/* a split: the memory first, then the change */
			if (!grow(rs, rs->n + 1)) {
				if (shrink)
					rs->r[i].hi = lo;
				return;
			}
			r = &rs->r[i];
			struct dcio_range tail = { hi, r->hi, r->err };

			r->hi = lo;
			insert_at(rs, i + 1, tail);
			return;
		} else if (r->lo < lo) {
			r->hi = lo;
			i++;
		} else {
			r->lo = hi;
			i++;
		}
	}
}

void rs_sub(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi)
{
	sub(rs, lo, hi, false);
}

void rs_sub_shrink(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi)
{
	sub(rs, lo, hi, true);
}

void rs_bound(struct dcio_rangeset *rs, size_t max)
{
	if (max < 2)
		return;
	while (rs->n >= max) {
		size_t k = 0;

		for (size_t i = 0; i < rs->n; i += 2, k++) {
			struct dcio_range v = rs->r[i];

			if (i + 1 < rs->n) {
				v.hi = rs->r[i + 1].hi;
				if (!v.err)
					v.err = rs->r[i + 1].err;
			}
			rs->r[k] = v;
		}
		rs->n = k;
	}
}

/* errno of the first range intersecting [lo, hi), or 0 */
int rs_find(const struct dcio_rangeset *rs, uint64_t lo, uint64_t hi)
{
	for (size_t i = lower(rs, lo); i < rs->n && rs->r[i].lo < hi; i++)
		if (rs->r[i].hi > lo)
			return rs->r[i].err ? rs->r[i].err : -1;
	return 0;
}

/* Adds [lo, hi) only if that needs no allocation that could fail: a set that
 * must never over-approximate (ranges a flush may clear from `lost`) stays
 * exact, and misses the range instead. */
bool rs_add_exact(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi, int err)
{
	if (!grow(rs, rs->n + 2))
		return false;
	rs_add(rs, lo, hi, err);
	return true;
}

/* Adds every range of src with its own errno. */
void rs_add_set(struct dcio_rangeset *dst, const struct dcio_rangeset *src)
{
	for (size_t i = 0; i < src->n; i++)
		rs_add(dst, src->r[i].lo, src->r[i].hi, src->r[i].err);
}

void rs_merge_into(struct dcio_rangeset *dst, const struct dcio_rangeset *src,
		   int err)
{
	for (size_t i = 0; i < src->n; i++)
		rs_add(dst, src->r[i].lo, src->r[i].hi, err);
}

void rs_take(struct dcio_rangeset *dst, struct dcio_rangeset *src)
{
	rs_free(dst);
	*dst = *src;
	if (src->r == &src->one)
		dst->r = &dst->one;
	memset(src, 0, sizeof(*src));
}

uint64_t rs_bytes(const struct dcio_rangeset *rs)
{
	uint64_t n = 0;

	for (size_t i = 0; i < rs->n; i++)
		n += rs->r[i].hi - rs->r[i].lo;
	return n;
}

void rs_free(struct dcio_rangeset *rs)
{
	if (rs->r != &rs->one)
		free(rs->r);
	memset(rs, 0, sizeof(*rs));
}
