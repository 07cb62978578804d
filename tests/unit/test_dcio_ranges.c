// SPDX-License-Identifier: LGPL-3.0-or-later
/* Range sets behind lost-range memory and flusher batching: random add/sub/find against a byte-map model, merging, errno replacement. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dcio_testlib.h"
#include "io/core.h"
#include "io/errmem.h"
#include "io/ranges.h"

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

/* The allocation seam: while fail_allocs is set every (re)allocation of a
 * range set fails. */
static bool fail_allocs;
static int fail_next; /* fail only the next n allocations */

static void *fake_realloc(void *p, size_t size)
{
	if (fail_next > 0) {
		fail_next--;
		return NULL;
	}
	return fail_allocs ? NULL : realloc(p, size);
}

static void no_memory(bool on)
{
	dcio_rs_realloc = fake_realloc;
	fail_allocs = on;
}

/* A file's error memory alone (em_lose and em_acked touch nothing else). */
static void em_file(struct dcio_file *f)
{
	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->gc.mu, NULL);
}

static void em_file_fini(struct dcio_file *f)
{
	em_fini(f);
	pthread_mutex_destroy(&f->gc.mu);
}

/* Losing a range inside a rewrite noted in `clear` splits it; without memory
 * for the split `clear` must shrink, never widen (a later good flush removes
 * `clear` from `lost`: a widened one would clear the range just lost, and
 * ranges never rewritten). */
static void t_enomem_clear(void)
{
	struct dcio_file f;

	em_file(&f);
	rs_add(&f.em.lost, 0, 800, EIO);
	for (uint64_t i = 0; i < 8; i++)
		rs_add(&f.em.clear, i * 100, i * 100 + 50, 0);
	CU_ASSERT_EQUAL_FATAL(f.em.clear.n, f.em.clear.cap);
	no_memory(true);
	em_lose(&f, 10, 20, EIO);
	no_memory(false);
	CU_ASSERT_EQUAL(rs_find(&f.em.lost, 10, 20), EIO);
	CU_ASSERT_EQUAL(rs_find(&f.em.clear, 10, 20), 0);
	/* never rewritten: a gap of clear stays out of it */
	CU_ASSERT_EQUAL(rs_find(&f.em.clear, 60, 90), 0);
	CU_ASSERT_EQUAL(rs_find(&f.em.clear, 750, 800), 0);
	/* what it still holds are rewrites */
	for (size_t i = 0; i < f.em.clear.n; i++)
		CU_ASSERT(f.em.clear.r[i].lo % 100 < 50 &&
			  f.em.clear.r[i].hi - f.em.clear.r[i].lo <= 50);
	em_file_fini(&f);
}

/* Without memory for its first range a set still remembers it: a loss (also
 * one kept from a running flush or truncate), and an acknowledged write
 * (pending: a failing flush must lose it). */
static void t_enomem_first_range(void)
{
	struct dcio_file f;

	em_file(&f);
	f.gc.flushing = true;
	f.em.trunc_busy = 1;
	no_memory(true);
	em_lose(&f, 10, 20, EIO);
	em_acked(&f, 4096, 512, em_write_begin(&f));
	no_memory(false);
	CU_ASSERT_EQUAL(rs_find(&f.em.lost, 10, 20), EIO);
	CU_ASSERT_EQUAL(rs_find(&f.em.relost, 10, 20), EIO);
	CU_ASSERT_EQUAL(rs_find(&f.em.trunc_lost, 10, 20), EIO);
	CU_ASSERT_EQUAL(rs_find(&f.em.pending, 4096, 4608), -1);
	CU_ASSERT_EQUAL(rs_find(&f.em.trunc_acked, 4096, 4608), -1);
	/* the set grows from there once memory is back */
	em_lose(&f, 100, 200, EIO);
	em_lose(&f, 300, 400, EIO);
	CU_ASSERT_EQUAL(rs_find(&f.em.lost, 10, 20), EIO);
	CU_ASSERT_EQUAL(rs_find(&f.em.lost, 300, 301), EIO);
	CU_ASSERT_EQUAL(rs_find(&f.em.lost, 250, 260), 0);
	em_file_fini(&f);
}

/* Random operations with every other allocation failing: rs_add and rs_sub
 * leave a set holding at least the model (more, never less), rs_sub_shrink
 * one holding at most the model, and rs_bound fewer than max ranges,
 * holding at least what it held. */
