// SPDX-License-Identifier: LGPL-3.0-or-later
/* Every NFSv3 namespace operation against a running server, with its results and its error
 * statuses, through libnfs's raw API (full control of create modes, setattr, cookies, stable_how)
 * and through the high-level API (what applications use).
 *
 * usage: it_nsops -e EXPORT [-u UID] [-D] [-F] [common options]
 * -F: the export's filesystem limits files below 2^62 bytes (ext4): check EFBIG there.
 * -D: the server runs FSAL_DONTCACHE: also check values only it promises (PATHCONF of ext4;
 *     LINK as the caller under the kernel's fs.protected_hardlinks, when that is on).
 * Works in a fresh subdirectory of the export and removes it at the end. Needs a server that
 * exports EXPORT read-write with no root squash. -u is the unprivileged uid/gid used for the
 * EACCES checks (default 4242). */
#include "itlib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define ST(expr, what, ...) it_expect_st((expr), (what), __VA_ARGS__, IT_END)

static int user_id = 4242;
static bool
	strict; /* -D: the server is FSAL_DONTCACHE: also check what only it promises */
static bool
	small_maxfile; /* -F: the export's fs caps file size below 2^62 (ext4: 16 TiB) */

static void opt_cb(int opt, const char *arg)
{
	if (opt == 'u')
		user_id = atoi(arg);
	if (opt == 'D')
		strict = true;
	if (opt == 'F')
		small_maxfile = true;
}

static struct nfsc_conn rc, uc; /* root and unprivileged connections */
static struct nfsc_fh top; /* the test's working directory */

static bool same_file(const struct nfsc_fh *a, const struct nfsc_fh *b)
{
	fattr3 x, y;

	if (nfsc_getattr(&rc, a, &x) != NFS3_OK ||
	    nfsc_getattr(&rc, b, &y) != NFS3_OK)
		return false;
	return x.fileid == y.fileid && x.fsid == y.fsid;
}

static uint64_t fileid_of(const struct nfsc_fh *dir, const char *name)
{
	struct nfsc_fh fh;
	fattr3 a;

	if (nfsc_lookup(&rc, dir, name, &fh, NULL) != NFS3_OK)
		return 0;
	if (nfsc_getattr(&rc, &fh, &a) != NFS3_OK)
		return 0;
	return a.fileid;
}

static void fill(unsigned char *buf, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (unsigned char)((i * 131u + seed * 7u + (i >> 9)) &
					 0xff);
}

/* ---------------------------------------------------------------- lookup & getattr */
static void t_lookup(void)
{
	struct nfsc_fh d, sub, dot, dotdot, f, x;
	fattr3 a;

	it_note("lookup / getattr");
	ST(nfsc_mkdir(&rc, &top, "ldir", 0755, &d, &a), "MKDIR ldir", NFS3_OK);
	tc_ok(a.type == NF3DIR && (a.mode & 07777) == 0755,
	      "MKDIR attrs: type %d mode %o", a.type, a.mode & 07777);
	ST(nfsc_mkdir(&rc, &top, "ldir", 0755, NULL, NULL),
	   "MKDIR existing name -> EEXIST", NFS3ERR_EXIST);
	ST(nfsc_mkdir(&rc, &d, "sub", 0700, &sub, NULL), "MKDIR ldir/sub",
	   NFS3_OK);
	ST(nfsc_lookup(&rc, &top, "ldir", &x, &a), "LOOKUP ldir", NFS3_OK);
	tc_ok(nfsc_fh_eq(&x, &d), "LOOKUP returns the handle MKDIR returned");
	ST(nfsc_lookup(&rc, &sub, "..", &dotdot, NULL), "LOOKUP ldir/sub/..",
	   NFS3_OK);
	tc_ok(same_file(&dotdot, &d), "LOOKUP .. of ldir/sub is ldir");
	ST(nfsc_lookup(&rc, &d, "..", &dotdot, NULL), "LOOKUP ldir/..",
	   NFS3_OK);
	tc_ok(same_file(&dotdot, &top),
	      "LOOKUP .. of ldir is the working directory");
	ST(nfsc_lookup(&rc, &d, ".", &dot, NULL), "LOOKUP ldir/.", NFS3_OK);
	tc_ok(same_file(&dot, &d), "LOOKUP . is the directory itself");
	ST(nfsc_lookup(&rc, &d, "nonexistent", NULL, NULL),
	   "LOOKUP missing name -> ENOENT", NFS3ERR_NOENT);
	ST(nfsc_create(&rc, &d, "file", UNCHECKED, 0644, NULL, &f, NULL),
	   "CREATE ldir/file", NFS3_OK);
	ST(nfsc_lookup(&rc, &f, "x", NULL, NULL),
	   "LOOKUP in a regular file -> ENOTDIR", NFS3ERR_NOTDIR);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR file", NFS3_OK);
	tc_ok(a.type == NF3REG && a.nlink == 1 && a.size == 0,
	      "GETATTR file: type %d nlink %u size %llu", a.type, a.nlink,
	      (unsigned long long)a.size);
	ST(nfsc_getattr(&rc, &rc.root, &a), "GETATTR export root", NFS3_OK);
	tc_ok(a.type == NF3DIR, "export root is a directory");
	/* The root's parent is the root (the client cannot walk out of the export). */
	ST(nfsc_lookup(&rc, &rc.root, "..", &dotdot, NULL),
	   "LOOKUP .. of the export root", NFS3_OK, NFS3ERR_NOENT);
}

/* ---------------------------------------------------------------- create modes */
static void t_create(void)
{
	struct nfsc_fh d, f1, f2, x1, x2;
	fattr3 a, b;
	const char v1[8] = "verf0001", v2[8] = "verf0002";
	uint32_t cnt;
	sattr3 sa;

	it_note("create: UNCHECKED, GUARDED, EXCLUSIVE");
	ST(nfsc_mkdir(&rc, &top, "cdir", 0755, &d, NULL), "MKDIR cdir",
	   NFS3_OK);
	ST(nfsc_create(&rc, &d, "u", UNCHECKED, 0640, NULL, &f1, &a),
	   "CREATE UNCHECKED u", NFS3_OK);
	tc_ok(f1.len > 0, "CREATE returned a handle (%u bytes)", f1.len);
	tc_ok(a.type == NF3REG && (a.mode & 07777) == 0640,
	      "CREATE attrs: type %d mode %o", a.type, a.mode & 07777);
	ST(nfsc_write(&rc, &f1, 0, "hello", 5, FILE_SYNC, &cnt, NULL, NULL),
	   "WRITE 5 bytes to u", NFS3_OK);
	ST(nfsc_create(&rc, &d, "u", UNCHECKED, 0640, NULL, &f2, &b),
	   "CREATE UNCHECKED on an existing file succeeds", NFS3_OK);
	tc_ok(b.fileid == a.fileid,
	      "UNCHECKED create of an existing name is the same file");
	ST(nfsc_create(&rc, &d, "u", GUARDED, 0640, NULL, NULL, NULL),
	   "CREATE GUARDED on an existing file -> EEXIST", NFS3ERR_EXIST);
	ST(nfsc_create(&rc, &d, "g", GUARDED, 0600, NULL, &f2, &a),
	   "CREATE GUARDED new name", NFS3_OK);
	tc_ok((a.mode & 07777) == 0600, "GUARDED create mode %o",
	      a.mode & 07777);

	ST(nfsc_create(&rc, &d, "x", EXCLUSIVE, 0, v1, &x1, NULL),
	   "CREATE EXCLUSIVE x", NFS3_OK);
	ST(nfsc_getattr(&rc, &x1, &a), "GETATTR exclusive-created file",
	   NFS3_OK);
	ST(nfsc_create(&rc, &d, "x", EXCLUSIVE, 0, v1, &x2, NULL),
	   "CREATE EXCLUSIVE retry with the same verifier succeeds", NFS3_OK);
	ST(nfsc_getattr(&rc, &x2, &b), "GETATTR after retry", NFS3_OK);
	tc_ok(a.fileid == b.fileid,
	      "EXCLUSIVE retry returns the same file (fileid %llu vs %llu)",
	      (unsigned long long)a.fileid, (unsigned long long)b.fileid);
	ST(nfsc_create(&rc, &d, "x", EXCLUSIVE, 0, v2, NULL, NULL),
	   "CREATE EXCLUSIVE with another verifier -> EEXIST", NFS3ERR_EXIST);
	ST(nfsc_create(&rc, &d, "u", EXCLUSIVE, 0, v1, NULL, NULL),
	   "CREATE EXCLUSIVE over a file created UNCHECKED -> EEXIST",
	   NFS3ERR_EXIST);
	/* What a client does after an exclusive create: set the real attributes. */
	nfsc_sattr_mode(&sa, 0644);
	sa.atime.set_it = SET_TO_SERVER_TIME;
	sa.mtime.set_it = SET_TO_SERVER_TIME;
	ST(nfsc_setattr(&rc, &x1, &sa), "SETATTR after EXCLUSIVE create",
	   NFS3_OK);
	ST(nfsc_getattr(&rc, &x1, &a), "GETATTR", NFS3_OK);
	tc_ok((a.mode & 07777) == 0644,
	      "mode after exclusive create + setattr: %o", a.mode & 07777);
	ST(nfsc_create(&rc, &f1, "y", UNCHECKED, 0644, NULL, NULL, NULL),
	   "CREATE inside a regular file -> ENOTDIR", NFS3ERR_NOTDIR);
	ST(nfsc_mkdir(&rc, &f1, "y", 0755, NULL, NULL),
	   "MKDIR inside a regular file -> ENOTDIR", NFS3ERR_NOTDIR);
	ST(nfsc_create(&rc, &d, "cdir-sub", UNCHECKED, 0644, NULL, NULL, NULL),
	   "CREATE another", NFS3_OK);
	ST(nfsc_mkdir(&rc, &d, "dd", 0755, NULL, NULL), "MKDIR dd", NFS3_OK);
	ST(nfsc_create(&rc, &d, "dd", GUARDED, 0644, NULL, NULL, NULL),
	   "CREATE GUARDED over a directory -> EEXIST", NFS3ERR_EXIST);
	ST(nfsc_create(&rc, &d, "dd", UNCHECKED, 0644, NULL, NULL, NULL),
	   "CREATE UNCHECKED over a directory fails", NFS3ERR_EXIST,
	   NFS3ERR_ISDIR);
}

