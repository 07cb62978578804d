// SPDX-License-Identifier: LGPL-3.0-or-later
/* ft_hostile: a non-root caller's data-changing requests are refused before anything changes,
 * hostile offsets get the kernel server's answers, and a file created read-only can be
 * written through the open that created it (issue 8 items 1-3).
 *
 * ft_hostile [-H host -p nfsport -M mntport] -e EXPORT_PATH -4 PSEUDO -u UID -g GID
 *            -o OWNER_UID [-f DONTCACHE|VFS] [-b]
 *
 * Runs on the server (same mount namespace as ganesha): it builds its tree in EXPORT_PATH
 * with local syscalls as root, then talks NFS as UID/GID (AUTH_SYS) over NFSv3 (raw, tests/
 * lib/nfsc) and NFSv4 (libnfs high-level, mounted at PSEUDO). OWNER_UID is who the server
 * maps the caller to (UID itself, or the anonymous uid on a Root_Squash export): the files
 * the caller may change are made its own. Every refused request is checked against a
 * server-side snapshot (size, mode, owner, times, link count and a content checksum of every
 * target, and the listing of each directory) taken before and after it. -b also sends the
 * boundary offsets (0, 2^31, 2^32, 2^63-1, 2^63, 2^64-1, overflowing lengths) as WRITE,
 * READ, COMMIT and SETATTR size over both versions. -f selects the expectations where stock
 * FSAL_VFS answers differently from a kernel server (listed in tests/integration/README.md).
 * One "ok"/"not ok" line per check; exit 0 when all passed, 1 otherwise, 2 on setup failure.
 */
#include "ftlib.h"
#include "tcheck.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FSZ 8192

static bool g_vfs;
static bool
	g_no_zero_read; /* -Z: no zero-length v3 READ (ganesha 6.5 crashes) */
static bool g_gsh6; /* -6: ganesha 6.5's own answers */
/* the next refusals are ones stock FSAL_VFS refuses after changing the file */
static bool g_vfs_changes;
static uint64_t g_maxbytes;
static char g_base[1024];
static int g_owner;

/* ---- server-side state ------------------------------------------------------------- */

static const char *const g_targets[] = {
	"hostile/ro",	     "hostile/ro/victim",  "hostile/ro/secret",
	"hostile/ro/sub",    "hostile/pub",	   "hostile/pub/mine",
	"hostile/pub/bound", "hostile/ro/fresh",   "hostile/ro/fresh2",
	"hostile/pub/stale", "hostile/pub/stale2", "hostile/pub/stale3",
};
#define NTARGETS (sizeof(g_targets) / sizeof(g_targets[0]))

struct fstate {
	bool exists;
	struct stat st;
	uint64_t
		sum; /* content (files) or sorted-free listing hash (directories) */
};

static const char *lpath(const char *rel)
{
	static char buf[4][4096];
	static int i;
	char *b = buf[i++ % 4];

	snprintf(b, 4096, "%s/%s", g_base, rel);
	return b;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	return h;
}

/* Hash of the data extents and their offsets (files grow sparse to 4 GiB here). */
static uint64_t content_sum(const char *path)
{
	unsigned char buf[65536];
	uint64_t h = 14695981039346656037ULL;
	int fd = open(path, O_RDONLY);
	off_t pos = 0;

	if (fd < 0)
		return 0;
	for (int ext = 0; ext < 1000; ext++) {
		off_t start = lseek(fd, pos, SEEK_DATA), end;

		if (start < 0)
			break;
		end = lseek(fd, start, SEEK_HOLE);
		if (end <= start)
			break;
		h = fnv(h, &start, sizeof(start));
		for (pos = start; pos < end;) {
			size_t want = end - pos < (off_t)sizeof(buf)
					      ? (size_t)(end - pos)
					      : sizeof(buf);
			ssize_t n = pread(fd, buf, want, pos);

			if (n <= 0)
				break;
			h = fnv(h, buf, (size_t)n);
			pos += n;
		}
		pos = end;
	}
	close(fd);
	return h;
}

/* order-independent hash of a directory's names */
static uint64_t dir_sum(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	uint64_t h = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL)
		h += fnv(14695981039346656037ULL, e->d_name, strlen(e->d_name));
	closedir(d);
	return h;
}

static void snap(struct fstate *s)
{
	for (size_t i = 0; i < NTARGETS; i++) {
		const char *p = lpath(g_targets[i]);

		memset(&s[i], 0, sizeof(s[i]));
		s[i].exists = lstat(p, &s[i].st) == 0;
		if (!s[i].exists)
			continue;
		s[i].sum =
			S_ISDIR(s[i].st.st_mode) ? dir_sum(p) : content_sum(p);
	}
}

