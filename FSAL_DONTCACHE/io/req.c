// SPDX-License-Identifier: LGPL-3.0-or-later
/* One request's life: syscall results (short transfers, EINTR/EAGAIN,
 * EOPNOTSUPP and O_DIRECT EINVAL fallbacks), split children, completion. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounce.h"
#include "commit.h"
#include "core.h"
#include "cred.h"
#include "errmem.h"
#include "falloc.h"
#include "flusher.h"
#include "kick.h"
#include "log.h"
#include "rangelock.h"
#include "req.h"

struct dcio_req *req_new(struct dcio_file *f, enum req_op op, int niov)
{
	struct dcio_req *q =
		calloc(1, sizeof(*q) + (size_t)(niov > 0 ? niov : 1) *
					       sizeof(struct iovec));
	if (!q)
		return NULL;
	q->f = f;
	q->op = op;
	q->iov = q->iovs;
	q->fd = f->fd;
	q->t0 = now_ns();
	return q;
}

/* The mode a cached write goes out in: dontcache, or dropbehind once the
 * filesystem refused RWF_DONTCACHE. */
enum dcio_write_mode cached_write_mode(const struct dcio_export *x)
{
	return atomic_load(&x->wfallback) ? DCIO_WRITE_DROPBEHIND
					  : DCIO_WRITE_DONTCACHE;
}

/* A cached read's flags: RWF_DONTCACHE unless the export fell back. */
int cached_read_flags(const struct dcio_export *x)
{
	if (XP(x, read_mode) != DCIO_READ_DONTCACHE ||
	    atomic_load(&x->rfallback))
		return 0;
	return RWF_DONTCACHE;
}

void req_set_mode(struct dcio_req *q, enum dcio_write_mode mode)
{
	q->mode = mode;
	q->rwflags = mode == DCIO_WRITE_DONTCACHE ? RWF_DONTCACHE : 0;
}

uint64_t iov_total(const struct iovec *iov, int cnt)
{
	uint64_t n = 0;

	for (int i = 0; i < cnt; i++)
		n += iov[i].iov_len;
	return n;
}

/* Copies the bytes [skip, skip+len) of src as iovecs into dst; returns count. */
int iov_slice(const struct iovec *src, int cnt, uint64_t skip, uint64_t len,
	      struct iovec *dst)
{
	int n = 0;

	for (int i = 0; i < cnt && len; i++) {
		uint64_t l = src[i].iov_len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		uint64_t take = l - skip < len ? l - skip : len;

		dst[n].iov_base = (char *)src[i].iov_base + skip;
		dst[n].iov_len = take;
		n++;
		len -= take;
		skip = 0;
	}
	return n;
}

static void iov_advance(struct dcio_req *q, uint64_t n)
{
	while (q->iovcnt && n >= q->iov->iov_len) {
		n -= q->iov->iov_len;
		q->iov++;
		q->iovcnt--;
	}
	if (q->iovcnt && n) {
		q->iov->iov_base = (char *)q->iov->iov_base + n;
		q->iov->iov_len -= n;
	}
}

static void dontcache_fallback(struct dcio_req *q)
{
	struct dcio_export *x = q->f->x;

	q->rwflags &= ~RWF_DONTCACHE;
	if (q->op == REQ_WRITE) {
		ST_ADD(x->st.fb_write, 1);
		if (!atomic_exchange(&x->wfallback, true))
			x->e->log(
				DCIO_LOG_WARN,
				"dcio: %s: the filesystem refused a RWF_DONTCACHE write: writes run as dropbehind from now on",
				x->name);
		if (q->mode == DCIO_WRITE_DONTCACHE)
			q->mode = DCIO_WRITE_DROPBEHIND;
	} else {
		ST_ADD(x->st.fb_read, 1);
		if (!atomic_exchange(&x->rfallback, true))
			x->e->log(
				DCIO_LOG_WARN,
				"dcio: %s: the filesystem refused a RWF_DONTCACHE read: reads run buffered from now on",
				x->name);
	}
}

/* O_DIRECT refused at run time: the same bytes go through the cache. */
static void direct_fallback(struct dcio_req *q)
{
	struct dcio_export *x = q->f->x;

	ST_ADD(x->st.fb_direct, 1);
	q->direct = false;
	q->fd = q->f->fd;
	if (q->op == REQ_WRITE)
		req_set_mode(q, cached_write_mode(x));
}

