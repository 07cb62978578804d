// SPDX-License-Identifier: LGPL-3.0-or-later
/* stable_reply_ms: an UNSTABLE write rides a group flush (fsync) and reports durable when it succeeds; never when off, when the flushes are slower than the window, or when the flush fails (then the write is still acknowledged and the COMMIT reports the error). */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcio_testlib.h"

static atomic_int n_fsync, n_fdatasync, fail_sync, slow_ms;

/* a counted sync that may be slow or fail, as the test asks */
static int sync_as_asked(int (*real)(int), atomic_int *n, int fd)
{
	atomic_fetch_add(n, 1);
	if (atomic_load(&slow_ms))
		usleep((useconds_t)atomic_load(&slow_ms) * 1000);
	if (atomic_load(&fail_sync)) {
		errno = EIO;
		return -1;
	}
	return real(fd);
}

static int count_fsync(int fd)
{
	return sync_as_asked(fsync, &n_fsync, fd);
}

static int count_fdatasync(int fd)
{
	return sync_as_asked(fdatasync, &n_fdatasync, fd);
}

static void setup(struct tl_ctx *t, uint32_t ms, uint32_t worker_max)
{
	static struct dcio_syscalls sys = { .fsync = count_fsync,
					    .fdatasync = count_fdatasync };
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);

	p.stable_reply_ms = ms;
	p.caller_write_max = worker_max;
	atomic_store(&n_fsync, 0);
	atomic_store(&n_fdatasync, 0);
	atomic_store(&fail_sync, 0);
	atomic_store(&slow_ms, 0);
	tl_ctx_open(t, &(struct tl_setup){ .sys = &sys,
					   .p = &p,
					   .name = "sr",
					   .flags = O_TRUNC });
}

/* one UNSTABLE write; its error, *durable as it was when done ran */
static int write_one(struct tl_ctx *t, const char *buf, size_t len,
		     uint64_t off, bool *durable)
{
	struct iovec iov = { (void *)buf, len };
	struct tl_wait w;

	tl_wait_init(&w);
	*durable = true; /* must be overwritten */
	CU_ASSERT_EQUAL_FATAL(dcio_write(t->f, &iov, 1, off, DCIO_UNSTABLE,
					 NULL, durable, tl_done, &w),
			      0);
	tl_wait_for(&w, 1);
	return w.last_err;
}

static void t_off(void)
{
	static char buf[65536];
	struct tl_ctx t;
	bool d;

	setup(&t, 0, 1 << 20);
	tl_fill(buf, sizeof(buf), 0, 1);
	CU_ASSERT_EQUAL(write_one(&t, buf, sizeof(buf), 0, &d), 0);
	CU_ASSERT_FALSE(d);
	CU_ASSERT_EQUAL(atomic_load(&n_fsync) + atomic_load(&n_fdatasync), 0);
	char *s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "stable_reply.joined"), 0);
	free(s);
	CU_ASSERT_EQUAL(tl_ctx_close(&t), 0);
}

/* on the worker path and the engine path alike */
static void rides(uint32_t worker_max)
{
	static char buf[1 << 20], back[1 << 20];
	struct tl_ctx t;
	size_t got = 0;
	bool d;

	setup(&t, 1000, worker_max);
	tl_fill(buf, sizeof(buf), 0, 2);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(write_one(&t, buf + i * 262144, 262144,
					  (uint64_t)i * 262144, &d),
				0);
		CU_ASSERT(d);
	}
	/* the metadata too (answered FILE_SYNC): fsync, not fdatasync */
	CU_ASSERT(atomic_load(&n_fsync) >= 1);
	CU_ASSERT(atomic_load(&n_fsync) <= 4);
	CU_ASSERT_EQUAL(atomic_load(&n_fdatasync), 0);
	char *s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "stable_reply.joined"), 4);
	CU_ASSERT_EQUAL(tl_json_num(s, "stable_reply.durable"), 4);
	CU_ASSERT_EQUAL(tl_json_num(s, "stable_reply.ms"), 1000);
	free(s);
	/* nothing left for a COMMIT to flush */
	int before = atomic_load(&n_fsync) + atomic_load(&n_fdatasync);
	CU_ASSERT_EQUAL(dcio_commit(t.f, 0, 0), 0);
	CU_ASSERT_EQUAL(atomic_load(&n_fsync) + atomic_load(&n_fdatasync),
			before);
	CU_ASSERT_EQUAL(tl_read(t.f, back, sizeof(back), 0, &got), 0);
	CU_ASSERT_EQUAL(got, sizeof(back));
	CU_ASSERT(tl_check(back, sizeof(back), 0, 2));
	CU_ASSERT_EQUAL(tl_ctx_close(&t), 0);
}