static bool ts_eq(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* Empty string when nothing changed, else what changed first. */
static const char *diff(const struct fstate *a, const struct fstate *b)
{
	static char why[512];

	for (size_t i = 0; i < NTARGETS; i++) {
		const struct stat *x = &a[i].st, *y = &b[i].st;
		const char *what = NULL;

		if (a[i].exists != b[i].exists)
			what = b[i].exists ? "appeared" : "disappeared";
		else if (!a[i].exists)
			continue;
		else if (x->st_size != y->st_size)
			what = "size";
		else if (x->st_mode != y->st_mode)
			what = "mode";
		else if (x->st_uid != y->st_uid || x->st_gid != y->st_gid)
			what = "owner";
		else if (x->st_nlink != y->st_nlink)
			what = "link count";
		else if (!ts_eq(x->st_mtim, y->st_mtim))
			what = "mtime";
		else if (!ts_eq(x->st_ctim, y->st_ctim))
			what = "ctime";
		else if (x->st_ino != y->st_ino)
			what = "inode";
		else if (a[i].sum != b[i].sum)
			what = S_ISDIR(x->st_mode) ? "entries" : "content";
		if (what) {
			snprintf(why, sizeof(why),
				 "%s: %s changed (size %lld -> %lld)",
				 g_targets[i], what, (long long)x->st_size,
				 (long long)y->st_size);
			return why;
		}
	}
	return "";
}

static void fill(const char *rel, uint64_t seed, size_t len, mode_t mode,
		 uid_t uid, gid_t gid)
{
	unsigned char buf[FSZ];
	int fd;

	/* rewritten in place: ganesha keeps the inode's handle cached across the runs */
	fd = open(lpath(rel), O_CREAT | O_WRONLY | O_TRUNC, mode);
	if (fd < 0)
		ft_die("create %s: %s", rel, strerror(errno));
	ft_pattern_fill(seed, 0, buf, len);
	if (write(fd, buf, len) != (ssize_t)len || fchown(fd, uid, gid) != 0 ||
	    fchmod(fd, mode) != 0 || fsync(fd) != 0)
		ft_die("fill %s: %s", rel, strerror(errno));
	close(fd);
}

/* The filesystem's maximum file size for pub/bound: the largest offset lseek accepts. */
static uint64_t probe_maxbytes(void)
{
	int fd = open(lpath("hostile/pub/bound"), O_RDONLY);
	uint64_t lo = 0, hi = INT64_MAX;

	if (fd < 0)
		ft_die("open bound: %s", strerror(errno));
	if (lseek(fd, (off_t)hi, SEEK_SET) >= 0)
		lo = hi;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;

		if (lseek(fd, (off_t)mid, SEEK_SET) >= 0)
			lo = mid;
		else
			hi = mid - 1;
	}
	close(fd);
	return lo;
}

static void setup_tree(void)
{
	mkdir(lpath("hostile"), 0755);
	chmod(lpath("hostile"), 0755);
	mkdir(lpath("hostile/ro"), 0755);
	chmod(lpath("hostile/ro"), 0755);
	mkdir(lpath("hostile/ro/sub"), 0755);
	mkdir(lpath("hostile/pub"), 0777);
	chmod(lpath("hostile/pub"), 0777);
	fill("hostile/ro/victim", 1, FSZ, 0644, 0, 0);
	fill("hostile/ro/secret", 2, FSZ, 0600, 0, 0);
	/* never looked up over NFS: a CREATE of these names reaches the
	 * FSAL's open2 by name, not by handle */
	fill("hostile/ro/fresh", 7, FSZ, 0644, 0, 0);
	fill("hostile/ro/fresh2", 8, FSZ, 0644, 0, 0);
	fill("hostile/pub/mine", 3, FSZ, 0644, g_owner, g_owner);
	fill("hostile/pub/bound", 4, FSZ, 0644, g_owner, g_owner);
}

/* ---- NFSv3 ----------------------------------------------------------------------------- */

static struct fstate g_before[NTARGETS], g_after[NTARGETS];

/* Checks a request that must be refused with want and change nothing. */
static void refused3(int st, int want, const char *what)
{
	const char *d;

	snap(g_after);
	d = diff(g_before, g_after);
	if (g_vfs && g_vfs_changes && *d) {
		/* stock FSAL_VFS: known defect, the status is still checked */
		tc_ok(st == want,
		      "v3 %s: %s (want %s) # VFS changed it anyway: %s", what,
		      nfsc_st(st), nfsc_st(want), d);
		memcpy(g_before, g_after, sizeof(g_before));
		return;
	}
	tc_ok(st == want && !*d, "v3 %s: %s (want %s)%s%s", what, nfsc_st(st),
	      nfsc_st(want), *d ? ", but " : ", nothing changed", d);
	memcpy(g_before, g_after, sizeof(g_before));
}

/* A request allowed to change things: status only, new baseline. */
static void allowed3(int st, int want, const char *what)
{
	tc_ok(st == want, "v3 %s: %s (want %s)", what, nfsc_st(st),
	      nfsc_st(want));
	snap(g_before);
}

static int create_sattr(struct nfsc_conn *c, const struct nfsc_fh *dir,
			const char *name, createmode3 how, const sattr3 *sa)
{
	return nfsc_create_sa(c, dir, name, how, sa, "hostile!", NULL, NULL);
}

