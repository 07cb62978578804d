/* Group commit and error memory, per file.
 *
 * Writes acknowledged since the last successful flush sit in `pending`.
 * A flush (fdatasync, or fsync when any member asked for FILE_SYNC) serves
 * every waiter queued before it started; the leader is whichever COMMIT
 * caller finds no flush running, or a pool job for stable writes.
 * On failure everything pending (acknowledged, unflushed) joins `lost` with
 * the errno; a range leaves `lost` only when rewritten and then covered by a
 * successful flush (`clear` holds exactly those rewrites; ranges lost while
 * the flush ran stay lost), or when a truncate cuts it off. A write in flight
 * when an error is recorded joins `lost` when acknowledged: the failing
 * syscall may have consumed the report of its own pages' writeback; a failed
 * flush during which writes were acknowledged is followed by one more flush
 * (a settle), so that their pages' late writeback errors are not charged to
 * writes acknowledged afterwards. A write refused for lack of space or quota
 * (ENOSPC/EDQUOT from the write itself) consumed no such report: only its
 * own range is lost. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "dcio_int.h"

static uint64_t range_end(uint64_t off, uint64_t len)
{
	return len == 0 || off + len < off ? UINT64_MAX : off + len;
}

/* A write's range (a zero-length write still marks its offset). */
static uint64_t write_end(uint64_t off, uint64_t len)
{
	return range_end(off, len ? len : 1);
}

static void post_job(struct dcio_file *f)
{
	if (f->job_posted)
		return;
	f->job_posted = true;
	file_get(f);
	pool_post(&f->e->pool, &f->gc_job);
}

/* A failed write may have dirtied pages, and a write lost in flight may still
 * be under writeback: one more flush now charges their writeback errors to
 * this loss instead of to writes acknowledged later (errseq reports an error
 * to the next fsync, whoever wrote the pages). */
static void want_settle(struct dcio_file *f)
{
	f->settle = true;
	if (!f->flushing)
		post_job(f);
}

static void note_error(struct dcio_file *f, int err)
{
	f->unreported = err;
	f->last_err = err;
	__atomic_add_fetch(&f->err_gen, 1, __ATOMIC_SEQ_CST);
	stat_error(&f->x->st, err);
	export_note_error(f->x, err);
}

/* Every range that becomes lost goes through here: a flush or truncate
 * running now must not clear it. */
static void lose(struct dcio_file *f, uint64_t lo, uint64_t hi, int err)
{
	rs_add(&f->lost, lo, hi, err);
	if (f->flushing)
		rs_add(&f->relost, lo, hi, err);
	if (f->trunc_busy)
		rs_add(&f->trunc_lost, lo, hi, err);
}

static void lose_pending(struct dcio_file *f, int err)
{
	for (size_t i = 0; i < f->pending.n; i++)
		lose(f, f->pending.r[i].lo, f->pending.r[i].hi, err);
	rs_free(&f->pending);
	rs_free(&f->clear);
	f->flushed_seq = f->write_seq;
}

/* The parts of [lo, hi) that rewrite lost ranges go to `clear`. Past the
 * bound (or without memory) they are not recorded, so a flush clears less:
 * a flush is started instead, which empties `clear`. */
static void note_rewrite(struct dcio_file *f, uint64_t lo, uint64_t hi)
{
	const struct dcio_rangeset *l = &f->lost;

	for (size_t i = 0; i < l->n; i++) {
		if (l->r[i].hi <= lo)
			continue;
		if (l->r[i].lo >= hi)
			break;
		uint64_t a = l->r[i].lo > lo ? l->r[i].lo : lo;
		uint64_t b = l->r[i].hi < hi ? l->r[i].hi : hi;
		if (f->clear.n >= DCIO_PENDING_CAP ||
		    !rs_add_exact(&f->clear, a, b, 0))
			break;
	}
	if (f->clear.n >= DCIO_PENDING_CAP / 2)
		want_settle(f);
}

uint64_t gc_write_begin(struct dcio_file *f)
{
	return __atomic_load_n(&f->err_gen, __ATOMIC_SEQ_CST);
}

