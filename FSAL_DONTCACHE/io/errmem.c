// SPDX-License-Identifier: LGPL-3.0-or-later
/* Error memory, per file (the error rule of README.md).
 *
 * Writes acknowledged since the last successful flush sit in `pending`.
 * On failure everything pending (acknowledged, unflushed) joins `lost` with
 * the errno; a range leaves `lost` only when rewritten and then covered by a
 * successful flush (`clear` holds exactly those rewrites; ranges lost while
 * the flush ran stay lost), or when a truncate cuts it off. A write in flight
 * when an error is recorded joins `lost` when acknowledged: the failing
 * syscall may have consumed the report of its own pages' writeback; a failed
 * write, or a write lost in flight, asks group commit for one more flush (a
 * settle), so that their pages' late writeback errors are not charged to
 * writes acknowledged afterwards. A write refused for lack of space or quota
 * (ENOSPC/EDQUOT from the write itself) consumed no such report, and its
 * client saw it fail: it leaves nothing here. Everything here is under the
 * file's gc.mu. */
#include <errno.h>

#include "core.h"
#include "errmem.h"

/* A failed write may have dirtied pages, and a write lost in flight may still
 * be under writeback: one more flush now charges their writeback errors to
 * this loss instead of to writes acknowledged later (errseq reports an error
 * to the next fsync, whoever wrote the pages). */
void em_want_settle(struct dcio_file *f)
{
	f->gc.settle = true;
	if (!f->gc.flushing)
		file_post_gc(f);
}

void em_note_error(struct dcio_file *f, int err)
{
	f->em.unreported = err;
	f->em.last_err = err;
	__atomic_add_fetch(&f->em.err_gen, 1, __ATOMIC_SEQ_CST);
	stat_error(&f->x->st, err);
	export_note_error(f->x, err);
}

/* Every range that becomes lost goes through here: a flush or truncate
 * running now must not clear it, and a rewrite noted before (in `clear`) no
 * longer stands for it. Bounded: past DCIO_LOST_CAP ranges neighbours
 * merge (rs_bound: more is lost, never less). Without memory each set
 * over-approximates, and `clear` shrinks instead (a good flush then clears
 * less). */
void em_lose(struct dcio_file *f, uint64_t lo, uint64_t hi, int err)
{
	rs_add(&f->em.lost, lo, hi, err);
	rs_bound(&f->em.lost, DCIO_LOST_CAP);
	rs_sub_shrink(&f->em.clear, lo, hi);
	if (f->gc.flushing) {
		rs_add(&f->em.relost, lo, hi, err);
		rs_bound(&f->em.relost, DCIO_LOST_CAP);
	}
	if (f->em.trunc_busy) {
		rs_add(&f->em.trunc_lost, lo, hi, err);
		rs_bound(&f->em.trunc_lost, DCIO_LOST_CAP);
	}
}

void em_lose_pending(struct dcio_file *f, int err)
{
	for (size_t i = 0; i < f->em.pending.n; i++)
		em_lose(f, f->em.pending.r[i].lo, f->em.pending.r[i].hi, err);
	rs_free(&f->em.pending);
	rs_free(&f->em.clear);
	f->gc.flushed_seq = f->gc.write_seq;
}

/* The parts of [lo, hi) that rewrite lost ranges go to `clear`. Past the
 * bound (or without memory) they are not recorded, so a flush clears less:
 * a flush is started instead, which empties `clear`. */
static void note_rewrite(struct dcio_file *f, uint64_t lo, uint64_t hi)
{
	const struct dcio_rangeset *l = &f->em.lost;

	for (size_t i = 0; i < l->n; i++) {
		if (l->r[i].hi <= lo)
			continue;
		if (l->r[i].lo >= hi)
			break;
		uint64_t a = l->r[i].lo > lo ? l->r[i].lo : lo;
		uint64_t b = l->r[i].hi < hi ? l->r[i].hi : hi;

		if (f->em.clear.n >= DCIO_PENDING_CAP ||
		    !rs_add_exact(&f->em.clear, a, b, 0))
			break;
	}
	if (f->em.clear.n >= DCIO_PENDING_CAP / 2)
		em_want_settle(f);
}

uint64_t em_write_begin(struct dcio_file *f)
{
	return __atomic_load_n(&f->em.err_gen, __ATOMIC_SEQ_CST);
}

void em_acked(struct dcio_file *f, uint64_t off, uint64_t len, uint64_t gen)
{
	pthread_mutex_lock(&f->gc.mu);
	f->gc.write_seq++;
	if (gen != f->em.err_gen) {
		em_lose(f, off, write_end(off, len), f->em.last_err);
		ST_ADD(f->x->st.gc_lost_inflight, 1);
		em_want_settle(f);
		pthread_mutex_unlock(&f->gc.mu);
		return;
	}
	rs_add(&f->em.pending, off, write_end(off, len), 0);
	if (f->em.trunc_busy) {
		rs_add(&f->em.trunc_acked, off, write_end(off, len), 0);
		rs_bound(&f->em.trunc_acked, DCIO_PENDING_CAP);
	}
	if (f->em.lost.n)
		note_rewrite(f, off, write_end(off, len));
	/* pending may over-approximate (a failed flush loses a little more);
	 * what a good flush clears from `lost` is `clear`, kept exact */
	if (f->em.pending.n > DCIO_PENDING_CAP)
		rs_collapse(&f->em.pending);
	pthread_mutex_unlock(&f->gc.mu);
}

