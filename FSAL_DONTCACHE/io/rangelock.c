// SPDX-License-Identifier: LGPL-3.0-or-later
/* Range lock for files written in direct mode. An O_DIRECT write must not
 * meet cached pages of an overlapping write in flight: the kernel cannot
 * invalidate them, warns of a collision and reports EIO to the next fsync.
 * Overlapping writes (page granularity) therefore run one after another, in
 * arrival order; a queued write is started by the completion that frees it,
 * so the submitting thread never blocks (except for a write issued on its
 * caller's thread, inline or direct up to caller_write_max, where it waits
 * since done must come before dcio_write returns). */
#include "rangelock.h"
#include "req_types.h"

static bool overlaps(const struct dcio_req *a, const struct dcio_req *b)
{
	return a->rl_lo < b->rl_hi && b->rl_lo < a->rl_hi;
}

static bool conflicts(const struct dcio_req *list, const struct dcio_req *q,
		      const struct dcio_req *stop)
{
	for (; list && list != stop; list = list->rl_next)
		if (overlaps(list, q))
			return true;
	return false;
}

static void push(struct dcio_req **head, struct dcio_req *q)
{
	q->rl_next = *head;
	*head = q;
}

static void unlink_from(struct dcio_req **head, struct dcio_req *q)
{
	for (struct dcio_req **pp = head; *pp; pp = &(*pp)->rl_next)
		if (*pp == q) {
			*pp = q->rl_next;
			q->rl_next = NULL;
			return;
		}
}

static void append(struct dcio_req **head, struct dcio_req *q)
{
	struct dcio_req **pp = head;

	while (*pp)
		pp = &(*pp)->rl_next;
	q->rl_next = NULL;
	*pp = q;
}

void rl_init(struct rangelock *rl, pthread_mutex_t *mu, pthread_cond_t *cv)
{
	rl->active = rl->waitq = NULL;
	rl->mu = mu;
	rl->cv = cv;
}

bool rl_start(struct rangelock *rl, struct dcio_req *q, uint64_t a)
{
	q->rl_lo = q->off / a * a;
	q->rl_hi = (q->off + q->len + a - 1) / a * a;
	if (q->rl_hi == q->rl_lo)
		q->rl_hi = q->rl_lo + a;
	pthread_mutex_lock(rl->mu);
	if (!conflicts(rl->active, q, NULL) && !conflicts(rl->waitq, q, NULL)) {
		push(&rl->active, q);
		q->rl_held = true;
		pthread_mutex_unlock(rl->mu);
		return true;
	}
	append(&rl->waitq, q);
	if (q->inline_ || q->caller) {
		while (!q->rl_held)
			pthread_cond_wait(rl->cv, rl->mu);
		pthread_mutex_unlock(rl->mu);
		return true;
	}
	pthread_mutex_unlock(rl->mu);
	return false;
}

struct dcio_req *rl_release(struct rangelock *rl, struct dcio_req *q)
{
	struct dcio_req *go = NULL;
	bool wake = false;

	pthread_mutex_lock(rl->mu);
	unlink_from(&rl->active, q);
	q->rl_held = false;
	for (struct dcio_req *w = rl->waitq, *nx; w; w = nx) {
		nx = w->rl_next;
		if (conflicts(rl->active, w, NULL) ||
		    conflicts(rl->waitq, w, w))
			continue;
		unlink_from(&rl->waitq, w);
		push(&rl->active, w);
		w->rl_held = true;
		if (w->inline_ || w->caller) {
			wake = true;
		} else {
			/* rl_next is free again: chain the ones to start */
			w->next = go;
			go = w;
		}
	}
	if (wake)
		pthread_cond_broadcast(rl->cv);
	pthread_mutex_unlock(rl->mu);
	return go;
}