static void perm_v3(struct nfsc_conn *c, int uid)
{
	struct nfsc_fh ro, pub, victim, secret, mine, out;
	unsigned char data[4096], buf[4096];
	uint32_t cnt, got;
	bool eof;
	sattr3 sa;

	if (ft_lookup_path(c, "hostile/ro", &ro) != NFS3_OK ||
	    ft_lookup_path(c, "hostile/pub", &pub) != NFS3_OK ||
	    ft_lookup_path(c, "hostile/ro/victim", &victim) != NFS3_OK ||
	    ft_lookup_path(c, "hostile/ro/secret", &secret) != NFS3_OK ||
	    ft_lookup_path(c, "hostile/pub/mine", &mine) != NFS3_OK)
		ft_die("ft_hostile: lookups failed");
	ft_pattern_fill(99, 0, data, sizeof(data));
	snap(g_before);

	/* item 1: truncation through CREATE of an existing file; first of
	 * names ganesha never looked up (issue 17: the FSAL's open2 gets
	 * those by name, the others by handle, from MDCACHE) */
	g_vfs_changes = true;
	nfsc_sattr_size(&sa, 0);
	refused3(
		create_sattr(c, &ro, "fresh", UNCHECKED, &sa), NFS3ERR_ACCES,
		"CREATE UNCHECKED size=0 of ro/fresh (root 0644, never looked up)");
	nfsc_sattr_size(&sa, 0);
	sa.mode.set_it = 1;
	sa.mode.set_mode3_u.mode = 0666;
	refused3(create_sattr(c, &ro, "fresh2", UNCHECKED, &sa), NFS3ERR_ACCES,
		 "CREATE UNCHECKED mode+size=0 of ro/fresh2 (never looked up)");
	nfsc_sattr_size(&sa, 0);
	refused3(create_sattr(c, &ro, "victim", UNCHECKED, &sa), NFS3ERR_ACCES,
		 "CREATE UNCHECKED size=0 of ro/victim (root 0644)");
	nfsc_sattr_size(&sa, 0);
	sa.mode.set_it = 1;
	sa.mode.set_mode3_u.mode = 0644;
	refused3(create_sattr(c, &ro, "victim", UNCHECKED, &sa), NFS3ERR_ACCES,
		 "CREATE UNCHECKED mode+size=0 of ro/victim");
	nfsc_sattr_size(&sa, 100);
	refused3(create_sattr(c, &ro, "victim", UNCHECKED, &sa), NFS3ERR_ACCES,
		 "CREATE UNCHECKED size=100 of ro/victim");
	nfsc_sattr_size(&sa, 0);
	refused3(create_sattr(c, &ro, "secret", UNCHECKED, &sa), NFS3ERR_ACCES,
		 "CREATE UNCHECKED size=0 of ro/secret (root 0600)");
	g_vfs_changes = false;
	nfsc_sattr_size(&sa, 0);
	refused3(create_sattr(c, &ro, "victim", GUARDED, &sa), NFS3ERR_EXIST,
		 "CREATE GUARDED size=0 of ro/victim");
	refused3(create_sattr(c, &ro, "victim", EXCLUSIVE, NULL), NFS3ERR_EXIST,
		 "CREATE EXCLUSIVE of ro/victim");
	nfsc_sattr_mode(&sa, 0644);
	refused3(create_sattr(c, &ro, "newfile", UNCHECKED, &sa), NFS3ERR_ACCES,
		 "CREATE UNCHECKED of a new file in ro/");
	refused3(create_sattr(c, &ro, "newfile", GUARDED, &sa), NFS3ERR_ACCES,
		 "CREATE GUARDED of a new file in ro/");
	refused3(create_sattr(c, &ro, "newfile", EXCLUSIVE, NULL),
		 NFS3ERR_ACCES, "CREATE EXCLUSIVE of a new file in ro/");

	/* data */
	refused3(nfsc_write(c, &victim, 0, data, sizeof(data), UNSTABLE, &cnt,
			    NULL, NULL),
		 NFS3ERR_ACCES, "WRITE UNSTABLE to ro/victim");
	refused3(nfsc_write(c, &victim, FSZ, data, sizeof(data), FILE_SYNC,
			    &cnt, NULL, NULL),
		 NFS3ERR_ACCES, "WRITE FILE_SYNC past EOF of ro/victim");
	refused3(
		nfsc_write(c, &secret, 0, data, 10, UNSTABLE, &cnt, NULL, NULL),
		NFS3ERR_ACCES, "WRITE to ro/secret");
	refused3(nfsc_read(c, &secret, 0, sizeof(buf), buf, &got, &eof),
		 NFS3ERR_ACCES, "READ of ro/secret");

	/* attributes */
	nfsc_sattr_size(&sa, 0);
	refused3(nfsc_setattr(c, &victim, &sa), NFS3ERR_ACCES,
		 "SETATTR size=0 of ro/victim");
	nfsc_sattr_size(&sa, 1 << 20);
	refused3(nfsc_setattr(c, &victim, &sa), NFS3ERR_ACCES,
		 "SETATTR size=1MiB of ro/victim");
	nfsc_sattr_mode(&sa, 0666);
	refused3(nfsc_setattr(c, &victim, &sa), NFS3ERR_PERM,
		 "SETATTR mode=0666 of ro/victim");
	nfsc_sattr_none(&sa);
	sa.uid.set_it = 1;
	sa.uid.set_uid3_u.uid = uid;
	refused3(nfsc_setattr(c, &victim, &sa), NFS3ERR_PERM,
		 "SETATTR uid=caller of ro/victim");
	nfsc_sattr_none(&sa);
	sa.gid.set_it = 1;
	sa.gid.set_gid3_u.gid = uid;
	refused3(nfsc_setattr(c, &victim, &sa), NFS3ERR_PERM,
		 "SETATTR gid of ro/victim");
	nfsc_sattr_none(&sa);
	sa.mtime.set_it = SET_TO_CLIENT_TIME;
	sa.mtime.set_mtime_u.mtime.seconds = 1000000;
	refused3(nfsc_setattr(c, &victim, &sa), NFS3ERR_PERM,
		 "SETATTR mtime=client time of ro/victim");
	nfsc_sattr_none(&sa);
	sa.atime.set_it = SET_TO_SERVER_TIME;
	sa.mtime.set_it = SET_TO_SERVER_TIME;
	refused3(nfsc_setattr(c, &victim, &sa), NFS3ERR_ACCES,
		 "SETATTR atime+mtime=server time of ro/victim");
	nfsc_sattr_none(&sa);
	sa.mtime.set_it = SET_TO_SERVER_TIME;
	refused3(nfsc_setattr(c, &victim, &sa), NFS3ERR_ACCES,
		 "SETATTR mtime=server time of ro/victim");
	nfsc_sattr_size(&sa, 0);
	sa.mode.set_it = 1;
	sa.mode.set_mode3_u.mode = 0777;
	refused3(nfsc_setattr(c, &victim, &sa), NFS3ERR_PERM,
		 "SETATTR size=0+mode of ro/victim");

	/* namespace */
	refused3(nfsc_remove(c, &ro, "victim"), NFS3ERR_ACCES,
		 "REMOVE ro/victim");
	refused3(nfsc_rmdir(c, &ro, "sub"), NFS3ERR_ACCES, "RMDIR ro/sub");
	refused3(nfsc_mkdir(c, &ro, "newdir", 0755, &out, NULL), NFS3ERR_ACCES,
		 "MKDIR in ro/");
	refused3(nfsc_symlink(c, &ro, "newlink", "victim", &out, NULL),
		 NFS3ERR_ACCES, "SYMLINK in ro/");
	refused3(nfsc_mknod(c, &ro, "newfifo", NF3FIFO, 0644, 0, 0, &out, NULL),
		 NFS3ERR_ACCES, "MKNOD fifo in ro/");
	refused3(nfsc_rename(c, &ro, "victim", &ro, "moved"), NFS3ERR_ACCES,
		 "RENAME ro/victim -> ro/moved");
	refused3(nfsc_rename(c, &ro, "victim", &pub, "stolen"), NFS3ERR_ACCES,
		 "RENAME ro/victim -> pub/stolen");
	refused3(nfsc_rename(c, &pub, "mine", &ro, "victim"), NFS3ERR_ACCES,
		 "RENAME pub/mine over ro/victim");
	refused3(nfsc_link(c, &victim, &ro, "hardlink", NULL), NFS3ERR_ACCES,
		 "LINK ro/victim -> ro/hardlink");
	refused3(nfsc_link(c, &mine, &ro, "hardlink", NULL), NFS3ERR_ACCES,
		 "LINK pub/mine -> ro/hardlink");
}

