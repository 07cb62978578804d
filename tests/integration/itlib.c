// SPDX-License-Identifier: LGPL-3.0-or-later
/* See itlib.h. */
#include "itlib.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void it_note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int it_summary(const char *prog)
{
	printf("# %s: %d checks, %d failed\n", prog, tc_checks, tc_failures);
	fflush(stdout);
	return tc_failures ? 1 : 0;
}

const char *it_st(int st)
{
	static char buf[8][48];
	static int i;
	char *b = buf[i++ % 8];

	if (st == -1)
		return "RPC-FAILURE";
	snprintf(b, 48, "%s(%d)", nfsstat3_to_str(st), st);
	return b;
}

bool it_expect_st(int st, const char *what, ...)
{
	va_list ap;
	char want[256] = "";
	size_t n = 0;
	bool match = false;
	int w;

	va_start(ap, what);
	while ((w = va_arg(ap, int)) != IT_END) {
		if (w == st)
			match = true;
		n += snprintf(want + n, sizeof(want) - n, "%s%s", n ? "|" : "",
			      it_st(w));
		if (n >= sizeof(want))
			n = sizeof(want) - 1;
	}
	va_end(ap);
	if (match)
		tc_ok(true, "%s: %s", what, it_st(st));
	else
		tc_ok(false, "%s: expected %s, got %s", what, want, it_st(st));
	return match;
}

/* ---- options ---- */

int it_parse(int argc, char **argv, struct it_opts *o, const char *extra,
	     void (*cb)(int opt, const char *arg))
{
	char optstr[128];
	int c;

	o->host = "127.0.0.1";
	o->nfsport = 12049;
	o->mntport = 12050;
	o->export = NULL;
	o->verbose = 0;
	snprintf(optstr, sizeof(optstr), "H:p:M:e:v%s", extra ? extra : "");
	while ((c = getopt(argc, argv, optstr)) != -1) {
		switch (c) {
		case 'H':
			o->host = optarg;
			break;
		case 'p':
			o->nfsport = atoi(optarg);
			break;
		case 'M':
			o->mntport = atoi(optarg);
			break;
		case 'e':
			o->export = optarg;
			break;
		case 'v':
			o->verbose++;
			break;
		case '?':
			fprintf(stderr,
				"usage: %s -e EXPORT [-H host] [-p nfsport] [-M mntport] ...\n",
				argv[0]);
			exit(2);
		default:
			if (cb)
				cb(c, optarg);
		}
	}
	if (!o->export) {
		fprintf(stderr, "%s: -e EXPORT is required\n", argv[0]);
		exit(2);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	return optind;
}

char *it_url(const struct it_opts *o, const char *path, int vers, int uid,
	     int gid)
{
	char *u = NULL;
	char ids[64] = "";
	int r;

	if (uid >= 0)
		snprintf(ids, sizeof(ids), "&uid=%d&gid=%d", uid, gid);
	if (vers == 4)
		r = asprintf(&u, "nfs://%s%s?version=4&nfsport=%d%s", o->host,
			     path, o->nfsport, ids);
	else
		r = asprintf(&u,
			     "nfs://%s%s?version=3&nfsport=%d&mountport=%d%s",
			     o->host, path, o->nfsport, o->mntport, ids);
	if (r < 0)
		abort();
	return u;
}

struct nfs_context *it_hl_mount(const struct it_opts *o, int vers, int uid,
				int gid)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *url;
	char *u = it_url(o, o->export, vers, uid, gid);

	if (!nfs)
		abort();
	nfs_set_timeout(nfs, NFSC_TIMEOUT_MS);
	nfs_set_dircache(nfs, 0);
	nfs_set_autoreconnect(nfs, 0);
	if (vers == 4)
		nfsc_v4_identity(nfs, "it");
	url = nfs_parse_url_dir(nfs, u);
	if (!url) {
		fprintf(stderr, "bad url %s: %s\n", u, nfs_get_error(nfs));
		free(u);
		nfs_destroy_context(nfs);
		return NULL;
	}
	if (nfs_mount(nfs, url->server, url->path) != 0) {
		fprintf(stderr, "mount %s failed: %s\n", u, nfs_get_error(nfs));
		nfs_destroy_url(url);
		free(u);
		nfs_destroy_context(nfs);
		return NULL;
	}
	nfs_destroy_url(url);
	free(u);
	return nfs;
}

void it_hl_setattrs(struct nfs_context *nfs, const char *path, int mode,
		    int uid, int gid, uint64_t size, struct timeval tv[2])
{
	struct nfs_stat_64 st;
	int r;

	IT_HL(nfs_chmod(nfs, path, mode), r == 0, "chmod %04o: %d", mode, r);
	IT_HL(nfs_chown(nfs, path, uid, gid), r == 0, "chown %d:%d: %d", uid,
	      gid, r);
	IT_HL(nfs_truncate(nfs, path, size), r == 0, "truncate %llu: %d",
	      (unsigned long long)size, r);
	IT_HL(nfs_utimes(nfs, path, tv), r == 0, "utimes: %d", r);
	IT_HL(nfs_stat64(nfs, path, &st),
	      r == 0 && (st.nfs_mode & 07777) == (uint64_t)mode &&
		      st.nfs_uid == (uint64_t)uid &&
		      st.nfs_gid == (uint64_t)gid && st.nfs_size == size &&
		      st.nfs_atime == (uint64_t)tv[0].tv_sec &&
		      st.nfs_mtime == (uint64_t)tv[1].tv_sec,
	      "attributes after chmod/chown/truncate/utimes: mode %llo %llu:%llu size %llu "
	      "atime %llu mtime %llu",
	      (unsigned long long)st.nfs_mode & 07777,
	      (unsigned long long)st.nfs_uid, (unsigned long long)st.nfs_gid,
	      (unsigned long long)st.nfs_size, (unsigned long long)st.nfs_atime,
	      (unsigned long long)st.nfs_mtime);
}

/* ---- raw connection ---- */

int it_connect(struct nfsc_conn *c, const struct it_opts *o, int uid, int gid)
{
	struct nfsc_opts t = { .host = o->host,
			       .nfsport = o->nfsport,
			       .mntport = o->mntport,
			       .export = o->export };

	if (nfsc_connect(c, &t, uid, gid, NFSC_TIMEOUT_MS) == 0)
		return 0;
	fprintf(stderr, "%s\n", c->err);
	return -1;
}

bool it_ping(struct nfsc_conn *c)
{
	return nfsc_null(c) == 0;
}
