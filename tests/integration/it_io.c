// SPDX-License-Identifier: LGPL-3.0-or-later
/* Error statuses that need a special filesystem under the export, and data checks.
 *
 * usage:
 *   it_io -e EXPORT nospc BYTES   the export's filesystem is smaller than BYTES: writing BYTES
 *                                 (UNSTABLE + COMMIT, then FILE_SYNC) must end in NFS3ERR_NOSPC
 *                                 (on a WRITE or the COMMIT), never in silent success; after
 *                                 removing the file, space is back and writes work again.
 *   it_io -e EXPORT rofs FILE     the export's filesystem is mounted read-only and holds FILE:
 *                                 READ works, every modifying operation gets NFS3ERR_ROFS.
 *   it_io -e EXPORT rw MiB        write MiB of patterned data with UNSTABLE 1 MiB writes, COMMIT,
 *                                 read back and compare; FILE_SYNC writes likewise.
 *   it_io -e EXPORT lostrange FAIL RECOVER setattr|create strict|info
 *                                 FAIL and RECOVER are shell commands that make the export's
 *                                 device fail every write and work again: FAIL run, 2 MiB
 *                                 written UNSTABLE (acknowledged, their write-back fails), a
 *                                 whole-file COMMIT; RECOVER run; [0, 1 MiB) rewritten and a
 *                                 whole-file COMMIT (strict: both COMMITs must fail, the range
 *                                 lost past the rewrite is remembered; info: printed); then the
 *                                 file truncated to 0 (SETATTR size 0, or CREATE UNCHECKED
 *                                 with size 0), 1 MiB rewritten: the whole-file COMMIT must
 *                                 answer OK (a second rewrite allowed: a write-back error the
 *                                 kernel recorded after the last flush fails the next one) and
 *                                 the data read back. (A WRITE refused with NOSPC loses
 *                                 nothing: it cannot be the loss here, issue 37.)
 *   it_io -e EXPORT filesync N    N FILE_SYNC 4 KiB WRITEs one after another (each answered
 *                                 before the next is sent), each answered FILE_SYNC; prints
 *                                 "file_sync_answered=N" for the caller's syscall trace. */
#include "itlib.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ST(expr, what, ...) it_expect_st((expr), (what), __VA_ARGS__, IT_END)
#define MiB (1024u * 1024u)

static unsigned char *pattern(size_t n, unsigned seed)
{
	unsigned char *b = malloc(n);
	size_t i;

	if (!b)
		abort();
	for (i = 0; i < n; i++)
		b[i] = (unsigned char)((i * 2654435761u >> 13) + seed);
	return b;
}

static int do_nospc(struct nfsc_conn *c, uint64_t bytes)
{
	struct nfsc_fh f;
	unsigned char *buf = pattern(MiB, 1);
	uint64_t off;
	int st = NFS3_OK, cst;
	char name[64];

	snprintf(name, sizeof(name), "fill.%d", (int)getpid());
	if (!ST(nfsc_create(c, &c->root, name, GUARDED, 0644, NULL, &f, NULL),
		"CREATE fill", NFS3_OK))
		return it_summary("it_io nospc");
	for (off = 0; off < bytes && st == NFS3_OK; off += MiB)
		st = nfsc_write(c, &f, off, buf, MiB, UNSTABLE, NULL, NULL,
				NULL);
	cst = nfsc_commit(c, &f, 0, 0, NULL);
	it_note("UNSTABLE writes stopped at %llu MiB with %s; COMMIT %s",
		(unsigned long long)(off / MiB), it_st(st), it_st(cst));
	tc_ok(st == NFS3ERR_NOSPC || (st == NFS3_OK && cst == NFS3ERR_NOSPC),
	      "writing %llu MiB to a smaller filesystem reports NOSPC (write: %s, commit: %s)",
	      (unsigned long long)(bytes / MiB), it_st(st), it_st(cst));
	ST(nfsc_write(c, &f, bytes, buf, MiB, FILE_SYNC, NULL, NULL, NULL),
	   "FILE_SYNC write on the full filesystem -> NOSPC", NFS3ERR_NOSPC);
	ST(nfsc_remove(c, &c->root, name), "REMOVE the filling file", NFS3_OK);
	ST(nfsc_create(c, &c->root, name, GUARDED, 0644, NULL, &f, NULL),
	   "CREATE again", NFS3_OK);
	ST(nfsc_write(c, &f, 0, buf, MiB, FILE_SYNC, NULL, NULL, NULL),
	   "after freeing space a FILE_SYNC write works", NFS3_OK);
	ST(nfsc_commit(c, &f, 0, 0, NULL), "and COMMIT", NFS3_OK);
	ST(nfsc_remove(c, &c->root, name), "REMOVE", NFS3_OK);
	free(buf);
	return it_summary("it_io nospc");
}

