// SPDX-License-Identifier: LGPL-3.0-or-later
/* Writes up to caller_write_max are issued on the caller's thread (buffered, or dontcache when the kernel defers the writeback kick, which AUTO probes on the export's filesystem with cachestat), larger ones go to engine threads; engine threads run at the configured nice value, and the caller's thread keeps its own nice and policy whatever it writes. */
#include <CUnit/Basic.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "dcio_testlib.h"
#include "io/core.h"
#include "io/flusher.h"
#include "io/kick.h"

static struct tl_fs fs;

struct seen {
	struct tl_wait w;
	pthread_t thread;
	int err;
};

static void seen_done(void *arg, int err, size_t bytes)
{
	struct seen *s = arg;

	s->thread = pthread_self();
	s->err = err;
	tl_done(&s->w, err, bytes);
}

static void setup_kick(struct tl_ctx *t, uint32_t caller_max, int nice,
		       enum dcio_kick kick)
{
	struct dcio_engine_params ep = { .threads = 2,
					 .nice = nice,
					 .kick = kick };
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);

	p.caller_write_max = caller_max;
	tl_ctx_open(t, &(struct tl_setup){ .fs = &fs,
					   .ep = &ep,
					   .p = &p,
					   .name = "f",
					   .flags = O_TRUNC });
}

static void setup(struct tl_ctx *t, uint32_t caller_max, int nice)
{
	setup_kick(t, caller_max, nice, DCIO_KICK_INLINE);
}

static void teardown(struct tl_ctx *t)
{
	CU_ASSERT_EQUAL(tl_ctx_close(t), 0);
}

/* Returns whether done ran on this thread before dcio_write returned. */
static bool write_here(struct tl_ctx *t, void *buf, size_t len, uint64_t off,
		       enum dcio_stable st)
{
	struct iovec iov = { buf, len };
	struct seen s = { .err = -1 };
	bool before;

	tl_wait_init(&s.w);
	CU_ASSERT_EQUAL_FATAL(
		dcio_write(t->f, &iov, 1, off, st, NULL, NULL, seen_done, &s),
		0);
	pthread_mutex_lock(&s.w.mu);
	before = s.w.n == 1;
	pthread_mutex_unlock(&s.w.mu);
	tl_wait_for(&s.w, 1);
	CU_ASSERT_EQUAL(s.err, 0);
	return before && pthread_equal(s.thread, pthread_self());
}

static void t_small_on_caller(void)
{
	static char buf[1 << 20], back[1 << 20];
	struct tl_ctx t;
	size_t got = 0;
	char *s;

	setup(&t, 65536, 0);
	tl_fill(buf, sizeof(buf), 0, 3);
	CU_ASSERT(write_here(&t, buf, 65536, 0, DCIO_UNSTABLE));
	CU_ASSERT(write_here(&t, buf + 65536, 4096, 65536, DCIO_UNSTABLE));
	/* larger: handed to an engine thread */
	CU_ASSERT_FALSE(
		write_here(&t, buf + 69632, 65537, 69632, DCIO_UNSTABLE));
	/* a stable small write still waits for its group commit */
	CU_ASSERT_FALSE(
		write_here(&t, buf + 135169, 4096, 135169, DCIO_FILE_SYNC));
	CU_ASSERT_EQUAL(dcio_commit(t.f, 0, 0), 0);
	CU_ASSERT_EQUAL(tl_read(t.f, back, 139265, 0, &got), 0);
	CU_ASSERT_EQUAL(got, 139265);
	CU_ASSERT(tl_check(back, 139265, 0, 3));
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.ops"), 3);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.bytes"),
			65536 + 4096 + 4096);
	CU_ASSERT_EQUAL(tl_json_num(s, "writes.dontcache.ops"), 4);
	/* the small ones went buffered, for the flusher to drop */
	CU_ASSERT_EQUAL(tl_json_num(s, "writes.dropbehind.issued_bytes"),
			65536 + 4096 + 4096);
	CU_ASSERT_EQUAL(tl_json_num(s, "writes.dontcache.issued_bytes"), 65537);
	free(s);
	teardown(&t);
}

/* Small writes issued buffered on the caller do not stay in the page cache:
 * the flusher writes them back and drops them. */
static void t_small_dropped(void)
{
	static char buf[1 << 20];
	struct tl_ctx t;
	double res = 1;

	setup(&t, 65536, 0);
	tl_fill(buf, sizeof(buf), 0, 8);
	for (int i = 0; i < 16; i++)
		CU_ASSERT(write_here(&t, buf + i * 65536, 65536,
				     (uint64_t)i * 65536, DCIO_UNSTABLE));
	CU_ASSERT_EQUAL(dcio_commit(t.f, 0, 0), 0);
	/* the flusher's interval (1 s by default), bounded */
	for (int i = 0;
	     i < 100 && (res = tl_resident(tl_path(&fs, "f"))) > 0.05; i++)
		usleep(50000);
	CU_ASSERT(res <= 0.05);
	teardown(&t);
}

