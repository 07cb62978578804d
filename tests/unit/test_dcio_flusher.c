// SPDX-License-Identifier: LGPL-3.0-or-later
/* Dropbehind flusher: many writes share one pass, ranges are merged and sorted before sync_file_range(WRITE), a pass waits on what it started and drops it (DONTNEED), a file stuck in writeback does not hold up another file (several flusher threads), and the file, export and interval triggers each start a flush. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dcio_testlib.h"
#include "io/core.h"
#include "io/flusher.h"

static uint64_t tl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct call {
	int fd;
	off_t off, len;
	unsigned flags;
} calls[4096];
static int ncalls, ndontneed;
static atomic_int stall_wait_ms; /* the drain takes this long (a slow disk) */
/* the drain on this fd blocks until stall_release (at most 10 s) */
static atomic_int stall_fd = -1, stall_in;
static atomic_bool stall_release;
/* fdatasync blocks while flush_hold (at most 10 s): a COMMIT's flush
 * running as the pass drops */
static atomic_bool flush_hold;
static atomic_int flush_in;
/* the next fdatasync fails with this errno (0: none) */
static atomic_int fail_fdatasync_once;

static int fake_fdatasync(int fd)
{
	int fail = atomic_exchange(&fail_fdatasync_once, 0);

	if (fail) {
		errno = fail;
		return -1;
	}
	atomic_fetch_add(&flush_in, 1);
	for (int i = 0; i < 10000 && atomic_load(&flush_hold); i++)
		usleep(1000);
	return fdatasync(fd);
}

/* the first wait on this fd finds its range dirty again */
static atomic_int redirty_fd = -1;

static int fake_sfr(int fd, off_t off, off_t len, unsigned int flags)
{
	if ((flags & SYNC_FILE_RANGE_WAIT_BEFORE) &&
	    atomic_exchange(&redirty_fd, -1) == fd && fd >= 0) {
		static char junk[1 << 20];
		off_t o = off;

		while (o < off + len &&
		       pwrite(fd, junk,
			      (size_t)(off + len - o) < sizeof(junk)
				      ? (size_t)(off + len - o)
				      : sizeof(junk),
			      o) > 0)
			o += sizeof(junk);
	}
	if (flags == DCIO_SFR_DRAIN && atomic_load(&stall_wait_ms))
		usleep((useconds_t)atomic_load(&stall_wait_ms) * 1000);
	if (flags == DCIO_SFR_DRAIN && fd == atomic_load(&stall_fd)) {
		atomic_fetch_add(&stall_in, 1);
		for (int i = 0; i < 10000 && !atomic_load(&stall_release); i++)
			usleep(1000);
	}
	/* counted once done: a case that saw the count may check its effect
	 * (counted before the syscall, a flusher thread preempted in between
	 * let t_parallel and t_interval_then_drop find the pages still
	 * cached, one run in tens on a loaded machine) */
	int rc = sync_file_range(fd, off, len, flags);
	int e = errno;

	pthread_mutex_lock(&mu);
	if (ncalls < 4096)
		calls[ncalls++] = (struct call){ fd, off, len, flags };
	pthread_mutex_unlock(&mu);
	errno = e;
	return rc;
}

static int fake_fadvise(int fd, off_t off, off_t len, int advice)
{
	int rc = posix_fadvise(fd, off, len, advice);

	/* counted once done (as fake_sfr) */
	pthread_mutex_lock(&mu);
	if (advice == POSIX_FADV_DONTNEED)
		ndontneed++;
	pthread_mutex_unlock(&mu);
	return rc ? -1 : 0;
}

static int count_flags(unsigned flags)
{
	int n = 0;
	pthread_mutex_lock(&mu);
	for (int i = 0; i < ncalls; i++)
		n += calls[i].flags == flags;
	pthread_mutex_unlock(&mu);
	return n;
}

static bool wait_for(unsigned flags, int n)
{
	for (int i = 0; i < 10000; i++) {
		if (count_flags(flags) >= n)
			return true;
		usleep(1000);
	}
	return false;
}

/* Writes in the data syscall at once, and the most seen; each takes
 * write_delay_ms (a slow copy) */
static atomic_int write_delay_ms, in_write, max_in_write;