static int do_rofs(struct nfsc_conn *c, const char *file)
{
	struct nfsc_fh f;
	fattr3 a;
	sattr3 sa;
	char buf[64];
	uint32_t got = 0;

	if (!ST(nfsc_lookup(c, &c->root, file, &f, &a),
		"LOOKUP existing file on a read-only fs", NFS3_OK))
		return it_summary("it_io rofs");
	ST(nfsc_read(c, &f, 0, sizeof(buf), buf, &got, NULL),
	   "READ on a read-only fs", NFS3_OK);
	tc_ok(got == a.size, "READ returned %u of %llu bytes", got,
	      (unsigned long long)a.size);
	ST(nfsc_create(c, &c->root, "new", GUARDED, 0644, NULL, NULL, NULL),
	   "CREATE -> EROFS", NFS3ERR_ROFS);
	ST(nfsc_mkdir(c, &c->root, "newdir", 0755, NULL, NULL),
	   "MKDIR -> EROFS", NFS3ERR_ROFS);
	ST(nfsc_symlink(c, &c->root, "newlink", "x", NULL, NULL),
	   "SYMLINK -> EROFS", NFS3ERR_ROFS);
	ST(nfsc_write(c, &f, 0, "x", 1, FILE_SYNC, NULL, NULL, NULL),
	   "WRITE -> EROFS", NFS3ERR_ROFS);
	nfsc_sattr_mode(&sa, 0600);
	ST(nfsc_setattr(c, &f, &sa), "SETATTR mode -> EROFS", NFS3ERR_ROFS);
	nfsc_sattr_size(&sa, 0);
	ST(nfsc_setattr(c, &f, &sa), "SETATTR size -> EROFS", NFS3ERR_ROFS);
	ST(nfsc_rename(c, &c->root, file, &c->root, "renamed"),
	   "RENAME -> EROFS", NFS3ERR_ROFS);
	ST(nfsc_link(c, &f, &c->root, "hard", NULL), "LINK -> EROFS",
	   NFS3ERR_ROFS);
	ST(nfsc_remove(c, &c->root, file), "REMOVE -> EROFS", NFS3ERR_ROFS);
	ST(nfsc_getattr(c, &f, &a), "GETATTR still works", NFS3_OK);
	return it_summary("it_io rofs");
}

/* READs [0, len) of f into back, at most 1 MiB a call, until all is read, a
 * READ fails or one returns nothing; returns the last status, *done the bytes
 * read. */
static int read_back(struct nfsc_conn *c, const struct nfsc_fh *f,
		     unsigned char *back, uint64_t len, uint64_t *done)
{
	uint64_t off = 0;
	int st = NFS3_OK;

	while (off < len && st == NFS3_OK) {
		uint32_t got = 0;

		st = nfsc_read(c, f, off, len - off < MiB ? len - off : MiB,
			       back + off, &got, NULL);
		if (got == 0)
			break;
		off += got;
	}
	*done = off;
	return st;
}

static int do_rw(struct nfsc_conn *c, unsigned mib)
{
	struct nfsc_fh f;
	unsigned char *data = pattern((size_t)mib * MiB, 9),
		      *back = malloc((size_t)mib * MiB);
	uint64_t off;
	int st = NFS3_OK;
	char name[64], v1[8], v2[8];
	fattr3 a;

	if (!back)
		abort();
	for (int pass = 0; pass < 2; pass++) {
		stable_how how = pass ? FILE_SYNC : UNSTABLE;

		snprintf(name, sizeof(name), "rw%d.%d", pass, (int)getpid());
		if (!ST(nfsc_create(c, &c->root, name, GUARDED, 0644, NULL, &f,
				    NULL),
			"CREATE", NFS3_OK))
			break;
		for (off = 0, st = NFS3_OK;
		     off < (uint64_t)mib * MiB && st == NFS3_OK; off += MiB) {
			stable_how got;

			st = nfsc_write(c, &f, off, data + off, MiB, how, NULL,
					&got, v1);
			if (st == NFS3_OK && got < how)
				st = -2;
		}
		tc_ok(st == NFS3_OK, "%u MiB of %s 1 MiB writes: %s", mib,
		      pass ? "FILE_SYNC" : "UNSTABLE",
		      st == -2 ? "committed weaker than asked" : it_st(st));
		ST(nfsc_commit(c, &f, 0, 0, v2), "COMMIT", NFS3_OK);
		tc_ok(memcmp(v1, v2, 8) == 0,
		      "COMMIT verifier equals the WRITE verifier");
		ST(nfsc_getattr(c, &f, &a), "GETATTR", NFS3_OK);
		tc_ok(a.size == (uint64_t)mib * MiB, "size %llu",
		      (unsigned long long)a.size);
		memset(back, 0, (size_t)mib * MiB);
		st = read_back(c, &f, back, (uint64_t)mib * MiB, &off);
		tc_ok(st == NFS3_OK && off == (uint64_t)mib * MiB &&
			      !memcmp(back, data, (size_t)mib * MiB),
		      "read back %llu bytes equal to what was written",
		      (unsigned long long)off);
		ST(nfsc_remove(c, &c->root, name), "REMOVE", NFS3_OK);
	}
	free(data);
	free(back);
	return it_summary("it_io rw");
}

