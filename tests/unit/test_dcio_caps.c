// SPDX-License-Identifier: LGPL-3.0-or-later
/* No write's syscall runs with CAP_SYS_RESOURCE (quota hard limits and
 * ext4's root reserve are skipped for a writer holding it; issue 42).
 * Ganesha drops it on its main thread only (lower_my_caps, capset being
 * per thread), after the exports were read, when the engine's threads
 * exist already. Modelled here: each engine is made on a thread that keeps
 * every capability ("ganesha-main", as before lower_my_caps); this test's
 * main thread then takes CAP_SYS_RESOURCE out of its own effective,
 * permitted and inheritable sets, as ganesha does, and issues the writes as
 * ganesha's workers would. The table's syscalls read the capability set of
 * the thread inside each data-changing call (capget): none holds
 * CAP_SYS_RESOURCE effective, no engine thread ("dcio-*") holds it
 * permitted, and a call as a caller other than root has an empty effective
 * set (as after ganesha's own switch). With the real syscalls the write
 * itself is the probe: a pool thread's write to /proc/self/oom_score_adj
 * below the process's minimum, which the kernel grants only to a writer
 * with CAP_SYS_RESOURCE (EACCES else).
 * Where no thread has CAP_SYS_RESOURCE (a root without it in its bounding
 * set, as the build host's) the CAP_SYS_RESOURCE checks cannot fail and
 * the program says so; tests/ha/guest_caps.sh runs it in a guest whose root
 * has every capability. Needs root. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dcio_testlib.h"

#define RES_BIT (1u << (CAP_SYS_RESOURCE % 32))
#define RES_WORD (CAP_SYS_RESOURCE / 32)

struct capset3 {
	uint32_t eff[2], prm[2], inh[2];
};

static int cap_read(struct capset3 *c)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		c->eff[i] = d[i].effective;
		c->prm[i] = d[i].permitted;
		c->inh[i] = d[i].inheritable;
	}
	return 0;
}

/* lower_my_caps of ganesha 4.3 (nfs_init.c), on this thread only */
static int strip_resource(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return -1;
	d[RES_WORD].effective &= ~RES_BIT;
	d[RES_WORD].permitted &= ~RES_BIT;
	d[RES_WORD].inheritable &= ~RES_BIT;
	return (int)syscall(SYS_capset, &h, d);
}

/* ---- what each data-changing call saw */
#define MAX_SEEN 4096
struct seen {
	const char *call;
	char thread[16];
	long fsuid;
	struct capset3 caps;
};
static pthread_mutex_t seen_mu = PTHREAD_MUTEX_INITIALIZER;
static struct seen seen[MAX_SEEN];
static int nseen, bad;
static char first_bad[512];

static void look(const char *call)
{
	struct seen s = { .call = call };

	pthread_getname_np(pthread_self(), s.thread, sizeof(s.thread));
	s.fsuid = syscall(SYS_setfsuid, -1); /* fails; returns the current */
	int rc = cap_read(&s.caps);
	bool engine = strncmp(s.thread, "dcio-", 5) == 0;
	const char *why = NULL;

	if (rc != 0)
		why = "capget failed";
	else if (s.caps.eff[RES_WORD] & RES_BIT)
		why = "CAP_SYS_RESOURCE effective";
	else if (engine && (s.caps.prm[RES_WORD] & RES_BIT))
		why = "CAP_SYS_RESOURCE permitted on an engine thread";
	else if (s.fsuid != 0 && (s.caps.eff[0] | s.caps.eff[1]))
		why = "capabilities effective for a caller other than root";
	pthread_mutex_lock(&seen_mu);
	if (nseen < MAX_SEEN)
		seen[nseen++] = s;
	if (why && bad++ == 0)
		snprintf(
			first_bad, sizeof(first_bad),
			"%s on thread %s, fsuid %ld: %s (effective %08x%08x permitted %08x%08x)",
			call, s.thread, s.fsuid, why, s.caps.eff[1],
			s.caps.eff[0], s.caps.prm[1], s.caps.prm[0]);
	pthread_mutex_unlock(&seen_mu);
}

