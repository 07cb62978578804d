// SPDX-License-Identifier: LGPL-3.0-or-later
/* Forged NFSv4 file handles: PUTFH of an altered, truncated, oversized or garbage handle must
 * fail with NFS4ERR_BADHANDLE or NFS4ERR_STALE, and the server keeps answering.
 *
 * usage: it_fh4 -e EXPORT [-S] [common options]
 * EXPORT is the export's Pseudo path (the scenarios use Pseudo = Path). A file is created
 * (over NFSv3) in the export root, its NFSv4 handle obtained with PUTROOTFH + LOOKUP... + GETFH.
 * -S (strict: the FSAL MACs its handles): every alteration of the FSAL's opaque part, and
 * consistent-header truncations/extensions, must be refused; without -S only the ganesha-level
 * cases are required and the rest is counted.
 * NFSv4 wire handle of ganesha 4.3: version, flags, export id (2 bytes), fs_len, fs_len bytes
 * of FSAL opaque data (no padding), at most 128 bytes. */
#include "itlib.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <nfsc/libnfs-raw-nfs4.h>

#define HDR 5
#define FH4MAX 128

static bool strict;

static void opt_cb(int opt, const char *arg)
{
	(void)arg;
	if (opt == 'S')
		strict = true;
}

struct fh4 {
	unsigned len;
	unsigned char d[FH4MAX + 32];
};

struct cres {
	int done, rpc_status;
	int status; /* compound status */
	int nres;
	int op_status[8];
	struct fh4 *fh; /* GETFH result */
};

static struct rpc_context *rpc;
static int dead;

static void c_cb(struct rpc_context *r, int status, void *data, void *priv)
{
	struct cres *c = priv;
	COMPOUND4res *res = data;
	u_int i;

	(void)r;
	c->rpc_status = status;
	c->status = -1;
	if (status == RPC_STATUS_SUCCESS && res) {
		c->status = res->status;
		c->nres = res->resarray.resarray_len;
		for (i = 0; i < res->resarray.resarray_len && i < 8; i++) {
			nfs_resop4 *op = &res->resarray.resarray_val[i];

			/* Every result union member starts with its nfsstat4. */
			c->op_status[i] = *(int *)&op->nfs_resop4_u;
			if (op->resop == OP_GETFH && c->fh &&
			    op->nfs_resop4_u.opgetfh.status == NFS4_OK) {
				nfs_fh4 *f =
					&op->nfs_resop4_u.opgetfh.GETFH4res_u
						 .resok4.object;

				c->fh->len = f->nfs_fh4_len > FH4MAX
						     ? FH4MAX
						     : f->nfs_fh4_len;
				memcpy(c->fh->d, f->nfs_fh4_val, c->fh->len);
			}
		}
	}
	c->done = 1;
}

static void conn_cb(struct rpc_context *r, int status, void *data, void *priv)
{
	struct cres *c = priv;

	(void)r;
	(void)data;
	c->rpc_status = status;
	c->done = 1;
}

static int wait_done(struct cres *c)
{
	uint64_t deadline = nfsc_now_ms() + NFSC_TIMEOUT_MS;

	while (!c->done) {
		struct pollfd p = { .fd = rpc_get_fd(rpc),
				    .events = rpc_which_events(rpc) };
		int r = poll(&p, 1, 100);

		if (r < 0 && errno != EINTR)
			break;
		if (rpc_service(rpc, r > 0 ? p.revents : 0) < 0)
			break;
		if (!c->done && nfsc_now_ms() > deadline)
			break;
	}
	if (!c->done) {
		dead = 1;
		rpc_disconnect(rpc, "timeout");
		if (!c->done)
			abort();
		return -1;
	}
	return c->rpc_status == RPC_STATUS_SUCCESS ? 0 : -1;
}

/* Runs a compound; returns the compound status or -1 on RPC failure. */
static int compound(nfs_argop4 *ops, unsigned n, struct cres *c)
{
	COMPOUND4args a;

	memset(&a, 0, sizeof(a));
	{
		struct fh4 *keep = c->fh;

		memset(c, 0, sizeof(*c));
		c->fh = keep;
	}
	a.minorversion = 0;
	a.argarray.argarray_len = n;
	a.argarray.argarray_val = ops;
	if (dead)
		return -1;
	if (rpc_nfs4_compound_async(rpc, c_cb, &a, c) != 0)
		return -1;
	if (wait_done(c) != 0)
		return -1;
	return c->status;
}

static uint32_t attr_mask[2] = { 1u << 1 /* type */, 0 };

