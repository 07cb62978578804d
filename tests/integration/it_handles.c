// SPDX-License-Identifier: LGPL-3.0-or-later
/* File handles: persistence across server restarts, and rejection of forged ones.
 *
 * usage:
 *   it_handles -e EXPORT [-d DIR] save FILE
 *                                        create a small tree, write its handles to FILE
 *                                        (-d: under DIR, a path in the export, e.g. a
 *                                        filesystem mounted there, instead of its root)
 *   it_handles -e EXPORT check FILE      every saved handle works (GETATTR, READ, READDIR,
 *                                        READLINK, LOOKUP, WRITE) and names the same file
 *   it_handles -e EXPORT [-d DIR] fsid   print "fsid N", the fsid GETATTR answers for the
 *                                        export root (or -d's DIR)
 *   it_handles -e EXPORT stale FILE      every saved handle is refused with BADHANDLE/STALE
 *                                        (after the export's handle key changed)
 *   it_handles -e EXPORT forge [-S] [-x EXPORT2]
 *                                        forged, truncated, oversized and garbage handles get
 *                                        NFS3ERR_BADHANDLE or NFS3ERR_STALE and the server
 *                                        keeps answering. -S (strict: the FSAL MACs its
 *                                        handles): every alteration of the FSAL's opaque part
 *                                        must be refused; without -S those are only counted.
 *                                        -x: a handle of EXPORT2 relabelled with EXPORT's id
 *                                        must be refused (-S only).
 * Wire layout of a ganesha 4.3 NFSv3 handle: byte 0 version 0x43, byte 1 flags, bytes 2-3
 * export id (big endian), byte 4 fs_len, then fs_len bytes of FSAL opaque data, padded to a
 * multiple of 4 (max 64). */
#include "itlib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HDR 5

static bool strict;
static const char *export2;
static const char *subdir;

static void opt_cb(int opt, const char *arg)
{
	if (opt == 'S')
		strict = true;
	if (opt == 'x')
		export2 = arg;
	if (opt == 'd')
		subdir = arg;
}

/* The directory the tree goes in: the export root, or -d's path in it. */
static bool base_dir(struct nfsc_conn *c, struct nfsc_fh *out)
{
	char path[256], *save = NULL;

	*out = c->root;
	if (subdir == NULL)
		return true;
	snprintf(path, sizeof(path), "%s", subdir);
	for (char *n = strtok_r(path, "/", &save); n != NULL;
	     n = strtok_r(NULL, "/", &save)) {
		struct nfsc_fh next;

		if (!it_expect_st(nfsc_lookup(c, out, n, &next, NULL),
				  "LOOKUP of -d's path", NFS3_OK, IT_END))
			return false;
		*out = next;
	}
	return true;
}

static void content(char *buf, size_t n, const char *name)
{
	size_t i, l = strlen(name);

	for (i = 0; i < n; i++)
		buf[i] = name[i % l] ^ (char)(i * 13);
}

/* ---------------------------------------------------------------- save / check */

struct saved {
	char kind; /* d f l */
	char name[64];
	struct nfsc_fh fh;
	uint64_t fileid;
	uint64_t size;
};

