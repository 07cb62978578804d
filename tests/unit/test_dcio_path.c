// SPDX-License-Identifier: LGPL-3.0-or-later
/* write_plan: one case per row of io/README.md's "Where a write is issued" table, and dcio_write following the plan (the thread and flags its syscall ran with). */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "dcio_testlib.h"
#include "io/core.h"
#include "io/kick.h"
#include "io/path.h"

static struct tl_ctx c;

/* A context of the given modes; engine threads niced by nice. */
static void ctx(enum dcio_write_mode wm, enum dcio_flush_mode fm,
		uint32_t caller_max, int nice)
{
	struct dcio_export_params p = tl_params(wm, DCIO_READ_BUFFERED, fm);
	struct dcio_engine_params ep = { .threads = 1,
					 .nice = nice,
					 .kick = DCIO_KICK_INLINE };

	p.caller_write_max = caller_max;
	p.kick_us_per_mib = 100000;
	tl_ctx_open(&c, &(struct tl_setup){ .p = &p,
					    .ep = &ep,
					    .name = "path",
					    .flags = O_TRUNC });
}

static void done(void)
{
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

/* 1: Flush_Mode inline: the caller's thread whatever the length */
static void t_row1_inline(void)
{
	ctx(DCIO_WRITE_DONTCACHE, DCIO_FLUSH_INLINE, 64 << 10, 0);
	struct write_plan w = write_plan(c.f, 4 << 20);

	CU_ASSERT_EQUAL(w.row, 1);
	CU_ASSERT_TRUE(w.inline_);
	CU_ASSERT_EQUAL(w.where, WHERE_CALLER);
	CU_ASSERT_EQUAL(w.mode, DCIO_WRITE_DONTCACHE);
	CU_ASSERT_FALSE(w.kick);
	CU_ASSERT_FALSE(w.throttle);
	CU_ASSERT_FALSE(w.rangelock);
	done();
}

/* 2: over Worker_Write_Max: the engine's pool */
static void t_row2_large(void)
{
	ctx(DCIO_WRITE_DONTCACHE, DCIO_FLUSH_COALESCED, 64 << 10, 0);
	struct write_plan w = write_plan(c.f, (64 << 10) + 1);

	CU_ASSERT_EQUAL(w.row, 2);
	CU_ASSERT_FALSE(w.inline_);
	CU_ASSERT_EQUAL(w.where, WHERE_POOL);
	CU_ASSERT_EQUAL(w.mode, DCIO_WRITE_DONTCACHE);
	CU_ASSERT_FALSE(w.kick || w.throttle || w.rangelock);
	/* Worker_Write_Max = 0: every write */
	done();
	ctx(DCIO_WRITE_DONTCACHE, DCIO_FLUSH_COALESCED, 0, 0);
	w = write_plan(c.f, 1);
	CU_ASSERT_EQUAL(w.row, 2);
	CU_ASSERT_EQUAL(w.where, WHERE_POOL);
	done();
}

/* 3: over 64 KiB within 200 ms of a READ, engine threads niced: the
 * engine; 64 KiB itself, no READ, or no nice: the caller */
static void t_row3_paced(void)
{
	ctx(DCIO_WRITE_DONTCACHE, DCIO_FLUSH_COALESCED, 4 << 20, 5);
	CU_ASSERT_EQUAL(write_plan(c.f, 1 << 20).row, 5); /* no READ yet */
	engine_read_seen(c.e, now_ns());
	struct write_plan w = write_plan(c.f, DCIO_PACE_WRITE_MIN + 1);

	CU_ASSERT_EQUAL(w.row, 3);
	CU_ASSERT_EQUAL(w.where, WHERE_POOL);
	CU_ASSERT_FALSE(w.kick || w.throttle);
	w = write_plan(c.f, DCIO_PACE_WRITE_MIN);
	CU_ASSERT_EQUAL(w.where, WHERE_CALLER);
	done();
	ctx(DCIO_WRITE_DONTCACHE, DCIO_FLUSH_COALESCED, 4 << 20, 0);
	engine_read_seen(c.e, now_ns());
	CU_ASSERT_EQUAL(write_plan(c.f, 1 << 20).where, WHERE_CALLER);
	done();
	/* dropbehind handed off: kicked on the pool (>= 1 MiB) and
	 * throttled before the hand-off, as on the caller (rows 8, 9) */
	ctx(DCIO_WRITE_DROPBEHIND, DCIO_FLUSH_COALESCED, 4 << 20, 5);
	engine_read_seen(c.e, now_ns());
	w = write_plan(c.f, 1 << 20);
	CU_ASSERT_EQUAL(w.row, 3);
	CU_ASSERT_EQUAL(w.where, WHERE_POOL);
	CU_ASSERT_TRUE(w.kick && w.throttle);
	w = write_plan(c.f, DCIO_PACE_WRITE_MIN + 1);
	CU_ASSERT_EQUAL(w.row, 3);
	CU_ASSERT_FALSE(w.kick);
	CU_ASSERT_TRUE(w.throttle);
	done();
}

/* 4: the caller's thread, as the export's mode */
static void t_row4_caller(void)
{
	ctx(DCIO_WRITE_BUFFERED, DCIO_FLUSH_COALESCED, 1 << 20, 0);
	struct write_plan w = write_plan(c.f, 1 << 20);

	CU_ASSERT_EQUAL(w.row, 4);
	CU_ASSERT_FALSE(w.inline_);
	CU_ASSERT_EQUAL(w.where, WHERE_CALLER);
	CU_ASSERT_EQUAL(w.mode, DCIO_WRITE_BUFFERED);
	CU_ASSERT_FALSE(w.kick || w.throttle || w.rangelock);
	done();
}

/* 5: dontcache of >= 1 MiB, the kernel kicking in the syscall, kicks on */
static void t_row5_kick(void)
{
	ctx(DCIO_WRITE_DONTCACHE, DCIO_FLUSH_COALESCED, 1 << 20, 0);
	c.x->kick_deferred = false;
	struct write_plan w = write_plan(c.f, DCIO_KICK_MIN_BYTES);

	CU_ASSERT_EQUAL(w.row, 5);
	CU_ASSERT_EQUAL(w.where, WHERE_CALLER);
	CU_ASSERT_EQUAL(w.mode, DCIO_WRITE_DONTCACHE);
	CU_ASSERT_EQUAL(w.issue, DCIO_WRITE_DONTCACHE);
	CU_ASSERT_TRUE(w.kick);
	CU_ASSERT_TRUE(w.throttle);
	done();
}

/* 6: ... smaller than 1 MiB, or kicks held off: buffered for the flusher */
static void t_row6_dropbehind(void)
{
	ctx(DCIO_WRITE_DONTCACHE, DCIO_FLUSH_COALESCED, 1 << 20, 0);
	c.x->kick_deferred = false;
	struct write_plan w = write_plan(c.f, 64 << 10);

	CU_ASSERT_EQUAL(w.row, 6);
	CU_ASSERT_EQUAL(w.where, WHERE_CALLER);
	CU_ASSERT_EQUAL(w.mode, DCIO_WRITE_DONTCACHE); /* counted as */
	CU_ASSERT_EQUAL(w.issue, DCIO_WRITE_DROPBEHIND);
	CU_ASSERT_FALSE(w.kick);
	CU_ASSERT_TRUE(w.throttle);
	/* kicks stopped a moment ago (kick.c's hold) */
	atomic_store(&c.x->kick.off_since, now_ns());
	w = write_plan(c.f, 1 << 20);
	CU_ASSERT_EQUAL(w.row, 6);
	CU_ASSERT_EQUAL(w.issue, DCIO_WRITE_DROPBEHIND);
	done();
}

/* 7: the kernel defers the kick: RWF_DONTCACHE as it is */
static void t_row7_deferred(void)
{
	ctx(DCIO_WRITE_DONTCACHE, DCIO_FLUSH_COALESCED, 1 << 20, 0);
	c.x->kick_deferred = true;
	struct write_plan w = write_plan(c.f, 64 << 10);

	CU_ASSERT_EQUAL(w.row, 7);
	CU_ASSERT_EQUAL(w.where, WHERE_CALLER);
	CU_ASSERT_EQUAL(w.issue, DCIO_WRITE_DONTCACHE);
	CU_ASSERT_FALSE(w.kick);
	CU_ASSERT_TRUE(w.throttle);
	done();
}

/* 8: dropbehind (the mode, or dontcache fallen back) of >= 1 MiB, kicks
 * on: buffered, its write-back started on the caller right after */
static void t_row8_dropbehind_kick(void)
{
	ctx(DCIO_WRITE_DROPBEHIND, DCIO_FLUSH_COALESCED, 1 << 20, 0);
	struct write_plan w = write_plan(c.f, 1 << 20);

	CU_ASSERT_EQUAL(w.row, 8);
	CU_ASSERT_EQUAL(w.where, WHERE_CALLER);
	CU_ASSERT_EQUAL(w.mode, DCIO_WRITE_DROPBEHIND);
	CU_ASSERT_EQUAL(w.issue, DCIO_WRITE_DROPBEHIND);
	CU_ASSERT_TRUE(w.kick);
	CU_ASSERT_TRUE(w.throttle);
	done();
	ctx(DCIO_WRITE_DONTCACHE, DCIO_FLUSH_COALESCED, 1 << 20, 0);
	atomic_store(&c.x->wfallback, true);
	w = write_plan(c.f, 1 << 20);
	CU_ASSERT_EQUAL(w.row, 8);
	CU_ASSERT_EQUAL(w.issue, DCIO_WRITE_DROPBEHIND);
	CU_ASSERT_TRUE(w.kick);
	done();
}

/* 9: ... smaller than 1 MiB, or kicks held off: the flusher starts it */
static void t_row9_dropbehind(void)
{
	ctx(DCIO_WRITE_DROPBEHIND, DCIO_FLUSH_COALESCED, 1 << 20, 0);
	struct write_plan w = write_plan(c.f, 4096);

	CU_ASSERT_EQUAL(w.row, 9);
	CU_ASSERT_EQUAL(w.where, WHERE_CALLER);
	CU_ASSERT_EQUAL(w.mode, DCIO_WRITE_DROPBEHIND);
	CU_ASSERT_TRUE(w.throttle);
	CU_ASSERT_FALSE(w.kick);
	atomic_store(&c.x->kick.off_since, now_ns());
	w = write_plan(c.f, 1 << 20);
	CU_ASSERT_EQUAL(w.row, 9);
	CU_ASSERT_FALSE(w.kick);
	done();
}

/* The modes under every row: direct is range-locked and split (rows 1-4
 * pick the thread), neither kicked nor throttled; a dontcache export that
 * fell back is dropbehind */
static void t_modes(void)
{
	ctx(DCIO_WRITE_DIRECT, DCIO_FLUSH_COALESCED, 1 << 20, 0);
	if (dcio_file_fd(c.f) >= 0 && c.f->dfd >= 0) {
		struct write_plan w = write_plan(c.f, 1 << 20);

		CU_ASSERT_EQUAL(w.row, 4);
		CU_ASSERT_EQUAL(w.mode, DCIO_WRITE_DIRECT);
		CU_ASSERT_TRUE(w.rangelock);
		CU_ASSERT_EQUAL(w.where, WHERE_CALLER);
		CU_ASSERT_FALSE(w.kick || w.throttle);
		w = write_plan(c.f, 2 << 20);
		CU_ASSERT_EQUAL(w.row, 2);
		CU_ASSERT_TRUE(w.rangelock);
		CU_ASSERT_EQUAL(w.where, WHERE_POOL);
	}
	done();
	ctx(DCIO_WRITE_DONTCACHE, DCIO_FLUSH_COALESCED, 1 << 20, 0);
	c.x->kick_deferred = true;
	atomic_store(&c.x->wfallback, true);
	struct write_plan w = write_plan(c.f, 64 << 10);

	CU_ASSERT_EQUAL(w.row, 9);
	CU_ASSERT_EQUAL(w.mode, DCIO_WRITE_DROPBEHIND);
	CU_ASSERT_EQUAL(w.issue, DCIO_WRITE_DROPBEHIND);
	CU_ASSERT_TRUE(w.throttle);
	done();
}

/* dcio_write follows the plan: the syscall runs on the caller's thread
 * (rows 1, 4-7) or a pool thread (row 2), with RWF_DONTCACHE for a kicked or
 * deferred dontcache write and without it for dropbehind. */
static pthread_t caller_tid;
static int seen_on_caller, seen_dontcache, seen_calls;

static int seen_kicks, seen_pool_kicks;

static int rec_sfr(int fd, off_t off, off_t len, unsigned int flags)
{
	char name[16] = "";

	pthread_getname_np(pthread_self(), name, sizeof(name));
	/* a kick: WRITE alone, on the thread that wrote (not a flusher) */
	if (flags == SYNC_FILE_RANGE_WRITE && strncmp(name, "dcio-flush", 10)) {
		if (pthread_equal(pthread_self(), caller_tid))
			__atomic_add_fetch(&seen_kicks, 1, __ATOMIC_RELAXED);
		else
			__atomic_add_fetch(&seen_pool_kicks, 1,
					   __ATOMIC_RELAXED);
	}
	return sync_file_range(fd, off, len, flags);
}

static ssize_t rec_pwritev2(int fd, const struct iovec *iov, int cnt, off_t off,
			    int flags)
{
	__atomic_add_fetch(&seen_calls, 1, __ATOMIC_RELAXED);
	if (pthread_equal(pthread_self(), caller_tid))
		__atomic_add_fetch(&seen_on_caller, 1, __ATOMIC_RELAXED);
	if (flags & RWF_DONTCACHE)
		__atomic_add_fetch(&seen_dontcache, 1, __ATOMIC_RELAXED);
	return pwritev2(fd, iov, cnt, off, flags);
}

static void follow(enum dcio_write_mode wm, enum dcio_flush_mode fm,
		   uint32_t len, bool deferred, int want_caller,
		   int want_dontcache, int want_kick, int want_row)
{
	struct dcio_export_params p = tl_params(wm, DCIO_READ_BUFFERED, fm);
	struct dcio_engine_params ep = { .threads = 1,
					 .kick = DCIO_KICK_INLINE };
	struct dcio_syscalls sys = { .pwritev2 = rec_pwritev2,
				     .sync_file_range = rec_sfr };
	static char buf[4 << 20];

	p.caller_write_max = 1 << 20;
	p.kick_us_per_mib = 100000;
	tl_ctx_open(&c, &(struct tl_setup){ .p = &p,
					    .ep = &ep,
					    .sys = &sys,
					    .name = "follow",
					    .flags = O_TRUNC });
	c.x->kick_deferred = deferred;
	caller_tid = pthread_self();
	CU_ASSERT_EQUAL(write_plan(c.f, len).row, want_row);
	seen_calls = seen_on_caller = seen_dontcache = seen_kicks = 0;
	seen_pool_kicks = 0;
	CU_ASSERT_EQUAL(tl_write(c.f, buf, len, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_TRUE(seen_calls >= 1);
	CU_ASSERT_EQUAL(seen_on_caller ? 1 : 0, want_caller);
	CU_ASSERT_EQUAL(seen_dontcache ? 1 : 0, want_dontcache);
	/* before the answer, once: on the caller's thread, or on the
	 * pool's for a write handed off */
	CU_ASSERT_EQUAL(want_caller ? seen_kicks : seen_pool_kicks, want_kick);
	CU_ASSERT_EQUAL(want_caller ? seen_pool_kicks : seen_kicks, 0);
	done();
}

static void t_follows(void)
{
	const enum dcio_write_mode dc = DCIO_WRITE_DONTCACHE,
				   db = DCIO_WRITE_DROPBEHIND;
	const enum dcio_flush_mode co = DCIO_FLUSH_COALESCED;

	follow(dc, DCIO_FLUSH_INLINE, 2 << 20, false, 1, 1, 0, 1); /* inline */
	follow(dc, co, 1 << 20, false, 1, 1, 0, 5); /* kicked on the caller */
	follow(dc, co, 64 << 10, false, 1, 0, 0, 6); /* dropbehind there */
	follow(dc, co, 64 << 10, true, 1, 1, 0, 7); /* deferred kick */
	follow(dc, co, 2 << 20, false, 0, 1, 0,
	       2); /* the pool, RWF_DONTCACHE */
	follow(db, co, 1 << 20, false, 1, 0, 1, 8); /* buffered, then kicked */
	follow(db, co, 64 << 10, false, 1, 0, 0, 9); /* for the flusher */
	follow(db, co, 2 << 20, false, 0, 0, 1, 2); /* the pool, kicked there */
}

static const struct tl_case cases[] = {
	{ "row 1: Flush_Mode inline, the caller", t_row1_inline },
	{ "row 2: over Worker_Write_Max, the engine", t_row2_large },
	{ "row 3: beside READs, niced engine", t_row3_paced },
	{ "row 4: the caller's thread", t_row4_caller },
	{ "row 5: dontcache kicked", t_row5_kick },
	{ "row 6: dropbehind for the flusher", t_row6_dropbehind },
	{ "row 7: the kernel defers the kick", t_row7_deferred },
	{ "row 8: dropbehind kicked", t_row8_dropbehind_kick },
	{ "row 9: dropbehind for the flusher", t_row9_dropbehind },
	{ "direct and a fallen-back export", t_modes },
	{ "dcio_write follows the plan", t_follows },
};

int main(void)
{
	tl_require(0);
	return TL_RUN_SUITE("write path", cases);
}
