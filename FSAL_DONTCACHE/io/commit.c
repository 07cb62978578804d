/* Group commit and error memory, per file.
 *
 * Writes acknowledged since the last successful flush sit in `pending`.
 * A flush (fdatasync, or fsync when any member asked for FILE_SYNC) serves
 * every waiter queued before it started; the leader is whichever COMMIT
 * caller finds no flush running, or a pool job for stable writes.
 * On failure everything pending (acknowledged, unflushed) joins `lost` with
 * the errno; a range leaves `lost` only when rewritten and then covered by a
 * successful flush. A write in flight when an error is recorded joins `lost`
 * when acknowledged: the failing syscall may have consumed the report of its
 * own pages' writeback. */
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

static void lose_pending(struct dcio_file *f, int err)
{
	rs_merge_into(&f->lost, &f->pending, err);
	rs_free(&f->pending);
	f->flushed_seq = f->write_seq;
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
		rs_add(&f->lost, off, write_end(off, len), f->last_err);
		ST_ADD(f->x->st.gc_lost_inflight, 1);
		want_settle(f);
		pthread_mutex_unlock(&f->gc_mu);
		return;
	}
	rs_add(&f->pending, off, write_end(off, len), 0);
	/* over-approximating pending is only safe while nothing is lost:
	 * a successful flush removes pending ranges from `lost` */
	if (f->pending.n > DCIO_PENDING_CAP && f->lost.n == 0)
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

void gc_write_error(struct dcio_file *f, uint64_t off, uint64_t len, int err)
{
	if (!loses_data(err)) {
		stat_error(&f->x->st, err);
		return;
	}
	pthread_mutex_lock(&f->gc_mu);
	rs_add(&f->pending, off, write_end(off, len), 0);
	lose_pending(f, err);
	note_error(f, err);
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
		lose_pending(f, err);
		note_error(f, err);
		if (f->flushing)
			f->flush_taint = err;
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
		for (size_t i = 0; i < snap.n; i++)
			rs_sub(&f->lost, snap.r[i].lo, snap.r[i].hi);
		if (covered > f->flushed_seq)
			f->flushed_seq = covered;
		rs_free(&snap);
	} else {
		rs_merge_into(&f->pending, &snap, 0);
		rs_free(&snap);
		lose_pending(f, err);
		if (!tainted)	/* else gc_sfr_end noted it */
			note_error(f, err);
		if (n)
			f->unreported = 0;
	}
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