static void t_rides_worker(void)
{
	rides(1 << 20);
}

static void t_rides_engine(void)
{
	rides(0);
}

/* flushes slower than the window: writes stop joining once the average
 * says so (the first one, with no history, still rides) */
static void t_slow(void)
{
	static char buf[65536];
	struct tl_ctx t;
	bool d;
	int joined;

	setup(&t, 5, 1 << 20);
	atomic_store(&slow_ms, 30);
	tl_fill(buf, sizeof(buf), 0, 3);
	CU_ASSERT_EQUAL(write_one(&t, buf, sizeof(buf), 0, &d), 0);
	CU_ASSERT(d);
	for (int i = 1; i < 8; i++) {
		CU_ASSERT_EQUAL(write_one(&t, buf, sizeof(buf),
					  (uint64_t)i * 65536, &d),
				0);
		CU_ASSERT_FALSE(d);
	}
	char *s = tl_stats(t.x);
	joined = (int)tl_json_num(s, "stable_reply.joined");
	CU_ASSERT_EQUAL(joined, 1);
	CU_ASSERT(tl_json_num(s, "stable_reply.flush_avg_us") >= 25000);
	free(s);
	atomic_store(&slow_ms, 0);
	CU_ASSERT_EQUAL(dcio_commit(t.f, 0, 0), 0);
	CU_ASSERT_EQUAL(tl_ctx_close(&t), 0);
}

/* a failed flush: the write is still acknowledged (UNSTABLE, not durable),
 * and the COMMIT that follows reports the error */
static void t_failed_flush(void)
{
	static char buf[65536];
	struct tl_ctx t;
	bool d;

	setup(&t, 1000, 1 << 20);
	atomic_store(&fail_sync, 1);
	tl_fill(buf, sizeof(buf), 0, 4);
	CU_ASSERT_EQUAL(write_one(&t, buf, sizeof(buf), 0, &d), 0);
	CU_ASSERT_FALSE(d);
	char *s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "stable_reply.joined"), 1);
	CU_ASSERT_EQUAL(tl_json_num(s, "stable_reply.durable"), 0);
	free(s);
	atomic_store(&fail_sync, 0);
	CU_ASSERT_EQUAL(dcio_commit(t.f, 0, 0), EIO);
	/* rewritten and flushed: clean again */
	CU_ASSERT_EQUAL(write_one(&t, buf, sizeof(buf), 0, &d), 0);
	CU_ASSERT(d);
	CU_ASSERT_EQUAL(dcio_commit(t.f, 0, 0), 0);
	tl_ctx_close(&t);
}

static const struct tl_case cases[] = {
	{ "off: never durable, no flush", t_off },
	{ "UNSTABLE worker writes ride a flush", t_rides_worker },
	{ "UNSTABLE engine writes ride a flush", t_rides_engine },
	{ "flushes slower than the window: no riding", t_slow },
	{ "failed flush: acknowledged, not durable", t_failed_flush },
};

int main(void)
{
	return TL_RUN_SUITE("stable replies", cases);
}
