// SPDX-License-Identifier: LGPL-3.0-or-later
/* ft_hostile4: NFSv4.1 OPENs that must be refused before anything changes,
 * sent raw (tests/lib/nfs4c: libnfs 4.0 cannot send an OPEN CREATE UNCHECKED4
 * with a size, nor an open upgrade of its choice), issue 17:
 *
 *   item 2   an OPEN for write (share access WRITE or BOTH), an OPEN CREATE
 *            UNCHECKED4 of the existing file with and without size 0, and an
 *            open upgrade (READ, then WRITE by the same open owner) of an
 *            append-only (chattr +a) and of an immutable (chattr +i) 0666
 *            file are NFS4ERR_PERM, as root and as UID, as the kernel's
 *            open(O_RDWR) and FSAL_VFS answer; an OPEN for READ is allowed;
 *   item 4a  an OPEN CREATE UNCHECKED4 with size 0 of a root-owned 0644 file
 *            whose name was never looked up (ganesha hands it to the FSAL's
 *            open2 by name) is NFS4ERR_ACCESS as UID, for WRITE and for READ.
 *
 * Each refused request is checked against a server-side snapshot (size,
 * mode, owner, mtime, ctime, inode flags, content) of its file taken before
 * and after it.
 *
 * ft_hostile4 [-H host] [-p port] -e PSEUDO -l LOCAL [-u UID] [-f FSAL]
 *   PSEUDO the export's NFSv4 path; LOCAL its directory on the server (this
 *   program runs beside ganesha and builds its files there as root); -f VFS:
 *   stock FSAL_VFS, whose OPEN READ + size 0 of the never-looked-up file
 *   truncates it (printed as "# VFS changed it anyway", not checked).
 * One "ok"/"not ok" line per check, then
 *   ft_hostile4: checks=N passed=P failed=F
 * exit 0 when all passed, 1 otherwise, 2 on setup failure, 77 when the
 * filesystem has no append-only/immutable flags.
 */
#include "nfs4c.h"
#include "tcheck.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIRNAME "h4"
#define FSZ 8192

static const char *g_local;
static bool g_vfs; /* -f VFS: stock FSAL_VFS's known answers */
static bool g_vfs_defect; /* the next check is one of those */

static const char *lpath(const char *name)
{
	static char b[4][4096];
	static int i;
	char *p = b[i++ % 4];

	snprintf(p, 4096, "%s/" DIRNAME "/%s", g_local, name);
	return p;
}