static void t_model_no_memory(void)
{
	unsigned seed = 7;

	for (int round = 0; round < 40; round++) {
		struct dcio_rangeset over = { 0 }, under = { 0 };
		static int mo[SPAN], mu[SPAN];
		int bad = 0;

		memset(mo, 0, sizeof(mo));
		memset(mu, 0, sizeof(mu));
		for (int op = 0; op < 300; op++) {
			uint64_t lo = rnd(&seed) % SPAN,
				 len = 1 + rnd(&seed) % 64;
			uint64_t hi = lo + len > SPAN ? SPAN : lo + len;
			bool add = rnd(&seed) % 3 != 0;

			no_memory(rnd(&seed) % 2 == 0);
			if (add) {
				rs_add(&over, lo, hi, EIO);
				for (uint64_t b = lo; b < hi; b++)
					mo[b] = 1;
				/* the exact set adds only with memory */
				if (rs_add_exact(&under, lo, hi, 0))
					for (uint64_t b = lo; b < hi; b++)
						mu[b] = 1;
			} else {
				rs_sub(&over, lo, hi);
				rs_sub_shrink(&under, lo, hi);
				for (uint64_t b = lo; b < hi; b++)
					mo[b] = mu[b] = 0;
			}
			no_memory(false);
			/* over holds every byte of mo; under none outside mu */
			for (uint64_t b = 0; b < SPAN; b++) {
				if (mo[b] && !rs_find(&over, b, b + 1))
					bad++;
				if (!mu[b] && rs_find(&under, b, b + 1))
					bad++;
				/* what under no longer holds is gone from mu */
				if (mu[b] && !rs_find(&under, b, b + 1))
					mu[b] = 0;
			}
		}
		CU_ASSERT_EQUAL(bad, 0);
		size_t n = over.n;
		rs_bound(&over, 4);
		CU_ASSERT(over.n < 4 && (n < 4 || over.n <= (n + 1) / 2));
		for (uint64_t b = 0; b < SPAN; b++)
			if (mo[b] && !rs_find(&over, b, b + 1))
				bad++;
		CU_ASSERT_EQUAL(bad, 0);
		rs_free(&over);
		rs_free(&under);
	}
}

/* A lost range inside a pending one whose split finds no memory, the next
 * allocation succeeding: the set must stay sorted and disjoint (rs_find and
 * rs_bound rely on it), and every byte of the loss must be found as lost,
 * never as the pending range's 0. */
static void t_enomem_split_once(void)
{
	struct dcio_rangeset rs = { 0 };
	int bad = 0;

	/* a full set: the split needs a larger array */
	for (uint64_t i = 0; i < 8; i++)
		rs_add(&rs, i * 1000, i * 1000 + 900, 0);
	CU_ASSERT_EQUAL_FATAL(rs.n, rs.cap);
	no_memory(false);
	fail_next = 1;
	rs_add(&rs, 3100, 3200, EIO);
	fail_next = 0;
	for (size_t i = 1; i < rs.n; i++)
		if (rs.r[i].lo < rs.r[i - 1].hi)
			bad++;
	CU_ASSERT_EQUAL(bad, 0);
	for (uint64_t b = 3100; b < 3200; b++)
		if (rs_find(&rs, b, b + 1) != EIO)
			bad++;
	CU_ASSERT_EQUAL(bad, 0);
	/* a COMMIT of the range around it is answered with the loss */
	CU_ASSERT_EQUAL(rs_find(&rs, 3000, 3900), EIO);
	/* nothing acknowledged was forgotten */
	for (uint64_t i = 0; i < 8; i++)
		CU_ASSERT_NOT_EQUAL(rs_find(&rs, i * 1000, i * 1000 + 900), 0);
	rs_free(&rs);

	/* the same for every allocation that may fail first, one at a time */
	for (int k = 1; k <= 3; k++) {
		struct dcio_rangeset s = { 0 };

		for (uint64_t i = 0; i < 8; i++)
			rs_add(&s, i * 1000, i * 1000 + 900, 0);
		fail_next = k;
		rs_add(&s, 5100, 5200, ENOSPC);
		rs_add(&s, 5300, 5400, EIO);
		fail_next = 0;
		for (size_t i = 1; i < s.n; i++)
			if (s.r[i].lo < s.r[i - 1].hi)
				bad++;
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT(rs_find(&s, 5100, 5200) > 0);
		CU_ASSERT(rs_find(&s, 5300, 5400) > 0);
		rs_free(&s);
	}
}

static const struct tl_case cases[] = {
	{ "basics", t_basics },
	{ "random operations against a model", t_model },
	{ "no memory to split clear: it shrinks", t_enomem_clear },
	{ "no memory for a first range: still remembered",
	  t_enomem_first_range },
	{ "random operations without memory: toward lost", t_model_no_memory },
	{ "a split without memory, then memory: still sorted, lost",
	  t_enomem_split_once },
};

int main(void)
{
	return TL_RUN_SUITE("ranges", cases);
}