static int putfh_getattr(const struct fh4 *fh)
{
	nfs_argop4 ops[2];
	struct cres c = { 0 };

	memset(ops, 0, sizeof(ops));
	ops[0].argop = OP_PUTFH;
	ops[0].nfs_argop4_u.opputfh.object.nfs_fh4_len = fh->len;
	ops[0].nfs_argop4_u.opputfh.object.nfs_fh4_val = (char *)fh->d;
	ops[1].argop = OP_GETATTR;
	ops[1].nfs_argop4_u.opgetattr.attr_request.bitmap4_len = 1;
	ops[1].nfs_argop4_u.opgetattr.attr_request.bitmap4_val = attr_mask;
	return compound(ops, 2, &c);
}

/* PUTROOTFH, LOOKUP each component of path, GETFH. */
static int get_fh(const char *path, struct fh4 *out)
{
	nfs_argop4 ops[40];
	char buf[1024], *comp[36], *save = NULL, *t;
	unsigned n = 0, i;
	struct cres c = { 0 };

	snprintf(buf, sizeof(buf), "%s", path);
	memset(ops, 0, sizeof(ops));
	ops[n++].argop = OP_PUTROOTFH;
	for (t = strtok_r(buf, "/", &save), i = 0; t && i < 36;
	     t = strtok_r(NULL, "/", &save), i++) {
		comp[i] = t;
		ops[n].argop = OP_LOOKUP;
		ops[n].nfs_argop4_u.oplookup.objname.utf8string_len = strlen(t);
		ops[n].nfs_argop4_u.oplookup.objname.utf8string_val = comp[i];
		n++;
	}
	ops[n++].argop = OP_GETFH;
	c.fh = out;
	out->len = 0;
	{
		COMPOUND4args a;

		memset(&a, 0, sizeof(a));
		a.argarray.argarray_len = n;
		a.argarray.argarray_val = ops;
		if (rpc_nfs4_compound_async(rpc, c_cb, &a, &c) != 0 ||
		    wait_done(&c) != 0)
			return -1;
	}
	return c.status;
}

struct batch {
	const char *what;
	bool must;
	int sent, refused, ok, other, rpcfail;
};

static struct fh4 good;

static void send_forged(struct batch *b, const struct fh4 *f)
{
	int st = putfh_getattr(f);

	b->sent++;
	if (st == NFS4ERR_BADHANDLE || st == NFS4ERR_STALE) {
		b->refused++;
		return;
	}
	if (st == NFS4_OK)
		b->ok++;
	else if (st == -1)
		b->rpcfail++;
	else
		b->other++;
	if (b->ok + b->other + b->rpcfail <= 3)
		it_note("  %s: status %d (len %u)", b->what, st, f->len);
}

static void finish(struct batch *b)
{
	if (b->must)
		tc_ok(b->refused == b->sent,
		      "NFSv4 %s: %d/%d refused with NFS4ERR_BADHANDLE/STALE (%d accepted, %d other, %d "
		      "without reply)",
		      b->what, b->refused, b->sent, b->ok, b->other,
		      b->rpcfail);
	else
		it_note("NFSv4 %s: %d/%d refused (%d accepted, %d other, %d no reply) [not required "
			"of this FSAL]",
			b->what, b->refused, b->sent, b->ok, b->other,
			b->rpcfail);
	tc_ok(!dead && putfh_getattr(&good) == NFS4_OK,
	      "after NFSv4 \"%s\" PUTFH+GETATTR of the real handle still works",
	      b->what);
}

static unsigned rng = 777;

static unsigned rnd(void)
{
	rng = rng * 1103515245u + 12345u;
	return rng >> 8;
}