static void t_zero_means_none(void)
{
	static char buf[4096];
	struct tl_ctx t;
	char *s;

	setup(&t, 0, 0);
	tl_fill(buf, sizeof(buf), 0, 4);
	CU_ASSERT_FALSE(write_here(&t, buf, sizeof(buf), 0, DCIO_UNSTABLE));
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.ops"), 0);
	free(s);
	teardown(&t);
}

/* nice of every thread of this process whose name starts with prefix; -100
 * if none, 100 if they differ */
static int threads_nice(const char *prefix)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int nice = -100;

	while (d && (de = readdir(d)) != NULL) {
		char path[300], comm[32] = "", stat[1024];
		FILE *fp;
		int n = -100;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 de->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		if (!fgets(comm, sizeof(comm), fp))
			comm[0] = '\0';
		fclose(fp);
		if (strncmp(comm, prefix, strlen(prefix)) != 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat",
			 de->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		if (fgets(stat, sizeof(stat), fp)) {
			char *p = strrchr(stat, ')');
			long v[17];

			/* after ")": state, then fields 4..19; nice is field 19 */
			if (p &&
			    sscanf(p + 2,
				   "%*c %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld",
				   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
				   &v[6], &v[7], &v[8], &v[9], &v[10], &v[11],
				   &v[12], &v[13], &v[14], &v[15]) == 16)
				n = (int)v[15];
		}
		fclose(fp);
		nice = (nice == -100 || nice == n) ? n : 100;
	}
	if (d)
		closedir(d);
	return nice;
}

/* the nice of the threads named prefix* once each has set it (up to 2 s):
 * a thread names itself after it starts, and sets its nice when it first
 * runs, so a thread that took no job may not have run yet */
static int nice_within(const char *prefix, int want)
{
	int n = threads_nice(prefix);

	for (int i = 0; i < 200 && n != want; i++) {
		usleep(10 * 1000);
		n = threads_nice(prefix);
	}
	return n;
}

static void t_engine_nice(void)
{
	static char buf[1 << 20];
	struct tl_ctx t;

	setup(&t, 0, 7);
	CU_ASSERT_FALSE(write_here(&t, buf, sizeof(buf), 0, DCIO_DATA_SYNC));
	CU_ASSERT_EQUAL(nice_within("dcio-pool", 7), 7);
	CU_ASSERT_EQUAL(nice_within("dcio-flush", 7), 7);
	teardown(&t);
}

/* COMMIT, the file's pages dropped within 5 s (<= 5% resident), and the
 * MiB at off reads back as written with seed */
/* the MiB at off reads back as tl_fill(seed) wrote it */
static void read_back(struct tl_ctx *t, uint64_t off, int seed)
{
	static char back[1 << 20];
	size_t got = 0;

	CU_ASSERT_EQUAL(tl_read(t->f, back, sizeof(back), off, &got), 0);
	CU_ASSERT_EQUAL(got, sizeof(back));
	CU_ASSERT(tl_check(back, sizeof(back), 0, seed));
}

static void committed_dropped(struct tl_ctx *t, uint64_t off, int seed)
{
	double res = 1;

	CU_ASSERT_EQUAL(dcio_commit(t->f, 0, 0), 0);
	for (int i = 0;
	     i < 100 && (res = tl_resident(tl_path(&fs, "f"))) > 0.05; i++)
		usleep(50000);
	CU_ASSERT(res <= 0.05);
	read_back(t, off, seed);
}

/* A kernel that defers RWF_DONTCACHE's writeback kick to its flusher (7.2+):
 * writes on the caller go dontcache, not buffered; the data is the same and
 * the pages are dropped by the kernel (or by the flusher where the kernel's
 * completion ran in IRQ context). */
static void t_kick_deferred(void)
{
	static char buf[1 << 20];
	struct tl_ctx t;
	char *s;

	setup_kick(&t, 1 << 20, 0, DCIO_KICK_DEFERRED);
	CU_ASSERT(dcio_export_kick_deferred(t.x, NULL, 0));
	tl_fill(buf, sizeof(buf), 0, 5);
	for (int i = 0; i < 4; i++)
		CU_ASSERT(write_here(&t, buf + i * 262144, 262144,
				     (uint64_t)i * 262144, DCIO_UNSTABLE));
	committed_dropped(&t, 0, 5);
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.ops"), 4);
	CU_ASSERT_EQUAL(tl_json_num(s, "writes.dontcache.issued_bytes"),
			1 << 20);
	CU_ASSERT_EQUAL(tl_json_num(s, "writes.dropbehind.issued_bytes"), 0);
	free(s);
	teardown(&t);
}

