// SPDX-License-Identifier: LGPL-3.0-or-later
/* Errors are never lost: injected fdatasync/pwritev2/sync_file_range failures reach every waiter of the batch and every later COMMIT of acknowledged data until it is rewritten and flushed; the verifier changes; close reports what no COMMIT saw; EINTR/EAGAIN/short writes are retried. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcio_testlib.h"
#include "io/core.h"
#include "io/commit.h"
#include "io/errmem.h"
#include "io/req_types.h"

#define NCOMMIT 8

static atomic_int n_fdatasync, fail_fdatasync_once, fail_fdatasync_always,
	entered, gate_on;
static atomic_int fail_sfr_once, n_sfr_fail, n_calls;
static atomic_int
	sfr_fail_delay_us; /* the failing sync_file_range returns this late */
static atomic_long fail_write_off = -1;
static atomic_int fail_write_errno = ENOSPC;
static atomic_int hold_trunc, trunc_in;
static atomic_int chaos;
/* every pwritev2 fails with this errno (0: off), counting its calls */
static atomic_int fail_every_write, n_failed_writes;
/* the next fail_fdatasync_n fdatasync calls fail with ENOSPC (a report the
 * kernel holds for a page whose writeback failed) */
static atomic_int fail_fdatasync_n;
/* hold_*: the fake syscall waits (bounded) while the flag is set; *_in: it got there */
static atomic_int hold_fdatasync, fdatasync_in, hold_write, write_in, write_out,
	hold_sfr, sfr_in;
static atomic_long hold_write_off = -1;

static void hold_while(atomic_int *flag)
{
	for (int i = 0; i < 10000 && atomic_load(flag); i++)
		usleep(1000);
}

static int fake_fdatasync(int fd)
{
	atomic_fetch_add(&n_fdatasync, 1);
	atomic_store(&fdatasync_in, 1);
	hold_while(&hold_fdatasync);
	if (atomic_exchange(&gate_on, 0)) {
		for (int i = 0; i < 5000 && atomic_load(&entered) < NCOMMIT;
		     i++)
			usleep(1000);
		usleep(50000);
	}
	int r = fdatasync(fd);
	int e = atomic_load(&fail_fdatasync_always);
	if (!e)
		e = atomic_exchange(&fail_fdatasync_once, 0);
	if (!e) {
		int n = atomic_load(&fail_fdatasync_n);

		while (n > 0 && !atomic_compare_exchange_weak(&fail_fdatasync_n,
							      &n, n - 1))
			;
		if (n > 0)
			e = ENOSPC;
	}
	if (e) {
		errno = e;
		return -1;
	}
	return r;
}

static int fake_fsync(int fd)
{
	return fake_fdatasync(fd);
}

static ssize_t fake_pwritev2(int fd, const struct iovec *iov, int cnt,
			     off_t off, int flags)
{
	int n = atomic_fetch_add(&n_calls, 1);
	int every = atomic_load(&fail_every_write);

	if (every) {
		atomic_fetch_add(&n_failed_writes, 1);
		errno = every;
		return -1;
	}
	if (off == atomic_load(&hold_write_off)) {
		atomic_store(&write_in, 1);
		hold_while(&hold_write);
		ssize_t r = pwritev2(fd, iov, cnt, off, flags);
		atomic_store(&write_out, 1);
		return r;
	}
	if (off == atomic_load(&fail_write_off)) {
		errno = atomic_load(&fail_write_errno);
		return -1;
	}
	if (atomic_load(&chaos)) {
		if (n % 3 == 1) {
			errno = EINTR;
			return -1;
		}
		if (n % 5 == 2) {
			errno = EAGAIN;
			return -1;
		}
		/* at most 3000 bytes per call: short writes everywhere */
		struct iovec one = iov[0];
		if (one.iov_len > 3000)
			one.iov_len = 3000;
		return pwritev2(fd, &one, 1, off, flags);
	}
	return pwritev2(fd, iov, cnt, off, flags);
}

static int fake_sfr(int fd, off_t off, off_t len, unsigned int flags)
{
	if (atomic_load(&hold_sfr)) {
		atomic_store(&sfr_in, 1);
		hold_while(&hold_sfr);
	}
	if (atomic_exchange(&fail_sfr_once, 0)) {
		atomic_fetch_add(&n_sfr_fail, 1);
		usleep((useconds_t)atomic_load(&sfr_fail_delay_us));
		errno = EIO;
		return -1;
	}
	return sync_file_range(fd, off, len, flags);
}

static int fake_ftruncate(int fd, off_t len)
{
	atomic_store(&trunc_in, 1);
	hold_while(&hold_trunc);
	return ftruncate(fd, len);
}

static atomic_int fail_falloc_errno;

static int fake_fallocate(int fd, int mode, off_t off, off_t len)
{
	int e = atomic_exchange(&fail_falloc_errno, 0);

	if (e) {
		errno = e;
		return -1;
	}
	return fallocate(fd, mode, off, len);
}

static void reset(void)
{
	atomic_store(&fail_falloc_errno, 0);
	atomic_store(&fail_write_errno, ENOSPC);
	atomic_store(&hold_trunc, 0);
	atomic_store(&trunc_in, 0);
	atomic_store(&n_fdatasync, 0);
	atomic_store(&fail_fdatasync_once, 0);
	atomic_store(&fail_fdatasync_always, 0);
	atomic_store(&fail_fdatasync_n, 0);
	atomic_store(&entered, 0);
	atomic_store(&gate_on, 0);
	atomic_store(&fail_sfr_once, 0);
	atomic_store(&n_sfr_fail, 0);
	atomic_store(&sfr_fail_delay_us, 0);
	atomic_store(&fail_write_off, -1);
	atomic_store(&chaos, 0);
	atomic_store(&fail_every_write, 0);
	atomic_store(&n_failed_writes, 0);
	atomic_store(&hold_fdatasync, 0);
	atomic_store(&fdatasync_in, 0);
	atomic_store(&hold_write, 0);
	atomic_store(&write_in, 0);
	atomic_store(&write_out, 0);
	atomic_store(&hold_write_off, -1);
	atomic_store(&hold_sfr, 0);
	atomic_store(&sfr_in, 0);
}