static void seen_reset(void)
{
	pthread_mutex_lock(&seen_mu);
	nseen = 0;
	bad = 0;
	first_bad[0] = 0;
	pthread_mutex_unlock(&seen_mu);
}

/* calls named call on a thread whose name starts with prefix, as fsuid
 * (-1: any) */
static int count_seen(const char *call, const char *prefix, long fsuid)
{
	int n = 0;

	pthread_mutex_lock(&seen_mu);
	for (int i = 0; i < nseen; i++)
		if (strcmp(seen[i].call, call) == 0 &&
		    strncmp(seen[i].thread, prefix, strlen(prefix)) == 0 &&
		    (fsuid < 0 || seen[i].fsuid == fsuid))
			n++;
	pthread_mutex_unlock(&seen_mu);
	return n;
}

static void check_clean(const char *what)
{
	pthread_mutex_lock(&seen_mu);
	if (bad)
		fprintf(stderr, "  %s: %d calls with capabilities: first: %s\n",
			what, bad, first_bad);
	CU_ASSERT_EQUAL(bad, 0);
	pthread_mutex_unlock(&seen_mu);
}

static ssize_t rec_pwritev2(int fd, const struct iovec *iov, int cnt, off_t off,
			    int flags)
{
	look("pwritev2");
	return pwritev2(fd, iov, cnt, off, flags);
}
static int rec_fdatasync(int fd)
{
	look("fdatasync");
	return fdatasync(fd);
}
static int rec_fsync(int fd)
{
	look("fsync");
	return fsync(fd);
}
static int rec_sync_file_range(int fd, off_t off, off_t len, unsigned flags)
{
	look("sync_file_range");
	return sync_file_range(fd, off, len, flags);
}
static int rec_fadvise(int fd, off_t off, off_t len, int advice)
{
	int rc;

	look("posix_fadvise");
	rc = posix_fadvise(fd, off, len, advice);
	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}
static int rec_ftruncate(int fd, off_t len)
{
	look("ftruncate");
	return ftruncate(fd, len);
}
static int rec_fallocate(int fd, int mode, off_t off, off_t len)
{
	look("fallocate");
	return fallocate(fd, mode, off, len);
}

static const struct dcio_syscalls rec_sys = {
	.pwritev2 = rec_pwritev2,
	.fdatasync = rec_fdatasync,
	.fsync = rec_fsync,
	.sync_file_range = rec_sync_file_range,
	.posix_fadvise = rec_fadvise,
	.ftruncate = rec_ftruncate,
	.fallocate = rec_fallocate,
};

/* ---- "ganesha-main": a thread that keeps every capability */
static pthread_mutex_t boot_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t boot_cv = PTHREAD_COND_INITIALIZER;
static void (*boot_fn)(void *);
static void *boot_arg;
static bool boot_quit;

static void *boot_main(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&boot_mu);
	for (;;) {
		while (!boot_fn && !boot_quit)
			pthread_cond_wait(&boot_cv, &boot_mu);
		if (!boot_fn)
			break;
		pthread_mutex_unlock(&boot_mu);
		boot_fn(boot_arg);
		pthread_mutex_lock(&boot_mu);
		boot_fn = NULL;
		pthread_cond_broadcast(&boot_cv);
	}
	pthread_mutex_unlock(&boot_mu);
	return NULL;
}

static void on_boot(void (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&boot_mu);
	boot_fn = fn;
	boot_arg = arg;
	pthread_cond_broadcast(&boot_cv);
	while (boot_fn)
		pthread_cond_wait(&boot_cv, &boot_mu);
	pthread_mutex_unlock(&boot_mu);
}

/* ---- an engine made on ganesha-main, used from this thread */
struct rig {
	struct dcio_engine_params ep;
	struct dcio_export_params p;
	const struct dcio_syscalls *sys;
	const char *path; /* NULL: a file on a fresh ext4 directory */
	struct tl_fs fs;
	int dfd;
	struct dcio_engine *e;
	struct dcio_export *x;
	struct dcio_file *f;
	int rc;
};

