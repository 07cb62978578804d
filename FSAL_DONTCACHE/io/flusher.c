// SPDX-License-Identifier: LGPL-3.0-or-later
/* Coalesced background writeback and drop-behind for buffered (dropbehind
 * and fallback) writes. Completions only add ranges and count bytes; the
 * first one crossing a threshold sets `kicked` and signals once, so one
 * wakeup serves any number of writes. A pass takes every due file at once,
 * then, with the lock dropped:
 *   1. for every file, the ranges dirtied since its last pass: merged,
 *      sorted, sync_file_range(WRITE) (writeback of all of them is queued
 *      before the flusher waits for anything);
 *   2. for every file, the ranges started by an earlier pass:
 *      sync_file_range(WAIT_BEFORE) waits for their writeback (usually done
 *      by now), then POSIX_FADV_DONTNEED drops the now-clean pages.
 * Waiting on one file while another's dirty pages pile up is what a
 * file-at-a-time pass did: at 16 writers the page cache then held 5-10x
 * the thresholds. */
#include <errno.h>
#include <fcntl.h>

#include "engine.h"

static uint64_t file_thr(const struct dcio_export *x)
{
	return XP(x, flush_file_bytes) ? XP(x, flush_file_bytes)
				       : DCIO_DEF_FLUSH_FILE;
}

static uint64_t export_thr(const struct dcio_export *x)
{
	return XP(x, flush_export_bytes) ? XP(x, flush_export_bytes)
					 : DCIO_DEF_FLUSH_EXPORT;
}

static uint64_t interval_ns(const struct dcio_export *x)
{
	uint32_t ms = XP(x, flush_interval_ms) ? XP(x, flush_interval_ms)
					       : DCIO_DEF_FLUSH_MS;
	return (uint64_t)ms * 1000000ull;
}

static void list_add(struct dcio_flusher *fl, struct dcio_file *f)
{
	f->fl.prev = NULL;
	f->fl.next = fl->head;
	if (fl->head)
		fl->head->fl.prev = f;
	fl->head = f;
	f->fl.listed = true;
	f->fl.last = now_ns();
}

static void list_del(struct dcio_flusher *fl, struct dcio_file *f)
{
	if (f->fl.prev)
		f->fl.prev->fl.next = f->fl.next;
	else
		fl->head = f->fl.next;
	if (f->fl.next)
		f->fl.next->fl.prev = f->fl.prev;
	f->fl.listed = false;
	f->fl.next = f->fl.prev = NULL;
}

/* A buffered write completed (written: its writeback was already started,
 * by the caller in inline mode or by RWF_DONTCACHE; only the drop is left). */
void flusher_note(struct dcio_file *f, uint64_t off, uint64_t len, bool written)
{
	struct dcio_flusher *fl = &f->e->fl;
	struct dcio_export *x = f->x;

	if (!len)
		return;
	pthread_mutex_lock(&fl->mu);
	if (!f->fl.listed)
		list_add(fl, f);
	/* Written ranges (writeback already started, by an inline kick or by
	 * RWF_DONTCACHE itself) count toward the thresholds too: their pages
	 * stay in the cache until a pass drops them. */
	struct dcio_rangeset *rs = written ? &f->fl.wb : &f->fl.dirty;

	rs_add(rs, off, off + len, 0);
	if (rs->n > DCIO_PENDING_CAP)
		rs_collapse(rs);
	f->fl.dirty_bytes += len;
	x->fl.held += len;
	f->fl.nwrites++;
	x->fl.dirty += len;
	if (f->fl.dirty_bytes >= file_thr(x))
		f->fl.urgent = true;
	if (x->fl.dirty >= export_thr(x))
		x->fl.urgent = true;
	if ((f->fl.urgent || x->fl.urgent) && !fl->kicked) {
		fl->kicked = true;
		pthread_cond_broadcast(&fl->cv);
	}
	pthread_mutex_unlock(&fl->mu);
}

/* One sync_file_range per range of rs, inside the error-memory bracket:
 * SYNC_FILE_RANGE_WRITE starts the write-back of fresh ranges (counted as
 * flushed); SYNC_FILE_RANGE_WAIT_BEFORE waits for ranges already started,
 * whose clean pages are then dropped. */