/* worker_max: the export's caller_write_max (Worker_Write_Max) */
static void setup_w(struct tl_ctx *c, bool pool, enum dcio_write_mode wm,
		    uint32_t worker_max)
{
	struct dcio_syscalls t = { .fdatasync = fake_fdatasync,
				   .fsync = fake_fsync,
				   .sync_file_range = fake_sfr,
				   .ftruncate = fake_ftruncate,
				   .fallocate = fake_fallocate };
	struct dcio_export_params p =
		tl_params(wm, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);

	if (pool)
		t.pwritev2 = fake_pwritev2;
	p.flush_file_bytes = 64 << 10;
	p.caller_write_max = worker_max;
	reset();
	tl_ctx_open(c, &(struct tl_setup){ .sys = &t,
					   .p = &p,
					   .name = "err",
					   .flags = O_TRUNC });
}

static void setup(struct tl_ctx *c, bool pool, enum dcio_write_mode wm)
{
	setup_w(c, pool, wm, 0);
}

/* a file the test closed itself is not closed again */
static void teardown(struct tl_ctx *c, int close_err)
{
	bool open = c->f != NULL;
	int rc = tl_ctx_close(c);

	if (open)
		CU_ASSERT_EQUAL(rc, close_err);
}

static char buf[1 << 20];

struct committer {
	struct dcio_file *f;
	pthread_barrier_t *bar;
	uint64_t off, len; /* failing_commit's range (0, 0: the whole file) */
	int rc;
	atomic_int done; /* failing_commit returned */
};

static void *commit_thread(void *arg)
{
	struct committer *k = arg;
	pthread_barrier_wait(k->bar);
	atomic_fetch_add(&entered, 1);
	k->rc = dcio_commit(k->f, 0, 0);
	return NULL;
}

static void t_fdatasync_eio(void)
{
	struct tl_ctx c;
	setup(&c, false, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, sizeof(buf), 0, 1);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	uint64_t gen0 = dcio_export_verifier_gen(c.x);

	atomic_store(&fail_fdatasync_once, EIO);
	atomic_store(&gate_on, 1);
	pthread_t tid[NCOMMIT];
	struct committer k[NCOMMIT];
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, NCOMMIT);
	for (int i = 0; i < NCOMMIT; i++) {
		k[i] = (struct committer){ .f = c.f, .bar = &bar };
		pthread_create(&tid[i], NULL, commit_thread, &k[i]);
	}
	for (int i = 0; i < NCOMMIT; i++) {
		pthread_join(tid[i], NULL);
		CU_ASSERT_EQUAL(k[i].rc, EIO);
	}
	pthread_barrier_destroy(&bar);
	CU_ASSERT_NOT_EQUAL(dcio_export_verifier_gen(c.x), gen0);

	/* the kernel would now say 0; the engine remembers */
	int n = atomic_load(&n_fdatasync);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 4096, 100), EIO);
	CU_ASSERT_EQUAL(atomic_load(&n_fdatasync), n);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 2 << 20, 1 << 20), 0);

	/* rewrite the first half: it alone is clear after a good flush */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 512 << 10, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 512 << 10), 0);
	CU_ASSERT_EQUAL(atomic_load(&n_fdatasync), n + 1);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 512 << 10, 512 << 10), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	CU_ASSERT_EQUAL(tl_write(c.f, buf + (512 << 10), 512 << 10, 512 << 10,
				 DCIO_UNSTABLE),
			0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 512 << 10, 1), 0);

	CU_ASSERT_TRUE(tl_stat(c.x, "errors.EIO") >= 1);
	CU_ASSERT_TRUE(tl_stat(c.x, "group_commit.lost_range_reports") >= 3);
	teardown(&c, 0);
}

/* a rewrite that is acknowledged but not flushed yet does not clear the loss */
static void t_rewrite_needs_flush(void)
{
	struct tl_ctx c;
	setup(&c, false, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 65536, 0, 2);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	atomic_store(&fail_fdatasync_once, EDQUOT);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EDQUOT);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	/* the flush covering the rewrite fails again: still lost */
	atomic_store(&fail_fdatasync_once, EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	teardown(&c, 0);
}

/* stable writes in failing batches all see the error */
static void t_stable_eio(void)
{
	struct tl_ctx c;
	setup(&c, false, DCIO_WRITE_DONTCACHE);
	struct tl_wait w;
	struct tl_op ops[16];
	tl_wait_init(&w);
	tl_fill(buf, 16 * 4096, 0, 3);
	atomic_store(&fail_fdatasync_always, EIO);
	for (int i = 0; i < 16; i++) {
		ops[i] = (struct tl_op){ .w = &w };
		struct iovec iov = { buf + i * 4096, 4096 };
		CU_ASSERT_EQUAL(
			dcio_write(c.f, &iov, 1, (uint64_t)i * 4096,
				   i % 2 ? DCIO_FILE_SYNC : DCIO_DATA_SYNC,
				   NULL, NULL, tl_op_done, &ops[i]),
			0);
	}
	tl_wait_for(&w, 16);
	for (int i = 0; i < 16; i++) {
		CU_ASSERT_EQUAL(ops[i].err, EIO);
		CU_ASSERT_EQUAL(ops[i].calls, 1);
	}
	atomic_store(&fail_fdatasync_always, 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 4096), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 15 * 4096, 4096), EIO);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 16 * 4096, 0, DCIO_DATA_SYNC), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	teardown(&c, 0);
}

/* a write that fails with an I/O error may have taken the writeback report of
 * acknowledged data: that data is reported lost */
static void t_write_eio(void)
{
	struct tl_ctx c;
	setup(&c, true, DCIO_WRITE_DONTCACHE);
	atomic_store(&fail_write_errno, EIO);
	uint64_t gen0 = dcio_export_verifier_gen(c.x);
	tl_fill(buf, 65536, 0, 4);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	atomic_store(&fail_write_off, 1 << 20);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 1 << 20, DCIO_UNSTABLE), EIO);
	CU_ASSERT_NOT_EQUAL(dcio_export_verifier_gen(c.x), gen0);
	/* the acknowledged write before it is reported lost */
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 65536), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	atomic_store(&fail_write_off, -1);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 1 << 20, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	char *js = tl_stats(c.x);
	CU_ASSERT_TRUE(tl_json_valid(js));
	CU_ASSERT_EQUAL(tl_json_num(js, "errors.EIO"), 1);
	free(js);
	teardown(&c, 0);
}

/* A file may be written through any export of the server (the FSAL keeps
 * one engine file per inode, in the engine export of the export that opened
 * it): a loss changes the engine-wide generation, which every export's
 * verifier follows, while the other export's own generation stays. */
