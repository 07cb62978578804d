// SPDX-License-Identifier: LGPL-3.0-or-later
/* The process-wide engine: syscall table, engine threads (rings or pool),
 * the blocking-work pool and the flusher. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "engine.h"

static int real_fdatasync(int fd)
{
	return fdatasync(fd);
}
static int real_fsync(int fd)
{
	return fsync(fd);
}

static int real_sync_file_range(int fd, off_t off, off_t len,
				unsigned int flags)
{
	return sync_file_range(fd, off, len, flags);
}

/* posix_fadvise returns the errno; the table uses -1/errno like the rest */
static int real_fadvise(int fd, off_t off, off_t len, int advice)
{
	int rc = posix_fadvise(fd, off, len, advice);
	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}

static void fill_syscalls(struct dcio_syscalls *d,
			  const struct dcio_syscalls *s)
{
	if (s)
		*d = *s;
	else
		memset(d, 0, sizeof(*d));
	if (!d->pwritev2)
		d->pwritev2 = pwritev2;
	if (!d->preadv2)
		d->preadv2 = preadv2;
	if (!d->fdatasync)
		d->fdatasync = real_fdatasync;
	if (!d->fsync)
		d->fsync = real_fsync;
	if (!d->sync_file_range)
		d->sync_file_range = real_sync_file_range;
	if (!d->posix_fadvise)
		d->posix_fadvise = real_fadvise;
	if (!d->ftruncate)
		d->ftruncate = ftruncate;
	if (!d->fallocate)
		d->fallocate = fallocate;
}

void cond_init_mono(pthread_cond_t *cv)
{
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &a);
	pthread_condattr_destroy(&a);
}

struct timespec ts_at_ns(uint64_t ns)
{
	return (struct timespec){ (time_t)(ns / 1000000000ull),
				  (long)(ns % 1000000000ull) };
}

int threads_start(pthread_t *tids, unsigned n, void *(*fn)(void *), void *arg,
		  const char *prefix, unsigned *started)
{
	for (unsigned i = 0; i < n; i++) {
		int rc = pthread_create(&tids[i], NULL, fn, arg);
		if (rc)
			return rc;
		char tn[16];
		snprintf(tn, sizeof(tn), "%s%u", prefix, i);
		pthread_setname_np(tids[i], tn);
		(*started)++;
	}
	return 0;
}

/* For waits on a condition variable made by cond_init_mono. */
void deadline_after(struct timespec *ts, uint32_t ms)
{
	*ts = ts_at_ns(now_ns() + (uint64_t)ms * 1000000ull);
}

/* Engine threads yield the CPU to ganesha's workers: io_uring's io-wq
 * workers, created by a ring thread, inherit its nice value. */
void thread_nice(int nice)
{
	if (nice > 0)
		(void)setpriority(PRIO_PROCESS, 0, nice);
}

/* What a thread may undo (CAP_SYS_NICE, or RLIMIT_NICE): bit 0, lower its
 * nice value again after raising it; bit 1, leave SCHED_IDLE for the
 * policy it had. Tried on a thread of its own. */
#define RENICE_NICE 1
#define RENICE_IDLE 2

/* This thread under SCHED_IDLE: the policy it left, or -1 (it was not
 * under SCHED_OTHER or SCHED_BATCH, or the change failed). */
static int to_idle(void)
{
	struct sched_param sp = { 0 };
	int policy = sched_getscheduler(0);

	if ((policy == SCHED_OTHER || policy == SCHED_BATCH) &&
	    sched_setscheduler(0, SCHED_IDLE, &sp) == 0)
		return policy;
	return -1;
}

static void *nice_probe(void *arg)
{
	struct sched_param sp = { 0 };
	int *ok = arg, policy;

	errno = 0;
	int was = getpriority(PRIO_PROCESS, 0);

	if (errno == 0 && setpriority(PRIO_PROCESS, 0, was + 1) == 0 &&
	    setpriority(PRIO_PROCESS, 0, was) == 0)
		*ok |= RENICE_NICE;
	if ((policy = to_idle()) >= 0 &&
	    sched_setscheduler(0, policy, &sp) == 0)
		*ok |= RENICE_IDLE;
	return NULL;
}

static int can_renice(void)
{
	pthread_t t;
	int ok = 0;

	if (pthread_create(&t, NULL, nice_probe, &ok) != 0)
		return 0;
	pthread_join(t, NULL);
	return ok;
}

/* The nice value this thread had before a large write niced it, kept
 * across requests (INT_MIN: the thread runs at its own). */
static __thread int nice_held = INT_MIN;
/* the policy it had before SCHED_IDLE (-1: none held) */
static __thread int policy_held = -1;

void dcio_nice_restore(void)
{
	if (nice_held == INT_MIN)
		return;
	if (policy_held >= 0) {
		struct sched_param sp = { 0 };

		(void)sched_setscheduler(0, policy_held, &sp);
		policy_held = -1;
	}
	(void)setpriority(PRIO_PROCESS, 0, nice_held);
	nice_held = INT_MIN;
}

void dcio_read_seen(struct dcio_engine *e, uint64_t now)
{
	__atomic_store_n(&e->last_read_ns, now, __ATOMIC_RELAXED);
	dcio_nice_restore();
}

void dcio_nice_write(const struct dcio_engine *e, size_t len)
{
	int was;

	if (len <= DCIO_NICE_WRITE_MIN || !e->nice_writes ||
	    now_ns() - __atomic_load_n(&e->last_read_ns, __ATOMIC_RELAXED) >
		    DCIO_NICE_READ_WINDOW_MS * 1000000ull) {
		dcio_nice_restore();
		return;
	}
	if (nice_held != INT_MIN)
		return;
	errno = 0;
	was = getpriority(PRIO_PROCESS, 0);
	if (errno || was >= e->writer_nice ||
	    setpriority(PRIO_PROCESS, 0, e->writer_nice) != 0)
		return;
	nice_held = was;
	if (e->writer_idle)
		policy_held = to_idle();
}

