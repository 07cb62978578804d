/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Before Linux 7.2 an RWF_DONTCACHE write starts its pages' writeback inside
 * the syscall. Where the device keeps up that kick is the cheapest way to get
 * the pages written and dropped: the writeback walks pages the copy just
 * touched and the kernel drops them when it ends, where a flusher pass walks
 * them again, cold, and drops them with POSIX_FADV_DONTNEED (ext4 at 1.5 GB/s:
 * 0.90-0.94x the ganesha CPU per byte, 0.13-0.62x the page cache; issue 19,
 * bench/RESULTS.md Round 11). Where the device falls behind, the kick waits
 * for it in the writer's syscall (25-400 ms per MiB on a loop-backed xfs
 * taking ~400 MB/s, 0.69-0.77x the MB/s) and coalesced writeback wins.
 *
 * So a large write on the worker kicks unless kicked writes slept more than
 * kick_us_per_mib per MiB in their syscall for DCIO_KICK_PERSIST_MS on end: a
 * 1/4-weight average of their wall time less the time the thread ran or
 * waited for a CPU (schedstat), since beside readers the copy runs under
 * SCHED_IDLE and 64 writers share 2 CPUs; a stall of the device that every
 * writer sees at once (a few ms over the limit) stops nothing. Each worker
 * thread keeps its schedstat open from its first kicked write to its exit:
 * opening it for every write (a walk through /proc) took 3% of ganesha's CPU
 * at 64 writers; two preads of a kept fd take ~0.6 us. Past the limit the
 * export writes buffered until a hold has passed (DCIO_KICK_HOLD_MS, doubled
 * while the device stays slow) and the flusher holds no more than half the
 * writers' budget (where the device is slow, coalesced writers sit at the
 * budget); then it tries again. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "engine.h"

#define KICK_NO_CLOCK UINT64_MAX

/* From the thread's schedstat fd: its time on a CPU plus waiting for one,
 * in ns, or KICK_NO_CLOCK */
static uint64_t kick_clock(int fd)
{
	unsigned long long run, wait;
	char b[128];
	ssize_t n;

	if (fd < 0)
		return KICK_NO_CLOCK;
	n = pread(fd, b, sizeof(b) - 1, 0);
	if (n <= 0)
		return KICK_NO_CLOCK;
	b[n] = '\0';
	if (sscanf(b, "%llu %llu", &run, &wait) != 2)
		return KICK_NO_CLOCK;
	return run + wait;
}

bool kick_choose(struct dcio_export *x, uint64_t len)
{
	uint64_t off, now, hold;

	if (!XP(x, kick_us_per_mib) || len < DCIO_KICK_MIN_BYTES)
		return false;
	off = atomic_load_explicit(&x->kick.off_since, memory_order_relaxed);
	if (!off)
		return true;
	now = now_ns();
	/* (a stop stores its hold just after it: at least the first one) */
	hold = atomic_load_explicit(&x->kick.hold_ms, memory_order_relaxed);
	if (hold < DCIO_KICK_HOLD_MS)
		hold = DCIO_KICK_HOLD_MS;
	if (now - off < hold * 1000000 ||
	    __atomic_load_n(&x->fl.held, __ATOMIC_RELAXED) >
		    flusher_budget(x) / 2)
		return false;
	/* one writer resumes the kicks, with a fresh average */
	if (atomic_compare_exchange_strong(&x->kick.off_since, &off, 0)) {
		atomic_store_explicit(&x->kick.ns_per_mib, 0,
				      memory_order_relaxed);
		atomic_store_explicit(&x->kick.over_since, 0,
				      memory_order_relaxed);
		atomic_store_explicit(&x->kick.resumed, now,
				      memory_order_relaxed);
		ST_ADD(x->st.kick_resumes, 1);
	}
	return true;
}

/* A kicked write's syscall moved len bytes in wall ns, of which sched ns
 * (a kick_clock difference, or KICK_NO_CLOCK) it ran or waited to run */