static void t_engine_verifier_gen(void)
{
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);
	struct dcio_export *other = NULL;
	struct tl_ctx c;
	uint64_t e0, o0;

	setup(&c, true, DCIO_WRITE_DONTCACHE);
	CU_ASSERT_EQUAL_FATAL(
		dcio_export_create(c.e, &p, "other", c.dfd, &other), 0);
	e0 = dcio_engine_verifier_gen(c.e);
	o0 = dcio_export_verifier_gen(other);
	CU_ASSERT(e0 >= 1);
	tl_fill(buf, 65536, 0, 4);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_engine_verifier_gen(c.e), e0);
	atomic_store(&fail_write_errno, EIO);
	atomic_store(&fail_write_off, 1 << 20);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 1 << 20, DCIO_UNSTABLE), EIO);
	CU_ASSERT_NOT_EQUAL(dcio_engine_verifier_gen(c.e), e0);
	CU_ASSERT_EQUAL(dcio_export_verifier_gen(other), o0);
	atomic_store(&fail_write_off, -1);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	dcio_export_destroy(other);
	teardown(&c, 0);
}

/* ENOSPC/EDQUOT from write() itself refuses that write: the kernel lost no
 * acknowledged page, so nothing is lost and the verifier stays (one user at
 * quota must not make every client of the export resend); the client saw
 * the write fail, and a COMMIT answers OK, as the kernel's NFS server does */
static void t_write_enospc_refused(void)
{
	static const int errs[] = { ENOSPC, EDQUOT };

	for (unsigned i = 0; i < 2; i++) {
		struct tl_ctx c;
		setup(&c, true, DCIO_WRITE_DONTCACHE);
		atomic_store(&fail_write_errno, errs[i]);
		uint64_t gen0 = dcio_export_verifier_gen(c.x);
		tl_fill(buf, 65536, 0, 4);
		CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
		atomic_store(&fail_write_off, 1 << 20);
		CU_ASSERT_EQUAL(
			tl_write(c.f, buf, 65536, 1 << 20, DCIO_UNSTABLE),
			errs[i]);
		CU_ASSERT_EQUAL(dcio_export_verifier_gen(c.x), gen0);
		CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 65536), 0);
		CU_ASSERT_EQUAL(dcio_commit(c.f, 1 << 20, 65536), 0);
		CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
		atomic_store(&fail_write_off, -1);
		CU_ASSERT_EQUAL(
			tl_write(c.f, buf, 65536, 1 << 20, DCIO_UNSTABLE), 0);
		CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
		CU_ASSERT_EQUAL(dcio_export_verifier_gen(c.x), gen0);
		CU_ASSERT_EQUAL(tl_stat(c.x, errs[i] == ENOSPC
						     ? "errors.ENOSPC"
						     : "errors.EDQUOT"),
				1);
		teardown(&c, 0);
	}
}

/* a flusher (sync_file_range) error no COMMIT saw is returned by close */
/* The failing sync_file_range returns while close is already waiting for the
 * flusher: the settle flush it posts must be done before the file is freed
 * (ASan saw the pool thread run it on freed memory). */
static void t_flusher_error_close(void)
{
	struct tl_ctx c;
	setup(&c, false, DCIO_WRITE_DROPBEHIND);
	atomic_store(&fail_sfr_once, 1);
	atomic_store(&sfr_fail_delay_us, 100000);
	tl_fill(buf, 256 << 10, 0, 5);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 256 << 10, 0, DCIO_UNSTABLE), 0);
	/* the write crossed flush_file_bytes: wait for the flusher to run */
	for (int i = 0; i < 10000 && !atomic_load(&n_sfr_fail); i++)
		usleep(1000);
	CU_ASSERT_EQUAL_FATAL(atomic_load(&n_sfr_fail), 1);
	teardown(&c, EIO);
}

/* the same, reported to a COMMIT first: close has nothing more to say */
static void t_flusher_error_commit(void)
{
	struct tl_ctx c;
	setup(&c, false, DCIO_WRITE_DROPBEHIND);
	atomic_store(&fail_sfr_once, 1);
	tl_fill(buf, 256 << 10, 0, 6);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 256 << 10, 0, DCIO_UNSTABLE), 0);
	for (int i = 0; i < 10000 && !atomic_load(&n_sfr_fail); i++)
		usleep(1000);
	CU_ASSERT_EQUAL_FATAL(atomic_load(&n_sfr_fail), 1);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	teardown(&c, 0);
}

static void t_close_unreported_write_error(void)
{
	struct tl_ctx c;
	setup(&c, true, DCIO_WRITE_BUFFERED);
	tl_fill(buf, 4096, 0, 7);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 4096, 0, DCIO_UNSTABLE), 0);
	atomic_store(&fail_write_errno, EIO);
	atomic_store(&fail_write_off, 8192);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 4096, 8192, DCIO_UNSTABLE), EIO);
	teardown(&c, EIO);
}

/* a write refused for a bad request (EBADF: read-only fd) loses nothing else */
static void t_bad_request_no_loss(void)
{
	struct tl_ctx c;
	setup(&c, false, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 4096, 0, 9);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 4096, 0, DCIO_UNSTABLE), 0);
	uint64_t gen0 = dcio_export_verifier_gen(c.x);
	struct dcio_file *ro;
	int fd = open(tl_path(&c.fs, "f"), O_RDONLY);
	CU_ASSERT_EQUAL_FATAL(dcio_file_open(c.x, fd, &ro), 0);
	CU_ASSERT_EQUAL(tl_write(ro, buf, 4096, 0, DCIO_UNSTABLE), EBADF);
	CU_ASSERT_EQUAL(dcio_file_close(ro), 0);
	CU_ASSERT_EQUAL(dcio_export_verifier_gen(c.x), gen0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	CU_ASSERT_EQUAL(tl_stat(c.x, "errors.EBADF"), 1);
	teardown(&c, 0);
}

/* An async write of buf[0, len) at off: wait with tl_wait_for(&a->w, 1). */
struct async_write {
	struct tl_wait w;
	struct tl_op op;
};

static void start_write(struct async_write *a, struct dcio_file *f, size_t len,
			uint64_t off, enum dcio_stable st)
{
	struct iovec iov = { buf, len };

	tl_wait_init(&a->w);
	a->op = (struct tl_op){ .w = &a->w };
	CU_ASSERT_EQUAL_FATAL(
		dcio_write(f, &iov, 1, off, st, NULL, NULL, tl_op_done, &a->op),
		0);
}