/* An export whose writes of up to 1 MiB run on the caller with the
 * kernel kicking in the syscall (6.14-7.1), kicks allowed up to us_per_mib.
 * mem: on a device the test makes slow or fast itself, a private tmpfs
 * (memory: no disk to wait for, whatever the programs beside the tests do
 * to this machine's disk) written through sys, whose pwritev2 passes the
 * engine's RWF_DONTCACHE on as a plain write (mem_pwritev2: tmpfs refuses
 * the flag; no probe tells the export so). */
static void open_kick_on(struct tl_ctx *t, const struct dcio_syscalls *sys,
			 uint32_t us_per_mib, uint32_t interval_ms, bool mem)
{
	struct dcio_engine_params ep = { .threads = 1,
					 .kick = DCIO_KICK_INLINE };
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);

	p.caller_write_max = 1 << 20;
	p.kick_us_per_mib = us_per_mib;
	if (interval_ms)
		p.flush_interval_ms = interval_ms;
	tl_ctx_open(t,
		    &(struct tl_setup){ .fs = mem ? NULL : &fs,
					.kind = mem ? TL_FS_TMPFS : TL_FS_EXT4,
					.tmpfs_mb = 64,
					.ep = &ep,
					.sys = sys,
					.p = &p,
					.no_dirfd = mem,
					.flags = O_TRUNC });
}

static void open_kick_every(struct tl_ctx *t, const struct dcio_syscalls *sys,
			    uint32_t us_per_mib, uint32_t interval_ms)
{
	open_kick_on(t, sys, us_per_mib, interval_ms, false);
}

static void open_kick(struct tl_ctx *t, const struct dcio_syscalls *sys,
		      uint32_t us_per_mib)
{
	open_kick_on(t, sys, us_per_mib, 0, false);
}

static void open_kick_mem(struct tl_ctx *t, const struct dcio_syscalls *sys,
			  uint32_t us_per_mib)
{
	open_kick_on(t, sys, us_per_mib, 0, true);
}

/* A kicked write on that device: as fast as memory */
static ssize_t mem_pwritev2(int fd, const struct iovec *iov, int cnt, off_t off,
			    int flags)
{
	return pwritev2(fd, iov, cnt, off, flags & ~RWF_DONTCACHE);
}

/* Writes 1 MiB WRITEs of buf at MiB from .. from + n - 1, each on the caller */
static void write_mibs(struct tl_ctx *t, char *buf, int from, int n)
{
	for (int i = from; i < from + n; i++)
		CU_ASSERT(write_here(t, buf, 1 << 20, (uint64_t)i << 20,
				     DCIO_UNSTABLE));
}

/* A device that keeps up: 1 MiB writes go RWF_DONTCACHE (the kernel
 * starts and ends their writeback and drops them), smaller ones buffered;
 * kick_us_per_mib 0 kicks none. */
static void t_kick_large(void)
{
	static char buf[1 << 20];
	struct tl_ctx t;
	char *s;

	open_kick(&t, NULL, 1000000);
	tl_fill(buf, sizeof(buf), 0, 9);
	CU_ASSERT(write_here(&t, buf, 1 << 20, 0, DCIO_UNSTABLE));
	CU_ASSERT(write_here(&t, buf, 65536, 1 << 20, DCIO_UNSTABLE));
	CU_ASSERT(write_here(&t, buf, 1 << 20, 2 << 20, DCIO_UNSTABLE));
	committed_dropped(&t, 2 << 20, 9);
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kicked"), 2);
	CU_ASSERT_EQUAL(tl_json_num(s, "writes.dontcache.issued_bytes"),
			2 << 20);
	CU_ASSERT_EQUAL(tl_json_num(s, "writes.dropbehind.issued_bytes"),
			65536);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kick_stops"), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"kicking\":true"));
	free(s);
	teardown(&t);

	open_kick(&t, NULL, 0);
	CU_ASSERT(write_here(&t, buf, 1 << 20, 0, DCIO_UNSTABLE));
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kicked"), 0);
	CU_ASSERT_EQUAL(tl_json_num(s, "writes.dropbehind.issued_bytes"),
			1 << 20);
	free(s);
	teardown(&t);
}

static atomic_bool device_slow;

/* A device that does not keep up while device_slow: a kicked write
 * (RWF_DONTCACHE, the kernel starting its writeback in the syscall) waits
 * 40 ms per MiB (open_kick_mem). */
static ssize_t slow_kick_pwritev2(int fd, const struct iovec *iov, int cnt,
				  off_t off, int flags)
{
	if ((flags & RWF_DONTCACHE) && atomic_load(&device_slow))
		usleep(40 * 1000);
	return mem_pwritev2(fd, iov, cnt, off, flags);
}

