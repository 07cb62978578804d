// SPDX-License-Identifier: LGPL-3.0-or-later
/* Direct mode on the caller's thread: a direct write up to caller_write_max is issued and answered on the thread that called dcio_write (done before it returns), so writers that each allocate their write's buffer, as ganesha's workers do, hold one buffer at a time and malloc's arenas stay near threads x write size (before: answered from an engine thread, every writer went on allocating while its writes waited for the device, and ganesha reached 900 MiB at 64 writers x 2 x 1 MiB); overlapping direct writes from many callers wait for the range lock there and land whole; a write above caller_write_max still goes to the engine. */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcio_testlib.h"

#define NTHR 8
#define PER 12
#define WLEN (1 << 20)

struct wrec {
	pthread_t caller;
	void *buf;
	int err;
	bool done;
};

static atomic_long live, live_peak, off_thread, failed;
static pthread_mutex_t dmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dcv = PTHREAD_COND_INITIALIZER;
static int ndone;

static void setup(struct tl_ctx *c, uint32_t caller_max)
{
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DIRECT, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);

	p.caller_write_max = caller_max;
	/* room for every write at once: the bound is not what is tested */
	p.max_inflight_bytes = 2ull * NTHR * PER * WLEN;
	tl_ctx_open(c, &(struct tl_setup){ .kind = TL_FS_EXT4,
					   .p = &p,
					   .name = "dcaller",
					   .flags = O_TRUNC });
	atomic_store(&live, 0);
	atomic_store(&live_peak, 0);
	atomic_store(&off_thread, 0);
	atomic_store(&failed, 0);
	ndone = 0;
}

/* What ganesha does with a WRITE's buffer: freed when the write is answered,
 * by whichever thread answers it. */
static void done_cb(void *arg, int err, size_t bytes)
{
	struct wrec *r = arg;

	(void)bytes;
	if (!pthread_equal(pthread_self(), r->caller))
		atomic_fetch_add(&off_thread, 1);
	if (err)
		atomic_fetch_add(&failed, 1);
	free(r->buf);
	r->buf = NULL;
	atomic_fetch_sub(&live, 1);
	pthread_mutex_lock(&dmu);
	r->err = err;
	r->done = true;
	ndone++;
	pthread_cond_broadcast(&dcv);
	pthread_mutex_unlock(&dmu);
}

static void wait_done(int n)
{
	pthread_mutex_lock(&dmu);
	while (ndone < n)
		pthread_cond_wait(&dcv, &dmu);
	pthread_mutex_unlock(&dmu);
}

struct writer {
	struct tl_ctx *c;
	int idx;
	bool overlap; /* every write at the same misaligned range */
	struct wrec recs[PER];
};

static uint64_t w_off(const struct writer *w, int i)
{
	return w->overlap ? 1000 : ((uint64_t)w->idx * PER + i) * WLEN;
}

static unsigned w_seed(const struct writer *w, int i)
{
	return 100u + (unsigned)(w->idx * PER + i);
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	for (int i = 0; i < PER; i++) {
		struct wrec *r = &w->recs[i];
		uint64_t off = w_off(w, i);

		r->caller = pthread_self();
		r->buf = malloc(WLEN);
		if (!r->buf) {
			atomic_fetch_add(&failed, 1);
			continue;
		}
		tl_fill(r->buf, WLEN, off, w_seed(w, i));
		long now = atomic_fetch_add(&live, 1) + 1;
		long p = atomic_load(&live_peak);
		while (now > p &&
		       !atomic_compare_exchange_weak(&live_peak, &p, now))
			;
		struct iovec iov = { r->buf, WLEN };
		int rc = dcio_write(w->c->f, &iov, 1, off, DCIO_UNSTABLE, NULL,
				    NULL, done_cb, r);
		if (rc) {
			atomic_fetch_add(&failed, 1);
			free(r->buf);
			atomic_fetch_sub(&live, 1);
			pthread_mutex_lock(&dmu);
			ndone++;
			pthread_mutex_unlock(&dmu);
		}
	}
	return NULL;
}