static void wait_flag(atomic_int *flag)
{
	for (int i = 0; i < 10000 && !atomic_load(flag); i++)
		usleep(1000);
	CU_ASSERT_TRUE_FATAL(atomic_load(flag));
}

/* A write in flight while a flush fails: that flush may have consumed the
 * kernel's report of the write's own pages, so its range is lost too. */
static void t_inflight_write_lost(void)
{
	struct tl_ctx c;
	setup(&c, true, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 65536, 0, 10);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	atomic_store(&hold_write, 1);
	atomic_store(&hold_write_off, 1 << 20);
	struct async_write a;
	start_write(&a, c.f, 65536, 1 << 20, DCIO_UNSTABLE);
	wait_flag(&write_in);
	atomic_store(&fail_fdatasync_once, EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 65536), EIO);
	atomic_store(&hold_write, 0);
	tl_wait_for(&a.w, 1);
	CU_ASSERT_EQUAL(a.op.err, 0);
	/* the kernel's fdatasync would now answer 0 */
	CU_ASSERT_EQUAL(dcio_commit(c.f, 1 << 20, 65536), EIO);
	CU_ASSERT_EQUAL(tl_stat(c.x, "group_commit.lost_in_flight"), 1);
	atomic_store(&hold_write_off, -1);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 1 << 20, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 1 << 20, 65536), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 65536), EIO);
	teardown(&c, 0);
}

static void *failing_commit(void *arg)
{
	struct committer *k = arg;
	k->rc = dcio_commit(k->f, k->off, k->len);
	atomic_store(&k->done, 1);
	return NULL;
}

/* Starts a whole-file COMMIT whose fdatasync is held until hold_fdatasync is
 * cleared; returns once the flush is inside the syscall. */
static void start_held_flush(struct tl_ctx *c, struct committer *k,
			     pthread_t *tid)
{
	atomic_store(&hold_fdatasync, 1);
	atomic_store(&fdatasync_in, 0); /* not an earlier flush's */
	*k = (struct committer){ .f = c->f };
	CU_ASSERT_EQUAL_FATAL(pthread_create(tid, NULL, failing_commit, k), 0);
	wait_flag(&fdatasync_in);
}

/* A stable write acknowledged while another flush runs and then fails: its own
 * flush succeeds, but its data went with the failed one. */
static void t_stable_write_lost_before_flush(void)
{
	struct tl_ctx c;
	struct committer k;
	pthread_t tid;

	setup(&c, true, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 65536, 0, 11);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	start_held_flush(&c, &k, &tid);
	/* read by the held fdatasync once it is let go */
	atomic_store(&fail_fdatasync_once, EIO);
	atomic_store(&hold_write_off, 1 << 20);
	struct async_write a;
	start_write(&a, c.f, 65536, 1 << 20, DCIO_DATA_SYNC);
	wait_flag(&write_out);
	usleep(50000); /* acknowledged and queued behind the held flush */
	atomic_store(&hold_fdatasync, 0);
	pthread_join(tid, NULL);
	CU_ASSERT_EQUAL(k.rc, EIO);
	tl_wait_for(&a.w, 1);
	CU_ASSERT_EQUAL(a.op.err, EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 1 << 20, 65536), EIO);
	atomic_store(&hold_write_off, -1);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 1 << 20, DCIO_DATA_SYNC), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 1 << 20, 65536), 0);
	teardown(&c, 0);
}

/* A failed write may leave a writeback error behind (pages it dirtied): the
 * engine's settle flush takes it, so writes acknowledged later are not
 * charged with it. The fake's one failed fdatasync stands for that error. */
static void t_failed_write_settles(void)
{
	struct tl_ctx c;
	setup(&c, true, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 65536, 0, 12);
	atomic_store(&fail_write_errno, EIO);
	atomic_store(&fail_write_off, 1 << 20);
	atomic_store(&fail_fdatasync_once, ENOSPC);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 1 << 20, DCIO_UNSTABLE), EIO);
	/* the settle's fdatasync took the error; its flush is done (and the
	 * error noted) once errors.ENOSPC says so: a write begun before that
	 * is in flight across a failed flush, and lost with it */
	CU_ASSERT_EQUAL_FATAL(
		tl_wait_stat(c.x, "errors.ENOSPC", TL_AT_LEAST, 1, 10000), 1);
	CU_ASSERT_EQUAL_FATAL(atomic_load(&fail_fdatasync_once), 0);
	atomic_store(&fail_write_off, -1);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 65536), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 1 << 20, 65536), EIO);
	CU_ASSERT_TRUE(tl_stat(c.x, "group_commit.settles") >= 1);
	teardown(&c, 0);
}

/* The flusher's sync_file_range and a stable write's fdatasync run on the same
 * fd: the kernel reports a writeback error to whichever looks first. A flush
 * overlapped by a failing sync_file_range fails too. */
static void t_flusher_error_during_flush(void)
{
	struct tl_ctx c;
	setup(&c, false, DCIO_WRITE_DROPBEHIND);
	tl_fill(buf, 256 << 10, 0, 13);
	atomic_store(&hold_fdatasync, 1);
	struct async_write a;
	start_write(&a, c.f, 4096, 1 << 20, DCIO_DATA_SYNC);
	wait_flag(&fdatasync_in);
	/* crosses flush_file_bytes: the flusher starts a sync_file_range, held */
	atomic_store(&hold_sfr, 1);
	atomic_store(&fail_sfr_once, 1);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 256 << 10, 0, DCIO_UNSTABLE), 0);
	wait_flag(&sfr_in);
	atomic_store(&hold_fdatasync, 0); /* the flush answers 0 first */
	usleep(50000);
	atomic_store(&hold_sfr, 0); /* then the flusher sees EIO */
	tl_wait_for(&a.w, 1);
	CU_ASSERT_EQUAL(a.op.err, EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 1 << 20, 4096), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	CU_ASSERT_EQUAL(tl_stat(c.x, "errors.EIO"), 1);
	teardown(&c, 0);
}

/* A flusher error while a flush runs loses the writes acknowledged since
 * it began (em_lose_pending: nothing is left unflushed); the writes the
 * flush took are lost only when it ends, failed by the error. A COMMIT of
 * those in between found "nothing dirty" and answered OK: a false success
 * (fault_eio_kick, 1 in ~30 runs on a loaded machine). It waits for the
 * flush now. */