/* Writes 1 MiB WRITEs from MiB *at on until the kicks stop (at most 20):
 * how many of them were kicked */
static int write_until_stopped(struct tl_ctx *t, char *buf, int *at)
{
	int n = 0;

	for (int i = 0; i < 20; i++) {
		char *s = tl_stats(t->x);
		bool kicking = strstr(s, "\"kicking\":true") != NULL;

		free(s);
		if (!kicking)
			break;
		write_mibs(t, buf, (*at)++, 1);
		n++;
	}
	return n;
}

/* Kicked writes slower than kick_us_per_mib for DCIO_KICK_PERSIST_MS stop
 * the kicks: the next writes go buffered, for the flusher; once
 * DCIO_KICK_HOLD_MS passed with the flusher caught up, kicks are tried
 * again, with a fresh average; a retry that stops again at once holds them
 * off twice as long. */
static void t_kick_slow_device(void)
{
	static char buf[1 << 20];
	struct dcio_syscalls sys = { .pwritev2 = slow_kick_pwritev2 };
	/* each kicked write sleeps 40 ms: over the limit from the first,
	 * stopped by the one that ends DCIO_KICK_PERSIST_MS later */
	const int most = 2 + DCIO_KICK_PERSIST_MS / 40;
	struct tl_ctx t;
	int at = 0, n, kicked;
	char *s;

	atomic_store(&device_slow, true);
	open_kick_mem(&t, &sys, 8000);
	tl_fill(buf, sizeof(buf), 0, 4);
	n = write_until_stopped(&t, buf, &at);
	CU_ASSERT(n >= 3 && n <= most);
	write_mibs(&t, buf, at, 2);
	at += 2;
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kicked"), n);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kick_stops"), 1);
	CU_ASSERT(tl_json_num(s, "worker_writes.kick_us_per_mib") > 8000);
	CU_ASSERT_EQUAL(tl_json_num(s, "writes.dropbehind.issued_bytes"),
			2 << 20);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"kicking\":false"));
	free(s);
	/* the device recovers; within the hold nothing is kicked yet */
	atomic_store(&device_slow, false);
	write_mibs(&t, buf, at++, 1);
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kicked"), n);
	free(s);
	usleep((DCIO_KICK_HOLD_MS + 200) * 1000);
	write_mibs(&t, buf, at, 2);
	at += 2;
	kicked = n + 2;
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kicked"), kicked);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kick_resumes"), 1);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kick_stops"), 1);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kick_hold_ms"),
			DCIO_KICK_HOLD_MS);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"kicking\":true"));
	free(s);
	/* slow again right after the retry: the next hold is twice as long */
	atomic_store(&device_slow, true);
	n = write_until_stopped(&t, buf, &at);
	CU_ASSERT(n >= 3 && n <= most);
	kicked += n;
	atomic_store(&device_slow, false);
	usleep((DCIO_KICK_HOLD_MS + 200) * 1000);
	write_mibs(&t, buf, at++, 1);
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kick_stops"), 2);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kicked"), kicked);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kick_hold_ms"),
			2 * DCIO_KICK_HOLD_MS);
	free(s);
	usleep(DCIO_KICK_HOLD_MS * 1000);
	write_mibs(&t, buf, at++, 1);
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kicked"), kicked + 1);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kick_resumes"), 2);
	free(s);
	CU_ASSERT_EQUAL(dcio_commit(t.f, 0, 0), 0);
	for (int i = 0; i < at; i++)
		read_back(&t, (uint64_t)i << 20, 4);
	teardown(&t);
}

/* A stall every writer of a fast device sees at once (4 kicked writes
 * asleep 40 ms each against a limit of 16 ms per MiB: the average over it
 * from the second to two writes after the stall, ~85 ms) is no slow
 * device: the next fast writes bring the average back and nothing stops. */
static void t_kick_device_stall(void)
{
	static char buf[1 << 20];
	struct dcio_syscalls sys = { .pwritev2 = slow_kick_pwritev2 };
	struct tl_ctx t;
	char *s;

	open_kick_mem(&t, &sys, 16000);
	tl_fill(buf, sizeof(buf), 0, 3);
	atomic_store(&device_slow, true);
	write_mibs(&t, buf, 0, 4);
	atomic_store(&device_slow, false);
	s = tl_stats(t.x);
	CU_ASSERT(tl_json_num(s, "worker_writes.kick_us_per_mib") > 16000);
	free(s);
	write_mibs(&t, buf, 4, 11);
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kicked"), 15);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kick_stops"), 0);
	CU_ASSERT(tl_json_num(s, "worker_writes.kick_us_per_mib") < 16000);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"kicking\":true"));
	free(s);
	CU_ASSERT_EQUAL(dcio_commit(t.f, 0, 0), 0);
	read_back(&t, 14 << 20, 3);
	teardown(&t);
}

