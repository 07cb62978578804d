// SPDX-License-Identifier: LGPL-3.0-or-later
/* The main namespace operations over NFSv4 (libnfs high-level API, version=4): mkdir, create,
 * write (chunked: libnfs 4.0 cannot send NFSv4 WRITEs above ~4000 bytes), read back, stat,
 * chmod/chown/utimes/truncate, symlink/readlink, link, rename, readdir, remove, rmdir, and the
 * errors ENOENT, EEXIST, ENOTDIR, ENOTEMPTY, EACCES.
 *
 * usage: it_nsops_v4 -e EXPORT [-u UID] [common options] */
#include "itlib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define CHUNK 3500

static int user_id = 4242;

static void opt_cb(int opt, const char *arg)
{
	if (opt == 'u')
		user_id = atoi(arg);
}

static char pbuf[4][512];
static int pidx;
static const char *work;

static const char *P(const char *s)
{
	char *b = pbuf[pidx++ % 4];

	snprintf(b, 512, "/%s%s%s", work, *s ? "/" : "", s);
	return b;
}

static int write_all(struct nfs_context *nfs, struct nfsfh *fh,
		     const unsigned char *d, size_t n)
{
	size_t off = 0;

	while (off < n) {
		size_t len = n - off > CHUNK ? CHUNK : n - off;
		int r = nfs_pwrite(nfs, fh, off, len, d + off);

		if (r <= 0)
			return r < 0 ? r : -EIO;
		off += r;
	}
	return (int)off;
}

static int read_all(struct nfs_context *nfs, struct nfsfh *fh, unsigned char *d,
		    size_t n)
{
	size_t off = 0;

	while (off < n) {
		size_t len = n - off > CHUNK ? CHUNK : n - off;
		int r = nfs_pread(nfs, fh, off, len, d + off);

		if (r < 0)
			return r;
		if (r == 0)
			break;
		off += r;
	}
	return (int)off;
}

