// SPDX-License-Identifier: LGPL-3.0-or-later
/* A close waits for its own file's write-back pass only (issue 37): one flusher thread takes files a and b in one pass, a first; a's writeback wait hangs (a stalled device); closing b returns at once, its data flushed by its close, while closing a waits for a's wait; every file's pass still ends. */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dcio_testlib.h"
#include "io/flusher.h"

/* the drain (DCIO_SFR_DRAIN) on this fd blocks until stall_release, at
 * most 10 s */
static atomic_int stall_fd = -1, stall_in;
static atomic_bool stall_release;
static atomic_int drains_on_b, fd_b = -1;

static int fake_sfr(int fd, off_t off, off_t len, unsigned int flags)
{
	if (flags == DCIO_SFR_DRAIN && fd == atomic_load(&fd_b))
		atomic_fetch_add(&drains_on_b, 1);
	if (flags == DCIO_SFR_DRAIN && fd == atomic_load(&stall_fd)) {
		atomic_fetch_add(&stall_in, 1);
		for (int i = 0; i < 10000 && !atomic_load(&stall_release); i++)
			usleep(1000);
	}
	return sync_file_range(fd, off, len, flags);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* One engine thread (so one flusher thread: one pass takes both files),
 * an export threshold of 1 MiB that the two 512 KiB writes cross together,
 * no file threshold or interval flush meanwhile. */
static void setup(struct tl_ctx *c)
{
	static const struct dcio_syscalls t = { .sync_file_range = fake_sfr };
	struct dcio_engine_params ep = { .threads = 1 };
	struct dcio_export_params p =
		tl_params(DCIO_WRITE_DROPBEHIND, DCIO_READ_BUFFERED,
			  DCIO_FLUSH_COALESCED);

	p.flush_file_bytes = 64 << 20;
	p.flush_export_bytes = 1 << 20;
	p.flush_interval_ms = 60000;
	atomic_store(&stall_fd, -1);
	atomic_store(&stall_in, 0);
	atomic_store(&stall_release, false);
	atomic_store(&drains_on_b, 0);
	atomic_store(&fd_b, -1);
	tl_ctx_open(c, &(struct tl_setup){ .ep = &ep,
					   .sys = &t,
					   .p = &p,
					   .name = "fg",
					   .no_file = true });
}

struct closer {
	struct dcio_file *f;
	atomic_int rc;
	atomic_bool done;
	pthread_t tid;
};

static void *close_main(void *arg)
{
	struct closer *cl = arg;

	atomic_store(&cl->rc, dcio_file_close(cl->f));
	atomic_store(&cl->done, true);
	return NULL;
}

/* waits up to ms for the closer; true if it returned */
static bool closer_wait(struct closer *cl, int ms)
{
	for (int i = 0; i < ms && !atomic_load(&cl->done); i++)
		usleep(1000);
	return atomic_load(&cl->done);
}

/* a and b written (b first: a's file is first in the pass) and the pass
 * stuck in a's writeback wait */
static void two_files_one_pass(struct tl_ctx *c, struct dcio_file **a,
			       struct dcio_file **b, int *fa, int *fb)
{
	static char buf[512 << 10];

	*fa = tl_open(&c->fs, "a", O_TRUNC);
	*fb = tl_open(&c->fs, "b", O_TRUNC);
	CU_ASSERT_FATAL(*fa >= 0 && *fb >= 0);
	CU_ASSERT_EQUAL_FATAL(dcio_file_open(c->x, *fa, a), 0);
	CU_ASSERT_EQUAL_FATAL(dcio_file_open(c->x, *fb, b), 0);
	atomic_store(&fd_b, *fb);
	atomic_store(&stall_fd, *fa);
	tl_fill(buf, sizeof(buf), 0, 2);
	CU_ASSERT_EQUAL(tl_write(*b, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	tl_fill(buf, sizeof(buf), 0, 1);
	CU_ASSERT_EQUAL(tl_write(*a, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	for (int i = 0; i < 5000 && !atomic_load(&stall_in); i++)
		usleep(1000);
	CU_ASSERT_EQUAL_FATAL(atomic_load(&stall_in), 1);
}

static bool file_is(const struct tl_ctx *c, const char *name, unsigned seed)
{
	static char got[512 << 10];
	int fd = open(tl_path(&c->fs, name), O_RDONLY);
	ssize_t n = fd >= 0 ? pread(fd, got, sizeof(got), 0) : -1;

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)sizeof(got) && tl_check(got, sizeof(got), 0, seed);
}

/* b was taken by the pass that is stuck in a's wait: b's close does not
 * wait for a (before the fix it returned only once a's wait did) */
static void t_close_behind_stalled(void)
{
	struct tl_ctx c;
	struct dcio_file *a, *b;
	struct closer cl = { 0 };
	int fa, fb;
	uint64_t t0;

	setup(&c);
	two_files_one_pass(&c, &a, &b, &fa, &fb);
	/* the pass has not reached b: no wait on b yet */
	CU_ASSERT_EQUAL(atomic_load(&drains_on_b), 0);
	cl.f = b;
	t0 = now_ms();
	CU_ASSERT_EQUAL_FATAL(pthread_create(&cl.tid, NULL, close_main, &cl),
			      0);
	bool returned = closer_wait(&cl, 3000);
	uint64_t took = now_ms() - t0;

	CU_ASSERT_TRUE(returned);
	if (!returned)
		fprintf(stderr, "close of b still waiting after %llu ms\n",
			(unsigned long long)took);
	/* a is still in its wait */
	CU_ASSERT_EQUAL(atomic_load(&stall_in), 1);
	CU_ASSERT_FALSE(atomic_load(&stall_release));
	atomic_store(&stall_release, true);
	pthread_join(cl.tid, NULL);
	CU_ASSERT_EQUAL(atomic_load(&cl.rc), 0);
	/* the pass left b alone once b closed: its fd is gone */
	CU_ASSERT_EQUAL(atomic_load(&drains_on_b), 0);
	CU_ASSERT_TRUE(file_is(&c, "b", 2));
	CU_ASSERT_EQUAL(dcio_file_close(a), 0);
	CU_ASSERT_TRUE(file_is(&c, "a", 1));
	/* the export holds nothing any more: every byte given back */
	CU_ASSERT_EQUAL(tl_stat(c.x, "flusher.held_bytes"), 0);
	tl_ctx_close(&c);
}

/* a's own pass is the one stuck: a's close waits for it (and only then
 * returns, its data flushed) */
static void t_close_waits_own_pass(void)
{
	struct tl_ctx c;
	struct dcio_file *a, *b;
	struct closer cl = { 0 };
	int fa, fb;

	setup(&c);
	two_files_one_pass(&c, &a, &b, &fa, &fb);
	cl.f = a;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&cl.tid, NULL, close_main, &cl),
			      0);
	CU_ASSERT_FALSE(closer_wait(&cl, 500));
	atomic_store(&stall_release, true);
	CU_ASSERT_TRUE(closer_wait(&cl, 10000));
	pthread_join(cl.tid, NULL);
	CU_ASSERT_EQUAL(atomic_load(&cl.rc), 0);
	CU_ASSERT_TRUE(file_is(&c, "a", 1));
	/* b's turn in the pass came after a's */
	for (int i = 0; i < 5000 && atomic_load(&drains_on_b) == 0; i++)
		usleep(1000);
	CU_ASSERT_EQUAL(atomic_load(&drains_on_b), 1);
	CU_ASSERT_EQUAL(dcio_file_close(b), 0);
	CU_ASSERT_TRUE(file_is(&c, "b", 2));
	tl_ctx_close(&c);
}

static const struct tl_case cases[] = {
	{ "a close does not wait for the files before it in a pass",
	  t_close_behind_stalled },
	{ "a close waits for its own file's pass", t_close_waits_own_pass },
};

int main(void)
{
	return TL_RUN_SUITE("forget", cases);
}