/* A kicked write slow on the CPU (running 40 ms: a copy under SCHED_IDLE
 * beside readers, or 64 writers on 2 CPUs) is no sign of a slow device:
 * only the time the syscall slept counts, and the kicks go on. */
static ssize_t busy_kick_pwritev2(int fd, const struct iovec *iov, int cnt,
				  off_t off, int flags)
{
	if (flags & RWF_DONTCACHE) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		do
			clock_gettime(CLOCK_MONOTONIC, &b);
		while ((b.tv_sec - a.tv_sec) * 1000000000L +
			       (b.tv_nsec - a.tv_nsec) <
		       40000000L);
	}
	return mem_pwritev2(fd, iov, cnt, off, flags);
}

static void t_kick_busy_cpu(void)
{
	static char buf[1 << 20];
	struct dcio_syscalls sys = { .pwritev2 = busy_kick_pwritev2 };
	struct tl_ctx t;
	char *s;

	open_kick_mem(&t, &sys, 8000);
	tl_fill(buf, sizeof(buf), 0, 6);
	write_mibs(&t, buf, 0, 4);
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kicked"), 4);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kick_stops"), 0);
	CU_ASSERT(tl_json_num(s, "worker_writes.kick_us_per_mib") < 8000);
	free(s);
	teardown(&t);
}

/* Kicked ranges make no file due at flush_file_bytes (1 MiB here; the
 * kernel drops their pages itself): a pass takes them at
 * DCIO_KICKED_SHARE x the export's threshold (4 x 8 MiB) or interval (a
 * minute here), and drops what is left. */
static void t_kick_export_threshold(void)
{
	static char buf[1 << 20];
	const int share = DCIO_KICKED_SHARE * 8;
	struct tl_ctx t;

	open_kick_every(&t, NULL, 1000000, 60000);
	tl_fill(buf, sizeof(buf), 0, 2);
	write_mibs(&t, buf, 0, share - 1);
	CU_ASSERT_EQUAL(tl_stat(t.x, "worker_writes.kicked"), share - 1);
	CU_ASSERT_EQUAL(tl_stat(t.x, "flusher.passes"), 0);
	CU_ASSERT_EQUAL(tl_stat(t.x, "flusher.held_bytes"),
			(double)(share - 1) * (1 << 20));
	write_mibs(&t, buf, share - 1, 1);
	CU_ASSERT_EQUAL(
		tl_wait_stat(t.x, "flusher.held_bytes", TL_AT_MOST, 0, 5000),
		0);
	CU_ASSERT(tl_stat(t.x, "flusher.passes") >= 1);
	committed_dropped(&t, (uint64_t)(share - 1) << 20, 2);
	teardown(&t);
}

/* fds this process has open (not counting the directory read here) */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n - 1;
}

struct kick_thread_arg {
	struct tl_ctx *t;
	char *buf;
	int fds; /* open_fds() after its writes */
};

static void *kick_thread(void *p)
{
	struct kick_thread_arg *a = p;

	write_mibs(a->t, a->buf, 0, 3);
	a->fds = open_fds();
	return NULL;
}

/* A thread's kicked writes are timed without any state kept on it (the
 * thread is ganesha's): no fd is open while it lives, nor after. */
static void t_kick_thread_fd(void)
{
	static char buf[1 << 20];
	struct tl_ctx t;
	struct kick_thread_arg a = { .t = &t, .buf = buf };
	pthread_t th;
	int before;
	char *s;

	open_kick(&t, NULL, 1000000);
	tl_fill(buf, sizeof(buf), 0, 5);
	before = open_fds();
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, kick_thread, &a), 0);
	CU_ASSERT_EQUAL(pthread_join(th, NULL), 0);
	CU_ASSERT_EQUAL(a.fds, before);
	CU_ASSERT_EQUAL(open_fds(), before);
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kicked"), 3);
	CU_ASSERT(tl_json_num(s, "worker_writes.kick_us_per_mib") < 1000000);
	free(s);
	committed_dropped(&t, 2 << 20, 5);
	teardown(&t);
}

/* A kicked write that fails answers its own errno (ENOSPC here, the kick
 * timing around the syscall keeps errno), a refusal loses nothing (its
 * client saw it fail), and the data of the one kicked before it stays
 * readable. */
static ssize_t full_kick_pwritev2(int fd, const struct iovec *iov, int cnt,
				  off_t off, int flags)
{
	if ((flags & RWF_DONTCACHE) && off >= (1 << 20)) {
		errno = ENOSPC;
		return -1;
	}
	return pwritev2(fd, iov, cnt, off, flags);
}