static bool start_rings(struct dcio_engine *e,
			const struct dcio_engine_params *p)
{
	unsigned entries = p->ring_entries >= 8 ? p->ring_entries : 64;

	e->rings = calloc(e->nrings, sizeof(*e->rings));
	if (!e->rings)
		return false;
	for (unsigned i = 0; i < e->nrings; i++) {
		if (ring_start(e, &e->rings[i], entries, i) == 0)
			continue;
		while (i--)
			ring_stop(&e->rings[i]);
		free(e->rings);
		e->rings = NULL;
		return false;
	}
	return true;
}

bool dcio_kernel_defers_kick(const char *release)
{
	unsigned long major, minor;
	char *end;

	if (!release || !isdigit((unsigned char)*release))
		return false;
	errno = 0;
	major = strtoul(release, &end, 10);
	if (errno || *end != '.' || !isdigit((unsigned char)end[1]))
		return false;
	minor = strtoul(end + 1, NULL, 10);
	if (errno)
		return false;
	return major > 7 || (major == 7 && minor >= 2);
}

bool dcio_engine_kick_deferred(const struct dcio_engine *e)
{
	return e && e->kick_deferred;
}

int dcio_engine_create(const struct dcio_engine_params *p,
		       const struct dcio_syscalls *sys,
		       struct dcio_engine **out)
{
	if (!p || !out)
		return EINVAL;
	struct dcio_engine *e = calloc(1, sizeof(*e));
	if (!e)
		return ENOMEM;
	fill_syscalls(&e->sys, sys);
	pthread_mutex_init(&e->mu, NULL);
	pthread_cond_init(&e->cv, NULL);
	bounce_init(e);
	e->nrings = p->threads ? p->threads : 1;
	e->nice = p->nice;
	e->writer_nice = p->writer_nice;
	if (p->writer_nice > 0) {
		int can = can_renice();

		e->nice_writes = can & RENICE_NICE;
		e->writer_idle = p->writer_idle && (can & RENICE_IDLE);
	}
	if (p->kick == DCIO_KICK_AUTO) {
		struct utsname u;
		e->kick_deferred =
			uname(&u) == 0 && dcio_kernel_defers_kick(u.release);
	} else {
		e->kick_deferred = p->kick == DCIO_KICK_DEFERRED;
	}
	atomic_init(&e->verifier_gen, 1);
	/* probed here, not on the first write's request path */
	(void)cred_can_switch();
	long page = sysconf(_SC_PAGESIZE);
	e->page = page > 0 ? (uint32_t)page : 4096;
	e->log = p->log ? p->log : dcio_log_stderr;

	/* rings bypass the table's pwritev2/preadv2, so overriding them means pool */
	bool want_uring =
		p->use_uring && !(sys && (sys->pwritev2 || sys->preadv2));
	int rc = pool_start(&e->pool, e->nrings, "dcio-pool", e->nice);
	if (!rc)
		rc = flusher_start(e);
	if (rc) {
		if (e->pool.tids)
			pool_stop(&e->pool);
		free(e);
		return rc;
	}
	e->uring = want_uring && start_rings(e, p);
	*out = e;
	return 0;
}

/* Counts of outstanding work (engine, export, file): taken per request,
 * the last put wakes whoever waits for zero. */
void count_get(pthread_mutex_t *mu, long *n)
{
	pthread_mutex_lock(mu);
	(*n)++;
	pthread_mutex_unlock(mu);
}

void count_put(pthread_mutex_t *mu, pthread_cond_t *cv, long *n)
{
	pthread_mutex_lock(mu);
	if (--*n == 0)
		pthread_cond_broadcast(cv);
	pthread_mutex_unlock(mu);
}

void count_wait_zero(pthread_mutex_t *mu, pthread_cond_t *cv, const long *n)
{
	pthread_mutex_lock(mu);
	while (*n > 0)
		pthread_cond_wait(cv, mu);
	pthread_mutex_unlock(mu);
}

void engine_get(struct dcio_engine *e)
{
	count_get(&e->mu, &e->outstanding);
}

void engine_put(struct dcio_engine *e)
{
	count_put(&e->mu, &e->cv, &e->outstanding);
}

static void pool_io_run(struct dcio_job *j)
{
	req_exec_sync((struct dcio_req *)j);
}

void engine_pool_submit(struct dcio_engine *e, struct dcio_req *q)
{
	q->job.run = pool_io_run;
	pool_post(&e->pool, &q->job);
}

void engine_submit(struct dcio_engine *e, struct dcio_req *q)
{
	if (q->inline_) {
		req_exec_sync(q);
	} else if (e->uring) {
		unsigned i = atomic_fetch_add(&e->rr, 1) % e->nrings;
		ring_post(&e->rings[i], q);
	} else {
		q->job.run = pool_io_run;
		pool_post(&e->pool, &q->job);
	}
}

void dcio_engine_destroy(struct dcio_engine *e)
{
	if (!e)
		return;
	count_wait_zero(&e->mu, &e->cv, &e->outstanding);
	if (e->uring)
		for (unsigned i = 0; i < e->nrings; i++)
			ring_stop(&e->rings[i]);
	free(e->rings);
	flusher_stop(e);
	pool_stop(&e->pool);
	bounce_fini(e);
	pthread_cond_destroy(&e->cv);
	pthread_mutex_destroy(&e->mu);
	free(e);
}

bool dcio_engine_uses_uring(const struct dcio_engine *e)
{
	return e && e->uring;
}
