// SPDX-License-Identifier: LGPL-3.0-or-later
/* Bounded memory: bytes in flight per export never exceed max_inflight_bytes (slow pwritev2 in the syscall table, and the real one), a write that finds no room for inflight_wait_ms gets EAGAIN without a callback, a write larger than the bound runs alone. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcio_testlib.h"

#define BOUND (256 << 10)

static atomic_long cur, peak;
static atomic_int slow, gate_closed;
static pthread_mutex_t gmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gcv = PTHREAD_COND_INITIALIZER;

static ssize_t fake_pwritev2(int fd, const struct iovec *iov, int cnt,
			     off_t off, int flags)
{
	long len = 0;
	for (int i = 0; i < cnt; i++)
		len += (long)iov[i].iov_len;
	long now = atomic_fetch_add(&cur, len) + len;
	long p = atomic_load(&peak);
	while (now > p && !atomic_compare_exchange_weak(&peak, &p, now))
		;
	pthread_mutex_lock(&gmu);
	while (atomic_load(&gate_closed))
		pthread_cond_wait(&gcv, &gmu);
	pthread_mutex_unlock(&gmu);
	if (atomic_load(&slow))
		usleep(2000);
	ssize_t r = pwritev2(fd, iov, cnt, off, flags);
	atomic_fetch_sub(&cur, len);
	return r;
}

static void open_gate(void)
{
	pthread_mutex_lock(&gmu);
	atomic_store(&gate_closed, 0);
	pthread_cond_broadcast(&gcv);
	pthread_mutex_unlock(&gmu);
}

static void setup_mode(struct tl_ctx *c, enum dcio_write_mode wm, bool fake,
		       unsigned threads, uint64_t bound, uint32_t wait_ms)
{
	struct dcio_syscalls t = { .pwritev2 = fake_pwritev2 };
	struct dcio_engine_params ep = { .threads = threads };
	struct dcio_export_params p =
		tl_params(wm, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);

	p.max_inflight_bytes = bound;
	p.inflight_wait_ms = wait_ms;
	atomic_store(&cur, 0);
	atomic_store(&peak, 0);
	tl_ctx_open(c, &(struct tl_setup){ .ep = &ep,
					   .sys = fake ? &t : NULL,
					   .p = &p,
					   .name = "inflight",
					   .flags = O_TRUNC });
}

static void setup(struct tl_ctx *c, bool fake, unsigned threads, uint64_t bound,
		  uint32_t wait_ms)
{
	setup_mode(c, DCIO_WRITE_DONTCACHE, fake, threads, bound, wait_ms);
}

#define NTHR 16
#define PER 8
#define WLEN (32 << 10)

struct flood {
	struct dcio_file *f;
	int id, refused;
	struct tl_wait w;
	char *buf;
};

/* each thread queues all its writes without waiting in between */
static void *flood_thread(void *arg)
{
	struct flood *t = arg;
	tl_wait_init(&t->w);
	t->buf = malloc(PER * WLEN);
	for (int k = 0; k < PER; k++) {
		uint64_t off = ((uint64_t)t->id * PER + k) * WLEN;
		tl_fill(t->buf + k * WLEN, WLEN, off, 9);
		struct iovec iov = { t->buf + k * WLEN, WLEN };
		if (dcio_write(t->f, &iov, 1, off, DCIO_UNSTABLE, NULL, NULL,
			       tl_done, &t->w))
			t->refused++;
	}
	tl_wait_for(&t->w, PER - t->refused);
	return NULL;
}

