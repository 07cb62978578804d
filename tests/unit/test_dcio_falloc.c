// SPDX-License-Identifier: LGPL-3.0-or-later
/* ALLOCATE/DEALLOCATE in the engine (io/falloc.c): a punch waits for the
 * in-flight write of its range (a pwritev2 held in the syscall table), not for
 * writes elsewhere; the error rule across punch and allocate (an allocation
 * leaves lost data lost, a punch rewrites it; both make the next COMMIT
 * flush); hostile offsets and lengths refused with nothing changed. */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dcio_testlib.h"

#define KiB 1024u

static atomic_int hold_on, held, release_it, fail_flush, n_fdatasync;

/* with hold_on set, the next pwritev2 waits (bounded) until released */
static ssize_t held_pwritev2(int fd, const struct iovec *iov, int cnt,
			     off_t off, int flags)
{
	if (atomic_exchange(&hold_on, 0)) {
		atomic_store(&held, 1);
		for (int i = 0; i < 10000 && !atomic_load(&release_it); i++)
			usleep(1000);
	}
	return pwritev2(fd, iov, cnt, off, flags);
}

static int failing_fdatasync(int fd)
{
	atomic_fetch_add(&n_fdatasync, 1);
	if (atomic_exchange(&fail_flush, 0)) {
		errno = EIO;
		return -1;
	}
	return fdatasync(fd);
}

static const struct dcio_syscalls table = { .pwritev2 = held_pwritev2,
					    .fdatasync = failing_fdatasync };

static void setup(struct tl_ctx *c)
{
	struct dcio_engine_params ep = { .threads = 2 };

	atomic_store(&hold_on, 0);
	atomic_store(&held, 0);
	atomic_store(&release_it, 0);
	atomic_store(&fail_flush, 0);
	atomic_store(&n_fdatasync, 0);
	tl_ctx_open(c, &(struct tl_setup){ .ep = &ep,
					   .sys = &table,
					   .name = "falloc",
					   .flags = O_TRUNC });
}

struct puncher {
	struct dcio_file *f;
	uint64_t off, len;
	int rc;
	atomic_int done;
};

static void *punch_main(void *arg)
{
	struct puncher *p = arg;

	p->rc = dcio_fallocate(p->f, DCIO_PUNCH, p->off, p->len);
	atomic_store(&p->done, 1);
	return NULL;
}

static bool wait_flag(atomic_int *flag, int ms)
{
	for (int i = 0; i < ms && !atomic_load(flag); i++)
		usleep(1000);
	return atomic_load(flag);
}

/* A write of [woff, woff+64K) held in its syscall; a punch of [0, 64K). */
static void punch_vs_held_write(uint64_t woff, bool expect_wait)
{
	struct tl_ctx c;
	struct tl_wait w;
	struct tl_op op = { .w = &w };
	static char buf[64 * KiB], back[64 * KiB];
	struct puncher p = { .off = 0, .len = 64 * KiB };
	pthread_t t;

	setup(&c);
	tl_wait_init(&w);
	memset(buf, 'w', sizeof(buf));
	/* the file has data under the punch before the held write */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	atomic_store(&hold_on, 1);
	struct iovec iov = { buf, sizeof(buf) };
	CU_ASSERT_EQUAL_FATAL(dcio_write(c.f, &iov, 1, woff, DCIO_UNSTABLE,
					 NULL, NULL, tl_op_done, &op),
			      0);
	CU_ASSERT_FATAL(wait_flag(&held, 5000));
	p.f = c.f;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, punch_main, &p), 0);
	if (expect_wait) {
		/* the write of its range is in flight: the punch must not run */
		CU_ASSERT_FALSE(wait_flag(&p.done, 300));
		atomic_store(&release_it, 1);
		CU_ASSERT(wait_flag(&p.done, 5000));
	} else {
		CU_ASSERT(wait_flag(&p.done, 5000));
		atomic_store(&release_it, 1);
	}
	pthread_join(t, NULL);
	tl_wait_for(&w, 1);
	CU_ASSERT_EQUAL(op.err, 0);
	CU_ASSERT_EQUAL(p.rc, 0);
	CU_ASSERT_EQUAL(pread(dcio_file_fd(c.f), back, sizeof(back), 0),
			(ssize_t)sizeof(back));
	/* the punch came after the write it waited for: zeros */
	static const char zeros[64 * KiB];
	CU_ASSERT(memcmp(back, zeros, sizeof(back)) == 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	tl_ctx_close(&c);
}

static void t_waits_for_write_of_range(void)
{
	punch_vs_held_write(0, true);
}

static void t_not_for_other_ranges(void)
{
	punch_vs_held_write(1024 * KiB, false);
}