/* Issue 17: the module's own checks of a SETATTR, behind ganesha's. Ganesha
 * checks a SETATTR against the attributes MDCACHE holds, which lag behind a
 * change made on the server itself (a local chmod or chown): the module
 * checks the file as it is, before it changes anything. A file the caller
 * could write when ganesha cached it, made 0644 root's on the server: its
 * truncate, and setting its times to the server's clock, are ACCES; a file
 * the caller owned when cached, given to root: a mode change is PERM. (ganesha 4.3 and 6.5 both check first, with cached
 * attributes: without the module's checks both truncate and chmod.) */
static void stale_v3(struct nfsc_conn *c)
{
	struct nfsc_fh fh, fh2, fh3;
	fattr3 a;
	sattr3 sa;

	fill("hostile/pub/stale", 9, FSZ, 0666, 0, 0);
	fill("hostile/pub/stale2", 10, FSZ, 0644, g_owner, g_owner);
	fill("hostile/pub/stale3", 11, FSZ, 0666, 0, 0);
	if (ft_lookup_path(c, "hostile/pub/stale", &fh) != NFS3_OK ||
	    ft_lookup_path(c, "hostile/pub/stale2", &fh2) != NFS3_OK ||
	    ft_lookup_path(c, "hostile/pub/stale3", &fh3) != NFS3_OK ||
	    nfsc_getattr(c, &fh, &a) != NFS3_OK ||
	    nfsc_getattr(c, &fh2, &a) != NFS3_OK ||
	    nfsc_getattr(c, &fh3, &a) != NFS3_OK)
		ft_die("ft_hostile: lookup stale");
	if (chmod(lpath("hostile/pub/stale"), 0644) != 0 ||
	    chown(lpath("hostile/pub/stale2"), 0, 0) != 0 ||
	    chmod(lpath("hostile/pub/stale3"), 0644) != 0)
		ft_die("ft_hostile: chmod/chown stale: %s", strerror(errno));
	snap(g_before);
	g_vfs_changes = true;
	nfsc_sattr_size(&sa, 0);
	refused3(
		nfsc_setattr(c, &fh, &sa), NFS3ERR_ACCES,
		"SETATTR size=0 of pub/stale (0666 when cached, now root 0644)");
	nfsc_sattr_mode(&sa, 0666);
	refused3(
		nfsc_setattr(c, &fh2, &sa), NFS3ERR_PERM,
		"SETATTR mode=0666 of pub/stale2 (the caller's when cached, now root's)");
	/* times set to the server's clock are set as the server: only the
	 * module's write check refuses them */
	nfsc_sattr_none(&sa);
	sa.atime.set_it = SET_TO_SERVER_TIME;
	sa.mtime.set_it = SET_TO_SERVER_TIME;
	refused3(
		nfsc_setattr(c, &fh3, &sa), NFS3ERR_ACCES,
		"SETATTR atime+mtime=server time of pub/stale3 (0666 when cached, now root 0644)");
	g_vfs_changes = false;
}

/* item 3: a read-only file written through the handle its CREATE returned */
static void create_ro_v3(struct nfsc_conn *c)
{
	static const createmode3 how[] = { UNCHECKED, GUARDED, EXCLUSIVE };
	static const char *const name[] = { "ro444_unchecked", "ro444_guarded",
					    "ro444_excl" };
	struct nfsc_fh pub, fh;
	unsigned char data[1000], buf[1000];
	uint32_t cnt, got;
	bool eof;
	int st, st2, st3 = NFS3_OK;

	if (ft_lookup_path(c, "hostile/pub", &pub) != NFS3_OK)
		ft_die("ft_hostile: lookup pub");
	ft_pattern_fill(5, 0, data, sizeof(data));
	for (int i = 0; i < 3; i++) {
		char p[128];

		snprintf(p, sizeof(p), "hostile/pub/%s", name[i]);
		unlink(lpath(p));
		st = nfsc_create(c, &pub, name[i], how[i], 0444, "excl0001",
				 &fh, NULL);
		if (how[i] == EXCLUSIVE && st == NFS3_OK) {
			/* the client sets the mode after an exclusive create */
			sattr3 sa;

			nfsc_sattr_mode(&sa, 0444);
			st3 = nfsc_setattr(c, &fh, &sa);
		}
		st2 = st == NFS3_OK ? nfsc_write(c, &fh, 0, data, sizeof(data),
						 FILE_SYNC, &cnt, NULL, NULL)
				    : -1;
		tc_ok(st == NFS3_OK && st3 == NFS3_OK && st2 == NFS3_OK &&
			      cnt == sizeof(data),
		      "v3 CREATE %s mode 0444 then WRITE through its handle: %s / %s (want OK, OK)",
		      name[i], nfsc_st(st), nfsc_st(st2));
		if (st2 == NFS3_OK) {
			struct stat sb;

			st = nfsc_read(c, &fh, 0, sizeof(buf), buf, &got, &eof);
			tc_ok(st == NFS3_OK && got == sizeof(data) &&
				      !memcmp(buf, data, got) &&
				      stat(lpath(p), &sb) == 0 &&
				      (sb.st_mode & 07777) == 0444 &&
				      sb.st_size == sizeof(data),
			      "v3 %s reads back, is 0444 and %zu bytes on disk",
			      name[i], sizeof(data));
		}
	}
	/* an UNCHECKED create of an existing read-only file the caller owns opens it, not
	 * creates it: the write permission is checked against the file (the kernel server
	 * then allows the owner's WRITE; a new CREATE does not make it writable) */
	st = nfsc_create(c, &pub, "ro444_unchecked", UNCHECKED, 0444, NULL, &fh,
			 NULL);
	tc_ok(st == NFS3ERR_ACCES || st == NFS3_OK,
	      "v3 CREATE UNCHECKED of the existing 0444 file it owns: %s",
	      nfsc_st(st));
}