static void rig_make(void *arg)
{
	struct rig *r = arg;
	int fd;

	r->dfd = -1;
	r->rc = dcio_engine_create(&r->ep, r->sys, &r->e);
	if (r->rc)
		return;
	if (!r->path) {
		r->rc = tl_fs_ext4(&r->fs);
		if (r->rc)
			return;
		r->dfd = open(r->fs.dir, O_RDONLY | O_DIRECTORY);
	}
	r->rc = dcio_export_create(r->e, &r->p, "caps", r->dfd, &r->x);
	if (r->rc)
		return;
	fd = r->path ? open(r->path, O_RDWR | O_CLOEXEC)
		     : tl_open(&r->fs, "f", O_TRUNC);
	if (fd < 0) {
		r->rc = errno;
		return;
	}
	r->rc = dcio_file_open(r->x, fd, &r->f);
}

static bool rig_open(struct rig *r)
{
	on_boot(rig_make, r);
	CU_ASSERT_EQUAL(r->rc, 0);
	return r->rc == 0;
}

static void rig_close(struct rig *r)
{
	if (r->f)
		(void)dcio_file_close(r->f);
	if (r->x)
		dcio_export_destroy(r->x);
	if (r->e)
		dcio_engine_destroy(r->e);
	if (r->dfd >= 0)
		close(r->dfd);
	if (!r->path)
		tl_fs_cleanup(&r->fs);
}

static const gid_t groups[] = { 1002, 1003 };
static const struct dcio_cred user = {
	.uid = 1000, .gid = 1001, .ngroups = 2, .groups = groups
};
static const struct dcio_cred root = { .uid = 0, .gid = 0 };

static int write3(struct dcio_file *f, const void *buf, size_t len,
		  uint64_t off, enum dcio_stable st, const struct dcio_cred *c)
{
	struct tl_wait w;
	struct iovec iov = { (void *)buf, len };

	tl_wait_init(&w);
	int rc = dcio_write(f, &iov, 1, off, st, c, NULL, tl_done, &w);
	if (rc)
		return rc;
	tl_wait_for(&w, 1);
	return w.last_err;
}

static char buf[4 << 20];

/* The same writes on one rig: UNSTABLE as uid 1000 and as root, a stable
 * write (the pool's group flush), a COMMIT, then time for the flusher. */
static void writes(struct rig *r, size_t len, uint64_t off)
{
	tl_fill(buf, len, off, 5);
	CU_ASSERT_EQUAL(write3(r->f, buf, len, off, DCIO_UNSTABLE, &user), 0);
	CU_ASSERT_EQUAL(write3(r->f, buf, len, off + len, DCIO_UNSTABLE, &root),
			0);
	CU_ASSERT_EQUAL(
		write3(r->f, buf, len, off + 2 * len, DCIO_FILE_SYNC, &user),
		0);
	CU_ASSERT_EQUAL(dcio_commit(r->f, 0, 0), 0);
	usleep(200 * 1000); /* flush_interval_ms is 100: the flusher's turn */
}

/* up to ms for a call of the kind (a loaded machine delays the flusher) */
static int wait_seen(const char *call, const char *prefix, int ms)
{
	int n;

	while ((n = count_seen(call, prefix, -1)) == 0 && ms > 0) {
		usleep(10 * 1000);
		ms -= 10;
	}
	return n;
}

static struct rig table_rig(enum dcio_write_mode wm, uint32_t caller_max)
{
	struct rig r = { .ep = { .threads = 2 }, .sys = &rec_sys };

	r.p = tl_params(wm, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);
	r.p.caller_write_max = caller_max;
	return r;
}

/* Worker_Write_Max = 0: every write on the pool; the flusher and the
 * group flushes beside it. */