/* How long to wait before issuing the request again: 0 unless its syscall
 * answered EINTR or EAGAIN at least twice in a row; then 50 us, doubling up
 * to 6.4 ms (about 50 ms over all DCIO_IO_MAX_TRIES tries). */
uint64_t req_retry_delay_ns(const struct dcio_req *q)
{
	int shift = q->retries - 2;

	if (q->retries < 2)
		return 0;
	return 50000ull << (shift < 7 ? shift : 7);
}

/* Feeds one syscall result (bytes or -errno) into the request. REQ_AGAIN: issue
 * the (remaining) I/O again (after req_retry_delay_ns); REQ_DONE: the request
 * is finished and may be gone. EINTR and EAGAIN are tried again at most
 * DCIO_IO_MAX_TRIES times in a row, then the request fails with them. */
enum req_status req_result(struct dcio_req *q, long res)
{
	if (res < 0) {
		int err = (int)-res;

		if (err == EINTR || err == EAGAIN) {
			if (++q->retries < DCIO_IO_MAX_TRIES)
				return REQ_AGAIN;
			DCIO_LOG_RL(
				q->f->e, DCIO_LOG_WARN, 60,
				"dcio: %s: a %s at offset %llu answered %s %d times in a row: failed with it",
				q->f->x->name,
				q->op == REQ_WRITE ? "write" : "read",
				(unsigned long long)(q->io_off + q->xfer),
				strerror(err), q->retries);
			req_finish(q, err);
			return REQ_DONE;
		}
		if (err == EOPNOTSUPP && (q->rwflags & RWF_DONTCACHE)) {
			dontcache_fallback(q);
			return REQ_AGAIN;
		}
		if (err == EINVAL && q->direct) {
			direct_fallback(q);
			return REQ_AGAIN;
		}
		req_finish(q, err);
		return REQ_DONE;
	}
	if (res == 0) {
		/* EOF for reads; a write that makes no progress is an I/O error */
		req_finish(q,
			   q->op == REQ_WRITE && q->xfer < q->io_len ? EIO : 0);
		return REQ_DONE;
	}
	q->xfer += res;
	/* a short direct read is end of file: the rest would be misaligned */
	if (q->xfer >= q->io_len || (q->op == REQ_READ && q->direct)) {
		req_finish(q, 0);
		return REQ_DONE;
	}
	iov_advance(q, res);
	q->retries = 0;
	return REQ_AGAIN;
}

/* A write chosen for the kernel's kick (kick_choose, only for writes) and
 * still issued RWF_DONTCACHE (not fallen back on EOPNOTSUPP) */
static bool kicked(const struct dcio_req *q)
{
	return q->kick_timed && (q->rwflags & RWF_DONTCACHE);
}

/* The one way a request's syscalls are issued: on a pool thread, or on the
 * caller's (DCIO_FLUSH_INLINE, writes write_plan keeps there). */
void req_exec_sync(struct dcio_req *q)
{
	const struct dcio_syscalls *s = &q->f->e->sys;

	if (q->io_len == 0) {
		req_finish(q, 0);
		return;
	}
	for (;;) {
		uint64_t delay;
		ssize_t r;
		off_t off = (off_t)(q->io_off + q->xfer);
		bool timed = kicked(q);
		struct kick_timer kt;

		if (timed)
			kick_timer_start(&kt);
		if (q->op == REQ_WRITE && q->cred) {
			struct cred_saved cs;
			int err = cred_enter(s, q->cred, &cs);

			if (err) {
				DCIO_LOG_RL(
					q->f->e, DCIO_LOG_WARN, 60,
					"dcio: %s: cannot write as uid %u gid %u: %s",
					q->f->x->name,
					(unsigned int)q->cred->uid,
					(unsigned int)q->cred->gid,
					strerror(err));
				req_finish(q, err);
				return;
			}
			r = s->pwritev2(q->fd, q->iov, q->iovcnt, off,
					q->rwflags);
			cred_leave(s, &cs);
		} else if (q->op == REQ_WRITE) {
			r = s->pwritev2(q->fd, q->iov, q->iovcnt, off,
					q->rwflags);
		} else {
			r = s->preadv2(q->fd, q->iov, q->iovcnt, off,
				       q->rwflags);
		}
		if (timed) {
			struct kick_ctx kc = export_kick(q->f->x);

			kick_timer_end(&kt, &kc, r);
		}
		if (req_result(q, r < 0 ? -(long)errno : (long)r) == REQ_DONE)
			return;
		delay = req_retry_delay_ns(q);
		if (delay)
			usleep((useconds_t)(delay / 1000));
		else if (q->retries)
			sched_yield();
	}
}

