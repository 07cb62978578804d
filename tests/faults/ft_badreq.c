// SPDX-License-Identifier: LGPL-3.0-or-later
/* ft_badreq: bad NFSv3 requests get correct answers.
 *
 * ft_badreq [-H host -p nfsport -M mntport] -e export
 * WRITE/READ/COMMIT on a directory, WRITEs past the filesystem's maximum file size and past
 * 2^63, a WRITE whose count exceeds its data, zero-length WRITEs, READs at and past EOF, and
 * afterwards the file still holds exactly what was written. One "ok"/"not ok" line per check;
 * exit 0 when all passed, 1 otherwise, 2 on setup failure.
 */
#include "ftlib.h"
#include "tcheck.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static bool one_of(int st, int a, int b)
{
	return st == a || st == b;
}

static uint64_t fsize(struct nfsc_conn *c, const struct nfsc_fh *fh)
{
	fattr3 at;

	if (nfsc_getattr(c, fh, &at) != NFS3_OK)
		return UINT64_MAX;
	return at.size;
}

int main(int argc, char **argv)
{
	struct nfsc_opts o = { "127.0.0.1", 12049, 12050, NULL };
	struct nfsc_conn c;
	struct nfsc_fh dir, file;
	unsigned char data[10000], buf[8192], want[8192];
	const uint64_t fsz = sizeof(data);
	uint32_t cnt, got;
	int opt, st;
	stable_how committed;
	bool eof;
	char verf[8];
	uint64_t seed = ft_seed("badreq_file");
	bool zero_read = true;

	/* -Z: no zero-length READ (ganesha 6.5 crashes on one before any FSAL
	 * is called: its nfs3_read writes through a NULL iovec) */
	while ((opt = getopt(argc, argv, FT_COMMON_OPTS "Z")) != -1)
		if (opt == 'Z')
			zero_read = false;
		else if (!ft_common_opt(&o, opt, optarg))
			ft_die("usage: ft_badreq -e export [-Z]");
	if (!o.export)
		ft_die("ft_badreq: -e export required");
	if (ft_connect(&c, &o) != 0)
		ft_die("ft_badreq: connect: %s", c.err);
	st = ft_mkdir(&c, &c.root, "badreq_dir", &dir);
	if (st != NFS3_OK)
		ft_die("ft_badreq: mkdir: %s", nfsc_st(st));
	st = ft_create(&c, &c.root, "badreq_file", &file);
	if (st != NFS3_OK)
		ft_die("ft_badreq: create: %s", nfsc_st(st));
	ft_pattern_fill(seed, 0, data, sizeof(data));
	st = nfsc_write(&c, &file, 0, data, sizeof(data), FILE_SYNC, &cnt,
			&committed, verf);
	tc_ok(st == NFS3_OK && cnt == sizeof(data) && committed != UNSTABLE,
	      "setup FILE_SYNC write of %zu bytes: %s count %u committed %d",
	      sizeof(data), nfsc_st(st), cnt, committed);

	/* directories */
	st = nfsc_write(&c, &dir, 0, data, 100, UNSTABLE, &cnt, NULL, NULL);
	tc_ok(one_of(st, NFS3ERR_ISDIR, NFS3ERR_INVAL),
	      "WRITE to a directory: %s (want ISDIR/INVAL)", nfsc_st(st));
	st = nfsc_write(&c, &dir, 0, data, 100, FILE_SYNC, &cnt, NULL, NULL);
	tc_ok(one_of(st, NFS3ERR_ISDIR, NFS3ERR_INVAL),
	      "FILE_SYNC WRITE to a directory: %s (want ISDIR/INVAL)",
	      nfsc_st(st));
	st = nfsc_read(&c, &dir, 0, 100, buf, &got, &eof);
	tc_ok(one_of(st, NFS3ERR_ISDIR, NFS3ERR_INVAL),
	      "READ of a directory: %s (want ISDIR/INVAL)", nfsc_st(st));
	st = nfsc_commit(&c, &dir, 0, 0, verf);
	tc_ok(st != -1,
	      "COMMIT of a directory answered %s (an answer, no crash)",
	      nfsc_st(st));
	tc_ok(nfsc_null(&c) == 0,
	      "server answers NULL after the directory requests");
	/* listing a (sub)directory: the same handle works for WRITE's ISDIR answer above */
	{
		READDIR3args ra;
		READDIRPLUS3args rp;
		struct nfsc_call k1 = { 0 }, k2 = { 0 };

		memset(&ra, 0, sizeof(ra));
		nfsc_fh_to3(&dir, &ra.dir);
		ra.count = 4096;
		if (rpc_nfs3_readdir_async(c.rpc, nfsc_call_cb, &ra, &k1) == 0)
			nfsc_wait(&c, &k1);
		else
			k1.st = -1;
		tc_ok(k1.st == NFS3_OK,
		      "READDIR of a subdirectory: %s (want OK)",
		      nfsc_st(k1.st));
		memset(&rp, 0, sizeof(rp));
		nfsc_fh_to3(&dir, &rp.dir);
		rp.dircount = 4096;
		rp.maxcount = 16384;
		if (rpc_nfs3_readdirplus_async(c.rpc, nfsc_call_cb, &rp, &k2) ==
		    0)
			nfsc_wait(&c, &k2);
		else
			k2.st = -1;
		tc_ok(k2.st == NFS3_OK,
		      "READDIRPLUS of a subdirectory: %s (want OK)",
		      nfsc_st(k2.st));
	}

	/* maximum file size */
	{
		static const struct {
			uint64_t off;
			const char *what;
			bool strict;
		} big[] = {
			{ (1ULL << 44) + 4096, "past ext4's 16 TiB limit",
			  true },
			{ (1ULL << 50), "at 1 PiB", true },
			{ INT64_MAX - 50, "ending past 2^63-1", false },
			{ UINT64_MAX - 50, "wrapping past 2^64", false },
		};
		for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
			for (int stable = UNSTABLE; stable <= FILE_SYNC;
			     stable += FILE_SYNC) {
				st = nfsc_write(&c, &file, big[i].off, data,
						100, stable, &cnt, NULL, NULL);
				if (big[i].strict)
					tc_ok(st == NFS3ERR_FBIG,
					      "%s WRITE at offset %llu (%s): %s (want FBIG)",
					      stable ? "FILE_SYNC" : "UNSTABLE",
					      (unsigned long long)big[i].off,
					      big[i].what, nfsc_st(st));
				else
					tc_ok(one_of(st, NFS3ERR_FBIG,
						     NFS3ERR_INVAL),
					      "%s WRITE at offset %llu (%s): %s (want FBIG/INVAL)",
					      stable ? "FILE_SYNC" : "UNSTABLE",
					      (unsigned long long)big[i].off,
					      big[i].what, nfsc_st(st));
			}
		}
		st = nfsc_commit(&c, &file, 0, 0, verf);
		tc_ok(st == NFS3_OK,
		      "COMMIT after the refused big WRITEs: %s (want OK)",
		      nfsc_st(st));
		tc_ok(fsize(&c, &file) == fsz,
		      "file size still %llu after the refused WRITEs (got %llu)",
		      (unsigned long long)fsz,
		      (unsigned long long)fsize(&c, &file));
	}

	/* count larger than the data sent */
	{
		WRITE3args a;
		struct nfsc_call k;

		memset(&a, 0, sizeof(a));
		memset(&k, 0, sizeof(k));
		nfsc_fh_to3(&file, &a.file);
		a.offset = 0;
		a.count = 4096;
		a.stable = UNSTABLE;
		a.data.data_len = 10;
		a.data.data_val = (char *)data;
		if (rpc_nfs3_write_async(c.rpc, nfsc_call_cb, &a, &k) == 0)
			nfsc_wait(&c, &k);
		else
			k.st = -1;
		tc_ok(k.st == NFS3ERR_INVAL,
		      "WRITE with count 4096 but 10 data bytes: %s (want INVAL)",
		      nfsc_st(k.st));
	}

	/* zero-length writes */
	st = nfsc_write(&c, &file, 0, data, 0, UNSTABLE, &cnt, NULL, NULL);
	tc_ok(st == NFS3_OK && cnt == 0,
	      "zero-length UNSTABLE WRITE at 0: %s count %u (want OK, 0)",
	      nfsc_st(st), cnt);
	st = nfsc_write(&c, &file, 5000, data, 0, FILE_SYNC, &cnt, NULL, NULL);
	tc_ok(st == NFS3_OK && cnt == 0,
	      "zero-length FILE_SYNC WRITE at 5000: %s count %u (want OK, 0)",
	      nfsc_st(st), cnt);
	st = nfsc_write(&c, &file, 1 << 20, data, 0, DATA_SYNC, &cnt, NULL,
			NULL);
	tc_ok(st == NFS3_OK && cnt == 0,
	      "zero-length DATA_SYNC WRITE past EOF (1 MiB): %s count %u (want OK, 0)",
	      nfsc_st(st), cnt);
	tc_ok(fsize(&c, &file) == fsz,
	      "file size still %llu after zero-length WRITEs (got %llu)",
	      (unsigned long long)fsz, (unsigned long long)fsize(&c, &file));

	/* reads at and past EOF */
	st = nfsc_read(&c, &file, fsz + 10000, 4096, buf, &got, &eof);
	tc_ok(st == NFS3_OK && got == 0 && eof,
	      "READ past EOF: %s count %u eof %d (want OK, 0, eof)",
	      nfsc_st(st), got, eof);
	st = nfsc_read(&c, &file, fsz, 4096, buf, &got, &eof);
	tc_ok(st == NFS3_OK && got == 0 && eof,
	      "READ at EOF: %s count %u eof %d (want OK, 0, eof)", nfsc_st(st),
	      got, eof);
	st = nfsc_read(&c, &file, 1ULL << 50, 4096, buf, &got, &eof);
	tc_ok(st == NFS3_OK && got == 0 && eof,
	      "READ at 1 PiB: %s count %u eof %d (want OK, 0, eof)",
	      nfsc_st(st), got, eof);
	st = nfsc_read(&c, &file, fsz - 1000, 4096, buf, &got, &eof);
	ft_pattern_fill(seed, fsz - 1000, want, 1000);
	tc_ok(st == NFS3_OK && got == 1000 && eof && !memcmp(buf, want, 1000),
	      "READ across EOF: %s count %u eof %d (want OK, 1000 matching bytes, eof)",
	      nfsc_st(st), got, eof);
	if (zero_read) {
		st = nfsc_read(&c, &file, 0, 0, buf, &got, &eof);
		tc_ok(st == NFS3_OK && got == 0,
		      "zero-length READ: %s count %u (want OK, 0)", nfsc_st(st),
		      got);
	} else {
		printf("# zero-length READ not sent (-Z)\n");
	}

	/* the file is intact and normal I/O still works */
	{
		unsigned char all[sizeof(data)];
		uint32_t total = 0;

		while (total < fsz) {
			st = nfsc_read(&c, &file, total,
				       (uint32_t)(fsz - total), all + total,
				       &got, &eof);
			if (st != NFS3_OK || got == 0)
				break;
			total += got;
		}
		tc_ok(total == fsz && !memcmp(all, data, fsz),
		      "file reads back exactly the %llu bytes written (%u read)",
		      (unsigned long long)fsz, total);
	}
	st = nfsc_write(&c, &file, fsz, data, 4096, UNSTABLE, &cnt, NULL, verf);
	{
		char v2[8];
		int st2 = nfsc_commit(&c, &file, 0, 0, v2);

		tc_ok(st == NFS3_OK && st2 == NFS3_OK && !memcmp(verf, v2, 8),
		      "normal UNSTABLE WRITE + COMMIT afterwards: %s / %s, verifier %s",
		      nfsc_st(st), nfsc_st(st2),
		      memcmp(verf, v2, 8) ? "changed" : "same");
	}
	nfsc_remove(&c, &c.root, "badreq_file");
	{
		RMDIR3args a;
		struct nfsc_call k = { 0 };

		memset(&a, 0, sizeof(a));
		nfsc_fh_to3(&c.root, &a.object.dir);
		a.object.name = "badreq_dir";
		if (rpc_nfs3_rmdir_async(c.rpc, nfsc_call_cb, &a, &k) == 0)
			nfsc_wait(&c, &k);
	}
	nfsc_disconnect(&c);
	printf("ft_badreq: checks=%d passed=%d failed=%d\n", tc_checks,
	       tc_checks - tc_failures, tc_failures);
	return tc_failures ? 1 : 0;
}
