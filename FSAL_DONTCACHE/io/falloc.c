// SPDX-License-Identifier: LGPL-3.0-or-later
/* ALLOCATE and DEALLOCATE: fallocate(2) on an engine file, after the engine
 * writes of the range that are still in flight, recorded in the file's
 * error memory like a write of the range.
 *
 * Every write is tracked from dcio_write until its data syscalls are done
 * and its range is recorded (pending, or lost): a punch must not run while
 * such a write of its range is still on its way, or the write's bytes could
 * land after the hole, or before it and be dropped unrecorded. Writes that
 * arrive while a fallocate waits are not waited for (they are concurrent with
 * it; the kernel orders the two syscalls). */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <time.h>

#include "core.h"
#include "errmem.h"
#include "falloc.h"
#include "ranges.h"
#include "req_types.h"
#include "util.h"

void falloc_track(struct dcio_req *q)
{
	struct dcio_file *f = q->f;

	pthread_mutex_lock(&f->mu);
	q->wr_seq = ++f->wr_seq;
	q->wr_next = NULL;
	q->wr_prev = f->wr_tail;
	if (f->wr_tail)
		f->wr_tail->wr_next = q;
	else
		f->wr_head = q;
	f->wr_tail = q;
	pthread_mutex_unlock(&f->mu);
}

void falloc_untrack(struct dcio_req *q)
{
	struct dcio_file *f = q->f;

	pthread_mutex_lock(&f->mu);
	if (q->wr_seq) {
		if (q->wr_prev)
			q->wr_prev->wr_next = q->wr_next;
		else
			f->wr_head = q->wr_next;
		if (q->wr_next)
			q->wr_next->wr_prev = q->wr_prev;
		else
			f->wr_tail = q->wr_prev;
		q->wr_seq = 0;
		if (f->fa_waiters)
			pthread_cond_broadcast(&f->cv);
	}
	pthread_mutex_unlock(&f->mu);
}

/* A write submitted up to seq that overlaps [lo, hi) is still in flight.
 * The list is in submission order. */
static bool busy(const struct dcio_file *f, uint64_t seq, uint64_t lo,
		 uint64_t hi)
{
	for (const struct dcio_req *q = f->wr_head; q && q->wr_seq <= seq;
	     q = q->wr_next)
		if (q->len && q->off < hi && lo < range_end(q->off, q->len))
			return true;
	return false;
}

/* f->cv runs on CLOCK_MONOTONIC (dcio_file_open). */
static int wait_writes(struct dcio_file *f, uint64_t lo, uint64_t hi)
{
	uint32_t ms = XP(f->x, inflight_wait_ms) > 1000
			      ? XP(f->x, inflight_wait_ms)
			      : 1000;
	struct timespec ts;
	int rc = 0;

	deadline_after(&ts, ms);
	pthread_mutex_lock(&f->mu);
	uint64_t seq = f->wr_seq;

	f->fa_waiters++;
	while (busy(f, seq, lo, hi)) {
		if (pthread_cond_timedwait(&f->cv, &f->mu, &ts) == ETIMEDOUT &&
		    busy(f, seq, lo, hi)) {
			rc = EAGAIN;
			break;
		}
	}
	f->fa_waiters--;
	pthread_mutex_unlock(&f->mu);
	return rc;
}

int dcio_falloc_check(uint64_t offset, uint64_t len)
{
	if (offset > INT64_MAX || len > INT64_MAX || len == 0)
		return EINVAL;
	if (offset + len > (uint64_t)INT64_MAX)
		return EFBIG;
	return 0;
}

/* Errors with which fallocate refuses the request before changing anything. */
static bool refused(int err)
{
	switch (err) {
	case EINVAL:
	case EFBIG:
	case EBADF:
	case EPERM:
	case EACCES:
	case EOPNOTSUPP:
	case ENODEV:
	case ESPIPE:
	case ETXTBSY:
		return true;
	default:
		return false;
	}
}

/* The parts of rs inside [lo, hi) join hit. */
static void overlap(struct dcio_rangeset *hit, const struct dcio_rangeset *rs,
		    uint64_t lo, uint64_t hi, int err)
{
	for (size_t i = 0; i < rs->n; i++) {
		uint64_t a = rs->r[i].lo > lo ? rs->r[i].lo : lo;
		uint64_t b = rs->r[i].hi < hi ? rs->r[i].hi : hi;

		if (a < b)
			rs_add(hit, a, b, err);
	}
}

/* A punch that failed half-way may have dropped dirty pages of the range
 * without writing them: the acknowledged data there that is not known to be
 * durable is lost, whether it waits for a flush or is in the snapshot of the
 * one running (which may have written the pages before the punch dropped
 * them, or not). */
static void punch_failed(struct dcio_file *f, uint64_t lo, uint64_t hi, int err)
{
	struct dcio_rangeset hit = { 0 };

	stat_error(&f->x->st, err);
	pthread_mutex_lock(&f->gc.mu);
	overlap(&hit, &f->em.pending, lo, hi, err);
	overlap(&hit, &f->em.flush_pending, lo, hi, err); /* empty: no flush */
	for (size_t i = 0; i < hit.n; i++) {
		rs_sub(&f->em.pending, hit.r[i].lo, hit.r[i].hi);
		em_lose(f, hit.r[i].lo, hit.r[i].hi, err);
	}
	pthread_mutex_unlock(&f->gc.mu);
	if (hit.n)
		export_note_error(f->x, err);
	rs_free(&hit);
}

int dcio_fallocate(struct dcio_file *f, enum dcio_falloc_op op, uint64_t offset,
		   uint64_t len)
{
	if (!f || (op != DCIO_ALLOCATE && op != DCIO_PUNCH))
		return EINVAL;
	int rc = dcio_falloc_check(offset, len);

	if (rc)
		return rc;
	uint64_t hi = offset + len;

	rc = wait_writes(f, offset, hi);
	if (rc)
		return rc;

	uint64_t gen = em_write_begin(f);
	int mode = op == DCIO_PUNCH ? FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
				    : 0;
	if (f->e->sys.fallocate(f->fd, mode, (off_t)offset, (off_t)len) != 0) {
		rc = errno;
		if (op == DCIO_PUNCH && !refused(rc))
			punch_failed(f, offset, hi, rc);
		return rc;
	}
	if (op == DCIO_PUNCH) {
		/* zeros written: pending until a flush covers them, and a
		 * flush that does makes lost data there rewritten */
		em_acked(f, offset, len, gen);
	} else {
		/* the data is unchanged (a lost range stays lost), but the new
		 * blocks and size are only durable after the next flush */
		pthread_mutex_lock(&f->gc.mu);
		f->gc.write_seq++;
		pthread_mutex_unlock(&f->gc.mu);
	}
	return 0;
}