void gc_acked(struct dcio_file *f, uint64_t off, uint64_t len, uint64_t gen)
{
	pthread_mutex_lock(&f->gc_mu);
	f->write_seq++;
	if (gen != f->err_gen) {
		lose(f, off, write_end(off, len), f->last_err);
		ST_ADD(f->x->st.gc_lost_inflight, 1);
		want_settle(f);
		pthread_mutex_unlock(&f->gc_mu);
		return;
	}
	rs_add(&f->pending, off, write_end(off, len), 0);
	if (f->trunc_busy)
		rs_add(&f->trunc_acked, off, write_end(off, len), 0);
	if (f->lost.n)
		note_rewrite(f, off, write_end(off, len));
	/* pending may over-approximate (a failed flush loses a little more);
	 * what a good flush clears from `lost` is `clear`, kept exact */
	if (f->pending.n > DCIO_PENDING_CAP)
		rs_collapse(&f->pending);
	pthread_mutex_unlock(&f->gc_mu);
}

/* Errors that say nothing about data already written (a bad request) fail
 * just that write. */
static bool loses_data(int err)
{
	switch (err) {
	case EBADF: case EINVAL: case EFAULT: case EFBIG: case EPERM: case EACCES:
	case EOVERFLOW: case ENOMEM:
		return false;
	default:
		return true;
	}
}

/* The write itself was refused for lack of space or quota: the kernel kept
 * every page it had accepted before, and no writeback report was consumed. */
static bool refused(int err)
{
	return err == ENOSPC || err == EDQUOT;
}

void gc_write_error(struct dcio_file *f, uint64_t off, uint64_t len, int err)
{
	if (!loses_data(err)) {
		stat_error(&f->x->st, err);
		return;
	}
	pthread_mutex_lock(&f->gc_mu);
	if (refused(err)) {
		/* its own range may be partly written: lost, and settled (its
		 * pages' writeback errors are not charged to later writes) */
		stat_error(&f->x->st, err);
		lose(f, off, write_end(off, len), err);
	} else {
		rs_add(&f->pending, off, write_end(off, len), 0);
		lose_pending(f, err);
		note_error(f, err);
	}
	want_settle(f);
	pthread_mutex_unlock(&f->gc_mu);
}

void gc_flush_error(struct dcio_file *f, int err)
{
	pthread_mutex_lock(&f->gc_mu);
	lose_pending(f, err);
	note_error(f, err);
	pthread_mutex_unlock(&f->gc_mu);
}

void gc_sfr_begin(struct dcio_file *f)
{
	pthread_mutex_lock(&f->gc_mu);
	f->sfr_busy++;
	pthread_mutex_unlock(&f->gc_mu);
}

void gc_sfr_end(struct dcio_file *f, int err)
{
	pthread_mutex_lock(&f->gc_mu);
	if (err) {
		/* pending pages elsewhere may still be under writeback */
		bool late = f->pending.n != 0;

		lose_pending(f, err);
		note_error(f, err);
		if (f->flushing)
			f->flush_taint = err;
		if (late)
			want_settle(f);
	}
	if (--f->sfr_busy == 0)
		pthread_cond_broadcast(&f->gc_cv);
	pthread_mutex_unlock(&f->gc_mu);
}

bool gc_dirty(struct dcio_file *f)
{
	pthread_mutex_lock(&f->gc_mu);
	bool d = f->write_seq != f->flushed_seq;
	pthread_mutex_unlock(&f->gc_mu);
	return d;
}

int gc_take_unreported(struct dcio_file *f)
{
	pthread_mutex_lock(&f->gc_mu);
	int err = f->unreported;
	f->unreported = 0;
	pthread_mutex_unlock(&f->gc_mu);
	return err;
}

static void enqueue(struct dcio_file *f, struct gc_waiter *w)
{
	w->next = NULL;
	*f->wt = w;
	f->wt = &w->next;
}

static bool has_sync_waiter(struct dcio_file *f)
{
	for (struct gc_waiter *w = f->wh; w; w = w->next)
		if (!w->req)
			return true;
	return false;
}

