// SPDX-License-Identifier: LGPL-3.0-or-later
/* dcbench: NFSv3 load generator on libnfs's raw async API.
 *
 * Writers: one libnfs context (its own TCP connection, its own client) and one
 * file each, `qd` WRITEs outstanding, COMMIT every N acknowledged unstable bytes
 * and at the end; unstable writes are remembered with their verifier until a
 * COMMIT covers them, and resent when the COMMIT's verifier differs.
 * Readers: own connections, random (or sequential) READs over a hot set of files,
 * optionally rate limited. One poll loop services every context.
 * See bench/README.md. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include <inttypes.h>
#include <sys/stat.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>

#include "opts.h"
#include "stats.h"
#include "hist.h"
#include "sampler.h"
#include "report.h"

/* libnfs 4.0 keeps struct nfs_fh private; its layout (libnfs-private.h) is: */
struct dcb_libnfs_fh {
	int len;
	char *val;
};

struct span {
	uint64_t off;
	uint32_t len;
	uint8_t resend;
};
struct pending {
	uint64_t off;
	uint32_t len;
	char verf[NFS3_WRITEVERFSIZE];
};

struct conn;
struct req {
	struct conn *c;
	int op;
	uint64_t off;
	uint32_t len;
	uint8_t resend;
	size_t commit_snap; /* COMMIT: pending entries it covers */
	uint64_t t0;
	union {
		WRITE3args w;
		COMMIT3args c;
		READ3args r;
	} a;
};

struct conn {
	int id, role, url;
	struct nfs_context *nfs;
	struct rpc_context *rpc;
	char fname[128];
	nfs_fh3 fh; /* writer file */
	nfs_fh3 *hot; /* reader: hot-set handles */
	int inflight;
	int failed;
	int finished;
	/* writer */
	uint64_t issued, nblocks, blk_i, perm_a, perm_b;
	int done_issuing;
	int commit_inflight;
	int final_commit_sent;
	uint64_t acked_since_commit;
	struct pending *pw;
	size_t npw, cappw;
	struct span *rq;
	size_t nrq, caprq;
	char verf[NFS3_WRITEVERFSIZE];
	int have_verf;
	uint64_t pause_until;
	uint64_t verf_changes;
	/* reader */
	double next_issue_ns;
	uint64_t seq_pos;
	uint64_t rng;
};

static struct dcb_opts O;
static struct dcb_results R;
static struct conn *C;
static int NC;
static char *wbuf;
static uint64_t T0;
static volatile sig_atomic_t interrupted;
static int
	shutting_down; /* contexts being destroyed: cancelled requests are not errors */