static void sfr_ranges(struct dcio_file *f, const struct dcio_rangeset *rs,
		       unsigned int how)
{
	const struct dcio_syscalls *s = &f->e->sys;
	struct dcio_stats *st = &f->x->st;

	for (size_t i = 0; i < rs->n; i++) {
		uint64_t lo = rs->r[i].lo, len = rs->r[i].hi - rs->r[i].lo;

		em_sync_file_range(f, lo, len, how);
		ST_ADD(st->fl_sfr_calls, 1);
		if (how == SYNC_FILE_RANGE_WRITE) {
			ST_ADD(st->fl_ranges, 1);
			ST_ADD(st->fl_bytes, len);
		} else if (s->posix_fadvise(f->fd, (off_t)lo, (off_t)len,
					    POSIX_FADV_DONTNEED) == 0) {
			ST_ADD(st->fl_dontneed, 1);
		}
	}
}

/* Under fl->mu: the file's ranges become the pass's (busy until give_back). */
static void take(struct dcio_flusher *fl, struct dcio_file *f)
{
	struct dcio_export *x = f->x;

	rs_take(&f->fl.old, &f->fl.wb);
	rs_take(&f->fl.fresh, &f->fl.dirty);
	f->fl.old_bytes = f->fl.wb_bytes;
	f->fl.fresh_bytes = f->fl.dirty_bytes;
	f->fl.wb_bytes = 0;
	x->fl.dirty -= f->fl.dirty_bytes;
	ST_ADD(x->st.fl_files, 1);
	ST_ADD(x->st.fl_writes, f->fl.nwrites);
	if (x->fl.gen != fl->gen) {
		x->fl.gen = fl->gen;
		x->fl.pass_writes = 0;
		ST_ADD(x->st.fl_passes, 1);
	}
	x->fl.pass_writes += f->fl.nwrites;
	ST_MAX(x->st.fl_max_writes, x->fl.pass_writes);
	f->fl.dirty_bytes = 0;
	f->fl.nwrites = 0;
	f->fl.urgent = false;
	f->fl.busy = true;
	f->fl.last = now_ns();
}

/* Under fl->mu: what the pass started is now waited and dropped next time. */
static void give_back(struct dcio_flusher *fl, struct dcio_file *f)
{
	f->fl.busy = false;
	rs_free(&f->fl.old);
	f->x->fl.held -= f->fl.old_bytes;
	f->fl.old_bytes = 0;
	rs_merge_into(&f->fl.wb, &f->fl.fresh, 0);
	rs_free(&f->fl.fresh);
	f->fl.wb_bytes += f->fl.fresh_bytes;
	f->fl.fresh_bytes = 0;
	if (!f->fl.wb.n && !f->fl.dirty.n)
		list_del(fl, f);
}

/* Called and returns with fl->mu held; drops it around the syscalls. A
 * busy file stays allocated: flusher_forget waits until it is given back. */
static void run_pass(struct dcio_flusher *fl, struct dcio_file *batch)
{
	pthread_mutex_unlock(&fl->mu);
	for (struct dcio_file *f = batch; f; f = f->fl.batch)
		sfr_ranges(f, &f->fl.fresh, SYNC_FILE_RANGE_WRITE);
	for (struct dcio_file *f = batch; f; f = f->fl.batch)
		sfr_ranges(f, &f->fl.old, SYNC_FILE_RANGE_WAIT_BEFORE);
	pthread_mutex_lock(&fl->mu);
	for (struct dcio_file *f = batch, *n; f; f = n) {
		n = f->fl.batch;
		f->fl.batch = NULL;
		give_back(fl, f);
	}
	pthread_cond_broadcast(&fl->cv);
}

static bool due(struct dcio_file *f, uint64_t now, uint64_t *next)
{
	if (f->fl.busy)
		return false;
	if (f->fl.urgent || (f->x->fl.urgent_gen == f->e->fl.gen &&
			     (f->fl.dirty.n || f->fl.wb.n)))
		return true;
	uint64_t at = f->fl.last + interval_ns(f->x);
	if (at <= now)
		return true;
	if (at < *next)
		*next = at;
	return false;
}

