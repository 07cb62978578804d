// SPDX-License-Identifier: LGPL-3.0-or-later
/* An engine thread owning one io_uring. Submitters queue requests and wake it
 * through an eventfd whose read is kept posted on the ring, so the thread
 * sleeps in one place (io_uring_submit_and_wait) for both new work and
 * completions. RWF_DONTCACHE travels in sqe->rw_flags. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "caps.h"
#include "core.h"
#include "cred.h"
#include "log.h"
#include "queue.h"
#include "req.h"
#include "ring.h"
#include "util.h"

#define TAG_WAKE 1ull

static bool arm_wake(struct dcio_ring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	if (!sqe)
		return false;
	io_uring_prep_read(sqe, r->efd, &r->efd_val, sizeof(r->efd_val), 0);
	io_uring_sqe_set_data64(sqe, TAG_WAKE);
	return true;
}

static void prep(struct io_uring_sqe *sqe, struct dcio_req *q, int pers)
{
	off_t off = (off_t)(q->io_off + q->xfer);

	q->pers = false;
	if (q->op == REQ_WRITE) {
		io_uring_prep_writev2(sqe, q->fd, q->iov, q->iovcnt, off,
				      q->rwflags);
		if (pers > 0) {
			sqe->personality = (__u16)pers;
			q->pers = true;
		}
	} else
		io_uring_prep_readv2(sqe, q->fd, q->iov, q->iovcnt, off,
				     q->rwflags);
	io_uring_sqe_set_data(sqe, q);
}

struct backlog {
	struct dcio_req *h, *t;
};

static void bl_push(struct backlog *b, struct dcio_req *q)
{
	QUEUE_APPEND(b->h, b->t, q);
}

static void bl_take(struct dcio_ring *r, struct backlog *b)
{
	pthread_mutex_lock(&r->mu);
	if (r->qh) {
		if (b->t)
			b->t->next = r->qh;
		else
			b->h = r->qh;
		b->t = r->qt;
		r->qh = r->qt = NULL;
	}
	pthread_mutex_unlock(&r->mu);
}

/* Every SQE prepared so far handed to the kernel, which takes each one's
 * personality at submission: io_uring_submit may take fewer than were
 * prepared (and nothing, -EAGAIN/-EBUSY, while the CQ is full). Bounded:
 * false when some are still waiting. */
static bool submit_all(struct dcio_ring *r)
{
	for (int i = 0; i < 8 && io_uring_sq_ready(&r->ring) > 0; i++) {
		int n = r->e->sys.uring_submit(&r->ring);

		if (n < 0 && n != -EINTR && n != -EAGAIN && n != -EBUSY)
			break;
	}
	return io_uring_sq_ready(&r->ring) == 0;
}

/* Personalities off for this ring: its writes with a caller's identity go
 * to the pool from now on (logged once per ring). */
static void pers_off(struct dcio_ring *r, const char *why)
{
	if (r->pers_off)
		return;
	r->pers_off = true;
	r->e->log(
		DCIO_LOG_WARN,
		"dcio: engine ring: io_uring personalities unavailable (%s): writes with a caller's identity go to the pool",
		why);
}

/* The personality the ring issues c's writes with: registered while this
 * thread holds c's identity (cred_enter), so that the kernel issues the
 * write, on the ring or in io-wq, with c's fsuid, fsgid, groups and the
 * capabilities left to them. Kept per ring, at most DCIO_RING_PERSONALITIES;
 * the least recently used goes (the SQEs prepared so far are submitted
 * first: the kernel takes a personality's credentials at submission).
 * -1 when none can be had (the caller hands the request to the pool, whose
 * thread switches its own identity around the syscall). */