static void t_pool(void)
{
	struct rig r = table_rig(DCIO_WRITE_DROPBEHIND, 0);

	if (!rig_open(&r))
		return;
	seen_reset();
	writes(&r, 2 << 20, 0);
	CU_ASSERT_TRUE(count_seen("pwritev2", "dcio-pool", 1000) >= 2);
	CU_ASSERT_TRUE(count_seen("pwritev2", "dcio-pool", 0) >= 1);
	CU_ASSERT_TRUE(wait_seen("sync_file_range", "dcio-flush", 10000) >= 1);
	CU_ASSERT_TRUE(wait_seen("posix_fadvise", "dcio-flush", 10000) >= 1);
	CU_ASSERT_TRUE(count_seen("fsync", "dcio-pool", -1) +
			       count_seen("fdatasync", "dcio-pool", -1) >=
		       1);
	check_clean("pool");
	rig_close(&r);
}

/* The default path: the write on the calling thread (ganesha's worker,
 * stripped) */
static void t_caller(void)
{
	struct rig r = table_rig(DCIO_WRITE_DONTCACHE, 64 << 20);

	if (!rig_open(&r))
		return;
	seen_reset();
	writes(&r, 1 << 20, 0);
	CU_ASSERT_TRUE(count_seen("pwritev2", "gsh-worker", 1000) >= 1);
	CU_ASSERT_TRUE(count_seen("pwritev2", "gsh-worker", 0) >= 1);
	check_clean("caller's thread");
	rig_close(&r);
}

/* A calling thread that kept CAP_SYS_RESOURCE (ganesha as a library,
 * nfs_libmain, drops nothing): a caller other than root writes with no
 * effective capability. (Root's write there is the thread's own.) */
static void user_write_here(void *arg)
{
	struct rig *r = arg;

	tl_fill(buf, 1 << 20, 0, 6);
	CU_ASSERT_EQUAL(write3(r->f, buf, 1 << 20, 0, DCIO_UNSTABLE, &user), 0);
}

static void t_caller_unstripped(void)
{
	struct rig r = table_rig(DCIO_WRITE_DONTCACHE, 64 << 20);

	if (!rig_open(&r))
		return;
	seen_reset();
	on_boot(user_write_here, &r);
	CU_ASSERT_TRUE(count_seen("pwritev2", "ganesha-main", 1000) >= 1);
	check_clean("caller's thread with every capability");
	rig_close(&r);
}

/* A WRITE over 64 KiB right after a READ goes to the engine's threads
 * (engine_pace_write: niced threads while reads are served). */
static void t_paced(void)
{
	struct rig r = table_rig(DCIO_WRITE_DONTCACHE, 64 << 20);
	char rb[4096];
	size_t got = 0;

	r.ep.nice = 10;
	if (!rig_open(&r))
		return;
	tl_fill(buf, 1 << 20, 0, 7);
	CU_ASSERT_EQUAL(tl_write(r.f, buf, 1 << 20, 0, DCIO_UNSTABLE), 0);
	seen_reset();
	CU_ASSERT_EQUAL(tl_read(r.f, rb, sizeof(rb), 0, &got), 0);
	CU_ASSERT_EQUAL(
		write3(r.f, buf, 256 << 10, 1 << 20, DCIO_UNSTABLE, &user), 0);
	CU_ASSERT_TRUE(count_seen("pwritev2", "dcio-", 1000) >= 1);
	CU_ASSERT_EQUAL(count_seen("pwritev2", "gsh-worker", -1), 0);
	check_clean("paced by a read");
	rig_close(&r);
}

/* Write_Mode = direct: head, O_DIRECT middle and tail, each through the
 * table, on the engine (Worker_Write_Max = 0) and on the caller's thread */
static void t_direct(void)
{
	for (int caller = 0; caller < 2; caller++) {
		struct rig r =
			table_rig(DCIO_WRITE_DIRECT, caller ? 64 << 20 : 0);

		if (!rig_open(&r))
			return;
		seen_reset();
		writes(&r, (2 << 20) - 8192, 100);
		CU_ASSERT_TRUE(count_seen("pwritev2",
					  caller ? "gsh-worker" : "dcio-",
					  1000) >= 3);
		check_clean(caller ? "direct, caller's thread"
				   : "direct, engine");
		rig_close(&r);
	}
}

/* ---- the real syscalls: the write is the probe */
static int adj_next = 0; /* each probe below every value tried before */