int main(int argc, char **argv)
{
	struct it_opts o;
	struct nfsc_conn c3;
	struct cres cc = { 0 };
	struct fh4 f;
	char name[64], path[1024];
	unsigned fs_len, i, k;

	it_parse(argc, argv, &o, "S", opt_cb);
	if (it_connect(&c3, &o, 0, 0) != 0) {
		fprintf(stderr, "it_fh4: cannot connect (NFSv3) to %s\n",
			o.export);
		return 2;
	}
	snprintf(name, sizeof(name), "fh4.%d", (int)getpid());
	if (!it_expect_st(nfsc_create(&c3, &c3.root, name, GUARDED, 0644, NULL,
				      NULL, NULL),
			  "CREATE a file (NFSv3)", NFS3_OK, IT_END))
		return it_summary("it_fh4");

	rpc = rpc_init_context();
	if (!rpc ||
	    rpc_connect_port_async(rpc, o.host, o.nfsport, NFS4_PROGRAM, NFS_V4,
				   conn_cb, &cc) != 0 ||
	    wait_done(&cc) != 0) {
		fprintf(stderr, "it_fh4: cannot connect NFSv4 to %s:%d\n",
			o.host, o.nfsport);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/%s", o.export, name);
	{
		int st = get_fh(path, &good);

		tc_ok(st == NFS4_OK && good.len > HDR,
		      "PUTROOTFH + LOOKUP + GETFH of %s: status %d, %u-byte handle",
		      path, st, good.len);
	}
	if (good.len <= HDR || good.len > FH4MAX) {
		nfsc_remove(&c3, &c3.root, name);
		return it_summary("it_fh4");
	}
	fs_len = good.d[4];
	tc_ok(HDR + fs_len == good.len,
	      "NFSv4 handle: version %#x, fs_len %u, length %u", good.d[0],
	      fs_len, good.len);
	tc_ok(putfh_getattr(&good) == NFS4_OK,
	      "PUTFH + GETATTR of the real handle");

	{
		struct batch b = { .what = "opaque bytes flipped",
				   .must = strict };

		for (i = 0; i < fs_len && HDR + i < good.len; i++) {
			f = good;
			f.d[HDR + i] ^= 0xff;
			send_forged(&b, &f);
			f = good;
			f.d[HDR + i] ^= 0x01;
			send_forged(&b, &f);
		}
		finish(&b);
	}
	{
		struct batch b = { .what = "header version/export id altered",
				   .must = true };

		f = good;
		f.d[0] ^= 0xff;
		send_forged(&b, &f);
		f = good;
		f.d[2] ^= 0x7f;
		send_forged(&b, &f);
		finish(&b);
	}
	{
		struct batch b = { .what = "truncated wire handles",
				   .must = true };

		for (k = 1; k < good.len; k++) {
			f = good;
			f.len = good.len - k;
			send_forged(&b, &f);
		}
		finish(&b);
	}
	if (strict) {
		struct batch b = {
			.what = "FSAL part truncated/extended, header consistent",
			.must = true
		};

		for (k = 1; k <= fs_len; k++) {
			f = good;
			f.d[4] = fs_len - k;
			f.len = HDR + fs_len - k;
			send_forged(&b, &f);
		}
		for (k = fs_len + 1; HDR + k <= FH4MAX && k < 256; k++) {
			f = good;
			f.d[4] = k;
			for (i = HDR + fs_len; i < HDR + k; i++)
				f.d[i] = (unsigned char)(i * 11 + 3);
			f.len = HDR + k;
			send_forged(&b, &f);
		}
		finish(&b);
	}
	{
		struct batch b = {
			.what = "oversized wire handles (fs_len unchanged)",
			.must = true
		};

		for (k = good.len + 1; k <= FH4MAX; k += 7) {
			f = good;
			memset(f.d + good.len, 0xab, k - good.len);
			f.len = k;
			send_forged(&b, &f);
		}
		finish(&b);
	}
	{
		struct batch b1 = { .what = "random garbage handles",
				    .must = true };
		struct batch b2 = {
			.what = "random FSAL part behind a valid header",
			.must = strict
		};

		for (k = 0; k < 200; k++) {
			f.len = 1 + rnd() % FH4MAX;
			for (i = 0; i < f.len; i++)
				f.d[i] = rnd();
			if (f.d[0] == good.d[0])
				f.d[0] ^= 0x80;
			send_forged(&b1, &f);
		}
		finish(&b1);
		for (k = 0; k < 200; k++) {
			unsigned fl =
				k % 2 ? fs_len : 1 + rnd() % (FH4MAX - HDR);

			memcpy(f.d, good.d, HDR);
			f.d[4] = fl;
			f.len = HDR + fl;
			for (i = HDR; i < f.len; i++)
				f.d[i] = rnd();
			send_forged(&b2, &f);
		}
		finish(&b2);
	}
	{
		/* Zero-length handle: XDR-valid, refused by ganesha. */
		struct batch b = { .what = "zero-length handle", .must = true };

		f.len = 0;
		send_forged(&b, &f);
		finish(&b);
	}
	rpc_destroy_context(rpc);
	tc_ok(it_ping(&c3), "server answers NULL (NFSv3) at the end");
	it_expect_st(nfsc_remove(&c3, &c3.root, name), "REMOVE the file",
		     NFS3_OK, IT_END);
	nfsc_disconnect(&c3);
	return it_summary("it_fh4");
}