/* ---------------------------------------------------------------- names */
static void t_names(void)
{
	char n255[256], n256[257];
	struct nfsc_fh f;

	it_note("name length limits");
	memset(n255, 'a', 255);
	n255[255] = 0;
	memset(n256, 'b', 256);
	n256[256] = 0;
	ST(nfsc_create(&rc, &top, n255, GUARDED, 0644, NULL, &f, NULL),
	   "CREATE 255-byte name", NFS3_OK);
	ST(nfsc_lookup(&rc, &top, n255, NULL, NULL), "LOOKUP 255-byte name",
	   NFS3_OK);
	ST(nfsc_remove(&rc, &top, n255), "REMOVE 255-byte name", NFS3_OK);
	ST(nfsc_create(&rc, &top, n256, GUARDED, 0644, NULL, NULL, NULL),
	   "CREATE 256-byte name -> ENAMETOOLONG", NFS3ERR_NAMETOOLONG);
	ST(nfsc_mkdir(&rc, &top, n256, 0755, NULL, NULL),
	   "MKDIR 256-byte name -> ENAMETOOLONG", NFS3ERR_NAMETOOLONG);
	ST(nfsc_lookup(&rc, &top, n256, NULL, NULL),
	   "LOOKUP 256-byte name -> ENAMETOOLONG", NFS3ERR_NAMETOOLONG);
	ST(nfsc_symlink(&rc, &top, n256, "t", NULL, NULL),
	   "SYMLINK 256-byte name -> ENAMETOOLONG", NFS3ERR_NAMETOOLONG);
	ST(nfsc_create(&rc, &top, "", GUARDED, 0644, NULL, NULL, NULL),
	   "CREATE empty name fails", NFS3ERR_ACCES, NFS3ERR_INVAL,
	   NFS3ERR_NOENT, NFS3ERR_EXIST);
	ST(nfsc_create(&rc, &top, "a/b", GUARDED, 0644, NULL, NULL, NULL),
	   "CREATE name containing '/' fails", NFS3ERR_ACCES, NFS3ERR_INVAL,
	   NFS3ERR_NOENT, NFS3ERR_BADTYPE);

	/* A name is one component: "dir/x" and "../x" must not reach another directory, and
	 * "../x" at the export root must not leave the export. Stock FSAL_VFS 4.3 follows such
	 * names (ganesha does not check NFSv3 names), so this is required of DONTCACHE only
	 * (-D); for other FSALs the outcome is printed. */
	{
		struct nfsc_fh sub, d1;
		char esc[64], out[64];
		int st;
		bool ok;

#define SOK(cond, ...)                                                \
	do {                                                          \
		bool c_ = (cond);                                     \
		if (strict)                                           \
			tc_ok(c_, __VA_ARGS__);                       \
		else {                                                \
			printf("# %s [not required of this FSAL] - ", \
			       c_ ? "ok" : "NOT OK");                 \
			printf(__VA_ARGS__);                          \
			printf("\n");                                 \
		}                                                     \
	} while (0)
#define REFUSED(st) ((st) != NFS3_OK && (st) != -1)
		ST(nfsc_mkdir(&rc, &top, "slash", 0755, &sub, NULL),
		   "MKDIR slash", NFS3_OK);
		ST(nfsc_create(&rc, &sub, "inner", GUARDED, 0644, NULL, NULL,
			       NULL),
		   "CREATE slash/inner", NFS3_OK);
		ST(nfsc_mkdir(&rc, &top, "deep", 0755, &d1, NULL), "MKDIR deep",
		   NFS3_OK);
		snprintf(esc, sizeof(esc), "../escape.%d", (int)getpid());
		snprintf(out, sizeof(out), "../outside.%d", (int)getpid());

		st = nfsc_create(&rc, &top, "slash/x", GUARDED, 0644, NULL,
				 NULL, NULL);
		SOK(REFUSED(st), "CREATE \"slash/x\" is refused (%s)",
		    it_st(st));
		st = nfsc_lookup(&rc, &sub, "x", NULL, NULL);
		SOK(st == NFS3ERR_NOENT,
		    "and created nothing inside slash/ (%s)", it_st(st));
		st = nfsc_lookup(&rc, &top, "slash/inner", NULL, NULL);
		SOK(REFUSED(st), "LOOKUP \"slash/inner\" is refused (%s)",
		    it_st(st));
		st = nfsc_mkdir(&rc, &top, "slash/d", 0755, NULL, NULL);
		SOK(REFUSED(st), "MKDIR \"slash/d\" is refused (%s)",
		    it_st(st));
		st = nfsc_create(&rc, &d1, esc, GUARDED, 0644, NULL, NULL,
				 NULL);
		SOK(REFUSED(st), "CREATE \"%s\" is refused (%s)", esc,
		    it_st(st));
		st = nfsc_mknod(&rc, &d1, esc, NF3FIFO, 0644, 0, 0, NULL, NULL);
		SOK(REFUSED(st), "MKNOD \"%s\" is refused (%s)", esc,
		    it_st(st));
		st = nfsc_rename(&rc, &sub, "inner", &d1, esc);
		SOK(REFUSED(st), "RENAME to \"%s\" is refused (%s)", esc,
		    it_st(st));
		st = nfsc_lookup(&rc, &top, esc + 3, NULL, NULL);
		SOK(st == NFS3ERR_NOENT,
		    "nothing escaped into the parent directory (%s)",
		    it_st(st));
		nfsc_remove(&rc, &top, esc + 3);
		st = nfsc_lookup(&rc, &sub, "inner", NULL, NULL);
		SOK(st == NFS3_OK, "slash/inner still in place (%s)",
		    it_st(st));
		/* At the export root: "../x" would be outside the export (the scenario also looks
		 * for the file on the server's disk). */
		st = nfsc_create(&rc, &rc.root, out, GUARDED, 0644, NULL, NULL,
				 NULL);
		SOK(REFUSED(st),
		    "CREATE \"%s\" at the export root is refused (%s)", out,
		    it_st(st));
		ok = REFUSED(st);
		st = nfsc_mkdir(&rc, &rc.root, out, 0755, NULL, NULL);
		SOK(REFUSED(st) || !ok,
		    "MKDIR \"%s\" at the export root is refused (%s)", out,
		    it_st(st));
		if (!ok)
			nfsc_remove(&rc, &rc.root,
				    out); /* undo (through the same hole) */
#undef REFUSED
#undef SOK
	}
}

