// SPDX-License-Identifier: LGPL-3.0-or-later
/* Coalesced background writeback and drop-behind for buffered (dropbehind
 * and fallback) writes. Completions only add ranges and count bytes; the
 * first one crossing a threshold sets `kicked` and signals once, so one
 * wakeup serves any number of writes. A pass takes its share of the due
 * files (the due ones split over the idle flusher threads), then, with the
 * lock dropped:
 *   1. for every file, the ranges dirtied since its last pass: merged,
 *      sorted, sync_file_range(WRITE) (writeback of all of them is queued
 *      before the thread waits for anything);
 *   2. for every file, those ranges and any started before (by an inline
 *      kick or RWF_DONTCACHE): sync_file_range(DCIO_SFR_DRAIN) writes what
 *      is dirty again and waits for all of it, then POSIX_FADV_DONTNEED
 *      drops the now-clean pages.
 * Waiting on one file while another's dirty pages pile up is what a
 * file-at-a-time pass did (16 writers: 5-10x the thresholds in the page
 * cache); dropping a pass's ranges only at the file's next pass kept two
 * thresholds per file cached, and one thread blocked in submission stalled
 * every file: hence several threads and the drop in the pass. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "caps.h"
#include "commit.h"
#include "core.h"
#include "errmem.h"
#include "flusher.h"
#include "log.h"
#include "ranges.h"
#include "util.h"

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

/* The export's budget of written, not yet dropped bytes (flusher_throttle) */
uint64_t flusher_budget(const struct dcio_export *x)
{
	uint64_t b = XP(x, cache_budget_bytes);

	return b ? b : DCIO_THROTTLE_FACTOR * export_thr(x);
}

/* Room in the export's budget: what it holds and what the writers it let
 * go are writing (a write in flight is in the page cache already) */
static bool room(const struct dcio_export *x)
{
	return __atomic_load_n(&x->fl.held, __ATOMIC_RELAXED) +
		       __atomic_load_n(&x->fl.writing, __ATOMIC_RELAXED) <=
	       flusher_budget(x);
}

/* A writer waiting in flusher_throttle (on its own stack) */
struct fl_waiter {
	pthread_cond_t cv;
	struct fl_waiter *next;
};

/* Under fl.mu, the export within its budget: the first writer waiting in
 * flusher_throttle goes on (it lets the next one go in turn). */
static void throttle_next(struct dcio_export *x)
{
	if (x->fl.qhead)
		pthread_cond_signal(&x->fl.qhead->cv);
}

static void list_add(struct dcio_flusher *fl, struct dcio_file *f)
{
	f->fl.prev = NULL;
	f->fl.next = fl->head;
	if (fl->head)
		fl->head->fl.prev = f;
	fl->head = f;
	f->fl.listed = true;
	fl->nlisted++;
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
	fl->nlisted--;
	f->fl.next = f->fl.prev = NULL;
}

/* A buffered write completed (enum fl_note: what is left of it). */
void flusher_note(struct dcio_file *f, uint64_t off, uint64_t len,
		  enum fl_note how)
{
	struct dcio_flusher *fl = &f->e->fl;
	struct dcio_export *x = f->x;
	bool written = how != FL_DIRTY;

	if (!len)
		return;
	pthread_mutex_lock(&fl->mu);
	if (!f->fl.listed)
		list_add(fl, f);
	/* Written ranges (writeback already started, by an inline kick or by
	 * RWF_DONTCACHE itself) count toward the thresholds too: their pages
	 * stay in the cache until a pass drops them (kicked ones toward the
	 * export's only: the kernel drops most of them itself). */
	struct dcio_rangeset *rs = written ? &f->fl.wb : &f->fl.dirty;

	rs_add(rs, off, off + len, 0);
	if (rs->n > DCIO_PENDING_CAP)
		rs_collapse(rs);
	uint64_t xlen = how == FL_KICKED ? len / DCIO_KICKED_SHARE : len;

	f->fl.dirty_bytes += len;
	ST_MAX(x->st.fl_held_peak,
	       __atomic_add_fetch(&x->fl.held, len, __ATOMIC_RELAXED));
	f->fl.nwrites++;
	f->fl.x_bytes += xlen;
	x->fl.dirty += xlen;
	if (f->fl.dirty_bytes >= file_thr(x) && how != FL_KICKED)
		f->fl.urgent = true;
	if (x->fl.dirty >= export_thr(x))
		x->fl.urgent = true;
	if ((f->fl.urgent || x->fl.urgent) && !fl->kicked) {
		fl->kicked = true;
		pthread_cond_signal(&fl->cv);
	}
	if (!written && f->fl.busy && !f->fl.start_now &&
	    f->fl.dirty_bytes >= file_thr(x) && fl->nlisted <= fl->n &&
	    fl->idle) {
		f->fl.start_now = true;
		fl->nstart++;
		fl->kicked = true;
		pthread_cond_signal(&fl->cv);
	}
	pthread_mutex_unlock(&fl->mu);
}

