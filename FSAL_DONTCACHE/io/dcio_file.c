// SPDX-License-Identifier: LGPL-3.0-or-later
/* Files: open/close, and turning dcio_write/dcio_read into requests (mode
 * choice, the O_DIRECT split and widening). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bounce.h"
#include "commit.h"
#include "core.h"
#include "cred.h"
#include "errmem.h"
#include "falloc.h"
#include "flusher.h"
#include "path.h"
#include "rangelock.h"
#include "req.h"
#include "util.h"

#ifndef STATX_DIOALIGN
#define STATX_DIOALIGN 0x00002000U
#endif

/* struct statx as of Linux 6.1, declared here so old headers do not matter */
struct dc_statx {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, pad1;
	uint64_t ino, size, blocks, attributes_mask;
	struct {
		int64_t sec;
		uint32_t nsec;
		int32_t pad;
	} atime, btime, ctime, mtime;
	uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
	uint64_t mnt_id;
	uint32_t dio_mem_align, dio_offset_align;
	uint64_t spare[12];
};
_Static_assert(sizeof(struct dc_statx) == 256, "statx layout");

static void open_direct(struct dcio_file *f)
{
	struct dc_statx sx;

	memset(&sx, 0, sizeof(sx));
	if (syscall(SYS_statx, f->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) <
		    0 ||
	    !(sx.mask & STATX_DIOALIGN) || !sx.dio_offset_align ||
	    sx.dio_mem_align >
		    f->e->page) { /* bounce buffers are page-aligned */
		ST_ADD(f->x->st.fb_direct, 1);
		return;
	}
	int acc = fcntl(f->fd, F_GETFL);

	if (acc < 0)
		return;
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", f->fd);
	f->dfd = open(path, (acc & O_ACCMODE) | O_DIRECT | O_CLOEXEC);
	if (f->dfd < 0) {
		ST_ADD(f->x->st.fb_direct, 1);
		return;
	}
	f->dio_off_align = sx.dio_offset_align;
	f->dio_mem_align = sx.dio_mem_align ? sx.dio_mem_align : 512;
}

int dcio_file_open(struct dcio_export *x, int fd, struct dcio_file **out)
{
	if (!x || fd < 0 || !out)
		return EINVAL;
	struct dcio_file *f = calloc(1, sizeof(*f));

	if (!f)
		return ENOMEM;
	f->x = x;
	f->e = x->e;
	f->fd = fd;
	f->dfd = -1;
	pthread_mutex_init(&f->mu, NULL);
	cond_init_mono(&f->cv); /* falloc.c's timed wait */
	rl_init(&f->rl, &f->mu, &f->cv);
	gc_init(f);
	if (XP(x, write_mode) == DCIO_WRITE_DIRECT ||
	    XP(x, read_mode) == DCIO_READ_DIRECT)
		open_direct(f);
	*out = f;
	return 0;
}

static void wait_idle(struct dcio_file *f)
{
	count_wait_zero(&f->mu, &f->cv, &f->outstanding);
}

/* Waits for the file's I/O, then flushes what is pending: 0 or its error.
 * A failing flush may post a settle flush to the pool: that one must be done
 * too before the file can go. */
static int quiesce(struct dcio_file *f)
{
	int rc;

	wait_idle(f);
	flusher_forget(f);
	rc = gc_dirty(f) ? gc_commit(f, 0, 0, 0) : 0;
	wait_idle(f);
	return rc;
}

static void drop_cache(struct dcio_file *f)
{
	if (atomic_load(&f->used_dropbehind))
		f->e->sys.posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
}

static int file_free(struct dcio_file *f, int err)
{
	int unrep = em_take_unreported(f);

	if (!err)
		err = unrep;
	drop_cache(f);
	if (f->dfd >= 0)
		close(f->dfd);
	close(f->fd);
	gc_fini(f);
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->mu);
	free(f);
	return err;
}

int dcio_file_close(struct dcio_file *f)
{
	if (!f)
		return EINVAL;
	return file_free(f, quiesce(f));
}

bool dcio_file_close_clean(struct dcio_file *f, int *err)
{
	if (!f) {
		*err = EINVAL;
		return false;
	}
	int rc = quiesce(f), lost = em_lost_err(f);

	if (lost) {
		/* the flusher forgot the file: drop what it would have;
		 * it stays open, no longer closing */
		drop_cache(f);
		flusher_keep(f);
		*err = rc ? rc : lost;
		return false;
	}
	*err = file_free(f, rc);
	return true;
}