/* A whole-file COMMIT that must fail (strict) or is only reported (info). */
static void commit_must_fail(struct nfsc_conn *c, const struct nfsc_fh *f,
			     bool strict, const char *what)
{
	int st = nfsc_commit(c, f, 0, 0, NULL);

	if (strict)
		tc_ok(st == NFS3ERR_IO, "%s: whole-file COMMIT %s (want IO)",
		      what, it_st(st));
	else
		it_note("%s: whole-file COMMIT %s", what, it_st(st));
}

static bool run(const char *cmd)
{
	int rc = system(cmd);

	tc_ok(rc == 0, "ran %s: %d", cmd, rc);
	return rc == 0;
}

static int do_lostrange(struct nfsc_conn *c, const char *fail,
			const char *recover, const char *how, bool strict)
{
	const uint32_t chunk = 256 * 1024;
	struct nfsc_fh f;
	unsigned char *buf = pattern(MiB, 7), *back = malloc(MiB);
	uint64_t off = 0;
	uint32_t cnt;
	int st = NFS3_OK;
	char name[64], v1[8], v2[8];
	sattr3 sa;
	fattr3 a;

	if (!back)
		abort();
	snprintf(name, sizeof(name), "lost.%d", (int)getpid());
	if (!ST(nfsc_create(c, &c->root, name, GUARDED, 0644, NULL, &f, NULL),
		"CREATE", NFS3_OK))
		goto out;
	/* the device fails: 2 MiB acknowledged, their write-back lost */
	if (!run(fail))
		goto out;
	while (off < 2 * MiB) {
		cnt = 0;
		st = nfsc_write(c, &f, off, buf, chunk, UNSTABLE, &cnt, NULL,
				NULL);
		if (st != NFS3_OK || cnt == 0)
			break;
		off += cnt;
	}
	tc_ok(off == 2 * MiB,
	      "2 MiB of UNSTABLE WRITEs acknowledged (%llu, %s)",
	      (unsigned long long)off, it_st(st));
	commit_must_fail(c, &f, strict, "after the failed write-back");
	if (!run(recover))
		goto out;

	/* the opposite guard: rewriting a part clears nothing past it */
	ST(nfsc_write(c, &f, 0, buf, MiB, UNSTABLE, NULL, NULL, NULL),
	   "rewrite [0, 1 MiB) without a truncate", NFS3_OK);
	commit_must_fail(c, &f, strict, "rewrite without a truncate");

	nfsc_sattr_size(&sa, 0);
	if (!strcmp(how, "create"))
		ST(nfsc_create_sa(c, &c->root, name, UNCHECKED, &sa, NULL, NULL,
				  NULL),
		   "CREATE UNCHECKED size 0 of the existing file", NFS3_OK);
	else
		ST(nfsc_setattr(c, &f, &sa), "SETATTR size 0", NFS3_OK);
	/* (after the CREATE, ganesha 4.3 answers GETATTR from attributes cached
	 * before the truncate, with VFS too: the size after the rewrite shows it) */
	if (strcmp(how, "create") &&
	    ST(nfsc_getattr(c, &f, &a), "GETATTR", NFS3_OK))
		tc_ok(a.size == 0, "size after the truncate: %llu",
		      (unsigned long long)a.size);

	for (int t = 0; t < 2; t++) {
		ST(nfsc_write(c, &f, 0, buf, MiB, UNSTABLE, NULL, NULL, v1),
		   "rewrite [0, 1 MiB) after the truncate", NFS3_OK);
		st = nfsc_commit(c, &f, 0, 0, v2);
		if (st == NFS3_OK)
			break;
		it_note("rewrite %d after the truncate: COMMIT %s", t + 1,
			it_st(st));
	}
	tc_ok(st == NFS3_OK,
	      "truncated (%s) and rewritten: whole-file COMMIT %s (want OK)",
	      how, it_st(st));
	if (st == NFS3_OK)
		tc_ok(memcmp(v1, v2, 8) == 0,
		      "COMMIT verifier equals the WRITE verifier");
	if (ST(nfsc_getattr(c, &f, &a), "GETATTR", NFS3_OK))
		tc_ok(a.size == MiB, "size %llu (want 1 MiB)",
		      (unsigned long long)a.size);
	memset(back, 0, MiB);
	st = read_back(c, &f, back, MiB, &off);
	tc_ok(st == NFS3_OK && off == MiB && !memcmp(back, buf, MiB),
	      "read back %llu bytes equal to the rewrite",
	      (unsigned long long)off);
	ST(nfsc_remove(c, &c->root, name), "REMOVE", NFS3_OK);
out:
	free(buf);
	free(back);
	return it_summary("it_io lostrange");
}