/* ---------------------------------------------------------------- setattr */
static void t_setattr(void)
{
	struct nfsc_fh f, d;
	fattr3 a, before;
	sattr3 sa;
	time_t now;

	it_note("setattr: mode, uid/gid, size, atime/mtime (client and server time), guard");
	ST(nfsc_create(&rc, &top, "sa", GUARDED, 0644, NULL, &f, NULL),
	   "CREATE sa", NFS3_OK);

	nfsc_sattr_mode(&sa, 04751);
	ST(nfsc_setattr(&rc, &f, &sa), "SETATTR mode 4751", NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR", NFS3_OK);
	tc_ok((a.mode & 07777) == 04751, "mode is %o (want 4751)",
	      a.mode & 07777);

	nfsc_sattr_none(&sa);
	sa.uid.set_it = 1;
	sa.uid.set_uid3_u.uid = 1234;
	sa.gid.set_it = 1;
	sa.gid.set_gid3_u.gid = 5678;
	ST(nfsc_setattr(&rc, &f, &sa), "SETATTR uid 1234 gid 5678", NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR", NFS3_OK);
	tc_ok(a.uid == 1234 && a.gid == 5678, "owner is %u:%u (want 1234:5678)",
	      a.uid, a.gid);

	nfsc_sattr_size(&sa, 100000);
	ST(nfsc_setattr(&rc, &f, &sa), "SETATTR size 100000 (extend)", NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR", NFS3_OK);
	tc_ok(a.size == 100000, "size is %llu (want 100000)",
	      (unsigned long long)a.size);
	sa.size.set_size3_u.size = 10;
	ST(nfsc_setattr(&rc, &f, &sa), "SETATTR size 10 (truncate)", NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR", NFS3_OK);
	tc_ok(a.size == 10, "size is %llu (want 10)",
	      (unsigned long long)a.size);
	sa.size.set_size3_u.size = 0;
	ST(nfsc_setattr(&rc, &f, &sa), "SETATTR size 0", NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR", NFS3_OK);
	tc_ok(a.size == 0, "size is %llu (want 0)", (unsigned long long)a.size);

	nfsc_sattr_none(&sa);
	sa.atime.set_it = SET_TO_CLIENT_TIME;
	sa.atime.set_atime_u.atime.seconds = 1000000000;
	sa.atime.set_atime_u.atime.nseconds = 123456789;
	sa.mtime.set_it = SET_TO_CLIENT_TIME;
	sa.mtime.set_mtime_u.mtime.seconds = 1200000000;
	sa.mtime.set_mtime_u.mtime.nseconds = 987654321;
	ST(nfsc_setattr(&rc, &f, &sa), "SETATTR atime/mtime to client time",
	   NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR", NFS3_OK);
	tc_ok(a.atime.seconds == 1000000000 && a.atime.nseconds == 123456789,
	      "atime is %u.%09u (want 1000000000.123456789)", a.atime.seconds,
	      a.atime.nseconds);
	tc_ok(a.mtime.seconds == 1200000000 && a.mtime.nseconds == 987654321,
	      "mtime is %u.%09u (want 1200000000.987654321)", a.mtime.seconds,
	      a.mtime.nseconds);

	nfsc_sattr_none(&sa);
	sa.mtime.set_it = SET_TO_SERVER_TIME;
	ST(nfsc_setattr(&rc, &f, &sa), "SETATTR mtime to server time", NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR", NFS3_OK);
	now = time(NULL);
	tc_ok(a.mtime.seconds + 120 >= (unsigned)now &&
		      a.mtime.seconds <= (unsigned)now + 120,
	      "mtime set to server time %u (now %ld)", a.mtime.seconds,
	      (long)now);
	tc_ok(a.atime.seconds == 1000000000,
	      "atime unchanged by an mtime-only setattr (%u)", a.atime.seconds);
	nfsc_sattr_none(&sa);
	sa.atime.set_it = SET_TO_SERVER_TIME;
	ST(nfsc_setattr(&rc, &f, &sa), "SETATTR atime to server time", NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR", NFS3_OK);
	tc_ok(a.atime.seconds + 120 >= (unsigned)now &&
		      a.atime.seconds <= (unsigned)now + 120,
	      "atime set to server time %u (now %ld)", a.atime.seconds,
	      (long)now);

	/* Guarded setattr: a stale ctime guard is refused with NOT_SYNC, the right one passes. */
	ST(nfsc_getattr(&rc, &f, &before), "GETATTR for guard", NFS3_OK);
	nfsc_sattr_mode(&sa, 0600);
	{
		nfstime3 bad = before.ctime;

		bad.seconds -= 1000;
		ST(nfsc_setattr_guard(&rc, &f, &sa, &bad),
		   "SETATTR with a stale ctime guard -> NOT_SYNC",
		   NFS3ERR_NOT_SYNC);
	}
	ST(nfsc_setattr_guard(&rc, &f, &sa, &before.ctime),
	   "SETATTR with the current ctime guard", NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR", NFS3_OK);
	tc_ok((a.mode & 07777) == 0600, "guarded setattr applied: mode %o",
	      a.mode & 07777);

	ST(nfsc_mkdir(&rc, &top, "sadir", 0755, &d, NULL), "MKDIR sadir",
	   NFS3_OK);
	nfsc_sattr_mode(&sa, 01777);
	ST(nfsc_setattr(&rc, &d, &sa), "SETATTR mode 1777 on a directory",
	   NFS3_OK);
	ST(nfsc_getattr(&rc, &d, &a), "GETATTR", NFS3_OK);
	tc_ok((a.mode & 07777) == 01777, "directory mode is %o",
	      a.mode & 07777);
	nfsc_sattr_size(&sa, 0);
	ST(nfsc_setattr(&rc, &d, &sa), "SETATTR size on a directory fails",
	   NFS3ERR_ISDIR, NFS3ERR_INVAL, NFS3ERR_BADTYPE);
}

/* ---------------------------------------------------------------- mknod, symlink, link */
static void t_special(void)
{
	struct nfsc_fh f, s, l, d;
	fattr3 a;
	char buf[1024];
	static const char target[] = "../some/where/over the rainbow";

	it_note("mknod, symlink/readlink, link");
	ST(nfsc_mknod(&rc, &top, "fifo", NF3FIFO, 0640, 0, 0, &f, NULL),
	   "MKNOD fifo", NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR fifo", NFS3_OK);
	tc_ok(a.type == NF3FIFO && (a.mode & 07777) == 0640,
	      "fifo: type %d mode %o", a.type, a.mode & 07777);
	ST(nfsc_mknod(&rc, &top, "sock", NF3SOCK, 0600, 0, 0, &f, NULL),
	   "MKNOD socket", NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR socket", NFS3_OK);
	tc_ok(a.type == NF3SOCK, "socket: type %d", a.type);
	ST(nfsc_mknod(&rc, &top, "chr", NF3CHR, 0644, 1, 3, &f, NULL),
	   "MKNOD char device 1:3", NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR chr", NFS3_OK);
	tc_ok(a.type == NF3CHR && a.rdev.specdata1 == 1 &&
		      a.rdev.specdata2 == 3,
	      "chr: type %d rdev %u:%u", a.type, a.rdev.specdata1,
	      a.rdev.specdata2);
	ST(nfsc_mknod(&rc, &top, "blk", NF3BLK, 0644, 7, 42, &f, NULL),
	   "MKNOD block device 7:42", NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR blk", NFS3_OK);
	tc_ok(a.type == NF3BLK && a.rdev.specdata1 == 7 &&
		      a.rdev.specdata2 == 42,
	      "blk: type %d rdev %u:%u", a.type, a.rdev.specdata1,
	      a.rdev.specdata2);
	ST(nfsc_mknod(&rc, &top, "fifo", NF3FIFO, 0640, 0, 0, NULL, NULL),
	   "MKNOD existing name -> EEXIST", NFS3ERR_EXIST);
	ST(nfsc_mknod(&rc, &top, "reg", NF3REG, 0640, 0, 0, NULL, NULL),
	   "MKNOD of a regular file -> BADTYPE", NFS3ERR_BADTYPE);

	ST(nfsc_symlink(&rc, &top, "sym", target, &s, NULL), "SYMLINK sym",
	   NFS3_OK);
	ST(nfsc_getattr(&rc, &s, &a), "GETATTR symlink", NFS3_OK);
	tc_ok(a.type == NF3LNK && a.size == strlen(target),
	      "symlink: type %d size %llu", a.type, (unsigned long long)a.size);
	ST(nfsc_readlink(&rc, &s, buf, sizeof(buf)), "READLINK sym", NFS3_OK);
	tc_ok(strcmp(buf, target) == 0, "READLINK returns the target (\"%s\")",
	      buf);
	ST(nfsc_lookup(&rc, &top, "sym", &l, NULL), "LOOKUP sym (not followed)",
	   NFS3_OK);
	tc_ok(same_file(&l, &s), "LOOKUP of a symlink returns the link itself");
	ST(nfsc_symlink(&rc, &top, "sym", "x", NULL, NULL),
	   "SYMLINK existing name -> EEXIST", NFS3ERR_EXIST);
	ST(nfsc_create(&rc, &top, "lnkfile", GUARDED, 0644, NULL, &f, NULL),
	   "CREATE lnkfile", NFS3_OK);
	ST(nfsc_readlink(&rc, &f, buf, sizeof(buf)),
	   "READLINK of a regular file -> EINVAL", NFS3ERR_INVAL);

	ST(nfsc_mkdir(&rc, &top, "lnkdir", 0755, &d, NULL), "MKDIR lnkdir",
	   NFS3_OK);
	ST(nfsc_link(&rc, &f, &d, "hard", &a), "LINK lnkfile -> lnkdir/hard",
	   NFS3_OK);
	tc_ok(a.nlink == 2, "LINK post-op attributes: nlink %u (want 2)",
	      a.nlink);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR lnkfile", NFS3_OK);
	tc_ok(a.nlink == 2, "GETATTR nlink %u (want 2)", a.nlink);
	ST(nfsc_lookup(&rc, &d, "hard", &l, NULL), "LOOKUP lnkdir/hard",
	   NFS3_OK);
	tc_ok(same_file(&l, &f), "the hard link is the same file");
	ST(nfsc_link(&rc, &f, &d, "hard", NULL),
	   "LINK onto an existing name -> EEXIST", NFS3ERR_EXIST);
	ST(nfsc_link(&rc, &f, &f, "x", NULL),
	   "LINK into a regular file -> ENOTDIR", NFS3ERR_NOTDIR);
	ST(nfsc_link(&rc, &d, &top, "dirlink", NULL),
	   "LINK of a directory is refused", NFS3ERR_ISDIR, NFS3ERR_PERM,
	   NFS3ERR_INVAL, NFS3ERR_NOTSUPP, NFS3ERR_BADTYPE);
	ST(nfsc_remove(&rc, &top, "lnkfile"), "REMOVE one of the two names",
	   NFS3_OK);
	ST(nfsc_getattr(&rc, &l, &a), "GETATTR through the remaining link",
	   NFS3_OK);
	tc_ok(a.nlink == 1, "nlink back to %u (want 1)", a.nlink);
}

/* ---------------------------------------------------------------- rename */
static void t_rename(void)
{
	struct nfsc_fh d1, d2, e1, e2, x;
	uint64_t ida, idc, idd;

	it_note("rename: files and directories, onto existing targets, across directories");
	ST(nfsc_mkdir(&rc, &top, "r1", 0755, &d1, NULL), "MKDIR r1", NFS3_OK);
	ST(nfsc_mkdir(&rc, &top, "r2", 0755, &d2, NULL), "MKDIR r2", NFS3_OK);
	ST(nfsc_create(&rc, &d1, "a", GUARDED, 0644, NULL, NULL, NULL),
	   "CREATE r1/a", NFS3_OK);
	ST(nfsc_create(&rc, &d1, "c", GUARDED, 0644, NULL, NULL, NULL),
	   "CREATE r1/c", NFS3_OK);
	ida = fileid_of(&d1, "a");
	idc = fileid_of(&d1, "c");
	ST(nfsc_rename(&rc, &d1, "a", &d1, "b"), "RENAME r1/a -> r1/b",
	   NFS3_OK);
	ST(nfsc_lookup(&rc, &d1, "a", NULL, NULL), "old name is gone",
	   NFS3ERR_NOENT);
	tc_ok(fileid_of(&d1, "b") == ida, "new name is the same file");
	ST(nfsc_rename(&rc, &d1, "b", &d1, "c"),
	   "RENAME r1/b onto existing file r1/c", NFS3_OK);
	tc_ok(fileid_of(&d1, "c") == ida && ida != idc,
	      "r1/c is now the renamed file");
	ST(nfsc_lookup(&rc, &d1, "b", NULL, NULL), "r1/b is gone",
	   NFS3ERR_NOENT);
	ST(nfsc_rename(&rc, &d1, "c", &d2, "moved"),
	   "RENAME r1/c -> r2/moved (across directories)", NFS3_OK);
	tc_ok(fileid_of(&d2, "moved") == ida, "r2/moved is the file");
	ST(nfsc_lookup(&rc, &d1, "c", NULL, NULL), "r1/c is gone",
	   NFS3ERR_NOENT);
	ST(nfsc_rename(&rc, &d1, "missing", &d2, "x"),
	   "RENAME of a missing name -> ENOENT", NFS3ERR_NOENT);

	ST(nfsc_mkdir(&rc, &d1, "e1", 0755, &e1, NULL), "MKDIR r1/e1", NFS3_OK);
	ST(nfsc_create(&rc, &e1, "inside", GUARDED, 0644, NULL, NULL, NULL),
	   "CREATE r1/e1/inside", NFS3_OK);
	ST(nfsc_mkdir(&rc, &d2, "e2", 0755, &e2, NULL), "MKDIR r2/e2 (empty)",
	   NFS3_OK);
	idd = fileid_of(&d1, "e1");
	ST(nfsc_rename(&rc, &d1, "e1", &d2, "e2"),
	   "RENAME directory r1/e1 onto empty directory r2/e2 (across directories)",
	   NFS3_OK);
	tc_ok(fileid_of(&d2, "e2") == idd, "r2/e2 is the moved directory");
	ST(nfsc_lookup(&rc, &d2, "e2", &x, NULL), "LOOKUP r2/e2", NFS3_OK);
	ST(nfsc_lookup(&rc, &x, "inside", NULL, NULL),
	   "its content moved with it", NFS3_OK);
	ST(nfsc_lookup(&rc, &x, "..", &e1, NULL), "LOOKUP r2/e2/..", NFS3_OK);
	tc_ok(same_file(&e1, &d2),
	      ".. of the moved directory is its new parent");

	ST(nfsc_mkdir(&rc, &d1, "full", 0755, NULL, NULL), "MKDIR r1/full",
	   NFS3_OK);
	ST(nfsc_rename(&rc, &d1, "full", &d2, "e2"),
	   "RENAME directory onto a non-empty directory", NFS3ERR_NOTEMPTY,
	   NFS3ERR_EXIST);
	ST(nfsc_create(&rc, &d1, "f", GUARDED, 0644, NULL, NULL, NULL),
	   "CREATE r1/f", NFS3_OK);
	ST(nfsc_rename(&rc, &d1, "f", &d1, "full"),
	   "RENAME file onto a directory -> EISDIR", NFS3ERR_ISDIR,
	   NFS3ERR_EXIST);
	ST(nfsc_rename(&rc, &d1, "full", &d1, "f"),
	   "RENAME directory onto a file -> ENOTDIR", NFS3ERR_NOTDIR,
	   NFS3ERR_EXIST);
	ST(nfsc_lookup(&rc, &d2, "e2", &x, NULL), "LOOKUP r2/e2", NFS3_OK);
	ST(nfsc_rename(&rc, &d2, "e2", &x, "into-itself"),
	   "RENAME a directory into itself -> EINVAL", NFS3ERR_INVAL);
	ST(nfsc_rename(&rc, &d1, "f", &d1, "f"),
	   "RENAME onto itself is a no-op", NFS3_OK);
	ST(nfsc_lookup(&rc, &d1, "f", NULL, NULL), "r1/f still exists",
	   NFS3_OK);
}

/* ---------------------------------------------------------------- remove / rmdir */
static void t_remove(void)
{
	struct nfsc_fh d, f;

	it_note("remove / rmdir");
	ST(nfsc_mkdir(&rc, &top, "rm", 0755, &d, NULL), "MKDIR rm", NFS3_OK);
	ST(nfsc_create(&rc, &d, "f", GUARDED, 0644, NULL, &f, NULL),
	   "CREATE rm/f", NFS3_OK);
	ST(nfsc_mkdir(&rc, &d, "sub", 0755, NULL, NULL), "MKDIR rm/sub",
	   NFS3_OK);
	ST(nfsc_rmdir(&rc, &top, "rm"), "RMDIR non-empty -> ENOTEMPTY",
	   NFS3ERR_NOTEMPTY, NFS3ERR_EXIST);
	ST(nfsc_rmdir(&rc, &d, "f"), "RMDIR of a file -> ENOTDIR",
	   NFS3ERR_NOTDIR);
	ST(nfsc_remove(&rc, &d, "sub"), "REMOVE of a directory fails",
	   NFS3ERR_ISDIR, NFS3ERR_PERM, NFS3ERR_ACCES, NFS3ERR_NOTEMPTY);
	ST(nfsc_remove(&rc, &d, "nope"), "REMOVE missing -> ENOENT",
	   NFS3ERR_NOENT);
	ST(nfsc_rmdir(&rc, &d, "nope"), "RMDIR missing -> ENOENT",
	   NFS3ERR_NOENT);
	ST(nfsc_remove(&rc, &d, "f"), "REMOVE rm/f", NFS3_OK);
	ST(nfsc_lookup(&rc, &d, "f", NULL, NULL), "removed file is gone",
	   NFS3ERR_NOENT);
	ST(nfsc_getattr(&rc, &f, NULL),
	   "GETATTR of a removed file's handle -> ESTALE", NFS3ERR_STALE);
	ST(nfsc_rmdir(&rc, &d, "sub"), "RMDIR rm/sub", NFS3_OK);
	ST(nfsc_rmdir(&rc, &top, "rm"), "RMDIR rm (now empty)", NFS3_OK);
	ST(nfsc_lookup(&rc, &top, "rm", NULL, NULL),
	   "removed directory is gone", NFS3ERR_NOENT);
	ST(nfsc_getattr(&rc, &d, NULL),
	   "GETATTR of a removed directory's handle -> ESTALE", NFS3ERR_STALE);
}

/* ---------------------------------------------------------------- permissions */
/* fs.protected_hardlinks of the server (this machine): 1 when on */
static bool protected_hardlinks(void)
{
	FILE *f = fopen("/proc/sys/fs/protected_hardlinks", "r");
	int v = 0;

	if (f == NULL)
		return false;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v == 1;
}

/* LINK runs as the caller (FSAL_DONTCACHE): with fs.protected_hardlinks the
 * kernel refuses a user a link to a file it neither owns nor may read and
 * write, or to a setuid one, as it would a local user. */
static void t_link_protected(const struct nfsc_fh *priv,
			     const struct nfsc_fh *secret,
			     const struct nfsc_fh *shared,
			     const struct nfsc_fh *pub,
			     const struct nfsc_fh *mine)
{
	struct nfsc_fh suid;
	sattr3 sa;
	fattr3 a;

	if (!strict || !protected_hardlinks()) {
		it_note("LINK under fs.protected_hardlinks: not checked (%s)",
			strict ? "the sysctl is off" : "not FSAL_DONTCACHE");
		return;
	}
	ST(nfsc_link(&uc, secret, pub, "secret-link", NULL),
	   "LINK of root's 0600 file as user -> EPERM (protected_hardlinks)",
	   NFS3ERR_PERM);
	ST(nfsc_lookup(&rc, pub, "secret-link", NULL, NULL), "no link was made",
	   NFS3ERR_NOENT);
	ST(nfsc_link(&uc, shared, pub, "shared-link", NULL),
	   "LINK of root's 0644 file as user -> EPERM (not writable by the user)",
	   NFS3ERR_PERM);
	ST(nfsc_create(&rc, priv, "suid", GUARDED, 0755, NULL, &suid, NULL),
	   "CREATE priv/suid", NFS3_OK);
	nfsc_sattr_mode(&sa, 04777);
	ST(nfsc_setattr(&rc, &suid, &sa), "SETATTR suid 04777 as root",
	   NFS3_OK);
	ST(nfsc_getattr(&rc, &suid, &a), "GETATTR suid", NFS3_OK);
	tc_ok((a.mode & 04000) != 0, "suid is setuid (mode %o)", a.mode);
	ST(nfsc_link(&uc, &suid, pub, "suid-link", NULL),
	   "LINK of a setuid-root file (writable by all) as user -> EPERM",
	   NFS3ERR_PERM);
	ST(nfsc_link(&uc, mine, pub, "mine-link", &a),
	   "LINK of the user's own file as user", NFS3_OK);
	tc_ok(a.nlink == 2, "own file linked: nlink %u (want 2)", a.nlink);
	ST(nfsc_link(&rc, secret, pub, "root-link", NULL),
	   "LINK of root's 0600 file as root", NFS3_OK);
}

static void t_access(void)
{
	struct nfsc_fh priv, pub, secret, shared, mine;
	fattr3 a;
	uint32_t granted = 0, cnt;
	char buf[16];
	sattr3 sa;
	const uint32_t all = ACCESS3_READ | ACCESS3_LOOKUP | ACCESS3_MODIFY |
			     ACCESS3_EXTEND | ACCESS3_DELETE | ACCESS3_EXECUTE;

	it_note("permissions as uid %d (AUTH_SYS): EACCES/EPERM and ACCESS",
		user_id);
	ST(nfsc_mkdir(&rc, &top, "priv", 0755, &priv, NULL),
	   "MKDIR priv 0755 (root)", NFS3_OK);
	ST(nfsc_mkdir(&rc, &top, "pub", 0777, &pub, NULL), "MKDIR pub 0777",
	   NFS3_OK);
	/* mkdir mode is subject to the server's umask */
	nfsc_sattr_mode(&sa, 0777);
	ST(nfsc_setattr(&rc, &pub, &sa), "SETATTR pub 0777", NFS3_OK);
	ST(nfsc_create(&rc, &priv, "secret", GUARDED, 0600, NULL, &secret,
		       NULL),
	   "CREATE priv/secret 0600", NFS3_OK);
	ST(nfsc_write(&rc, &secret, 0, "secret", 6, FILE_SYNC, &cnt, NULL,
		      NULL),
	   "WRITE secret", NFS3_OK);
	ST(nfsc_create(&rc, &priv, "shared", GUARDED, 0644, NULL, &shared,
		       NULL),
	   "CREATE priv/shared 0644", NFS3_OK);
	/* One victim per refused operation, so that one wrongly allowed operation does not
	 * change what the next check sees. */
	ST(nfsc_create(&rc, &priv, "victim-remove", GUARDED, 0666, NULL, NULL,
		       NULL),
	   "CREATE priv/victim-remove 0666", NFS3_OK);
	ST(nfsc_create(&rc, &priv, "victim-rename", GUARDED, 0666, NULL, NULL,
		       NULL),
	   "CREATE priv/victim-rename 0666", NFS3_OK);

	ST(nfsc_access(&rc, &secret, all, &granted), "ACCESS as root", NFS3_OK);
	tc_ok((granted & (ACCESS3_READ | ACCESS3_MODIFY)) ==
		      (ACCESS3_READ | ACCESS3_MODIFY),
	      "root is granted READ|MODIFY on a 0600 file (granted %#x)",
	      granted);
	ST(nfsc_access(&uc, &secret, ACCESS3_READ | ACCESS3_MODIFY, &granted),
	   "ACCESS as user", NFS3_OK);
	tc_ok((granted & (ACCESS3_READ | ACCESS3_MODIFY)) == 0,
	      "user is granted neither READ nor MODIFY on root's 0600 file (granted %#x)",
	      granted);
	ST(nfsc_access(&uc, &shared, ACCESS3_READ | ACCESS3_MODIFY, &granted),
	   "ACCESS as user", NFS3_OK);
	tc_ok(granted == ACCESS3_READ,
	      "user is granted READ only on root's 0644 file (granted %#x)",
	      granted);
	ST(nfsc_access(&uc, &priv,
		       ACCESS3_LOOKUP | ACCESS3_MODIFY | ACCESS3_EXTEND,
		       &granted),
	   "ACCESS dir as user", NFS3_OK);
	tc_ok(granted == ACCESS3_LOOKUP,
	      "user is granted LOOKUP but not MODIFY/EXTEND on root's 0755 dir (granted %#x)",
	      granted);

	ST(nfsc_read(&uc, &secret, 0, sizeof(buf), buf, NULL, NULL),
	   "READ root's 0600 file as user -> EACCES", NFS3ERR_ACCES);
	ST(nfsc_write(&uc, &shared, 0, "x", 1, FILE_SYNC, NULL, NULL, NULL),
	   "WRITE root's 0644 file as user -> EACCES", NFS3ERR_ACCES);
	ST(nfsc_create(&uc, &priv, "nope", GUARDED, 0644, NULL, NULL, NULL),
	   "CREATE in root's 0755 dir as user -> EACCES", NFS3ERR_ACCES);
	ST(nfsc_mkdir(&uc, &priv, "nope", 0755, NULL, NULL),
	   "MKDIR in root's 0755 dir as user -> EACCES", NFS3ERR_ACCES);
	ST(nfsc_remove(&uc, &priv, "victim-remove"),
	   "REMOVE in root's 0755 dir as user -> EACCES", NFS3ERR_ACCES);
	ST(nfsc_lookup(&rc, &priv, "victim-remove", NULL, NULL),
	   "the file is still there", NFS3_OK);
	ST(nfsc_rename(&uc, &priv, "victim-rename", &pub, "stolen"),
	   "RENAME out of root's 0755 dir as user -> EACCES", NFS3ERR_ACCES);
	ST(nfsc_lookup(&rc, &priv, "victim-rename", NULL, NULL),
	   "the file is still there", NFS3_OK);
	ST(nfsc_link(&uc, &shared, &priv, "user-link", NULL),
	   "LINK into root's 0755 dir as user -> EACCES", NFS3ERR_ACCES);
	ST(nfsc_rmdir(&uc, &top, "priv"),
	   "RMDIR of root's dir in root's 0755 dir as user -> EACCES",
	   NFS3ERR_ACCES, NFS3ERR_NOTEMPTY);
	ST(nfsc_symlink(&uc, &priv, "nope", "t", NULL, NULL),
	   "SYMLINK in root's 0755 dir as user -> EACCES", NFS3ERR_ACCES);
	nfsc_sattr_mode(&sa, 0666);
	ST(nfsc_setattr(&uc, &shared, &sa),
	   "SETATTR mode of root's file as user -> EPERM", NFS3ERR_PERM,
	   NFS3ERR_ACCES);
	nfsc_sattr_none(&sa);
	sa.uid.set_it = 1;
	sa.uid.set_uid3_u.uid = user_id;
	ST(nfsc_setattr(&uc, &shared, &sa),
	   "SETATTR chown to self as user -> EPERM", NFS3ERR_PERM,
	   NFS3ERR_ACCES);

	ST(nfsc_create(&uc, &pub, "mine", GUARDED, 0640, NULL, &mine, &a),
	   "CREATE in a 0777 dir as user", NFS3_OK);
	ST(nfsc_getattr(&rc, &mine, &a), "GETATTR", NFS3_OK);
	tc_ok(a.uid == (unsigned)user_id && a.gid == (unsigned)user_id,
	      "file created by the user is owned by %u:%u (want %d:%d)", a.uid,
	      a.gid, user_id, user_id);
	ST(nfsc_mkdir(&uc, &pub, "mydir", 0755, NULL, &a),
	   "MKDIR in a 0777 dir as user", NFS3_OK);
	tc_ok(a.uid == (unsigned)user_id,
	      "directory created by the user is owned by %u", a.uid);
	ST(nfsc_write(&uc, &mine, 0, "mine", 4, FILE_SYNC, &cnt, NULL, NULL),
	   "WRITE own file as user", NFS3_OK);
	nfsc_sattr_mode(&sa, 0600);
	ST(nfsc_setattr(&uc, &mine, &sa), "SETATTR mode of own file as user",
	   NFS3_OK);
	nfsc_sattr_size(&sa, 2);
	ST(nfsc_setattr(&uc, &mine, &sa), "SETATTR size of own file as user",
	   NFS3_OK);
	ST(nfsc_setattr(&uc, &shared, &sa),
	   "SETATTR size of root's 0644 file as user -> EACCES", NFS3ERR_ACCES,
	   NFS3ERR_PERM);
	t_link_protected(&priv, &secret, &shared, &pub, &mine);
}

/* ---------------------------------------------------------------- read / write / commit */
static void t_io(void)
{
	enum { SZ = 3 * 65536 + 1234 };
	static unsigned char data[SZ], back[SZ + 100];
	struct nfsc_fh f, d;
	uint32_t cnt, got;
	stable_how how;
	char v1[8], v2[8], v3[8], vc[8];
	bool eof;
	fattr3 a;
	uint64_t off;
	int st;

	it_note("read / write / commit");
	fill(data, SZ, 7);
	ST(nfsc_create(&rc, &top, "io", GUARDED, 0644, NULL, &f, NULL),
	   "CREATE io", NFS3_OK);
	ST(nfsc_write(&rc, &f, 0, data, 65536, UNSTABLE, &cnt, &how, v1),
	   "WRITE UNSTABLE 64 KiB", NFS3_OK);
	tc_ok(cnt == 65536, "UNSTABLE write count %u", cnt);
	ST(nfsc_write(&rc, &f, 65536, data + 65536, 65536, DATA_SYNC, &cnt,
		      &how, v2),
	   "WRITE DATA_SYNC 64 KiB", NFS3_OK);
	tc_ok(cnt == 65536 && how >= DATA_SYNC,
	      "DATA_SYNC write: count %u committed %d", cnt, how);
	ST(nfsc_write(&rc, &f, 131072, data + 131072, SZ - 131072, FILE_SYNC,
		      &cnt, &how, v3),
	   "WRITE FILE_SYNC rest", NFS3_OK);
	tc_ok(cnt == SZ - 131072 && how == FILE_SYNC,
	      "FILE_SYNC write: count %u committed %d", cnt, how);
	tc_ok(memcmp(v1, v2, 8) == 0 && memcmp(v2, v3, 8) == 0,
	      "all writes carry the same write verifier");
	ST(nfsc_commit(&rc, &f, 0, 0, vc), "COMMIT whole file", NFS3_OK);
	tc_ok(memcmp(vc, v1, 8) == 0,
	      "COMMIT verifier equals the WRITE verifier");
	ST(nfsc_commit(&rc, &f, 4096, 8192, vc), "COMMIT a range", NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR", NFS3_OK);
	tc_ok(a.size == SZ, "size after writes %llu (want %d)",
	      (unsigned long long)a.size, SZ);

	memset(back, 0, sizeof(back));
	for (off = 0, st = NFS3_OK, eof = false; !eof && off < SZ + 10;) {
		st = nfsc_read(&rc, &f, off, 7000, back + off, &got, &eof);
		if (st != NFS3_OK || (got == 0 && !eof))
			break;
		off += got;
	}
	tc_ok(st == NFS3_OK && off == SZ && eof,
	      "READ in 7000-byte pieces: %llu bytes, eof %d, %s",
	      (unsigned long long)off, eof, it_st(st));
	tc_ok(memcmp(back, data, SZ) == 0,
	      "data read back equals data written");
	ST(nfsc_read(&rc, &f, SZ + 100, 100, back, &got, &eof),
	   "READ beyond EOF", NFS3_OK);
	tc_ok(got == 0 && eof,
	      "READ beyond EOF returns 0 bytes and eof (got %u eof %d)", got,
	      eof);
	ST(nfsc_read(&rc, &f, SZ - 10, 100, back, &got, &eof),
	   "READ across EOF", NFS3_OK);
	tc_ok(got == 10 && eof,
	      "READ across EOF returns the tail and eof (got %u eof %d)", got,
	      eof);

	/* Overwrite in the middle, sparse extend. */
	ST(nfsc_write(&rc, &f, 1000, "XYZ", 3, FILE_SYNC, &cnt, NULL, NULL),
	   "WRITE overwrite middle", NFS3_OK);
	ST(nfsc_read(&rc, &f, 999, 5, back, &got, NULL), "READ it back",
	   NFS3_OK);
	tc_ok(got == 5 && back[0] == data[999] &&
		      memcmp(back + 1, "XYZ", 3) == 0 && back[4] == data[1003],
	      "overwrite landed exactly");
	ST(nfsc_write(&rc, &f, 10 << 20, "end", 3, UNSTABLE, &cnt, NULL, NULL),
	   "WRITE at 10 MiB (sparse extend)", NFS3_OK);
	ST(nfsc_read(&rc, &f, (10 << 20) - 4, 4, back, &got, NULL),
	   "READ the hole", NFS3_OK);
	tc_ok(got == 4 && !back[0] && !back[1] && !back[2] && !back[3],
	      "hole reads as zeros");
	ST(nfsc_commit(&rc, &f, 0, 0, NULL), "COMMIT", NFS3_OK);
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR", NFS3_OK);
	tc_ok(a.size == (10 << 20) + 3, "size after sparse write %llu",
	      (unsigned long long)a.size);

	ST(nfsc_write(&rc, &f, 0, "", 0, FILE_SYNC, &cnt, NULL, NULL),
	   "WRITE of 0 bytes", NFS3_OK);

	/* EFBIG: beyond the filesystem's maximum file size (ext4: 16 TiB), and beyond 2^63. */
	if (small_maxfile)
		ST(nfsc_write(&rc, &f, 1ULL << 62, "big", 3, FILE_SYNC, &cnt,
			      NULL, NULL),
		   "WRITE at offset 2^62 (beyond the filesystem's max file size) -> EFBIG",
		   NFS3ERR_FBIG);
	ST(nfsc_write(&rc, &f, (1ULL << 63) - 10, "0123456789abcdef", 16,
		      UNSTABLE, &cnt, NULL, NULL),
	   "WRITE crossing offset 2^63 -> EFBIG", NFS3ERR_FBIG);
	{
		sattr3 sa;

		nfsc_sattr_size(&sa, 1ULL << 62);
		if (small_maxfile)
			ST(nfsc_setattr(&rc, &f, &sa),
			   "SETATTR size 2^62 -> EFBIG", NFS3ERR_FBIG);
	}
	ST(nfsc_getattr(&rc, &f, &a), "GETATTR", NFS3_OK);
	tc_ok(a.size == (10 << 20) + 3, "size unchanged by failed writes: %llu",
	      (unsigned long long)a.size);

	ST(nfsc_mkdir(&rc, &top, "iodir", 0755, &d, NULL), "MKDIR iodir",
	   NFS3_OK);
	ST(nfsc_write(&rc, &d, 0, "x", 1, FILE_SYNC, NULL, NULL, NULL),
	   "WRITE to a directory -> EISDIR", NFS3ERR_ISDIR, NFS3ERR_INVAL);
	ST(nfsc_read(&rc, &d, 0, 10, back, NULL, NULL),
	   "READ of a directory -> EISDIR", NFS3ERR_ISDIR, NFS3ERR_INVAL);
	ST(nfsc_lookup(&rc, &top, "sym-io", NULL, NULL), "no sym-io yet",
	   NFS3ERR_NOENT);
	ST(nfsc_symlink(&rc, &top, "sym-io", "io", &d, NULL), "SYMLINK sym-io",
	   NFS3_OK);
	ST(nfsc_read(&rc, &d, 0, 10, back, NULL, NULL),
	   "READ of a symlink fails", NFS3ERR_INVAL, NFS3ERR_ISDIR,
	   NFS3ERR_BADTYPE);
}

/* ---------------------------------------------------------------- fs-wide */
static void t_fsinfo(void)
{
	FSSTAT3resok s;
	FSINFO3resok i;
	PATHCONF3resok p;

	it_note("fsstat / fsinfo / pathconf");
	ST(nfsc_fsstat(&rc, &rc.root, &s), "FSSTAT", NFS3_OK);
	tc_ok(s.tbytes > 0 && s.fbytes <= s.tbytes && s.abytes <= s.fbytes &&
		      s.tfiles > 0 && s.ffiles <= s.tfiles,
	      "FSSTAT totals: tbytes %llu fbytes %llu abytes %llu tfiles %llu ffiles %llu",
	      (unsigned long long)s.tbytes, (unsigned long long)s.fbytes,
	      (unsigned long long)s.abytes, (unsigned long long)s.tfiles,
	      (unsigned long long)s.ffiles);
	ST(nfsc_fsstat(&rc, &top, &s), "FSSTAT on a subdirectory handle",
	   NFS3_OK);
	ST(nfsc_fsinfo(&rc, &rc.root, &i), "FSINFO", NFS3_OK);
	tc_ok(i.rtmax >= 4096 && i.wtmax >= 4096 && i.rtpref > 0 &&
		      i.wtpref > 0 && i.dtpref > 0,
	      "FSINFO sizes: rtmax %u wtmax %u rtpref %u wtpref %u dtpref %u",
	      i.rtmax, i.wtmax, i.rtpref, i.wtpref, i.dtpref);
	tc_ok(i.maxfilesize >= (1ULL << 40), "FSINFO maxfilesize %llu",
	      (unsigned long long)i.maxfilesize);
	tc_ok((i.properties & (FSF3_LINK | FSF3_SYMLINK | FSF3_CANSETTIME)) ==
		      (FSF3_LINK | FSF3_SYMLINK | FSF3_CANSETTIME),
	      "FSINFO properties %#x include LINK|SYMLINK|CANSETTIME",
	      i.properties);
	ST(nfsc_pathconf(&rc, &rc.root, &p), "PATHCONF", NFS3_OK);
	/* ext4's NAME_MAX is 255 (a 256-byte name gets ENAMETOOLONG above); stock VFS reports
	 * ganesha's default 1024, so only the module under test is held to the truth. */
	tc_ok((strict ? p.name_max == 255 : p.name_max >= 255) &&
		      p.linkmax >= 1 && p.no_trunc && p.case_preserving &&
		      !p.case_insensitive,
	      "PATHCONF name_max %u linkmax %u no_trunc %u case_preserving %u case_insensitive %u",
	      p.name_max, p.linkmax, p.no_trunc, p.case_preserving,
	      p.case_insensitive);
}

/* ---------------------------------------------------------------- readdir */
static void t_readdir(void)
{
	enum { N = 300 };
	struct nfsc_fh d;
	struct nfsc_dirlist l = { 0 };
	static char seen[N];
	char name[64];
	size_t i;
	int st, dots = 0, bad = 0, dup = 0, attrs = 0, fhs = 0, fhok = 0;

	it_note("readdir / readdirplus with cookies resumed across calls");
	ST(nfsc_mkdir(&rc, &top, "rd", 0755, &d, NULL), "MKDIR rd", NFS3_OK);
	for (i = 0, st = NFS3_OK; i < N && st == NFS3_OK; i++) {
		snprintf(name, sizeof(name), "entry-%04zu-with-a-longer-name",
			 i);
		st = (i % 3 == 0) ? nfsc_mkdir(&rc, &d, name, 0755, NULL, NULL)
				  : nfsc_create(&rc, &d, name, GUARDED, 0644,
						NULL, NULL, NULL);
	}
	tc_ok(st == NFS3_OK, "created %d entries (%s)", N, it_st(st));

	for (int plus = 0; plus <= 1; plus++) {
		memset(seen, 0, sizeof(seen));
		dots = bad = dup = attrs = fhs = fhok = 0;
		st = nfsc_readdir_all(&rc, &d, plus, 1024, &l);
		tc_ok(st == NFS3_OK,
		      "%s of %d entries with count 1024: %s (%u calls)",
		      plus ? "READDIRPLUS" : "READDIR", N, it_st(st), l.calls);
		tc_ok(l.calls >= 5,
		      "%s needed several calls (%u): cookies were resumed",
		      plus ? "READDIRPLUS" : "READDIR", l.calls);
		for (i = 0; i < l.n; i++) {
			unsigned idx;

			if (!strcmp(l.e[i].name, ".") ||
			    !strcmp(l.e[i].name, "..")) {
				dots++;
				continue;
			}
			if (sscanf(l.e[i].name, "entry-%4u-with-a-longer-name",
				   &idx) != 1 ||
			    idx >= N) {
				bad++;
				continue;
			}
			if (seen[idx]++)
				dup++;
			if (l.e[i].has_attr &&
			    l.e[i].attr.fileid == l.e[i].fileid)
				attrs++;
			if (l.e[i].has_fh) {
				fattr3 a;

				fhs++;
				if (i % 25 == 0) {
					if (nfsc_getattr(&rc, &l.e[i].fh, &a) ==
						    NFS3_OK &&
					    a.fileid == l.e[i].fileid)
						fhok++;
				}
			}
		}
		{
			int missing = 0;

			for (i = 0; i < N; i++)
				missing += !seen[i];
			tc_ok(missing == 0 && dup == 0 && bad == 0,
			      "%s listed every entry once: %zu returned, %d missing, %d duplicates, "
			      "%d unexpected, %d dot entries",
			      plus ? "READDIRPLUS" : "READDIR", l.n, missing,
			      dup, bad, dots);
		}
		if (plus) {
			tc_ok(attrs == N,
			      "READDIRPLUS returned attributes for %d/%d entries",
			      attrs, N);
			tc_ok(fhs == N,
			      "READDIRPLUS returned handles for %d/%d entries",
			      fhs, N);
			tc_ok(fhok >= 1,
			      "handles from READDIRPLUS work with GETATTR (%d sampled ok)",
			      fhok);
		}
		nfsc_dirlist_free(&l);
	}
	/* A READDIR from a cookie of the middle of the listing continues from there. */
	{
		char verf[8] = { 0 };
		bool eof = false;
		size_t half;
		uint64_t cookie;

		struct nfsc_dirlist r = { 0 };

		st = nfsc_readdir_all(&rc, &d, false, 4096, &l);
		if (st != NFS3_OK || l.n < 4) {
			tc_ok(false,
			      "READDIR for the resume test: %s, %zu entries",
			      it_st(st), l.n);
			nfsc_dirlist_free(&l);
			goto resume_done;
		}
		half = l.n / 2;
		cookie = l.e[half - 1].cookie;

		st = nfsc_readdir_once(&rc, &d, false, 0, verf, 512, &r, verf,
				       &eof);
		nfsc_dirlist_free(&r);
		st = nfsc_readdir_once(&rc, &d, false, cookie, verf, 512, &r,
				       verf, &eof);
		tc_ok(st == NFS3_OK && r.n > 0 &&
			      !strcmp(r.e[0].name, l.e[half].name),
		      "READDIR resumed at a saved cookie continues with the next entry (%s: %s vs %s)",
		      it_st(st), r.n ? r.e[0].name : "-", l.e[half].name);
		nfsc_dirlist_free(&r);
		nfsc_dirlist_free(&l);
	}
resume_done:
	ST(nfsc_readdir_once(&rc, &top, false, 0, (char[8]){ 0 }, 1024, &l,
			     NULL, NULL),
	   "READDIR of the working directory", NFS3_OK);
	nfsc_dirlist_free(&l);
	{
		struct nfsc_fh f;

		ST(nfsc_create(&rc, &top, "notadir", GUARDED, 0644, NULL, &f,
			       NULL),
		   "CREATE notadir", NFS3_OK);
		ST(nfsc_readdir_once(&rc, &f, false, 0, (char[8]){ 0 }, 1024,
				     &l, NULL, NULL),
		   "READDIR of a regular file -> ENOTDIR", NFS3ERR_NOTDIR);
		nfsc_dirlist_free(&l);
	}
}

/* ---------------------------------------------------------------- high-level API */
static void t_highlevel(const struct it_opts *o, const char *work)
{
	struct nfs_context *nfs = it_hl_mount(o, 3, -1, -1);
	struct nfsfh *fh = NULL;
	struct nfs_stat_64 st;
	struct nfs_statvfs_64 vfs;
	struct nfsdir *dir;
	struct nfsdirent *de;
	struct timeval tv[2];
	char p[512], q[512], buf[256];
	static unsigned char data[300000], back[300000];
	int r, n;

	it_note("high-level libnfs API (NFSv3)");
	tc_ok(nfs != NULL, "high-level mount of %s", o->export);
	if (!nfs)
		return;
#define P(s) (snprintf(p, sizeof(p), "/%s/%s", work, (s)), p)
#define Q(s) (snprintf(q, sizeof(q), "/%s/%s", work, (s)), q)
	IT_HL(nfs_mkdir2(nfs, P("hl"), 0750), r == 0, "nfs_mkdir2 hl: %d", r);
	IT_HL(nfs_mkdir(nfs, P("hl")), r == -EEXIST,
	      "nfs_mkdir existing -> -EEXIST: %d", r);
	IT_HL(nfs_stat64(nfs, P("hl"), &st),
	      r == 0 && S_ISDIR(st.nfs_mode) && (st.nfs_mode & 07777) == 0750,
	      "nfs_stat64 dir: %d mode %llo", r,
	      (unsigned long long)st.nfs_mode);
	IT_HL(nfs_creat(nfs, P("hl/f"), 0644, &fh), r == 0,
	      "nfs_creat hl/f: %d", r);
	fill(data, sizeof(data), 3);
	if (fh) {
		IT_HL(nfs_pwrite(nfs, fh, 0, sizeof(data), data),
		      r == (int)sizeof(data), "nfs_pwrite 300000 bytes: %d", r);
		IT_HL(nfs_fsync(nfs, fh), r == 0, "nfs_fsync: %d", r);
		IT_HL(nfs_close(nfs, fh), r == 0, "nfs_close: %d", r);
	}
	fh = NULL;
	IT_HL(nfs_open(nfs, P("hl/f"), O_RDONLY, &fh), r == 0,
	      "nfs_open O_RDONLY: %d", r);
	if (fh) {
		memset(back, 0, sizeof(back));
		r = nfs_pread(nfs, fh, 0, sizeof(back), back);
		n = r;
		while (r > 0 && n < (int)sizeof(back)) {
			r = nfs_pread(nfs, fh, n, sizeof(back) - n, back + n);
			if (r > 0)
				n += r;
		}
		tc_ok(n == (int)sizeof(data) &&
			      !memcmp(back, data, sizeof(data)),
		      "nfs_pread returns what was written (%d bytes)", n);
		nfs_close(nfs, fh);
	}
	IT_HL(nfs_open(nfs, P("hl/missing"), O_RDONLY, &fh), r == -ENOENT,
	      "nfs_open missing -> -ENOENT: %d", r);
	IT_HL(nfs_open2(nfs, P("hl/f"), O_CREAT | O_EXCL | O_WRONLY, 0644, &fh),
	      r == -EEXIST, "nfs_open2 O_CREAT|O_EXCL existing -> -EEXIST: %d",
	      r);
	IT_HL(nfs_open2(nfs, P("hl/ex"), O_CREAT | O_EXCL | O_WRONLY, 0604,
			&fh),
	      r == 0, "nfs_open2 O_CREAT|O_EXCL new: %d", r);
	if (r == 0) {
		nfs_close(nfs, fh);
		tc_ok(nfs_stat64(nfs, P("hl/ex"), &st) == 0 &&
			      (st.nfs_mode & 0777) == 0604,
		      "O_EXCL-created file has mode %llo",
		      (unsigned long long)st.nfs_mode & 0777);
	}
	IT_HL(nfs_stat64(nfs, P("hl/f"), &st),
	      r == 0 && st.nfs_size == sizeof(data) && S_ISREG(st.nfs_mode),
	      "nfs_stat64 file: %d size %llu", r,
	      (unsigned long long)st.nfs_size);
	tv[0].tv_sec = 1500000000;
	tv[0].tv_usec = 250000;
	tv[1].tv_sec = 1600000000;
	tv[1].tv_usec = 500000;
	it_hl_setattrs(nfs, P("hl/f"), 0600, 2000, 3000, 4096, tv);
	IT_HL(nfs_symlink(nfs, "f", P("hl/s")), r == 0, "nfs_symlink: %d", r);
	IT_HL(nfs_readlink(nfs, P("hl/s"), buf, sizeof(buf)),
	      r == 0 && !strcmp(buf, "f"), "nfs_readlink: %d \"%s\"", r, buf);
	IT_HL(nfs_lstat64(nfs, P("hl/s"), &st), r == 0 && S_ISLNK(st.nfs_mode),
	      "nfs_lstat64 symlink: %d", r);
	IT_HL(nfs_link(nfs, P("hl/f"), Q("hl/f2")), r == 0, "nfs_link: %d", r);
	IT_HL(nfs_stat64(nfs, P("hl/f"), &st), r == 0 && st.nfs_nlink == 2,
	      "nlink %llu", (unsigned long long)st.nfs_nlink);
	IT_HL(nfs_rename(nfs, P("hl/f2"), Q("hl/f3")), r == 0, "nfs_rename: %d",
	      r);
	IT_HL(nfs_stat64(nfs, P("hl/f2"), &st), r == -ENOENT,
	      "old name gone: %d", r);
	IT_HL(nfs_mknod(nfs, P("hl/fifo"), S_IFIFO | 0644, 0), r == 0,
	      "nfs_mknod fifo: %d", r);
	IT_HL(nfs_mknod(nfs, P("hl/chr"), S_IFCHR | 0644, makedev(1, 5)),
	      r == 0, "nfs_mknod chr 1:5: %d", r);
	IT_HL(nfs_stat64(nfs, P("hl/chr"), &st),
	      r == 0 && S_ISCHR(st.nfs_mode) && major(st.nfs_rdev) == 1 &&
		      minor(st.nfs_rdev) == 5,
	      "chr device stat: %d rdev %llu:%llu", r,
	      (unsigned long long)major(st.nfs_rdev),
	      (unsigned long long)minor(st.nfs_rdev));
	IT_HL(nfs_access(nfs, P("hl/f"), R_OK | W_OK), r == 0,
	      "nfs_access R|W as root: %d", r);
	IT_HL(nfs_statvfs64(nfs, P("hl"), &vfs), r == 0 && vfs.f_blocks > 0,
	      "nfs_statvfs64: %d blocks %llu namemax %llu", r,
	      (unsigned long long)vfs.f_blocks,
	      (unsigned long long)vfs.f_namemax);
	IT_HL(nfs_opendir(nfs, P("hl"), &dir), r == 0, "nfs_opendir: %d", r);
	if (r == 0) {
		n = 0;
		while ((de = nfs_readdir(nfs, dir)))
			if (strcmp(de->name, ".") && strcmp(de->name, ".."))
				n++;
		nfs_closedir(nfs, dir);
		tc_ok(n == 6, "nfs_readdir lists %d entries (want 6)", n);
	}
	IT_HL(nfs_rmdir(nfs, P("hl")), r == -ENOTEMPTY,
	      "nfs_rmdir non-empty -> -ENOTEMPTY: %d", r);
	IT_HL(nfs_unlink(nfs, P("hl/missing")), r == -ENOENT,
	      "nfs_unlink missing -> -ENOENT: %d", r);
	IT_HL(nfs_opendir(nfs, P("hl/f"), &dir), r == -ENOTDIR,
	      "nfs_opendir of a file -> -ENOTDIR: %d", r);
	{
		static const char *names[] = { "f",  "f3",   "s",
					       "ex", "fifo", "chr" };
		int bad = 0;

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			char nm[32];

			snprintf(nm, sizeof(nm), "hl/%s", names[i]);
			bad += nfs_unlink(nfs, P(nm)) != 0;
		}
		tc_ok(bad == 0, "nfs_unlink of every file (%d failures)", bad);
	}
	IT_HL(nfs_rmdir(nfs, P("hl")), r == 0, "nfs_rmdir: %d", r);
	IT_HL(nfs_stat64(nfs, P("hl"), &st), r == -ENOENT, "directory gone: %d",
	      r);
	nfs_umount(nfs);
	nfs_destroy_context(nfs);

	/* As an unprivileged user (URL uid/gid) */
	nfs = it_hl_mount(o, 3, user_id, user_id);
	tc_ok(nfs != NULL, "high-level mount as uid %d", user_id);
	if (nfs) {
		IT_HL(nfs_mkdir(nfs, P("priv/hl-nope")), r == -EACCES,
		      "nfs_mkdir in root's 0755 dir as user -> -EACCES: %d", r);
		IT_HL(nfs_open(nfs, P("priv/secret"), O_RDONLY, &fh),
		      r == -EACCES,
		      "nfs_open of root's 0600 file as user -> -EACCES: %d", r);
		IT_HL(nfs_access(nfs, P("priv/shared"), W_OK), r == -EACCES,
		      "nfs_access W_OK on root's 0644 file as user -> -EACCES: %d",
		      r);
		nfs_umount(nfs);
		nfs_destroy_context(nfs);
	}
#undef P
#undef Q
}

/* ---------------------------------------------------------------- cleanup */
static int rm_tree(struct nfsc_fh *dir, int depth)
{
	struct nfsc_dirlist l = { 0 };
	int st, bad = 0;
	size_t i;

	if (depth > 16)
		return 1;
	st = nfsc_readdir_all(&rc, dir, true, 8192, &l);
	if (st != NFS3_OK)
		return 1;
	for (i = 0; i < l.n; i++) {
		const char *n = l.e[i].name;

		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		if (l.e[i].has_attr && l.e[i].attr.type == NF3DIR) {
			struct nfsc_fh sub;

			if (nfsc_lookup(&rc, dir, n, &sub, NULL) == NFS3_OK) {
				sattr3 sa;

				nfsc_sattr_mode(&sa, 0755);
				nfsc_setattr(&rc, &sub, &sa);
				bad += rm_tree(&sub, depth + 1);
			}
			bad += nfsc_rmdir(&rc, dir, n) != NFS3_OK;
		} else {
			bad += nfsc_remove(&rc, dir, n) != NFS3_OK;
		}
	}
	nfsc_dirlist_free(&l);
	return bad;
}

int main(int argc, char **argv)
{
	struct it_opts o;
	char work[64];
	fattr3 a;

	it_parse(argc, argv, &o, "u:DF", opt_cb);
	if (it_connect(&rc, &o, 0, 0) != 0 ||
	    it_connect(&uc, &o, user_id, user_id) != 0) {
		fprintf(stderr, "it_nsops: cannot connect to %s\n", o.export);
		return 2;
	}
	tc_ok(it_ping(&rc), "NULL procedure answers");
	snprintf(work, sizeof(work), "nsops.%d", (int)getpid());
	if (!it_expect_st(nfsc_mkdir(&rc, &rc.root, work, 0755, &top, &a),
			  "MKDIR working directory", NFS3_OK, IT_END))
		return it_summary("it_nsops");
	{
		sattr3 sa;

		nfsc_sattr_mode(&sa, 0755);
		nfsc_setattr(&rc, &top, &sa);
	}
	t_lookup();
	t_create();
	t_names();
	t_setattr();
	t_special();
	t_rename();
	t_remove();
	t_access();
	t_io();
	t_fsinfo();
	t_readdir();
	t_highlevel(&o, work);

	tc_ok(it_ping(&rc), "server still answers");
	tc_ok(rm_tree(&top, 0) == 0, "removed everything the test created");
	ST(nfsc_rmdir(&rc, &rc.root, work), "RMDIR working directory", NFS3_OK);
	nfsc_disconnect(&uc);
	nfsc_disconnect(&rc);
	return it_summary("it_nsops");
}