void dcio_file_lose_all(struct dcio_file *f, int err)
{
	struct stat st;
	uint64_t end = UINT64_MAX;

	if (!f)
		return;
	if (fstat(f->fd, &st) == 0)
		end = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	pthread_mutex_lock(&f->gc.mu);
	if (end > 0)
		em_lose(f, 0, end, err ? err : EIO);
	pthread_mutex_unlock(&f->gc.mu);
}

int dcio_file_truncate(struct dcio_file *f, uint64_t size)
{
	if (!f)
		return EINVAL;
	if (size > INT64_MAX)
		return EFBIG;
	em_truncate_begin(f);
	int err = f->e->sys.ftruncate(f->fd, (off_t)size) < 0 ? errno : 0;

	em_truncate_end(f, size, err == 0);
	return err;
}

int dcio_file_fd(const struct dcio_file *f)
{
	return f ? f->fd : -1;
}

/* Page-aligned (mmap): open_direct refused files needing more. */
static bool bounce_alloc(struct dcio_req *q, uint64_t len)
{
	q->bounce_len = len ? len : 1;
	q->bounce = bounce_get(&q->f->e->bounce, q->bounce_len);
	return q->bounce != NULL;
}

static void copy_in(void *dst, const struct iovec *iov, int cnt, uint64_t skip,
		    uint64_t len)
{
	char *d = dst;

	for (int i = 0; i < cnt && len; i++) {
		uint64_t l = iov[i].iov_len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		uint64_t take = l - skip < len ? l - skip : len;

		memcpy(d, (const char *)iov[i].iov_base + skip, take);
		d += take;
		len -= take;
		skip = 0;
	}
}

static struct dcio_req *child(struct dcio_req *p, const struct iovec *iov,
			      int cnt, uint64_t off, uint64_t len, bool direct)
{
	struct dcio_file *f = p->f;
	struct dcio_req *c = req_new(f, REQ_WRITE, direct ? 1 : cnt);

	if (!c)
		return NULL;
	c->parent = p;
	c->cred = p->cred;
	c->inline_ = p->inline_;
	c->caller = p->caller;
	c->t0 = p->t0;
	c->off = c->io_off = off;
	c->len = c->io_len = len;
	if (direct) {
		if (!bounce_alloc(c, len)) {
			free(c);
			return NULL;
		}
		copy_in(c->bounce, iov, cnt, off - p->off, len);
		c->iovs[0] = (struct iovec){ c->bounce, len };
		c->iovcnt = 1;
		c->fd = f->dfd;
		c->direct = true;
		req_set_mode(c, DCIO_WRITE_DIRECT);
	} else {
		c->iovcnt = iov_slice(iov, cnt, off - p->off, len, c->iovs);
		req_set_mode(c, cached_write_mode(f->x));
	}
	return c;
}

/* Aligned middle O_DIRECT, head and tail through the cache. The split is at
 * page granularity (at least the DIO alignment) so that no page holds both
 * cached and direct bytes of one write. */
static int submit_direct(struct dcio_req *p, const struct iovec *iov, int cnt)
{
	struct dcio_file *f = p->f;
	uint64_t a = DIO_UNIT(f);
	uint64_t end = p->off + p->len;
	uint64_t lo = (p->off + a - 1) / a * a, hi = end / a * a;
	struct dcio_req *c[3] = { 0 };
	int n = 0;

	if (hi <= lo)
		return -1;
	if (lo > p->off) {
		c[n] = child(p, iov, cnt, p->off, lo - p->off, false);
		if (!c[n++])
			goto nomem;
	}
	c[n] = child(p, iov, cnt, lo, hi - lo, true);
	if (!c[n++])
		goto nomem;
	if (end > hi) {
		c[n] = child(p, iov, cnt, hi, end - hi, false);
		if (!c[n++])
			goto nomem;
	}
	atomic_store(&p->children, n);
	memcpy(p->kids, c, sizeof(c));
	p->nkids = n;
	return 0;
nomem:
	for (int i = 0; i < n; i++)
		if (c[i]) {
			bounce_put(&f->e->bounce, c[i]->bounce,
				   c[i]->bounce_len);
			free(c[i]);
		}
	return ENOMEM;
}

