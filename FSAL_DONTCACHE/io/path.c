// SPDX-License-Identifier: LGPL-3.0-or-later
/* Where a WRITE runs and how it is issued: write_plan is the one decision;
 * io/README.md "Where a write is issued" is this function as a table, and
 * test_dcio_path has a case per row. The run-time fallback (a dontcache
 * write answering EOPNOTSUPP is issued again as dropbehind and the export
 * falls back: req.c) changes a planned write, never the plan. */
#include "core.h"
#include "flusher.h"
#include "kick.h"
#include "path.h"
#include "req.h"

/* The export's write mode as this file can issue it. */
static enum dcio_write_mode file_write_mode(const struct dcio_file *f)
{
	switch (XP(f->x, write_mode)) {
	case DCIO_WRITE_BUFFERED:
		return DCIO_WRITE_BUFFERED;
	case DCIO_WRITE_DROPBEHIND:
		return DCIO_WRITE_DROPBEHIND;
	case DCIO_WRITE_DIRECT:
		/* no O_DIRECT fd (tmpfs, no DIO alignment): cached */
		return f->dfd >= 0 ? DCIO_WRITE_DIRECT
				   : cached_write_mode(f->x);
	default:
		return cached_write_mode(f->x);
	}
}

/* kick.c's answer for the export, told whether the flusher holds more
 * than half the writers' budget (kicks stay off until it does not) */
static bool choose_kick(struct dcio_export *x, uint64_t len)
{
	struct kick_ctx kc = export_kick(x);
	bool busy = __atomic_load_n(&x->fl.held, __ATOMIC_RELAXED) >
		    flusher_budget(x) / 2;

	return kick_choose(&kc, len, busy);
}

struct write_plan write_plan(struct dcio_file *f, uint64_t len)
{
	struct dcio_export *x = f->x;
	struct write_plan w = { .mode = file_write_mode(f) };

	w.issue = w.mode;
	w.rangelock = w.mode == DCIO_WRITE_DIRECT;
	w.inline_ = XP(x, flush_mode) == DCIO_FLUSH_INLINE;
	if (w.inline_) {
		/* 1: Flush_Mode inline: on the caller, flushed there */
		w.where = WHERE_CALLER;
		w.row = 1;
	} else if (len > XP(x, caller_write_max)) {
		/* 2: larger than Worker_Write_Max: the engine */
		w.where = WHERE_POOL;
		w.row = 2;
	} else if (engine_pace_write(f->e, len)) {
		/* 3: over 64 KiB while reads are served and the engine's
		 * threads are niced: the copy runs on them */
		w.where = WHERE_POOL;
		w.row = 3;
	} else {
		/* 4: the caller's thread */
		w.where = WHERE_CALLER;
		w.row = 4;
	}
	if (w.rangelock || w.inline_)
		return w;
	if (w.where != WHERE_CALLER) {
		/* 2, 3 as dropbehind: the pool thread starts the write-back
		 * after the write (the kick of row 8), and the caller waits
		 * for the flusher's budget before it hands the write off:
		 * beside readers the flusher runs niced, and hand-offs that
		 * waited for nothing left up to 961 MiB cached */
		if (w.mode == DCIO_WRITE_DROPBEHIND) {
			w.kick = choose_kick(x, len);
			w.throttle = true;
		}
		return w;
	}
	/* On the caller's thread, a dontcache write while the kernel kicks
	 * writeback inside the syscall (before Linux 7.2): 5, kicked while
	 * the device keeps up (kick.c); 6, else buffered for the flusher.
	 * 7: where the kernel defers the kick, RWF_DONTCACHE as it is. */
	if (w.mode == DCIO_WRITE_DONTCACHE && !x->kick_deferred) {
		w.kick = choose_kick(x, len);
		if (!w.kick)
			w.issue = DCIO_WRITE_DROPBEHIND;
		w.row = w.kick ? 5 : 6;
	} else if (w.mode == DCIO_WRITE_DONTCACHE) {
		w.row = 7;
	} else if (w.mode == DCIO_WRITE_DROPBEHIND) {
		/* Dropbehind (the mode, or dontcache where the kernel has no
		 * RWF_DONTCACHE): 8, the caller starts the write-back of what
		 * it wrote (sync_file_range WRITE, the kick RWF_DONTCACHE
		 * does inside the syscall) while the device keeps up; 9, else
		 * the flusher starts it, coalesced */
		w.kick = choose_kick(x, len);
		w.row = w.kick ? 8 : 9;
	}
	/* what the flusher must still drop stays near its thresholds: the
	 * writer waits for it here, not at the kernel's dirty limit */
	w.throttle = w.issue == DCIO_WRITE_DROPBEHIND ||
		     w.issue == DCIO_WRITE_DONTCACHE;
	return w;
}