static uint64_t rel_now(void)
{
	return dcb_now_ns() - T0;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void die(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "dcbench: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(2);
}

static void conn_fail(struct conn *c, const char *why)
{
	if (!c->failed)
		fprintf(stderr, "dcbench: connection %d: %s\n", c->id, why);
	c->failed = 1;
	c->done_issuing = 1;
}

static void push_span(struct conn *c, uint64_t off, uint32_t len, int resend)
{
	if (c->nrq == c->caprq) {
		c->caprq = c->caprq ? c->caprq * 2 : 64;
		c->rq = realloc(c->rq, c->caprq * sizeof(*c->rq));
		if (!c->rq)
			die("%s%s", "out of memory", "");
	}
	c->rq[c->nrq++] = (struct span){ off, len, (uint8_t)resend };
}

static void push_pending(struct conn *c, uint64_t off, uint32_t len,
			 const char *verf)
{
	if (c->npw == c->cappw) {
		c->cappw = c->cappw ? c->cappw * 2 : 256;
		c->pw = realloc(c->pw, c->cappw * sizeof(*c->pw));
		if (!c->pw)
			die("%s%s", "out of memory", "");
	}
	struct pending *p = &c->pw[c->npw++];
	p->off = off;
	p->len = len;
	memcpy(p->verf, verf, NFS3_WRITEVERFSIZE);
}

static void note_verf(struct conn *c, const char *verf)
{
	if (c->have_verf && memcmp(c->verf, verf, NFS3_WRITEVERFSIZE)) {
		R.verf_changes++;
		c->verf_changes++;
	}
	memcpy(c->verf, verf, NFS3_WRITEVERFSIZE);
	c->have_verf = 1;
}

static void pump(struct conn *c);

/* Common start of every RPC callback: returns the connection, or NULL when the
 * reply is not to be looked at (shutting down, or the RPC itself failed: the
 * connection is marked failed). Either way the request is freed on NULL. */
static struct conn *reply_begin(struct req *q, int status, void *data,
				const char *op, bool commit)
{
	char what[32];
	struct conn *c;

	if (shutting_down) {
		free(q);
		return NULL;
	}
	c = q->c;
	c->inflight--;
	if (commit)
		c->commit_inflight = 0;
	if (status == RPC_STATUS_SUCCESS)
		return c;
	R.rpc_errors++;
	snprintf(what, sizeof(what), "%s %s", op,
		 status == RPC_STATUS_TIMEOUT ? "timed out" : "rpc failed");
	conn_fail(c, status == RPC_STATUS_ERROR && data ? (char *)data : what);
	free(q);
	return NULL;
}

static void write_cb(struct rpc_context *rpc, int status, void *data,
		     void *priv)
{
	(void)rpc;
	struct req *q = priv;
	uint64_t now = rel_now();
	struct conn *c = reply_begin(q, status, data, "WRITE", false);
	if (c == NULL)
		return;
	WRITE3res *res = data;
	if (res->status != NFS3_OK) {
		dcb_account_nfs_error(&R, c->id, res->status);
		if (res->status == NFS3ERR_JUKEBOX) {
			R.jukebox_retries++;
			push_span(c, q->off, q->len, q->resend);
			c->pause_until = now + 10000000ULL;
		} else {
			conn_fail(c, dcb_nfs_status_name(res->status));
		}
		free(q);
		return;
	}
	WRITE3resok *ok = &res->WRITE3res_u.resok;
	uint32_t n = ok->count;
	if (n > q->len)
		n = q->len;
	dcb_account(&R, c->id, OP_WRITE, n, now, now - q->t0);
	if (q->resend)
		R.bytes_resent += n;
	else
		R.bytes_written += n;
	if (n < q->len) {
		R.short_writes++;
		if (n == 0)
			conn_fail(c, "server accepted 0 bytes of a WRITE");
		else
			push_span(c, q->off + n, q->len - n, q->resend);
	}
	note_verf(c, ok->verf);
	if (O.stable && ok->committed == UNSTABLE)
		R.stability_downgrades++;
	if (ok->committed == UNSTABLE && n) {
		push_pending(c, q->off, n, ok->verf);
		c->acked_since_commit += n;
	}
	if (now > R.end_ns)
		R.end_ns = now;
	free(q);
	pump(c);
}

static void commit_cb(struct rpc_context *rpc, int status, void *data,
		      void *priv)
{
	(void)rpc;
	struct req *q = priv;
	uint64_t now = rel_now();
	struct conn *c = reply_begin(q, status, data, "COMMIT", true);
	if (c == NULL)
		return;
	COMMIT3res *res = data;
	size_t snap = q->commit_snap;
	if (snap > c->npw)
		snap = c->npw;
	if (res->status != NFS3_OK) {
		dcb_account_nfs_error(&R, c->id, res->status);
		if (res->status == NFS3ERR_JUKEBOX) {
			R.jukebox_retries++;
			c->pause_until = now + 10000000ULL;
			if (q->len == 0 && c->final_commit_sent)
				c->final_commit_sent =
					0; /* retry the final one */
			free(q);
			pump(c);
			return;
		}
		R.commit_failures++;
		/* The data it covered is not known to be durable: drop it from the
		 * bookkeeping, the failure is reported. */
	} else {
		dcb_account(&R, c->id, OP_COMMIT, 0, now, now - q->t0);
		const char *verf = res->COMMIT3res_u.resok.verf;
		note_verf(c, verf);
		for (size_t i = 0; i < snap; i++)
			if (memcmp(c->pw[i].verf, verf, NFS3_WRITEVERFSIZE)) {
				/* as a real client: the server lost or may have lost this unstable data */
				R.writes_resent++;
				push_span(c, c->pw[i].off, c->pw[i].len, 1);
			}
	}
	memmove(c->pw, c->pw + snap, (c->npw - snap) * sizeof(*c->pw));
	c->npw -= snap;
	if (c->final_commit_sent && (c->nrq || c->npw))
		c->final_commit_sent =
			0; /* resends pending: another final COMMIT follows them */
	if (c->final_commit_sent && !c->nrq && !c->npw && !c->inflight) {
		c->finished = 1;
		if (now > R.durable_ns)
			R.durable_ns = now;
	}
	free(q);
	pump(c);
}

static void read_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	(void)rpc;
	struct req *q = priv;
	uint64_t now = rel_now();
	struct conn *c = reply_begin(q, status, data, "READ", false);
	if (c == NULL)
		return;
	READ3res *res = data;
	if (res->status != NFS3_OK) {
		dcb_account_nfs_error(&R, c->id, res->status);
		if (res->status == NFS3ERR_JUKEBOX)
			c->pause_until = now + 10000000ULL;
		else
			conn_fail(c, dcb_nfs_status_name(res->status));
	} else {
		dcb_account(&R, c->id, OP_READ, res->READ3res_u.resok.count,
			    now, now - q->t0);
	}
	free(q);
	pump(c);
}