static ssize_t slow_pwritev2(int fd, const struct iovec *iov, int cnt,
			     off_t off, int flags)
{
	int n = atomic_fetch_add(&in_write, 1) + 1;
	int m = atomic_load(&max_in_write);

	while (n > m && !atomic_compare_exchange_weak(&max_in_write, &m, n))
		;
	if (atomic_load(&write_delay_ms))
		usleep((useconds_t)atomic_load(&write_delay_ms) * 1000);
	ssize_t r = pwritev2(fd, iov, cnt, off, flags);

	atomic_fetch_sub(&in_write, 1);
	return r;
}

/* no file: the cases open their own */
static uint64_t next_budget; /* cache_budget_bytes of the next setup */

static void setup_caller(struct tl_ctx *c, uint64_t file_thr,
			 uint64_t export_thr, uint32_t interval,
			 uint32_t caller_max)
{
	struct dcio_syscalls t = { .sync_file_range = fake_sfr,
				   .posix_fadvise = fake_fadvise,
				   .fdatasync = fake_fdatasync,
				   .pwritev2 = slow_pwritev2 };
	struct dcio_export_params p =
		tl_params(DCIO_WRITE_DROPBEHIND, DCIO_READ_BUFFERED,
			  DCIO_FLUSH_COALESCED);

	p.flush_file_bytes = file_thr;
	p.flush_export_bytes = export_thr;
	p.flush_interval_ms = interval;
	p.caller_write_max = caller_max;
	p.cache_budget_bytes = next_budget;
	next_budget = 0;
	ncalls = ndontneed = 0;
	atomic_store(&stall_wait_ms, 0);
	atomic_store(&stall_fd, -1);
	atomic_store(&stall_in, 0);
	atomic_store(&stall_release, false);
	atomic_store(&redirty_fd, -1);
	atomic_store(&flush_hold, false);
	atomic_store(&flush_in, 0);
	atomic_store(&fail_fdatasync_once, 0);
	atomic_store(&write_delay_ms, 0);
	atomic_store(&max_in_write, 0);
	tl_ctx_open(
		c, &(struct tl_setup){
			   .sys = &t, .p = &p, .name = "fl", .no_file = true });
}

static void setup(struct tl_ctx *c, uint64_t file_thr, uint64_t export_thr,
		  uint32_t interval)
{
	setup_caller(c, file_thr, export_thr, interval, 0);
}

/* One asynchronous write of iov at off, waited for: it must succeed. */
static void write_one(struct dcio_file *f, struct iovec *iov, uint64_t off)
{
	struct tl_wait w;

	tl_wait_init(&w);
	CU_ASSERT_EQUAL(dcio_write(f, iov, 1, off, DCIO_UNSTABLE, NULL, NULL,
				   tl_done, &w),
			0);
	tl_wait_for(&w, 1);
	CU_ASSERT_EQUAL(w.errs, 0);
}

/* Writes on the caller's thread wait for the flusher once the export holds
 * more than DCIO_THROTTLE_FACTOR x flush_export_bytes not yet dropped,
 * and only so long
 * (DCIO_THROTTLE_MAX_MS) when the flusher is stuck: here its wait on the
 * first writes' writeback takes 5 s. */