static void flood(bool fake, unsigned threads)
{
	struct tl_ctx c;
	setup(&c, fake, threads, BOUND, 20000);
	atomic_store(&slow, fake);
	pthread_t tid[NTHR];
	struct flood t[NTHR];
	for (int i = 0; i < NTHR; i++) {
		t[i] = (struct flood){ .f = c.f, .id = i };
		pthread_create(&tid[i], NULL, flood_thread, &t[i]);
	}
	for (int i = 0; i < NTHR; i++) {
		pthread_join(tid[i], NULL);
		CU_ASSERT_EQUAL(t[i].refused, 0);
		CU_ASSERT_EQUAL(t[i].w.errs, 0);
		free(t[i].buf);
	}
	atomic_store(&slow, 0);
	char *js = tl_stats(c.x);
	CU_ASSERT_TRUE(tl_json_valid(js));
	double pk = tl_json_num(js, "inflight.peak");
	CU_ASSERT_TRUE(pk > 0 && pk <= BOUND);
	CU_ASSERT_EQUAL(tl_json_num(js, "inflight.limit"), BOUND);
	CU_ASSERT_EQUAL(tl_json_num(js, "inflight.bytes"), 0);
	CU_ASSERT_TRUE(tl_json_num(js, "inflight.waits") > 0);
	if (fake)
		CU_ASSERT_TRUE(atomic_load(&peak) > 0 &&
			       atomic_load(&peak) <= BOUND);
	free(js);
	char *back = malloc(NTHR * PER * WLEN);
	CU_ASSERT_EQUAL(pread(dcio_file_fd(c.f), back, NTHR * PER * WLEN, 0),
			NTHR * PER * WLEN);
	CU_ASSERT_TRUE(tl_check(back, NTHR * PER * WLEN, 0, 9));
	free(back);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

static void t_flood_pool(void)
{
	flood(true, 4);
}
static void t_flood_real(void)
{
	flood(false, 2);
}

/* With the pwritev2 gate closed, three 64 KiB writes at 0, 64 and 128 KiB
 * of buf: the first two are queued (and wait at the gate), the third finds
 * no room and is refused EAGAIN without a callback. */
static void three_writes(struct tl_ctx *c, char *buf, struct tl_wait *w,
			 struct tl_op op[3])
{
	tl_wait_init(w);
	for (int i = 0; i < 3; i++)
		op[i] = (struct tl_op){ .w = w };
	atomic_store(&gate_closed, 1);
	for (int i = 0; i < 3; i++) {
		struct iovec io = { buf + ((size_t)i << 16), 64 << 10 };
		CU_ASSERT_EQUAL(dcio_write(c->f, &io, 1, (uint64_t)i << 16,
					   DCIO_UNSTABLE, NULL, NULL,
					   tl_op_done, &op[i]),
				i < 2 ? 0 : EAGAIN);
	}
}

/* Opens the gate: the two queued writes of three_writes complete. */
static void two_done(struct tl_wait *w, struct tl_op op[3])
{
	open_gate();
	tl_wait_for(w, 2);
	CU_ASSERT_EQUAL(op[0].err, 0);
	CU_ASSERT_EQUAL(op[1].err, 0);
	CU_ASSERT_EQUAL(op[2].calls, 0);
	CU_ASSERT_EQUAL(w->n, 2);
}

static void t_eagain(void)
{
	struct tl_ctx c;
	setup(&c, true, 2, 128 << 10, 50);
	static char buf[1 << 20];
	tl_fill(buf, sizeof(buf), 0, 10);
	struct tl_wait w;
	struct tl_op op[3];
	three_writes(&c, buf, &w, op);
	two_done(&w, op);
	char *js = tl_stats(c.x);
	CU_ASSERT_EQUAL(tl_json_num(js, "inflight.eagain"), 1);
	CU_ASSERT_TRUE(tl_json_num(js, "inflight.peak") <= 128 << 10);
	free(js);

	/* larger than the bound: admitted once nothing else is in flight */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	js = tl_stats(c.x);
	CU_ASSERT_EQUAL(tl_json_num(js, "inflight.peak"), sizeof(buf));
	free(js);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

/* A queued direct write holds the caller's buffer and its bounce copy: it
 * counts twice its length, so the bound is the memory queued writes hold
 * (64 writers of 1 MiB direct WRITEs took ganesha past a 1 GiB cgroup when
 * only the buffers counted). */
static void t_direct_counts_bounce(void)
{
	struct tl_ctx c;
	char why[128];
	setup_mode(&c, DCIO_WRITE_DIRECT, true, 2, 256 << 10, 50);
	if (strcmp(dcio_export_write_path(c.x, why, sizeof(why)), "direct")) {
		fprintf(stderr, "no O_DIRECT here (%s): case skipped\n", why);
		CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
		return;
	}
	static char buf[192 << 10];
	tl_fill(buf, sizeof(buf), 0, 11);
	struct tl_wait w;
	struct tl_op op[3];
	/* 3 x 64 KiB of buffers fit 256 KiB; with their bounce copies not */
	three_writes(&c, buf, &w, op);
	char *js = tl_stats(c.x);
	CU_ASSERT_EQUAL(tl_json_num(js, "inflight.bytes"), 256 << 10);
	free(js);
	two_done(&w, op);
	js = tl_stats(c.x);
	CU_ASSERT_EQUAL(tl_json_num(js, "inflight.bytes"), 0);
	free(js);
	char back[128 << 10];
	CU_ASSERT_EQUAL(pread(dcio_file_fd(c.f), back, sizeof(back), 0),
			(ssize_t)sizeof(back));
	CU_ASSERT_TRUE(tl_check(back, sizeof(back), 0, 11));
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

static const struct tl_case cases[] = {
	{ "flood through a slow pwritev2 stays under the bound", t_flood_pool },
	{ "flood through the real pwritev2 stays under the bound",
	  t_flood_real },
	{ "EAGAIN after inflight_wait_ms, oversized write alone", t_eagain },
	{ "a direct write counts its bounce copy", t_direct_counts_bounce },
};

int main(void)
{
	return TL_RUN_SUITE("in-flight bound", cases);
}
