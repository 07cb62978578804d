// SPDX-License-Identifier: LGPL-3.0-or-later
/* Direct mode: misaligned writes (split into dontcache head/tail and an O_DIRECT middle) and misaligned widened reads land byte-exact against a shadow copy; tmpfs without DIO alignment falls back and stays exact; every O_DIRECT write is aligned (fake pwritev2). */
#include <CUnit/Basic.h>
#include <stdatomic.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcio_testlib.h"

#define SPAN (4 << 20)

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void setup(struct tl_ctx *c, bool tmpfs, enum dcio_flush_mode fm)
{
	struct dcio_export_params p =
		tl_params(DCIO_WRITE_DIRECT, DCIO_READ_DIRECT, fm);

	tl_ctx_open(
		c, &(struct tl_setup){ .kind = tmpfs ? TL_FS_TMPFS : TL_FS_EXT4,
				       .tmpfs_mb = 32,
				       .p = &p,
				       .name = "direct",
				       .flags = O_TRUNC });
}

/* the write comes from an odd address too: the middle needs a bounce buffer */
static void one_write(struct tl_ctx *c, char *shadow, uint64_t off,
		      uint64_t len, unsigned seed)
{
	char *src = malloc(len + 3);
	tl_fill(src + 3, len, off, seed);
	CU_ASSERT_EQUAL(tl_write(c->f, src + 3, len, off, DCIO_UNSTABLE), 0);
	memcpy(shadow + off, src + 3, len);
	free(src);
}

static void check_file(struct tl_ctx *c, const char *shadow, uint64_t size)
{
	char *back = malloc(size);
	CU_ASSERT_EQUAL(pread(dcio_file_fd(c->f), back, size, 0),
			(ssize_t)size);
	CU_ASSERT_EQUAL(memcmp(back, shadow, size), 0);
	free(back);
}