static void t_throttle(void)
{
	static char buf[256 << 10];
	struct iovec iov = { buf, sizeof(buf) };
	struct tl_ctx c;
	struct dcio_file *f;
	uint64_t t0, waited = 0;
	char *s;

	setup_caller(&c, 256 << 10, 64 << 10, 1000, 1 << 20);
	CU_ASSERT_EQUAL_FATAL(
		dcio_file_open(c.x, tl_open(&c.fs, "thr", O_TRUNC), &f), 0);
	atomic_store(&stall_wait_ms, 5000);
	tl_fill(buf, sizeof(buf), 0, 6);
	/* 8 x 64 KiB = 512 KiB may be held: the fourth write finds 768 KiB */
	for (int i = 0; i < 12 && waited < 1000; i++) {
		t0 = tl_now_ms();
		write_one(f, &iov, (uint64_t)i * sizeof(buf));
		waited = tl_now_ms() - t0;
		/* give the flusher time to start its stalled wait */
		if (i == 1)
			usleep(200000);
	}
	/* a write found more than DCIO_THROTTLE_FACTOR x 64 KiB held: it
	 * waited, and
	 * stopped waiting after ~2 s although the flusher was still stuck */
	CU_ASSERT(waited >= DCIO_THROTTLE_MAX_MS - 200);
	CU_ASSERT(waited < DCIO_THROTTLE_MAX_MS + 900);
	s = tl_stats(c.x);
	CU_ASSERT(tl_json_num(s, "flusher.throttled") >= 1);
	CU_ASSERT(tl_json_num(s, "flusher.throttle_ms") >=
		  DCIO_THROTTLE_MAX_MS - 200);
	free(s);
	atomic_store(&stall_wait_ms, 0);
	CU_ASSERT_EQUAL(dcio_file_close(f), 0);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

/* The index of the first of 8 writes of 256 KiB that waited (-1: none),
 * the flusher's wait on the first one stuck for 2.5 s: the file stays busy
 * and nothing is dropped, so write k finds k x 256 KiB held. */
static int first_throttled(uint64_t budget)
{
	static char buf[256 << 10];
	struct iovec iov = { buf, sizeof(buf) };
	struct tl_ctx c;
	struct dcio_file *f;
	int first = -1;

	next_budget = budget;
	setup_caller(&c, 256 << 10, 64 << 10, 1000, 1 << 20);
	CU_ASSERT_EQUAL_FATAL(
		dcio_file_open(c.x, tl_open(&c.fs, "bud", O_TRUNC), &f), 0);
	atomic_store(&stall_wait_ms, 2500);
	for (int i = 0; i < 8 && first < 0; i++) {
		uint64_t t0 = tl_now_ms();

		write_one(f, &iov, (uint64_t)i * sizeof(buf));
		if (tl_now_ms() - t0 >= 1000)
			first = i;
		if (i == 0) /* the flusher into its stalled wait */
			usleep(200000);
	}
	atomic_store(&stall_wait_ms, 0);
	char *s = tl_stats(c.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "flusher.budget_bytes"),
			budget ? budget : DCIO_THROTTLE_FACTOR * (64 << 10));
	CU_ASSERT(tl_json_num(s, "flusher.held_bytes") >= 3 * (256 << 10));
	free(s);
	CU_ASSERT_EQUAL(dcio_file_close(f), 0);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
	return first;
}

/* cache_budget_bytes sets the bound: 1 MiB held lets the sixth write
 * wait; left 0 the bound is 8 x flush_export_bytes (512 KiB): the fourth. */
static void t_budget(void)
{
	CU_ASSERT_EQUAL(first_throttled(1 << 20), 5);
	CU_ASSERT_EQUAL(first_throttled(0), 3);
}

/* Writes in flight count toward the budget: 8 writers of 256 KiB, each
 * write 500 ms in its syscall, a budget of 1 MiB. Five may be in the page
 * cache at once (the fifth finds 1 MiB: not over), the others wait until
 * passes dropped what the first ones left; all complete. Before, all 8
 * passed an empty budget together and left twice the budget. */
struct inflight_arg {
	struct tl_ctx *c;
	int i;
};

static void *inflight_writer(void *arg)
{
	struct inflight_arg *a = arg;
	static char buf[256 << 10];
	struct iovec iov = { buf, sizeof(buf) };
	struct dcio_file *f;
	char name[16];

	snprintf(name, sizeof(name), "inf%d", a->i);
	if (dcio_file_open(a->c->x, tl_open(&a->c->fs, name, O_TRUNC), &f)) {
		CU_FAIL("open");
		return NULL;
	}
	write_one(f, &iov, 0);
	CU_ASSERT_EQUAL(dcio_file_close(f), 0);
	return NULL;
}