static void t_kick_enospc(void)
{
	static char buf[1 << 20], back[1 << 20];
	struct dcio_syscalls sys = { .pwritev2 = full_kick_pwritev2 };
	struct iovec iov = { buf, sizeof(buf) };
	struct seen w = { .err = -1 };
	struct tl_ctx t;
	size_t got = 0;
	char *s;

	open_kick(&t, &sys, 1000000);
	tl_fill(buf, sizeof(buf), 0, 8);
	CU_ASSERT(write_here(&t, buf, 1 << 20, 0, DCIO_UNSTABLE));
	tl_wait_init(&w.w);
	CU_ASSERT_EQUAL_FATAL(dcio_write(t.f, &iov, 1, 1 << 20, DCIO_UNSTABLE,
					 NULL, NULL, seen_done, &w),
			      0);
	tl_wait_for(&w.w, 1);
	CU_ASSERT_EQUAL(w.err, ENOSPC);
	CU_ASSERT_EQUAL(dcio_commit(t.f, 0, 1 << 20), 0);
	CU_ASSERT_EQUAL(dcio_commit(t.f, 1 << 20, 1 << 20), 0);
	CU_ASSERT_EQUAL(tl_read(t.f, back, sizeof(back), 0, &got), 0);
	CU_ASSERT_EQUAL(got, sizeof(back));
	CU_ASSERT(tl_check(back, sizeof(back), 0, 8));
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kicked"), 2);
	free(s);
	CU_ASSERT_EQUAL(dcio_commit(t.f, 0, 0), 0);
	CU_ASSERT_EQUAL(tl_json_num(s = tl_stats(t.x), "errors.ENOSPC"), 1);
	free(s);
	/* nothing to report at close */
	CU_ASSERT_EQUAL(tl_ctx_close(&t), 0);
}

/* Dontcache_Kick AUTO asks the export's filesystem: the probe's
 * RWF_DONTCACHE write, then cachestat of its pages through the seam. Left
 * dirty (a kernel deferring the kick to its flusher) = deferred; under
 * writeback or already dropped (kicked in the syscall) = inline; cachestat
 * refused (before Linux 6.5) = inline, what every kernel before 7.2 does.
 * No dirfd, or an engine setting other than AUTO: no probe. */
static struct dcio_cachestat probe_cs;
static int probe_cs_err;
static atomic_int probe_calls;
static uint64_t probe_len;

static int fake_cachestat(int fd, uint64_t off, uint64_t len,
			  struct dcio_cachestat *cs)
{
	(void)fd;
	(void)off;
	atomic_fetch_add(&probe_calls, 1);
	probe_len = len;
	if (probe_cs_err) {
		errno = probe_cs_err;
		return -1;
	}
	*cs = probe_cs;
	return 0;
}

/* an AUTO engine with the fake cachestat answering cs (or failing err);
 * whether its export took the kick as deferred, why in why */
static bool auto_decides(struct dcio_cachestat cs, int err, bool dirfd,
			 enum dcio_kick kick, char *why, size_t whylen)
{
	struct dcio_syscalls sys = { .cachestat = fake_cachestat };
	struct dcio_engine_params ep = { .threads = 1, .kick = kick };
	struct tl_ctx t;
	bool d;

	probe_cs = cs;
	probe_cs_err = err;
	atomic_store(&probe_calls, 0);
	tl_ctx_open(&t, &(struct tl_setup){ .fs = &fs,
					    .ep = &ep,
					    .sys = &sys,
					    .name = "auto",
					    .no_dirfd = !dirfd,
					    .flags = O_TRUNC });
	d = dcio_export_kick_deferred(t.x, why, whylen);
	teardown(&t);
	return d;
}

