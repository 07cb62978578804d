// SPDX-License-Identifier: LGPL-3.0-or-later
/* ft_handles: hostile file handles against a live server.
 *
 * ft_handles [-H host -p nfsport -M mntport] -e export [-N count] [-S seed] [-v]
 * Sends -N (100000) requests with random, truncated, oversized and forged handles through
 * the libnfs raw API: GETATTR, READ, WRITE, LOOKUP (hostile directory handle) and COMMIT,
 * 64 in flight. Forged = a valid handle of the export with one byte of the FSAL's part flipped
 * (MAC tag or body). Every answer must be NFS3ERR_BADHANDLE or NFS3ERR_STALE; after every
 * 1000 a normal GETATTR and READ of the valid handle must answer OK with the right data.
 * Handles longer than NFS3_FHSIZE (64) cannot be encoded by libnfs: a further -O (2000) of
 * those go over a raw TCP socket (hand-made RPC); they must get GARBAGE_ARGS or
 * BADHANDLE/STALE. Prints the counts per class and status; exit 0 pass, 1 fail, 2 setup.
 */
#include "ftlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { K_RANDOM, K_TRUNC, K_FORGED_BODY, K_FORGED_MAC, K_OVERSIZED, K_NCLASS };
static const char *kname[] = { "random", "truncated", "forged_body",
			       "forged_mac", "oversized" };
enum { OP_GETATTR, OP_READ, OP_WRITE, OP_LOOKUP, OP_COMMIT, OP_N };
static const char *opname[] = { "GETATTR", "READ", "WRITE", "LOOKUP",
				"COMMIT" };

#define GSH_HDR \
	5 /* ganesha's file_handle_v3: version, flags, export id (2), fs_len */
#define TAG 16
#define INFLIGHT 64

static struct nfsc_opts g_o = { "127.0.0.1", 12049, 12050, NULL };
static uint64_t g_rs = 0x1234567;
static unsigned long long cnt[K_NCLASS][OP_N][3]; /* badhandle, stale, other */
static unsigned long long g_bad, g_rpcerr, g_checks, g_checks_failed;

static uint64_t rnd(void)
{
	g_rs ^= g_rs << 13;
	g_rs ^= g_rs >> 7;
	g_rs ^= g_rs << 17;
	return g_rs;
}

struct req {
	struct nfsc_call k;
	struct nfsc_fh fh;
	int cls, op, busy;
};

static void make_handle(int cls, const struct nfsc_fh *valid,
			struct nfsc_fh *out)
{
	/* the FSAL's part is fs_len bytes: ganesha pads the handle to a
	 * multiple of 4 after it */
	unsigned fsal_len = valid->len > GSH_HDR ? valid->len - GSH_HDR : 0;

	if (fsal_len > valid->data[4])
		fsal_len = valid->data[4];

	switch (cls) {
	case K_RANDOM:
		out->len = 1 + rnd() % FT_FHMAX;
		for (unsigned i = 0; i < out->len; i++)
			out->data[i] = (unsigned char)rnd();
		if (rnd() % 2) {
			/* plausible ganesha header, random FSAL part */
			memcpy(out->data, valid->data,
			       GSH_HDR < out->len ? GSH_HDR : out->len);
			if (out->len > GSH_HDR)
				out->data[4] =
					(unsigned char)(out->len - GSH_HDR);
		}
		break;
	case K_TRUNC:
		*out = *valid;
		out->len = rnd() % valid->len;
		if (out->len > GSH_HDR && rnd() % 2)
			out->data[4] =
				(unsigned char)(out->len -
						GSH_HDR); /* consistent fs_len */
		break;
	case K_FORGED_BODY:
	case K_FORGED_MAC: {
		unsigned lo, n, pos;

		*out = *valid;
		if (cls == K_FORGED_MAC) {
			lo = GSH_HDR + fsal_len - TAG;
			n = TAG;
		} else {
			lo = GSH_HDR;
			n = fsal_len > TAG ? fsal_len - TAG : 1;
		}
		pos = lo + rnd() % n;
		out->data[pos] ^= (unsigned char)(1 + rnd() % 255);
		break;
	}
	case K_OVERSIZED:
		*out = *valid;
		out->len = valid->len + 1 + rnd() % (FT_FHMAX - valid->len);
		for (unsigned i = valid->len; i < out->len; i++)
			out->data[i] = (unsigned char)rnd();
		if (rnd() % 2)
			out->data[4] = (unsigned char)(out->len - GSH_HDR);
		break;
	}
}