static void t_budget_inflight(void)
{
	struct tl_ctx c;
	pthread_t t[8];
	struct inflight_arg a[8];

	next_budget = 1 << 20;
	setup_caller(&c, 256 << 10, 64 << 10, 1000, 1 << 20);
	atomic_store(&write_delay_ms, 500);
	for (int i = 0; i < 8; i++) {
		a[i] = (struct inflight_arg){ &c, i };
		CU_ASSERT_EQUAL_FATAL(
			pthread_create(&t[i], NULL, inflight_writer, &a[i]), 0);
	}
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	CU_ASSERT(atomic_load(&max_in_write) >= 2); /* they did overlap */
	CU_ASSERT(atomic_load(&max_in_write) <= 5);
	char *s = tl_stats(c.x);

	double peak = tl_json_num(s, "flusher.held_peak_bytes");

	CU_ASSERT(peak >= (256 << 10) && peak <= (5 << 18));
	free(s);
	atomic_store(&write_delay_ms, 0);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

/* Throttled writers go on in the order they came, and a writer that comes
 * while others wait queues behind them, room or not: woken all at once,
 * the ones that lost the race for the room slept again, one of 16 for up
 * to 2 s. Here three writers wait; room comes back and a fourth arrives
 * before they woke: it goes on only after all three left the queue. (The
 * three's own order is the queue's; when each records its return after
 * the call is up to the scheduler, so it is not checked.) */
static void *throttled(void *arg)
{
	flusher_throttle(arg, 0);
	return NULL;
}

static void held_set(struct dcio_export *x, uint64_t v)
{
	pthread_mutex_lock(&x->e->fl.mu);
	__atomic_store_n(&x->fl.held, v, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&x->e->fl.mu);
}

static void t_throttle_order(void)
{
	struct tl_ctx c;
	pthread_t t[3];
	unsigned int left;

	next_budget = 1 << 20;
	setup_caller(&c, 256 << 10, 64 << 10, 1000, 1 << 20);
	held_set(c.x, 2 << 20);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL_FATAL(
			pthread_create(&t[i], NULL, throttled, c.x), 0);
		/* queued before the next one starts */
		for (int n = 0; n < 2000 && __atomic_load_n(&c.x->fl.waiters,
							    __ATOMIC_RELAXED) <=
						    (unsigned int)i;
		     n++)
			usleep(1000);
	}
	CU_ASSERT_EQUAL(__atomic_load_n(&c.x->fl.waiters, __ATOMIC_RELAXED), 3);
	/* room again, and a fourth writer before the three woke up */
	held_set(c.x, 0);
	flusher_throttle(c.x, 0);
	pthread_mutex_lock(&c.e->fl.mu);
	left = c.x->fl.waiters;
	pthread_mutex_unlock(&c.e->fl.mu);
	CU_ASSERT_EQUAL(left, 0); /* the three went first */
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

/* Without a stall the same writers are paced, not stopped: 64 writes of
 * 256 KiB through a 4 MiB budget all complete and read back. */
static void t_throttle_paces(void)
{
	static char buf[256 << 10], back[256 << 10];
	struct iovec iov = { buf, sizeof(buf) };
	struct tl_ctx c;
	struct dcio_file *f;
	size_t got;

	setup_caller(&c, 256 << 10, 256 << 10, 1000, 1 << 20);
	CU_ASSERT_EQUAL_FATAL(
		dcio_file_open(c.x, tl_open(&c.fs, "pace", O_TRUNC), &f), 0);
	for (int i = 0; i < 64; i++) {
		tl_fill(buf, sizeof(buf), (uint64_t)i * sizeof(buf), 7);
		write_one(f, &iov, (uint64_t)i * sizeof(buf));
	}
	CU_ASSERT_EQUAL(dcio_commit(f, 0, 0), 0);
	for (int i = 0; i < 64; i += 21) {
		got = 0;
		CU_ASSERT_EQUAL(tl_read(f, back, sizeof(back),
					(uint64_t)i * sizeof(back), &got),
				0);
		CU_ASSERT(got == sizeof(back) &&
			  tl_check(back, sizeof(back),
				   (uint64_t)i * sizeof(back), 7));
	}
	CU_ASSERT_EQUAL(dcio_file_close(f), 0);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

/* 256 async 4 KiB writes, in shuffled order, to a file with a 1 MiB threshold */
static void t_coalesce(void)
{
	struct tl_ctx c;
	setup(&c, 1 << 20, 64 << 20, 60000);
	struct dcio_file *f;
	CU_ASSERT_EQUAL_FATAL(
		dcio_file_open(c.x, tl_open(&c.fs, "f", O_TRUNC), &f), 0);
	static char buf[1 << 20];
	tl_fill(buf, sizeof(buf), 0, 3);
	struct tl_wait w;
	tl_wait_init(&w);
	unsigned seed = 9;
	int order[256];
	for (int i = 0; i < 256; i++)
		order[i] = i;
	for (int i = 255; i > 0; i--) {
		seed = seed * 1103515245u + 12345u;
		int j = (int)((seed >> 8) % (unsigned)(i + 1)), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (int i = 0; i < 256; i++) {
		struct iovec iov = { buf + order[i] * 4096, 4096 };
		CU_ASSERT_EQUAL(
			dcio_write(f, &iov, 1, (uint64_t)order[i] * 4096,
				   DCIO_UNSTABLE, NULL, NULL, tl_done, &w),
			0);
	}
	tl_wait_for(&w, 256);
	CU_ASSERT_TRUE_FATAL(wait_for(SYNC_FILE_RANGE_WRITE, 1));
	/* the counters move after the syscalls the fake table saw */
	char *js = tl_stats(c.x);
	for (int i = 0; i < 500 && tl_json_num(js, "flusher.bytes") < (1 << 20);
	     i++) {
		free(js);
		usleep(10000);
		js = tl_stats(c.x);
	}
	double passes = tl_json_num(js, "flusher.passes");
	CU_ASSERT_TRUE(passes >= 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "flusher.writes_coalesced"), 256);
	CU_ASSERT_TRUE(256 / passes >= 2);
	/* contiguous data: one merged range per pass, never one per write */
	CU_ASSERT_TRUE(count_flags(SYNC_FILE_RANGE_WRITE) <= passes);
	CU_ASSERT_EQUAL(tl_json_num(js, "flusher.bytes"), 1 << 20);
	free(js);
	pthread_mutex_lock(&mu);
	bool whole = false;
	for (int i = 0; i < ncalls; i++)
		if (calls[i].flags == SYNC_FILE_RANGE_WRITE &&
		    calls[i].off == 0 && calls[i].len == 1 << 20)
			whole = true;
	pthread_mutex_unlock(&mu);
	CU_ASSERT_TRUE(whole);
	CU_ASSERT_EQUAL(dcio_file_close(f), 0);
	/* close dropped the file's pages */
	CU_ASSERT_TRUE(ndontneed >= 1);
	tl_ctx_close(&c);
}

/* below the file threshold: the interval starts writeback, and a later pass
 * waits for it and drops the range */
static void t_interval_then_drop(void)
{
	struct tl_ctx c;
	setup(&c, 64 << 20, 256 << 20, 50);
	struct dcio_file *f;
	CU_ASSERT_EQUAL_FATAL(
		dcio_file_open(c.x, tl_open(&c.fs, "f", O_TRUNC), &f), 0);
	static char buf[65536];
	CU_ASSERT_EQUAL(tl_write(f, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_TRUE(wait_for(SYNC_FILE_RANGE_WRITE, 1));
	CU_ASSERT_TRUE(wait_for(DCIO_SFR_DRAIN, 1));
	for (int i = 0; i < 5000 && !ndontneed; i++)
		usleep(1000);
	CU_ASSERT_TRUE(ndontneed >= 1);
	CU_ASSERT_TRUE(tl_resident(tl_path(&c.fs, "f")) < 0.5);
	CU_ASSERT_EQUAL(dcio_file_close(f), 0);
	tl_ctx_close(&c);
}

/* File <p><i> (truncated), opened on c's export. */
static struct dcio_file *open_nth(struct tl_ctx *c, char p, int i)
{
	struct dcio_file *f = NULL;
	char name[16];

	snprintf(name, sizeof(name), "%c%d", p, i);
	CU_ASSERT_EQUAL_FATAL(
		dcio_file_open(c->x, tl_open(&c->fs, name, O_TRUNC), &f), 0);
	return f;
}

/* four files, each under its threshold, together over the export's */
static void t_export_threshold(void)
{
	struct tl_ctx c;
	setup(&c, 64 << 20, 1 << 20, 60000);
	struct dcio_file *f[4];
	static char buf[300 << 10];
	for (int i = 0; i < 4; i++)
		f[i] = open_nth(&c, 'f', i);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(
			tl_write(f[i], buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	usleep(20000);
	CU_ASSERT_EQUAL(count_flags(SYNC_FILE_RANGE_WRITE), 0);
	CU_ASSERT_EQUAL(tl_write(f[3], buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_TRUE(wait_for(SYNC_FILE_RANGE_WRITE, 4));
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(dcio_file_close(f[i]), 0);
	tl_ctx_close(&c);
}

static int sfr_calls_on(int fd, unsigned flags)
{
	int n = 0;
	pthread_mutex_lock(&mu);
	for (int i = 0; i < ncalls; i++)
		n += calls[i].fd == fd && calls[i].flags == flags;
	pthread_mutex_unlock(&mu);
	return n;
}

/* File a's writeback wait hangs (a stuck device, a slow file): file b,
 * written after, is still started, waited on and dropped by another flusher
 * thread meanwhile, and a's pass finishes once its wait returns. */
static void t_parallel(void)
{
	static char buf[1 << 20];
	struct tl_ctx c;
	struct dcio_file *a, *b;

	setup(&c, 1 << 20, 256 << 20, 60000);
	int fa = tl_open(&c.fs, "a", O_TRUNC),
	    fb = tl_open(&c.fs, "b", O_TRUNC);
	CU_ASSERT_EQUAL_FATAL(dcio_file_open(c.x, fa, &a), 0);
	CU_ASSERT_EQUAL_FATAL(dcio_file_open(c.x, fb, &b), 0);
	atomic_store(&stall_fd, fa);
	CU_ASSERT_EQUAL(tl_write(a, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	for (int i = 0; i < 5000 && !atomic_load(&stall_in); i++)
		usleep(1000);
	CU_ASSERT_TRUE_FATAL(atomic_load(&stall_in) == 1);
	CU_ASSERT_EQUAL(tl_write(b, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	bool b_done = false;
	for (int i = 0; i < 3000 && !b_done; i++) {
		b_done =
			sfr_calls_on(fb, DCIO_SFR_DRAIN) >= 1 && ndontneed >= 1;
		if (!b_done)
			usleep(1000);
	}
	CU_ASSERT_TRUE(b_done);
	CU_ASSERT_EQUAL(sfr_calls_on(fb, SYNC_FILE_RANGE_WRITE), 1);
	CU_ASSERT_TRUE(tl_resident(tl_path(&c.fs, "b")) < 0.5);
	/* a is still in its wait, its pages not dropped */
	CU_ASSERT_EQUAL(atomic_load(&stall_in), 1);
	atomic_store(&stall_release, true);
	CU_ASSERT_EQUAL(dcio_file_close(a), 0);
	CU_ASSERT_EQUAL(dcio_file_close(b), 0);
	CU_ASSERT_TRUE(tl_resident(tl_path(&c.fs, "a")) < 0.5);
	tl_ctx_close(&c);
}

/* The pages a pass took are dirty again when it waits on them: a COMMIT's
 * fsync holding them locked and dirty while ext4 allocates their blocks
 * (under load, for long), or a write from outside the engine (here). The
 * pass still writes them, waits and drops them: a wait that only waits on
 * writeback already started found nothing to wait for, DONTNEED skipped
 * the dirty or locked pages, and they stayed cached for good (the file
 * left the flusher's list with nothing pending). */
static void t_dirty_at_wait(void)
{
	static char buf[1 << 20];
	struct tl_ctx c;
	struct dcio_file *f;
	double res = 1;

	setup(&c, 1 << 20, 256 << 20, 60000);
	int fd = tl_open(&c.fs, "d", O_TRUNC);
	CU_ASSERT_EQUAL_FATAL(dcio_file_open(c.x, fd, &f), 0);
	atomic_store(&redirty_fd, fd);
	CU_ASSERT_EQUAL(tl_write(f, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	/* the 1 MiB write crossed the file threshold: one pass, no other */
	for (int i = 0;
	     i < 200 && (res = tl_resident(tl_path(&c.fs, "d"))) > 0.05; i++)
		usleep(10000);
	CU_ASSERT_EQUAL(atomic_load(&redirty_fd), -1);
	CU_ASSERT_TRUE(res <= 0.05);
	CU_ASSERT_EQUAL(dcio_file_close(f), 0);
	tl_ctx_close(&c);
}

static void *commit_all(void *arg)
{
	return (void *)(intptr_t)dcio_commit(arg, 0, 0);
}

/* A COMMIT's flush runs while a pass drops the file's ranges: its fsync
 * holds references to the pages it writes and waits on, so DONTNEED leaves
 * them cached (clean, and for good: seen as test_dcio_worker's pages
 * staying resident on a loaded machine). The pass keeps the ranges, counts
 * drops_retried, and a later pass, after the flush, drops them. */
static void t_flush_overlap(void)
{
	static char buf[1 << 20];
	struct tl_ctx c;
	struct dcio_file *f;
	pthread_t th;
	void *rc = (void *)(intptr_t)-1;
	double res = 1;

	setup(&c, 1 << 20, 256 << 20, 100);
	CU_ASSERT_EQUAL_FATAL(
		dcio_file_open(c.x, tl_open(&c.fs, "o", O_TRUNC), &f), 0);
	CU_ASSERT_EQUAL(tl_write(f, buf, 4096, 0, DCIO_UNSTABLE), 0);
	atomic_store(&flush_hold, true);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, commit_all, f), 0);
	for (int i = 0; i < 5000 && !atomic_load(&flush_in); i++)
		usleep(1000);
	CU_ASSERT_EQUAL(atomic_load(&flush_in), 1);
	/* over the file threshold: a pass now, inside the flush */
	CU_ASSERT_EQUAL(tl_write(f, buf, sizeof(buf), 4096, DCIO_UNSTABLE), 0);
	CU_ASSERT_TRUE(tl_wait_stat(c.x, "flusher.drops_retried", TL_AT_LEAST,
				    1, 3000) >= 1);
	/* still held: the ranges stay the file's */
	CU_ASSERT_TRUE(tl_stat(c.x, "flusher.held_bytes") > 0);
	atomic_store(&flush_hold, false);
	pthread_join(th, &rc);
	CU_ASSERT_EQUAL((intptr_t)rc, 0);
	double passes = tl_stat(c.x, "flusher.passes");
	CU_ASSERT_EQUAL(
		tl_wait_stat(c.x, "flusher.held_bytes", TL_AT_MOST, 0, 3000),
		0);
	CU_ASSERT_TRUE(tl_stat(c.x, "flusher.passes") > passes);
	for (int i = 0;
	     i < 100 && (res = tl_resident(tl_path(&c.fs, "o"))) > 0.05; i++)
		usleep(10000);
	CU_ASSERT_TRUE(res <= 0.05);
	CU_ASSERT_EQUAL(dcio_file_close(f), 0);
	tl_ctx_close(&c);
}

/* Issue 42 item 8b: a clean close whose flush fails keeps the file open
 * (dcio_file_close_clean answers false) and its writes go on. The close
 * marked the file closing for the flusher; left set, a pass that a COMMIT's
 * flush overlaps dropped the file's ranges as if it were going away, and
 * they stayed cached for good (no drops_retried). */
static void t_flush_overlap_after_failed_close(void)
{
	static char buf[1 << 20];
	struct tl_ctx c;
	struct dcio_file *f;
	pthread_t th;
	void *rc = (void *)(intptr_t)-1;
	int err = 0;

	setup(&c, 1 << 20, 256 << 20, 100);
	CU_ASSERT_EQUAL_FATAL(
		dcio_file_open(c.x, tl_open(&c.fs, "o", O_TRUNC), &f), 0);
	CU_ASSERT_EQUAL(tl_write(f, buf, 4096, 0, DCIO_UNSTABLE), 0);
	atomic_store(&fail_fdatasync_once, EIO);
	CU_ASSERT_FALSE_FATAL(dcio_file_close_clean(f, &err));
	CU_ASSERT_EQUAL(err, EIO);
	/* the lost range rewritten: the file is in use again */
	CU_ASSERT_EQUAL(tl_write(f, buf, 4096, 0, DCIO_UNSTABLE), 0);
	atomic_store(&flush_hold, true);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, commit_all, f), 0);
	for (int i = 0; i < 5000 && !atomic_load(&flush_in); i++)
		usleep(1000);
	CU_ASSERT_EQUAL(atomic_load(&flush_in), 1);
	/* over the file threshold: a pass now, inside the flush */
	CU_ASSERT_EQUAL(tl_write(f, buf, sizeof(buf), 4096, DCIO_UNSTABLE), 0);
	CU_ASSERT_TRUE(tl_wait_stat(c.x, "flusher.drops_retried", TL_AT_LEAST,
				    1, 3000) >= 1);
	atomic_store(&flush_hold, false);
	pthread_join(th, &rc);
	CU_ASSERT_EQUAL((intptr_t)rc, 0);
	CU_ASSERT_EQUAL(
		tl_wait_stat(c.x, "flusher.held_bytes", TL_AT_MOST, 0, 3000),
		0);
	CU_ASSERT_TRUE(dcio_file_close_clean(f, &err));
	CU_ASSERT_EQUAL(err, 0);
	tl_ctx_close(&c);
}

static bool wait_sfr_on(int fd, unsigned flags, int n)
{
	for (int i = 0; i < 3000; i++) {
		if (sfr_calls_on(fd, flags) >= n)
			return true;
		usleep(1000);
	}
	return false;
}

/* While a file's pass waits on its writeback, its writer goes on: once what
 * it dirtied since crosses the file threshold, an idle flusher thread starts
 * that writeback (off the request path), and the file's next pass waits on
 * it and drops it. Before, those pages stayed dirty until the pass gave the
 * file back: one fast writer's page cache was mostly dirty pages (seq1:
 * 170 of 216 MiB). With more files than flusher threads it is left to
 * their passes (nfiles > 1 here: two more files listed). */
static void busy_file(int nfiles)
{
	static char buf[1 << 20];
	struct tl_ctx c;
	struct dcio_file *a, *o[2];

	setup(&c, 1 << 20, 256 << 20, 60000);
	int fa = tl_open(&c.fs, "a", O_TRUNC);
	CU_ASSERT_EQUAL_FATAL(dcio_file_open(c.x, fa, &a), 0);
	for (int i = 0; i < nfiles - 1; i++) {
		o[i] = open_nth(&c, 'o', i);
		CU_ASSERT_EQUAL(tl_write(o[i], buf, 4096, 0, DCIO_UNSTABLE), 0);
	}
	atomic_store(&stall_fd, fa);
	CU_ASSERT_EQUAL(tl_write(a, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	for (int i = 0; i < 5000 && !atomic_load(&stall_in); i++)
		usleep(1000);
	CU_ASSERT_TRUE_FATAL(atomic_load(&stall_in) == 1);
	CU_ASSERT_EQUAL(sfr_calls_on(fa, SYNC_FILE_RANGE_WRITE), 1);
	/* half the threshold: nothing to start */
	CU_ASSERT_EQUAL(
		tl_write(a, buf, sizeof(buf) / 2, 1 << 20, DCIO_UNSTABLE), 0);
	usleep(50000);
	CU_ASSERT_EQUAL(sfr_calls_on(fa, SYNC_FILE_RANGE_WRITE), 1);
	/* the threshold */
	CU_ASSERT_EQUAL(
		tl_write(a, buf, sizeof(buf) / 2, 3 << 19, DCIO_UNSTABLE), 0);
	if (nfiles == 1) {
		CU_ASSERT_TRUE(wait_sfr_on(fa, SYNC_FILE_RANGE_WRITE, 2));
		pthread_mutex_lock(&mu);
		bool whole = false;
		for (int i = 0; i < ncalls; i++)
			whole |= calls[i].fd == fa &&
				 calls[i].flags == SYNC_FILE_RANGE_WRITE &&
				 calls[i].off == (1 << 20) &&
				 calls[i].len == (1 << 20);
		pthread_mutex_unlock(&mu);
		CU_ASSERT_TRUE(whole);
		CU_ASSERT_TRUE(tl_stat(c.x, "flusher.busy_starts") >= 1);
	} else {
		usleep(200000);
		CU_ASSERT_EQUAL(sfr_calls_on(fa, SYNC_FILE_RANGE_WRITE), 1);
		CU_ASSERT_EQUAL(tl_stat(c.x, "flusher.busy_starts"), 0);
	}
	/* the pass is still waiting */
	CU_ASSERT_EQUAL(atomic_load(&stall_in), 1);
	/* released: the next pass drains and drops it all */
	atomic_store(&stall_fd, -1);
	atomic_store(&stall_release, true);
	double res = 1;
	for (int i = 0;
	     i < 300 && (res = tl_resident(tl_path(&c.fs, "a"))) > 0.05; i++)
		usleep(10000);
	CU_ASSERT_TRUE(res <= 0.05);
	CU_ASSERT_EQUAL(dcio_file_close(a), 0);
	for (int i = 0; i < nfiles - 1; i++)
		CU_ASSERT_EQUAL(dcio_file_close(o[i]), 0);
	CU_ASSERT_EQUAL(tl_stat(c.x, "flusher.held_bytes"), 0);
	tl_ctx_close(&c);
}

static void t_busy_file_started(void)
{
	busy_file(1);
}

static void t_busy_file_many(void)
{
	busy_file(3);
}

static const struct tl_case cases[] = {
	{ "a busy file's new writeback is started while its pass waits",
	  t_busy_file_started },
	{ "more files than flusher threads: left to the passes",
	  t_busy_file_many },
	{ "a drop a COMMIT's flush overlapped is done again", t_flush_overlap },
	{ "... and again after a failed clean close",
	  t_flush_overlap_after_failed_close },
	{ "pages dirty again at the pass's wait are dropped", t_dirty_at_wait },
	{ "a file stuck in writeback holds up no other", t_parallel },
	{ "256 writes coalesce into merged ranges", t_coalesce },
	{ "interval flush, then wait and drop", t_interval_then_drop },
	{ "export threshold flushes every file", t_export_threshold },
	{ "caller writes wait for the flusher, bounded", t_throttle },
	{ "caller writes are paced, all complete", t_throttle_paces },
	{ "throttled writers go on in arrival order", t_throttle_order },
	{ "cache_budget_bytes bounds what writers may leave", t_budget },
	{ "writes in flight count toward the budget", t_budget_inflight },
};

int main(void)
{
	return TL_RUN_SUITE("flusher", cases);
}