static int ring_personality(struct dcio_ring *r, const struct cred_copy *c)
{
	struct ring_pers *slot = NULL;
	struct cred_saved cs;
	int id, err;

	if (r->pers_off)
		return -1;
	r->pers_tick++;
	for (unsigned int i = 0; i < DCIO_RING_PERSONALITIES; i++) {
		struct ring_pers *p = &r->pers[i];

		if (p->c && cred_copy_eq(p->c, c)) {
			p->used = r->pers_tick;
			return p->id;
		}
		if (!p->c) {
			if (!slot || slot->c)
				slot = p;
		} else if (!slot || (slot->c && p->used < slot->used)) {
			slot = p;
		}
	}
	/* the slot's personality goes: the SQEs that carry it go out first;
	 * while some cannot, this write takes the pool */
	if (slot->c && !submit_all(r))
		return -1;
	struct cred_copy *k = malloc(sizeof(*k) + c->ngroups * sizeof(gid_t));

	if (!k)
		return -1;
	memcpy(k, c, sizeof(*k) + c->ngroups * sizeof(gid_t));
	err = cred_enter(&r->e->sys, c, &cs);
	if (err) {
		free(k);
		return -1;
	}
	id = io_uring_register_personality(&r->ring);
	cred_leave(&r->e->sys, &cs);
	if (id <= 0) {
		free(k);
		if (id == -EINVAL || id == -EOPNOTSUPP)
			pers_off(r, strerror(-id));
		return -1;
	}
	if (slot->c) {
		io_uring_unregister_personality(&r->ring, slot->id);
		free(slot->c);
	}
	slot->c = k;
	slot->id = id;
	slot->used = r->pers_tick;
	return id;
}

/* Moves backlog into SQEs while the CQ has room for their completions. */
static void fill(struct dcio_ring *r, struct backlog *b, unsigned int *inflight,
		 bool *need_arm)
{
	if (*need_arm && arm_wake(r))
		*need_arm = false;
	while (b->h && *inflight < r->cap) {
		struct dcio_req *w = b->h;
		int pers = 0;

		if (w->op == REQ_WRITE && w->cred && w->io_len)
			pers = ring_personality(r, w->cred);
		if (pers < 0) {
			b->h = w->next;
			if (!b->h)
				b->t = NULL;
			w->next = NULL;
			req_pool_submit(w);
			continue;
		}
		struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

		if (!sqe) {
			r->e->sys.uring_submit(&r->ring);
			sqe = io_uring_get_sqe(&r->ring);
			if (!sqe)
				return;
		}
		struct dcio_req *q = b->h;

		b->h = q->next;
		if (!b->h)
			b->t = NULL;
		if (q->io_len == 0) {
			io_uring_prep_nop(sqe);
			io_uring_sqe_set_data(sqe, q);
		} else {
			prep(sqe, q, pers);
		}
		(*inflight)++;
	}
}

/* Requests whose syscall answered EINTR/EAGAIN again wait out their backoff
 * (req_retry_delay_ns) in later, not on the ring: the thread goes on serving
 * the others meanwhile. Moves the due ones to the backlog; returns the time
 * until the next one is due (0: none waits). */
static uint64_t release_due(struct backlog *later, struct backlog *b)
{
	struct dcio_req *q = later->h, *keep_h = NULL, *keep_t = NULL;
	uint64_t now, next = 0;

	if (q == NULL)
		return 0;
	now = now_ns();
	while (q) {
		struct dcio_req *nx = q->next;

		q->next = NULL;
		if (q->retry_at <= now) {
			bl_push(b, q);
		} else {
			QUEUE_APPEND(keep_h, keep_t, q);
			if (next == 0 || q->retry_at - now < next)
				next = q->retry_at - now;
		}
		q = nx;
	}
	later->h = keep_h;
	later->t = keep_t;
	return next;
}

static void reap(struct dcio_ring *r, struct backlog *b, struct backlog *later,
		 unsigned int *inflight, bool *need_arm)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;

	io_uring_for_each_cqe(&r->ring, head, cqe) {
		n++;
		/* (the timeout a kernel without IORING_FEAT_EXT_ARG gets
		 * from io_uring_submit_and_wait_timeout as an SQE) */
		if (cqe->user_data == LIBURING_UDATA_TIMEOUT)
			continue;
		if (cqe->user_data == TAG_WAKE) {
			atomic_store(&r->wake, 0);
			*need_arm = true;
			continue;
		}
		struct dcio_req *q = io_uring_cqe_get_data(cqe);
		int res = cqe->res;

		(*inflight)--;
		if (q->io_len == 0) {
			req_finish(q, 0);
			continue;
		}
		if (q->op == REQ_WRITE && r->e->sys.uring_write_res)
			res = r->e->sys.uring_write_res(res, q->pers);
		/* An LSM (SELinux's io_uring override_creds, AppArmor) may
		 * refuse a personality per request, at submission: the
		 * ring's personalities are off, and this write goes to the
		 * pool, whose thread switches its own identity (a refusal
		 * that was the caller's own, an append-only file, is given
		 * there again). */
		if (q->pers && (res == -EACCES || res == -EPERM)) {
			pers_off(r, strerror(-res));
			q->pers = false;
			req_pool_submit(q);
			continue;
		}
		if (req_result(q, res) == REQ_AGAIN) {
			uint64_t d = req_retry_delay_ns(q);

			q->retry_at = d ? now_ns() + d : 0;
			bl_push(d ? later : b, q);
		}
	}
	io_uring_cq_advance(&r->ring, n);
}

