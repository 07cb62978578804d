// SPDX-License-Identifier: LGPL-3.0-or-later
/* ft_race: the two name races of issue 36, lost on purpose. A local process
 * (this program's "rename-*" modes, started by fault_race.sh as root beside
 * ganesha, bounded in time, killed by pid) renames root's files onto a name
 * in a tight loop while an NFSv4.1 client (this program's "create" and
 * "lookup" modes, tests/lib/nfs4c) as UID OPEN/CREATEs or LOOKUPs it.
 *
 *   create  (LOCAL/race_c, a root 0777 directory): the client REMOVEs "name"
 *           and OPEN CREATE UNCHECKED4s it for READ+WRITE, again and again;
 *           rename-create waits for a new file at "name" and renames a hard
 *           link of root's 0600 "secret" (kept as LOCAL/race_c_keep/secret)
 *           onto it at once. The module made the new file's handle by
 *           looking the name up again: it could hand out secret's handle
 *           with an open granted, the open's permission check skipped
 *           (created). Checked: every OPEN that succeeded is of a file whose
 *           fileid is not secret's, a READ through it never returns secret's
 *           bytes, secret is never changed (size, mode, owner, content);
 *   lookup  (LOCAL/race_l): rename-lookup makes pairs of new files in
 *           LOCAL/race_l_keep (A-N: owned by UID, 0666; B-N: root's, 0600)
 *           and renames a hard link of each onto "name" in turn; the client
 *           sends LOOKUP name, GETATTR fileid+mode, READ (anonymous
 *           stateid) again and again. The module took the stat and the
 *           handle from two lookups of the name: it could pair one file's
 *           attributes (fileid, owner, mode) with the other's handle, which
 *           MDCACHE keeps for a new object; ganesha checks the READ against
 *           those attributes, and the READ goes to the handle's file.
 *           Checked: no READ returns root's secret, every fileid seen has
 *           its own file's mode (the keep directory says which is which),
 *           and both kinds were seen (the race ran);
 *   readdir the same with READDIR of race_l (FILEHANDLE, FILEID, MODE) and a
 *           READ through the handle listed for "name" (rename-readdir is
 *           rename-lookup; READDIR makes its handles as LOOKUP does);
 *   mkdir   (LOCAL/race_m, root 0777): the client REMOVEs "name" and sends
 *           CREATE NF4DIR "name" mode 0755 + GETATTR again and again;
 *           rename-mkdir renames a new empty root-owned 0700 directory onto
 *           every directory of uid's at the name. mkdirat gives no fd: the
 *           module looked the name up again and handed out root's directory
 *           as the one created (and applied the create's attributes to it).
 *           Checked: every directory answered is uid's 0755 one.
 *
 * usage: ft_race setup -l LOCAL              (the trees, as root; first)
 *        ft_race rename-create|rename-lookup|rename-readdir|rename-mkdir
 *                -l LOCAL -t SECS [-u UID]
 *        ft_race create|lookup|readdir|mkdir [-H host] [-p port] -e PSEUDO -l LOCAL
 *                -t SECS [-u UID]
 *   PSEUDO the export's NFSv4 path, LOCAL its directory on the server.
 * The client modes print "ok"/"not ok" lines and
 *   ft_race: MODE tries=N hits=H checks=C passed=P failed=F
 * (hits: OPENs or CREATEs that succeeded / lookups answered); exit 0 when all passed,
 * 1 otherwise, 2 on setup failure. The rename modes run until SECS passed or
 * they are killed, and print what they did. */
#include "nfs4c.h"
#include "tcheck.h"

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SECRET "root's secret: never to be read, written or opened by uid"
#define MAX_FILES 40000 /* rename-lookup's bound on new files */
#define MAX_SEEN 200000
#define MAX_KINDS (4 * MAX_FILES) /* the files of several renamer runs */

static const char *g_local;
static uint32_t g_uid = 1000;

