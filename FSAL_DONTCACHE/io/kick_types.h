/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* An export's kick state (dcio_export.kick); kick.h has its functions. */
#ifndef DCIO_KICK_TYPES_H
#define DCIO_KICK_TYPES_H

#include <stdatomic.h>
#include <stdint.h>

struct dcio_stats;

/* An export's kick state (dcio_export.kick), relaxed atomics, no lock. */
struct kick_export {
	/* recent kicked writes' syscall time, ns per MiB (1/4 weight) */
	atomic_uint_fast64_t ns_per_mib;
	/* 0: kicking; else when kicks stopped (now_ns) */
	atomic_uint_fast64_t off_since;
	atomic_uint_fast64_t resumed; /* when last tried again (now_ns) */
	atomic_uint_fast64_t hold_ms; /* the hold of the current stop */
	/* 0: the average is within the limit; else since when it is over */
	atomic_uint_fast64_t over_since;
};

/* What kick.c works on: an export's kick state, its counters and its
 * kick_us_per_mib as read for this write (core.h: export_kick). */
struct kick_ctx {
	struct kick_export *k;
	struct dcio_stats *st;
	uint64_t us_per_mib;
};

#endif