static void t_commit_waits_failing_flush(void)
{
	struct tl_ctx c;
	struct committer k, k2;
	pthread_t tid, tid2;

	setup(&c, false, DCIO_WRITE_DROPBEHIND);
	tl_fill(buf, 64 << 10, 0, 14);
	/* below flush_file_bytes: no flusher pass for it */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 4096, 0, DCIO_UNSTABLE), 0);
	start_held_flush(&c, &k, &tid); /* takes [0, 4096) */
	/* a write crossing flush_file_bytes: its pass's sync_file_range fails
	 * while the flush is held */
	atomic_store(&fail_sfr_once, 1);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 64 << 10, 1 << 20, DCIO_UNSTABLE),
			0);
	for (int i = 0; i < 10000 && !atomic_load(&n_sfr_fail); i++)
		usleep(1000);
	CU_ASSERT_EQUAL_FATAL(atomic_load(&n_sfr_fail), 1);
	/* the first write's COMMIT: it must not answer before the flush */
	k2 = (struct committer){ .f = c.f, .len = 4096, .rc = -1 };
	CU_ASSERT_EQUAL_FATAL(pthread_create(&tid2, NULL, failing_commit, &k2),
			      0);
	for (int i = 0; i < 200 && !atomic_load(&k2.done); i++)
		usleep(1000);
	CU_ASSERT_FALSE(atomic_load(&k2.done));
	atomic_store(&hold_fdatasync, 0);
	pthread_join(tid, NULL);
	pthread_join(tid2, NULL);
	CU_ASSERT_EQUAL(k.rc, EIO);
	CU_ASSERT_EQUAL(k2.rc, EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 4096), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 1 << 20, 64 << 10), EIO);
	teardown(&c, 0);
}

static void t_retries(void)
{
	struct tl_ctx c;
	setup(&c, true, DCIO_WRITE_DONTCACHE);
	atomic_store(&chaos, 1);
	tl_fill(buf, sizeof(buf), 12345, 8);
	struct iovec iov[3] = { { buf, 1000 },
				{ buf + 1000, 70000 },
				{ buf + 71000, sizeof(buf) - 71000 } };
	struct tl_wait w;
	struct tl_op op = { .w = &w };
	tl_wait_init(&w);
	CU_ASSERT_EQUAL(dcio_write(c.f, iov, 3, 12345, DCIO_UNSTABLE, NULL,
				   NULL, tl_op_done, &op),
			0);
	tl_wait_for(&w, 1);
	CU_ASSERT_EQUAL(op.err, 0);
	CU_ASSERT_EQUAL(op.bytes, sizeof(buf));
	atomic_store(&chaos, 0);
	static char back[1 << 20];
	CU_ASSERT_EQUAL(pread(dcio_file_fd(c.f), back, sizeof(back), 12345),
			(ssize_t)sizeof(back));
	CU_ASSERT_TRUE(tl_check(back, sizeof(back), 12345, 8));
	teardown(&c, 0);
}

/* The watchdog of t_retries_bounded: after 10 s it ends the injected
 * failures (so that a write retried forever ends and the test fails instead
 * of hanging) and says so in wd_fired. */
static atomic_int wd_stop, wd_fired;

static void *watchdog(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10000 && !atomic_load(&wd_stop); i++)
		usleep(1000);
	if (!atomic_load(&wd_stop)) {
		atomic_store(&wd_fired, 1);
		atomic_store(&fail_every_write, 0);
	}
	return NULL;
}

/* Issue 17 item 6: a pwritev2 that answers EINTR or EAGAIN forever is not
 * resubmitted forever: the write fails with that error after a bounded
 * number of tries (a pool thread would spin on it until shutdown, and the
 * export's teardown would wait for it). Both engine paths: an engine thread
 * (a write larger than Worker_Write_Max) and the caller's own thread. */
static void t_retries_bounded(void)
{
	static const int errs[] = { EAGAIN, EINTR };
	struct tl_ctx c;

	setup_w(&c, true, DCIO_WRITE_DONTCACHE, 65536);
	tl_fill(buf, sizeof(buf), 0, 17);
	for (size_t i = 0; i < 2 * sizeof(errs) / sizeof(errs[0]); i++) {
		int err = errs[i % 2];
		/* i < 2: 1 MiB (an engine thread); else 4 KiB (the caller's
		 * thread: under the default Worker_Write_Max) */
		size_t len = i < 2 ? sizeof(buf) : 4096;
		struct iovec iov = { buf, len };
		struct tl_wait w;
		struct tl_op op = { .w = &w };
		uint64_t t0 = now_ns();
		pthread_t wd;
		int rc, tries;

		tl_wait_init(&w);
		atomic_store(&n_failed_writes, 0);
		atomic_store(&fail_every_write, err);
		atomic_store(&wd_stop, 0);
		atomic_store(&wd_fired, 0);
		CU_ASSERT_FATAL(pthread_create(&wd, NULL, watchdog, NULL) == 0);
		rc = dcio_write(c.f, &iov, 1, 0, DCIO_UNSTABLE, NULL, NULL,
				tl_op_done, &op);
		CU_ASSERT_EQUAL(rc, 0);
		if (rc == 0)
			tl_wait_for(&w, 1);
		atomic_store(&wd_stop, 1);
		pthread_join(wd, NULL);
		atomic_store(&fail_every_write, 0);
		tries = atomic_load(&n_failed_writes);
		printf("\n# %s write of %zu bytes, %s forever: %s after %d tries, %.1f ms%s\n",
		       i < 2 ? "engine" : "caller's", len, strerror(err),
		       strerror(op.err), tries, (now_ns() - t0) / 1e6,
		       atomic_load(&wd_fired) ? " (still retrying after 10 s)"
					      : "");
		CU_ASSERT_FALSE(atomic_load(&wd_fired));
		CU_ASSERT_EQUAL(op.err, err);
		CU_ASSERT_EQUAL(op.bytes, 0);
		CU_ASSERT_EQUAL(tries, DCIO_IO_MAX_TRIES);
		/* the backoff is short: well under a second for all tries */
		CU_ASSERT_TRUE(now_ns() - t0 < 2000000000ull);
	}
	/* close reports the failed writes: not this test's business */
	tl_ctx_close(&c);
}

/* Issue 8 item 4: a write that fails while a flush runs loses its range; the
 * flush succeeding afterwards (its snapshot covered that range) must not
 * clear it. */
