// SPDX-License-Identifier: LGPL-3.0-or-later
/* A large directory listed completely: READDIR and READDIRPLUS with small replies (so the
 * listing takes many calls resumed from cookies), a listing resumed on a new connection from a
 * saved cookie and verifier, and the high-level opendir/readdir. Every name f00000..f<N-1>
 * must appear exactly once, nothing else but "." and "..".
 *
 * usage: it_bigdir -e EXPORT -d SUBDIR -n N [-c K] [common options]
 * SUBDIR (relative to the export root) must hold exactly the files f00000 .. f<N-1>; with -c K
 * it holds f00000 .. f<K-1> and the program creates the rest through NFS first. */
#include "itlib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *subdir = "big";
static int nfiles = 10000;
static int create_from = -1; /* -c K: create f<K>..f<N-1> through NFS first */

static void opt_cb(int opt, const char *arg)
{
	if (opt == 'd')
		subdir = arg;
	if (opt == 'n')
		nfiles = atoi(arg);
	if (opt == 'c')
		create_from = atoi(arg);
}

struct tally {
	char *seen;
	int dup, bad, dots, n;
};

static void tally_name(struct tally *t, const char *name)
{
	int idx;
	char extra;

	if (!strcmp(name, ".") || !strcmp(name, "..")) {
		t->dots++;
		return;
	}
	if (sscanf(name, "f%d%c", &idx, &extra) != 1 || idx < 0 ||
	    idx >= nfiles) {
		if (t->bad++ < 5)
			it_note("unexpected name \"%s\"", name);
		return;
	}
	if (t->seen[idx]++) {
		if (t->dup++ < 5)
			it_note("duplicate name \"%s\"", name);
	}
	t->n++;
}

static void tally_check(struct tally *t, const char *what)
{
	int i, missing = 0, first = -1;

	for (i = 0; i < nfiles; i++)
		if (!t->seen[i]) {
			if (first < 0)
				first = i;
			missing++;
		}
	tc_ok(missing == 0 && t->dup == 0 && t->bad == 0 && t->n == nfiles,
	      "%s: %d names, %d missing (first f%05d), %d duplicates, %d unexpected, %d dots",
	      what, t->n, missing, first < 0 ? 0 : first, t->dup, t->bad,
	      t->dots);
}

static void tally_reset(struct tally *t)
{
	memset(t->seen, 0, nfiles);
	t->dup = t->bad = t->dots = t->n = 0;
}

