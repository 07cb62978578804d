// SPDX-License-Identifier: LGPL-3.0-or-later
/* Group commit: concurrent COMMITs share one fdatasync (exact counts) (counters and a counting syscall table), stable writes complete only after a later flush on another thread, COMMIT with nothing dirty makes no syscall, close flushes. */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcio_testlib.h"
#include "io/core.h"
#include "io/commit.h"
#include "io/errmem.h"

#define NCOMMIT 16
#define NSTABLE 32

static atomic_int n_fdatasync, n_fsync, entered, gate_on;
static atomic_long clk;
static pthread_t callers[NCOMMIT + 1];
static atomic_int on_caller;

struct sync_ev {
	long start, end;
};
static struct sync_ev evs[1024];
static atomic_int nev;

static void note_thread(void)
{
	for (int i = 0; i <= NCOMMIT; i++)
		if (callers[i] && pthread_equal(callers[i], pthread_self()))
			atomic_fetch_add(&on_caller, 1);
}

static struct dcio_file *gate_file;

static int riders(struct dcio_file *f)
{
	int n = 0;

	pthread_mutex_lock(&f->gc.mu);
	for (struct gc_waiter *w = f->gc.riders; w; w = w->next)
		n++;
	pthread_mutex_unlock(&f->gc.mu);
	return n;
}

/* the first flush waits (up to 5 s) until every other committer has joined
 * it as a rider: one flush then serves them all, or the test fails */
static void gate(void)
{
	if (!atomic_exchange(&gate_on, 0))
		return;
	for (int i = 0; i < 5000 && riders(gate_file) < NCOMMIT - 1; i++)
		usleep(1000);
}

static int logged(int (*real)(int), int fd)
{
	int i = atomic_fetch_add(&nev, 1);
	evs[i].start = atomic_fetch_add(&clk, 1) + 1;
	int r = real(fd);
	evs[i].end = atomic_fetch_add(&clk, 1) + 1;
	return r;
}

static int fake_fdatasync(int fd)
{
	atomic_fetch_add(&n_fdatasync, 1);
	note_thread();
	gate();
	return logged(fdatasync, fd);
}

static int fake_fsync(int fd)
{
	atomic_fetch_add(&n_fsync, 1);
	note_thread();
	return logged(fsync, fd);
}

static atomic_long write_stamp[NSTABLE];
static void *write_buf[NSTABLE];

static ssize_t fake_pwritev2(int fd, const struct iovec *iov, int cnt,
			     off_t off, int flags)
{
	ssize_t r = pwritev2(fd, iov, cnt, off, flags);
	for (int i = 0; i < NSTABLE; i++)
		if (iov[0].iov_base == write_buf[i])
			atomic_store(&write_stamp[i],
				     atomic_fetch_add(&clk, 1) + 1);
	return r;
}

static struct dcio_syscalls table = { .fdatasync = fake_fdatasync,
				      .fsync = fake_fsync };

static void reset(void)
{
	atomic_store(&n_fdatasync, 0);
	atomic_store(&n_fsync, 0);
	atomic_store(&entered, 0);
	atomic_store(&nev, 0);
	atomic_store(&on_caller, 0);
	memset(callers, 0, sizeof(callers));
}

static void setup(struct tl_ctx *c, const struct dcio_syscalls *sys,
		  enum dcio_write_mode wm, enum dcio_flush_mode fm)
{
	struct dcio_engine_params ep = { .threads = 2 };
	struct dcio_export_params p = tl_params(wm, DCIO_READ_BUFFERED, fm);

	reset();
	tl_ctx_open(c, &(struct tl_setup){ .ep = &ep,
					   .sys = sys,
					   .p = &p,
					   .name = "gc",
					   .flags = O_TRUNC });
}

/* a file the test closed itself is not closed again */
static void teardown(struct tl_ctx *c)
{
	bool open = c->f != NULL;
	int rc = tl_ctx_close(c);

	if (open)
		CU_ASSERT_EQUAL(rc, 0);
}

struct committer {
	struct dcio_file *f;
	pthread_barrier_t *bar;
	int idx, rc;
};

static void *commit_thread(void *arg)
{
	struct committer *k = arg;
	callers[k->idx] = pthread_self();
	pthread_barrier_wait(k->bar);
	atomic_fetch_add(&entered, 1);
	k->rc = dcio_commit(k->f, 0, 0);
	return NULL;
}

