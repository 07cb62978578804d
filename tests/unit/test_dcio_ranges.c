// SPDX-License-Identifier: LGPL-3.0-or-later
/* Range sets behind lost-range memory and flusher batching: random add/sub/find against a byte-map model, merging, errno replacement. */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "dcio_testlib.h"
#include "io/engine.h"

#define SPAN 2048

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static bool matches(const struct dcio_rangeset *rs, const int *model)
{
	int got[SPAN] = { 0 };
	for (size_t i = 0; i < rs->n; i++) {
		if (rs->r[i].lo >= rs->r[i].hi || rs->r[i].hi > SPAN)
			return false;
		if (i && rs->r[i].lo < rs->r[i - 1].hi)
			return false; /* sorted, disjoint */
		if (i && rs->r[i].lo == rs->r[i - 1].hi &&
		    rs->r[i].err == rs->r[i - 1].err)
			return false; /* touching equals are merged */
		for (uint64_t b = rs->r[i].lo; b < rs->r[i].hi; b++)
			got[b] = rs->r[i].err ? rs->r[i].err : -1;
	}
	return memcmp(got, model, sizeof(got)) == 0;
}

static void t_model(void)
{
	unsigned seed = 1;
	for (int round = 0; round < 50; round++) {
		struct dcio_rangeset rs = { 0 };
		int model[SPAN] = { 0 };
		int bad = 0;
		for (int op = 0; op < 400; op++) {
			uint64_t lo = rnd(&seed) % SPAN,
				 len = 1 + rnd(&seed) % 64;
			uint64_t hi = lo + len > SPAN ? SPAN : lo + len;
			unsigned kind = rnd(&seed) % 3;
			if (kind == 0) {
				int err = (int)(rnd(&seed) % 3);
				rs_add(&rs, lo, hi, err);
				for (uint64_t b = lo; b < hi; b++)
					model[b] = err ? err : -1;
			} else if (kind == 1) {
				rs_sub(&rs, lo, hi);
				for (uint64_t b = lo; b < hi; b++)
					model[b] = 0;
			} else {
				int want = 0;
				for (uint64_t b = lo; b < hi && !want; b++)
					want = model[b];
				int got = rs_find(&rs, lo, hi);
				bad += (want != 0) != (got != 0);
			}
			bad += !matches(&rs, model);
		}
		CU_ASSERT_EQUAL(bad, 0);
		rs_free(&rs);
	}
}

static void t_basics(void)
{
	struct dcio_rangeset rs = { 0 };
	rs_add(&rs, 0, 10, 0);
	rs_add(&rs, 10, 20, 0);
	CU_ASSERT_EQUAL(rs.n, 1);
	CU_ASSERT_EQUAL(rs_bytes(&rs), 20);
	rs_sub(&rs, 5, 15);
	CU_ASSERT_EQUAL(rs.n, 2);
	CU_ASSERT_EQUAL(rs_bytes(&rs), 10);
	CU_ASSERT_EQUAL(rs_find(&rs, 5, 15), 0);
	CU_ASSERT_NOT_EQUAL(rs_find(&rs, 4, 6), 0);
	rs_add(&rs, 0, 100, 5);
	CU_ASSERT_EQUAL(rs.n, 1);
	CU_ASSERT_EQUAL(rs_find(&rs, 50, 51), 5);
	rs_add(&rs, 40, 60, 28);
	CU_ASSERT_EQUAL(rs.n, 3);
	CU_ASSERT_EQUAL(rs_find(&rs, 59, 70), 28);
	CU_ASSERT_EQUAL(rs_find(&rs, 60, 70), 5);
	struct dcio_rangeset other = { 0 };
	rs_merge_into(&other, &rs, 7);
	CU_ASSERT_EQUAL(other.n, 1);
	CU_ASSERT_EQUAL(rs_find(&other, 0, 1), 7);
	rs_collapse(&rs);
	CU_ASSERT_EQUAL(rs.n, 1);
	CU_ASSERT_EQUAL(rs_bytes(&rs), 100);
	rs_free(&rs);
	rs_free(&other);
}

static const struct tl_case cases[] = {
	{ "basics", t_basics },
	{ "random operations against a model", t_model },
};

int main(void)
{
	return TL_RUN_SUITE("ranges", cases);
}