static struct req *new_req(struct conn *c, int op)
{
	struct req *q = calloc(1, sizeof(*q));
	if (!q)
		die("%s%s", "out of memory", "");
	q->c = c;
	q->op = op;
	return q;
}

static int send_write(struct conn *c, uint64_t off, uint32_t len, int resend)
{
	struct req *q = new_req(c, OP_WRITE);
	q->off = off;
	q->len = len;
	q->resend = (uint8_t)resend;
	q->a.w.file = c->fh;
	q->a.w.offset = off;
	q->a.w.count = len;
	q->a.w.stable = (stable_how)O.stable;
	q->a.w.data.data_len = len;
	q->a.w.data.data_val = wbuf;
	q->t0 = rel_now();
	if (rpc_nfs3_write_async(c->rpc, write_cb, &q->a.w, q)) {
		R.rpc_errors++;
		conn_fail(c, rpc_get_error(c->rpc));
		free(q);
		return -1;
	}
	c->inflight++;
	return 0;
}

static int send_commit(struct conn *c, int final)
{
	struct req *q = new_req(c, OP_COMMIT);
	q->commit_snap = c->npw;
	q->len = final ? 0 : 1;
	q->a.c.file = c->fh;
	q->a.c.offset = 0;
	q->a.c.count = 0; /* whole file, as Linux does */
	q->t0 = rel_now();
	if (rpc_nfs3_commit_async(c->rpc, commit_cb, &q->a.c, q)) {
		R.rpc_errors++;
		conn_fail(c, rpc_get_error(c->rpc));
		free(q);
		return -1;
	}
	c->inflight++;
	c->commit_inflight = 1;
	c->acked_since_commit = 0;
	if (final)
		c->final_commit_sent = 1;
	return 0;
}

static void next_block(struct conn *c, uint64_t *off, uint32_t *len)
{
	if (O.pattern == PAT_SEQ) {
		uint64_t pos = c->issued % O.size;
		uint64_t l = O.bs;
		if (pos + l > O.size)
			l = O.size - pos;
		if (!O.time_s && c->issued + l > O.size)
			l = O.size - c->issued;
		*off = pos;
		*len = (uint32_t)l;
	} else {
		/* a full-period permutation of the blocks: every block once per pass */
		uint64_t b = (c->perm_a * (c->blk_i % c->nblocks) + c->perm_b) %
			     c->nblocks;
		c->blk_i++;
		*off = b * O.bs;
		*len = (uint32_t)O.bs;
	}
	c->issued += *len;
}

static void pump_writer(struct conn *c, uint64_t now)
{
	if (c->failed || c->finished)
		return;
	if (now < c->pause_until)
		return;
	while (c->inflight - c->commit_inflight < O.qd) {
		if (c->nrq) {
			struct span s = c->rq[--c->nrq];
			if (send_write(c, s.off, s.len, s.resend))
				return;
			continue;
		}
		if (c->done_issuing)
			break;
		if (!O.time_s && c->issued >= O.size) {
			c->done_issuing = 1;
			break;
		}
		uint64_t off;
		uint32_t len;
		next_block(c, &off, &len);
		if (send_write(c, off, len, 0))
			return;
		if (O.time_s)
			R.bytes_asked += len;
	}
	if (O.commit_every && !c->commit_inflight &&
	    c->acked_since_commit >= O.commit_every && !c->done_issuing) {
		if (send_commit(c, 0))
			return;
	}
	if (c->done_issuing && !c->nrq && c->inflight == 0 &&
	    !c->final_commit_sent) {
		if (O.final_commit && (c->npw || O.stable == 0)) {
			send_commit(c, 1);
		} else if (!c->npw) {
			c->finished = 1;
			if (now > R.durable_ns)
				R.durable_ns = now;
		} else {
			/* no final COMMIT asked: unstable data stays uncommitted, by request */
			c->finished = 1;
		}
	}
}

