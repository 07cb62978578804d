/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* it_locks.h: the local side and the sequence of it_locks (NLM) and
 * it_locks4 (NFSv4.1), one program each (libnfs and ganesha's ntirpc XDR do
 * not build together). it_locks: byte-range locks the server's kernel sees (issue 42 item 4).
 * Run on the server, beside ganesha (the file's local path is known): an NFS
 * client's lock must be an open file description lock on the server's file,
 * so that a local process (Samba, a local user) and the NFS clients see one
 * another's locks.
 *
 * it_locks  -e EXPORT -d DIR -n NAME -g GANESHA_PID [-H host] [-p nfsport]
 *           [-M mntport] [-N nlmport]
 * it_locks4 -e EXPORT -d DIR -n NAME -g GANESHA_PID [-H host] [-p nfsport]
 *   DIR/NAME is the file's path on the server (EXPORT/NAME over NFS). It is
 *   created (0644, 64 KiB) with 16 companions NAME.fN for the fd reaper.
 *   it_locks: the client locks over NLM 4 (libnfs raw), it_locks4 over
 *   NFSv4.1 (tests/lib/nfs4c). Checks, in order:
 *   1. the client's WRITE lock [100, +100) granted; a local F_OFD_GETLK
 *      (whole file) names it: F_WRLCK, start 100, length 100; a local
 *      process-associated F_SETLK F_WRLCK of [150, +10) is EAGAIN/EACCES;
 *   2. a local F_OFD_SETLK F_WRLCK [1000, +100) granted; the client's
 *      TEST / LOCKT of [900, +300) by another owner is NLM4_DENIED /
 *      NFS4ERR_DENIED naming the holder's range (1000, 100, exclusive /
 *      WRITE_LT); its LOCK of [1050, +10), write and read, is DENIED with
 *      that range (NFSv4);
 *   3. the local unlock lets the client's LOCK of [1050, +10) in; its
 *      unlock, and a local F_OFD_GETLK of [1000, +100) finds it free;
 *   4. eviction: the file and its companions are written statelessly
 *      (NFSv3; NFSv4.1 with the anonymous stateid: ganesha's global fd and
 *      the module's engine file open), then up to 10 s of ganesha's fd
 *      reaper (the fds left on the file are printed: 4.3's reaper skips an
 *      object a lock state references); the client's lock is still seen
 *      locally and still refuses a local F_OFD_SETLK;
 *   5. the client's unlock of [100, +100): a local F_OFD_GETLK of the whole
 *      file finds it free and a local F_OFD_SETLK of the whole file works.
 *   -s (stock FSAL_VFS): a TEST / LOCKT answered free beside the local
 *   lock is printed ("# STOCK: ...") instead of failing: FSAL_VFS fills the
 *   conflict in but answers success, which ganesha's SAL takes as free.
 *   Prints "# it_locks: N checks, F failed"; exit 0 when none failed.
 */
#ifndef IT_LOCKS_H
#define IT_LOCKS_H

#include "tcheck.h"

#include <dirent.h>
#include <getopt.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#define NCOMPANIONS 16
#define FILE_SIZE (64 << 10)

static const char *lk_dir, *lk_name, *lk_host = "127.0.0.1", *lk_export;
static int lk_nfsport = 12049, lk_mntport = 12050, lk_nlmport = 12051, lk_gpid;

/* what each program implements: its client (who: lock owner 0 or 1; 0
 * granted, 1 denied (den filled where the protocol names the holder), 2
 * another status (*st names it)) */
struct lk_denied {
	uint64_t off, len;
	bool write;
};

static int lk_vers;
static bool lk_stock; /* -s: stock FSAL_VFS (its known answers noted) */
static void cl_connect(void);
static int cl_lock(int who, bool write, uint64_t off, uint64_t len,
		   struct lk_denied *den, const char **st);
static int cl_test(int who, bool write, uint64_t off, uint64_t len,
		   struct lk_denied *den, const char **st);
static int cl_unlock(int who, uint64_t off, uint64_t len, const char **st);
/* a stateless 4 KiB FILE_SYNC WRITE of the file nm at 8192 (0: done) */
static int cl_write(const char *nm, const char **st);
static void cl_finish(void);

static void lk_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void lk_note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* ---- the local side ---- */

static int local_fd;
static char local_path[PATH_MAX];

static int ofd(int cmd, short type, off_t start, off_t len, struct flock *out)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = start;
	fl.l_len = len;
	if (fcntl(local_fd, cmd, &fl) != 0)
		return errno;
	if (out != NULL)
		*out = fl;
	return 0;
}

/* The lock a local F_OFD_GETLK of [start, +len) finds (F_UNLCK: none). */
static struct flock local_getlk(off_t start, off_t len)
{
	struct flock fl = { .l_type = -1 };
	int err = ofd(F_OFD_GETLK, F_WRLCK, start, len, &fl);

	if (err != 0)
		lk_note("F_OFD_GETLK: %s", strerror(err));
	return fl;
}

static const char *ltype(short t)
{
	return t == F_WRLCK   ? "F_WRLCK"
	       : t == F_RDLCK ? "F_RDLCK"
	       : t == F_UNLCK ? "F_UNLCK"
			      : "?";
}