static void t_flush_keeps_range_lost_meanwhile(void)
{
	struct tl_ctx c;
	struct committer k;
	pthread_t tid;

	setup(&c, true, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 65536, 0, 14);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	start_held_flush(&c, &k, &tid);
	atomic_store(&fail_write_errno, EIO);
	atomic_store(&fail_write_off, 0);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), EIO);
	atomic_store(&hold_fdatasync, 0);
	pthread_join(tid, NULL);
	atomic_store(&fail_write_off, -1);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 65536), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	teardown(&c, 0);
}

/* The same for a write lost in flight and acknowledged while a flush whose
 * snapshot covered its range (an earlier write there) ran. */
static void t_flush_keeps_inflight_loss(void)
{
	struct tl_ctx c;
	struct committer k;
	pthread_t tid;
	struct async_write a;

	setup(&c, true, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 1 << 20, 0, 15);
	atomic_store(&hold_write, 1);
	atomic_store(&hold_write_off, 1 << 20);
	start_write(&a, c.f, 65536, 1 << 20, DCIO_UNSTABLE);
	wait_flag(&write_in);
	/* an error is recorded while that write is in flight */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	atomic_store(&fail_fdatasync_once, EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 65536), EIO);
	/* an acknowledged write over the same range, then a flush of it */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536 + 4096, (1 << 20) - 4096,
				 DCIO_UNSTABLE),
			0);
	start_held_flush(&c, &k, &tid);
	atomic_store(&hold_write, 0);
	tl_wait_for(&a.w, 1);
	CU_ASSERT_EQUAL(a.op.err, 0);
	atomic_store(&hold_fdatasync, 0);
	pthread_join(tid, NULL);
	atomic_store(&hold_write_off, -1);
	CU_ASSERT_EQUAL(tl_stat(c.x, "group_commit.lost_in_flight"), 1);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 1 << 20, 65536), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	teardown(&c, 0);
}

/* A write acknowledged while a flush runs may still be under writeback when
 * that flush fails; its page's error then reaches the next fdatasync. The
 * engine settles at once (one more flush) so that the error is charged to
 * this loss, not to data acknowledged later (fault_eio.sh: a rewrite after
 * the device recovered was lost to such a late report). */
static void t_failed_flush_settles(void)
{
	struct tl_ctx c;
	struct committer k;
	pthread_t tid;

	setup(&c, true, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 65536, 0, 19);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	start_held_flush(&c, &k, &tid);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 1 << 20, DCIO_UNSTABLE), 0);
	/* that flush fails, then the late report of the second write's page */
	atomic_store(&fail_fdatasync_n, 2);
	atomic_store(&hold_fdatasync, 0);
	pthread_join(tid, NULL);
	CU_ASSERT_EQUAL(k.rc, ENOSPC);
	for (int i = 0; i < 2000 && atomic_load(&fail_fdatasync_n) > 0; i++)
		usleep(1000);
	CU_ASSERT_EQUAL(atomic_load(&fail_fdatasync_n), 0);
	/* written after the loss: commits */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 2 << 20, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 2 << 20, 65536), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 1 << 20, 65536), ENOSPC);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 1 << 20, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	teardown(&c, 0);
}

/* A punch that fails half-way loses the acknowledged data of its range. When
 * that data rewrote a lost range, neither the flush running meanwhile (its
 * snapshot covered an earlier rewrite) nor a later one may clear the loss:
 * the rewrite it made no longer stands. */
static void t_failed_punch_stays_lost(void)
{
	struct tl_ctx c;
	struct committer k;
	pthread_t tid;

	setup(&c, true, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 65536, 0, 20);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	atomic_store(&fail_fdatasync_once, EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 65536), EIO);
	/* rewritten, and a flush of that rewrite held */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	start_held_flush(&c, &k, &tid);
	/* rewritten again, then a punch of it fails half-way */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	atomic_store(&fail_falloc_errno, EIO);
	CU_ASSERT_EQUAL(dcio_fallocate(c.f, DCIO_PUNCH, 0, 65536), EIO);
	atomic_store(&hold_fdatasync, 0);
	pthread_join(tid, NULL);
	/* the held whole-file COMMIT covers the punched range */
	CU_ASSERT_EQUAL(k.rc, EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 65536), EIO);
	/* a later successful flush of other data does not clear it either */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 1 << 20, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 1 << 20, 65536), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 65536), EIO);
	/* rewritten and flushed: committed */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	teardown(&c, 0);
}

/* The same when the flush running as the punch fails has the rewrite in its
 * snapshot: its success does not make the punched range durable. */
static void t_failed_punch_during_flush(void)
{
	struct tl_ctx c;
	struct committer k;
	pthread_t tid;

	setup(&c, true, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 65536, 0, 21);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	atomic_store(&fail_fdatasync_once, EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 65536), EIO);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	start_held_flush(&c, &k, &tid);
	atomic_store(&fail_falloc_errno, EIO);
	CU_ASSERT_EQUAL(dcio_fallocate(c.f, DCIO_PUNCH, 0, 65536), EIO);
	atomic_store(&hold_fdatasync, 0);
	pthread_join(tid, NULL);
	CU_ASSERT_EQUAL(k.rc, EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 65536), EIO);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	teardown(&c, 0);
}

/* Issue 8 item 5: closing flushes; when that flush fails the file is not
 * closed (its lost ranges would go with it) and stays usable. */
static void t_close_clean_keeps_failed(void)
{
	struct tl_ctx c;
	int err = -1;

	setup(&c, false, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 65536, 0, 16);
	/* clean: closes, like dcio_file_close */
	CU_ASSERT_TRUE(dcio_file_close_clean(c.f, &err));
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT_EQUAL_FATAL(dcio_file_open(c.x, tl_open(&c.fs, "f", 0), &c.f),
			      0);
	/* a write acknowledged just before the close, whose flush fails */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	atomic_store(&fail_fdatasync_once, EIO);
	CU_ASSERT_FALSE(dcio_file_close_clean(c.f, &err));
	CU_ASSERT_EQUAL(err, EIO);
	/* every later COMMIT of it still fails, whoever asks, however often */
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 4096), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	CU_ASSERT_FALSE(dcio_file_close_clean(c.f, &err));
	CU_ASSERT_EQUAL(err, EIO);
	/* rewritten and flushed: now it closes */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_TRUE(dcio_file_close_clean(c.f, &err));
	CU_ASSERT_EQUAL(err, 0);
	c.f = NULL;
	teardown(&c, 0);
}

