/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* kick.c: whether a large WRITE on the worker thread goes RWF_DONTCACHE
 * (the kernel starts its writeback inside the syscall) or buffered, for the
 * flusher to write back coalesced. */
#ifndef DCIO_KICK_H
#define DCIO_KICK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kick_types.h"

/* Writes smaller than this are never kicked: a 64 KiB write's own kick
 * cost 0.66x the MB/s at 1.5x the CPU per byte of the coalesced path
 * (ext4); a Linux client streams 1 MiB WRITEs. */
#define DCIO_KICK_MIN_BYTES (1u << 20)
/* Kicks stop only once the average stayed over the limit this long: the
 * root ext4 of the bench machine stalls every writer for ~130 ms now and
 * then (a 1.6 GB/s device otherwise), which pushed the average over 8 ms
 * per MiB for a few ms, stopped the kicks in 1 run of 5 and cost that run
 * 9% more CPU per byte and 2x the RSS in the coalesced path. A device
 * that stays slow stays over. */
#define DCIO_KICK_PERSIST_MS 250
/* After kicks stopped, at least this long before they are tried again;
 * doubled (up to DCIO_KICK_HOLD_MAX_MS) each time they stop again within
 * DCIO_KICK_RETRY_MS of being tried: on a device that stays slow the
 * probes cost a few slow writes a minute, not every second */
#define DCIO_KICK_HOLD_MS 1000
#define DCIO_KICK_HOLD_MAX_MS 64000
#define DCIO_KICK_RETRY_MS 10000

/* Before a write of len bytes (write_plan): true to kick its write-back
 * and time the kick (kick_timer_*): a dontcache write where the kernel
 * kicks inside the syscall is issued RWF_DONTCACHE, a dropbehind write is
 * followed by sync_file_range(WRITE); false: buffered, for the flusher.
 * flusher_busy: the flusher holds more than half the writers' budget
 * (stopped kicks stay off until it does not). */
bool kick_choose(const struct kick_ctx *c, uint64_t len, bool flusher_busy);
/* Times a kicked write's syscall: kick_timer_start just before it,
 * kick_timer_end just after, with getrusage(RUSAGE_THREAD) (kick.c). */
struct kick_timer {
	bool clock_ok; /* false: no rusage, the wall time alone counts */
	uint64_t cpu, nvcsw, wall; /* at the start */
};
void kick_timer_start(struct kick_timer *t);
/* The syscall returned r: when it moved bytes, its time asleep (0 when it
 * never switched out of its own accord, else the wall time less its CPU
 * time) joins the export's average. errno stays as the syscall left it. */
void kick_timer_end(struct kick_timer *t, const struct kick_ctx *c, ssize_t r);

#endif
