// SPDX-License-Identifier: LGPL-3.0-or-later
/* dcio_write: a write's data syscall runs with the caller's fsuid, fsgid and
 * groups on every path (the caller's thread, the pool, Flush_Mode inline,
 * direct), the thread gets its own back afterwards, and with the real
 * syscalls the kernel sees the caller (a root-owned 06777 file loses its
 * set-id bits, as to a local user's write; a write as root keeps them).
 * Needs root (CAP_SETUID, CAP_SETGID). */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dcio_testlib.h"

/* What the table's pwritev2 saw on the thread that issued it. */
static pthread_mutex_t seen_mu = PTHREAD_MUTEX_INITIALIZER;
static long seen_fsuid, seen_fsgid;
static int seen_ngroups;
static gid_t seen_groups[64];
static int seen_calls;

static ssize_t rec_pwritev2(int fd, const struct iovec *iov, int cnt, off_t off,
			    int flags)
{
	pthread_mutex_lock(&seen_mu);
	/* both fail for -1 and return the thread's current id */
	seen_fsuid = syscall(SYS_setfsuid, -1);
	seen_fsgid = syscall(SYS_setfsgid, -1);
	seen_ngroups = (int)syscall(SYS_getgroups, 64, seen_groups);
	seen_calls++;
	pthread_mutex_unlock(&seen_mu);
	return pwritev2(fd, iov, cnt, off, flags);
}

static const gid_t groups[] = { 1002, 1003, 1004 };
static const struct dcio_cred caller = {
	.uid = 1000, .gid = 1001, .ngroups = 3, .groups = groups
};

static int write3(struct dcio_file *f, const void *buf, size_t len,
		  uint64_t off, const struct dcio_cred *cred)
{
	struct tl_wait w;
	struct iovec iov = { (void *)buf, len };

	tl_wait_init(&w);
	int rc = dcio_write(f, &iov, 1, off, DCIO_UNSTABLE, cred, NULL, tl_done,
			    &w);
	if (rc)
		return rc;
	tl_wait_for(&w, 1);
	return w.last_err;
}

static void check_seen(const struct dcio_cred *c)
{
	pthread_mutex_lock(&seen_mu);
	CU_ASSERT_EQUAL(seen_fsuid, (long)c->uid);
	CU_ASSERT_EQUAL(seen_fsgid, (long)c->gid);
	CU_ASSERT_EQUAL(seen_ngroups, (int)c->ngroups);
	if (seen_ngroups == (int)c->ngroups)
		for (unsigned i = 0; i < c->ngroups; i++)
			CU_ASSERT_EQUAL(seen_groups[i], c->groups[i]);
	pthread_mutex_unlock(&seen_mu);
}

/* One export configuration through the recording table: as the caller,
 * then without a caller (the thread's own back). */
static void table_path(struct dcio_export_params *p, size_t len, uint64_t off)
{
	struct dcio_syscalls sys = { .pwritev2 = rec_pwritev2 };
	struct dcio_engine_params ep = { .threads = 1 };
	gid_t mine[64];
	int nmine = (int)syscall(SYS_getgroups, 64, mine);
	struct dcio_cred self = { .uid = 0,
				  .gid = 0,
				  .ngroups = nmine > 0 ? (unsigned)nmine : 0,
				  .groups = mine };
	struct tl_ctx c;
	static char buf[1 << 20];

	tl_ctx_open(&c, &(struct tl_setup){ .p = p,
					    .ep = &ep,
					    .sys = &sys,
					    .name = "cred",
					    .flags = O_TRUNC });
	tl_fill(buf, len, off, 3);
	seen_calls = 0;
	CU_ASSERT_EQUAL(write3(c.f, buf, len, off, &caller), 0);
	CU_ASSERT_TRUE(seen_calls >= 1);
	check_seen(&caller);
	/* a caller whose groups are the thread's own (no group change) */
	struct dcio_cred same = self;

	same.uid = 1000;
	same.gid = 1001;
	seen_calls = 0;
	CU_ASSERT_EQUAL(write3(c.f, buf, len, off, &same), 0);
	CU_ASSERT_TRUE(seen_calls >= 1);
	check_seen(&same);
	/* this thread is itself again */
	CU_ASSERT_EQUAL(syscall(SYS_setfsuid, -1), 0);
	CU_ASSERT_EQUAL(syscall(SYS_setfsgid, -1), 0);
	/* and so is the engine thread that ran it: a write without a caller
	 * runs as the engine */
	seen_calls = 0;
	CU_ASSERT_EQUAL(write3(c.f, buf, len, off, NULL), 0);
	CU_ASSERT_TRUE(seen_calls >= 1);
	check_seen(&self);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

static void t_pool(void)
{
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);
	table_path(&p, 256 << 10, 0);
}

static void t_caller_thread(void)
{
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);
	p.caller_write_max = 64 << 20;
	table_path(&p, 256 << 10, 0);
}

static void t_inline(void)
{
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED, DCIO_FLUSH_INLINE);
	table_path(&p, 256 << 10, 0);
}