static int do_save(struct nfsc_conn *c, const char *file)
{
	FILE *f = fopen(file, "w");
	struct nfsc_fh base, top, sub, fh;
	fattr3 a;
	char buf[20000], hex[NFSC_FHMAX * 2 + 2];
	uint32_t cnt;
	int i;

	if (!f) {
		perror(file);
		return 2;
	}
	if (!base_dir(c, &base))
		goto out;
	if (!it_expect_st(nfsc_mkdir(c, &base, "h", 0755, &top, &a), "MKDIR h",
			  NFS3_OK, IT_END))
		goto out;
	fprintf(f, "d h %s %llu 0\n", nfsc_fh_hex(&top, hex, sizeof(hex)),
		(unsigned long long)a.fileid);
	it_expect_st(nfsc_mkdir(c, &top, "sub", 0755, &sub, &a), "MKDIR h/sub",
		     NFS3_OK, IT_END);
	fprintf(f, "d h/sub %s %llu 0\n", nfsc_fh_hex(&sub, hex, sizeof(hex)),
		(unsigned long long)a.fileid);
	for (i = 0; i < 8; i++) {
		char name[32];
		struct nfsc_fh *parent = i % 2 ? &sub : &top;
		size_t n = 1000 + i * 2000;

		snprintf(name, sizeof(name), "file%d", i);
		it_expect_st(nfsc_create(c, parent, name, GUARDED, 0644, NULL,
					 &fh, &a),
			     "CREATE", NFS3_OK, IT_END);
		content(buf, n, name);
		it_expect_st(nfsc_write(c, &fh, 0, buf, n, FILE_SYNC, &cnt,
					NULL, NULL),
			     "WRITE", NFS3_OK, IT_END);
		fprintf(f, "f %s%s %s %llu %zu\n", i % 2 ? "h/sub/" : "h/",
			name, nfsc_fh_hex(&fh, hex, sizeof(hex)),
			(unsigned long long)a.fileid, n);
	}
	it_expect_st(nfsc_symlink(c, &top, "link", "sub/file1", &fh, &a),
		     "SYMLINK h/link", NFS3_OK, IT_END);
	fprintf(f, "l h/link %s %llu 9\n", nfsc_fh_hex(&fh, hex, sizeof(hex)),
		(unsigned long long)a.fileid);
	it_expect_st(
		nfsc_create(c, &top, "doomed", GUARDED, 0644, NULL, &fh, &a),
		"CREATE h/doomed", NFS3_OK, IT_END);
	fprintf(f, "x h/doomed %s %llu 0\n", nfsc_fh_hex(&fh, hex, sizeof(hex)),
		(unsigned long long)a.fileid);
	/* the directory of h: the root, or -d's */
	fprintf(f, "r / %s 0 0\n", nfsc_fh_hex(&base, hex, sizeof(hex)));
out:
	fclose(f);
	return it_summary("it_handles save");
}

static int load(const char *file, struct saved *s, int max)
{
	FILE *f = fopen(file, "r");
	char hex[NFSC_FHMAX * 2 + 2];
	unsigned long long id, size;
	int n = 0;

	if (!f) {
		perror(file);
		return -1;
	}
	while (n < max && fscanf(f, " %c %63s %257s %llu %llu", &s[n].kind,
				 s[n].name, hex, &id, &size) == 5) {
		if (!nfsc_fh_parse_hex(&s[n].fh, hex)) {
			fprintf(stderr, "bad handle in %s\n", file);
			fclose(f);
			return -1;
		}
		s[n].fileid = id;
		s[n].size = size;
		n++;
	}
	fclose(f);
	return n;
}

static int do_check(struct nfsc_conn *c, const char *file)
{
	struct saved s[32];
	int n = load(file, s, 32), i;
	char buf[20000], want[20000];

	if (n <= 0)
		return 2;
	for (i = 0; i < n; i++) {
		fattr3 a;
		int st = nfsc_getattr(c, &s[i].fh, &a);

		if (s[i].kind == 'x') {
			/* Removed while the server was down. */
			it_expect_st(
				st,
				"GETATTR of a file removed while the server was down",
				NFS3ERR_STALE, IT_END);
			continue;
		}
		if (s[i].kind == 'r') {
			it_expect_st(st,
				     "GETATTR of the old export root handle",
				     NFS3_OK, IT_END);
			{
				struct nfsc_fh h;

				it_expect_st(
					nfsc_lookup(c, &s[i].fh, "h", &h, NULL),
					"LOOKUP h from the old root handle",
					NFS3_OK, IT_END);
			}
			continue;
		}
		if (!it_expect_st(
			    st,
			    "GETATTR through the handle saved before the restart",
			    NFS3_OK, IT_END)) {
			it_note("  %s (%c)", s[i].name, s[i].kind);
			continue;
		}
		tc_ok(a.fileid == s[i].fileid,
		      "%s: same file (fileid %llu, saved %llu)", s[i].name,
		      (unsigned long long)a.fileid,
		      (unsigned long long)s[i].fileid);
		if (s[i].kind == 'f') {
			uint32_t got = 0;
			bool eof = false;
			const char *base = strrchr(s[i].name, '/') + 1;

			it_expect_st(nfsc_read(c, &s[i].fh, 0, sizeof(buf), buf,
					       &got, &eof),
				     "READ through the old handle", NFS3_OK,
				     IT_END);
			content(want, s[i].size, base);
			tc_ok(got == s[i].size && eof &&
				      !memcmp(buf, want, s[i].size),
			      "%s: content intact (%u bytes)", s[i].name, got);
			it_expect_st(nfsc_write(c, &s[i].fh, s[i].size, "more",
						4, FILE_SYNC, NULL, NULL, NULL),
				     "WRITE through the old handle", NFS3_OK,
				     IT_END);
		} else if (s[i].kind == 'd') {
			struct nfsc_dirlist l = { 0 };
			int st2 = nfsc_readdir_all(c, &s[i].fh, true, 4096, &l);

			tc_ok(st2 == NFS3_OK && l.n >= 6,
			      "%s: READDIRPLUS through the old handle: %s, %zu entries",
			      s[i].name, it_st(st2), l.n);
			nfsc_dirlist_free(&l);
			it_expect_st(
				nfsc_lookup(c, &s[i].fh, "file1", NULL, NULL) ==
							NFS3_OK ||
						nfsc_lookup(c, &s[i].fh,
							    "file0", NULL,
							    NULL) == NFS3_OK
					? NFS3_OK
					: NFS3ERR_NOENT,
				"LOOKUP through the old directory handle",
				NFS3_OK, IT_END);
		} else if (s[i].kind == 'l') {
			it_expect_st(
				nfsc_readlink(c, &s[i].fh, buf, sizeof(buf)),
				"READLINK through the old handle", NFS3_OK,
				IT_END);
			tc_ok(!strcmp(buf, "sub/file1"),
			      "symlink target intact (\"%s\")", buf);
		}
	}
	return it_summary("it_handles check");
}