static const char *hex64(uint64_t v)
{
	static char b[4][24];
	static int i;
	char *p = b[i++ % 4];

	snprintf(p, 24, "0x%llx", (unsigned long long)v);
	return p;
}

/* Boundary offsets over NFSv3 on the caller's own file. */
static void bounds_v3(struct nfsc_conn *c)
{
	struct nfsc_fh fh;
	unsigned char data[4096], buf[4096];
	uint32_t cnt, got;
	bool eof;
	char verf[8];
	sattr3 sa;
	int st;
	const uint64_t M = g_maxbytes;
	/* Offsets past 2^63-1 that do not wrap are answered FBIG by ganesha itself
	 * (MaxOffsetWrite/MaxOffsetRead); those that wrap past 2^64 reach the FSAL. */
	struct {
		uint64_t off;
		uint32_t len;
		int want; /* DONTCACHE */
		int want_vfs;
	} w[] = {
		{ 0, 4096, NFS3_OK, NFS3_OK },
		{ 1ULL << 31, 4096, NFS3_OK, NFS3_OK },
		{ 1ULL << 32, 4096, NFS3_OK, NFS3_OK },
		{ M - 100, 4096, NFS3ERR_FBIG,
		  NFS3_OK }, /* VFS: short write of 100 */
		{ M, 1, NFS3ERR_FBIG, NFS3ERR_FBIG },
		{ INT64_MAX, 0, NFS3_OK, NFS3_OK },
		{ INT64_MAX, 1, NFS3ERR_FBIG, NFS3ERR_FBIG },
		{ INT64_MAX - 100, 4096, NFS3ERR_FBIG, NFS3ERR_FBIG },
		{ 1ULL << 63, 0, NFS3ERR_FBIG, NFS3ERR_FBIG },
		{ 1ULL << 63, 4096, NFS3ERR_FBIG, NFS3ERR_FBIG },
		{ UINT64_MAX, 1, NFS3ERR_INVAL, NFS3ERR_INVAL },
		{ UINT64_MAX, 4096, NFS3ERR_INVAL, NFS3ERR_INVAL },
		{ UINT64_MAX - 100, 4096, NFS3ERR_INVAL, NFS3ERR_INVAL },
	};

	if (ft_lookup_path(c, "hostile/pub/bound", &fh) != NFS3_OK)
		ft_die("ft_hostile: lookup bound");
	ft_pattern_fill(4, 0, data,
			sizeof(data)); /* the bytes already at offset 0 */
	snap(g_before);
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		for (int stable = UNSTABLE; stable <= FILE_SYNC;
		     stable += FILE_SYNC) {
			int want = g_vfs ? w[i].want_vfs : w[i].want;
			char what[160];

			snprintf(what, sizeof(what), "%s WRITE off=%s len=%u",
				 stable ? "FILE_SYNC" : "UNSTABLE",
				 hex64(w[i].off), w[i].len);
			st = nfsc_write(c, &fh, w[i].off, data, w[i].len,
					stable, &cnt, NULL, NULL);
			if (want == NFS3_OK)
				allowed3(st, want, what);
			else
				refused3(st, want, what);
		}
	}
	st = nfsc_commit(c, &fh, 0, 0, verf);
	allowed3(st, NFS3_OK, "COMMIT 0/0 after the boundary WRITEs");
	/* the head of the file is the pattern it started with */
	st = nfsc_read(c, &fh, 0, sizeof(buf), buf, &got, &eof);
	tc_ok(st == NFS3_OK && got == sizeof(buf) &&
		      !memcmp(buf, data, sizeof(buf)),
	      "v3 head of pub/bound unchanged by the refused WRITEs");

	{
		struct {
			uint64_t off;
			uint32_t len;
			int want, want_vfs;
		} r[] = {
			{ 0, 4096, NFS3_OK, NFS3_OK },
			{ 1ULL << 31, 4096, NFS3_OK, NFS3_OK },
			{ 1ULL << 32, 4096, NFS3_OK, NFS3_OK },
			{ 1ULL << 50, 4096, NFS3_OK, NFS3_OK },
			{ INT64_MAX, 0, NFS3_OK, NFS3_OK },
			{ INT64_MAX, 4096, NFS3ERR_FBIG, NFS3ERR_FBIG },
			{ INT64_MAX - 100, 4096, NFS3ERR_FBIG, NFS3ERR_FBIG },
			{ 1ULL << 63, 4096, NFS3ERR_FBIG, NFS3ERR_FBIG },
			{ UINT64_MAX, 4096, NFS3ERR_INVAL, NFS3ERR_INVAL },
			{ UINT64_MAX - 100, 4096, NFS3ERR_INVAL,
			  NFS3ERR_INVAL },
		};
		for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
			int want = g_vfs ? r[i].want_vfs : r[i].want;

			if (r[i].len == 0 && g_no_zero_read) {
				printf("# v3 READ off=%s len=0 not sent (-Z)\n",
				       hex64(r[i].off));
				continue;
			}
			st = nfsc_read(c, &fh, r[i].off, r[i].len, buf, &got,
				       &eof);
			if (r[i].off >= (1ULL << 50) && r[i].len &&
			    want == NFS3_OK)
				tc_ok(st == NFS3_OK && got == 0 && eof,
				      "v3 READ off=%s len=%u: %s count %u eof %d (want OK, 0, eof)",
				      hex64(r[i].off), r[i].len, nfsc_st(st),
				      got, eof);
			else
				tc_ok(st == want,
				      "v3 READ off=%s len=%u: %s (want %s)",
				      hex64(r[i].off), r[i].len, nfsc_st(st),
				      nfsc_st(want));
		}
	}
	{
		/* a COMMIT range past 2^63 is clamped (the kernel server flushes the whole
		 * file); one that wraps past 2^64 ganesha answers INVAL itself */
		static const struct {
			uint64_t off;
			int want;
		} co[] = {
			{ 0, NFS3_OK },
			{ 1ULL << 31, NFS3_OK },
			{ 1ULL << 32, NFS3_OK },
			{ INT64_MAX, NFS3_OK },
			{ 1ULL << 63, NFS3_OK },
			{ UINT64_MAX, NFS3ERR_INVAL },
			{ UINT64_MAX - 100, NFS3ERR_INVAL },
		};
		for (size_t i = 0; i < sizeof(co) / sizeof(co[0]); i++) {
			char what[96];

			snprintf(what, sizeof(what), "COMMIT off=%s count=4096",
				 hex64(co[i].off));
			refused3(nfsc_commit(c, &fh, co[i].off, 4096, verf),
				 co[i].want, what);
		}
	}
	{
		struct {
			uint64_t size;
			int want, want_vfs;
		} t[] = {
			{ 1ULL << 31, NFS3_OK, NFS3_OK },
			{ 1ULL << 32, NFS3_OK, NFS3_OK },
			{ M + 4096, NFS3ERR_FBIG, NFS3ERR_FBIG },
			{ INT64_MAX, NFS3ERR_FBIG, NFS3ERR_FBIG },
			{ 1ULL << 63, NFS3ERR_FBIG, NFS3ERR_INVAL },
			{ UINT64_MAX, NFS3ERR_FBIG, NFS3ERR_INVAL },
			{ FSZ, NFS3_OK, NFS3_OK },
		};
		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			int want = g_vfs ? t[i].want_vfs : t[i].want;
			char what[96];

			snprintf(what, sizeof(what), "SETATTR size=%s",
				 hex64(t[i].size));
			nfsc_sattr_size(&sa, t[i].size);
			st = nfsc_setattr(c, &fh, &sa);
			if (want == NFS3_OK)
				allowed3(st, want, what);
			else
				refused3(st, want, what);
		}
	}
}