static void t_group_commit(void)
{
	struct tl_ctx c;
	setup(&c, &table, DCIO_WRITE_DONTCACHE, DCIO_FLUSH_COALESCED);
	static char buf[1 << 20];
	tl_fill(buf, sizeof(buf), 0, 1);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);

	pthread_t tid[NCOMMIT];
	struct committer k[NCOMMIT];
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, NCOMMIT);
	gate_file = c.f;
	atomic_store(&gate_on, 1);
	for (int i = 0; i < NCOMMIT; i++) {
		k[i] = (struct committer){ .f = c.f, .bar = &bar, .idx = i };
		pthread_create(&tid[i], NULL, commit_thread, &k[i]);
	}
	for (int i = 0; i < NCOMMIT; i++) {
		pthread_join(tid[i], NULL);
		CU_ASSERT_EQUAL(k[i].rc, 0);
	}
	pthread_barrier_destroy(&bar);
	/* the first committer's flush serves the other NCOMMIT - 1, which
	 * joined it while it ran: exactly one fdatasync, one batch */
	CU_ASSERT_EQUAL(atomic_load(&n_fdatasync), 1);

	char *js = tl_stats(c.x);
	CU_ASSERT_TRUE(tl_json_valid(js));
	CU_ASSERT_EQUAL(tl_json_num(js, "group_commit.requests"), NCOMMIT);
	CU_ASSERT_EQUAL(tl_json_num(js, "group_commit.syscalls"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "group_commit.batches"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "group_commit.max_batch"), NCOMMIT);
	CU_ASSERT_EQUAL(tl_json_num(js, "group_commit.avg_batch"), NCOMMIT);
	CU_ASSERT_EQUAL(tl_json_num(js, "group_commit.syscalls_saved"),
			NCOMMIT - 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "group_commit.nothing_dirty"), 0);
	CU_ASSERT_TRUE(tl_json_num(js, "latency.commit.count") >= NCOMMIT);
	free(js);
	teardown(&c);
}

static void t_nothing_dirty(void)
{
	struct tl_ctx c;
	setup(&c, &table, DCIO_WRITE_DONTCACHE, DCIO_FLUSH_COALESCED);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	CU_ASSERT_EQUAL(atomic_load(&n_fdatasync), 0);
	char buf[4096];
	tl_fill(buf, sizeof(buf), 0, 2);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	CU_ASSERT_EQUAL(atomic_load(&n_fdatasync), 1);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 4096), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	CU_ASSERT_EQUAL(atomic_load(&n_fdatasync), 1);
	/* a stable write leaves nothing for a later COMMIT either */
	CU_ASSERT_EQUAL(tl_write(c.f, buf, sizeof(buf), 8192, DCIO_DATA_SYNC),
			0);
	CU_ASSERT_EQUAL(atomic_load(&n_fdatasync), 2);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	CU_ASSERT_EQUAL(atomic_load(&n_fdatasync), 2);
	char *js = tl_stats(c.x);
	CU_ASSERT_EQUAL(tl_json_num(js, "group_commit.nothing_dirty"), 4);
	free(js);
	/* closing a clean file flushes nothing */
	CU_ASSERT_EQUAL(dcio_file_close(c.f), 0);
	c.f = NULL;
	CU_ASSERT_EQUAL(atomic_load(&n_fdatasync), 2);
	teardown(&c);
}

