/* 64 threads write disjoint, then overlapping, ranges through every write mode and both backends on ext4 and tmpfs (and inline flush mode on ext4); async completion on engine threads (caller in inline mode), contents verified. */
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
		if (dcio_write(t->f, iov, 2, off, DCIO_UNSTABLE, tagged_done,
			       &ops[k]))
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

static void run(bool tmpfs, bool uring, enum dcio_write_mode wm,
		enum dcio_flush_mode fm)
{
	struct tl_fs fs;
	int rc = tmpfs ? tl_fs_tmpfs(&fs, 64) : tl_fs_ext4(&fs);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	struct dcio_engine_params ep = { .threads = 2,
					 .ring_entries = 32,
					 .use_uring = uring };
	struct dcio_engine *e;
	CU_ASSERT_EQUAL_FATAL(dcio_engine_create(&ep, NULL, &e), 0);
	CU_ASSERT_EQUAL(dcio_engine_uses_uring(e), uring);
	int dfd = open(fs.dir, O_RDONLY | O_DIRECTORY);
	struct dcio_export_params p = tl_params(wm, DCIO_READ_BUFFERED, fm);
	struct dcio_export *x;
	CU_ASSERT_EQUAL_FATAL(dcio_export_create(e, &p, "c", dfd, &x), 0);
	struct dcio_file *f;
	CU_ASSERT_EQUAL_FATAL(dcio_file_open(x, tl_open(&fs, "f", O_TRUNC), &f),
			      0);

	CU_ASSERT_EQUAL(run_phase(f, 1, fm == DCIO_FLUSH_INLINE), 0);
	verify(tl_path(&fs, "f"), 1);
	CU_ASSERT_EQUAL(run_phase(f, 2, fm == DCIO_FLUSH_INLINE), 0);
	verify(tl_path(&fs, "f"), 2);
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
	CU_ASSERT_EQUAL(dcio_file_close(f), 0);
	dcio_export_destroy(x);
	dcio_engine_destroy(e);
	close(dfd);
	tl_fs_cleanup(&fs);
}

#define CASE(fsn, tmp, be, ur, mode)                                   \
	static void t_##fsn##_##be##_##mode(void)                      \
	{                                                              \
		run(tmp, ur, DCIO_WRITE_##mode, DCIO_FLUSH_COALESCED); \
	}
/* clang-format off */
#define MODES(fsn, tmp, be, ur)                                       \
	CASE(fsn, tmp, be, ur, DONTCACHE) CASE(fsn, tmp, be, ur, BUFFERED) \
	CASE(fsn, tmp, be, ur, DIRECT) CASE(fsn, tmp, be, ur, DROPBEHIND)
MODES(ext4, false, uring, true)
MODES(ext4, false, pool, false)
MODES(tmpfs, true, uring, true)
MODES(tmpfs, true, pool, false)
#define ICASE(mode)                                                   \
	static void t_inline_##mode(void)                             \
	{                                                             \
		run(false, true, DCIO_WRITE_##mode, DCIO_FLUSH_INLINE); \
	}
ICASE(DONTCACHE) ICASE(BUFFERED) ICASE(DIRECT) ICASE(DROPBEHIND)

#define ADD(fsn, be, mode) CU_add_test(s, #fsn " " #be " " #mode, t_##fsn##_##be##_##mode)
#define ADDM(fsn, be) ADD(fsn, be, DONTCACHE); ADD(fsn, be, BUFFERED); ADD(fsn, be, DIRECT); ADD(fsn, be, DROPBEHIND)

	/* clang-format on */
	int main(void)
{
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("concurrent writers", NULL, NULL);
	ADDM(ext4, uring);
	ADDM(ext4, pool);
	ADDM(tmpfs, uring);
	ADDM(tmpfs, pool);
	CU_add_test(s, "ext4 inline DONTCACHE", t_inline_DONTCACHE);
	CU_add_test(s, "ext4 inline BUFFERED", t_inline_BUFFERED);
	CU_add_test(s, "ext4 inline DIRECT", t_inline_DIRECT);
	CU_add_test(s, "ext4 inline DROPBEHIND", t_inline_DROPBEHIND);
	return tl_run_tests();
}