/* ---- NFSv4 (libnfs high level) --------------------------------------------------------- */

static void refused4(int r, int want, const char *what)
{
	const char *d;

	snap(g_after);
	d = diff(g_before, g_after);
	tc_ok(r == want && !*d, "v4 %s: %d %s (want %d %s)%s%s", what, r,
	      r < 0 ? strerror(-r) : "", want, want < 0 ? strerror(-want) : "",
	      *d ? ", but " : ", nothing changed", d);
	memcpy(g_before, g_after, sizeof(g_before));
}

static void allowed4(int r, int want, const char *what)
{
	tc_ok(r == want, "v4 %s: %d %s (want %d)", what, r,
	      r < 0 ? strerror(-r) : "", want);
	snap(g_before);
}

static int open4(struct nfs_context *nfs, const char *path, int flags, int mode,
		 struct nfsfh **fh)
{
	int r;

	*fh = NULL;
	r = (flags & O_CREAT) ? nfs_open2(nfs, path, flags, mode, fh)
			      : nfs_open(nfs, path, flags, fh);
	if (r == 0 && *fh == NULL)
		r = -EIO;
	return r;
}

static int open_close4(struct nfs_context *nfs, const char *path, int flags,
		       int mode)
{
	struct nfsfh *fh;
	int r = open4(nfs, path, flags, mode, &fh);

	if (r == 0)
		nfs_close(nfs, fh);
	return r;
}

/* NFSv4 open upgrade (ganesha does not check its permission): the same open owner opens a
 * file it holds open for read, for write. Run on a context of its own: libnfs 4.0 loses its
 * open-owner sequence after a refused upgrade (NFS4ERR_BAD_SEQID, ERANGE, afterwards). Stock
 * FSAL_VFS answers INVAL there; what matters is that nothing changed. */
static void upgrade_v4(struct nfs_context *nfs)
{
	struct nfsfh *rfh;
	int r, want = g_vfs ? -EINVAL : -EACCES;

	snap(g_before);
	r = open4(nfs, "hostile/ro/victim", O_RDONLY, 0, &rfh);
	allowed4(r, 0, "OPEN ro/victim for read");
	if (r != 0)
		return;
	/* NFS4ERR_OPENMODE, which libnfs reports as ERANGE */
	refused4(nfs_pwrite(nfs, rfh, 0, 10, "xxxxxxxxxx"), -ERANGE,
		 "WRITE through the read-only open of ro/victim");
	refused4(nfs_ftruncate(nfs, rfh, 0), -ERANGE,
		 "SETATTR size=0 through the read-only open");
	refused4(open_close4(nfs, "hostile/ro/victim", O_WRONLY | O_TRUNC, 0),
		 want, "OPEN upgrade of ro/victim to write+truncate");
	nfs_close(nfs, rfh);
}