static void run_writers(struct tl_ctx *c, struct writer *ws, bool overlap)
{
	pthread_t t[NTHR];

	for (int i = 0; i < NTHR; i++) {
		ws[i] = (struct writer){ .c = c, .idx = i, .overlap = overlap };
		CU_ASSERT_EQUAL_FATAL(
			pthread_create(&t[i], NULL, writer_main, &ws[i]), 0);
	}
	for (int i = 0; i < NTHR; i++)
		pthread_join(t[i], NULL);
	wait_done(NTHR * PER);
}

/* The memory malloc holds from the system outside mmap'd chunks, over every
 * arena (what a process keeps when, as ganesha's drop-in does, the trim
 * threshold is high). */
static size_t arena_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.arena;
}

static void t_caller_thread(void)
{
	struct tl_ctx c;
	static struct writer ws[NTHR];

	setup(&c, 64u << 20);
	size_t before = arena_bytes();
	run_writers(&c, ws, false);
	size_t grown = arena_bytes() - before;
	char why[160];

	snprintf(
		why, sizeof(why),
		"answered off the caller's thread %ld of %d, peak live buffers %ld, arenas grew %zu KiB",
		atomic_load(&off_thread), NTHR * PER, atomic_load(&live_peak),
		grown >> 10);
	CU_ASSERT_EQUAL(atomic_load(&failed), 0);
	CU_ASSERT_EQUAL_FATAL(tl_stat(c.x, "fallbacks.direct"), 0);
	/* every write answered on its caller's thread, before dcio_write
	 * returned: a writer holds one buffer at a time */
	CU_ASSERT_EQUAL(atomic_load(&off_thread), 0);
	CU_ASSERT(atomic_load(&live_peak) <= NTHR);
	/* each writer's arena holds its one buffer (and the engine's small
	 * requests), not the writes waiting for the device */
	CU_ASSERT(grown <= (size_t)2 * NTHR * WLEN);
	fprintf(stderr, "\n  %s\n", why);
	char *back = malloc(WLEN);
	int bad = 0;
	for (int t = 0; t < NTHR; t++)
		for (int i = 0; i < PER; i++) {
			uint64_t off = w_off(&ws[t], i);
			if (pread(dcio_file_fd(c.f), back, WLEN, (off_t)off) !=
				    WLEN ||
			    !tl_check(back, WLEN, off, w_seed(&ws[t], i)))
				bad++;
		}
	CU_ASSERT_EQUAL(bad, 0);
	free(back);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

/* Every caller writes the same misaligned MiB (cached head and tail, direct
 * middle): they wait for one another on the range lock, on their own
 * threads, and the range ends up one write's bytes whole. */
static void t_caller_overlap(void)
{
	struct tl_ctx c;
	static struct writer ws[NTHR];

	setup(&c, 64u << 20);
	run_writers(&c, ws, true);
	CU_ASSERT_EQUAL(atomic_load(&failed), 0);
	CU_ASSERT_EQUAL(atomic_load(&off_thread), 0);
	char *back = malloc(WLEN);
	int whole = 0;
	CU_ASSERT_EQUAL(pread(dcio_file_fd(c.f), back, WLEN, 1000), WLEN);
	for (int t = 0; t < NTHR; t++)
		for (int i = 0; i < PER; i++)
			whole += tl_check(back, WLEN, 1000, w_seed(&ws[t], i));
	CU_ASSERT_EQUAL(whole, 1);
	free(back);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

/* Above caller_write_max a direct write still goes to the engine's threads. */
static void t_above_caller_max(void)
{
	struct tl_ctx c;
	static struct writer ws[NTHR];

	setup(&c, WLEN / 2);
	run_writers(&c, ws, false);
	CU_ASSERT_EQUAL(atomic_load(&failed), 0);
	CU_ASSERT_EQUAL(atomic_load(&off_thread), NTHR * PER);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

static const struct tl_case cases[] = {
	{ "direct writes answered on the caller's thread, arenas bounded",
	  t_caller_thread },
	{ "overlapping direct writes wait on their callers' threads",
	  t_caller_overlap },
	{ "a direct write above caller_write_max goes to the engine",
	  t_above_caller_max },
};

int main(void)
{
	/* the malloc environment ganesha's drop-in ships
	 * (config/systemd/dontcache-malloc.conf): this process's own */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	return TL_RUN_SUITE("direct writes on the caller's thread", cases);
}