/* Runs one batch; called and returns with gc_mu held, !flushing. */
static void run_batch(struct dcio_file *f)
{
	struct dcio_export *x = f->x;
	const struct dcio_syscalls *s = &f->e->sys;
	struct gc_waiter *batch = f->wh;
	struct dcio_rangeset snap = { 0 };
	uint64_t covered = f->write_seq, n = 0;
	bool fsync = false;

	f->wh = NULL;
	f->wt = &f->wh;
	for (struct gc_waiter *w = batch; w; w = w->next) {
		fsync |= w->fsync;
		n++;
	}
	rs_take(&snap, &f->pending);
	rs_take(&f->flush_clear, &f->clear);
	rs_free(&f->relost);
	if (f->settle && !n)
		ST_ADD(x->st.gc_settles, 1);
	f->settle = false;
	f->flushing = true;
	f->flush_fsync = fsync;
	f->flush_covered = covered;
	f->flush_taint = 0;
	pthread_mutex_unlock(&f->gc_mu);

	int r = fsync ? s->fsync(f->fd) : s->fdatasync(f->fd);
	int err = r < 0 ? errno : 0;

	pthread_mutex_lock(&f->gc_mu);
	/* A flusher sync_file_range on the same fd may have taken the kernel's
	 * report of an error in this flush's pages: wait for its result, and
	 * fail the batch with it. */
	while (f->sfr_busy > 0)
		pthread_cond_wait(&f->gc_cv, &f->gc_mu);
	bool tainted = !err && f->flush_taint;
	if (tainted)
		err = f->flush_taint;
	/* committers that found every acknowledged write already covered by
	 * this flush joined it while it ran */
	if (f->riders) {
		struct gc_waiter *w = f->riders;
		while (w->next)
			w = w->next;
		w->next = batch;
		batch = f->riders;
		f->riders = NULL;
		n = 0;
		for (w = batch; w; w = w->next)
			n++;
	}
	ST_ADD(x->st.gc_batches, 1);
	ST_ADD(x->st.gc_syscalls, 1);
	ST_ADD(x->st.gc_requests, n);
	ST_MAX(x->st.gc_max_batch, n);
	if (!err) {
		/* rewrites covered by this flush clear their lost ranges, except
		 * what was lost again while it ran */
		for (size_t i = 0; i < f->flush_clear.n; i++)
			rs_sub(&f->lost, f->flush_clear.r[i].lo, f->flush_clear.r[i].hi);
		rs_add_set(&f->lost, &f->relost);
		if (covered > f->flushed_seq)
			f->flushed_seq = covered;
		rs_free(&snap);
	} else {
		/* writes acknowledged while it ran may still be under writeback:
		 * their pages' errors must reach a flush now, not one of later
		 * writes (which would then be lost to them) */
		bool late = f->write_seq != covered;

		rs_merge_into(&f->pending, &snap, 0);
		rs_free(&snap);
		lose_pending(f, err);
		if (!tainted)	/* else gc_sfr_end noted it */
			note_error(f, err);
		if (late)
			want_settle(f);
		if (n)
			f->unreported = 0;
	}
	rs_free(&f->flush_clear);
	rs_free(&f->relost);
	f->flushing = false;

	struct gc_waiter *async = NULL, **at = &async;
	for (struct gc_waiter *w = batch, *nx; w; w = nx) {
		nx = w->next;
		w->err = err;
		w->done = true;
		if (w->req) {
			/* its range may have been lost before this flush began */
			if (!err) {
				struct dcio_req *q = w->req;
				w->err = rs_find(&f->lost, q->off, write_end(q->off, q->len));
				if (w->err)
					ST_ADD(x->st.gc_lost_reports, 1);
			}
			*at = w;
			at = &w->next;
			w->next = NULL;
		}
	}
	if ((f->wh && !has_sync_waiter(f)) || (f->settle && !f->wh))
		post_job(f);
	pthread_cond_broadcast(&f->gc_cv);

	if (async) {
		pthread_mutex_unlock(&f->gc_mu);
		for (struct gc_waiter *w = async, *nx; w; w = nx) {
			nx = w->next;
			req_complete(w->req, w->err);
		}
		pthread_mutex_lock(&f->gc_mu);
	}
}

static void gc_job_run(struct dcio_job *j)
{
	struct dcio_file *f = (struct dcio_file *)((char *)j - offsetof(struct dcio_file, gc_job));

	pthread_mutex_lock(&f->gc_mu);
	f->job_posted = false;
	if (!f->flushing && (f->wh || f->settle))
		run_batch(f);
	pthread_mutex_unlock(&f->gc_mu);
	file_put(f);
}