static int issue(struct nfsc_conn *c, struct req *r)
{
	static char wbuf[16] = "hostile-handle!";
	nfs_fh3 fh;

	nfsc_fh_to3(&r->fh, &fh);
	memset(&r->k, 0, sizeof(r->k));
	switch (r->op) {
	case OP_GETATTR: {
		GETATTR3args a = { .object = fh };
		return rpc_nfs3_getattr_async(c->rpc, nfsc_call_cb, &a, &r->k);
	}
	case OP_READ: {
		READ3args a = { .file = fh, .offset = 0, .count = 4096 };
		return rpc_nfs3_read_async(c->rpc, nfsc_call_cb, &a, &r->k);
	}
	case OP_WRITE: {
		WRITE3args a = { .file = fh,
				 .offset = 0,
				 .count = sizeof(wbuf),
				 .stable = UNSTABLE };

		a.data.data_len = sizeof(wbuf);
		a.data.data_val = wbuf;
		return rpc_nfs3_write_async(c->rpc, nfsc_call_cb, &a, &r->k);
	}
	case OP_LOOKUP: {
		LOOKUP3args a;

		a.what.dir = fh;
		a.what.name = "x";
		return rpc_nfs3_lookup_async(c->rpc, nfsc_call_cb, &a, &r->k);
	}
	default: {
		COMMIT3args a = { .file = fh, .offset = 0, .count = 0 };
		return rpc_nfs3_commit_async(c->rpc, nfsc_call_cb, &a, &r->k);
	}
	}
}

static void account(struct req *r, int verbose)
{
	int st = r->k.st;
	int slot = st == NFS3ERR_BADHANDLE ? 0 : st == NFS3ERR_STALE ? 1 : 2;

	cnt[r->cls][r->op][slot]++;
	if (st == -1)
		g_rpcerr++;
	if (slot == 2) {
		g_bad++;
		if (verbose || g_bad <= 10) {
			char hex[2 * FT_FHMAX + 1];

			fprintf(stderr,
				"ft_handles: %s %s handle (len %u %s) answered %s\n",
				opname[r->op], kname[r->cls], r->fh.len,
				nfsc_fh_hex(&r->fh, hex, sizeof(hex)),
				nfsc_st(st));
		}
	}
}

static int check_normal(struct nfsc_conn *c, const struct nfsc_fh *valid,
			uint64_t seed)
{
	fattr3 at;
	unsigned char buf[4096], want[4096];
	uint32_t got = 0;
	bool eof;
	int st;

	g_checks++;
	st = nfsc_getattr(c, valid, &at);
	if (st != NFS3_OK) {
		fprintf(stderr, "ft_handles: normal GETATTR answered %s %s\n",
			nfsc_st(st), c->err);
		g_checks_failed++;
		return -1;
	}
	st = nfsc_read(c, valid, 0, sizeof(buf), buf, &got, &eof);
	ft_pattern_fill(seed, 0, want, sizeof(want));
	if (st != NFS3_OK || got != sizeof(buf) ||
	    memcmp(buf, want, sizeof(buf))) {
		fprintf(stderr,
			"ft_handles: normal READ answered %s (%u bytes)\n",
			nfsc_st(st), got);
		g_checks_failed++;
		return -1;
	}
	return 0;
}

/* ---- raw RPC for handles longer than NFS3_FHSIZE ---- */