static void pump_reader(struct conn *c, uint64_t now)
{
	if (c->failed || c->finished || now < c->pause_until)
		return;
	uint64_t nb = O.hot_size / O.read_bs;
	while (c->inflight < O.read_qd && !c->done_issuing) {
		if (O.read_iops > 0) {
			if ((double)now < c->next_issue_ns)
				break;
			double step = 1e9 / O.read_iops;
			c->next_issue_ns += step;
			if (c->next_issue_ns <
			    (double)now - 1e9) /* do not burst to catch up */
				c->next_issue_ns = (double)now;
		}
		int f;
		uint64_t off;
		if (O.read_pattern == PAT_RAND) {
			f = (int)(xorshift(&c->rng) % O.hot_files);
			off = (xorshift(&c->rng) % nb) * O.read_bs;
		} else {
			uint64_t blk = c->seq_pos++ % (nb * O.hot_files);
			f = (int)(blk / nb);
			off = (blk % nb) * O.read_bs;
		}
		struct req *q = new_req(c, OP_READ);
		q->a.r.file = c->hot[f];
		q->a.r.offset = off;
		q->a.r.count = (count3)O.read_bs;
		q->t0 = now;
		if (rpc_nfs3_read_async(c->rpc, read_cb, &q->a.r, q)) {
			R.rpc_errors++;
			conn_fail(c, rpc_get_error(c->rpc));
			free(q);
			return;
		}
		c->inflight++;
	}
	if (c->done_issuing && c->inflight == 0)
		c->finished = 1;
}

static void pump(struct conn *c)
{
	uint64_t now = rel_now();
	if (c->role == ROLE_WRITER)
		pump_writer(c, now);
	else
		pump_reader(c, now);
}

static void copy_fh(nfs_fh3 *dst, struct nfsfh *fh)
{
	struct dcb_libnfs_fh *f = (struct dcb_libnfs_fh *)nfs_get_fh(fh);
	if (!f || f->len <= 0 || f->len > 128)
		die("%s%s", "unexpected libnfs file handle layout", "");
	dst->data.data_len = (u_int)f->len;
	dst->data.data_val = malloc(f->len);
	memcpy(dst->data.data_val, f->val, f->len);
}

static struct nfs_context *connect_url(const char *url, uint64_t *wmax,
				       uint64_t *rmax)
{
	struct nfs_context *nfs = nfs_init_context();
	if (!nfs)
		die("%s%s", "nfs_init_context failed", "");
	nfs_set_timeout(nfs, (int)(O.rpc_timeout_s * 1000));
	struct nfs_url *u = nfs_parse_url_dir(nfs, url);
	if (!u)
		die("bad URL %s: %s", url, nfs_get_error(nfs));
	if (nfs_mount(nfs, u->server, u->path))
		die("mount %s failed: %s", url, nfs_get_error(nfs));
	nfs_destroy_url(u);
	if (wmax)
		*wmax = nfs_get_writemax(nfs);
	if (rmax)
		*rmax = nfs_get_readmax(nfs);
	return nfs;
}

/* Creates the hot files that are missing or short, through NFS. */
static void prepare_hot(struct nfs_context *nfs)
{
	char path[200];
	for (int i = 0; i < O.hot_files; i++) {
		struct nfs_stat_64 st;
		snprintf(path, sizeof(path), "/%s.%d", O.hot_prefix, i);
		if (nfs_stat64(nfs, path, &st) == 0 &&
		    st.nfs_size >= O.hot_size)
			continue;
		struct nfsfh *fh;
		if (nfs_creat(nfs, path, 0644, &fh))
			die("create %s: %s", path, nfs_get_error(nfs));
		uint64_t chunk = 1 << 20, wm = nfs_get_writemax(nfs);
		if (wm && chunk > wm)
			chunk = wm;
		for (uint64_t off = 0; off < O.hot_size; off += chunk) {
			uint64_t l = O.hot_size - off < chunk ? O.hot_size - off
							      : chunk;
			if (nfs_pwrite(nfs, fh, off, l, wbuf) != (int)l)
				die("write %s: %s", path, nfs_get_error(nfs));
		}
		nfs_fsync(nfs, fh);
		nfs_close(nfs, fh);
	}
}