static int do_stale(struct nfsc_conn *c, const char *file)
{
	struct saved s[32];
	int n = load(file, s, 32), i, refused = 0, total = 0;

	if (n <= 0)
		return 2;
	for (i = 0; i < n; i++) {
		int st;

		if (s[i].kind == 'r')
			continue; /* the root handle comes from MNT, re-issued */
		st = nfsc_getattr(c, &s[i].fh, NULL);
		total++;
		if (st == NFS3ERR_BADHANDLE || st == NFS3ERR_STALE)
			refused++;
		else
			it_note("%s: %s", s[i].name, it_st(st));
	}
	tc_ok(refused == total,
	      "handles MACed with the old key are refused: %d/%d", refused,
	      total);
	tc_ok(nfsc_getattr(c, &c->root, NULL) == NFS3_OK,
	      "the new root handle works");
	return it_summary("it_handles stale");
}

/* ---------------------------------------------------------------- forge */

struct batch {
	const char *what;
	int sent, refused, ok, other, rpcfail;
	bool must;
};

static struct nfsc_fh good;
static struct nfsc_fh gooddir;

static void send_forged(struct nfsc_conn *c, struct batch *b,
			const struct nfsc_fh *fh)
{
	int st = nfsc_getattr(c, fh, NULL);

	b->sent++;
	if (st == NFS3ERR_BADHANDLE || st == NFS3ERR_STALE) {
		b->refused++;
		return;
	}
	if (st == NFS3_OK)
		b->ok++;
	else if (st == -1)
		b->rpcfail++;
	else
		b->other++;
	if (b->ok + b->other + b->rpcfail <= 3) {
		char hex[NFSC_FHMAX * 2 + 2];

		it_note("  %s: %s for %s", b->what, it_st(st),
			nfsc_fh_hex(fh, hex, sizeof(hex)));
	}
}

static void finish(struct nfsc_conn *c, struct batch *b)
{
	bool pass = b->refused == b->sent;

	if (b->must)
		tc_ok(pass,
		      "%s: %d/%d refused with BADHANDLE/STALE (%d accepted, %d other status, %d "
		      "without reply)",
		      b->what, b->refused, b->sent, b->ok, b->other,
		      b->rpcfail);
	else
		it_note("%s: %d/%d refused (%d accepted, %d other, %d no reply) [not required of "
			"this FSAL]",
			b->what, b->refused, b->sent, b->ok, b->other,
			b->rpcfail);
	tc_ok(!c->dead && nfsc_getattr(c, &good, NULL) == NFS3_OK,
	      "after \"%s\" a normal GETATTR still answers", b->what);
}

static unsigned rng_state = 12345;

