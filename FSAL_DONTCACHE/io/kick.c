// SPDX-License-Identifier: LGPL-3.0-or-later
/* Before Linux 7.2 an RWF_DONTCACHE write starts its pages' writeback inside
 * the syscall. Where the device keeps up that kick is the cheapest way to get
 * the pages written and dropped: the writeback walks pages the copy just
 * touched and the kernel drops them when it ends, where a flusher pass walks
 * them again, cold, and drops them with POSIX_FADV_DONTNEED (ext4 at 1.5 GB/s:
 * 0.90-0.94x the ganesha CPU per byte, 0.13-0.62x the page cache). Where the device falls behind, the kick waits
 * for it in the writer's syscall (25-400 ms per MiB on a loop-backed xfs
 * taking ~400 MB/s, 0.69-0.77x the MB/s) and coalesced writeback wins.
 *
 * So a large write on the worker kicks unless kicked writes slept more than
 * kick_us_per_mib per MiB in their syscall for DCIO_KICK_PERSIST_MS on end: a
 * 1/4-weight average of the time the syscall slept, since 64 writers share 2
 * CPUs and a copy slow on the CPU says nothing of the device; a stall of the
 * device that every writer sees at once (a few ms over the limit) stops
 * nothing. The time asleep comes from getrusage(RUSAGE_THREAD) around the
 * syscall, one call on each side and no state kept on the thread (it is
 * ganesha's): a syscall that never gave up the CPU of its own accord (no
 * voluntary context switch) did not sleep, whatever its wall time (time
 * spent preempted, waiting for a CPU, is not the device's); one that did
 * slept its wall time less the CPU time it used. Past the limit the
 * export writes buffered until a hold has passed (DCIO_KICK_HOLD_MS, doubled
 * while the device stays slow) and the flusher holds no more than half the
 * writers' budget (where the device is slow, coalesced writers sit at the
 * budget); then it tries again. */
#include <errno.h>
#include <stdint.h>
#include <sys/resource.h>

#include "dcio_stats.h"
#include "kick.h"
#include "util.h"

/* This thread's CPU time (user + system, ns) and voluntary context
 * switches; false where getrusage fails (the wall time alone counts) */
static bool kick_clock(uint64_t *cpu_ns, uint64_t *nvcsw)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return false;
	*cpu_ns =
		((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
			1000000000ull +
		((uint64_t)ru.ru_utime.tv_usec +
		 (uint64_t)ru.ru_stime.tv_usec) *
			1000ull;
	*nvcsw = (uint64_t)ru.ru_nvcsw;
	return true;
}

bool kick_choose(const struct kick_ctx *c, uint64_t len, bool flusher_busy)
{
	struct kick_export *k = c->k;
	uint64_t off, now, hold;

	if (!c->us_per_mib || len < DCIO_KICK_MIN_BYTES)
		return false;
	off = atomic_load_explicit(&k->off_since, memory_order_relaxed);
	if (!off)
		return true;
	now = now_ns();
	/* (a stop stores its hold just after it: at least the first one) */
	hold = atomic_load_explicit(&k->hold_ms, memory_order_relaxed);
	if (hold < DCIO_KICK_HOLD_MS)
		hold = DCIO_KICK_HOLD_MS;
	if (now - off < hold * 1000000 || flusher_busy)
		return false;
	/* one writer resumes the kicks, with a fresh average */
	if (atomic_compare_exchange_strong(&k->off_since, &off, 0)) {
		atomic_store_explicit(&k->ns_per_mib, 0, memory_order_relaxed);
		atomic_store_explicit(&k->over_since, 0, memory_order_relaxed);
		atomic_store_explicit(&k->resumed, now, memory_order_relaxed);
		ST_ADD(c->st->kick_resumes, 1);
	}
	return true;
}

/* A kicked write's syscall moved len bytes and slept ns (kick_timer_end):
 * only that says the device is behind */
static void kick_sample(const struct kick_ctx *c, uint64_t len, uint64_t ns)
{
	struct kick_export *k = c->k;
	uint64_t v, old, avg, limit = c->us_per_mib * 1000;
	uint64_t zero = 0, now, resumed, hold, over;

	if (!len || !limit)
		return;
	v = ns > UINT64_MAX >> 20 ? UINT64_MAX / len : (ns << 20) / len;
	old = atomic_load_explicit(&k->ns_per_mib, memory_order_relaxed);
	avg = old - old / 4 + v / 4;
	atomic_store_explicit(&k->ns_per_mib, avg, memory_order_relaxed);
	if (avg <= limit) {
		if (atomic_load_explicit(&k->over_since, memory_order_relaxed))
			atomic_store_explicit(&k->over_since, 0,
					      memory_order_relaxed);
		return;
	}
	now = now_ns() | 1;
	over = atomic_load_explicit(&k->over_since, memory_order_relaxed);
	if (!over) {
		atomic_compare_exchange_strong(&k->over_since, &over, now);
		return;
	}
	if (now - over < (uint64_t)DCIO_KICK_PERSIST_MS * 1000000)
		return;
	if (!atomic_compare_exchange_strong(&k->off_since, &zero, now))
		return;
	atomic_store_explicit(&k->over_since, 0, memory_order_relaxed);
	/* stopped again soon after being tried: the device is still slow */
	resumed = atomic_load_explicit(&k->resumed, memory_order_relaxed);
	hold = atomic_load_explicit(&k->hold_ms, memory_order_relaxed);
	if (resumed && now - resumed < (uint64_t)DCIO_KICK_RETRY_MS * 1000000)
		hold = hold * 2 > DCIO_KICK_HOLD_MAX_MS ? DCIO_KICK_HOLD_MAX_MS
							: hold * 2;
	else
		hold = DCIO_KICK_HOLD_MS;
	atomic_store_explicit(&k->hold_ms, hold, memory_order_relaxed);
	ST_ADD(c->st->kick_stops, 1);
}

void kick_timer_start(struct kick_timer *t)
{
	t->clock_ok = kick_clock(&t->cpu, &t->nvcsw);
	t->wall = now_ns();
}

void kick_timer_end(struct kick_timer *t, const struct kick_ctx *c, ssize_t r)
{
	int err = errno;
	uint64_t wall = now_ns() - t->wall, cpu, nvcsw, slept = wall;

	if (t->clock_ok && kick_clock(&cpu, &nvcsw)) {
		if (nvcsw == t->nvcsw)
			slept = 0; /* never slept: preempted at most */
		else
			slept = cpu - t->cpu < wall ? wall - (cpu - t->cpu) : 0;
	}
	if (r > 0)
		kick_sample(c, (uint64_t)r, slept);
	errno = err; /* the syscall's, for req_result */
}
