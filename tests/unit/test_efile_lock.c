// SPDX-License-Identifier: LGPL-3.0-or-later
/* The lock discipline of an engine file (FSAL_DONTCACHE/efile.c, issue 17
 * item 3), without ganesha: the lock built as efile.c builds it
 * (efile_lock.h), taken for reading across dcio_write as dc_efile_io and
 * submit do (the engine's admission waits there for in-flight room), and
 * for writing around dcio_file_close_clean as dc_efile_close_if_clean does.
 * 16 writers keep one file's in-flight bound (1 MiB, wait 60 s) full with
 * 256 KiB WRITEs through a slow pwritev2; a close started among them must
 * get the lock and finish within a bound while they go on (before the fix,
 * with glibc's reader-preferring default, it waited until they stopped). */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dcio_testlib.h"
#include "efile_lock.h"

#define WRITERS 16
#define WLEN (256 << 10)
#define RUN_MS 8000 /* the writers stop by then whatever happens */
#define BOUND_MS 2000 /* the close gets the lock within this */

static pthread_rwlock_t io_lock;
static struct dcio_file *io; /* NULL once closed (io_lock) */
static atomic_int stop;
static atomic_long submitted;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static ssize_t slow_pwritev2(int fd, const struct iovec *iov, int cnt,
			     off_t off, int flags)
{
	usleep(2000);
	return pwritev2(fd, iov, cnt, off, flags);
}

struct writer {
	int id;
	struct tl_wait w;
	int sent, refused;
	char *buf;
};

static void *writer(void *arg)
{
	struct writer *t = arg;
	uint64_t end = now_ms() + RUN_MS;

	tl_wait_init(&t->w);
	t->buf = malloc(WLEN);
	memset(t->buf, 'a' + t->id, WLEN);
	for (int k = 0; !atomic_load(&stop) && now_ms() < end; k++) {
		struct iovec iov = { t->buf, WLEN };
		int rc;

		pthread_rwlock_rdlock(&io_lock);
		if (io == NULL) { /* closed: the module would reopen it */
			pthread_rwlock_unlock(&io_lock);
			break;
		}
		rc = dcio_write(io, &iov, 1,
				(uint64_t)(t->id * 4 + k % 4) * WLEN,
				DCIO_UNSTABLE, NULL, NULL, tl_done, &t->w);
		pthread_rwlock_unlock(&io_lock);
		if (rc == 0) {
			t->sent++;
			atomic_fetch_add(&submitted, 1);
		} else {
			t->refused++;
		}
	}
	tl_wait_for(&t->w, t->sent);
	return NULL;
}

static void t_close_among_writers(void)
{
	struct dcio_syscalls sys = { .pwritev2 = slow_pwritev2 };
	struct dcio_engine_params ep = { .threads = 4 };
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);
	pthread_rwlockattr_t attr;
	struct writer t[WRITERS];
	pthread_t tid[WRITERS];
	struct tl_ctx c;
	uint64_t t0, waited, took;
	bool closed;
	int err = 0;
	long before;

	p.max_inflight_bytes = 1 << 20;
	p.inflight_wait_ms = 60000;
	tl_ctx_open(&c, &(struct tl_setup){ .ep = &ep,
					    .sys = &sys,
					    .p = &p,
					    .name = "efile_lock",
					    .flags = O_TRUNC });
	dc_io_lock_attr(&attr);
	CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&io_lock, &attr), 0);
	pthread_rwlockattr_destroy(&attr);
	io = c.f;
	atomic_store(&stop, 0);
	for (int i = 0; i < WRITERS; i++) {
		t[i] = (struct writer){ .id = i };
		pthread_create(&tid[i], NULL, writer, &t[i]);
	}
	usleep(500000); /* the bound is full, writers wait for room */
	before = atomic_load(&submitted);
	t0 = now_ms();
	pthread_rwlock_wrlock(&io_lock);
	waited = now_ms() - t0;
	closed = dcio_file_close_clean(io, &err);
	if (closed)
		io = NULL;
	pthread_rwlock_unlock(&io_lock);
	took = now_ms() - t0;
	fprintf(stderr,
		"close: lock after %llu ms, closed after %llu ms (%ld writes "
		"before it, %ld by then)\n",
		(unsigned long long)waited, (unsigned long long)took, before,
		atomic_load(&submitted));
	CU_ASSERT_TRUE(before > 0);
	CU_ASSERT_TRUE(waited < BOUND_MS);
	CU_ASSERT_TRUE(took < BOUND_MS + 1000);
	CU_ASSERT_TRUE(closed);
	CU_ASSERT_EQUAL(err, 0);
	atomic_store(&stop, 1);
	for (int i = 0; i < WRITERS; i++) {
		pthread_join(tid[i], NULL);
		CU_ASSERT_EQUAL(t[i].refused, 0);
		CU_ASSERT_EQUAL(t[i].w.errs, 0);
		free(t[i].buf);
	}
	if (!closed)
		dcio_file_close(io);
	c.f = NULL;
	pthread_rwlock_destroy(&io_lock);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

static const struct tl_case cases[] = {
	{ "a close among busy writers gets the lock within a bound",
	  t_close_among_writers },
};

int main(void)
{
	return TL_RUN_SUITE("engine file lock", cases);
}