static void t_kick_auto(void)
{
	const uint64_t pages = (4u << 20) / (uint64_t)sysconf(_SC_PAGESIZE);
	char why[256];

	/* every page dirty: deferred */
	CU_ASSERT(auto_decides((struct dcio_cachestat){ pages, pages, 0 }, 0,
			       true, DCIO_KICK_AUTO, why, sizeof(why)));
	CU_ASSERT_EQUAL(atomic_load(&probe_calls), 1);
	CU_ASSERT_EQUAL(probe_len, 4u << 20);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "defers"));
	/* most of them dirty still is */
	CU_ASSERT(auto_decides(
		(struct dcio_cachestat){ pages, pages / 2 + 1, pages / 2 - 1 },
		0, true, DCIO_KICK_AUTO, why, sizeof(why)));
	/* under writeback: inline */
	CU_ASSERT_FALSE(auto_decides((struct dcio_cachestat){ pages, 0, pages },
				     0, true, DCIO_KICK_AUTO, why,
				     sizeof(why)));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "kicks writeback in the syscall"));
	/* half dirty, half written back: inline */
	CU_ASSERT_FALSE(auto_decides(
		(struct dcio_cachestat){ pages, pages / 2, pages / 2 }, 0, true,
		DCIO_KICK_AUTO, why, sizeof(why)));
	/* written and dropped already: inline */
	CU_ASSERT_FALSE(auto_decides((struct dcio_cachestat){ 0, 0, 0 }, 0,
				     true, DCIO_KICK_AUTO, why, sizeof(why)));
	/* no cachestat (Linux < 6.5): inline, and said */
	CU_ASSERT_FALSE(auto_decides((struct dcio_cachestat){ pages, pages, 0 },
				     ENOSYS, true, DCIO_KICK_AUTO, why,
				     sizeof(why)));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "cachestat"));
	/* no directory to probe: inline, nothing asked */
	CU_ASSERT_FALSE(auto_decides((struct dcio_cachestat){ pages, pages, 0 },
				     0, false, DCIO_KICK_AUTO, why,
				     sizeof(why)));
	CU_ASSERT_EQUAL(atomic_load(&probe_calls), 0);
	/* set explicitly: no probe either way */
	CU_ASSERT(auto_decides((struct dcio_cachestat){ 0, 0, pages }, 0, true,
			       DCIO_KICK_DEFERRED, why, sizeof(why)));
	CU_ASSERT_FALSE(auto_decides((struct dcio_cachestat){ pages, pages, 0 },
				     0, true, DCIO_KICK_INLINE, why,
				     sizeof(why)));
	CU_ASSERT_EQUAL(atomic_load(&probe_calls), 0);
}

/* The real cachestat on this machine's kernel: the probe gets its figures
 * (no "failed"/"skipped"), and an export decided deferred writes its large
 * caller writes dontcache, one decided inline kicks them (kick_ops). */
static void t_kick_auto_real(void)
{
	static char buf[1 << 20];
	struct dcio_engine_params ep = { .threads = 1, .kick = DCIO_KICK_AUTO };
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);
	struct tl_ctx t;
	char why[256], *s;
	bool d;

	p.caller_write_max = 1 << 20;
	p.kick_us_per_mib = 1000000;
	tl_ctx_open(&t, &(struct tl_setup){ .fs = &fs,
					    .ep = &ep,
					    .p = &p,
					    .name = "real",
					    .flags = O_TRUNC });
	d = dcio_export_kick_deferred(t.x, why, sizeof(why));
	fprintf(stderr, "\n  AUTO on this kernel: %s\n", why);
	CU_ASSERT_EQUAL(strncmp(why, "probed: ", 8), 0);
	tl_fill(buf, sizeof(buf), 0, 8);
	CU_ASSERT(write_here(&t, buf, sizeof(buf), 0, DCIO_UNSTABLE));
	s = tl_stats(t.x);
	CU_ASSERT_EQUAL(tl_json_num(s, "worker_writes.kicked"), d ? 0 : 1);
	free(s);
	teardown(&t);
}

/* A large write beside a reader leaves the caller's thread (ganesha's) at
 * its own nice value and scheduling policy, during the copy and after:
 * the engine renices only threads it created, and hands such a copy to
 * them while reads are served (readers first under CPU contention). */
static _Atomic int seen_nice = -100;
static _Atomic int seen_policy = -1;

static ssize_t nice_pwritev2(int fd, const struct iovec *iov, int cnt,
			     off_t off, int flags)
{
	errno = 0;
	int n = getpriority(PRIO_PROCESS, 0);

	atomic_store(&seen_nice, errno ? -100 : n);
	atomic_store(&seen_policy, sched_getscheduler(0));
	return pwritev2(fd, iov, cnt, off, flags);
}

/* A client reading beside the writer: a read every 10 ms on its own
 * thread (RWF_NOWAIT: none waits for the disk). */
struct side_reader {
	struct dcio_file *f;
	atomic_bool stop;
	atomic_int reads;
	pthread_t thread;
};

static void *side_read(void *arg)
{
	struct side_reader *r = arg;
	char b[4096];
	struct iovec v = { b, sizeof(b) };
	size_t got;

	while (!atomic_load(&r->stop)) {
		int rc = dcio_read_nowait(r->f, &v, 1, 0, &got);

		if (rc == 0 || rc == EAGAIN)
			atomic_fetch_add(&r->reads, 1);
		usleep(10 * 1000);
	}
	return NULL;
}

static bool side_reader_start(struct side_reader *r, struct dcio_file *f)
{
	r->f = f;
	atomic_init(&r->stop, false);
	atomic_init(&r->reads, 0);
	if (pthread_create(&r->thread, NULL, side_read, r) != 0)
		return false;
	for (int i = 0; i < 500 && atomic_load(&r->reads) == 0; i++)
		usleep(10 * 1000);
	return atomic_load(&r->reads) > 0;
}