static void copy_out(struct dcio_req *q)
{
	uint64_t skip = q->off - q->io_off;
	uint64_t n = q->xfer > skip ? q->xfer - skip : 0;

	if (n > q->len)
		n = q->len;
	const char *src = (const char *)q->bounce + skip;
	uint64_t left = n;

	for (int i = 0; i < q->uiovcnt && left; i++) {
		uint64_t l =
			q->uiov[i].iov_len < left ? q->uiov[i].iov_len : left;
		memcpy(q->uiov[i].iov_base, src, l);
		src += l;
		left -= l;
	}
	q->xfer = n;
}

static void top_finish(struct dcio_req *q, int err);

static void child_done(struct dcio_req *c, int err)
{
	struct dcio_req *p = c->parent;
	int zero = 0;

	if (err)
		__atomic_compare_exchange_n(&p->err, &zero, err, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&p->xfer, c->xfer, __ATOMIC_SEQ_CST);
	bounce_put(&c->f->e->bounce, c->bounce, c->bounce_len);
	free(c);
	if (atomic_fetch_sub(&p->children, 1) == 1)
		top_finish(p, __atomic_load_n(&p->err, __ATOMIC_SEQ_CST));
}

static void kick_inline(struct dcio_file *f, uint64_t off, uint64_t len)
{
	ST_ADD(f->x->st.fl_inline_kicks, 1);
	em_sync_file_range(f, off, len, SYNC_FILE_RANGE_WRITE);
}

/* A dropbehind write chosen for a kick (write_plan): its write-back
 * started on the thread that wrote it (the caller's, or a pool thread for
 * a write handed off), timed as RWF_DONTCACHE's own kick is */
static void kick_timed(struct dcio_file *f, uint64_t off, uint64_t len)
{
	struct kick_timer kt;
	struct kick_ctx kc;

	kick_timer_start(&kt);
	kick_inline(f, off, len);
	kc = export_kick(f->x);
	kick_timer_end(&kt, &kc, (ssize_t)len);
}

/* End of a request's I/O (a leaf: one syscall stream). */
void req_finish(struct dcio_req *q, int err)
{
	struct dcio_file *f = q->f;

	if (q->op == REQ_WRITE && !err) {
		ST_ADD(f->x->st.leaf_bytes[q->mode], q->xfer);
		if (q->mode == DCIO_WRITE_DROPBEHIND) {
			atomic_store(&f->used_dropbehind, true);
			/* writeback of it starts once the whole write is acknowledged */
			__atomic_store_n(
				&(q->parent ? q->parent : q)->db_written, true,
				__ATOMIC_RELEASE);
		} else if (q->mode == DCIO_WRITE_DONTCACHE && !q->inline_) {
			/* The kernel drops RWF_DONTCACHE pages only when writeback
			 * completes in task context; on ext4 overwrites it completes
			 * in IRQ context and the pages stay (6.18). The flusher drops
			 * what the kernel left. */
			atomic_store(&f->used_dropbehind, true);
			__atomic_store_n(
				&(q->parent ? q->parent : q)->dc_written, true,
				__ATOMIC_RELEASE);
		}
	}
	if (q->parent)
		child_done(q, err);
	else
		top_finish(q, err);
}

/* An UNSTABLE write may be answered durable (stable_reply_ms) when it can
 * ride a group flush that, going by the export's recent ones, ends within
 * the window. Not in Flush_Mode = inline (its stable writes flush on the
 * caller). */
static bool stable_reply(const struct dcio_req *q)
{
	const struct dcio_export *x = q->f->x;
	uint64_t ms = XP(x, stable_reply_ms);

	return ms && !q->inline_ &&
	       atomic_load(&x->flush_ns_avg) <= ms * 1000000ull;
}