static void t_error_rule(void)
{
	struct tl_ctx c;
	static char buf[64 * KiB];
	int n;

	setup(&c);
	memset(buf, 'd', sizeof(buf));
	CU_ASSERT_EQUAL(tl_write(c.f, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	atomic_store(&fail_flush, 1);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	/* [0, 64K) is lost: an allocation does not bring it back */
	n = atomic_load(&n_fdatasync);
	CU_ASSERT_EQUAL(dcio_fallocate(c.f, DCIO_ALLOCATE, 0, 128 * KiB), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 64 * KiB), EIO);
	CU_ASSERT(atomic_load(&n_fdatasync) >
		  n); /* the allocation was flushed */
	CU_ASSERT_EQUAL(dcio_commit(c.f, 64 * KiB, 64 * KiB), 0);
	/* a punch of part of it rewrites that part (zeros), once flushed */
	CU_ASSERT_EQUAL(dcio_fallocate(c.f, DCIO_PUNCH, 0, 32 * KiB), 0);
	n = atomic_load(&n_fdatasync);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 32 * KiB), 0);
	CU_ASSERT(atomic_load(&n_fdatasync) > n); /* not "nothing dirty" */
	CU_ASSERT_EQUAL(dcio_commit(c.f, 32 * KiB, 32 * KiB), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	/* a punch whose flush fails is lost like a write */
	CU_ASSERT_EQUAL(dcio_fallocate(c.f, DCIO_PUNCH, 32 * KiB, 32 * KiB), 0);
	atomic_store(&fail_flush, 1);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 32 * KiB, 32 * KiB), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 32 * KiB, 32 * KiB), EIO);
	CU_ASSERT_EQUAL(dcio_fallocate(c.f, DCIO_PUNCH, 32 * KiB, 32 * KiB), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	tl_ctx_close(&c);
}

static void t_hostile(void)
{
	static const struct {
		uint64_t off, len;
		int err;
	} bad[] = {
		{ 1ull << 63, 1, EINVAL },
		{ UINT64_MAX, 1, EINVAL },
		{ UINT64_MAX, UINT64_MAX, EINVAL },
		{ 1, UINT64_MAX, EINVAL },
		{ 0, 1ull << 63, EINVAL },
		{ 0, 0, EINVAL },
		{ (1ull << 63) - 1, 2, EFBIG },
		{ 1ull << 62, 1ull << 62, EFBIG },
		{ 1ull << 50, 4096, EFBIG }, /* past ext4's maximum: the kernel's */
	};
	struct tl_ctx c;
	static char buf[16 * KiB], back[16 * KiB];
	struct stat a, b;

	setup(&c);
	memset(buf, 'h', sizeof(buf));
	CU_ASSERT_EQUAL(tl_write(c.f, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	CU_ASSERT_EQUAL(fstat(dcio_file_fd(c.f), &a), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (int op = DCIO_ALLOCATE; op <= DCIO_PUNCH; op++) {
			int rc =
				dcio_fallocate(c.f, op, bad[i].off, bad[i].len);

			CU_ASSERT_EQUAL(rc, bad[i].err);
			if (rc != bad[i].err)
				fprintf(stderr, "op %d off %llu len %llu: %d\n",
					op, (unsigned long long)bad[i].off,
					(unsigned long long)bad[i].len, rc);
		}
	}
	CU_ASSERT_EQUAL(fstat(dcio_file_fd(c.f), &b), 0);
	CU_ASSERT_EQUAL(a.st_size, b.st_size);
	CU_ASSERT_EQUAL(a.st_blocks, b.st_blocks);
	CU_ASSERT_EQUAL(pread(dcio_file_fd(c.f), back, sizeof(back), 0),
			(ssize_t)sizeof(back));
	CU_ASSERT(memcmp(back, buf, sizeof(buf)) == 0);
	CU_ASSERT_EQUAL(dcio_fallocate(NULL, DCIO_PUNCH, 0, 1), EINVAL);
	CU_ASSERT_EQUAL(dcio_fallocate(c.f, (enum dcio_falloc_op)7, 0, 1),
			EINVAL);
	tl_ctx_close(&c);
}

static const struct tl_case cases[] = {
	{ "a punch waits for the in-flight write of its range",
	  t_waits_for_write_of_range },
	{ "a punch does not wait for writes elsewhere",
	  t_not_for_other_ranges },
	{ "error rule: allocate keeps lost, punch rewrites", t_error_rule },
	{ "hostile offsets and lengths change nothing", t_hostile },
};

int main(void)
{
	/* t_hostile: EFBIG past ext4's maximum file size */
	tl_require(TL_NEED_EXT4);
	return TL_RUN_SUITE("fallocate", cases);
}