/* One sync_file_range per range of rs, inside the error-memory bracket:
 * SYNC_FILE_RANGE_WRITE starts the write-back of fresh ranges (counted as
 * flushed); DCIO_SFR_DRAIN makes ranges already started clean, whose pages
 * are then dropped. */
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
	x->fl.dirty -= f->fl.x_bytes;
	f->fl.x_bytes = 0;
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
	f->fl.taken_gen = fl->gen;
	f->fl.last = now_ns();
}

/* Under fl->mu: rs (bytes noted) joins the file's started ranges, drained
 * and dropped by its next pass. */
static void keep_started(struct dcio_file *f, const struct dcio_rangeset *rs,
			 uint64_t bytes)
{
	rs_add_set(&f->fl.wb, rs);
	if (f->fl.wb.n > DCIO_PENDING_CAP)
		rs_collapse(&f->fl.wb);
	f->fl.wb_bytes += bytes;
}

/* Under fl->mu: the pass waited for and dropped everything it took. Wakes
 * flusher_forget waiting for the file, and throttled writers once their
 * export is back within its budget (not at every file: 64 writers woken
 * to sleep again cost more CPU than the copies). retry: a flush of the
 * file overlapped the drop, whose fsync holds references to the pages it
 * writes and waits on, so DONTNEED could not drop them (clean, and cached
 * for good): the ranges stay the file's, dropped again at its next pass. */
static void give_back(struct dcio_flusher *fl, struct dcio_file *f, bool retry)
{
	struct dcio_export *x = f->x;
	uint64_t bytes = f->fl.old_bytes + f->fl.fresh_bytes;

	if (retry && !f->fl.closing) {
		keep_started(f, &f->fl.old, f->fl.old_bytes);
		keep_started(f, &f->fl.fresh, f->fl.fresh_bytes);
		bytes = 0;
		ST_ADD(x->st.fl_retried, 1);
	}
	__atomic_sub_fetch(&x->fl.held, bytes, __ATOMIC_RELAXED);
	f->fl.busy = false;
	rs_free(&f->fl.old);
	rs_free(&f->fl.fresh);
	f->fl.old_bytes = f->fl.fresh_bytes = 0;
	if (f->fl.closing)
		pthread_cond_broadcast(&fl->wcv);
	if (room(x))
		throttle_next(x);
	if (!f->fl.wb.n && !f->fl.dirty.n)
		list_del(fl, f);
	else if (f->fl.urgent || f->fl.taken_gen < x->fl.urgent_gen)
		fl->kicked = true; /* went urgent while busy: due now */
}

/* Under fl->mu: f leaves its pass's batch (given back, or left by a
 * closing file the pass has not reached). */
static void batch_unlink(struct dcio_file *f)
{
	*f->fl.batch_pp = f->fl.batch;
	if (f->fl.batch)
		f->fl.batch->fl.batch_pp = f->fl.batch_pp;
	f->fl.batch = NULL;
	f->fl.batch_pp = NULL;
}

/* Under fl->mu: the pass is done with f (in_pass cleared) and goes on to the
 * next file of the batch, marked before the lock is dropped so that its
 * closer waits for it. A closer waiting for f may now take it out. */
static struct dcio_file *pass_next(struct dcio_flusher *fl, struct dcio_file *f)
{
	struct dcio_file *n = f->fl.batch;

	f->fl.in_pass = false;
	if (n)
		n->fl.in_pass = true;
	if (f->fl.closing)
		pthread_cond_broadcast(&fl->wcv);
	return n;
}

/* Called and returns with fl->mu held; drops it around each file's
 * syscalls. The file a syscall works on is marked in_pass: flusher_forget
 * waits for that one only; a closing file the pass has not reached yet
 * leaves the batch (its close flush covers its data), so that closing file
 * k never waits for files 1..k-1 of the pass, which may sit on another
 * export's stalled device. */