static void top_finish(struct dcio_req *q, int err)
{
	struct dcio_file *f = q->f;
	struct dcio_stats *st = &f->x->st;

	if (q->op == REQ_READ) {
		if (q->bounce && !err)
			copy_out(q);
		if (!err) {
			ST_ADD(st->r_ops, 1);
			ST_ADD(st->r_bytes, q->xfer);
		} else {
			stat_error(st, err);
		}
		req_complete(q, err);
		return;
	}
	if (q->rl_held)
		for (struct dcio_req *w = rl_release(&f->rl, q), *nx; w;
		     w = nx) {
			nx = w->next;
			req_start(w);
		}
	if (err) {
		em_write_error(f, q->off, q->len, err);
		falloc_untrack(q);
		if (q->throttled)
			flusher_written(f->x, q->throttled);
		req_complete(q, err);
		return;
	}
	ST_ADD(st->w_ops[q->top_mode], 1);
	ST_ADD(st->w_bytes[q->top_mode], q->len);
	em_acked(f, q->off, q->len, q->err_gen);
	falloc_untrack(q);
	/* Only now, with the range pending: an error of its writeback must find
	 * it there to mark it lost (the syscall consumed the kernel's report). */
	if (__atomic_load_n(&q->db_written, __ATOMIC_ACQUIRE)) {
		/* (write_plan kicks no inline write: it is kicked untimed) */
		if (q->kick_timed)
			kick_timed(f, q->off, q->len);
		else if (q->inline_)
			kick_inline(f, q->off, q->len);
		flusher_note(f, q->off, q->len,
			     q->kick_timed || q->inline_ ? FL_STARTED
							 : FL_DIRTY);
	} else if (__atomic_load_n(&q->dc_written, __ATOMIC_ACQUIRE)) {
		flusher_note(f, q->off, q->len,
			     kicked(q) ? FL_KICKED : FL_STARTED);
	}
	if (q->throttled)
		flusher_written(f->x, q->throttled);
	if (q->stable == DCIO_UNSTABLE) {
		if (stable_reply(q)) {
			q->opportunistic = true;
			ST_ADD(st->sr_joined, 1);
			gc_join_async(f, q, req_complete);
		} else {
			req_complete(q, 0);
		}
	} else if (q->inline_) {
		unsigned int fl = GC_FORCE | GC_CHECK_LOST;

		if (q->stable == DCIO_FILE_SYNC)
			fl |= GC_FSYNC;
		int err = gc_commit(f, q->off, q->len, fl);

		q->is_durable = err == 0;
		req_complete(q, err);
	} else {
		gc_join_async(f, q, req_complete);
	}
}

void req_free(struct dcio_req *q)
{
	if (!q->parent)
		free(q->cred);
	free(q);
}

/* Calls done and releases everything the request held. */
void req_complete(struct dcio_req *q, int err)
{
	struct dcio_file *f = q->f;
	struct dcio_export *x = f->x;
	uint64_t lat = now_ns() - q->t0;
	dcio_done_fn done = q->done;
	void *arg = q->arg;
	size_t bytes = q->xfer;

	if (q->op == REQ_WRITE) {
		hist_add(&x->st.lat_w, lat);
		inflight_release(x, q->held);
	} else {
		hist_add(&x->st.lat_r, lat);
	}
	bounce_put(&f->e->bounce, q->bounce, q->bounce_len);
	if (q->durable)
		*q->durable = q->is_durable && !err;
	req_free(q);
	done(arg, err, bytes);
	file_put(f);
}

static void pool_io_run(struct dcio_job *j)
{
	req_exec_sync((struct dcio_req *)j);
}

void req_submit(struct dcio_req *q)
{
	struct dcio_engine *e = q->f->e;

	if (q->inline_ || q->caller) {
		req_exec_sync(q);
	} else {
		q->job.run = pool_io_run;
		pool_post(&e->pool, &q->job);
	}
}

/* The parent may be gone as soon as its last child completes: copy first. */
void req_start(struct dcio_req *q)
{
	struct dcio_req *kids[3];
	int n = q->nkids;

	if (!n) {
		req_submit(q);
		return;
	}
	memcpy(kids, q->kids, sizeof(kids));
	for (int i = 0; i < n; i++)
		req_submit(kids[i]);
}