static int do_filesync(struct nfsc_conn *c, unsigned n)
{
	const uint32_t len = 4096;
	unsigned char *data = pattern((size_t)n * len, 3),
		      *back = malloc((size_t)n * len);
	unsigned i, answered = 0;
	uint64_t off;
	struct nfsc_fh f;
	char name[64];
	int st = NFS3_OK;

	if (!back)
		abort();
	snprintf(name, sizeof(name), "filesync.%d", (int)getpid());
	if (!ST(nfsc_create(c, &c->root, name, GUARDED, 0644, NULL, &f, NULL),
		"CREATE", NFS3_OK))
		goto out;
	for (i = 0; i < n; i++) {
		stable_how committed = UNSTABLE;
		uint32_t cnt = 0;

		st = nfsc_write(c, &f, (uint64_t)i * len,
				data + (size_t)i * len, len, FILE_SYNC, &cnt,
				&committed, NULL);
		if (st != NFS3_OK || cnt != len || committed != FILE_SYNC)
			break;
		answered++;
	}
	tc_ok(answered == n,
	      "%u FILE_SYNC WRITEs answered FILE_SYNC (%u, last %s)", n,
	      answered, it_st(st));
	printf("file_sync_answered=%u\n", answered);
	fflush(stdout);
	st = read_back(c, &f, back, (uint64_t)n * len, &off);
	tc_ok(st == NFS3_OK && off == (uint64_t)n * len &&
		      !memcmp(back, data, off),
	      "read back %llu bytes equal to what was written",
	      (unsigned long long)off);
out:
	free(data);
	free(back);
	return it_summary("it_io filesync");
}

int main(int argc, char **argv)
{
	struct it_opts o;
	struct nfsc_conn c;
	int idx, rc = 2;

	idx = it_parse(argc, argv, &o, NULL, NULL);
	if (idx + 1 >= argc) {
		fprintf(stderr,
			"usage: it_io -e EXPORT nospc BYTES | rofs FILE | rw MiB |\n"
			"       lostrange FAIL RECOVER setattr|create strict|info | filesync N\n");
		return 2;
	}
	if (it_connect(&c, &o, 0, 0) != 0) {
		fprintf(stderr, "it_io: cannot connect to %s\n", o.export);
		return 2;
	}
	if (!strcmp(argv[idx], "nospc"))
		rc = do_nospc(&c, strtoull(argv[idx + 1], NULL, 0));
	else if (!strcmp(argv[idx], "rofs"))
		rc = do_rofs(&c, argv[idx + 1]);
	else if (!strcmp(argv[idx], "rw"))
		rc = do_rw(&c, atoi(argv[idx + 1]));
	else if (!strcmp(argv[idx], "lostrange") && idx + 4 < argc &&
		 (!strcmp(argv[idx + 3], "setattr") ||
		  !strcmp(argv[idx + 3], "create")))
		rc = do_lostrange(&c, argv[idx + 1], argv[idx + 2],
				  argv[idx + 3],
				  strcmp(argv[idx + 4], "info") != 0);
	else if (!strcmp(argv[idx], "filesync"))
		rc = do_filesync(&c, (unsigned)atoi(argv[idx + 1]));
	else
		fprintf(stderr, "it_io: unknown command %s\n", argv[idx]);
	nfsc_disconnect(&c);
	return rc;
}