int main(int argc, char **argv)
{
	struct it_opts o;
	struct nfsc_conn c, c2;
	struct nfsc_fh dir;
	struct nfsc_dirlist l = { 0 };
	struct tally t = { 0 };
	fattr3 a;
	size_t i;
	int st;
	uint64_t t0;

	it_parse(argc, argv, &o, "d:n:c:", opt_cb);
	t.seen = calloc(nfiles, 1);
	if (!t.seen || it_connect(&c, &o, 0, 0) != 0) {
		fprintf(stderr, "it_bigdir: cannot connect to %s\n", o.export);
		return 2;
	}
	if (!it_expect_st(nfsc_lookup(&c, &c.root, subdir, &dir, &a),
			  "LOOKUP the big directory", NFS3_OK, IT_END))
		return it_summary("it_bigdir");
	if (create_from >= 0) {
		int k, bad = 0;
		char name[32];

		t0 = nfsc_now_ms();
		for (k = create_from; k < nfiles; k++) {
			snprintf(name, sizeof(name), "f%05d", k);
			bad += nfsc_create(&c, &dir, name, GUARDED, 0644, NULL,
					   NULL, NULL) != NFS3_OK;
		}
		tc_ok(bad == 0,
		      "CREATE f%05d..f%05d through NFS (%d failures, %llu ms)",
		      create_from, nfiles - 1, bad,
		      (unsigned long long)(nfsc_now_ms() - t0));
		nfsc_lookup(&c, &c.root, subdir, NULL, &a);
	}
	it_note("directory size %llu bytes, nlink %u",
		(unsigned long long)a.size, a.nlink);

	/* READDIR with ~4 KiB replies. */
	t0 = nfsc_now_ms();
	st = nfsc_readdir_all(&c, &dir, false, 4096, &l);
	tc_ok(st == NFS3_OK,
	      "READDIR (count 4096) to eof: %s, %u calls, %zu entries, %llu ms",
	      it_st(st), l.calls, l.n,
	      (unsigned long long)(nfsc_now_ms() - t0));
	tc_ok(l.calls >= (unsigned)nfiles / 200,
	      "READDIR needed many calls (%u)", l.calls);
	for (i = 0; i < l.n; i++)
		tally_name(&t, l.e[i].name);
	tally_check(&t, "READDIR");
	{
		/* Cookies are distinct (a client resumes from any of them). */
		int dupc = 0;

		for (i = 1; i < l.n; i++)
			dupc += l.e[i].cookie == l.e[i - 1].cookie;
		tc_ok(dupc == 0,
		      "consecutive READDIR cookies are distinct (%d repeats)",
		      dupc);
	}
	nfsc_dirlist_free(&l);

	/* READDIRPLUS with small replies, every entry with attributes and a handle. */
	tally_reset(&t);
	t0 = nfsc_now_ms();
	st = nfsc_readdir_all(&c, &dir, true, 2048, &l);
	tc_ok(st == NFS3_OK,
	      "READDIRPLUS (dircount 2048) to eof: %s, %u calls, %zu entries, %llu ms",
	      it_st(st), l.calls, l.n,
	      (unsigned long long)(nfsc_now_ms() - t0));
	{
		int noattr = 0, nofh = 0, badid = 0, sampled = 0, sample_ok = 0;

		for (i = 0; i < l.n; i++) {
			tally_name(&t, l.e[i].name);
			if (!strcmp(l.e[i].name, ".") ||
			    !strcmp(l.e[i].name, ".."))
				continue;
			noattr += !l.e[i].has_attr;
			nofh += !l.e[i].has_fh;
			badid += l.e[i].has_attr &&
				 l.e[i].attr.fileid != l.e[i].fileid;
			if (l.e[i].has_fh && i % 997 == 0) {
				sampled++;
				if (nfsc_getattr(&c, &l.e[i].fh, &a) ==
					    NFS3_OK &&
				    a.fileid == l.e[i].fileid &&
				    a.type == NF3REG)
					sample_ok++;
			}
		}
		tally_check(&t, "READDIRPLUS");
		tc_ok(noattr == 0 && nofh == 0 && badid == 0,
		      "READDIRPLUS entries carry attributes and handles (%d without attrs, %d without "
		      "handle, %d fileid mismatches)",
		      noattr, nofh, badid);
		tc_ok(sampled > 0 && sample_ok == sampled,
		      "GETATTR through READDIRPLUS handles (%d/%d)", sample_ok,
		      sampled);
	}
	nfsc_dirlist_free(&l);

	/* Resume on a second connection from a cookie saved in the middle. */
	tally_reset(&t);
	{
		char verf[8] = { 0 };
		uint64_t cookie = 0;
		bool eof = false;
		unsigned calls = 0;

		while (!eof && calls < 40) {
			size_t before = l.n;

			st = nfsc_readdir_once(&c, &dir, false, cookie, verf,
					       4096, &l, verf, &eof);
			if (st != NFS3_OK || l.n == before)
				break;
			cookie = l.e[l.n - 1].cookie;
			calls++;
		}
		tc_ok(st == NFS3_OK,
		      "first part of the listing (%u calls, %zu entries)",
		      calls, l.n);
		if (it_connect(&c2, &o, 0, 0) == 0) {
			while (!eof && st == NFS3_OK) {
				size_t before = l.n;

				st = nfsc_readdir_once(&c2, &dir, false, cookie,
						       verf, 4096, &l, verf,
						       &eof);
				if (st != NFS3_OK)
					break;
				if (l.n == before && !eof) {
					st = -1;
					break;
				}
				if (l.n > before)
					cookie = l.e[l.n - 1].cookie;
			}
			tc_ok(st == NFS3_OK && eof,
			      "listing resumed on a new connection from the saved cookie reaches eof: %s",
			      it_st(st));
			nfsc_disconnect(&c2);
		} else {
			tc_ok(false, "second connection");
		}
		for (i = 0; i < l.n; i++)
			tally_name(&t, l.e[i].name);
		tally_check(&t, "READDIR split across two connections");
		nfsc_dirlist_free(&l);
	}

	/* The high-level API (what applications see). */
	{
		struct nfs_context *nfs = it_hl_mount(&o, 3, -1, -1);
		struct nfsdir *d;
		struct nfsdirent *de;
		char path[512];
		int r;

		tc_ok(nfs != NULL, "high-level mount");
		if (nfs) {
			snprintf(path, sizeof(path), "/%s", subdir);
			tally_reset(&t);
			r = nfs_opendir(nfs, path, &d);
			tc_ok(r == 0, "nfs_opendir %s: %d", path, r);
			if (r == 0) {
				while ((de = nfs_readdir(nfs, d)))
					tally_name(&t, de->name);
				nfs_closedir(nfs, d);
				tally_check(&t, "nfs_opendir/nfs_readdir");
			}
			nfs_umount(nfs);
			nfs_destroy_context(nfs);
		}
	}

	/* Remove a tenth through NFS, list again: exactly the rest. */
	{
		int bad = 0, removed = 0, k;
		char name[32];

		for (k = 0; k < nfiles; k += 10) {
			snprintf(name, sizeof(name), "f%05d", k);
			bad += nfsc_remove(&c, &dir, name) != NFS3_OK;
			removed++;
		}
		tc_ok(bad == 0, "REMOVE of %d entries (%d failures)", removed,
		      bad);
		tally_reset(&t);
		st = nfsc_readdir_all(&c, &dir, true, 8192, &l);
		for (i = 0; i < l.n; i++)
			tally_name(&t, l.e[i].name);
		for (k = 0, bad = 0; k < nfiles; k++) {
			bool want = k % 10 != 0;

			bad += (t.seen[k] == 1) != want;
		}
		tc_ok(st == NFS3_OK && bad == 0 && t.dup == 0 &&
			      t.n == nfiles - removed,
		      "after removals READDIRPLUS lists exactly the %d remaining (%d listed, %d wrong, "
		      "%s)",
		      nfiles - removed, t.n, bad, it_st(st));
		nfsc_dirlist_free(&l);
	}
	tc_ok(it_ping(&c), "server still answers");
	nfsc_disconnect(&c);
	free(t.seen);
	return it_summary("it_bigdir");
}
