// SPDX-License-Identifier: LGPL-3.0-or-later
/* Group commit, per file.
 *
 * A flush (fdatasync, or fsync when any member asked for FILE_SYNC) serves
 * every waiter queued before it started; the leader is whichever COMMIT
 * caller finds no flush running, or a pool job for stable writes. A COMMIT
 * arriving while a flush runs that covers every acknowledged write rides on
 * it. The flush's result goes to the error memory (errmem.c): a failed flush
 * during which writes were acknowledged is followed by a settle flush. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "commit.h"
#include "core.h"
#include "errmem.h"
#include "ranges.h"
#include "req_types.h"

bool gc_dirty(struct dcio_file *f)
{
	pthread_mutex_lock(&f->gc.mu);
	bool d = f->gc.write_seq != f->gc.flushed_seq;

	pthread_mutex_unlock(&f->gc.mu);
	return d;
}

static void enqueue(struct dcio_file *f, struct gc_waiter *w)
{
	w->next = NULL;
	*f->gc.wt = w;
	f->gc.wt = &w->next;
}

static bool has_sync_waiter(struct dcio_file *f)
{
	for (struct gc_waiter *w = f->gc.wh; w; w = w->next)
		if (!w->req)
			return true;
	return false;
}

/* Runs one batch; called and returns with gc_mu held, !flushing. */
static void run_batch(struct dcio_file *f)
{
	struct dcio_export *x = f->x;
	const struct dcio_syscalls *s = &f->e->sys;
	struct gc_waiter *batch = f->gc.wh;
	uint64_t covered = f->gc.write_seq, n = 0;
	bool fsync = false;

	f->gc.wh = NULL;
	f->gc.wt = &f->gc.wh;
	for (struct gc_waiter *w = batch; w; w = w->next) {
		fsync |= w->fsync;
		n++;
	}
	rs_take(&f->em.flush_pending, &f->em.pending);
	rs_take(&f->em.flush_clear, &f->em.clear);
	rs_free(&f->em.relost);
	if (f->gc.settle && !n)
		ST_ADD(x->st.gc_settles, 1);
	f->gc.settle = false;
	f->gc.flushing = true;
	__atomic_add_fetch(&f->gc.flush_seq, 1, __ATOMIC_SEQ_CST);
	f->gc.flush_fsync = fsync;
	f->gc.flush_covered = covered;
	f->em.flush_taint = 0;
	pthread_mutex_unlock(&f->gc.mu);

	uint64_t t0 = now_ns();
	int r = fsync ? s->fsync(f->fd) : s->fdatasync(f->fd);
	int err = r < 0 ? errno : 0;
	uint64_t d = now_ns() - t0, avg = atomic_load(&x->flush_ns_avg);

	/* racing updates may lose one sample: it is a hint */
	atomic_store(&x->flush_ns_avg, avg ? avg - avg / 8 + d / 8 : d);

	pthread_mutex_lock(&f->gc.mu);
	__atomic_add_fetch(&f->gc.flush_seq, 1, __ATOMIC_SEQ_CST);
	/* A flusher sync_file_range on the same fd may have taken the kernel's
	 * report of an error in this flush's pages: wait for its result, and
	 * fail the batch with it. */
	while (f->em.sfr_busy > 0)
		pthread_cond_wait(&f->gc.cv, &f->gc.mu);
	bool tainted = !err && f->em.flush_taint;

	if (tainted)
		err = f->em.flush_taint;
	/* committers that found every acknowledged write already covered by
	 * this flush joined it while it ran */
	if (f->gc.riders) {
		struct gc_waiter *w = f->gc.riders;

		while (w->next)
			w = w->next;
		w->next = batch;
		batch = f->gc.riders;
		f->gc.riders = NULL;
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
		for (size_t i = 0; i < f->em.flush_clear.n; i++)
			rs_sub(&f->em.lost, f->em.flush_clear.r[i].lo,
			       f->em.flush_clear.r[i].hi);
		rs_add_set(&f->em.lost, &f->em.relost);
		if (covered > f->gc.flushed_seq)
			f->gc.flushed_seq = covered;
		rs_free(&f->em.flush_pending);
	} else {
		/* writes acknowledged while it ran may still be under writeback:
		 * their pages' errors must reach a flush now, not one of later
		 * writes (which would then be lost to them) */
		bool late = f->gc.write_seq != covered;

		rs_merge_into(&f->em.pending, &f->em.flush_pending, 0);
		rs_free(&f->em.flush_pending);
		em_lose_pending(f, err);
		if (!tainted) /* else em_sync_file_range noted it */
			em_note_error(f, err);
		if (late)
			em_want_settle(f);
		if (n)
			f->em.unreported = 0;
	}
	rs_free(&f->em.flush_clear);
	rs_free(&f->em.relost);
	f->gc.flushing = false;

	struct gc_waiter *async = NULL, **at = &async;

	for (struct gc_waiter *w = batch, *nx; w; w = nx) {
		nx = w->next;
		w->err = err;
		w->done = true;
		if (w->req) {
			/* its range may have been lost before this flush began */
			if (!err) {
				struct dcio_req *q = w->req;

				w->err = rs_find(&f->em.lost, q->off,
						 write_end(q->off, q->len));
				if (w->err)
					ST_ADD(x->st.gc_lost_reports, 1);
			}
			*at = w;
			at = &w->next;
			w->next = NULL;
		}
	}
	if ((f->gc.wh && !has_sync_waiter(f)) || (f->gc.settle && !f->gc.wh))
		file_post_gc(f);
	pthread_cond_broadcast(&f->gc.cv);

	if (async) {
		pthread_mutex_unlock(&f->gc.mu);
		for (struct gc_waiter *w = async, *nx; w; w = nx) {
			struct dcio_req *q = w->req;

			nx = w->next;
			q->is_durable = w->err == 0;
			if (q->opportunistic) {
				/* acknowledged UNSTABLE either way: a failed
				 * flush is the error memory's, for COMMIT */
				if (q->is_durable)
					ST_ADD(x->st.sr_durable, 1);
				w->complete(q, 0);
			} else {
				w->complete(q, w->err);
			}
		}
		pthread_mutex_lock(&f->gc.mu);
	}
}