static void run_pass(struct dcio_flusher *fl, struct dcio_file **batch)
{
	struct dcio_file *f;

	fl->idle--;
	f = *batch;
	if (f)
		f->fl.in_pass = true;
	while (f) {
		pthread_mutex_unlock(&fl->mu);
		sfr_ranges(f, &f->fl.fresh, SYNC_FILE_RANGE_WRITE);
		pthread_mutex_lock(&fl->mu);
		f = pass_next(fl, f);
	}
	/* each file given back once dropped: throttled writers go on as
	 * soon as there is room, not after the slowest file of the pass */
	f = *batch;
	if (f)
		f->fl.in_pass = true;
	while (f) {
		struct dcio_file *n;
		uint64_t seq;

		pthread_mutex_unlock(&fl->mu);
		seq = gc_flush_seq(f);
		sfr_ranges(f, &f->fl.old, DCIO_SFR_DRAIN);
		sfr_ranges(f, &f->fl.fresh, DCIO_SFR_DRAIN);
		bool overlap = (seq & 1) || gc_flush_seq(f) != seq;

		pthread_mutex_lock(&fl->mu);
		n = pass_next(fl, f);
		batch_unlink(f);
		give_back(fl, f, overlap); /* f may be freed once given back */
		f = n;
	}
	fl->idle++;
}

static bool due(struct dcio_file *f, uint64_t now, uint64_t *next)
{
	if (f->fl.busy)
		return false;
	if (f->fl.urgent || (f->fl.taken_gen < f->x->fl.urgent_gen &&
			     (f->fl.dirty.n || f->fl.wb.n)))
		return true;
	uint64_t at = f->fl.last + interval_ns(f->x);

	if (at <= now)
		return true;
	if (at < *next)
		*next = at;
	return false;
}

/* Exports over their threshold now have all their dirty files due (each
 * file taken before this pass). */
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

/* Under fl->mu: this thread's share of the due files, ceil(due / idle
 * threads), linked through fl.batch from *batch (the thread's, each file's
 * batch_pp the link to it); another thread is woken for the rest. */
static void take_share(struct dcio_flusher *fl, struct dcio_file **batch,
		       uint64_t *next)
{
	uint64_t now = now_ns();
	unsigned int ndue = 0, share, taken = 0;
	struct dcio_file **tail = batch;

	for (struct dcio_file *f = fl->head; f; f = f->fl.next)
		ndue += due(f, now, next);
	share = (ndue + fl->idle - 1) / fl->idle; /* this thread is idle */
	for (struct dcio_file *f = fl->head; f && taken < share;
	     f = f->fl.next) {
		if (!due(f, now, next))
			continue;
		take(fl, f);
		*tail = f;
		f->fl.batch_pp = tail;
		tail = &f->fl.batch;
		taken++;
	}
	if (taken < ndue) {
		fl->kicked = true;
		pthread_cond_signal(&fl->cv);
	}
}

/* Under fl->mu: starts the new ranges of busy files marked start_now
 * (their pass still waits), as started ranges of the file's next pass.
 * flusher_note marks a busy file once it dirtied flush_file_bytes since
 * its pass took it, while a flusher thread is idle and the engine has no
 * more files listed than flusher threads: one fast writer then kept a
 * pass's worth of dirty pages cached (seq1: page cache 377-709 MiB, 60-90%
 * dirty; started here: 50-62 MiB at the same MB/s). Not with more files:
 * the threads' passes are the limit there, and extra starts cost 16
 * writers 13% of their MB/s at 1.27x the CPU per byte. Not from
 * the writer itself: sync_file_range(WRITE) blocks on a busy device, and
 * one writer's p99.9 went from 0.1 to 1.7 s. */
static void start_busy(struct dcio_flusher *fl)
{
	struct dcio_file *f = fl->head;

	while (fl->nstart && f) {
		if (!f->fl.start_now) {
			f = f->fl.next;
			continue;
		}
		struct dcio_export *x = f->x;
		struct dcio_rangeset rs = { 0 };

		f->fl.start_now = false;
		fl->nstart--;
		rs_take(&rs, &f->fl.dirty);
		keep_started(f, &rs, f->fl.dirty_bytes);
		x->fl.dirty -= f->fl.x_bytes;
		f->fl.x_bytes = 0;
		f->fl.dirty_bytes = 0;
		f->fl.starting = true;
		fl->idle--;
		pthread_mutex_unlock(&fl->mu);
		if (rs.n)
			ST_ADD(x->st.fl_busy_starts, 1);
		sfr_ranges(f, &rs, SYNC_FILE_RANGE_WRITE);
		rs_free(&rs);
		pthread_mutex_lock(&fl->mu);
		fl->idle++;
		f->fl.starting = false;
		if (f->fl.closing)
			pthread_cond_broadcast(&fl->wcv);
		f = fl->head; /* the list may have changed */
	}
}