static unsigned rnd(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

static size_t wire_len(unsigned fs_len)
{
	size_t n = HDR + fs_len;
	size_t r = (n + 3) & ~3u;

	return r <= 64 ? r : n;
}

static int do_forge(struct nfsc_conn *c, const struct it_opts *o)
{
	struct nfsc_fh f;
	fattr3 a;
	unsigned fs_len, i, k;
	char name[64];

	snprintf(name, sizeof(name), "forge.%d", (int)getpid());
	if (!it_expect_st(nfsc_create(c, &c->root, name, GUARDED, 0644, NULL,
				      &good, &a),
			  "CREATE a file to forge handles from", NFS3_OK,
			  IT_END))
		return it_summary("it_handles forge");
	nfsc_write(c, &good, 0, "data", 4, FILE_SYNC, NULL, NULL, NULL);
	gooddir = c->root;
	tc_ok(good.len >= HDR && good.data[0] == 0x43 && good.len <= 64,
	      "handle looks like a ganesha v3 handle (%u bytes, version %#x)",
	      good.len, good.data[0]);
	fs_len = good.data[4];
	tc_ok(HDR + fs_len <= good.len,
	      "fs_len %u fits in the %u-byte wire handle", fs_len, good.len);
	if (HDR + fs_len > good.len)
		return it_summary("it_handles forge");
	it_note("wire handle %u bytes, FSAL opaque part %u bytes", good.len,
		fs_len);

	/* 1. Every byte of the FSAL's opaque part flipped (all bits, then the low bit). */
	for (int pass = 0; pass < 2; pass++) {
		struct batch b = {
			pass ? "opaque bytes with the low bit flipped"
			     : "opaque bytes with all bits flipped",
			.must = strict
		};

		for (i = 0; i < fs_len; i++) {
			f = good;
			f.data[HDR + i] ^= pass ? 0x01 : 0xff;
			send_forged(c, &b, &f);
		}
		finish(c, &b);
		if (c->dead)
			return it_summary("it_handles forge");
	}

	/* 2. The ganesha header: version and export id (refused by ganesha for any FSAL). */
	{
		struct batch b = { "header version/export id altered",
				   .must = true };

		f = good;
		f.data[0] ^= 0xff;
		send_forged(c, &b, &f);
		f = good;
		f.data[0] = 0x42;
		send_forged(c, &b, &f);
		f = good;
		f.data[2] ^= 0x7f; /* export id high byte: no such export */
		send_forged(c, &b, &f);
		f = good;
		f.data[3] ^= 0x55;
		send_forged(c, &b, &f);
		finish(c, &b);
	}

	/* 3. Truncated on the wire (fs_len left as it was): ganesha's own length check. */
	{
		struct batch b = { "truncated wire handles", .must = true };

		for (k = 1; k <= good.len; k++) {
			f = good;
			f.len = good.len - k;
			if (f.len == 0)
				continue; /* zero-length is an XDR matter; sent in 6 */
			send_forged(c, &b, &f);
		}
		finish(c, &b);
	}

	/* 4. Truncated FSAL part with a consistent header (reaches the FSAL). Not sent without
	 *    -S: stock FSAL_VFS 4.3 aborts on some of these (fortify "buffer overflow"). */
	if (strict) {
		struct batch b = { "FSAL part truncated, header consistent",
				   .must = strict };

		for (k = 1; k <= fs_len; k++) {
			f = good;
			f.data[4] = fs_len - k;
			f.len = wire_len(fs_len - k);
			memset(f.data + HDR + fs_len - k, 0,
			       f.len - (HDR + fs_len - k));
			send_forged(c, &b, &f);
		}
		finish(c, &b);
	}

	/* 5. Oversized FSAL part with a consistent header, up to the 64-byte NFSv3 maximum. */
	if (strict) {
		struct batch b = { "FSAL part oversized, header consistent",
				   .must = strict };

		for (k = fs_len + 1; HDR + k <= 64; k++) {
			f = good;
			f.data[4] = k;
			for (i = HDR + fs_len; i < HDR + k; i++)
				f.data[i] = (unsigned char)(i * 7 + 1);
			f.len = wire_len(k);
			memset(f.data + HDR + k, 0, f.len - (HDR + k));
			send_forged(c, &b, &f);
		}
		if (b.sent == 0)
			it_note("the FSAL part already fills the 64-byte handle: no oversized variant");
		else
			finish(c, &b);
	}

	/* 6. Oversized on the wire: padded to 64 bytes (fs_len unchanged), then beyond 64. */
	{
		struct batch b = {
			"oversized wire handles (<= 64 bytes, fs_len unchanged)",
			.must = true
		};

		for (k = good.len + 4; k <= 64; k += 4) {
			f = good;
			memset(f.data + good.len, 0xab, k - good.len);
			f.len = k;
			send_forged(c, &b, &f);
		}
		if (b.sent)
			finish(c, &b);
	}
	{
		/* Longer than NFS3_FHSIZE: not decodable as an nfs_fh3. A server answers with an
		 * RPC-level error (GARBAGE_ARGS) or BADHANDLE; it must not go down. Uses its own
		 * connection, which the server may close. */
		struct nfsc_conn c2;
		int got_reply = 0, sent = 0;

		for (k = 65; k <= NFSC_FHMAX; k += 21) {
			if (it_connect(&c2, o, 0, 0) != 0)
				break;
			f = good;
			memset(f.data + good.len, 0xcd, k - good.len);
			f.len = k;
			{
				int st = nfsc_getattr(&c2, &f, NULL);

				sent++;
				if (st == NFS3ERR_BADHANDLE ||
				    st == NFS3ERR_STALE || st == -1)
					got_reply++;
				else
					it_note("  %u-byte handle: %s", k,
						it_st(st));
			}
			nfsc_disconnect(&c2);
		}
		tc_ok(sent > 0 && got_reply == sent,
		      "handles longer than 64 bytes are refused (%d/%d with BADHANDLE/STALE or an "
		      "RPC error)",
		      got_reply, sent);
		tc_ok(nfsc_getattr(c, &good, NULL) == NFS3_OK,
		      "after handles longer than 64 bytes a normal GETATTR still answers");
	}

	/* 7. Garbage: random bytes; random bytes behind a valid header of this export; random
	 *    bytes of a consistent length. */
	{
		struct batch b1 = { "random garbage handles", .must = true };
		struct batch b2 = {
			"random FSAL part behind a valid ganesha header",
			.must = strict
		};

		for (k = 0; k < 300; k++) {
			unsigned len = 1 + rnd() % 64;

			f.len = len;
			for (i = 0; i < len; i++)
				f.data[i] = rnd();
			if (f.data[0] == 0x43)
				f.data[0] = 0x44;
			send_forged(c, &b1, &f);
		}
		finish(c, &b1);
		for (k = 0; k < 300; k++) {
			unsigned fl = 1 + rnd() % (64 - HDR);

			memcpy(f.data, good.data, HDR);
			f.data[4] = fl;
			f.len = wire_len(fl);
			for (i = HDR; i < f.len; i++)
				f.data[i] = rnd();
			/* Same FSAL length as the real handle for a third of them. */
			if (k % 3 == 0) {
				f.data[4] = fs_len;
				f.len = good.len;
				for (i = HDR; i < good.len; i++)
					f.data[i] = rnd();
			}
			send_forged(c, &b2, &f);
		}
		finish(c, &b2);
	}

	/* 8. Zero-length handle. */
	{
		struct batch b = { "zero-length handle", .must = true };

		f.len = 0;
		send_forged(c, &b, &f);
		finish(c, &b);
	}

	/* 9. Other operations with a forged handle (the object is never opened). */
	{
		struct batch b = {
			"READ/WRITE/LOOKUP/READDIR/SETATTR/COMMIT with forged handles",
			.must = strict
		};
		char buf[64];

		for (i = 0; i < fs_len; i += 3) {
			int st[6];
			sattr3 sa;
			char verf[8] = { 0 };
			struct nfsc_dirlist l = { 0 };

			f = good;
			f.data[HDR + i] ^= 0x5a;
			nfsc_sattr_mode(&sa, 0777);
			st[0] = nfsc_read(c, &f, 0, sizeof(buf), buf, NULL,
					  NULL);
			st[1] = nfsc_write(c, &f, 0, "evil", 4, FILE_SYNC, NULL,
					   NULL, NULL);
			st[2] = nfsc_lookup(c, &f, "x", NULL, NULL);
			st[3] = nfsc_readdir_once(c, &f, false, 0, verf, 1024,
						  &l, NULL, NULL);
			st[4] = nfsc_setattr(c, &f, &sa);
			st[5] = nfsc_commit(c, &f, 0, 0, NULL);
			nfsc_dirlist_free(&l);
			for (k = 0; k < 6; k++) {
				b.sent++;
				if (st[k] == NFS3ERR_BADHANDLE ||
				    st[k] == NFS3ERR_STALE)
					b.refused++;
				else if (st[k] == NFS3_OK)
					b.ok++;
				else if (st[k] == -1)
					b.rpcfail++;
				else
					b.other++;
			}
		}
		finish(c, &b);
		/* The real file was not modified through any forged handle. */
		{
			fattr3 aa;
			uint32_t got = 0;

			nfsc_getattr(c, &good, &aa);
			nfsc_read(c, &good, 0, sizeof(buf), buf, &got, NULL);
			if (strict)
				tc_ok(aa.size == 4 && got == 4 &&
					      !memcmp(buf, "data", 4) &&
					      (aa.mode & 0777) == 0644,
				      "the real file is untouched (size %llu mode %o)",
				      (unsigned long long)aa.size,
				      aa.mode & 0777);
		}
	}

	/* 10. A handle of another export relabelled with this export's id. */
	if (export2) {
		struct it_opts o2 = *o;
		struct nfsc_conn c2;
		struct nfsc_fh other;

		o2.export = export2;
		if (it_connect(&c2, &o2, 0, 0) != 0) {
			tc_ok(false, "connect to the second export %s",
			      export2);
		} else {
			struct batch b = {
				"handle of another export relabelled with this export's id",
				.must = strict
			};

			if (nfsc_create(&c2, &c2.root, name, GUARDED, 0644,
					NULL, &other, NULL) == NFS3_OK) {
				tc_ok(nfsc_getattr(c, &other, NULL) == NFS3_OK,
				      "the other export's handle works as issued");
				f = other;
				f.data[2] = good.data[2];
				f.data[3] = good.data[3];
				send_forged(c, &b, &f);
				f = c2.root;
				f.data[2] = good.data[2];
				f.data[3] = good.data[3];
				send_forged(c, &b, &f);
				finish(c, &b);
				nfsc_remove(&c2, &c2.root, name);
			} else {
				tc_ok(false, "CREATE in the second export");
			}
			nfsc_disconnect(&c2);
		}
	}

	tc_ok(it_ping(c), "server answers NULL at the end");
	it_expect_st(nfsc_remove(c, &c->root, name), "REMOVE the forge file",
		     NFS3_OK, IT_END);
	return it_summary("it_handles forge");
}

static int do_fsid(struct nfsc_conn *c)
{
	struct nfsc_fh dir;
	fattr3 a;

	if (!base_dir(c, &dir) || !it_expect_st(nfsc_getattr(c, &dir, &a),
						"GETATTR", NFS3_OK, IT_END))
		return 1;
	printf("fsid %llu\n", (unsigned long long)a.fsid);
	return 0;
}

int main(int argc, char **argv)
{
	struct it_opts o;
	struct nfsc_conn c;
	int idx, rc;
	const char *cmd;

	idx = it_parse(argc, argv, &o, "Sx:d:", opt_cb);
	if (idx >= argc) {
		fprintf(stderr,
			"usage: it_handles -e EXPORT [-d DIR] save|check|stale FILE | forge [-S] [-x E2] | fsid\n");
		return 2;
	}
	cmd = argv[idx];
	if (it_connect(&c, &o, 0, 0) != 0) {
		fprintf(stderr, "it_handles: cannot connect to %s\n", o.export);
		return 2;
	}
	if (!strcmp(cmd, "save") && idx + 1 < argc)
		rc = do_save(&c, argv[idx + 1]);
	else if (!strcmp(cmd, "check") && idx + 1 < argc)
		rc = do_check(&c, argv[idx + 1]);
	else if (!strcmp(cmd, "stale") && idx + 1 < argc)
		rc = do_stale(&c, argv[idx + 1]);
	else if (!strcmp(cmd, "forge"))
		rc = do_forge(&c, &o);
	else if (!strcmp(cmd, "fsid"))
		rc = do_fsid(&c);
	else {
		fprintf(stderr, "it_handles: unknown command %s\n", cmd);
		rc = 2;
	}
	nfsc_disconnect(&c);
	return rc;
}