void gc_init(struct dcio_file *f)
{
	pthread_mutex_init(&f->gc_mu, NULL);
	pthread_cond_init(&f->gc_cv, NULL);
	f->wt = &f->wh;
	f->gc_job.run = gc_job_run;
}

void gc_fini(struct dcio_file *f)
{
	rs_free(&f->pending);
	rs_free(&f->lost);
	rs_free(&f->clear);
	rs_free(&f->flush_clear);
	rs_free(&f->relost);
	rs_free(&f->trunc_acked);
	rs_free(&f->trunc_lost);
	pthread_cond_destroy(&f->gc_cv);
	pthread_mutex_destroy(&f->gc_mu);
}

/* errno of the first lost range, or 0 */
int gc_lost_err(struct dcio_file *f)
{
	pthread_mutex_lock(&f->gc_mu);
	int err = f->lost.n ? f->lost.r[0].err : 0;
	pthread_mutex_unlock(&f->gc_mu);
	return err;
}

/* A truncate to size: what lies past it is gone, lost or not, except ranges
 * acknowledged or lost while the truncate ran (they may be later). */
void gc_truncate_begin(struct dcio_file *f)
{
	pthread_mutex_lock(&f->gc_mu);
	f->trunc_busy++;
	pthread_mutex_unlock(&f->gc_mu);
}

void gc_truncate_end(struct dcio_file *f, uint64_t size, bool done)
{
	pthread_mutex_lock(&f->gc_mu);
	if (done) {
		rs_sub(&f->pending, size, UINT64_MAX);
		rs_add_set(&f->pending, &f->trunc_acked);
		rs_sub(&f->clear, size, UINT64_MAX);
		rs_sub(&f->lost, size, UINT64_MAX);
		rs_add_set(&f->lost, &f->trunc_lost);
		rs_sub(&f->relost, size, UINT64_MAX);
		rs_add_set(&f->relost, &f->trunc_lost);
	}
	if (--f->trunc_busy == 0) {
		rs_free(&f->trunc_acked);
		rs_free(&f->trunc_lost);
	}
	pthread_mutex_unlock(&f->gc_mu);
}

/* A stable write whose data is written: completes after a covering flush. */
void gc_join_async(struct dcio_file *f, struct dcio_req *q)
{
	q->w.req = q;
	q->w.fsync = q->stable == DCIO_FILE_SYNC;
	q->w.done = false;
	pthread_mutex_lock(&f->gc_mu);
	enqueue(f, &q->w);
	if (!f->flushing)
		post_job(f);
	pthread_mutex_unlock(&f->gc_mu);
}

/* Synchronous commit. force: flush even if nothing is pending (a stable write
 * that was just acknowledged). check_lost: also fail on remembered lost ranges
 * in [off, off+len). */
int gc_commit(struct dcio_file *f, uint64_t off, uint64_t len, bool fsync, bool force, bool check_lost)
{
	struct dcio_export *x = f->x;
	uint64_t t0 = now_ns();
	struct gc_waiter w = { .fsync = fsync };
	int err;

	pthread_mutex_lock(&f->gc_mu);
	while (f->sfr_busy > 0)
		pthread_cond_wait(&f->gc_cv, &f->gc_mu);
	if (!force && f->write_seq == f->flushed_seq) {
		ST_ADD(x->st.gc_nodirty, 1);
	} else if (f->flushing && f->write_seq == f->flush_covered && (f->flush_fsync || !fsync) && !force) {
		w.next = f->riders;
		f->riders = &w;
		while (!w.done)
			pthread_cond_wait(&f->gc_cv, &f->gc_mu);
	} else {
		enqueue(f, &w);
		while (!w.done) {
			if (!f->flushing)
				run_batch(f);
			else
				pthread_cond_wait(&f->gc_cv, &f->gc_mu);
		}
	}
	err = w.err;
	if (!err && check_lost) {
		err = rs_find(&f->lost, off, range_end(off, len));
		if (err)
			ST_ADD(x->st.gc_lost_reports, 1);
	}
	if (err)
		f->unreported = 0;
	pthread_mutex_unlock(&f->gc_mu);
	hist_add(&x->st.lat_c, now_ns() - t0);
	return err;
}

int dcio_commit(struct dcio_file *f, uint64_t offset, uint64_t len)
{
	if (!f)
		return EINVAL;
	return gc_commit(f, offset, len, false, false, true);
}