static void *ring_main(void *arg)
{
	struct dcio_ring *r = arg;
	struct backlog b = { 0 }, later = { 0 };
	unsigned int inflight = 0;
	bool need_arm = true;

	thread_caps(r->e->log);
	thread_nice(r->e->nice);
	for (;;) {
		uint64_t next;
		int rc;

		bl_take(r, &b);
		next = release_due(&later, &b);
		fill(r, &b, &inflight, &need_arm);
		pthread_mutex_lock(&r->mu);
		bool done =
			r->stop && !r->qh && !b.h && !later.h && inflight == 0;
		pthread_mutex_unlock(&r->mu);
		if (done)
			break;
		if (next != 0) {
			struct __kernel_timespec ts = {
				.tv_sec = (long long)(next / 1000000000ull),
				.tv_nsec = (long long)(next % 1000000000ull)
			};
			struct io_uring_cqe *cqe;

			rc = io_uring_submit_and_wait_timeout(&r->ring, &cqe, 1,
							      &ts, NULL);
			if (rc == -ETIME)
				rc = 0;
		} else {
			rc = io_uring_submit_and_wait(&r->ring, 1);
		}
		if (rc < 0 && rc != -EINTR && rc != -EBUSY && rc != -EAGAIN) {
			DCIO_LOG_RL(
				r->e, DCIO_LOG_WARN, 10,
				"dcio: engine ring: io_uring_submit_and_wait: %s",
				strerror(-rc));
			usleep(1000);
		}
		reap(r, &b, &later, &inflight, &need_arm);
	}
	return NULL;
}

int ring_start(struct dcio_engine *e, struct dcio_ring *r, unsigned int entries,
	       unsigned int idx)
{
	struct io_uring_params p = { 0 };

	r->e = e;
	r->efd = eventfd(0, EFD_CLOEXEC);
	if (r->efd < 0)
		return errno;
	int rc = io_uring_queue_init_params(entries, &r->ring, &p);

	if (rc < 0) {
		close(r->efd);
		return -rc;
	}
	/* one CQ slot stays for the wakeup read */
	r->cap = p.cq_entries - 1;
	pthread_mutex_init(&r->mu, NULL);
	atomic_init(&r->wake, 0);
	rc = pthread_create(&r->tid, NULL, ring_main, r);
	if (rc) {
		io_uring_queue_exit(&r->ring);
		close(r->efd);
		pthread_mutex_destroy(&r->mu);
		return rc;
	}
	char name[16];

	snprintf(name, sizeof(name), "dcio-ring%u", idx);
	pthread_setname_np(r->tid, name);
	return 0;
}

static void wake(struct dcio_ring *r)
{
	if (atomic_exchange(&r->wake, 1) == 0) {
		uint64_t one = 1;

		while (write(r->efd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
	}
}

void ring_post(struct dcio_ring *r, struct dcio_req *q)
{
	pthread_mutex_lock(&r->mu);
	QUEUE_APPEND(r->qh, r->qt, q);
	pthread_mutex_unlock(&r->mu);
	wake(r);
}

void ring_stop(struct dcio_ring *r)
{
	pthread_mutex_lock(&r->mu);
	r->stop = true;
	pthread_mutex_unlock(&r->mu);
	/* the flag may already be set by a wakeup still in flight: force one */
	uint64_t one = 1;

	while (write(r->efd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	pthread_join(r->tid, NULL);
	io_uring_queue_exit(&r->ring);
	for (unsigned int i = 0; i < DCIO_RING_PERSONALITIES; i++)
		free(r->pers[i].c);
	close(r->efd);
	pthread_mutex_destroy(&r->mu);
}
