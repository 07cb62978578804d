// SPDX-License-Identifier: LGPL-3.0-or-later
/* The core objects' shared operations (core.h): counts of outstanding
 * work, the file's group-commit job, the export's in-flight bound and
 * error generation, the engine's recent reads. */
#include <errno.h>

#include "core.h"

void file_get(struct dcio_file *f)
{
	struct dcio_export *x = f->x;

	count_get(&f->mu, &f->outstanding);
	count_get(&x->mu, &x->outstanding);
	engine_get(f->e);
}

/* After the file's count drops the file may be freed by a closer: x and e
 * are read first. */
void file_put(struct dcio_file *f)
{
	struct dcio_export *x = f->x;
	struct dcio_engine *e = f->e;

	count_put(&f->mu, &f->cv, &f->outstanding);
	count_put(&x->mu, &x->cv, &x->outstanding);
	engine_put(e);
}

void engine_get(struct dcio_engine *e)
{
	count_get(&e->mu, &e->outstanding);
}

void engine_put(struct dcio_engine *e)
{
	count_put(&e->mu, &e->cv, &e->outstanding);
}

void file_post_gc(struct dcio_file *f)
{
	if (f->gc.job_posted)
		return;
	f->gc.job_posted = true;
	file_get(f);
	pool_post(&f->e->pool, &f->gc.job);
}

void engine_read_seen(struct dcio_engine *e, uint64_t now)
{
	__atomic_store_n(&e->last_read_ns, now, __ATOMIC_RELAXED);
}

bool engine_reads_recent(const struct dcio_engine *e)
{
	uint64_t last = __atomic_load_n(&e->last_read_ns, __ATOMIC_RELAXED);

	return last != 0 &&
	       now_ns() - last <= DCIO_PACE_READ_WINDOW_MS * 1000000ull;
}

bool engine_pace_write(const struct dcio_engine *e, uint64_t len)
{
	return e->nice > 0 && len > DCIO_PACE_WRITE_MIN &&
	       engine_reads_recent(e);
}

void export_note_error(struct dcio_export *x, int err)
{
	(void)err;
	atomic_fetch_add(&x->verifier_gen, 1);
	atomic_fetch_add(&x->e->verifier_gen, 1);
}

/* A write that does not fit waits for room; one larger than the bound is
 * admitted alone. */
int inflight_admit(struct dcio_export *x, uint64_t len)
{
	uint64_t max = 0; /* set by the loop condition */
	struct timespec ts;
	bool waited = false;

	pthread_mutex_lock(&x->mu);
	/* the bound is read again after each wait: a reload may change it */
	while (max = XP(x, max_inflight_bytes),
	       x->inflight > 0 && x->inflight + len > max) {
		if (!waited) {
			waited = true;
			ST_ADD(x->st.inflight_waits, 1);
			deadline_after(&ts, XP(x, inflight_wait_ms));
		}
		if (pthread_cond_timedwait(&x->cv, &x->mu, &ts) == ETIMEDOUT &&
		    x->inflight > 0 && x->inflight + len > max) {
			pthread_mutex_unlock(&x->mu);
			ST_ADD(x->st.eagain, 1);
			return EAGAIN;
		}
	}
	x->inflight += len;
	if (x->inflight > x->peak)
		x->peak = x->inflight;
	pthread_mutex_unlock(&x->mu);
	return 0;
}

void inflight_release(struct dcio_export *x, uint64_t len)
{
	pthread_mutex_lock(&x->mu);
	x->inflight -= len;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
}