/* This flusher thread's nice before a pass (and at its start):
 * DCIO_READERS_NICE while reads are being served, Engine_Nice otherwise.
 * Going back down needs CAP_SYS_NICE (ganesha runs as root); a thread
 * refused it stays at the higher value, the side that yields, and stops
 * trying. cur starts at -1, no value it sets, so the first call sets one. */
struct fl_nice {
	int cur;
	bool stuck;
};

static void flusher_nice(const struct dcio_engine *e, struct fl_nice *n)
{
	int want;

	if (e->nice <= 0 || n->stuck)
		return;
	want = engine_reads_recent(e) ? DCIO_READERS_NICE : e->nice;
	if (want == n->cur)
		return;
	if (setpriority(PRIO_PROCESS, 0, want) == 0)
		n->cur = want;
	else
		n->stuck = true;
}

static void *flusher_main(void *arg)
{
	struct dcio_engine *e = arg;
	struct dcio_flusher *fl = &e->fl;
	struct fl_nice nice = { .cur = -1, .stuck = false };

	thread_caps(e->log);
	pthread_mutex_lock(&fl->mu);
	while (!fl->stop) {
		flusher_nice(e, &nice);
		begin_pass(fl);
		uint64_t next = now_ns() + 1000000000ull;
		struct dcio_file *batch = NULL;

		start_busy(fl);
		take_share(fl, &batch, &next);
		if (batch)
			run_pass(fl, &batch);
		if (fl->kicked || fl->stop)
			continue;
		struct timespec ts = ts_at_ns(next);

		pthread_cond_timedwait(&fl->cv, &fl->mu, &ts);
	}
	pthread_mutex_unlock(&fl->mu);
	return NULL;
}

int flusher_start(struct dcio_engine *e)
{
	struct dcio_flusher *fl = &e->fl;
	unsigned int n = e->threads ? e->threads : 1;

	fl->tids = calloc(n, sizeof(*fl->tids));
	if (!fl->tids)
		return ENOMEM;
	pthread_mutex_init(&fl->mu, NULL);
	cond_init_mono(&fl->cv);
	cond_init_mono(&fl->wcv);
	fl->started = true;
	fl->n = fl->idle = n; /* each thread idle from its start */
	unsigned int started = 0;
	int rc = threads_start(fl->tids, n, flusher_main, e, "dcio-flush",
			       &started);
	if (rc) {
		pthread_mutex_lock(&fl->mu);
		fl->n = started; /* flusher_stop joins those */
		pthread_mutex_unlock(&fl->mu);
		flusher_stop(e);
	}
	return rc;
}

void flusher_stop(struct dcio_engine *e)
{
	struct dcio_flusher *fl = &e->fl;

	if (!fl->started)
		return;
	pthread_mutex_lock(&fl->mu);
	fl->stop = true;
	pthread_cond_broadcast(&fl->cv);
	pthread_cond_broadcast(&fl->wcv);
	pthread_mutex_unlock(&fl->mu);
	for (unsigned int i = 0; i < fl->n; i++)
		pthread_join(fl->tids[i], NULL);
	free(fl->tids);
	fl->tids = NULL;
	fl->n = fl->idle = 0;
	fl->started = false;
	pthread_cond_destroy(&fl->cv);
	pthread_cond_destroy(&fl->wcv);
	pthread_mutex_destroy(&fl->mu);
}

/* The file is closing: off the list (its close flush covers the rest).
 * Waits only while a flusher thread is in a syscall on this file: taken by
 * a pass that has not reached it, the file leaves that pass at once. */
void flusher_forget(struct dcio_file *f)
{
	struct dcio_flusher *fl = &f->e->fl;

	pthread_mutex_lock(&fl->mu);
	f->fl.closing = true;
	while ((f->fl.busy && f->fl.in_pass) || f->fl.starting)
		pthread_cond_wait(&fl->wcv, &fl->mu);
	if (f->fl.busy) {
		batch_unlink(f);
		give_back(fl, f, false);
	}
	if (f->fl.start_now) {
		f->fl.start_now = false;
		fl->nstart--;
	}
	if (f->fl.listed)
		list_del(fl, f);
	f->x->fl.dirty -= f->fl.x_bytes;
	f->fl.x_bytes = 0;
	__atomic_sub_fetch(&f->x->fl.held, f->fl.dirty_bytes + f->fl.wb_bytes,
			   __ATOMIC_RELAXED);
	f->fl.dirty_bytes = 0;
	f->fl.wb_bytes = 0;
	rs_free(&f->fl.dirty);
	rs_free(&f->fl.wb);
	/* writers throttled on this file's bytes may go on */
	if (room(f->x))
		throttle_next(f->x);
	pthread_mutex_unlock(&fl->mu);
}