/* Errors that say nothing about data already written (a bad request) fail
 * just that write. */
static bool loses_data(int err)
{
	switch (err) {
	case EBADF:
	case EINVAL:
	case EFAULT:
	case EFBIG:
	case EPERM:
	case EACCES:
	case EOVERFLOW:
	case ENOMEM:
		return false;
	default:
		return true;
	}
}

/* The write itself was refused for lack of space or quota: the kernel kept
 * every page it had accepted before, and no writeback report was consumed.
 * The client was told the write failed: nothing is remembered, nothing is
 * settled (pages a partial refusal dirtied that then fail their writeback
 * fail the next flush, whose pending ranges are lost: more, never less). */
static bool refused(int err)
{
	return err == ENOSPC || err == EDQUOT;
}

void em_write_error(struct dcio_file *f, uint64_t off, uint64_t len, int err)
{
	if (!loses_data(err) || refused(err)) {
		stat_error(&f->x->st, err);
		return;
	}
	pthread_mutex_lock(&f->gc.mu);
	rs_add(&f->em.pending, off, write_end(off, len), 0);
	em_lose_pending(f, err);
	em_note_error(f, err);
	em_want_settle(f);
	pthread_mutex_unlock(&f->gc.mu);
}

void em_sync_file_range(struct dcio_file *f, uint64_t off, uint64_t len,
			unsigned int how)
{
	int err;

	pthread_mutex_lock(&f->gc.mu);
	f->em.sfr_busy++;
	pthread_mutex_unlock(&f->gc.mu);
	err = f->e->sys.sync_file_range(f->fd, (off_t)off, (off_t)len, how) < 0
		      ? errno
		      : 0;
	pthread_mutex_lock(&f->gc.mu);
	if (err) {
		/* pending pages elsewhere may still be under writeback */
		bool late = f->em.pending.n != 0;

		em_lose_pending(f, err);
		em_note_error(f, err);
		if (f->gc.flushing)
			f->em.flush_taint = err;
		if (late)
			em_want_settle(f);
	}
	if (--f->em.sfr_busy == 0)
		pthread_cond_broadcast(&f->gc.cv);
	pthread_mutex_unlock(&f->gc.mu);
}

int em_take_unreported(struct dcio_file *f)
{
	pthread_mutex_lock(&f->gc.mu);
	int err = f->em.unreported;

	f->em.unreported = 0;
	pthread_mutex_unlock(&f->gc.mu);
	return err;
}

/* errno of the first lost range, or 0 */
int em_lost_err(struct dcio_file *f)
{
	pthread_mutex_lock(&f->gc.mu);
	int err = f->em.lost.n ? f->em.lost.r[0].err : 0;

	pthread_mutex_unlock(&f->gc.mu);
	return err;
}

/* A truncate to size: what lies past it is gone, lost or not, except ranges
 * acknowledged or lost while the truncate ran (they may be later). */
void em_truncate_begin(struct dcio_file *f)
{
	pthread_mutex_lock(&f->gc.mu);
	f->em.trunc_busy++;
	pthread_mutex_unlock(&f->gc.mu);
}

void em_truncate_end(struct dcio_file *f, uint64_t size, bool done)
{
	pthread_mutex_lock(&f->gc.mu);
	if (done) {
		rs_sub(&f->em.pending, size, UINT64_MAX);
		rs_add_set(&f->em.pending, &f->em.trunc_acked);
		rs_sub_shrink(&f->em.clear, size, UINT64_MAX);
		rs_sub(&f->em.lost, size, UINT64_MAX);
		rs_add_set(&f->em.lost, &f->em.trunc_lost);
		rs_sub(&f->em.relost, size, UINT64_MAX);
		rs_add_set(&f->em.relost, &f->em.trunc_lost);
	}
	if (--f->em.trunc_busy == 0) {
		rs_free(&f->em.trunc_acked);
		rs_free(&f->em.trunc_lost);
	}
	pthread_mutex_unlock(&f->gc.mu);
}
void em_fini(struct dcio_file *f)
{
	rs_free(&f->em.pending);
	rs_free(&f->em.lost);
	rs_free(&f->em.clear);
	rs_free(&f->em.flush_clear);
	rs_free(&f->em.relost);
	rs_free(&f->em.flush_pending);
	rs_free(&f->em.trunc_acked);
	rs_free(&f->em.trunc_lost);
}