static void check_reads(struct tl_ctx *c, const char *shadow, uint64_t size,
			unsigned seed)
{
	char *back = malloc(300001);
	int bad = 0;
	for (int i = 0; i < 60; i++) {
		uint64_t len = 1 + rnd(&seed) % 300000, off = rnd(&seed) % size;
		size_t got = 0;
		CU_ASSERT_EQUAL(tl_read(c->f, back + 1, len, off, &got), 0);
		uint64_t want = off + len > size ? size - off : len;
		CU_ASSERT_EQUAL(got, want);
		bad += memcmp(back + 1, shadow + off, want) != 0;
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* reading at and past end of file */
	size_t got = 1;
	CU_ASSERT_EQUAL(tl_read(c->f, back, 4096, size, &got), 0);
	CU_ASSERT_EQUAL(got, 0);
	free(back);
}

static void direct(bool tmpfs, enum dcio_flush_mode fm)
{
	struct tl_ctx c;
	setup(&c, tmpfs, fm);
	char *shadow = calloc(1, SPAN);
	unsigned seed = 42;
	uint64_t size = 0;
	/* shapes: inside one block, exact blocks, head only, tail only, both */
	uint64_t shapes[][2] = { { 100, 200 },	   { 4096, 8192 },
				 { 4000, 8288 },   { 8192, 5000 },
				 { 511, 1 << 20 }, { 3 << 20, 65536 },
				 { 12345, 4096 } };
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		one_write(&c, shadow, shapes[i][0], shapes[i][1],
			  (unsigned)i + 1);
		if (shapes[i][0] + shapes[i][1] > size)
			size = shapes[i][0] + shapes[i][1];
	}
	for (int i = 0; i < 150; i++) {
		uint64_t len = 1 + rnd(&seed) % 200000,
			 off = rnd(&seed) % (SPAN - len);
		one_write(&c, shadow, off, len, 100 + i);
		if (off + len > size)
			size = off + len;
	}
	check_file(&c, shadow, size);
	check_reads(&c, shadow, size, 7);

	char *js = tl_stats(c.x);
	CU_ASSERT_TRUE(tl_json_valid(js));
	if (tmpfs) {
		/* no DIO alignment and no RWF_DONTCACHE: counted where they went */
		CU_ASSERT_EQUAL(tl_json_num(js, "writes.dropbehind.ops"), 157);
		CU_ASSERT_TRUE(tl_json_num(js, "fallbacks.direct") >= 1);
		CU_ASSERT_EQUAL(tl_json_num(js, "writes.direct.issued_bytes"),
				0);
		CU_ASSERT_TRUE(dcio_export_fallback(c.x));
	} else {
		CU_ASSERT_EQUAL(tl_json_num(js, "writes.direct.ops"), 157);
		CU_ASSERT_EQUAL(tl_json_num(js, "fallbacks.direct"), 0);
		CU_ASSERT_TRUE(tl_json_num(js, "writes.direct.issued_bytes") >
			       0);
		CU_ASSERT_TRUE(
			tl_json_num(js, "writes.dontcache.issued_bytes") > 0);
	}
	free(js);
	free(shadow);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

static void t_ext4(void)
{
	direct(false, DCIO_FLUSH_COALESCED);
}
static void t_ext4_inline(void)
{
	direct(false, DCIO_FLUSH_INLINE);
}
static void t_tmpfs(void)
{
	direct(true, DCIO_FLUSH_COALESCED);
}

/* Every O_DIRECT write the engine issues, through a fake pwritev2 in the
 * syscall table: offset, length and buffers aligned to the split unit
 * (4096, the DIO offset alignment of ext4 here). */
static atomic_int n_direct, n_misaligned;

static ssize_t align_pwritev2(int fd, const struct iovec *iov, int cnt,
			      off_t off, int flags)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0 && (fl & O_DIRECT)) {
		uint64_t len = 0;
		bool bad = off % 4096 != 0;

		for (int i = 0; i < cnt; i++) {
			len += iov[i].iov_len;
			bad |= (uintptr_t)iov[i].iov_base % 4096 != 0;
		}
		bad |= len % 4096 != 0;
		atomic_fetch_add(&n_direct, 1);
		if (bad) {
			atomic_fetch_add(&n_misaligned, 1);
			fprintf(stderr,
				"misaligned O_DIRECT write: off %lld len %llu\n",
				(long long)off, (unsigned long long)len);
		}
	}
	return pwritev2(fd, iov, cnt, off, flags);
}

static void t_aligned(void)
{
	struct dcio_syscalls sys = { .pwritev2 = align_pwritev2 };
	struct dcio_engine_params ep = { .threads = 2 };
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DIRECT, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);
	struct tl_ctx c;
	unsigned seed = 7;
	char *buf = malloc(1 << 20);

	tl_ctx_open(&c, &(struct tl_setup){ .ep = &ep,
					    .sys = &sys,
					    .p = &p,
					    .name = "align",
					    .flags = O_TRUNC,
					    .no_dirfd = true });
	for (int i = 0; i < 200; i++) {
		uint64_t off = rnd(&seed) % SPAN,
			 len = 1 + rnd(&seed) % (1 << 20);

		tl_fill(buf, len, off, 1);
		CU_ASSERT_EQUAL(tl_write(c.f, buf, len, off, DCIO_UNSTABLE), 0);
	}
	CU_ASSERT_TRUE(atomic_load(&n_direct) > 50);
	CU_ASSERT_EQUAL(atomic_load(&n_misaligned), 0);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
	free(buf);
}

static const struct tl_case cases[] = {
	{ "ext4: misaligned direct writes and reads byte-exact", t_ext4 },
	{ "ext4, inline flush mode", t_ext4_inline },
	{ "tmpfs: direct falls back, still exact", t_tmpfs },
	{ "every O_DIRECT write aligned (fake pwritev2)", t_aligned },
};

int main(void)
{
	tl_require(TL_NEED_TMPFS | TL_NEED_EXT4 | TL_NEED_DIRECT |
		   TL_NEED_DONTCACHE);
	return TL_RUN_SUITE("direct", cases);
}