static void *trunc_thread(void *arg)
{
	struct committer *k = arg;
	k->rc = dcio_file_truncate(k->f, 4096);
	return NULL;
}

/* Issue 8 item 7: a truncate forgets lost and pending ranges past the new
 * size (after a failed write and an O_TRUNC rewrite, the whole-file COMMIT of
 * a Linux NFSv3 client succeeds again). */
static void t_truncate_trims_lost(void)
{
	struct tl_ctx c;

	setup(&c, true, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 65536, 0, 17);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 1 << 20, DCIO_UNSTABLE), 0);
	atomic_store(&fail_fdatasync_once, EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	CU_ASSERT_EQUAL(dcio_file_truncate(c.f, 4096), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 8192, 0), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 4096), EIO);
	CU_ASSERT_EQUAL(dcio_file_truncate(c.f, 0), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	/* the O_TRUNC rewrite */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 8192, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	CU_ASSERT_EQUAL(dcio_file_truncate(c.f, (uint64_t)INT64_MAX + 1),
			EFBIG);
	teardown(&c, 0);
}

/* A write acknowledged or lost while the truncate runs may land after it:
 * the trim keeps it. */
static void t_truncate_keeps_concurrent(void)
{
	struct tl_ctx c;
	struct async_write a;

	setup(&c, true, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 65536, 0, 18);
	atomic_store(&hold_trunc, 1);
	struct committer k = { .f = c.f };
	pthread_t tid;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&tid, NULL, trunc_thread, &k), 0);
	wait_flag(&trunc_in);
	atomic_store(&fail_write_errno, EIO);
	atomic_store(&fail_write_off, 1 << 20);
	start_write(&a, c.f, 65536, 1 << 20, DCIO_UNSTABLE);
	tl_wait_for(&a.w, 1);
	CU_ASSERT_EQUAL(a.op.err, EIO);
	atomic_store(&fail_write_off, -1);
	atomic_store(&hold_trunc, 0);
	pthread_join(tid, NULL);
	CU_ASSERT_EQUAL(k.rc, 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 1 << 20, 65536), EIO);
	teardown(&c, 0);
}

/* Ranges the file remembers for its group commit (pending, and the
 * rewrites of lost ranges a good flush will clear). */
static int pending_ranges(struct dcio_file *f)
{
	pthread_mutex_lock(&f->gc.mu);
	int n = (int)(f->em.pending.n + f->em.clear.n);
	pthread_mutex_unlock(&f->gc.mu);
	return n;
}

/* Scattered writes while ranges are lost: the memory they take is bounded
 * (pending collapses, rewrites of lost ranges are flushed at a bound), a
 * rewrite still clears its lost range, and what was not rewritten stays
 * lost through those flushes. */
static void t_pending_bounded_while_lost(void)
{
	struct tl_ctx c;
	const uint64_t g = 1ull << 30;

	setup(&c, true, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 1 << 20, 0, 19);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 4096, 0, DCIO_UNSTABLE), 0);
	for (int i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(tl_write(c.f, buf, 1 << 20,
					 2 * g + ((uint64_t)i << 20),
					 DCIO_UNSTABLE),
				0);
	atomic_store(&fail_fdatasync_once, EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	int max = 0;
	for (int i = 0; i < 6000; i++) {
		/* odd: new scattered ranges; even: every other 512 bytes of
		 * the lost [2 GiB, +16 MiB) rewritten */
		uint64_t off =
			(i % 2 ? g + (64 << 20) : 2 * g) + (uint64_t)i * 1024;
		CU_ASSERT_EQUAL_FATAL(
			tl_write(c.f, buf, 512, off, DCIO_UNSTABLE), 0);
		int n = pending_ranges(c.f);
		if (n > max)
			max = n;
	}
	CU_ASSERT_TRUE(max <= 2 * 1024 + 2);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 4096), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 2 * g, 512), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 2 * g + 512, 512), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 2 * g + 5998 * 1024, 512), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 2 * g + (15 << 20), 4096), EIO);
	teardown(&c, 0);
}

/* Bytes the file's error memory holds in its range sets (their capacity). */
static size_t errmem_bytes(struct dcio_file *f)
{
	const struct dcio_rangeset *sets[] = {
		&f->em.pending,	    &f->em.lost,       &f->em.clear,
		&f->em.flush_clear, &f->em.relost,     &f->em.flush_pending,
		&f->em.trunc_acked, &f->em.trunc_lost,
	};
	size_t n = 0;

	pthread_mutex_lock(&f->gc.mu);
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		if (sets[i]->r != &sets[i]->one)
			n += sets[i]->cap * sizeof(struct dcio_range);
	pthread_mutex_unlock(&f->gc.mu);
	return n;
}

static size_t lost_ranges(struct dcio_file *f)
{
	pthread_mutex_lock(&f->gc.mu);
	size_t n = f->em.lost.n;
	pthread_mutex_unlock(&f->gc.mu);
	return n;
}

#define HOSTILE_WRITES 4000

/* An over-quota client: 1-byte WRITEs at descending even offsets, each
 * refused with EDQUOT/ENOSPC by the write itself. The client saw each fail
 * and the kernel consumed no writeback report: nothing joins `lost`, no
 * settle flush runs, the verifier stays, and a COMMIT answers OK (as the
 * kernel's NFS server does). Before, each refused write added a lost range
 * (O(n) insert, memory without bound) and posted a settle fdatasync. */
static void t_hostile_refused_writes(void)
{
	static const int errs[] = { EDQUOT, ENOSPC };

	for (unsigned k = 0; k < 2; k++) {
		struct tl_ctx c;

		setup(&c, true, DCIO_WRITE_DONTCACHE);
		uint64_t gen0 = dcio_export_verifier_gen(c.x);
		size_t mem0 = errmem_bytes(c.f);
		atomic_store(&fail_every_write, errs[k]);
		for (int i = 0; i < HOSTILE_WRITES; i++)
			CU_ASSERT_EQUAL_FATAL(
				tl_write(c.f, buf, 1,
					 2 * (uint64_t)(HOSTILE_WRITES - i),
					 DCIO_UNSTABLE),
				errs[k]);
		atomic_store(&fail_every_write, 0);
		size_t mem = errmem_bytes(c.f);
		printf("\n    %d refused 1-byte writes: error memory %zu -> %zu bytes, %zu lost ranges\n",
		       HOSTILE_WRITES, mem0, mem, lost_ranges(c.f));
		CU_ASSERT_EQUAL(lost_ranges(c.f), 0);
		CU_ASSERT(mem <= 64 * sizeof(struct dcio_range));
		/* no settle was posted: none runs later either */
		usleep(100000);
		CU_ASSERT_EQUAL(tl_stat(c.x, "group_commit.settles"), 0);
		CU_ASSERT_EQUAL(atomic_load(&n_fdatasync), 0);
		CU_ASSERT_EQUAL(dcio_export_verifier_gen(c.x), gen0);
		CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
		CU_ASSERT_EQUAL(tl_stat(c.x, errs[k] == ENOSPC
						     ? "errors.ENOSPC"
						     : "errors.EDQUOT"),
				HOSTILE_WRITES);
		teardown(&c, 0);
	}
}