static void t_direct(void)
{
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DIRECT, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);
	/* head, aligned middle (O_DIRECT), tail: each leaf as the caller */
	table_path(&p, (1 << 20) - 8192, 100);
}

static mode_t mode_of(int fd)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return 0;
	return st.st_mode & 07777;
}

/* The real syscalls, on the pool (caller_write_max 0). A root-owned 06777
 * file written as uid 1000 loses both set-id bits (the kernel's rule for a
 * writer without CAP_FSETID); written as root it keeps them. Many
 * identities in turn. */
static void real_setid(enum dcio_write_mode wm, size_t len)
{
	struct dcio_export_params p =
		tl_params(wm, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);
	struct dcio_engine_params ep = { .threads = 1 };
	struct tl_ctx c;
	static char buf[1 << 20];

	tl_ctx_open(&c,
		    &(struct tl_setup){
			    .p = &p, .ep = &ep, .name = "setid", .flags = 0 });
	int fd = dcio_file_fd(c.f);
	tl_fill(buf, len, 0, 9);
	CU_ASSERT_EQUAL(fchown(fd, 0, 0), 0);
	CU_ASSERT_EQUAL(fchmod(fd, 06777), 0);
	CU_ASSERT_EQUAL(write3(c.f, buf, len, 0, NULL), 0);
	CU_ASSERT_EQUAL(mode_of(fd), 06777);
	for (unsigned i = 0; i < 24; i++) {
		struct dcio_cred u = { .uid = 1000 + i % 20,
				       .gid = 1000 + i % 20,
				       .ngroups = 1,
				       .groups = &groups[i % 3] };

		CU_ASSERT_EQUAL(fchmod(fd, 06777), 0);
		CU_ASSERT_EQUAL(write3(c.f, buf, len, 0, &u), 0);
		CU_ASSERT_EQUAL(mode_of(fd), 0777);
	}
	/* a group-executable setgid file of a group the caller is in */
	CU_ASSERT_EQUAL(fchown(fd, 0, 1003), 0);
	CU_ASSERT_EQUAL(fchmod(fd, 02775), 0);
	CU_ASSERT_EQUAL(write3(c.f, buf, len, 0, &caller), 0);
	CU_ASSERT_EQUAL(mode_of(fd), 0775);
	/* root again: kept */
	CU_ASSERT_EQUAL(fchmod(fd, 06777), 0);
	CU_ASSERT_EQUAL(write3(c.f, buf, len, 0, NULL), 0);
	CU_ASSERT_EQUAL(mode_of(fd), 06777);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

static void t_setid(void)
{
	real_setid(DCIO_WRITE_DONTCACHE, 64 << 10);
}

static void t_setid_direct(void)
{
	real_setid(DCIO_WRITE_DIRECT, 1 << 20);
}

/* A switch that does not take: the kernel ignores an id outside the
 * server's user namespace (a container with a partial uid map, an unmapped
 * Anonymous_Uid), keeps the thread's and still answers the previous id. */
static uid_t deaf_uid = (uid_t)-1;
static gid_t deaf_gid = (gid_t)-1;

static int deaf_setfsuid(uid_t id)
{
	if (id == deaf_uid && id != (uid_t)-1)
		return (int)syscall(SYS_setfsuid, -1);
	return (int)syscall(SYS_setfsuid, id);
}

static int deaf_setfsgid(gid_t id)
{
	if (id == deaf_gid && id != (gid_t)-1)
		return (int)syscall(SYS_setfsgid, -1);
	return (int)syscall(SYS_setfsgid, id);
}

static off_t size_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? st.st_size : -1;
}

/* One path with the switch deaf to the caller's uid, then to its gid: the
 * WRITE is refused with EPERM before any data syscall (nothing written),
 * the thread is itself again, and the same caller's next write, the switch
 * working again, is written. */
static void deaf_path(struct dcio_export_params *p, size_t len, uint64_t off)
{
	struct dcio_syscalls sys = { .pwritev2 = rec_pwritev2,
				     .setfsuid = deaf_setfsuid,
				     .setfsgid = deaf_setfsgid };
	struct dcio_engine_params ep = { .threads = 1 };
	struct tl_ctx c;
	static char buf[1 << 20];

	tl_ctx_open(&c, &(struct tl_setup){ .p = p,
					    .ep = &ep,
					    .sys = &sys,
					    .name = "deaf",
					    .flags = O_TRUNC });
	int fd = dcio_file_fd(c.f);

	tl_fill(buf, len, off, 5);
	for (int which = 0; which < 2; which++) {
		deaf_uid = which == 0 ? caller.uid : (uid_t)-1;
		deaf_gid = which == 1 ? caller.gid : (gid_t)-1;
		seen_calls = 0;
		CU_ASSERT_EQUAL(write3(c.f, buf, len, off, &caller), EPERM);
		CU_ASSERT_EQUAL(seen_calls, 0);
		CU_ASSERT_EQUAL(size_of(fd), 0);
		CU_ASSERT_EQUAL(syscall(SYS_setfsuid, -1), 0);
		CU_ASSERT_EQUAL(syscall(SYS_setfsgid, -1), 0);
	}
	deaf_uid = (uid_t)-1;
	deaf_gid = (gid_t)-1;
	seen_calls = 0;
	CU_ASSERT_EQUAL(write3(c.f, buf, len, off, &caller), 0);
	CU_ASSERT_TRUE(seen_calls >= 1);
	check_seen(&caller);
	CU_ASSERT_EQUAL(size_of(fd), (off_t)(off + len));
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

static void t_deaf(void)
{
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);

	p.caller_write_max = 64 << 20;
	deaf_path(&p, 256 << 10, 0); /* the caller's thread */
	p.caller_write_max = 0;
	deaf_path(&p, 256 << 10, 0); /* the pool */
	p = tl_params(DCIO_WRITE_DIRECT, DCIO_READ_BUFFERED,
		      DCIO_FLUSH_COALESCED);
	p.caller_write_max = 0;
	deaf_path(&p, (1 << 20) - 8192, 100); /* direct leaves */
}

