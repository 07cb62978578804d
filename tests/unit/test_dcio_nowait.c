// SPDX-License-Identifier: LGPL-3.0-or-later
/* Reads of cached data are answered on the caller's thread (RWF_NOWAIT); uncached, direct and failing reads are left to the engine. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcio_testlib.h"

#define LEN (1u << 20)

static struct tl_fs fs;
static int fail_preadv2; /* the fake preadv2 fails with this errno */

static int nowait_eagain; /* RWF_NOWAIT reads answer EAGAIN: "not cached" */

static ssize_t fake_preadv2(int fd, const struct iovec *iov, int cnt, off_t off,
			    int flags)
{
	if (nowait_eagain && (flags & RWF_NOWAIT)) {
		errno = EAGAIN;
		return -1;
	}
	if (fail_preadv2) {
		errno = fail_preadv2;
		return -1;
	}
	return preadv2(fd, iov, cnt, off, flags);
}

static void setup(struct tl_ctx *t, enum dcio_read_mode rm,
		  const struct dcio_syscalls *sys)
{
	struct dcio_engine_params ep = { .threads = 1 };
	struct dcio_export_params p =
		tl_params(DCIO_WRITE_DONTCACHE, rm, DCIO_FLUSH_COALESCED);

	tl_ctx_open(t, &(struct tl_setup){ .fs = &fs,
					   .ep = &ep,
					   .sys = sys,
					   .p = &p,
					   .name = "f" });
}

static void teardown(struct tl_ctx *t)
{
	CU_ASSERT_EQUAL(tl_ctx_close(t), 0);
}

/* A file of LEN bytes, written through the page cache (resident) or written
 * back and dropped (not resident). */
static void make_file(bool cached)
{
	static char buf[LEN];
	int fd = tl_open(&fs, "f", O_TRUNC);

	tl_fill(buf, LEN, 0, 9);
	CU_ASSERT_EQUAL_FATAL(pwrite(fd, buf, LEN, 0), LEN);
	if (!cached) {
		CU_ASSERT_EQUAL(fsync(fd), 0);
		CU_ASSERT_EQUAL(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED),
				0);
	}
	close(fd);
}

static void t_cached(void)
{
	static char back[LEN];
	struct iovec iov[2] = { { back, 4096 },
				{ back + 4096, LEN / 2 - 4096 } };
	struct tl_ctx t;
	size_t got = 0;
	char *s;

	make_file(true);
	setup(&t, DCIO_READ_BUFFERED, NULL);
	CU_ASSERT_EQUAL(dcio_read_nowait(t.f, iov, 2, LEN / 4, &got), 0);
	CU_ASSERT_EQUAL(got, LEN / 2);
	CU_ASSERT(tl_check(back, LEN / 2, LEN / 4, 9));
	/* straddling end of file: short; past it: nothing */
	CU_ASSERT_EQUAL(dcio_read_nowait(t.f, iov, 2, LEN - 100, &got), 0);
	CU_ASSERT_EQUAL(got, 100);
	CU_ASSERT(tl_check(back, 100, LEN - 100, 9));
	CU_ASSERT_EQUAL(dcio_read_nowait(t.f, iov, 2, 2 * LEN, &got), 0);
	CU_ASSERT_EQUAL(got, 0);
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "reads.nowait"), 3);
	CU_ASSERT_EQUAL(tl_json_num(s, "reads.ops"), 3);
	CU_ASSERT_EQUAL(tl_json_num(s, "reads.bytes"), LEN / 2 + 100);
	free(s);
	teardown(&t);
}

/* Not cached: the kernel answers RWF_NOWAIT with EAGAIN (the syscall table
 * says so deterministically: a real uncached read may also start readahead
 * that completes in time), and the engine reads it; nothing counted twice. */
static void t_uncached(void)
{
	static char back[LEN];
	struct iovec iov = { back, LEN };
	struct dcio_syscalls sys = { .preadv2 = fake_preadv2 };
	struct tl_ctx t;
	size_t got = 0;
	char *s;

	make_file(true);
	setup(&t, DCIO_READ_BUFFERED, &sys);
	nowait_eagain = 1;
	CU_ASSERT_EQUAL(dcio_read_nowait(t.f, &iov, 1, 0, &got), EAGAIN);
	CU_ASSERT_EQUAL(tl_read(t.f, back, LEN, 0, &got), 0);
	nowait_eagain = 0;
	CU_ASSERT_EQUAL(got, LEN);
	CU_ASSERT(tl_check(back, LEN, 0, 9));
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "reads.nowait"), 0);
	CU_ASSERT_EQUAL(tl_json_num(s, "reads.ops"), 1);
	free(s);
	teardown(&t);
}

/* A file written back and dropped reads back right whichever path served it. */
static void t_dropped_reads_right(void)
{
	static char back[LEN];
	struct tl_ctx t;
	size_t got = 0;

	make_file(false);
	setup(&t, DCIO_READ_BUFFERED, NULL);
	for (uint64_t off = 0; off < LEN; off += 65536) {
		struct iovec iov = { back + off, 65536 };

		if (dcio_read_nowait(t.f, &iov, 1, off, &got) == EAGAIN)
			CU_ASSERT_EQUAL(
				tl_read(t.f, back + off, 65536, off, &got), 0);
		CU_ASSERT_EQUAL(got, 65536);
	}
	CU_ASSERT(tl_check(back, LEN, 0, 9));
	teardown(&t);
}

static void t_direct_goes_to_engine(void)
{
	static char back[4096];
	struct iovec iov = { back, sizeof(back) };
	struct tl_ctx t;
	size_t got = 0;

	make_file(true);
	setup(&t, DCIO_READ_DIRECT, NULL);
	CU_ASSERT_EQUAL(dcio_read_nowait(t.f, &iov, 1, 0, &got), EAGAIN);
	teardown(&t);
}

/* An error is not answered here: the engine's path reports (and counts) it. */
static void t_error_goes_to_engine(void)
{
	static char back[4096];
	struct iovec iov = { back, sizeof(back) };
	struct dcio_syscalls sys = { .preadv2 = fake_preadv2 };
	struct tl_ctx t;
	size_t got = 0;

	make_file(true);
	setup(&t, DCIO_READ_BUFFERED, &sys);
	fail_preadv2 = EIO;
	CU_ASSERT_EQUAL(dcio_read_nowait(t.f, &iov, 1, 0, &got), EAGAIN);
	CU_ASSERT_EQUAL(tl_read(t.f, back, sizeof(back), 0, &got), EIO);
	fail_preadv2 = 0;
	CU_ASSERT_EQUAL(dcio_read_nowait(t.f, &iov, 1, 0, &got), 0);
	CU_ASSERT_EQUAL(got, sizeof(back));
	teardown(&t);
}

static const struct tl_case cases[] = {
	{ "cached data answered on the caller", t_cached },
	{ "uncached data left to the engine", t_uncached },
	{ "dropped data reads back right", t_dropped_reads_right },
	{ "direct reads left to the engine", t_direct_goes_to_engine },
	{ "errors left to the engine", t_error_goes_to_engine },
};

int main(void)
{
	int rc;

	tl_require(0);
	if (tl_fs_ext4(&fs) != 0)
		return 2;
	rc = TL_RUN_SUITE("nowait reads", cases);
	tl_fs_cleanup(&fs);
	return rc;
}
