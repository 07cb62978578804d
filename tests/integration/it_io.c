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
 *                                 read back and compare; FILE_SYNC writes likewise. */
#include "itlib.h"

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
	if (!ST(nfsc_create(c, &c->root, name, GUARDED, 0644, NULL, &f, NULL), "CREATE fill", NFS3_OK))
		return it_summary("it_io nospc");
	for (off = 0; off < bytes && st == NFS3_OK; off += MiB)
		st = nfsc_write(c, &f, off, buf, MiB, UNSTABLE, NULL, NULL, NULL);
	cst = nfsc_commit(c, &f, 0, 0, NULL);
	it_note("UNSTABLE writes stopped at %llu MiB with %s; COMMIT %s",
		(unsigned long long)(off / MiB), it_st(st), it_st(cst));
	it_ok(st == NFS3ERR_NOSPC || (st == NFS3_OK && cst == NFS3ERR_NOSPC),
	      "writing %llu MiB to a smaller filesystem reports NOSPC (write: %s, commit: %s)",
	      (unsigned long long)(bytes / MiB), it_st(st), it_st(cst));
	ST(nfsc_write(c, &f, bytes, buf, MiB, FILE_SYNC, NULL, NULL, NULL),
	   "FILE_SYNC write on the full filesystem -> NOSPC", NFS3ERR_NOSPC);
	ST(nfsc_remove(c, &c->root, name), "REMOVE the filling file", NFS3_OK);
	ST(nfsc_create(c, &c->root, name, GUARDED, 0644, NULL, &f, NULL), "CREATE again", NFS3_OK);
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

	if (!ST(nfsc_lookup(c, &c->root, file, &f, &a), "LOOKUP existing file on a read-only fs",
		NFS3_OK))
		return it_summary("it_io rofs");
	ST(nfsc_read(c, &f, 0, sizeof(buf), buf, &got, NULL), "READ on a read-only fs", NFS3_OK);
	it_ok(got == a.size, "READ returned %u of %llu bytes", got, (unsigned long long)a.size);
	ST(nfsc_create(c, &c->root, "new", GUARDED, 0644, NULL, NULL, NULL), "CREATE -> EROFS",
	   NFS3ERR_ROFS);
	ST(nfsc_mkdir(c, &c->root, "newdir", 0755, NULL, NULL), "MKDIR -> EROFS", NFS3ERR_ROFS);
	ST(nfsc_symlink(c, &c->root, "newlink", "x", NULL, NULL), "SYMLINK -> EROFS", NFS3ERR_ROFS);
	ST(nfsc_write(c, &f, 0, "x", 1, FILE_SYNC, NULL, NULL, NULL), "WRITE -> EROFS", NFS3ERR_ROFS);
	nfsc_sattr_none(&sa);
	sa.mode.set_it = 1;
	sa.mode.set_mode3_u.mode = 0600;
	ST(nfsc_setattr(c, &f, &sa), "SETATTR mode -> EROFS", NFS3ERR_ROFS);
	nfsc_sattr_none(&sa);
	sa.size.set_it = 1;
	sa.size.set_size3_u.size = 0;
	ST(nfsc_setattr(c, &f, &sa), "SETATTR size -> EROFS", NFS3ERR_ROFS);
	ST(nfsc_rename(c, &c->root, file, &c->root, "renamed"), "RENAME -> EROFS", NFS3ERR_ROFS);
	ST(nfsc_link(c, &f, &c->root, "hard", NULL), "LINK -> EROFS", NFS3ERR_ROFS);
	ST(nfsc_remove(c, &c->root, file), "REMOVE -> EROFS", NFS3ERR_ROFS);
	ST(nfsc_getattr(c, &f, &a), "GETATTR still works", NFS3_OK);
	return it_summary("it_io rofs");
}

static int do_rw(struct nfsc_conn *c, unsigned mib)
{
	struct nfsc_fh f;
	unsigned char *data = pattern((size_t)mib * MiB, 9), *back = malloc((size_t)mib * MiB);
	uint64_t off;
	int st = NFS3_OK;
	char name[64], v1[8], v2[8];
	fattr3 a;

	if (!back)
		abort();
	for (int pass = 0; pass < 2; pass++) {
		stable_how how = pass ? FILE_SYNC : UNSTABLE;

		snprintf(name, sizeof(name), "rw%d.%d", pass, (int)getpid());
		if (!ST(nfsc_create(c, &c->root, name, GUARDED, 0644, NULL, &f, NULL), "CREATE", NFS3_OK))
			break;
		for (off = 0, st = NFS3_OK; off < (uint64_t)mib * MiB && st == NFS3_OK; off += MiB) {
			stable_how got;

			st = nfsc_write(c, &f, off, data + off, MiB, how, NULL, &got, v1);
			if (st == NFS3_OK && got < how)
				st = -2;
		}
		it_ok(st == NFS3_OK, "%u MiB of %s 1 MiB writes: %s", mib, pass ? "FILE_SYNC" : "UNSTABLE",
		      st == -2 ? "committed weaker than asked" : it_st(st));
		ST(nfsc_commit(c, &f, 0, 0, v2), "COMMIT", NFS3_OK);
		it_ok(memcmp(v1, v2, 8) == 0, "COMMIT verifier equals the WRITE verifier");
		ST(nfsc_getattr(c, &f, &a), "GETATTR", NFS3_OK);
		it_ok(a.size == (uint64_t)mib * MiB, "size %llu", (unsigned long long)a.size);
		memset(back, 0, (size_t)mib * MiB);
		for (off = 0, st = NFS3_OK; off < (uint64_t)mib * MiB && st == NFS3_OK;) {
			uint32_t got = 0;

			st = nfsc_read(c, &f, off, MiB, back + off, &got, NULL);
			if (got == 0)
				break;
			off += got;
		}
		it_ok(st == NFS3_OK && off == (uint64_t)mib * MiB &&
			      !memcmp(back, data, (size_t)mib * MiB),
		      "read back %llu bytes equal to what was written", (unsigned long long)off);
		ST(nfsc_remove(c, &c->root, name), "REMOVE", NFS3_OK);
	}
	free(data);
	free(back);
	return it_summary("it_io rw");
}

int main(int argc, char **argv)
{
	struct it_opts o;
	struct nfsc_conn c;
	int idx, rc = 2;

	idx = it_parse(argc, argv, &o, NULL, NULL);
	if (idx + 1 >= argc) {
		fprintf(stderr, "usage: it_io -e EXPORT nospc BYTES | rofs FILE | rw MiB\n");
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
	else
		fprintf(stderr, "it_io: unknown command %s\n", argv[idx]);
	nfsc_disconnect(&c);
	return rc;
}
