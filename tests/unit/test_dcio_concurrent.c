// SPDX-License-Identifier: LGPL-3.0-or-later
/* 64 threads write disjoint, then overlapping, ranges through every write mode on the engine's pool threads on ext4 and tmpfs (and inline flush mode on ext4); async completion on engine threads (caller in inline mode), contents verified. */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcio_testlib.h"

#define NTHR 64
#define BLK (64 * 1024)
#define BASE 104 /* not aligned: direct mode has to split */

struct thr {
	struct dcio_file *f;
	int id, phase;
	bool inline_;
	pthread_barrier_t *bar;
	int failures, wrong_thread, bad_calls;
};

static uint64_t word(int writer, uint64_t off)
{
	return ((uint64_t)(writer + 1) << 40) | (off / 8);
}

static void fill_words(uint64_t *buf, size_t n, int writer, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = word(writer, off + i * 8);
}

struct tagged {
	struct tl_op op;
	pthread_t submitter;
	bool inline_;
	int wrong;
};

static void tagged_done(void *arg, int err, size_t bytes)
{
	struct tagged *t = arg;
	if (pthread_equal(pthread_self(), t->submitter) != t->inline_)
		t->wrong = 1;
	tl_op_done(&t->op, err, bytes);
}

/* phase 1: four async 16 KiB writes of the thread's own block; phase 2: one
 * 128 KiB write overlapping the next thread's range */
static void *writer(void *arg)
{
	struct thr *t = arg;
	struct tl_wait w;
	struct tagged ops[4];
	size_t nops = t->phase == 1 ? 4 : 1,
	       len = t->phase == 1 ? BLK / 4 : 2 * BLK;
	uint64_t *bufs[4];

	tl_wait_init(&w);
	pthread_barrier_wait(t->bar);
	for (size_t k = 0; k < nops; k++) {
		uint64_t off = BASE + (uint64_t)t->id * BLK + k * len;
		bufs[k] = malloc(len);
		fill_words(bufs[k], len / 8,
			   t->phase == 1 ? t->id : t->id + 1000, off);
		ops[k] = (struct tagged){ .op = { .w = &w },
					  .submitter = pthread_self(),
					  .inline_ = t->inline_ };
		struct iovec iov[2] = { { bufs[k], len / 2 },
					{ (char *)bufs[k] + len / 2,
					  len / 2 } };
		if (dcio_write(t->f, iov, 2, off, DCIO_UNSTABLE, NULL, NULL,
			       tagged_done, &ops[k]))
			t->failures++;
	}
	tl_wait_for(&w, (int)nops);
	for (size_t k = 0; k < nops; k++) {
		if (ops[k].op.err || ops[k].op.bytes != len)
			t->failures++;
		t->wrong_thread += ops[k].wrong;
		free(bufs[k]);
	}
	return NULL;
}

static int run_phase(struct dcio_file *f, int phase, bool inline_)
{
	pthread_t tid[NTHR];
	struct thr t[NTHR];
	pthread_barrier_t bar;
	int bad = 0;

	pthread_barrier_init(&bar, NULL, NTHR);
	for (int i = 0; i < NTHR; i++) {
		t[i] = (struct thr){ .f = f,
				     .id = i,
				     .phase = phase,
				     .bar = &bar,
				     .inline_ = inline_ };
		pthread_create(&tid[i], NULL, writer, &t[i]);
	}
	for (int i = 0; i < NTHR; i++) {
		pthread_join(tid[i], NULL);
		bad += t[i].failures;
		CU_ASSERT_EQUAL(t[i].wrong_thread, 0);
	}
	pthread_barrier_destroy(&bar);
	return bad;
}