static void warm_hot(struct nfs_context *nfs, nfs_fh3 *hot)
{
	(void)hot;
	char path[200];
	uint64_t chunk = nfs_get_readmax(nfs);
	if (!chunk || chunk > (1 << 20))
		chunk = 1 << 20;
	char *buf = malloc(chunk);
	for (int i = 0; i < O.hot_files; i++) {
		struct nfsfh *fh;
		snprintf(path, sizeof(path), "/%s.%d", O.hot_prefix, i);
		if (nfs_open(nfs, path, O_RDONLY, &fh))
			die("open %s: %s", path, nfs_get_error(nfs));
		for (uint64_t off = 0; off < O.hot_size; off += chunk)
			if (nfs_pread(nfs, fh, off, chunk, buf) < 0)
				die("read %s: %s", path, nfs_get_error(nfs));
		nfs_close(nfs, fh);
	}
	free(buf);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static void on_signal(int s)
{
	(void)s;
	interrupted = 1;
}

static void print_tick(int sec, struct dcb_sampler *sp)
{
	struct dcb_tl *t = sec - 1 < R.ntl ? &R.tl[sec - 1] : NULL;
	struct dcb_sample s;
	int have = dcb_sampler_latest(sp, &s);
	double iv = R.tl_ns / 1e9;
	fprintf(stderr, "%gs: %.1f MB/s write (%" PRIu64 " ops, max %.1f ms)",
		sec * iv, t ? t->bytes[OP_WRITE] / 1e6 / iv : 0.0,
		t ? t->ops[OP_WRITE] : 0,
		t ? t->lat_max_ns[OP_WRITE] / 1e6 : 0.0);
	if (O.readers)
		fprintf(stderr, ", %.1f MB/s read (%" PRIu64 " ops)",
			t ? t->bytes[OP_READ] / 1e6 / iv : 0.0,
			t ? t->ops[OP_READ] : 0);
	if (t && t->ops[OP_COMMIT])
		fprintf(stderr, ", %" PRIu64 " commits (max %.1f ms)",
			t->ops[OP_COMMIT], t->lat_max_ns[OP_COMMIT] / 1e6);
	if (have) {
		fprintf(stderr, " | Cached %.0f Dirty %.0f WB %.0f MiB",
			s.cached_kib / 1024.0, s.dirty_kib / 1024.0,
			s.writeback_kib / 1024.0);
		if (s.cg_cache_kib >= 0)
			fprintf(stderr, ", cg cache %.0f MiB",
				s.cg_cache_kib / 1024.0);
		fprintf(stderr, ", files %.0f MiB",
			s.files_resident_kib / 1024.0);
		if (s.hot_resident_pct >= 0)
			fprintf(stderr, ", hot %.0f%%", s.hot_resident_pct);
		if (s.server_cpu_pct >= 0)
			fprintf(stderr, ", srv %.0f%%", s.server_cpu_pct);
		if (s.server_rss_kib >= 0)
			fprintf(stderr, " rss %.0f MiB",
				s.server_rss_kib / 1024.0);
		if (s.kswapd_cpu_pct >= 0)
			fprintf(stderr, ", kswapd %.0f%%", s.kswapd_cpu_pct);
	}
	fputc('\n', stderr);
}

static void print_summary(uint64_t end, uint64_t dend)
{
	const struct hist *w = &R.lat[OP_WRITE], *cm = &R.lat[OP_COMMIT],
			  *rd = &R.lat[OP_READ];
	fprintf(stderr,
		"write: %.1f MB/s (%.1f MB/s to durable), %.0f IOPS, %" PRIu64
		"/%" PRIu64
		" bytes written, lat us p50 %.0f p99 %.0f p99.9 %.0f max %.0f\n",
		dcb_rate_mbps(&R, OP_WRITE, end),
		dcb_rate_mbps(&R, OP_WRITE, dend),
		dcb_rate_iops(&R, OP_WRITE, end), R.bytes_written,
		R.bytes_asked, hist_percentile(w, 50) / 1e3,
		hist_percentile(w, 99) / 1e3, hist_percentile(w, 99.9) / 1e3,
		w->max / 1e3);
	if (cm->count)
		fprintf(stderr,
			"commit: %" PRIu64
			" ops, lat us p50 %.0f p99 %.0f max %.0f\n",
			cm->count, hist_percentile(cm, 50) / 1e3,
			hist_percentile(cm, 99) / 1e3, cm->max / 1e3);
	if (rd->count)
		fprintf(stderr,
			"read: %.1f MB/s, %.0f IOPS, lat us p50 %.0f p99 %.0f p99.9 %.0f max %.0f\n",
			dcb_rate_mbps(&R, OP_READ, end),
			dcb_rate_iops(&R, OP_READ, end),
			hist_percentile(rd, 50) / 1e3,
			hist_percentile(rd, 99) / 1e3,
			hist_percentile(rd, 99.9) / 1e3, rd->max / 1e3);
	fprintf(stderr,
		"verifier changes %" PRIu64 ", writes resent %" PRIu64
		", rpc errors %" PRIu64 ", nfs errors %" PRIu64 "\n",
		R.verf_changes, R.writes_resent, R.rpc_errors,
		dcb_nfs_errors_total(&R));
}

int main(int argc, char **argv)
{
	char err[512];
	dcb_opts_defaults(&O);
	int rc = dcb_opts_parse(&O, argc, argv, err, sizeof(err));
	if (rc == 1) {
		dcb_usage(stdout);
		return 0;
	}
	if (rc) {
		fprintf(stderr, "dcbench: %s\n", err);
		dcb_usage(stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	uint64_t maxbuf = O.bs > (1 << 20) ? O.bs : (1 << 20);
	wbuf = malloc(maxbuf);
	uint64_t seed = O.seed ? O.seed : 1;
	for (uint64_t i = 0; i < maxbuf; i += 8) {
		uint64_t v = xorshift(&seed);
		memcpy(wbuf + i, &v, 8);
	}

	NC = O.conns + O.readers;
	C = calloc(NC, sizeof(*C));
	uint64_t wmax = 0, rmax = 0;
	struct dcb_conn_info *ci = calloc(NC, sizeof(*ci));

	/* hot set first (through a setup connection), warm it, then connect everyone */
	if (O.readers) {
		struct nfs_context *s = connect_url(O.urls[0], NULL, NULL);
		prepare_hot(s);
		if (O.hot_warm)
			warm_hot(s, NULL);
		nfs_destroy_context(s);
	}
	for (int i = 0; i < NC; i++) {
		struct conn *c = &C[i];
		c->id = i;
		c->role = i < O.conns ? ROLE_WRITER : ROLE_READER;
		c->url = c->role == ROLE_WRITER ? i % O.nurls : 0;
		c->rng =
			O.seed * 0x9E3779B97F4A7C15ULL + (uint64_t)i * 7919 + 1;
		c->nfs = connect_url(O.urls[c->url], &wmax, &rmax);
		if (c->role == ROLE_WRITER) {
			struct nfsfh *fh;
			snprintf(c->fname, sizeof(c->fname), "%s.%d", O.prefix,
				 i);
			char path[160];
			snprintf(path, sizeof(path), "/%s", c->fname);
			if (nfs_creat(c->nfs, path, 0644, &fh))
				die("create %s: %s", path,
				    nfs_get_error(c->nfs));
			if (nfs_ftruncate(c->nfs, fh, 0))
				die("truncate %s: %s", path,
				    nfs_get_error(c->nfs));
			copy_fh(&c->fh, fh);
			nfs_close(
				c->nfs,
				fh); /* NFSv3: the handle copy is all the raw calls need */
			if (O.bs > wmax && wmax)
				die("--bs is larger than the server's maximum write size (%s)%s",
				    "see FSINFO wtmax", "");
			if (O.pattern == PAT_RAND) {
				c->nblocks = O.size / O.bs;
				c->perm_a =
					(xorshift(&c->rng) % c->nblocks) | 1;
				while (gcd(c->perm_a, c->nblocks) != 1)
					c->perm_a++;
				c->perm_b = xorshift(&c->rng) % c->nblocks;
			}
		} else {
			c->hot = calloc(O.hot_files, sizeof(*c->hot));
			for (int f = 0; f < O.hot_files; f++) {
				struct nfsfh *fh;
				char path[160];
				snprintf(path, sizeof(path), "/%s.%d",
					 O.hot_prefix, f);
				if (nfs_open(c->nfs, path, O_RDONLY, &fh))
					die("open %s: %s", path,
					    nfs_get_error(c->nfs));
				copy_fh(&c->hot[f], fh);
				nfs_close(c->nfs, fh);
			}
			if (O.read_bs > rmax && rmax)
				die("--read-bs is larger than the server's maximum read size%s%s",
				    "", "");
		}
		c->rpc = nfs_get_rpc_context(c->nfs);
		ci[i].role = c->role;
		ci[i].url = c->url;
		ci[i].file = c->role == ROLE_WRITER ? c->fname : NULL;
	}

	T0 = dcb_now_ns();
	if (dcb_results_init(&R, NC, (uint64_t)(O.warmup_s * 1e9)))
		die("%s%s", "out of memory", "");
	R.tl_ns = (uint64_t)(O.interval_s * 1e9);
	if (!O.time_s)
		R.bytes_asked = (uint64_t)O.conns * O.size;

	struct dcb_sampler sp;
	dcb_sampler_init(&sp, T0, O.server_pid, O.cgroup_dir);
	sp.interval_ns = R.tl_ns;
	if (O.nserver_paths) {
		char p[1024];
		for (int i = 0; i < O.conns; i++) {
			snprintf(p, sizeof(p), "%s/%s",
				 O.server_paths[C[i].url], C[i].fname);
			dcb_sampler_add_file(&sp, p, 0);
		}
		if (O.readers)
			for (int f = 0; f < O.hot_files; f++) {
				snprintf(p, sizeof(p), "%s/%s.%d",
					 O.server_paths[0], O.hot_prefix, f);
				dcb_sampler_add_file(&sp, p, 1);
			}
	}
	dcb_sampler_start(&sp);

	struct pollfd *pfd = calloc(NC, sizeof(*pfd));
	uint64_t deadline = O.time_s ? (uint64_t)(O.time_s * 1e9)
				     : (uint64_t)(O.max_time_s * 1e9);
	/* --min-bytes: a timed run goes on until the writers wrote that much,
	 * within --max-time */
	uint64_t max_end = (uint64_t)(O.max_time_s * 1e9);
	uint64_t hard_stop = 0; /* drain limit, from the stop */
	const char *stop_reason = O.time_s ? "time" : "size";
	int stopping = 0, next_tick = 1;
	uint64_t last_service = 0;

	for (int i = 0; i < NC; i++)
		pump(&C[i]);

	for (;;) {
		uint64_t now = rel_now();
		int enough = R.bytes_written >= O.min_bytes;
		if (!stopping &&
		    ((now >= deadline && enough) || interrupted ||
		     (O.time_s && O.min_bytes && now >= max_end))) {
			stopping = 1;
			hard_stop = now + (uint64_t)(O.drain_s * 1e9);
			if (interrupted)
				stop_reason = "interrupted";
			else if (!O.time_s || !enough)
				stop_reason = "max-time";
			for (int i = 0; i < NC; i++)
				C[i].done_issuing = 1;
		}
		int writers_left = 0, all_done = 1;
		for (int i = 0; i < NC; i++) {
			if (C[i].role == ROLE_WRITER && !C[i].finished &&
			    !C[i].failed)
				writers_left++;
		}
		if (!writers_left && O.conns && !stopping) {
			/* writers done: readers stop too */
			for (int i = O.conns; i < NC; i++)
				C[i].done_issuing = 1;
		}
		for (int i = 0; i < NC; i++) {
			struct conn *c = &C[i];
			if (!c->failed && !c->finished)
				all_done = 0;
		}
		if (all_done)
			break;
		if (stopping && now >= hard_stop) {
			stop_reason = "drain-timeout";
			break;
		}
		while ((uint64_t)next_tick * R.tl_ns <= now) {
			if (!O.quiet)
				print_tick(next_tick, &sp);
			next_tick++;
		}
		int n = 0;
		for (int i = 0; i < NC; i++) {
			struct conn *c = &C[i];
			if (c->failed)
				continue;
			pfd[n].fd = rpc_get_fd(c->rpc);
			pfd[n].events = (short)rpc_which_events(c->rpc);
			pfd[n].revents = 0;
			n++;
		}
		if (n == 0)
			break;
		int timeout = 10;
		if (poll(pfd, n, timeout) < 0 && errno != EINTR)
			break;
		now = rel_now();
		int full = now - last_service >=
			   100000000ULL; /* timeouts need a periodic call */
		if (full)
			last_service = now;
		n = 0;
		for (int i = 0; i < NC; i++) {
			struct conn *c = &C[i];
			if (c->failed)
				continue;
			short rev = pfd[n++].revents;
			if (rev || full) {
				if (rpc_service(c->rpc, rev) < 0) {
					R.rpc_errors++;
					conn_fail(c, rpc_get_error(c->rpc));
					continue;
				}
			}
			pump(c);
		}
	}
	uint64_t end_all = rel_now();
	if (!R.end_ns || O.conns == 0)
		R.end_ns = O.conns ? R.end_ns : end_all;
	if (O.conns == 0)
		R.durable_ns = end_all;
	dcb_sampler_stop(&sp);

	int finished = !interrupted && strcmp(stop_reason, "drain-timeout") &&
		       strcmp(stop_reason, "max-time");
	for (int i = 0; i < O.conns; i++) {
		ci[i].failed = C[i].failed;
		ci[i].verf_changes = C[i].verf_changes;
		if (C[i].failed || !C[i].finished)
			finished = 0;
	}
	for (int i = O.conns; i < NC; i++)
		ci[i].failed = C[i].failed;
	if (R.bytes_written < R.bytes_asked || R.commit_failures)
		finished = 0;

	struct dcb_run_info ri = {
		.elapsed_s = end_all / 1e9,
		.finished = finished,
		.stop_reason = stop_reason,
		.writemax = wmax,
		.readmax = rmax,
		.use_cachestat = sp.use_cachestat,
	};
	uint64_t end =
		R.end_ns > R.measure_start_ns ? R.end_ns : R.measure_start_ns;
	uint64_t dend = R.durable_ns > end ? R.durable_ns : end;
	print_summary(end, dend);
	if (O.server_pid) {
		double cpu_s = dcb_sampler_server_cpu_s(&sp);
		double gb =
			(double)(R.bytes[OP_WRITE] + R.bytes[OP_READ]) / 1e9;
		if (cpu_s >= 0)
			fprintf(stderr,
				"server: %.2f CPU-s in %.1f s, %.3f CPU-s per GB moved",
				cpu_s, sp.n ? sp.s[sp.n - 1].t : 0.0,
				gb > 0 ? cpu_s / gb : 0.0);
		double host_s = dcb_sampler_host_cpu_s(&sp);
		if (cpu_s >= 0 && host_s >= 0)
			fprintf(stderr, " (machine less client: %.3f)",
				gb > 0 ? host_s / gb : 0.0);
		if (sp.server_hwm_kib >= 0)
			fprintf(stderr, "%speak RSS %.0f MiB",
				cpu_s >= 0 ? ", " : "server: ",
				sp.server_hwm_kib / 1024.0);
		if (cpu_s >= 0 || sp.server_hwm_kib >= 0)
			fputc('\n', stderr);
	}

	int out_rc = 0;
	if (O.json_path) {
		char tmp[1100];
		snprintf(tmp, sizeof(tmp), "%s.tmp", O.json_path);
		FILE *f = fopen(tmp, "w");
		if (!f) {
			perror(O.json_path);
			out_rc = 2;
		} else {
			dcb_write_json(f, &O, &R, &sp, ci, NC, &ri);
			if (fclose(f) || rename(tmp, O.json_path)) {
				perror(O.json_path);
				out_rc = 2;
			}
		}
	}
	if (O.timeline_csv) {
		FILE *f = fopen(O.timeline_csv, "w");
		if (f) {
			dcb_write_timeline_csv(f, &R, &sp);
			fclose(f);
		}
	}
	if (O.cdf_prefix) {
		static const char *nm[OP_NUM] = { "write", "commit", "read" };
		for (int k = 0; k < OP_NUM; k++) {
			char p[1100];
			snprintf(p, sizeof(p), "%s.%s.cdf", O.cdf_prefix,
				 nm[k]);
			FILE *f = fopen(p, "w");
			if (f) {
				hist_write_cdf(&R.lat[k], f, 1000.0);
				fclose(f);
			}
		}
	}
	shutting_down = 1;
	for (int i = 0; i < NC; i++) {
		struct conn *c = &C[i];
		nfs_destroy_context(c->nfs);
		free(c->fh.data.data_val);
		if (c->hot)
			for (int f = 0; f < O.hot_files; f++)
				free(c->hot[f].data.data_val);
		free(c->hot);
		free(c->pw);
		free(c->rq);
	}
	free(C);
	free(ci);
	free(pfd);
	free(wbuf);
	dcb_results_free(&R);
	dcb_sampler_free(&sp);
	if (out_rc)
		return out_rc;
	return finished ? 0 : 1;
}