int main(int argc, char **argv)
{
	struct it_opts o;
	struct nfs_context *nfs, *unfs;
	struct nfsfh *fh = NULL;
	struct nfs_stat_64 st;
	struct nfsdir *dir;
	struct nfsdirent *de;
	struct timeval tv[2];
	enum { SZ = 200000 };
	static unsigned char data[SZ], back[SZ];
	char w[64], buf[256];
	int r, n, i;

	it_parse(argc, argv, &o, "u:", opt_cb);
	nfs = it_hl_mount(&o, 4, -1, -1);
	if (!nfs) {
		fprintf(stderr, "it_nsops_v4: NFSv4 mount of %s failed\n",
			o.export);
		return 2;
	}
	tc_ok(true, "NFSv4 mount of %s", o.export);
	snprintf(w, sizeof(w), "v4.%d", (int)getpid());
	work = w;
	for (i = 0; i < SZ; i++)
		data[i] = (unsigned char)(i * 7 + (i >> 11));

	IT_HL(nfs_mkdir2(nfs, P(""), 0755), r == 0,
	      "mkdir working directory: %d", r);
	IT_HL(nfs_mkdir2(nfs, P("d"), 0750), r == 0, "mkdir d: %d", r);
	IT_HL(nfs_mkdir(nfs, P("d")), r == -EEXIST,
	      "mkdir existing -> -EEXIST: %d", r);
	IT_HL(nfs_stat64(nfs, P("d"), &st),
	      r == 0 && S_ISDIR(st.nfs_mode) && (st.nfs_mode & 07777) == 0750,
	      "stat d: %d mode %llo", r, (unsigned long long)st.nfs_mode);
	IT_HL(nfs_stat64(nfs, P("missing"), &st), r == -ENOENT,
	      "stat missing -> -ENOENT: %d", r);

	/* nfs_creat would OPEN for reading only: writes need an OPEN with write access. */
	IT_HL(nfs_create(nfs, P("d/f"), O_CREAT | O_RDWR, 0640, &fh), r == 0,
	      "create d/f: %d", r);
	if (r == 0) {
		IT_HL(write_all(nfs, fh, data, SZ), r == SZ,
		      "write %d bytes in %d-byte calls: %d", SZ, CHUNK, r);
		IT_HL(nfs_fsync(nfs, fh), r == 0, "fsync: %d", r);
		IT_HL(nfs_close(nfs, fh), r == 0, "close: %d", r);
	}
	IT_HL(nfs_stat64(nfs, P("d/f"), &st),
	      r == 0 && S_ISREG(st.nfs_mode) && st.nfs_size == SZ,
	      "stat d/f: %d size %llu mode %llo", r,
	      (unsigned long long)st.nfs_size,
	      (unsigned long long)st.nfs_mode & 07777);
	IT_HL(nfs_open(nfs, P("d/f"), O_RDONLY, &fh), r == 0,
	      "open d/f O_RDONLY: %d", r);
	if (r == 0) {
		memset(back, 0, SZ);
		IT_HL(read_all(nfs, fh, back, SZ),
		      r == SZ && !memcmp(back, data, SZ),
		      "read back %d bytes, equal to what was written", r);
		nfs_close(nfs, fh);
	}
	/* Overwrite a range in the middle through a read-write open. */
	IT_HL(nfs_open(nfs, P("d/f"), O_RDWR, &fh), r == 0,
	      "open d/f O_RDWR: %d", r);
	if (r == 0) {
		IT_HL(nfs_pwrite(nfs, fh, 5000, 3, "XYZ"), r == 3,
		      "pwrite 3 bytes at 5000: %d", r);
		IT_HL(nfs_pread(nfs, fh, 4999, 5, buf),
		      r == 5 && buf[0] == (char)data[4999] &&
			      !memcmp(buf + 1, "XYZ", 3) &&
			      buf[4] == (char)data[5003],
		      "pread sees the overwrite: %d", r);
		nfs_close(nfs, fh);
	}
	IT_HL(nfs_open(nfs, P("d/missing"), O_RDONLY, &fh), r == -ENOENT,
	      "open missing -> -ENOENT: %d", r);
	IT_HL(nfs_open2(nfs, P("d/f"), O_CREAT | O_EXCL | O_WRONLY, 0644, &fh),
	      r == -EEXIST, "open O_CREAT|O_EXCL existing -> -EEXIST: %d", r);

	tv[0].tv_sec = 1400000000;
	tv[0].tv_usec = 0;
	tv[1].tv_sec = 1450000000;
	tv[1].tv_usec = 0;
	it_hl_setattrs(nfs, P("d/f"), 0604, 1111, 2222, 1000, tv);

	IT_HL(nfs_symlink(nfs, "f", P("d/s")), r == 0, "symlink d/s -> f: %d",
	      r);
	memset(buf, 0, sizeof(buf));
	IT_HL(nfs_readlink(nfs, P("d/s"), buf, sizeof(buf)),
	      r == 0 && !strcmp(buf, "f"), "readlink d/s: %d \"%s\"", r, buf);
	IT_HL(nfs_link(nfs, P("d/f"), P("d/hard")), r == 0,
	      "link d/f d/hard: %d", r);
	IT_HL(nfs_stat64(nfs, P("d/hard"), &st), r == 0 && st.nfs_nlink == 2,
	      "hard link has nlink %llu", (unsigned long long)st.nfs_nlink);

	IT_HL(nfs_mkdir(nfs, P("e")), r == 0, "mkdir e: %d", r);
	IT_HL(nfs_rename(nfs, P("d/hard"), P("e/moved")), r == 0,
	      "rename d/hard -> e/moved (across directories): %d", r);
	IT_HL(nfs_stat64(nfs, P("d/hard"), &st), r == -ENOENT,
	      "old name gone: %d", r);
	IT_HL(nfs_stat64(nfs, P("e/moved"), &st), r == 0 && st.nfs_size == 1000,
	      "new name: %d", r);
	IT_HL(nfs_create(nfs, P("e/target"), O_CREAT | O_WRONLY, 0644, &fh),
	      r == 0, "create e/target: %d", r);
	if (r == 0)
		nfs_close(nfs, fh);
	IT_HL(nfs_rename(nfs, P("e/moved"), P("e/target")), r == 0,
	      "rename onto an existing file: %d", r);
	IT_HL(nfs_stat64(nfs, P("e/target"), &st),
	      r == 0 && st.nfs_size == 1000, "target replaced (size %llu)",
	      (unsigned long long)st.nfs_size);
	IT_HL(nfs_mkdir(nfs, P("e/sub")), r == 0, "mkdir e/sub: %d", r);
	IT_HL(nfs_rename(nfs, P("e/sub"), P("d/sub2")), r == 0,
	      "rename directory across directories: %d", r);
	IT_HL(nfs_rename(nfs, P("e/nothing"), P("d/x")), r == -ENOENT,
	      "rename missing -> -ENOENT: %d", r);

	n = 0;
	IT_HL(nfs_opendir(nfs, P("d"), &dir), r == 0, "opendir d: %d", r);
	if (r == 0) {
		int seen_f = 0, seen_s = 0, seen_sub = 0;

		while ((de = nfs_readdir(nfs, dir))) {
			if (!strcmp(de->name, ".") || !strcmp(de->name, ".."))
				continue;
			n++;
			seen_f += !strcmp(de->name, "f") && de->type == NF3REG;
			seen_s += !strcmp(de->name, "s");
			seen_sub += !strcmp(de->name, "sub2");
		}
		nfs_closedir(nfs, dir);
		tc_ok(n == 3 && seen_f == 1 && seen_s == 1 && seen_sub == 1,
		      "readdir d lists f, s, sub2 (%d entries)", n);
	}
	IT_HL(nfs_opendir(nfs, P("d/f"), &dir), r == -ENOTDIR,
	      "opendir of a file -> -ENOTDIR: %d", r);
	IT_HL(nfs_rmdir(nfs, P("d")), r == -ENOTEMPTY || r == -EEXIST,
	      "rmdir non-empty -> -ENOTEMPTY: %d", r);

	/* A directory with more entries than one READDIR reply holds. */
	IT_HL(nfs_mkdir(nfs, P("many")), r == 0, "mkdir many: %d", r);
	for (i = 0, r = 0; i < 400 && r == 0; i++) {
		char nm[64];

		snprintf(nm, sizeof(nm), "many/file-with-a-long-name-%04d", i);
		r = nfs_create(nfs, P(nm), O_CREAT | O_WRONLY, 0644, &fh);
		if (r == 0)
			nfs_close(nfs, fh);
	}
	tc_ok(r == 0, "created 400 files in many/: %d", r);
	IT_HL(nfs_opendir(nfs, P("many"), &dir), r == 0, "opendir many: %d", r);
	if (r == 0) {
		static char seen[400];
		int dup = 0, miss = 0;

		memset(seen, 0, sizeof(seen));
		n = 0;
		while ((de = nfs_readdir(nfs, dir))) {
			int idx;

			if (sscanf(de->name, "file-with-a-long-name-%d",
				   &idx) == 1 &&
			    idx >= 0 && idx < 400) {
				dup += seen[idx]++ != 0;
				n++;
			}
		}
		nfs_closedir(nfs, dir);
		for (i = 0; i < 400; i++)
			miss += !seen[i];
		tc_ok(n == 400 && dup == 0 && miss == 0,
		      "readdir many lists all 400 (%d listed, %d missing, %d duplicates)",
		      n, miss, dup);
	}

	/* As an unprivileged user: EACCES. */
	IT_HL(nfs_mkdir2(nfs, P("pub"), 0755), r == 0, "mkdir pub 0755: %d", r);
	IT_HL(nfs_create(nfs, P("pub/secret"), O_CREAT | O_RDWR, 0600, &fh),
	      r == 0, "create pub/secret 0600: %d", r);
	if (r == 0)
		nfs_close(nfs, fh);
	IT_HL(nfs_create(nfs, P("pub/victim"), O_CREAT | O_RDWR, 0666, &fh),
	      r == 0, "create pub/victim 0666: %d", r);
	if (r == 0)
		nfs_close(nfs, fh);
	IT_HL(nfs_create(nfs, P("pub/victim2"), O_CREAT | O_RDWR, 0666, &fh),
	      r == 0, "create pub/victim2 0666: %d", r);
	if (r == 0)
		nfs_close(nfs, fh);
	unfs = it_hl_mount(&o, 4, user_id, user_id);
	tc_ok(unfs != NULL, "NFSv4 mount as uid %d", user_id);
	if (unfs) {
		IT_HL(nfs_mkdir(unfs, P("pub/nope")), r == -EACCES,
		      "mkdir in root's 0755 dir as user -> -EACCES: %d", r);
		IT_HL(nfs_open(unfs, P("pub/secret"), O_RDONLY, &fh),
		      r == -EACCES,
		      "open root's 0600 file as user -> -EACCES: %d", r);
		IT_HL(nfs_unlink(unfs, P("pub/victim")), r == -EACCES,
		      "unlink in root's 0755 dir as user -> -EACCES: %d", r);
		IT_HL(nfs_rename(unfs, P("pub/victim2"), P("pub/renamed")),
		      r == -EACCES,
		      "rename in root's 0755 dir as user -> -EACCES: %d", r);
		IT_HL(nfs_stat64(unfs, P("pub/secret"), &st),
		      r == 0 && S_ISREG(st.nfs_mode),
		      "stat of root's file as user works: %d (uid %llu)", r,
		      (unsigned long long)st.nfs_uid);
		nfs_umount(unfs);
		nfs_destroy_context(unfs);
	}
	IT_HL(nfs_unlink(nfs, P("pub/secret")), r == 0, "unlink pub/secret: %d",
	      r);
	nfs_unlink(
		nfs,
		P("pub/renamed")); /* only there if the rename was wrongly allowed */
	nfs_unlink(
		nfs,
		P("pub/victim")); /* gone already if the user's unlink was allowed */
	nfs_unlink(
		nfs,
		P("pub/victim2")); /* renamed already if the user's rename was allowed */
	IT_HL(nfs_rmdir(nfs, P("pub")), r == 0, "rmdir pub: %d", r);

	/* Remove everything. */
	for (i = 0, n = 0; i < 400; i++) {
		char nm[64];

		snprintf(nm, sizeof(nm), "many/file-with-a-long-name-%04d", i);
		n += nfs_unlink(nfs, P(nm)) != 0;
	}
	tc_ok(n == 0, "unlink 400 files (%d failures)", n);
	IT_HL(nfs_rmdir(nfs, P("many")), r == 0, "rmdir many: %d", r);
	IT_HL(nfs_unlink(nfs, P("d/f")), r == 0, "unlink d/f: %d", r);
	IT_HL(nfs_unlink(nfs, P("d/f")), r == -ENOENT,
	      "unlink again -> -ENOENT: %d", r);
	IT_HL(nfs_unlink(nfs, P("d/s")), r == 0, "unlink d/s: %d", r);
	IT_HL(nfs_rmdir(nfs, P("d/sub2")), r == 0, "rmdir d/sub2: %d", r);
	IT_HL(nfs_rmdir(nfs, P("d")), r == 0, "rmdir d: %d", r);
	IT_HL(nfs_unlink(nfs, P("e/target")), r == 0, "unlink e/target: %d", r);
	IT_HL(nfs_rmdir(nfs, P("e")), r == 0, "rmdir e: %d", r);
	IT_HL(nfs_rmdir(nfs, P("")), r == 0, "rmdir working directory: %d", r);
	IT_HL(nfs_stat64(nfs, P(""), &st), r == -ENOENT,
	      "working directory gone: %d", r);
	nfs_umount(nfs);
	nfs_destroy_context(nfs);
	return it_summary("it_nsops_v4");
}