/* The same client on a failing device (each write EIO, a data-losing
 * error): `lost` stays within DCIO_LOST_CAP ranges (neighbours merge), and
 * every range it lost still fails its COMMIT. */
static void t_lost_bounded(void)
{
	struct tl_ctx c;

	setup(&c, true, DCIO_WRITE_DONTCACHE);
	size_t mem0 = errmem_bytes(c.f);
	atomic_store(&fail_every_write, EIO);
	for (int i = 0; i < HOSTILE_WRITES; i++)
		CU_ASSERT_EQUAL_FATAL(
			tl_write(c.f, buf, 1,
				 2 * (uint64_t)(HOSTILE_WRITES - i),
				 DCIO_UNSTABLE),
			EIO);
	/* the settle flushes the failed writes posted are done */
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	atomic_store(&fail_every_write, 0);
	size_t mem = errmem_bytes(c.f), n = lost_ranges(c.f);
	printf("\n    %d failed (EIO) 1-byte writes: error memory %zu -> %zu bytes, %zu lost ranges\n",
	       HOSTILE_WRITES, mem0, mem, n);
	CU_ASSERT(n <= DCIO_LOST_CAP);
	CU_ASSERT(mem <= 4 * DCIO_LOST_CAP * sizeof(struct dcio_range));
	int missed = 0;
	for (int i = 0; i < HOSTILE_WRITES; i++)
		missed += dcio_commit(c.f, 2 * (uint64_t)(HOSTILE_WRITES - i),
				      1) != EIO;
	CU_ASSERT_EQUAL(missed, 0);
	teardown(&c, 0);
}

/* The glue drops a kept engine file's memory past its bound (efile.c): the
 * engine-wide verifier changes, so no COMMIT answers OK with a lost WRITE's
 * verifier. */
static void t_forget_changes_verifier(void)
{
	struct tl_ctx c;

	setup(&c, true, DCIO_WRITE_DONTCACHE);
	uint64_t g0 = dcio_engine_verifier_gen(c.e);
	dcio_engine_forget(c.e);
	CU_ASSERT_NOT_EQUAL(dcio_engine_verifier_gen(c.e), g0);
	dcio_engine_forget(NULL);
	teardown(&c, 0);
}

/* The glue's short form of a dropped engine file (efile.c): the engine file
 * that opens next for it loses [0, size): every COMMIT in it fails until
 * rewritten and flushed; a rewrite of part clears that part only. */
static void t_lose_all(void)
{
	struct tl_ctx c;

	setup(&c, true, DCIO_WRITE_DONTCACHE);
	tl_fill(buf, 65536, 0, 21);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	dcio_file_lose_all(c.f, EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 65535, 1), EIO);
	/* past the size nothing was written: nothing lost */
	CU_ASSERT_EQUAL(dcio_commit(c.f, 65536, 4096), 0);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 4096, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 4096), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 4096, 4096), EIO);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, 65536, 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	teardown(&c, 0);
}

static const struct tl_case cases[] = {
	{ "fdatasync EIO reaches the batch and later COMMITs",
	  t_fdatasync_eio },
	{ "rewrite must be flushed successfully to clear",
	  t_rewrite_needs_flush },
	{ "stable writes see flush errors", t_stable_eio },
	{ "pwritev2 EIO marks acknowledged data lost", t_write_eio },
	{ "a loss changes the engine-wide verifier, not another export's",
	  t_engine_verifier_gen },
	{ "pwritev2 ENOSPC/EDQUOT loses nothing, keeps the verifier",
	  t_write_enospc_refused },
	{ "flusher error returned by close", t_flusher_error_close },
	{ "flusher error reported once", t_flusher_error_commit },
	{ "write error returned by close", t_close_unreported_write_error },
	{ "EINTR, EAGAIN and short writes retried", t_retries },
	{ "EINTR, EAGAIN forever fail the write after a bound",
	  t_retries_bounded },
	{ "bad-request write errors lose nothing else", t_bad_request_no_loss },
	{ "a write in flight during a flush error is lost",
	  t_inflight_write_lost },
	{ "a stable write lost before its flush fails",
	  t_stable_write_lost_before_flush },
	{ "a failed write's writeback error is settled at once",
	  t_failed_write_settles },
	{ "a flusher error during a flush fails that flush",
	  t_flusher_error_during_flush },
	{ "a COMMIT waits for a flush a flusher error dooms",
	  t_commit_waits_failing_flush },
	{ "a flush does not clear a range lost while it ran",
	  t_flush_keeps_range_lost_meanwhile },
	{ "a flush does not clear a write lost in flight while it ran",
	  t_flush_keeps_inflight_loss },
	{ "a punch failed half-way stays lost through later flushes",
	  t_failed_punch_stays_lost },
	{ "a punch failed half-way during a flush of its range stays lost",
	  t_failed_punch_during_flush },
	{ "a failed flush settles writes acknowledged while it ran",
	  t_failed_flush_settles },
	{ "close keeps a file whose final flush failed",
	  t_close_clean_keeps_failed },
	{ "truncate forgets lost ranges past the size", t_truncate_trims_lost },
	{ "truncate keeps ranges lost while it ran",
	  t_truncate_keeps_concurrent },
	{ "pending memory bounded while ranges are lost",
	  t_pending_bounded_while_lost },
	{ "dropping a memory changes the verifier", t_forget_changes_verifier },
	{ "the whole file lost, until rewritten", t_lose_all },
	{ "refused 1-byte writes at descending offsets: nothing kept",
	  t_hostile_refused_writes },
	{ "failed 1-byte writes at descending offsets: lost bounded",
	  t_lost_bounded },
};

int main(void)
{
	tl_require(0);
	return TL_RUN_SUITE("errors", cases);
}