static void perm_v4(struct nfs_context *nfs, int uid)
{
	struct timeval tv[2] = { { 1000000, 0 }, { 1000000, 0 } };

	snap(g_before);
	refused4(open_close4(nfs, "hostile/ro/victim", O_WRONLY, 0), -EACCES,
		 "OPEN ro/victim for write");
	refused4(open_close4(nfs, "hostile/ro/victim", O_RDWR | O_TRUNC, 0),
		 -EACCES, "OPEN ro/victim O_RDWR|O_TRUNC");
	/* libnfs 4.0 sends this OPEN CREATE as EXCLUSIVE4. ganesha 6.5 answers
	 * it EXIST itself (verifier), with any FSAL (stock VFS too); 4.3 checks
	 * the caller's permission first (fsal_open2: check_open_permission) and
	 * refuses it as the kernel does */
	refused4(open_close4(nfs, "hostile/ro/victim",
			     O_WRONLY | O_CREAT | O_TRUNC, 0644),
		 g_gsh6 ? -EEXIST : -EACCES,
		 "OPEN CREATE UNCHECKED+truncate of ro/victim");
	refused4(open_close4(nfs, "hostile/ro/secret", O_RDONLY, 0), -EACCES,
		 "OPEN ro/secret for read");
	refused4(nfs_truncate(nfs, "hostile/ro/victim", 0), -EACCES,
		 "SETATTR size=0 of ro/victim");
	refused4(nfs_truncate(nfs, "hostile/ro/victim", 1 << 20), -EACCES,
		 "SETATTR size=1MiB of ro/victim");
	refused4(nfs_chmod(nfs, "hostile/ro/victim", 0666), -EACCES,
		 "SETATTR mode of ro/victim");
	refused4(nfs_chown(nfs, "hostile/ro/victim", uid, -1), -EACCES,
		 "SETATTR owner of ro/victim");
	refused4(nfs_chown(nfs, "hostile/ro/victim", -1, uid), -EACCES,
		 "SETATTR group of ro/victim");
	refused4(nfs_utimes(nfs, "hostile/ro/victim", tv), -EACCES,
		 "SETATTR times of ro/victim");
	refused4(open_close4(nfs, "hostile/ro/new4", O_WRONLY | O_CREAT, 0644),
		 -EACCES, "OPEN CREATE UNCHECKED in ro/");
	refused4(open_close4(nfs, "hostile/ro/new4",
			     O_WRONLY | O_CREAT | O_EXCL, 0644),
		 -EACCES, "OPEN CREATE EXCLUSIVE in ro/");
	refused4(nfs_mkdir(nfs, "hostile/ro/dir4"), -EACCES, "MKDIR in ro/");
	refused4(nfs_symlink(nfs, "victim", "hostile/ro/sym4"), -EACCES,
		 "SYMLINK in ro/");
	refused4(nfs_unlink(nfs, "hostile/ro/victim"), -EACCES,
		 "REMOVE ro/victim");
	refused4(nfs_rmdir(nfs, "hostile/ro/sub"), -EACCES, "RMDIR ro/sub");
	refused4(nfs_rename(nfs, "hostile/ro/victim", "hostile/pub/stolen4"),
		 -EACCES, "RENAME ro/victim -> pub/");
	refused4(nfs_rename(nfs, "hostile/pub/mine", "hostile/ro/victim"),
		 -EACCES, "RENAME pub/mine over ro/victim");
	refused4(nfs_link(nfs, "hostile/ro/victim", "hostile/ro/link4"),
		 -EACCES, "LINK ro/victim -> ro/");
}

static void create_ro_v4(struct nfs_context *nfs)
{
	static const int flags[] = { O_CREAT | O_WRONLY,
				     O_CREAT | O_EXCL | O_WRONLY,
				     O_CREAT | O_RDWR | O_TRUNC };
	static const char *const name[] = { "ro444_v4_unchecked",
					    "ro444_v4_excl", "ro444_v4_trunc" };
	unsigned char data[1000];

	ft_pattern_fill(6, 0, data, sizeof(data));
	for (int i = 0; i < 3; i++) {
		char p[128];
		struct nfsfh *fh;
		struct stat sb;
		int r, w = -1;

		snprintf(p, sizeof(p), "hostile/pub/%s", name[i]);
		unlink(lpath(p));
		r = open4(nfs, p, flags[i], 0444, &fh);
		if (r == 0) {
			w = nfs_pwrite(nfs, fh, 0, sizeof(data), data);
			nfs_close(nfs, fh);
		}
		memset(&sb, 0, sizeof(sb));
		stat(lpath(p), &sb);
		/* libnfs 4.0 sends no mode with an NFSv4 OPEN CREATE (ganesha makes the
		 * file 0600): the 0444 case itself is covered over NFSv3 */
		tc_ok(r == 0 && w == (int)sizeof(data) &&
			      sb.st_size == sizeof(data),
		      "v4 OPEN %s then WRITE through that open: open %d, write %d (want 0, %zu), on disk %o, %lld bytes (want %zu)",
		      name[i], r, w, sizeof(data), sb.st_mode & 07777,
		      (long long)sb.st_size, sizeof(data));
	}
}