/* ganesha's fds open on the file */
static int ganesha_fds(void)
{
	char p[64], l[PATH_MAX + 1];
	struct dirent *d;
	DIR *dd;
	int n = 0;

	snprintf(p, sizeof(p), "/proc/%d/fd", lk_gpid);
	dd = opendir(p);
	if (dd == NULL)
		return -1;
	while ((d = readdir(dd)) != NULL) {
		char fp[320];
		ssize_t k;

		snprintf(fp, sizeof(fp), "%s/%s", p, d->d_name);
		k = readlink(fp, l, sizeof(l) - 1);
		if (k <= 0)
			continue;
		l[k] = 0;
		if (strcmp(l, local_path) == 0)
			n++;
	}
	closedir(dd);
	return n;
}

static void make_files(void)
{
	static char buf[FILE_SIZE];
	char p[PATH_MAX];

	memset(buf, 'l', sizeof(buf));
	for (int i = -1; i < NCOMPANIONS; i++) {
		int fd;

		if (i < 0)
			snprintf(p, sizeof(p), "%s/%s", lk_dir, lk_name);
		else
			snprintf(p, sizeof(p), "%s/%s.f%d", lk_dir, lk_name, i);
		fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf)) {
			fprintf(stderr, "it_locks: %s: %s\n", p,
				strerror(errno));
			exit(2);
		}
		close(fd);
	}
	snprintf(p, sizeof(p), "%s/%s", lk_dir, lk_name);
	if (realpath(p, local_path) == NULL) {
		fprintf(stderr, "it_locks: realpath %s: %s\n", p,
			strerror(errno));
		exit(2);
	}
	local_fd = open(local_path, O_RDWR);
	if (local_fd < 0) {
		fprintf(stderr, "it_locks: %s: %s\n", local_path,
			strerror(errno));
		exit(2);
	}
}

/* Stateless WRITEs of the file and its companions (ganesha opens their
 * global fds, the module their engine files), then the fd reaper's turn. */
static void evict(int fds_locked)
{
	const char *st;
	int n = -1;

	for (int i = -1; i < NCOMPANIONS; i++) {
		char nm[256];

		if (i < 0)
			snprintf(nm, sizeof(nm), "%s", lk_name);
		else
			snprintf(nm, sizeof(nm), "%s.f%d", lk_name, i);
		if (cl_write(nm, &st) != 0)
			lk_note("WRITE of %s: %s", nm, st);
	}
	lk_note("ganesha's fds on the file: %d with the lock, %d after the WRITEs",
		fds_locked, ganesha_fds());
	for (int i = 0; i < 100; i++) {
		n = ganesha_fds();
		if (n <= fds_locked)
			break;
		usleep(100000);
	}
	/* ganesha 4.3's reaper skips an object whose lock state references
	 * it: the global fd of the locked file may stay */
	lk_note("v%d: ganesha's fds on the file after the reaper's rounds: %d (%d with the lock alone)%s",
		lk_vers, n, fds_locked,
		n <= fds_locked ? "" : ": the reaper kept the locked file's");
}