/* The close did not happen (its flush failed, dcio_file_close_clean keeps
 * the file): the file is no longer closing, so a pass that a COMMIT's flush
 * overlaps keeps its ranges for a retry again (give_back). */
void flusher_keep(struct dcio_file *f)
{
	struct dcio_flusher *fl = &f->e->fl;

	pthread_mutex_lock(&fl->mu);
	f->fl.closing = false;
	pthread_mutex_unlock(&fl->mu);
}

void flusher_throttle(struct dcio_export *x, uint64_t len)
{
	struct dcio_flusher *fl = &x->e->fl;
	uint64_t t0, end, limit = flusher_budget(x);
	struct fl_waiter me = { .next = NULL }, *w, *prev = NULL;

	/* The common case, no engine-wide lock per write: counted first, so
	 * that writers passing at once see each other's bytes */
	uint64_t writing =
		__atomic_add_fetch(&x->fl.writing, len, __ATOMIC_RELAXED);

	if (__atomic_load_n(&x->fl.held, __ATOMIC_RELAXED) + writing - len <=
		    limit &&
	    !__atomic_load_n(&x->fl.waiters, __ATOMIC_RELAXED))
		return;
	__atomic_sub_fetch(&x->fl.writing, len, __ATOMIC_RELAXED);
	pthread_mutex_lock(&fl->mu);
	if ((room(x) && !x->fl.qhead) || fl->stop) {
		__atomic_add_fetch(&x->fl.writing, len, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&fl->mu);
		return;
	}
	/* In arrival order: woken all at once, the writers that lost the
	 * race for the room slept again, and one of 16 could lose for the
	 * whole 2 s while the others went on. A writer that comes while
	 * others wait queues behind them, room or not. */
	cond_init_mono(&me.cv);
	if (x->fl.qtail)
		x->fl.qtail->next = &me;
	else
		x->fl.qhead = &me;
	x->fl.qtail = &me;
	__atomic_store_n(&x->fl.waiters, x->fl.waiters + 1, __ATOMIC_RELAXED);
	t0 = now_ns();
	end = t0 + (uint64_t)DCIO_THROTTLE_MAX_MS * 1000000ull;
	ST_ADD(x->st.fl_throttled, 1);
	while (!fl->stop && !(x->fl.qhead == &me && room(x))) {
		uint64_t now = now_ns();

		if (now >= end)
			break;
		/* No pass running: what is held sits in files not yet due,
		 * so all the export's files become due. Not while passes
		 * run: marked at every wait, the flushers took files with a
		 * few KiB dirty over and over (64 writers: 2-3x the CPU). */
		if (fl->idle == fl->n) {
			x->fl.urgent = true;
			if (!fl->kicked) {
				fl->kicked = true;
				pthread_cond_signal(&fl->cv);
			}
		}
		struct timespec ts = ts_at_ns(
			now + 50000000ull < end ? now + 50000000ull : end);

		pthread_cond_timedwait(&me.cv, &fl->mu, &ts);
	}
	/* out of the queue (its head, or anywhere after the 2 s) */
	for (w = x->fl.qhead; w != &me; w = w->next)
		prev = w;
	if (prev)
		prev->next = me.next;
	else
		x->fl.qhead = me.next;
	if (x->fl.qtail == &me)
		x->fl.qtail = prev;
	__atomic_store_n(&x->fl.waiters, x->fl.waiters - 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&x->fl.writing, len, __ATOMIC_RELAXED);
	if (room(x) || fl->stop)
		throttle_next(x); /* the next one's turn */
	pthread_mutex_unlock(&fl->mu);
	pthread_cond_destroy(&me.cv);
	ST_ADD(x->st.fl_throttle_us, (now_ns() - t0) / 1000);
}

void flusher_written(struct dcio_export *x, uint64_t len)
{
	struct dcio_flusher *fl = &x->e->fl;

	__atomic_sub_fetch(&x->fl.writing, len, __ATOMIC_RELAXED);
	/* Also after flusher_note moved its bytes to held: a pass that gave
	 * bytes back between the two found no room, and signalled no one */
	if (!__atomic_load_n(&x->fl.waiters, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&fl->mu);
	if (room(x))
		throttle_next(x);
	pthread_mutex_unlock(&fl->mu);
}