/* Switches (an id other than -1) through the table, on any thread */
static int switches;

static int count_setfsuid(uid_t id)
{
	if (id != (uid_t)-1)
		__atomic_fetch_add(&switches, 1, __ATOMIC_RELAXED);
	return (int)syscall(SYS_setfsuid, id);
}

static int count_setfsgid(gid_t id)
{
	if (id != (gid_t)-1)
		__atomic_fetch_add(&switches, 1, __ATOMIC_RELAXED);
	return (int)syscall(SYS_setfsgid, id);
}

/* One write as c on this thread, seen once as c: the switches it took */
static int held_write(struct dcio_file *f, const char *buf, size_t len,
		      const struct dcio_cred *c)
{
	switches = 0;
	seen_calls = 0;
	CU_ASSERT_EQUAL(write3(f, buf, len, 0, c), 0);
	CU_ASSERT_EQUAL(seen_calls, 1);
	check_seen(c);
	return switches;
}

/* A caller with the server's own ids (root) on a thread that holds them:
 * the ids are read, neither switched nor restored. On a thread that holds
 * others (read, not assumed) they are switched and restored as for anyone;
 * another caller is switched as before. */
static void t_held(void)
{
	struct dcio_export_params p = tl_params(
		DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);
	struct dcio_syscalls sys = { .pwritev2 = rec_pwritev2,
				     .setfsuid = count_setfsuid,
				     .setfsgid = count_setfsgid };
	struct dcio_engine_params ep = { .threads = 1 };
	gid_t mine[64];
	int nmine = (int)syscall(SYS_getgroups, 64, mine);
	struct dcio_cred root = { .uid = 0,
				  .gid = 0,
				  .ngroups = nmine > 0 ? (unsigned)nmine : 0,
				  .groups = mine };
	struct tl_ctx c;
	static char buf[64 << 10];

	p.caller_write_max = 64 << 20; /* on this thread */
	tl_ctx_open(&c, &(struct tl_setup){ .p = &p,
					    .ep = &ep,
					    .sys = &sys,
					    .name = "held",
					    .flags = O_TRUNC });
	tl_fill(buf, sizeof(buf), 0, 7);
	CU_ASSERT_EQUAL(held_write(c.f, buf, sizeof(buf), &root), 0);
	/* this thread elsewhere: switched to root for the write, then back */
	CU_ASSERT_EQUAL(syscall(SYS_setfsuid, 500), 0);
	CU_ASSERT_EQUAL(syscall(SYS_setfsgid, 501), 0);
	CU_ASSERT_EQUAL(held_write(c.f, buf, sizeof(buf), &root), 4);
	CU_ASSERT_EQUAL(syscall(SYS_setfsuid, 0), 500);
	CU_ASSERT_EQUAL(syscall(SYS_setfsgid, 0), 501);
	/* another caller: switched and restored */
	CU_ASSERT_EQUAL(held_write(c.f, buf, sizeof(buf), &caller), 4);
	CU_ASSERT_EQUAL(syscall(SYS_setfsuid, -1), 0);
	CU_ASSERT_EQUAL(syscall(SYS_setfsgid, -1), 0);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

static const struct tl_case cases[] = {
	{ "pool: the write as the caller, the thread restored", t_pool },
	{ "caller's thread: as the caller, restored", t_caller_thread },
	{ "Flush_Mode inline: as the caller, restored", t_inline },
	{ "direct: every leaf as the caller", t_direct },
	{ "real syscalls: set-id bits cleared as for the caller", t_setid },
	{ "real syscalls, direct: set-id bits cleared", t_setid_direct },
	{ "a switch that does not take: EPERM, nothing written", t_deaf },
	{ "the server's ids held already: read, not switched", t_held },
};

int main(void)
{
	tl_require(0);
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: needs root (CAP_SETUID, CAP_SETGID)\n");
		return TL_SKIP;
	}
	return TL_RUN_SUITE("writes as the caller", cases);
}