/* Exports over their threshold now have all their dirty files flushed in
 * this pass. */
static void begin_pass(struct dcio_flusher *fl)
{
	fl->kicked = false;
	fl->gen++;
	for (struct dcio_file *f = fl->head; f; f = f->fl.next) {
		struct dcio_export *x = f->x;
		if (x->fl.urgent) {
			x->fl.urgent = false;
			x->fl.urgent_gen = fl->gen;
		}
	}
}

static void *flusher_main(void *arg)
{
	struct dcio_engine *e = arg;
	struct dcio_flusher *fl = &e->fl;

	thread_nice(e->nice);
	pthread_mutex_lock(&fl->mu);
	while (!fl->stop) {
		begin_pass(fl);
		uint64_t now = now_ns(), next = now + 1000000000ull;
		struct dcio_file *batch = NULL, **tail = &batch;

		for (struct dcio_file *f = fl->head; f; f = f->fl.next) {
			if (!due(f, now, &next))
				continue;
			take(fl, f);
			*tail = f;
			tail = &f->fl.batch;
		}
		if (batch)
			run_pass(fl, batch);
		if (fl->kicked || fl->stop)
			continue;
		struct timespec ts = { (time_t)(next / 1000000000ull),
				       (long)(next % 1000000000ull) };
		pthread_cond_timedwait(&fl->cv, &fl->mu, &ts);
	}
	pthread_mutex_unlock(&fl->mu);
	return NULL;
}

int flusher_start(struct dcio_engine *e)
{
	struct dcio_flusher *fl = &e->fl;

	pthread_mutex_init(&fl->mu, NULL);
	cond_init_mono(&fl->cv);
	int rc = pthread_create(&fl->tid, NULL, flusher_main, e);
	if (rc)
		return rc;
	pthread_setname_np(fl->tid, "dcio-flusher");
	fl->started = true;
	return 0;
}

void flusher_stop(struct dcio_engine *e)
{
	struct dcio_flusher *fl = &e->fl;

	if (!fl->started)
		return;
	pthread_mutex_lock(&fl->mu);
	fl->stop = true;
	pthread_cond_broadcast(&fl->cv);
	pthread_mutex_unlock(&fl->mu);
	pthread_join(fl->tid, NULL);
	pthread_cond_destroy(&fl->cv);
	pthread_mutex_destroy(&fl->mu);
}

/* The file is closing: off the list (its close flush covers the rest). */
void flusher_forget(struct dcio_file *f)
{
	struct dcio_flusher *fl = &f->e->fl;

	pthread_mutex_lock(&fl->mu);
	while (f->fl.busy)
		pthread_cond_wait(&fl->cv, &fl->mu);
	if (f->fl.listed)
		list_del(fl, f);
	f->x->fl.dirty -= f->fl.dirty_bytes;
	f->x->fl.held -= f->fl.dirty_bytes + f->fl.wb_bytes;
	f->fl.dirty_bytes = 0;
	f->fl.wb_bytes = 0;
	rs_free(&f->fl.dirty);
	rs_free(&f->fl.wb);
	/* writers throttled on this file's bytes may go on */
	pthread_cond_broadcast(&fl->cv);
	pthread_mutex_unlock(&fl->mu);
}

void flusher_throttle(struct dcio_export *x)
{
	struct dcio_flusher *fl = &x->e->fl;
	uint64_t t0 = 0, limit = DCIO_THROTTLE_FACTOR * export_thr(x);
	struct timespec ts;

	pthread_mutex_lock(&fl->mu);
	while (x->fl.held > limit && !fl->stop) {
		if (!t0) {
			t0 = now_ns();
			ST_ADD(x->st.fl_throttled, 1);
			deadline_after(&ts, DCIO_THROTTLE_MAX_MS);
		}
		/* every file of the export is due now */
		x->fl.urgent = true;
		if (!fl->kicked) {
			fl->kicked = true;
			pthread_cond_broadcast(&fl->cv);
		}
		if (pthread_cond_timedwait(&fl->cv, &fl->mu, &ts) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&fl->mu);
	if (t0)
		ST_ADD(x->st.fl_throttle_us, (now_ns() - t0) / 1000);
}