static int get_flags(const char *name, int *flags)
{
	int fd = open(lpath(name), O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = ioctl(fd, FS_IOC_GETFLAGS, flags);
	close(fd);
	return rc;
}

static int set_flags(const char *name, int flags)
{
	int fd = open(lpath(name), O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = ioctl(fd, FS_IOC_SETFLAGS, &flags);
	close(fd);
	return rc;
}

/* Writes a fresh file of FSZ pattern bytes (its flags cleared first). */
static void make_file(const char *name, mode_t mode, unsigned seed)
{
	char buf[FSZ];
	int fd;

	set_flags(name, 0);
	unlink(lpath(name));
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)('a' + (i * 7 + seed) % 26);
	fd = open(lpath(name), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
	    fchown(fd, 0, 0) != 0 || fchmod(fd, mode) != 0 || fsync(fd) != 0) {
		fprintf(stderr, "ft_hostile4: make %s: %s\n", lpath(name),
			strerror(errno));
		exit(2);
	}
	close(fd);
}

struct fsnap {
	bool exists;
	struct stat st;
	int flags;
	uint64_t sum;
};

static void take(const char *name, struct fsnap *s)
{
	unsigned char buf[65536];
	uint64_t h = 14695981039346656037ULL;
	ssize_t n;
	int fd;

	memset(s, 0, sizeof(*s));
	s->exists = lstat(lpath(name), &s->st) == 0;
	if (!s->exists)
		return;
	get_flags(name, &s->flags);
	fd = open(lpath(name), O_RDONLY | O_CLOEXEC);
	while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 1099511628211ULL;
	if (fd >= 0)
		close(fd);
	s->sum = h;
}

static const char *changed(const struct fsnap *a, const struct fsnap *b)
{
	if (a->exists != b->exists)
		return b->exists ? "appeared" : "disappeared";
	if (!a->exists)
		return NULL;
	if (a->st.st_size != b->st.st_size)
		return "size";
	if (a->st.st_mode != b->st.st_mode)
		return "mode";
	if (a->st.st_uid != b->st.st_uid || a->st.st_gid != b->st.st_gid)
		return "owner";
	if (a->st.st_mtim.tv_sec != b->st.st_mtim.tv_sec ||
	    a->st.st_mtim.tv_nsec != b->st.st_mtim.tv_nsec)
		return "mtime";
	if (a->st.st_ctim.tv_sec != b->st.st_ctim.tv_sec ||
	    a->st.st_ctim.tv_nsec != b->st.st_ctim.tv_nsec)
		return "ctime";
	if (a->flags != b->flags)
		return "inode flags";
	if (a->sum != b->sum)
		return "content";
	return NULL;
}

/* The createattrs of an OPEN CREATE: size 0 (truncate), or nothing. */
static fattr4 *attrs(bool size0)
{
	static uint64_t zero;
	static fattr4 fa;

	memset(&fa, 0, sizeof(fa));
	fa.attrmask.bitmap4_len = 1;
	if (size0) {
		zero = htobe64(0);
		fa.attrmask.map[0] = 1u << FATTR4_SIZE;
		fa.attr_vals.attrlist4_len = sizeof(zero);
		fa.attr_vals.attrlist4_val = (char *)&zero;
	}
	return &fa;
}

static const char *acc_name(uint32_t a)
{
	return a == OPEN4_SHARE_ACCESS_READ    ? "READ"
	       : a == OPEN4_SHARE_ACCESS_WRITE ? "WRITE"
					       : "BOTH";
}

/* One OPEN that must answer want and change nothing (an open it got anyway
 * is closed). */
static void refused(struct nfs4c *c, struct nfs4c_file *dir, const char *name,
		    const fattr4 *fa, uint32_t access, int want,
		    const char *what)
{
	struct fsnap a, b;
	struct nfs4c_file f;
	const char *d;
	int st;

	take(name, &a);
	st = nfs4c_open_attrs(c, dir, name, fa, access, OPEN4_SHARE_DENY_NONE,
			      &f);
	if (st == NFS4_OK)
		nfs4c_close_file(c, &f);
	take(name, &b);
	d = changed(&a, &b);
	if (g_vfs && g_vfs_defect) {
		/* stock FSAL_VFS: a known defect, printed, not checked */
		printf("# VFS: uid %u: %s of %s (share %s): %s (DONTCACHE: %s)%s%s\n",
		       c->r.uid, what, name, acc_name(access), nfs4c_st(st),
		       nfs4c_st(want), d ? ", and its " : ", nothing changed",
		       d ? d : "");
		if (d)
			printf("# VFS changed it anyway\n");
		return;
	}
	tc_ok(st == want && d == NULL,
	      "uid %u: %s of %s (share %s): %s (want %s)%s%s", c->r.uid, what,
	      name, acc_name(access), nfs4c_st(st), nfs4c_st(want),
	      d ? ", but its " : ", nothing changed", d ? d : "");
	if (d)
		printf("#   %s changed: size %lld -> %lld\n", name,
		       (long long)a.st.st_size, (long long)b.st.st_size);
}

/* Item 2: name carries the inode flag flag (and is 0666). */
static void flagged(struct nfs4c *c, struct nfs4c_file *dir, const char *name,
		    const char *flag)
{
	static const uint32_t wr[] = { OPEN4_SHARE_ACCESS_WRITE,
				       OPEN4_SHARE_ACCESS_BOTH };
	struct nfs4c_file r, f;
	char what[96];
	int st;

	for (size_t i = 0; i < 2; i++) {
		snprintf(what, sizeof(what), "OPEN NOCREATE of the %s file",
			 flag);
		refused(c, dir, name, NULL, wr[i], NFS4ERR_PERM, what);
		snprintf(what, sizeof(what),
			 "OPEN CREATE UNCHECKED4 of the existing %s file",
			 flag);
		refused(c, dir, name, attrs(false), wr[i], NFS4ERR_PERM, what);
		snprintf(what, sizeof(what),
			 "OPEN CREATE UNCHECKED4 size=0 of the %s file", flag);
		refused(c, dir, name, attrs(true), wr[i], NFS4ERR_PERM, what);
	}
	/* reading is allowed; an upgrade of that open to write is not */
	st = nfs4c_open_attrs(c, dir, name, NULL, OPEN4_SHARE_ACCESS_READ,
			      OPEN4_SHARE_DENY_NONE, &r);
	tc_ok(st == NFS4_OK, "uid %u: OPEN for READ of the %s file %s: %s",
	      c->r.uid, flag, name, nfs4c_st(st));
	if (st != NFS4_OK)
		return;
	snprintf(what, sizeof(what),
		 "open upgrade (READ open held) of the %s file", flag);
	for (size_t i = 0; i < 2; i++)
		refused(c, dir, name, NULL, wr[i], NFS4ERR_PERM, what);
	/* the READ open still works and is closed once */
	f = r;
	st = nfs4c_close_file(c, &f);
	tc_ok(st == NFS4_OK, "uid %u: CLOSE of the READ open of %s: %s",
	      c->r.uid, name, nfs4c_st(st));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ft_hostile4 [-H host] [-p port] -e PSEUDO -l LOCAL [-u UID] [-f FSAL]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct nfs4c_opts o = NFS4C_OPTS_DEFAULT;
	uint32_t uid = 1000;
	struct nfs4c c;
	struct nfs4c_file dir;
	int opt, st, fl;

	while ((opt = getopt(argc, argv, NFS4C_COMMON_OPTS "l:u:f:")) != -1) {
		switch (opt) {
		case 'f':
			g_vfs = strcmp(optarg, "VFS") == 0;
			break;
		case 'l':
			g_local = optarg;
			break;
		case 'u':
			uid = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		default:
			if (!nfs4c_common_opt(&o, opt, optarg))
				usage();
		}
	}
	if (!o.export || !g_local)
		usage();

	/* the tree, as root on the server */
	{
		char d[4096];

		snprintf(d, sizeof(d), "%s/" DIRNAME, g_local);
		mkdir(d, 0755);
		if (chown(d, 0, 0) != 0 || chmod(d, 0755) != 0) {
			fprintf(stderr, "ft_hostile4: %s: %s\n", d,
				strerror(errno));
			return 2;
		}
	}
	make_file("append", 0666, 1);
	make_file("immutable", 0666, 2);
	make_file("fresh_w", 0644, 3);
	make_file("fresh_r", 0644, 4);
	if (set_flags("append", FS_APPEND_FL) != 0 ||
	    set_flags("immutable", FS_IMMUTABLE_FL) != 0) {
		fprintf(stderr,
			"SKIP: chattr +a/+i on %s: %s (the filesystem has no such flags)\n",
			g_local, strerror(errno));
		set_flags("append", 0);
		return 77;
	}

	if (nfs4c_connect(&c, o.host, o.port, 1, "ft_hostile4") != 0) {
		fprintf(stderr, "ft_hostile4: no NFSv4.1 session with %s:%d\n",
			o.host, o.port);
		set_flags("append", 0);
		set_flags("immutable", 0);
		return 2;
	}
	{
		char p[1024];

		snprintf(p, sizeof(p), "%s/" DIRNAME, o.export);
		st = nfs4c_lookup_dir(&c, p, &dir);
	}
	if (st != NFS4_OK) {
		fprintf(stderr, "ft_hostile4: LOOKUP %s: %s\n", o.export,
			nfs4c_st(st));
		nfs4c_close(&c);
		set_flags("append", 0);
		set_flags("immutable", 0);
		return 2;
	}

	/* item 4a first: these names are never looked up before */
	c.r.uid = c.r.gid = uid;
	refused(&c, &dir, "fresh_w", attrs(true), OPEN4_SHARE_ACCESS_WRITE,
		NFS4ERR_ACCESS,
		"OPEN CREATE UNCHECKED4 size=0 (never looked up, root 0644)");
	/* stock FSAL_VFS truncates it and answers OK (its open for READ
	 * checks no write permission for the truncate) */
	g_vfs_defect = true;
	refused(&c, &dir, "fresh_r", attrs(true), OPEN4_SHARE_ACCESS_READ,
		NFS4ERR_ACCESS,
		"OPEN CREATE UNCHECKED4 size=0 (never looked up, root 0644)");
	g_vfs_defect = false;

	/* item 2, as root and as uid (the files are 0666: only their flags
	 * refuse the write) */
	for (int pass = 0; pass < 2; pass++) {
		c.r.uid = c.r.gid = pass ? uid : 0;
		flagged(&c, &dir, "append", "append-only");
		flagged(&c, &dir, "immutable", "immutable");
	}

	nfs4c_close(&c);
	fl = 0;
	tc_ok(get_flags("append", &fl) == 0 && fl & FS_APPEND_FL,
	      "append is still append-only");
	set_flags("append", 0);
	set_flags("immutable", 0);
	printf("ft_hostile4: checks=%d passed=%d failed=%d\n", tc_checks,
	       tc_checks - tc_failures, tc_failures);
	return tc_failures ? 1 : 0;
}