int dcio_write(struct dcio_file *f, const struct iovec *iov, int iovcnt,
	       uint64_t offset, enum dcio_stable stable,
	       const struct dcio_cred *cred, bool *durable, dcio_done_fn done,
	       void *arg)
{
	if (!f || !done || iovcnt < 0 || (iovcnt && !iov) ||
	    (unsigned int)stable > DCIO_FILE_SYNC)
		return EINVAL;
	struct dcio_export *x = f->x;
	uint64_t len = iov_total(iov, iovcnt);
	int rc;
	struct dcio_req *q = req_new(f, REQ_WRITE, iovcnt);

	if (!q)
		return ENOMEM;
	q->cred = cred_copy_new(cred, &rc);
	if (rc) {
		free(q);
		return rc;
	}
	/* where and how it is issued: the one decision (path.c) */
	struct write_plan w = write_plan(f, len);

	/* What a queued write holds is memory: the caller's buffer, and for a
	 * direct write its bounce copy too (counted whether or not the write
	 * has an aligned middle: the mode decides before the split) */
	q->top_mode = w.mode;
	q->held = w.mode == DCIO_WRITE_DIRECT ? 2 * len : len;
	rc = inflight_admit(x, q->held);
	if (rc) {
		req_free(q);
		return rc;
	}
	file_get(f);
	q->err_gen = em_write_begin(f);
	q->off = q->io_off = offset;
	q->len = q->io_len = len;
	q->stable = stable;
	q->durable = durable;
	q->done = done;
	q->arg = arg;
	falloc_track(q);
	q->inline_ = w.inline_;
	/* On the caller's thread, no hand-off, answered before dcio_write
	 * returns (a direct write and its split children too). Handed to the
	 * pool, a direct write would be answered from there: the caller's
	 * thread (a ganesha worker) would go on to take the next request
	 * while this one's buffers stay allocated in its malloc arena until
	 * the device completes it, so every arena grew to hold many writes'
	 * buffers at once. On the caller's thread a worker holds one
	 * write's buffers at a time and frees them where it took them. */
	q->caller = w.where == WHERE_CALLER && !q->inline_;
	if (q->caller) {
		ST_ADD(x->st.w_worker_ops, 1);
		ST_ADD(x->st.w_worker_bytes, len);
	}
	if (w.mode == DCIO_WRITE_DIRECT) {
		rc = submit_direct(q, iov, iovcnt);
		if (rc == 0) {
			if (rl_start(&f->rl, q, DIO_UNIT(f)))
				req_start(q);
			return 0;
		}
		if (rc == ENOMEM) {
			inflight_release(x, q->held);
			falloc_untrack(q);
			req_free(q);
			file_put(f);
			return ENOMEM;
		}
		/* no aligned middle: the whole write goes through the cache */
		w.issue = cached_write_mode(x);
	}
	req_set_mode(q, w.issue);
	memcpy(q->iovs, iov, (size_t)iovcnt * sizeof(*iov));
	q->iovcnt = iovcnt;
	if (w.rangelock) {
		if (rl_start(&f->rl, q, DIO_UNIT(f)))
			req_start(q);
		return 0;
	}
	if (w.kick) {
		q->kick_timed = true;
		if (q->caller) /* worker_writes.kicked */
			ST_ADD(x->st.kick_ops, 1);
	}
	if (w.throttle) {
		flusher_throttle(x, q->len);
		q->throttled = q->len;
	}
	req_submit(q);
	return 0;
}

static bool setup_direct_read(struct dcio_req *q, const struct iovec *iov,
			      int cnt)
{
	struct dcio_file *f = q->f;
	uint64_t a = f->dio_off_align;
	uint64_t lo = q->off / a * a, hi = (q->off + q->len + a - 1) / a * a;

	if (!bounce_alloc(q, hi - lo))
		return false;
	q->iovs[0] = (struct iovec){ q->bounce, hi - lo };
	q->iovcnt = 1;
	q->io_off = lo;
	q->io_len = hi - lo;
	q->uiov = iov;
	q->uiovcnt = cnt;
	q->fd = f->dfd;
	q->direct = true;
	return true;
}

int dcio_read(struct dcio_file *f, const struct iovec *iov, int iovcnt,
	      uint64_t offset, dcio_done_fn done, void *arg)
{
	if (!f || !done || iovcnt < 0 || (iovcnt && !iov))
		return EINVAL;
	struct dcio_export *x = f->x;
	struct dcio_req *q = req_new(f, REQ_READ, iovcnt);

	if (!q)
		return ENOMEM;
	q->off = q->io_off = offset;
	q->len = q->io_len = iov_total(iov, iovcnt);
	q->done = done;
	q->arg = arg;
	q->inline_ = XP(x, flush_mode) == DCIO_FLUSH_INLINE;
	engine_read_seen(f->e, now_ns());
	if (XP(x, read_mode) == DCIO_READ_DIRECT && f->dfd >= 0 && q->len) {
		if (!setup_direct_read(q, iov, iovcnt)) {
			free(q);
			return ENOMEM;
		}
	} else {
		q->rwflags = cached_read_flags(x);
		memcpy(q->iovs, iov, (size_t)iovcnt * sizeof(*iov));
		q->iovcnt = iovcnt;
	}
	file_get(f);
	req_submit(q);
	return 0;
}