/* write(2) of v to fd: 0 or errno */
static int adj_write(int fd, int v)
{
	char s[16];
	int n = snprintf(s, sizeof(s), "%d\n", v);

	return pwrite(fd, s, (size_t)n, 0) == n ? 0 : errno;
}

struct adj_try {
	int fd, v, err;
};

static void adj_on_boot(void *arg)
{
	struct adj_try *t = arg;

	t->err = adj_write(t->fd, t->v);
}

static void t_pool_real(void)
{
	struct rig r = { .ep = { .threads = 1 },
			 .path = "/proc/self/oom_score_adj" };
	char s[16];

	r.p = tl_params(DCIO_WRITE_BUFFERED, DCIO_READ_BUFFERED,
			DCIO_FLUSH_COALESCED);
	r.p.caller_write_max = 0;
	if (!rig_open(&r))
		return;
	int fd = open("/proc/self/oom_score_adj", O_RDWR | O_CLOEXEC);

	CU_ASSERT_FATAL(fd >= 0);
	/* the probe holds: ganesha-main (every capability) may go lower */
	struct adj_try t = { .fd = fd, .v = --adj_next };

	on_boot(adj_on_boot, &t);
	fprintf(stderr,
		"  oom_score_adj %d from a thread with every capability: %s\n",
		t.v,
		t.err ? strerror(t.err) : "written (the probe can fail here)");
	for (int i = 0; i < 4; i++) {
		const struct dcio_cred *c = i % 2 ? &root : &user;
		int v = --adj_next;
		int n = snprintf(s, sizeof(s), "%d\n", v);

		/* stripped, this thread may not: the value needs the cap */
		CU_ASSERT_EQUAL(adj_write(fd, v), EACCES);
		int err = write3(r.f, s, (size_t)n, 0, DCIO_UNSTABLE, c);

		if (err != EACCES)
			fprintf(stderr,
				"  pool write of oom_score_adj %d as uid %u: %s (the pool thread holds CAP_SYS_RESOURCE)\n",
				v, (unsigned)c->uid,
				err ? strerror(err) : "written");
		CU_ASSERT_EQUAL(err, EACCES);
	}
	CU_ASSERT_EQUAL(adj_write(fd, 0), 0); /* raising needs nothing */
	close(fd);
	rig_close(&r);
}

static const struct tl_case cases[] = {
	{ "pool, flusher, group flush: no CAP_SYS_RESOURCE", t_pool },
	{ "caller's thread (stripped): none", t_caller },
	{ "caller's thread with every capability: none as a user",
	  t_caller_unstripped },
	{ "a write after a read, on the engine: none", t_paced },
	{ "direct, engine and caller's thread: none", t_direct },
	{ "pool, real syscalls: no CAP_SYS_RESOURCE", t_pool_real },
};

int main(void)
{
	struct capset3 c;
	pthread_t boot;

	tl_require(TL_NEED_EXT4);
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: needs root (CAP_SETUID, CAP_SETGID)\n");
		return TL_SKIP;
	}
	if (cap_read(&c) != 0) {
		perror("capget");
		return 1;
	}
	if (!(c.eff[RES_WORD] & RES_BIT))
		fprintf(stderr,
			"note: this process has no CAP_SYS_RESOURCE (bounding set?): the CAP_SYS_RESOURCE checks cannot fail here (tests/ha/guest_caps.sh runs this program in a guest whose root has it); the empty effective set of a user's write is checked\n");
	if (pthread_create(&boot, NULL, boot_main, NULL) != 0)
		return 1;
	pthread_setname_np(boot, "ganesha-main");
	pthread_setname_np(pthread_self(), "gsh-worker");
	if (strip_resource() != 0) {
		perror("capset");
		return 1;
	}
	int rc = TL_RUN_SUITE("no CAP_SYS_RESOURCE in a write", cases);

	pthread_mutex_lock(&boot_mu);
	boot_quit = true;
	pthread_cond_broadcast(&boot_cv);
	pthread_mutex_unlock(&boot_mu);
	pthread_join(boot, NULL);
	return rc;
}
