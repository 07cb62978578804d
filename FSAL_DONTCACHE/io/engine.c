// SPDX-License-Identifier: LGPL-3.0-or-later
/* The process-wide engine: syscall table, the pool (the I/O handed off the
 * caller's thread, group-commit flushes) and the flusher. */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
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

#ifndef SYS_cachestat
#define SYS_cachestat 451 /* Linux 6.5, the same number on every arch */
#endif

/* cachestat(2) over [off, off + len): -1/errno (ENOSYS before Linux 6.5) */
static int real_cachestat(int fd, uint64_t off, uint64_t len,
			  struct dcio_cachestat *cs)
{
	struct {
		uint64_t off, len;
	} range = { off, len };
	struct {
		uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
			nr_recently_evicted;
	} k;

	if (syscall(SYS_cachestat, fd, &range, &k, 0) != 0)
		return -1;
	cs->nr_cache = k.nr_cache;
	cs->nr_dirty = k.nr_dirty;
	cs->nr_writeback = k.nr_writeback;
	return 0;
}

/* per thread, not glibc's broadcast to every thread */
static int real_setfsuid(uid_t id)
{
	return (int)syscall(SYS_setfsuid, id);
}

static int real_setfsgid(gid_t id)
{
	return (int)syscall(SYS_setfsgid, id);
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
	if (!d->cachestat)
		d->cachestat = real_cachestat;
	if (!d->setfsuid)
		d->setfsuid = real_setfsuid;
	if (!d->setfsgid)
		d->setfsgid = real_setfsgid;
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

int threads_start(pthread_t *tids, unsigned int n, void *(*fn)(void *),
		  void *arg, const char *prefix, unsigned int *started)
{
	for (unsigned int i = 0; i < n; i++) {
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

/* The engine's own threads (pool, flusher) yield the CPU to ganesha's
 * workers. Called only on a thread the engine created. */
void thread_nice(int nice)
{
	if (nice > 0)
		(void)setpriority(PRIO_PROCESS, 0, nice);
}

/* First thing on every thread the engine creates (pool, flusher):
 * CAP_SYS_RESOURCE goes, as ganesha takes it from its main thread
 * (lower_my_caps), which it does after the engine's threads were made
 * (caps.c). */
void thread_caps(dcio_log_fn log)
{
	int err = caps_drop_resource();

	if (err) {
		char name[16] = "?";

		pthread_getname_np(pthread_self(), name, sizeof(name));
		log(DCIO_LOG_CRIT,
		    "dcio: engine thread %s keeps CAP_SYS_RESOURCE (capset: %s): its writes as root pass quota limits and ext4's reserve",
		    name, strerror(err));
	}
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
	e->threads = p->threads ? p->threads : 1;
	e->nice = p->nice;
	e->kick = (unsigned int)p->kick <= DCIO_KICK_DEFERRED ? p->kick
							      : DCIO_KICK_AUTO;
	atomic_init(&e->verifier_gen, 1);
	/* probed here, not on the first write's request path */
	(void)cred_can_switch();
	long page = sysconf(_SC_PAGESIZE);

	e->page = page > 0 ? (uint32_t)page : 4096;
	e->log = p->log ? p->log : dcio_log_stderr;

	int rc = pool_start(&e->pool, e->threads, "dcio-pool", e->nice, e->log);

	if (!rc)
		rc = flusher_start(e);
	if (rc) {
		if (e->pool.tids)
			pool_stop(&e->pool);
		free(e);
		return rc;
	}
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

void engine_submit(struct dcio_engine *e, struct dcio_req *q)
{
	if (q->inline_ || q->caller) {
		req_exec_sync(q);
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
	flusher_stop(e);
	pool_stop(&e->pool);
	bounce_fini(e);
	pthread_cond_destroy(&e->cv);
	pthread_mutex_destroy(&e->mu);
	free(e);
}