static void bounds_v4(struct nfs_context *nfs)
{
	struct nfsfh *fh;
	unsigned char data[1000], buf[1000];
	const uint64_t M = g_maxbytes;
	struct {
		uint64_t off;
		int len, want, want_vfs; /* want: bytes written or -errno */
	} w[] = {
		{ 0, 1000, 1000, 1000 },
		{ 1ULL << 31, 1000, 1000, 1000 },
		{ 1ULL << 32, 1000, 1000, 1000 },
		{ M - 100, 1000, -EFBIG, 100 },
		{ M, 1, -EFBIG, -EFBIG },
		{ INT64_MAX, 1, -EFBIG, -EFBIG },
		{ INT64_MAX - 100, 1000, -EFBIG, -EFBIG },
		{ 1ULL << 63, 1000, -EFBIG, -EFBIG },
		{ UINT64_MAX, 1, -EINVAL, -EINVAL },
		{ UINT64_MAX - 100, 1000, -EINVAL, -EINVAL },
	};
	int r;

	r = open4(nfs, "hostile/pub/bound", O_RDWR, 0, &fh);
	tc_ok(r == 0, "v4 OPEN pub/bound O_RDWR: %d", r);
	if (r != 0)
		return;
	ft_pattern_fill(4, 0, data, sizeof(data));
	snap(g_before);
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		int want = g_vfs ? w[i].want_vfs : w[i].want;
		char what[96];

		snprintf(what, sizeof(what), "WRITE off=%s len=%d",
			 hex64(w[i].off), w[i].len);
		r = nfs_pwrite(nfs, fh, w[i].off, w[i].len, data);
		if (want >= 0)
			allowed4(r, want, what);
		else
			refused4(r, want, what);
	}
	r = nfs_fsync(nfs, fh);
	allowed4(r, 0, "COMMIT after the boundary WRITEs");
	r = nfs_pread(nfs, fh, 0, sizeof(buf), buf);
	tc_ok(r == (int)sizeof(buf) && !memcmp(buf, data, sizeof(buf)),
	      "v4 head of pub/bound unchanged by the refused WRITEs");
	{
		struct {
			uint64_t off;
			int want, want_vfs; /* bytes read or -errno */
		} rd[] = {
			{ 1ULL << 50, 0, 0 },
			{ INT64_MAX - 100, -EFBIG, -EFBIG },
			{ 1ULL << 63, -EFBIG, -EFBIG },
			{ UINT64_MAX, -EINVAL, -EINVAL },
		};
		for (size_t i = 0; i < sizeof(rd) / sizeof(rd[0]); i++) {
			int want = g_vfs ? rd[i].want_vfs : rd[i].want;

			r = nfs_pread(nfs, fh, rd[i].off, sizeof(buf), buf);
			tc_ok(r == want, "v4 READ off=%s len=%zu: %d (want %d)",
			      hex64(rd[i].off), sizeof(buf), r, want);
		}
	}
	{
		struct {
			uint64_t size;
			int want, want_vfs;
		} t[] = {
			{ M + 4096, -EFBIG, -EFBIG },
			{ INT64_MAX, -EFBIG, -EFBIG },
			{ 1ULL << 63, -EFBIG, -EINVAL },
			{ UINT64_MAX, -EFBIG, -EINVAL },
			{ FSZ, 0, 0 },
		};
		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			int want = g_vfs ? t[i].want_vfs : t[i].want;
			char what[96];

			snprintf(what, sizeof(what), "SETATTR size=%s",
				 hex64(t[i].size));
			r = nfs_ftruncate(nfs, fh, t[i].size);
			if (want == 0)
				allowed4(r, want, what);
			else
				refused4(r, want, what);
		}
	}
	nfs_close(nfs, fh);
}

static struct nfs_context *mount4(const struct nfsc_opts *o, const char *pseudo,
				  int uid, int gid)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *url;
	char u[512];

	if (!nfs)
		ft_die("nfs_init_context");
	nfs_set_timeout(nfs, NFSC_TIMEOUT_MS);
	nfs_set_autoreconnect(nfs, 0);
	nfsc_v4_identity(nfs, "ft_hostile");
	snprintf(u, sizeof(u), "nfs://%s%s?version=4&nfsport=%d&uid=%d&gid=%d",
		 o->host, pseudo, o->nfsport, uid, gid);
	url = nfs_parse_url_dir(nfs, u);
	if (!url)
		ft_die("ft_hostile: bad url %s: %s", u, nfs_get_error(nfs));
	if (nfs_mount(nfs, url->server, url->path) != 0)
		ft_die("ft_hostile: NFSv4 mount %s: %s", u, nfs_get_error(nfs));
	nfs_destroy_url(url);
	return nfs;
}

int main(int argc, char **argv)
{
	struct nfsc_opts o = { "127.0.0.1", 12049, 12050, NULL };
	struct nfsc_conn c;
	struct nfs_context *nfs;
	const char *pseudo = NULL;
	int opt, uid = 1000, gid = 1000;
	bool bounds = false;

	g_owner = -1;
	while ((opt = getopt(argc, argv, FT_COMMON_OPTS "4:u:g:o:f:bZ6")) !=
	       -1) {
		switch (opt) {
		case 'Z':
			g_no_zero_read = true;
			break;
		case '6':
			g_gsh6 = true;
			break;
		case '4':
			pseudo = optarg;
			break;
		case 'u':
			uid = atoi(optarg);
			break;
		case 'g':
			gid = atoi(optarg);
			break;
		case 'o':
			g_owner = atoi(optarg);
			break;
		case 'f':
			g_vfs = strcmp(optarg, "VFS") == 0;
			break;
		case 'b':
			bounds = true;
			break;
		default:
			if (!ft_common_opt(&o, opt, optarg))
				ft_die("usage: ft_hostile -e EXPORT_PATH -4 PSEUDO -u UID -g GID -o OWNER [-f FSAL] [-b] [-Z] [-6]");
		}
	}
	if (!o.export || !pseudo)
		ft_die("ft_hostile: -e and -4 required");
	if (g_owner < 0)
		g_owner = uid;
	snprintf(g_base, sizeof(g_base), "%s", o.export);
	setup_tree();
	g_maxbytes = probe_maxbytes();
	if (nfsc_connect(&c, &o, uid, gid, 10000) != 0)
		ft_die("ft_hostile: connect: %s", c.err);
	printf("# NFSv3 as uid %d (server-side owner %d), %s expectations, max file size %s\n",
	       uid, g_owner, g_vfs ? "VFS" : "DONTCACHE", hex64(g_maxbytes));
	perm_v3(&c, uid);
	stale_v3(&c);
	create_ro_v3(&c);
	if (bounds)
		bounds_v3(&c);
	nfsc_disconnect(&c);

	setup_tree();
	printf("# NFSv4 as uid %d\n", uid);
	nfs = mount4(&o, pseudo, uid, gid);
	upgrade_v4(nfs);
	nfs_umount(nfs);
	nfs_destroy_context(nfs);
	nfs = mount4(&o, pseudo, uid, gid);
	perm_v4(nfs, uid);
	create_ro_v4(nfs);
	if (bounds) {
		/* bound may be 4 GiB sparse after v3: start again from 8 KiB */
		fill("hostile/pub/bound", 4, FSZ, 0644, g_owner, g_owner);
		bounds_v4(nfs);
	}
	nfs_umount(nfs);
	nfs_destroy_context(nfs);
	printf("ft_hostile: checks=%d passed=%d failed=%d\n", tc_checks,
	       tc_checks - tc_failures, tc_failures);
	return tc_failures ? 1 : 0;
}