static void kick_sample(struct dcio_export *x, uint64_t len, uint64_t wall,
			uint64_t sched)
{
	uint64_t v, old, avg, limit = (uint64_t)XP(x, kick_us_per_mib) * 1000;
	uint64_t zero = 0, now, resumed, hold, over;
	/* the time the syscall slept, without the time it ran or waited for
	 * a CPU (beside readers the copy runs under SCHED_IDLE; 64 writers
	 * share 2 CPUs): only that says the device is behind */
	uint64_t ns = sched == KICK_NO_CLOCK ? wall
		      : sched < wall	     ? wall - sched
					     : 0;

	if (!len || !limit)
		return;
	v = ns > UINT64_MAX >> 20 ? UINT64_MAX / len : (ns << 20) / len;
	old = atomic_load_explicit(&x->kick.ns_per_mib, memory_order_relaxed);
	avg = old - old / 4 + v / 4;
	atomic_store_explicit(&x->kick.ns_per_mib, avg, memory_order_relaxed);
	if (avg <= limit) {
		if (atomic_load_explicit(&x->kick.over_since,
					 memory_order_relaxed))
			atomic_store_explicit(&x->kick.over_since, 0,
					      memory_order_relaxed);
		return;
	}
	now = now_ns() | 1;
	over = atomic_load_explicit(&x->kick.over_since, memory_order_relaxed);
	if (!over) {
		atomic_compare_exchange_strong(&x->kick.over_since, &over, now);
		return;
	}
	if (now - over < (uint64_t)DCIO_KICK_PERSIST_MS * 1000000)
		return;
	if (!atomic_compare_exchange_strong(&x->kick.off_since, &zero, now))
		return;
	atomic_store_explicit(&x->kick.over_since, 0, memory_order_relaxed);
	/* stopped again soon after being tried: the device is still slow */
	resumed = atomic_load_explicit(&x->kick.resumed, memory_order_relaxed);
	hold = atomic_load_explicit(&x->kick.hold_ms, memory_order_relaxed);
	if (resumed && now - resumed < (uint64_t)DCIO_KICK_RETRY_MS * 1000000)
		hold = hold * 2 > DCIO_KICK_HOLD_MAX_MS ? DCIO_KICK_HOLD_MAX_MS
							: hold * 2;
	else
		hold = DCIO_KICK_HOLD_MS;
	atomic_store_explicit(&x->kick.hold_ms, hold, memory_order_relaxed);
	ST_ADD(x->st.kick_stops, 1);
}

/* This thread's schedstat fd: -1 not opened yet, -2 none to be had. A
 * thread-specific value (fd + 1) closes it when the thread exits; the key
 * is deleted when the module is unloaded, so that no destructor runs from
 * unmapped code (threads alive then keep their fd until the process ends). */
static __thread int sched_fd = -1;
static pthread_key_t sched_key;
static pthread_once_t sched_once = PTHREAD_ONCE_INIT;
static bool sched_key_ok;

static void sched_fd_close(void *v)
{
	close((int)((intptr_t)v - 1));
}

static void sched_key_create(void)
{
	sched_key_ok = pthread_key_create(&sched_key, sched_fd_close) == 0;
}

__attribute__((destructor)) static void sched_key_delete(void)
{
	if (sched_key_ok)
		pthread_key_delete(sched_key);
}

int kick_sched_fd(void)
{
	int fd;

	if (sched_fd != -1)
		return sched_fd;
	sched_fd = -2;
	pthread_once(&sched_once, sched_key_create);
	if (!sched_key_ok)
		return sched_fd;
	fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sched_fd;
	if (pthread_setspecific(sched_key, (void *)((intptr_t)fd + 1)) != 0) {
		close(fd);
		return sched_fd;
	}
	return sched_fd = fd;
}

void kick_timer_start(struct kick_timer *t)
{
	t->fd = kick_sched_fd();
	t->sched = kick_clock(t->fd);
	t->wall = now_ns();
}

void kick_timer_end(struct kick_timer *t, struct dcio_export *x, ssize_t r)
{
	int err = errno;
	uint64_t sched = kick_clock(t->fd), wall = now_ns() - t->wall;

	if (r > 0)
		kick_sample(x, (uint64_t)r, wall,
			    t->sched == KICK_NO_CLOCK || sched == KICK_NO_CLOCK
				    ? KICK_NO_CLOCK
				    : sched - t->sched);
	errno = err; /* the syscall's, for req_result */
}