static size_t put32(unsigned char *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
	return 4;
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static int read_full(int fd, unsigned char *p, size_t n)
{
	while (n) {
		ssize_t r = read(fd, p, n);

		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

struct raw_counts {
	unsigned long long sent, garbage, badhandle, stale, other, closed;
};

static int raw_oversized(int count, const struct nfsc_fh *valid,
			 struct raw_counts *rc)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(g_o.nfsport) };
	int fd = -1;
	unsigned char msg[2048], rep[4096];

	inet_pton(AF_INET, g_o.host, &sa.sin_addr);
	for (int i = 0; i < count; i++) {
		size_t n = 4;
		uint32_t fhlen = 65 + rnd() % 448, xid = 0x77000000u + i,
			 proc = 1 + rnd() % 2;
		uint32_t len;

		if (fd < 0) {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) !=
			    0) {
				fprintf(stderr, "ft_handles: raw connect: %s\n",
					strerror(errno));
				close(fd);
				return -1;
			}
		}
		n += put32(msg + n, xid);
		n += put32(msg + n, 0); /* CALL */
		n += put32(msg + n, 2); /* RPC version */
		n += put32(msg + n, 100003); /* NFS */
		n += put32(msg + n, 3);
		n += put32(msg + n, proc); /* 1 GETATTR, 2 SETATTR */
		n += put32(msg + n, 1); /* AUTH_SYS */
		n += put32(msg + n,
			   24); /* stamp, "ft"(4+4), uid, gid, 0 gids */
		n += put32(msg + n, 0);
		n += put32(msg + n, 2);
		memcpy(msg + n, "ft\0\0", 4);
		n += 4;
		n += put32(msg + n, 0);
		n += put32(msg + n, 0);
		n += put32(msg + n, 0);
		n += put32(msg + n, 0); /* verifier AUTH_NONE */
		n += put32(msg + n, 0);
		n += put32(msg + n, fhlen);
		memcpy(msg + n, valid->data, valid->len);
		for (uint32_t j = valid->len; j < (fhlen + 3) / 4 * 4; j++)
			msg[n + j] = j < fhlen ? (unsigned char)rnd() : 0;
		n += (fhlen + 3) / 4 * 4;
		if (proc == 2) {
			for (int j = 0; j < 7;
			     j++) /* sattr3 all "don't set" + guard false */
				n += put32(msg + n, 0);
		}
		put32(msg, 0x80000000u | (uint32_t)(n - 4));
		rc->sent++;
		if (write(fd, msg, n) != (ssize_t)n ||
		    read_full(fd, rep, 4) != 0) {
			rc->closed++;
			close(fd);
			fd = -1;
			continue;
		}
		len = get32(rep) & 0x7fffffffu;
		if (len > sizeof(rep) || len < 12 ||
		    read_full(fd, rep, len) != 0) {
			rc->closed++;
			close(fd);
			fd = -1;
			continue;
		}
		if (get32(rep) != xid || get32(rep + 4) != 1 ||
		    get32(rep + 8) != 0) {
			if (rc->other++ < 3)
				fprintf(stderr,
					"ft_handles: raw reply xid %08x type %u stat %u\n",
					get32(rep), get32(rep + 4),
					get32(rep + 8));
			continue;
		}
		{
			uint32_t vlen = get32(rep + 16);
			size_t o = 20 + (vlen + 3) / 4 * 4;
			uint32_t acc = o + 4 <= len ? get32(rep + o) : 99;

			if (acc == 4) {
				rc->garbage++;
			} else if (acc == 0 && o + 8 <= len) {
				uint32_t st = get32(rep + o + 4);

				if (st == NFS3ERR_BADHANDLE)
					rc->badhandle++;
				else if (st == NFS3ERR_STALE)
					rc->stale++;
				else if (rc->other++ < 3)
					fprintf(stderr,
						"ft_handles: raw oversized handle: status %u\n",
						st);
			} else if (rc->other++ < 3) {
				fprintf(stderr,
					"ft_handles: raw oversized handle: accept_stat %u\n",
					acc);
			}
		}
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct nfsc_conn c;
	struct nfsc_fh valid, root;
	struct req *reqs = calloc(INFLIGHT, sizeof(*reqs));
	struct raw_counts raw = { 0 };
	unsigned char data[8192];
	long total = 100000, sent = 0, answered = 0;
	int opt, verbose = 0, oversized_raw = 2000, st;
	uint64_t seed, t0;

	while ((opt = getopt(argc, argv, FT_COMMON_OPTS "N:S:O:v")) != -1) {
		if (ft_common_opt(&g_o, opt, optarg))
			continue;
		switch (opt) {
		case 'N':
			total = atol(optarg);
			break;
		case 'S':
			g_rs = strtoull(optarg, NULL, 0) | 1;
			break;
		case 'O':
			oversized_raw = atoi(optarg);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			ft_die("usage: ft_handles -e export [-N count] [-O raw] [-S seed] [-v]");
		}
	}
	if (!g_o.export)
		ft_die("ft_handles: -e export required");
	if (ft_connect(&c, &g_o) != 0)
		ft_die("ft_handles: connect: %s", c.err);
	root = c.root;
	st = ft_create(&c, &root, "ft_handles_target", &valid);
	if (st != NFS3_OK)
		ft_die("ft_handles: create: %s", nfsc_st(st));
	seed = ft_seed("ft_handles_target");
	ft_pattern_fill(seed, 0, data, sizeof(data));
	st = nfsc_write(&c, &valid, 0, data, sizeof(data), FILE_SYNC, NULL,
			NULL, NULL);
	if (st != NFS3_OK)
		ft_die("ft_handles: write: %s", nfsc_st(st));
	if (valid.len <= GSH_HDR + TAG || valid.data[4] > valid.len - GSH_HDR ||
	    (unsigned)valid.data[4] + GSH_HDR + 3 < valid.len)
		fprintf(stderr,
			"ft_handles: note: handle layout unexpected (len %u, fs_len %u)\n",
			valid.len, valid.data[4]);
	if (check_normal(&c, &valid, seed) != 0)
		ft_die("ft_handles: the valid handle does not work");
	t0 = nfsc_now_ms();
	c.timeout_ms = 30000;
	while (answered < total && !c.dead) {
		uint64_t deadline;

		for (int i = 0; i < INFLIGHT && sent < total; i++) {
			struct req *r = &reqs[i];

			if (r->busy)
				continue;
			r->cls = (int)(sent % K_NCLASS);
			r->op = (int)((sent / K_NCLASS) % OP_N);
			make_handle(r->cls,
				    r->cls == K_TRUNC && r->op == OP_LOOKUP
					    ? &root
					    : &valid,
				    &r->fh);
			if (r->cls == K_TRUNC && r->op == OP_LOOKUP &&
			    root.len == 0)
				make_handle(r->cls, &valid, &r->fh);
			if (issue(&c, r) != 0) {
				fprintf(stderr,
					"ft_handles: could not queue: %s\n",
					rpc_get_error(c.rpc));
				g_rpcerr++;
				sent++;
				answered++;
				continue;
			}
			r->busy = 1;
			sent++;
			/* the normal request after every 1000: drain, then check */
			if (sent % 1000 == 0)
				break;
		}
		deadline = nfsc_now_ms() + 30000;
		for (;;) {
			int busy = 0;

			nfsc_pump(&c, 20);
			for (int i = 0; i < INFLIGHT; i++) {
				if (reqs[i].busy && reqs[i].k.done) {
					reqs[i].busy = 0;
					answered++;
					account(&reqs[i], verbose);
				}
				busy += reqs[i].busy;
			}
			if (c.dead || (sent % 1000 != 0 && busy < INFLIGHT) ||
			    busy == 0)
				break;
			if (nfsc_now_ms() > deadline) {
				fprintf(stderr,
					"ft_handles: no replies for 30 s (%d pending)\n",
					busy);
				c.dead = 1;
				break;
			}
		}
		if (sent % 1000 == 0 && answered == sent)
			check_normal(&c, &valid, seed);
	}
	if (c.dead) {
		fprintf(stderr,
			"ft_handles: connection lost after %ld answers: %s\n",
			answered, c.err);
		g_bad++;
	}
	if (oversized_raw > 0 &&
	    raw_oversized(oversized_raw, &valid, &raw) != 0)
		g_bad++;
	if (!c.dead && check_normal(&c, &valid, seed) != 0)
		g_bad++;

	printf("%-12s %-8s %10s %10s %8s\n", "class", "op", "BADHANDLE",
	       "STALE", "other");
	for (int k = 0; k < K_NCLASS; k++)
		for (int o = 0; o < OP_N; o++)
			printf("%-12s %-8s %10llu %10llu %8llu\n", kname[k],
			       opname[o], cnt[k][o][0], cnt[k][o][1],
			       cnt[k][o][2]);
	{
		unsigned long long bh = 0, stl = 0;

		for (int k = 0; k < K_NCLASS; k++)
			for (int o = 0; o < OP_N; o++) {
				bh += cnt[k][o][0];
				stl += cnt[k][o][1];
			}
		printf("raw >64-byte handles: sent=%llu garbage_args=%llu badhandle=%llu stale=%llu "
		       "other=%llu connection_closed=%llu\n",
		       raw.sent, raw.garbage, raw.badhandle, raw.stale,
		       raw.other, raw.closed);
		printf("ft_handles: sent=%ld answered=%ld rejected=%llu badhandle=%llu stale=%llu "
		       "wrong_answers=%llu rpc_errors=%llu normal_checks=%llu normal_failed=%llu "
		       "raw_oversized_rejected=%llu/%llu secs=%.1f\n",
		       sent, answered, bh + stl, bh, stl, g_bad, g_rpcerr,
		       g_checks, g_checks_failed,
		       raw.garbage + raw.badhandle + raw.stale, raw.sent,
		       (nfsc_now_ms() - t0) / 1000.0);
	}
	nfsc_remove(&c, &root, "ft_handles_target");
	nfsc_disconnect(&c);
	free(reqs);
	if (g_bad || g_checks_failed || answered != total || raw.other ||
	    raw.garbage + raw.badhandle + raw.stale + raw.closed != raw.sent)
		return 1;
	return 0;
}