static void side_reader_stop(struct side_reader *r)
{
	atomic_store(&r->stop, true);
	pthread_join(r->thread, NULL);
}

static void t_caller_thread_untouched(void)
{
	static char buf[1 << 20];
	struct dcio_syscalls sys = { .pwritev2 = nice_pwritev2 };
	struct dcio_engine_params ep = { .threads = 1,
					 .nice = 7,
					 .kick = DCIO_KICK_INLINE };
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);
	struct side_reader r;
	struct tl_ctx t;
	int before, policy = sched_getscheduler(0);

	p.caller_write_max = 1 << 20;
	tl_ctx_open(&t, &(struct tl_setup){ .fs = &fs,
					    .ep = &ep,
					    .sys = &sys,
					    .p = &p,
					    .name = "n",
					    .flags = O_TRUNC });
	errno = 0;
	before = getpriority(PRIO_PROCESS, 0);
	CU_ASSERT_EQUAL_FATAL(errno, 0);
	/* the engine's own: reniced */
	CU_ASSERT_EQUAL(nice_within("dcio-pool", 7), 7);
	/* no read yet: copied on the caller, at its own nice */
	CU_ASSERT(write_here(&t, buf, sizeof(buf), 0, DCIO_UNSTABLE));
	CU_ASSERT_EQUAL(atomic_load(&seen_nice), before);
	CU_ASSERT_FATAL(side_reader_start(&r, t.f));
	for (int i = 0; i < 3; i++) {
		/* beside reads: handed to the engine's niced threads */
		CU_ASSERT_FALSE(
			write_here(&t, buf, sizeof(buf), 0, DCIO_UNSTABLE));
		CU_ASSERT_EQUAL(atomic_load(&seen_nice), 7);
		CU_ASSERT_EQUAL(getpriority(PRIO_PROCESS, 0), before);
		CU_ASSERT_EQUAL(sched_getscheduler(0), policy);
	}
	/* a small write stays on the caller, at its own nice */
	CU_ASSERT(write_here(&t, buf, 4096, 1 << 20, DCIO_UNSTABLE));
	CU_ASSERT_EQUAL(atomic_load(&seen_nice), before);
	CU_ASSERT_EQUAL(atomic_load(&seen_policy), policy);
	/* beside reads the flusher threads yield to them too (each pass,
	 * at least once a second) */
	CU_ASSERT_EQUAL(nice_within("dcio-flush", DCIO_READERS_NICE),
			DCIO_READERS_NICE);
	side_reader_stop(&r);
	usleep((DCIO_PACE_READ_WINDOW_MS + 100) * 1000);
	/* and go back to Engine_Nice once the reads stop */
	CU_ASSERT_EQUAL(nice_within("dcio-flush", 7), 7);
	/* the readers gone: on the caller again */
	CU_ASSERT(write_here(&t, buf, sizeof(buf), 0, DCIO_UNSTABLE));
	CU_ASSERT_EQUAL(atomic_load(&seen_nice), before);
	CU_ASSERT_EQUAL(getpriority(PRIO_PROCESS, 0), before);
	CU_ASSERT_EQUAL(sched_getscheduler(0), policy);
	teardown(&t);
}

static const struct tl_case cases[] = {
	{ "large writes beside a reader go to the engine's threads, the caller's nice and policy kept",
	  t_caller_thread_untouched },
	{ "kernel deferring the kick: caller writes go dontcache",
	  t_kick_deferred },
	{ "kick AUTO: the probe's cachestat decides", t_kick_auto },
	{ "kick AUTO on this kernel: probed, and followed", t_kick_auto_real },
	{ "kernel kicking: 1 MiB writes kicked, smaller ones buffered",
	  t_kick_large },
	{ "kicked writes slower than kick_us_per_mib stop, then resume",
	  t_kick_slow_device },
	{ "a stall every kicked writer sees at once stops nothing",
	  t_kick_device_stall },
	{ "kicked writes slow on the CPU, not asleep, go on kicking",
	  t_kick_busy_cpu },
	{ "kicked ranges wait for the export's threshold, not the file's",
	  t_kick_export_threshold },
	{ "a thread's kicked writes keep no fd on it", t_kick_thread_fd },
	{ "a kicked write refused ENOSPC answers it, loses nothing",
	  t_kick_enospc },
	{ "small writes issued on the caller", t_small_on_caller },
	{ "caller_write_max 0: every write to the engine", t_zero_means_none },
	{ "small writes on the caller are dropped behind", t_small_dropped },
	{ "engine threads run at the given nice", t_engine_nice },
};

int main(void)
{
	int rc;

	tl_require(0);
	if (tl_fs_ext4(&fs) != 0)
		return 2;
	rc = TL_RUN_SUITE("worker writes", cases);
	tl_fs_cleanup(&fs);
	return rc;
}