static void t_close_flushes(void)
{
	struct tl_ctx c;
	setup(&c, &table, DCIO_WRITE_DROPBEHIND, DCIO_FLUSH_COALESCED);
	char buf[4096];
	tl_fill(buf, sizeof(buf), 0, 3);
	CU_ASSERT_EQUAL(tl_write(c.f, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(atomic_load(&n_fdatasync), 0);
	CU_ASSERT_EQUAL(dcio_file_close(c.f), 0);
	c.f = NULL;
	CU_ASSERT_EQUAL(atomic_load(&n_fdatasync), 1);
	teardown(&c);
}

struct stable_op {
	struct tl_op op;
	long done_stamp;
};

static void stable_done(void *arg, int err, size_t bytes)
{
	struct stable_op *s = arg;
	s->done_stamp = atomic_fetch_add(&clk, 1) + 1;
	tl_op_done(&s->op, err, bytes);
}

/* every stable write's done comes after a flush that started after its data
 * was written (fake: stamped in pwritev2; real pwritev2: stamped at
 * submission) */
static void stable_writes(bool real, enum dcio_flush_mode fm)
{
	struct dcio_syscalls t = table;
	if (!real)
		t.pwritev2 = fake_pwritev2;
	struct tl_ctx c;
	setup(&c, &t, DCIO_WRITE_DONTCACHE, fm);
	callers[NCOMMIT] = pthread_self();
	struct tl_wait w;
	struct stable_op ops[NSTABLE];
	tl_wait_init(&w);
	for (int i = 0; i < NSTABLE; i++) {
		write_buf[i] = malloc(8192);
		tl_fill(write_buf[i], 8192, (uint64_t)i * 8192, 4);
	}
	for (int i = 0; i < NSTABLE; i++) {
		atomic_store(&write_stamp[i], atomic_fetch_add(&clk, 1) + 1);
		ops[i] = (struct stable_op){ .op = { .w = &w } };
		struct iovec iov = { write_buf[i], 8192 };
		CU_ASSERT_EQUAL(
			dcio_write(c.f, &iov, 1, (uint64_t)i * 8192,
				   i % 2 ? DCIO_FILE_SYNC : DCIO_DATA_SYNC,
				   NULL, NULL, stable_done, &ops[i]),
			0);
		if (fm == DCIO_FLUSH_INLINE) {
			CU_ASSERT_EQUAL(ops[i].op.calls, 1);
		}
	}
	tl_wait_for(&w, NSTABLE);
	int covered = 0;
	for (int i = 0; i < NSTABLE; i++) {
		CU_ASSERT_EQUAL(ops[i].op.err, 0);
		CU_ASSERT_EQUAL(ops[i].op.calls, 1);
		for (int k = 0; k < atomic_load(&nev); k++)
			if (evs[k].start > atomic_load(&write_stamp[i]) &&
			    evs[k].end < ops[i].done_stamp) {
				covered++;
				break;
			}
		free(write_buf[i]);
		write_buf[i] = NULL;
	}
	CU_ASSERT_EQUAL(covered, NSTABLE);
	CU_ASSERT_TRUE(atomic_load(&n_fsync) >= 1);
	if (fm == DCIO_FLUSH_COALESCED) {
		CU_ASSERT_EQUAL(atomic_load(&on_caller), 0);
	} else {
		CU_ASSERT_TRUE(atomic_load(&on_caller) > 0);
	}
	/* everything is durable: nothing left for COMMIT */
	int before = atomic_load(&n_fdatasync) + atomic_load(&n_fsync);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), 0);
	CU_ASSERT_EQUAL(atomic_load(&n_fdatasync) + atomic_load(&n_fsync),
			before);
	char *buf = malloc(NSTABLE * 8192);
	CU_ASSERT_EQUAL(pread(dcio_file_fd(c.f), buf, NSTABLE * 8192, 0),
			NSTABLE * 8192);
	for (int i = 0; i < NSTABLE; i++)
		CU_ASSERT_TRUE(
			tl_check(buf + i * 8192, 8192, (uint64_t)i * 8192, 4));
	free(buf);
	teardown(&c);
}

static void t_stable_pool(void)
{
	stable_writes(false, DCIO_FLUSH_COALESCED);
}
static void t_stable_real(void)
{
	stable_writes(true, DCIO_FLUSH_COALESCED);
}
static void t_stable_inline(void)
{
	stable_writes(true, DCIO_FLUSH_INLINE);
}

static const struct tl_case cases[] = {
	{ "16 concurrent COMMITs share one fdatasync", t_group_commit },
	{ "COMMIT with nothing dirty makes no syscall", t_nothing_dirty },
	{ "close flushes a dirty file", t_close_flushes },
	{ "stable writes wait for a later flush (pool)", t_stable_pool },
	{ "stable writes wait for a later flush (real pwritev2)",
	  t_stable_real },
	{ "stable writes, inline flush mode", t_stable_inline },
};

int main(void)
{
	return TL_RUN_SUITE("group commit", cases);
}