static void verify(const char *path, int phase)
{
	size_t span =
		phase == 1 ? (size_t)NTHR * BLK : (size_t)(NTHR + 1) * BLK;
	uint64_t *buf = malloc(span);
	int fd = open(path, O_RDONLY);
	CU_ASSERT_EQUAL(pread(fd, buf, span, BASE), (ssize_t)span);
	close(fd);
	size_t bad = 0;
	for (size_t i = 0; i < span / 8; i++) {
		uint64_t off = BASE + i * 8;
		int blk = (int)(i * 8 / BLK);
		if (phase == 1) {
			bad += buf[i] != word(blk, off);
			continue;
		}
		/* phase 2: written by writer blk or blk-1, whichever landed last */
		bool ok = (blk < NTHR && buf[i] == word(blk + 1000, off)) ||
			  (blk > 0 && buf[i] == word(blk - 1 + 1000, off));
		bad += !ok;
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(buf);
}

static void run(bool tmpfs, enum dcio_write_mode wm, enum dcio_flush_mode fm)
{
	struct dcio_engine_params ep = { .threads = 2 };
	struct dcio_export_params p = tl_params(wm, DCIO_READ_BUFFERED, fm);
	struct tl_ctx c;

	tl_ctx_open(&c, &(struct tl_setup){ .kind = tmpfs ? TL_FS_TMPFS
							  : TL_FS_EXT4,
					    .tmpfs_mb = 64,
					    .ep = &ep,
					    .p = &p,
					    .name = "c",
					    .flags = O_TRUNC });
	struct dcio_file *f = c.f;
	struct dcio_export *x = c.x;

	CU_ASSERT_EQUAL(run_phase(f, 1, fm == DCIO_FLUSH_INLINE), 0);
	verify(tl_path(&c.fs, "f"), 1);
	CU_ASSERT_EQUAL(run_phase(f, 2, fm == DCIO_FLUSH_INLINE), 0);
	verify(tl_path(&c.fs, "f"), 2);
	int crc = dcio_commit(f, 0, 0);
	CU_ASSERT_EQUAL(crc, 0);

	char *js = tl_stats(x);
	if (crc)
		fprintf(stderr, "commit: %s\n%s\n", strerror(crc), js);
	CU_ASSERT_TRUE(tl_json_valid(js));
	double ops = 0;
	for (int m = 0; m < 4; m++) {
		char key[64];
		snprintf(key, sizeof(key), "writes.%s.ops",
			 dcio_write_mode_name(m));
		ops += tl_json_num(js, key);
	}
	CU_ASSERT_EQUAL(ops, NTHR * 5);
	free(js);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

/* The cases, named "fs path mode": filesystem, path (pool: the engine's
 * threads; inline: the inline flush mode), on tmpfs, write mode, flush
 * mode. */
/* clang-format off */
#define CASES(X) \
	X(ext4,  pool,   0, DONTCACHE,  COALESCED) \
	X(ext4,  pool,   0, BUFFERED,   COALESCED) \
	X(ext4,  pool,   0, DIRECT,     COALESCED) \
	X(ext4,  pool,   0, DROPBEHIND, COALESCED) \
	X(tmpfs, pool,   1, DONTCACHE,  COALESCED) \
	X(tmpfs, pool,   1, BUFFERED,   COALESCED) \
	X(tmpfs, pool,   1, DIRECT,     COALESCED) \
	X(tmpfs, pool,   1, DROPBEHIND, COALESCED) \
	X(ext4,  inline, 0, DONTCACHE,  INLINE)    \
	X(ext4,  inline, 0, BUFFERED,   INLINE)    \
	X(ext4,  inline, 0, DIRECT,     INLINE)    \
	X(ext4,  inline, 0, DROPBEHIND, INLINE)
#define DEFINE(fs, be, tmp, wm, fm)                                       \
	static void t_##fs##_##be##_##wm(void)                            \
	{                                                                 \
		run(tmp, DCIO_WRITE_##wm, DCIO_FLUSH_##fm);               \
	}
#define ROW(fs, be, tmp, wm, fm)                                          \
	{ #fs " " #be " " #wm, t_##fs##_##be##_##wm },
CASES(DEFINE)
static const struct tl_case cases[] = { CASES(ROW) };
/* clang-format on */

int main(void)
{
	tl_require(TL_NEED_TMPFS);
	return TL_RUN_SUITE("concurrent writers", cases);
}