static int lk_main(int argc, char **argv)
{
	struct lk_denied den;
	struct flock fl;
	const char *st;
	int r, err, fds_locked;

	int c;

	while ((c = getopt(argc, argv, "H:p:M:N:e:d:n:g:s")) != -1) {
		switch (c) {
		case 'H':
			lk_host = optarg;
			break;
		case 'p':
			lk_nfsport = atoi(optarg);
			break;
		case 'M':
			lk_mntport = atoi(optarg);
			break;
		case 'N':
			lk_nlmport = atoi(optarg);
			break;
		case 'e':
			lk_export = optarg;
			break;
		case 'd':
			lk_dir = optarg;
			break;
		case 'n':
			lk_name = optarg;
			break;
		case 'g':
			lk_gpid = atoi(optarg);
			break;
		case 's':
			lk_stock = true;
			break;
		default:
			goto usage;
		}
	}
	if (lk_export == NULL || lk_dir == NULL || lk_name == NULL ||
	    lk_gpid <= 0)
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
	make_files();
	cl_connect();

	/* 1. the client's lock, seen locally */
	r = cl_lock(0, true, 100, 100, NULL, &st);
	tc_ok(r == 0, "v%d: client WRITE lock [100, +100): %s", lk_vers, st);
	fl = local_getlk(0, 0);
	tc_ok(fl.l_type == F_WRLCK && fl.l_start == 100 && fl.l_len == 100,
	      "v%d: local F_OFD_GETLK sees the client's lock: %s [%lld, +%lld)",
	      lk_vers, ltype(fl.l_type), (long long)fl.l_start,
	      (long long)fl.l_len);
	{
		struct flock pl = { .l_type = F_WRLCK,
				    .l_whence = SEEK_SET,
				    .l_start = 150,
				    .l_len = 10 };

		err = fcntl(local_fd, F_SETLK, &pl) == 0 ? 0 : errno;
		tc_ok(err == EAGAIN || err == EACCES,
		      "v%d: local F_SETLK [150, +10) refused: %s", lk_vers,
		      err ? strerror(err) : "granted");
		if (err == 0) {
			pl.l_type = F_UNLCK;
			fcntl(local_fd, F_SETLK, &pl);
		}
	}

	/* 2. a local lock refuses the client's */
	err = ofd(F_OFD_SETLK, F_WRLCK, 1000, 100, NULL);
	tc_ok(err == 0, "v%d: local F_OFD_SETLK [1000, +100): %s", lk_vers,
	      err ? strerror(err) : "granted");
	memset(&den, 0, sizeof(den));
	r = cl_test(1, true, 900, 300, &den, &st);
	if (lk_stock && r != 1)
		lk_note("STOCK: v%d: client TEST [900, +300) beside a local lock: %s (FSAL_VFS answers the test as free)",
			lk_vers, st);
	else
		tc_ok(r == 1 && den.off == 1000 && den.len == 100 && den.write,
		      "v%d: client TEST [900, +300) denied naming the local holder: %s [%llu, +%llu) %s",
		      lk_vers, st, (unsigned long long)den.off,
		      (unsigned long long)den.len,
		      den.write ? "write" : "read");
	memset(&den, 0, sizeof(den));
	r = cl_lock(1, true, 1050, 10, &den, &st);
	tc_ok(r == 1 && (lk_vers == 3 ||
			 (den.off == 1000 && den.len == 100 && den.write)),
	      "v%d: client WRITE lock [1050, +10) denied: %s [%llu, +%llu)",
	      lk_vers, st, (unsigned long long)den.off,
	      (unsigned long long)den.len);
	r = cl_lock(1, false, 1050, 10, &den, &st);
	tc_ok(r == 1, "v%d: client READ lock [1050, +10) denied: %s", lk_vers,
	      st);

	/* 3. the local unlock lets it in */
	err = ofd(F_OFD_SETLK, F_UNLCK, 1000, 100, NULL);
	tc_ok(err == 0, "v%d: local unlock [1000, +100)", lk_vers);
	r = cl_lock(1, true, 1050, 10, NULL, &st);
	tc_ok(r == 0,
	      "v%d: client WRITE lock [1050, +10) after the local unlock: %s",
	      lk_vers, st);
	fl = local_getlk(1000, 100);
	tc_ok(fl.l_type == F_WRLCK && fl.l_start == 1050 && fl.l_len == 10,
	      "v%d: local F_OFD_GETLK sees it: %s [%lld, +%lld)", lk_vers,
	      ltype(fl.l_type), (long long)fl.l_start, (long long)fl.l_len);
	r = cl_unlock(1, 1050, 10, &st);
	tc_ok(r == 0, "v%d: client unlock [1050, +10): %s", lk_vers, st);
	fl = local_getlk(1000, 100);
	tc_ok(fl.l_type == F_UNLCK,
	      "v%d: local F_OFD_GETLK [1000, +100) after the client's unlock: %s",
	      lk_vers, ltype(fl.l_type));

	/* 4. the module's fds come and go: the lock stays */
	fds_locked = ganesha_fds();
	evict(fds_locked);
	fl = local_getlk(0, 0);
	tc_ok(fl.l_type == F_WRLCK && fl.l_start == 100 && fl.l_len == 100,
	      "v%d: the client's lock is still seen after the reaper's rounds: %s [%lld, +%lld)",
	      lk_vers, ltype(fl.l_type), (long long)fl.l_start,
	      (long long)fl.l_len);
	err = ofd(F_OFD_SETLK, F_RDLCK, 120, 1, NULL);
	tc_ok(err == EAGAIN, "v%d: local F_OFD_SETLK [120, +1) refused: %s",
	      lk_vers, err ? strerror(err) : "granted");
	if (err == 0)
		ofd(F_OFD_SETLK, F_UNLCK, 120, 1, NULL);

	/* 5. the client's unlock releases the kernel's lock */
	r = cl_unlock(0, 100, 100, &st);
	tc_ok(r == 0, "v%d: client unlock [100, +100): %s", lk_vers, st);
	fl = local_getlk(0, 0);
	tc_ok(fl.l_type == F_UNLCK,
	      "v%d: local F_OFD_GETLK of the whole file after the unlock: %s",
	      lk_vers, ltype(fl.l_type));
	err = ofd(F_OFD_SETLK, F_WRLCK, 0, 0, NULL);
	tc_ok(err == 0, "v%d: local F_OFD_SETLK of the whole file: %s", lk_vers,
	      err ? strerror(err) : "granted");
	ofd(F_OFD_SETLK, F_UNLCK, 0, 0, NULL);

	cl_finish();
	printf("# it_locks%s: %d checks, %d failed\n", lk_vers == 4 ? "4" : "",
	       tc_checks, tc_failures);
	return tc_failures ? 1 : 0;
usage:
	fprintf(stderr,
		"usage: %s -e EXPORT -d DIR -n NAME -g GANESHA_PID [-H host] [-p nfsport] [-M mntport] [-N nlmport]\n",
		argv[0]);
	return 2;
}

#endif
