/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* path.c: where a WRITE runs and how it is issued, decided in one place. */
#ifndef DCIO_PATH_H
#define DCIO_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "dcio.h"

struct dcio_file;

/* The thread that issues a write's syscall. */
enum dcio_where {
	WHERE_CALLER, /* the caller's (a ganesha worker), no hand-off */
	WHERE_POOL, /* an engine pool thread (dcio-poolN) */
};

/* A WRITE's plan: write_plan's answer, followed by dcio_write and the
 * executors (req_submit, rl_start). */
struct write_plan {
	enum dcio_where where;
	/* as accepted (counted by): the export's, as the file can issue
	 * it; DIRECT splits it (the aligned middle O_DIRECT, head and tail
	 * as cached_write_mode) */
	enum dcio_write_mode mode;
	enum dcio_write_mode issue; /* how its syscall issues it */
	/* Flush_Mode inline: issued and its writeback kicked on the
	 * caller's thread, answered before dcio_write returns */
	bool inline_;
	bool rangelock; /* overlapping writes of the file run in order */
	/* writeback started right after the syscall, timed: RWF_DONTCACHE's
	 * own kick, or sync_file_range(WRITE) for a dropbehind write */
	bool kick;
	bool throttle; /* first waits while the flusher holds its budget */
	int row; /* the row of io/README.md's table that decided it */
};

/* The decision, from the export's modes and parameters, the file's and the
 * engine's state and the write's length. May change the export's kick
 * state (kick_choose resumes kicks). */
struct write_plan write_plan(struct dcio_file *f, uint64_t len);

#endif