static void gc_job_run(struct dcio_job *j)
{
	struct dcio_file *f =
		(struct dcio_file *)((char *)j -
				     offsetof(struct dcio_file, gc.job));

	pthread_mutex_lock(&f->gc.mu);
	f->gc.job_posted = false;
	if (!f->gc.flushing && (f->gc.wh || f->gc.settle))
		run_batch(f);
	pthread_mutex_unlock(&f->gc.mu);
	file_put(f);
}

void gc_init(struct dcio_file *f)
{
	pthread_mutex_init(&f->gc.mu, NULL);
	pthread_cond_init(&f->gc.cv, NULL);
	f->gc.wt = &f->gc.wh;
	f->gc.job.run = gc_job_run;
}

void gc_fini(struct dcio_file *f)
{
	em_fini(f);
	pthread_cond_destroy(&f->gc.cv);
	pthread_mutex_destroy(&f->gc.mu);
}

/* A stable write whose data is written: completes after a covering flush. */
void gc_join_async(struct dcio_file *f, struct dcio_req *q,
		   void (*complete)(struct dcio_req *q, int err))
{
	q->w.req = q;
	q->w.complete = complete;
	/* answered FILE_SYNC when it rides (stable_reply_ms): the metadata too */
	q->w.fsync = q->stable == DCIO_FILE_SYNC || q->opportunistic;
	q->w.done = false;
	pthread_mutex_lock(&f->gc.mu);
	enqueue(f, &q->w);
	if (!f->gc.flushing)
		file_post_gc(f);
	pthread_mutex_unlock(&f->gc.mu);
}

/* Synchronous commit (enum gc_flags). GC_FORCE: flush even if nothing is
 * pending (a stable write that was just acknowledged). GC_CHECK_LOST: also
 * fail on remembered lost ranges in [off, off+len). */
int gc_commit(struct dcio_file *f, uint64_t off, uint64_t len,
	      unsigned int flags)
{
	struct dcio_export *x = f->x;
	uint64_t t0 = now_ns();
	bool fsync = flags & GC_FSYNC, force = flags & GC_FORCE;
	struct gc_waiter w = { .fsync = fsync };
	int err;

	pthread_mutex_lock(&f->gc.mu);
	while (f->em.sfr_busy > 0)
		pthread_cond_wait(&f->gc.cv, &f->gc.mu);
	if (!force && f->gc.write_seq == f->gc.flushed_seq) {
		ST_ADD(x->st.gc_nodirty, 1);
		/* Nothing acknowledged is unflushed, but a flush still running
		 * decides the ranges it took: a flusher error that lost the
		 * pending ones meanwhile (em_lose_pending) set flushed_seq
		 * without them, and they are lost only when that flush ends. */
		while (f->gc.flushing)
			pthread_cond_wait(&f->gc.cv, &f->gc.mu);
	} else if (f->gc.flushing && !force &&
		   f->gc.write_seq == f->gc.flush_covered &&
		   (f->gc.flush_fsync || !fsync)) {
		w.next = f->gc.riders;
		f->gc.riders = &w;
		while (!w.done)
			pthread_cond_wait(&f->gc.cv, &f->gc.mu);
	} else {
		enqueue(f, &w);
		while (!w.done) {
			if (!f->gc.flushing)
				run_batch(f);
			else
				pthread_cond_wait(&f->gc.cv, &f->gc.mu);
		}
	}
	err = w.err;
	if (!err && (flags & GC_CHECK_LOST)) {
		err = rs_find(&f->em.lost, off, range_end(off, len));
		if (err)
			ST_ADD(x->st.gc_lost_reports, 1);
	}
	if (err)
		f->em.unreported = 0;
	pthread_mutex_unlock(&f->gc.mu);
	hist_add(&x->st.lat_c, now_ns() - t0);
	return err;
}

int dcio_commit(struct dcio_file *f, uint64_t offset, uint64_t len)
{
	if (!f)
		return EINVAL;
	return gc_commit(f, offset, len, GC_CHECK_LOST);
}

uint64_t gc_flush_seq(struct dcio_file *f)
{
	return __atomic_load_n(&f->gc.flush_seq, __ATOMIC_SEQ_CST);
}