static const char *lpath(const char *rel)
{
	static char b[4][4096];
	static int i;
	char *p = b[i++ % 4];

	snprintf(p, 4096, "%s/%s", g_local, rel);
	return p;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int mkdir_as(const char *rel, mode_t mode)
{
	if (mkdir(lpath(rel), mode) != 0 && errno != EEXIST)
		return -1;
	if (chown(lpath(rel), 0, 0) != 0 || chmod(lpath(rel), mode) != 0)
		return -1;
	return 0;
}

/* A file of uid's with mode and content. */
static int make_file(const char *rel, uid_t uid, mode_t mode, const char *data)
{
	int fd =
		open(lpath(rel), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	int rc = -1;

	if (fd < 0)
		return -1;
	if (write(fd, data, strlen(data)) == (ssize_t)strlen(data) &&
	    fchown(fd, uid, uid) == 0 && fchmod(fd, mode) == 0)
		rc = 0;
	close(fd);
	return rc;
}

/* ---- the local renamers ---- */

/* Waits (polling: a wake-up from inotify comes too late) for a file at
 * race_c/name that is not secret, and renames a link of secret onto it. */
static int rename_create(double secs)
{
	double end = mono_now() + secs;
	struct stat keep, st;
	long renames = 0;
	int dfd;

	if (stat(lpath("race_c_keep/secret"), &keep) != 0)
		return 2;
	dfd = open(lpath("race_c"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 2;
	unlinkat(dfd, "tmp", 0);
	if (link(lpath("race_c_keep/secret"), lpath("race_c/tmp")) != 0)
		return 2;
	for (long i = 0;; i++) {
		if ((i & 1023) == 0 && mono_now() > end)
			break;
		if (fstatat(dfd, "name", &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    st.st_ino == keep.st_ino)
			continue;
		if (renameat(dfd, "tmp", dfd, "name") == 0) {
			renames++;
			if (link(lpath("race_c_keep/secret"),
				 lpath("race_c/tmp")) != 0)
				break;
		}
	}
	printf("ft_race: rename-create renames=%ld\n", renames);
	close(dfd);
	return 0;
}

/* Waits (polling) for a directory at race_m/name that is not root's, and
 * renames an empty root-owned 0700 directory onto it; a new one each time
 * (kept by their number in race_m_keep: renamed over, they are gone). */
static int rename_mkdir(double secs)
{
	double end = mono_now() + secs;
	long renames = 0;
	struct stat st;
	int dfd;

	dfd = open(lpath("race_m"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 2;
	unlinkat(dfd, "tmp", AT_REMOVEDIR);
	if (mkdirat(dfd, "tmp", 0700) != 0)
		return 2;
	for (long i = 0;; i++) {
		if ((i & 1023) == 0 && mono_now() > end)
			break;
		if (fstatat(dfd, "name", &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    st.st_uid == 0)
			continue;
		if (renameat(dfd, "tmp", dfd, "name") == 0) {
			renames++;
			if (mkdirat(dfd, "tmp", 0700) != 0)
				break;
		}
	}
	printf("ft_race: rename-mkdir renames=%ld\n", renames);
	close(dfd);
	return 0;
}

/* New pairs A-N (uid's, 0666) and B-N (root's, 0600) in race_l_keep, each
 * renamed onto race_l/name in turn (through a link: the keep directory keeps
 * every inode, so no fileid is reused during the run). */
static int rename_lookup(double secs)
{
	double end = mono_now() + secs;
	char rel[64], tmp[64];
	long n;

	for (n = 0; n < MAX_FILES / 2 && mono_now() < end; n++) {
		for (int k = 0; k < 2; k++) {
			snprintf(rel, sizeof(rel), "race_l_keep/%c-%d-%ld",
				 k ? 'B' : 'A', (int)getpid(), n);
			snprintf(tmp, sizeof(tmp), "race_l/tmp%c", 'A' + k);
			if (make_file(rel, k ? 0 : g_uid, k ? 0600 : 0666,
				      k ? SECRET : "uid's own file") != 0 ||
			    link(lpath(rel), lpath(tmp)) != 0 ||
			    rename(lpath(tmp), lpath("race_l/name")) != 0) {
				fprintf(stderr, "ft_race: %s: %s\n", rel,
					strerror(errno));
				return 2;
			}
		}
	}
	printf("ft_race: rename-lookup pairs=%ld\n", n);
	return 0;
}

/* ---- the client ---- */

/* GETATTR's fileid and mode (the attrmask asks for exactly those two). */
static bool fileid_mode(const fattr4 *fa, uint64_t *fileid, uint32_t *mode)
{
	uint64_t f;
	uint32_t m;

	if (fa->attrmask.bitmap4_len < 2 ||
	    !(fa->attrmask.map[0] & (1u << FATTR4_FILEID)) ||
	    !(fa->attrmask.map[1] & (1u << (FATTR4_MODE - 32))) ||
	    fa->attr_vals.attrlist4_len != 12)
		return false;
	memcpy(&f, fa->attr_vals.attrlist4_val, 8);
	memcpy(&m, fa->attr_vals.attrlist4_val + 8, 4);
	*fileid = be64toh(f);
	*mode = ntohl(m) & 07777;
	return true;
}

static void ask_fileid_mode(nfs_argop4 *o)
{
	bitmap4 *b = &o->nfs_argop4_u.opgetattr.attr_request;

	b->bitmap4_len = 2;
	b->map[0] = 1u << FATTR4_FILEID;
	b->map[1] = 1u << (FATTR4_MODE - 32);
}

static int remove_name(struct nfs4c *c, struct nfs4c_file *dir)
{
	struct nfs4c_cpd p;
	nfs_argop4 *o = nfs4c_fop(c, &p, dir, NFS4_OP_REMOVE);
	int st;

	nfs4c_component(&o->nfs_argop4_u.opremove.target, "name");
	st = nfs4c_run(c, &p);
	nfs4c_done(&p);
	return st;
}

/* OPEN CREATE UNCHECKED4 "name" (no attributes), GETFH, GETATTR. */
static int open_create(struct nfs4c *c, struct nfs4c_file *dir,
		       struct nfs4c_file *f, uint64_t *fileid, uint32_t *mode)
{
	struct nfs4c_cpd p;
	char owner[32];
	nfs_argop4 *o = nfs4c_fop(c, &p, dir, NFS4_OP_OPEN);
	OPEN4args *oa = &o->nfs_argop4_u.opopen;
	int st;

	snprintf(owner, sizeof(owner), "owner-%u", c->r.uid);
	oa->share_access = OPEN4_SHARE_ACCESS_BOTH;
	oa->share_deny = OPEN4_SHARE_DENY_NONE;
	oa->owner.clientid = c->clid;
	oa->owner.owner.owner_len = strlen(owner);
	oa->owner.owner.owner_val = owner;
	oa->openhow.opentype = OPEN4_CREATE;
	oa->openhow.openflag4_u.how.mode = UNCHECKED4;
	oa->openhow.openflag4_u.how.createhow4_u.createattrs.attrmask
		.bitmap4_len = 1;
	oa->claim.claim = CLAIM_NULL;
	nfs4c_component(&oa->claim.open_claim4_u.file, "name");
	nfs4c_add(&p, NFS4_OP_GETFH);
	ask_fileid_mode(nfs4c_add(&p, NFS4_OP_GETATTR));
	st = nfs4c_run(c, &p);
	if (st == NFS4_OK) {
		nfs_fh4 *fh = &nfs4c_res(&p, 3)
				       ->nfs_resop4_u.opgetfh.GETFH4res_u.resok4
				       .object;

		f->sid =
			nfs4c_res(&p, 2)
				->nfs_resop4_u.opopen.OPEN4res_u.resok4.stateid;
		memcpy(f->fhbuf, fh->nfs_fh4_val, fh->nfs_fh4_len);
		f->fh.nfs_fh4_len = fh->nfs_fh4_len;
		f->fh.nfs_fh4_val = f->fhbuf;
		if (!fileid_mode(&nfs4c_res(&p, 4)
					  ->nfs_resop4_u.opgetattr.GETATTR4res_u
					  .resok4.obj_attributes,
				 fileid, mode))
			st = NFS4ERR_IO;
	}
	nfs4c_done(&p);
	return st;
}

/* LOOKUP "name", GETATTR, READ (the anonymous stateid) of up to 64 bytes
 * into data (*got: how many; 0 when the READ was refused). */
static int lookup_attrs(struct nfs4c *c, struct nfs4c_file *dir,
			uint64_t *fileid, uint32_t *mode, char *data,
			uint32_t *got)
{
	struct nfs4c_cpd p;
	nfs_argop4 *o = nfs4c_fop(c, &p, dir, NFS4_OP_LOOKUP);
	nfs_resop4 *ga, *rd;
	READ4args *ra;
	int st;

	nfs4c_component(&o->nfs_argop4_u.oplookup.objname, "name");
	ask_fileid_mode(nfs4c_add(&p, NFS4_OP_GETATTR));
	ra = &nfs4c_add(&p, NFS4_OP_READ)->nfs_argop4_u.opread;
	memset(&ra->stateid, 0, sizeof(ra->stateid));
	ra->offset = 0;
	ra->count = 64;
	*got = 0;
	st = nfs4c_run(c, &p);
	ga = nfs4c_res(&p, 3);
	rd = nfs4c_res(&p, 4);
	if (st == -1 || ga == NULL ||
	    ga->nfs_resop4_u.opgetattr.status != NFS4_OK) {
		nfs4c_done(&p);
		return st == NFS4_OK ? NFS4ERR_IO : st;
	}
	if (!fileid_mode(&ga->nfs_resop4_u.opgetattr.GETATTR4res_u.resok4
				  .obj_attributes,
			 fileid, mode))
		st = NFS4ERR_IO;
	else
		st = NFS4_OK;
	if (rd != NULL && rd->nfs_resop4_u.opread.status == NFS4_OK) {
		READ4resok *r = &rd->nfs_resop4_u.opread.READ4res_u.resok4;

		*got = r->data.data_len < 64 ? r->data.data_len : 64;
		memcpy(data, r->data.data_val, *got);
	}
	nfs4c_done(&p);
	return st;
}

/* READDIR of dir (its first 32 KiB) asking FILEHANDLE, FILEID and MODE;
 * the entry "name", if listed, into f (its handle, the anonymous stateid),
 * *fileid and *mode. NFS4ERR_NOENT when "name" was not listed. */
static int readdir_name(struct nfs4c *c, struct nfs4c_file *dir,
			struct nfs4c_file *f, uint64_t *fileid, uint32_t *mode)
{
	struct nfs4c_cpd p;
	nfs_argop4 *o = nfs4c_fop(c, &p, dir, NFS4_OP_READDIR);
	READDIR4args *ra = &o->nfs_argop4_u.opreaddir;
	int st;

	ra->cookie = 0;
	ra->dircount = 16384;
	ra->maxcount = 32768;
	ra->attr_request.bitmap4_len = 2;
	ra->attr_request.map[0] =
		(1u << FATTR4_FILEHANDLE) | (1u << FATTR4_FILEID);
	ra->attr_request.map[1] = 1u << (FATTR4_MODE - 32);
	st = nfs4c_run(c, &p);
	if (st == NFS4_OK) {
		entry4 *e = nfs4c_res(&p, 2)
				    ->nfs_resop4_u.opreaddir.READDIR4res_u
				    .resok4.reply.entries;

		st = NFS4ERR_NOENT;
		for (; e != NULL; e = e->nextentry) {
			const char *v = e->attrs.attr_vals.attrlist4_val;
			uint32_t len = e->attrs.attr_vals.attrlist4_len, fl;
			uint64_t fid;
			uint32_t m;

			if (e->name.utf8string_len != 4 ||
			    memcmp(e->name.utf8string_val, "name", 4) != 0)
				continue;
			st = NFS4ERR_IO;
			if (len < 4)
				break;
			memcpy(&fl, v, 4);
			fl = ntohl(fl);
			if (fl > NFS4_FHSIZE ||
			    len != 4 + ((fl + 3) & ~3u) + 12)
				break;
			memcpy(f->fhbuf, v + 4, fl);
			f->fh.nfs_fh4_len = fl;
			f->fh.nfs_fh4_val = f->fhbuf;
			memset(&f->sid, 0, sizeof(f->sid));
			v += 4 + ((fl + 3) & ~3u);
			memcpy(&fid, v, 8);
			memcpy(&m, v + 8, 4);
			*fileid = be64toh(fid);
			*mode = ntohl(m) & 07777;
			st = NFS4_OK;
			break;
		}
	}
	nfs4c_done(&p);
	return st;
}

/* secret as it must stay */
static bool secret_intact(const struct stat *k0)
{
	char buf[256];
	struct stat st;
	ssize_t n;
	int fd = open(lpath("race_c_keep/secret"), O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = pread(fd, buf, sizeof(buf), 0);
	if (fstat(fd, &st) != 0)
		n = -1;
	close(fd);
	return n == (ssize_t)strlen(SECRET) && memcmp(buf, SECRET, n) == 0 &&
	       st.st_uid == 0 && st.st_gid == 0 &&
	       (st.st_mode & 07777) == 0600 && st.st_ino == k0->st_ino &&
	       st.st_mtim.tv_sec == k0->st_mtim.tv_sec &&
	       st.st_mtim.tv_nsec == k0->st_mtim.tv_nsec;
}

static int client_create(struct nfs4c *c, struct nfs4c_file *dir, double secs)
{
	double end = mono_now() + secs;
	long tries = 0, hits = 0, secret_opens = 0, leaks = 0, busy = 0;
	bool intact = true;
	struct stat k0;
	char buf[256];

	if (stat(lpath("race_c_keep/secret"), &k0) != 0)
		return 2;
	c->r.uid = c->r.gid = g_uid;
	while (mono_now() < end) {
		struct nfs4c_file f;
		uint64_t fileid = 0;
		uint32_t mode = 0, got = 0;
		int st;

		remove_name(c, dir);
		tries++;
		st = open_create(c, dir, &f, &fileid, &mode);
		if (st == -1)
			return 2;
		if (st != NFS4_OK) {
			/* the secret was there first: ACCESS */
			if (busy++ < 3 || st != NFS4ERR_ACCESS)
				printf("# OPEN CREATE try %ld: %s\n", tries,
				       nfs4c_st(st));
			continue;
		}
		hits++;
		if (fileid == (uint64_t)k0.st_ino) {
			if (secret_opens++ < 3)
				printf("# OPEN CREATE as uid %u got root's secret: fileid %llu mode %04o\n",
				       g_uid, (unsigned long long)fileid, mode);
		}
		memset(buf, 0, sizeof(buf));
		if (nfs4c_read(c, &f, 0, buf, sizeof(buf), &got) == NFS4_OK &&
		    got >= strlen(SECRET) && memcmp(buf, SECRET, 10) == 0)
			leaks++;
		nfs4c_write(c, &f, 0, "uid-data", 8, FILE_SYNC4, NULL);
		nfs4c_close_file(c, &f);
		if (intact && !secret_intact(&k0)) {
			intact = false;
			printf("# root's secret changed after try %ld\n",
			       tries);
		}
	}
	tc_ok(secret_opens == 0,
	      "no OPEN CREATE as uid %u was granted on root's 0600 secret (renamed onto the name): %ld of %ld granted OPENs were",
	      g_uid, secret_opens, hits);
	tc_ok(leaks == 0,
	      "no READ through those opens returned the secret (%ld did)",
	      leaks);
	tc_ok(intact && secret_intact(&k0),
	      "root's secret unchanged (content, size, mode, owner, mtime)");
	tc_ok(hits > 0,
	      "OPEN CREATEs succeeded (%ld of %ld; %ld refused, the secret was there first)",
	      hits, tries, busy);
	printf("ft_race: create tries=%ld hits=%ld ", tries, hits);
	return 0;
}

/* CREATE NF4DIR "name" mode 0755, GETATTR. */
static int mkdir_name(struct nfs4c *c, struct nfs4c_file *dir, uint64_t *fileid,
		      uint32_t *mode)
{
	struct nfs4c_cpd p;
	nfs_argop4 *o = nfs4c_fop(c, &p, dir, NFS4_OP_CREATE);
	CREATE4args *ca = &o->nfs_argop4_u.opcreate;
	uint32_t m = htonl(0755);
	int st;

	ca->objtype.type = NF4DIR;
	nfs4c_component(&ca->objname, "name");
	ca->createattrs.attrmask.bitmap4_len = 2;
	ca->createattrs.attrmask.map[1] = 1u << (FATTR4_MODE - 32);
	ca->createattrs.attr_vals.attrlist4_len = 4;
	ca->createattrs.attr_vals.attrlist4_val = (char *)&m;
	ask_fileid_mode(nfs4c_add(&p, NFS4_OP_GETATTR));
	st = nfs4c_run(c, &p);
	if (st == NFS4_OK &&
	    !fileid_mode(&nfs4c_res(&p, 3)
				  ->nfs_resop4_u.opgetattr.GETATTR4res_u.resok4
				  .obj_attributes,
			 fileid, mode))
		st = NFS4ERR_IO;
	nfs4c_done(&p);
	return st;
}

/* MKDIR race: every directory a MKDIR as uid hands out is uid's 0755 one,
 * never root's 0700 one renamed onto the name. */
static int client_mkdir(struct nfs4c *c, struct nfs4c_file *dir, double secs)
{
	double end = mono_now() + secs;
	long tries = 0, hits = 0, roots = 0, refused = 0;

	c->r.uid = c->r.gid = g_uid;
	while (mono_now() < end) {
		uint64_t fileid = 0;
		uint32_t mode = 0;
		int st;

		remove_name(c, dir);
		tries++;
		st = mkdir_name(c, dir, &fileid, &mode);
		if (st == -1)
			return 2;
		if (st != NFS4_OK) {
			if (refused++ < 3)
				printf("# CREATE dir try %ld: %s\n", tries,
				       nfs4c_st(st));
			continue;
		}
		hits++;
		if (mode != 0755 && roots++ < 3)
			printf("# CREATE dir as uid %u handed out fileid %llu mode %04o (root's 0700 directory)\n",
			       g_uid, (unsigned long long)fileid, mode);
	}
	tc_ok(roots == 0,
	      "every directory a CREATE as uid %u answered is its own 0755 one: %ld of %ld were not",
	      g_uid, roots, hits);
	tc_ok(hits > 0, "CREATE dir succeeded (%ld of %ld; %ld refused)", hits,
	      tries, refused);
	printf("ft_race: mkdir tries=%ld hits=%ld ", tries, hits);
	return 0;
}

/* fileid -> kind ('A' uid's 0666, 'B' root's 0600), from the keep directory */
struct kind {
	uint64_t ino;
	char k;
};

static int kind_cmp(const void *a, const void *b)
{
	const struct kind *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int client_lookup(struct nfs4c *c, struct nfs4c_file *dir, double secs,
			 bool by_readdir)
{
	struct seen {
		uint64_t fileid;
		uint32_t mode;
	} *seen = calloc(MAX_SEEN, sizeof(*seen));
	struct kind *kinds = calloc(MAX_KINDS, sizeof(*kinds));
	double end = mono_now() + secs;
	long tries = 0, nseen = 0, nk = 0, bad = 0, a = 0, b = 0, unknown = 0;
	long leaks = 0;
	struct dirent *d;
	DIR *dd;

	if (seen == NULL || kinds == NULL)
		return 2;
	c->r.uid = c->r.gid = g_uid;
	while (mono_now() < end && nseen < MAX_SEEN) {
		uint64_t fileid = 0;
		uint32_t mode = 0, got = 0;
		char data[64];
		int st;

		tries++;
		if (by_readdir) {
			struct nfs4c_file f;

			st = readdir_name(c, dir, &f, &fileid, &mode);
			if (st == NFS4_OK &&
			    nfs4c_read(c, &f, 0, data, sizeof(data), &got) ==
				    -1)
				st = -1;
		} else {
			st = lookup_attrs(c, dir, &fileid, &mode, data, &got);
		}
		if (st == -1)
			return 2;
		if (got >= 10 && memcmp(data, SECRET, 10) == 0 && leaks++ < 3)
			printf("# READ as uid %u after %s returned root's secret (attributes: fileid %llu mode %04o)\n",
			       g_uid, by_readdir ? "READDIR" : "LOOKUP",
			       (unsigned long long)fileid, mode);
		if (st == NFS4_OK) {
			seen[nseen].fileid = fileid;
			seen[nseen++].mode = mode;
		}
	}
	/* the truth: every file the renamer made, by inode */
	dd = opendir(lpath("race_l_keep"));
	if (dd == NULL)
		return 2;
	while ((d = readdir(dd)) != NULL && nk < MAX_KINDS) {
		struct stat st;
		char rel[300];

		if (d->d_name[0] != 'A' && d->d_name[0] != 'B')
			continue;
		snprintf(rel, sizeof(rel), "race_l_keep/%s", d->d_name);
		if (stat(lpath(rel), &st) != 0)
			continue;
		kinds[nk].ino = st.st_ino;
		kinds[nk++].k = d->d_name[0];
	}
	closedir(dd);
	qsort(kinds, (size_t)nk, sizeof(*kinds), kind_cmp);
	for (long i = 0; i < nseen; i++) {
		struct kind key = { .ino = seen[i].fileid }, *k;
		uint32_t want;

		k = bsearch(&key, kinds, (size_t)nk, sizeof(*kinds), kind_cmp);
		if (k == NULL) {
			unknown++;
			continue;
		}
		want = k->k == 'A' ? 0666 : 0600;
		k->k == 'A' ? a++ : b++;
		if (seen[i].mode != want && bad++ < 3)
			printf("# LOOKUP as uid %u: fileid %llu (%s) answered with mode %04o, its mode is %04o\n",
			       g_uid, (unsigned long long)seen[i].fileid,
			       k->k == 'A' ? "uid's 0666 file"
					   : "root's 0600 file",
			       seen[i].mode, want);
	}
	tc_ok(bad == 0,
	      "every %s as uid %u paired a fileid with its own file's mode (%ld of %ld did not)",
	      by_readdir ? "READDIR entry" : "LOOKUP+GETATTR", g_uid, bad,
	      nseen);
	tc_ok(leaks == 0,
	      "no READ as uid %u through a %s's handle returned root's 0600 secret (%ld did)",
	      g_uid, by_readdir ? "READDIR" : "LOOKUP", leaks);
	tc_ok(a > 0 && b > 0 && unknown == 0,
	      "the race ran: %ld answers of uid's files, %ld of root's, %ld of unknown fileids",
	      a, b, unknown);
	printf("ft_race: %s tries=%ld hits=%ld ",
	       by_readdir ? "readdir" : "lookup", tries, nseen);
	free(seen);
	free(kinds);
	return 0;
}

/* The trees, as root: race_c (0777, not sticky: uid creates and removes
 * there) with root's 0600 secret kept in race_c_keep, race_l and
 * race_l_keep (0755). */
static int setup(void)
{
	if (mkdir_as("race_c", 0777) != 0 || mkdir_as("race_c_keep", 0755) ||
	    mkdir_as("race_m", 0777) != 0 || mkdir_as("race_l", 0755) != 0 ||
	    mkdir_as("race_l_keep", 0755) ||
	    make_file("race_c_keep/secret", 0, 0600, SECRET) != 0) {
		fprintf(stderr, "ft_race: setup in %s: %s\n", g_local,
			strerror(errno));
		return 2;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ft_race setup -l LOCAL\n"
		"       ft_race rename-create|rename-lookup|rename-readdir|rename-mkdir -l LOCAL -t SECS [-u UID]\n"
		"       ft_race create|lookup|readdir|mkdir [-H host] [-p port] -e PSEUDO -l LOCAL -t SECS [-u UID]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct nfs4c_opts o = NFS4C_OPTS_DEFAULT;
	struct nfs4c_file dir;
	const char *mode;
	double secs = 0;
	struct nfs4c c;
	char p[1024];
	int opt, st, rc;

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, NFS4C_COMMON_OPTS "l:t:u:")) != -1) {
		switch (opt) {
		case 'l':
			g_local = optarg;
			break;
		case 't':
			secs = strtod(optarg, NULL);
			break;
		case 'u':
			g_uid = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		default:
			if (!nfs4c_common_opt(&o, opt, optarg))
				usage();
		}
	}
	if (!g_local || (secs <= 0 && strcmp(mode, "setup") != 0))
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(mode, "rename-create") == 0)
		return rename_create(secs);
	if (strcmp(mode, "rename-lookup") == 0 ||
	    strcmp(mode, "rename-readdir") == 0)
		return rename_lookup(secs);
	if (strcmp(mode, "rename-mkdir") == 0)
		return rename_mkdir(secs);
	if (strcmp(mode, "setup") == 0)
		return setup();
	if (!o.export ||
	    (strcmp(mode, "create") != 0 && strcmp(mode, "lookup") != 0 &&
	     strcmp(mode, "mkdir") != 0 && strcmp(mode, "readdir") != 0))
		usage();
	if (nfs4c_connect(&c, o.host, o.port, 1, "ft_race") != 0) {
		fprintf(stderr, "ft_race: no NFSv4.1 session with %s:%d\n",
			o.host, o.port);
		return 2;
	}
	snprintf(p, sizeof(p), "%s/race_%c", o.export,
		 strcmp(mode, "create") == 0  ? 'c'
		 : strcmp(mode, "mkdir") == 0 ? 'm'
					      : 'l');
	st = nfs4c_lookup_dir(&c, p, &dir);
	if (st != NFS4_OK) {
		fprintf(stderr, "ft_race: LOOKUP %s: %s\n", p, nfs4c_st(st));
		return 2;
	}
	if (strcmp(mode, "create") == 0)
		rc = client_create(&c, &dir, secs);
	else if (strcmp(mode, "mkdir") == 0)
		rc = client_mkdir(&c, &dir, secs);
	else
		rc = client_lookup(&c, &dir, secs,
				   strcmp(mode, "readdir") == 0);
	nfs4c_close(&c);
	if (rc != 0) {
		fprintf(stderr, "ft_race: %s: the client failed (RPC)\n", mode);
		return rc;
	}
	printf("checks=%d passed=%d failed=%d\n", tc_checks,
	       tc_checks - tc_failures, tc_failures);
	return tc_failures ? 1 : 0;
}
