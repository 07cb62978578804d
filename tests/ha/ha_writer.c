// SPDX-License-Identifier: LGPL-3.0-or-later
/* ha_writer: NFSv3 writers that go on through a failover, as a Linux client
 * does: libnfs reconnects by itself (autoreconnect -1: forever) and resends
 * the requests that were in flight; when a COMMIT answers a verifier other
 * than the one of a WRITE it covers, that WRITE is sent again (the server
 * that acknowledged it may have lost it) and committed again.
 *
 * ha_writer -H host -p nfsport -M mntport -e export -r recdir [options]
 *   -n N      writers (4), one file and one libnfs context each
 *   -d dir    directory in the export (made if missing; "" = root)
 *   -P prefix file names <dir>/<prefix>_<i> (record <recdir>/<prefix>_<i>.rec)
 *   -t secs   run time (20)            -b bytes  WRITE size (65536)
 *   -W bytes  wrap offsets at this file size (8 MiB)
 *   -c bytes  COMMIT after this many bytes acknowledged UNSTABLE (1 MiB)
 *   -x N      stop a writer after N WRITEs/COMMITs answered with an error (5)
 *   -g secs   how long a request may wait for an answer, reconnects included
 *             (60): past it the writer gives up
 * The record is ft_writer's (tests/faults/ftlib.h: F, U, E and C lines), so
 * ft_verify checks that every acknowledged-durable byte is on disk; a resent
 * WRITE is a new U line with the new verifier.
 *
 * Prints one line per writer ("W i ...") and then
 *   ha_writer: writers=N ok=K acked_bytes=.. commits_ok=.. verifier_changes=..
 *     resent_bytes=.. max_stall_ms=.. stall_end_ms=.. errors=.. badhandle=..
 * max_stall_ms is the longest time any writer waited between two answers,
 * stall_end_ms the wall-clock time (ms since the epoch) that wait ended.
 * Exit 0 when every writer ran to the end and its last COMMIT covered all it
 * wrote with one verifier; 1 when a writer stopped on errors (-x) or gave up
 * (-g); 2 on setup failure.
 */
#include "ftlib.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define MAX_COMMIT_ROUNDS 8

static struct nfsc_opts g_o = { "127.0.0.1", 12049, 12050, NULL };
static int g_n = 4, g_maxfail = 5;
static const char *g_dir = "", *g_prefix = "ha", *g_recdir;
static uint64_t g_secs = 20, g_block = 65536, g_wrap = 8 << 20,
		g_commit_every = 1 << 20, g_grace = 60;

struct pend {
	uint64_t off;
	uint32_t len;
	char verf[8];
};

struct writer {
	int id;
	pthread_t th;
	struct nfs_context *nfs;
	struct nfsc_conn c; /* c.rpc: the context's, reconnecting */
	struct nfsc_fh fh;
	char path[512];
	uint64_t seed;
	FILE *rec;
	unsigned char *buf;
	uint64_t acks, off, since_commit;
	struct pend *pend;
	size_t npend, cap;
	uint64_t last_ms, max_gap_ms, gap_end_wall;
	uint64_t acked, commits_ok, verf_changes, resent, errors, badhandle;
	int fails, gave_up, clean, setup_ok;
	char err[256];
};

static uint64_t wall_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* An answer came: the wait since the previous one is a stall candidate. */
static void answered(struct writer *w)
{
	uint64_t now = nfsc_now_ms();

	if (w->last_ms && now - w->last_ms > w->max_gap_ms) {
		w->max_gap_ms = now - w->last_ms;
		w->gap_end_wall = wall_ms();
	}
	w->last_ms = now;
}

/* A head whose node died leaves a half-open connection: when all that was
 * sent had been acknowledged by its kernel, nothing is retransmitted and no
 * answer ever comes. As the Linux NFS client does, probe the connection when
 * it is idle (TCP keepalive after 2 s, then every second, 3 probes): the head
 * that holds the address now answers RST and libnfs reconnects. Checked at
 * every turn: a reconnect makes a new socket, maybe with the same number. */
static void keepalive(int fd)
{
	int on = 1, idle = 2, intvl = 1, cnt = 3, v = 0;
	socklen_t l = sizeof(v);

	if (fd < 0 ||
	    (getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &v, &l) == 0 && v != 0))
		return;
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
}

/* Drives the context (and its reconnects) until k is answered; -1 when the
 * grace time passed or libnfs failed for good. */
static int wait_call(struct writer *w, struct nfsc_call *k)
{
	uint64_t deadline = nfsc_now_ms() + g_grace * 1000;

	while (!k->done) {
		struct pollfd p;
		int r;

		if (nfsc_now_ms() > deadline) {
			snprintf(w->err, sizeof(w->err),
				 "no answer within %llu s",
				 (unsigned long long)g_grace);
			return -1;
		}
		p.fd = nfs_get_fd(w->nfs);
		keepalive(p.fd);
		p.events = nfs_which_events(w->nfs);
		p.revents = 0;
		r = poll(&p, 1, 100);
		if (r < 0 && errno != EINTR) {
			snprintf(w->err, sizeof(w->err), "poll: %s",
				 strerror(errno));
			return -1;
		}
		if (nfs_service(w->nfs, r > 0 ? p.revents : 0) < 0) {
			snprintf(w->err, sizeof(w->err), "nfs_service: %s",
				 nfs_get_error(w->nfs));
			return -1;
		}
	}
	return 0;
}

static void nfs_error(struct writer *w, int st)
{
	w->errors++;
	w->fails++;
	if (st == NFS3ERR_BADHANDLE)
		w->badhandle++;
}

/* One UNSTABLE WRITE of [off, off + len), sent again while the RPC itself
 * fails (libnfs gave the request back). 0: acknowledged (recorded, v set),
 * 1: answered with an error (recorded), -1: gave up. */
static int write_range(struct writer *w, uint64_t off, uint32_t len, char v[8])
{
	struct nfsc_call k;
	char vh[17];

	ft_pattern_fill(w->seed, off, w->buf, len);
	for (int tries = 0; tries < 100; tries++) {
		if (nfsc_write_async(&w->c, &k, &w->fh, off, w->buf, len,
				     UNSTABLE) != 0) {
			snprintf(w->err, sizeof(w->err), "write: %s",
				 nfs_get_error(w->nfs));
			return -1;
		}
		if (wait_call(w, &k) != 0)
			return -1;
		if (k.st == -1)
			continue; /* not an answer from a server */
		answered(w);
		if (k.st != NFS3_OK || k.count == 0) {
			fprintf(w->rec, "E %llu %u %d\n",
				(unsigned long long)off, len, k.st);
			nfs_error(w, k.st);
			return 1;
		}
		len = k.count < len ? k.count : len;
		ft_verf_hex(k.verf, vh);
		fprintf(w->rec, "U %llu %llu %u %s\n",
			(unsigned long long)w->acks, (unsigned long long)off,
			len, vh);
		w->acks++;
		memcpy(v, k.verf, 8);
		if (w->npend == w->cap) {
			w->cap = w->cap ? 2 * w->cap : 256;
			w->pend = realloc(w->pend, w->cap * sizeof(*w->pend));
			if (w->pend == NULL)
				ft_die("out of memory");
		}
		w->pend[w->npend].off = off;
		w->pend[w->npend].len = len;
		memcpy(w->pend[w->npend].verf, k.verf, 8);
		w->npend++;
		return 0;
	}
	snprintf(w->err, sizeof(w->err),
		 "WRITE at %llu: no answer in 100 tries",
		 (unsigned long long)off);
	return -1;
}

/* COMMIT the whole file; WRITEs acknowledged with another verifier than the
 * COMMIT's are sent again and committed again. 0: everything pending is
 * committed, 1: an error answer, -1: gave up. */
static int commit_all(struct writer *w)
{
	for (int round = 0; round < MAX_COMMIT_ROUNDS; round++) {
		struct nfsc_call k;
		uint64_t acks = w->acks;
		size_t keep = 0, n;
		char vh[17], v[8];
		int rc;

		if (nfsc_commit_async(&w->c, &k, &w->fh, 0, 0) != 0) {
			snprintf(w->err, sizeof(w->err), "commit: %s",
				 nfs_get_error(w->nfs));
			return -1;
		}
		if (wait_call(w, &k) != 0)
			return -1;
		if (k.st == -1)
			continue;
		answered(w);
		ft_verf_hex(k.verf, vh);
		fprintf(w->rec, "C 0 0 %d %s %llu\n", k.st,
			k.st == NFS3_OK ? vh : "0000000000000000",
			(unsigned long long)acks);
		if (k.st != NFS3_OK) {
			nfs_error(w, k.st);
			return 1;
		}
		w->commits_ok++;
		for (size_t i = 0; i < w->npend; i++)
			if (memcmp(w->pend[i].verf, k.verf, 8) != 0)
				w->pend[keep++] = w->pend[i];
		if (keep == 0) {
			w->npend = 0;
			w->since_commit = 0;
			return 0;
		}
		/* the server that acknowledged these is not the one that
		 * committed: send them again */
		w->verf_changes++;
		n = keep;
		w->npend = 0;
		{
			struct pend *old = malloc(n * sizeof(*old));

			if (old == NULL)
				ft_die("out of memory");
			memcpy(old, w->pend, n * sizeof(*old));
			for (size_t i = 0; i < n; i++) {
				rc = write_range(w, old[i].off, old[i].len, v);
				if (rc != 0) {
					free(old);
					return rc;
				}
				w->resent += old[i].len;
			}
			free(old);
		}
	}
	snprintf(w->err, sizeof(w->err),
		 "the verifier changed in each of %d COMMIT rounds",
		 MAX_COMMIT_ROUNDS);
	return -1;
}

static int setup(struct writer *w)
{
	char url[1024], name[256], recpath[1024];
	struct nfs_url *u;

	snprintf(name, sizeof(name), "%s_%d", g_prefix, w->id);
	snprintf(w->path, sizeof(w->path), "%s%s%s", g_dir, *g_dir ? "/" : "",
		 name);
	w->seed = ft_seed(w->path);
	w->nfs = nfs_init_context();
	if (w->nfs == NULL)
		return -1;
	snprintf(
		url, sizeof(url),
		"nfs://%s%s?version=3&nfsport=%d&mountport=%d&autoreconnect=-1",
		g_o.host, g_o.export, g_o.nfsport, g_o.mntport);
	u = nfs_parse_url_dir(w->nfs, url);
	if (u == NULL) {
		fprintf(stderr, "writer %d: %s: %s\n", w->id, url,
			nfs_get_error(w->nfs));
		return -1;
	}
	if (nfs_mount(w->nfs, u->server, u->path) != 0) {
		fprintf(stderr, "writer %d: mount %s: %s\n", w->id, url,
			nfs_get_error(w->nfs));
		nfs_destroy_url(u);
		return -1;
	}
	nfs_destroy_url(u);
	/* (the mount may have turned it off: left on, forever) */
	nfs_set_autoreconnect(w->nfs, -1);
	/* the file's handle, from a connection of the NFSv3 client core (the
	 * mounted context does not hand out handles); then every call goes
	 * through the context's reconnecting RPC */
	{
		struct nfsc_conn s;
		struct nfsc_fh dir;
		int st;

		if (ft_connect(&s, &g_o) != 0) {
			fprintf(stderr, "writer %d: connect: %s\n", w->id,
				s.err);
			return -1;
		}
		dir = s.root;
		st = NFS3_OK;
		if (*g_dir) {
			st = ft_lookup_path(&s, g_dir, &dir);
			if (st == NFS3ERR_NOENT)
				st = ft_mkdir(&s, &s.root, g_dir, &dir);
		}
		if (st == NFS3_OK)
			st = ft_create(&s, &dir, name, &w->fh);
		if (st != NFS3_OK)
			fprintf(stderr, "writer %d: create %s: %s %s\n", w->id,
				w->path, nfsc_st(st), s.err);
		nfsc_disconnect(&s);
		if (st != NFS3_OK)
			return -1;
	}
	w->c.rpc = nfs_get_rpc_context(w->nfs);
	snprintf(recpath, sizeof(recpath), "%s/%s.rec", g_recdir, name);
	w->rec = fopen(recpath, "w");
	if (w->rec == NULL) {
		fprintf(stderr, "writer %d: %s: %s\n", w->id, recpath,
			strerror(errno));
		return -1;
	}
	setvbuf(w->rec, NULL, _IOFBF, 1 << 16);
	fprintf(w->rec, "F %s %llu\n", w->path, (unsigned long long)w->seed);
	w->buf = malloc(g_block);
	return w->buf ? 0 : -1;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	uint64_t end = nfsc_now_ms() + g_secs * 1000;
	char v[8];
	int rc = 0;

	w->last_ms = nfsc_now_ms();
	while (nfsc_now_ms() < end && w->fails < g_maxfail) {
		uint32_t len = (uint32_t)g_block;

		if (w->off + len > g_wrap)
			w->off = 0;
		rc = write_range(w, w->off, len, v);
		if (rc < 0)
			break;
		if (rc > 0)
			continue;
		w->acked += len;
		w->off += len;
		w->since_commit += len;
		if (w->since_commit >= g_commit_every) {
			rc = commit_all(w);
			if (rc < 0)
				break;
		}
	}
	if (rc >= 0 && w->fails < g_maxfail) {
		rc = commit_all(w);
		w->clean = rc == 0;
	}
	if (rc < 0)
		w->gave_up = 1;
	fflush(w->rec);
	return NULL;
}

int main(int argc, char **argv)
{
	struct writer *ws;
	uint64_t acked = 0, commits = 0, changes = 0, resent = 0, errors = 0,
		 bad = 0, gap = 0, gap_end = 0;
	int opt, ok = 0, started = 0;

	while ((opt = getopt(argc, argv,
			     FT_COMMON_OPTS "n:d:P:r:t:b:W:c:x:g:")) != -1) {
		switch (opt) {
		case 'n':
			g_n = atoi(optarg);
			break;
		case 'd':
			g_dir = optarg;
			break;
		case 'P':
			g_prefix = optarg;
			break;
		case 'r':
			g_recdir = optarg;
			break;
		case 't':
			g_secs = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			g_block = strtoull(optarg, NULL, 0);
			break;
		case 'W':
			g_wrap = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			g_commit_every = strtoull(optarg, NULL, 0);
			break;
		case 'x':
			g_maxfail = atoi(optarg);
			break;
		case 'g':
			g_grace = strtoull(optarg, NULL, 0);
			break;
		default:
			if (!ft_common_opt(&g_o, opt, optarg))
				ft_die("usage: see the comment at the top of ha_writer.c");
		}
	}
	if (g_o.export == NULL || g_recdir == NULL || g_n < 1 || g_n > 256 ||
	    g_block == 0 || g_block > (1 << 20) || g_wrap < g_block)
		ft_die("usage: see the comment at the top of ha_writer.c");
	ws = calloc(g_n, sizeof(*ws));
	if (ws == NULL)
		ft_die("out of memory");
	for (int i = 0; i < g_n; i++) {
		ws[i].id = i;
		ws[i].setup_ok = setup(&ws[i]) == 0;
		if (!ws[i].setup_ok)
			return 2;
	}
	printf("ha_writer: started %d writers at %llu\n", g_n,
	       (unsigned long long)wall_ms());
	fflush(stdout);
	for (int i = 0; i < g_n; i++)
		if (pthread_create(&ws[i].th, NULL, writer_main, &ws[i]) == 0)
			started++;
	for (int i = 0; i < started; i++)
		pthread_join(ws[i].th, NULL);
	for (int i = 0; i < g_n; i++) {
		struct writer *w = &ws[i];

		printf("W %d acked=%llu commits_ok=%llu verifier_changes=%llu resent=%llu max_stall_ms=%llu errors=%llu badhandle=%llu clean=%d%s%s\n",
		       i, (unsigned long long)w->acked,
		       (unsigned long long)w->commits_ok,
		       (unsigned long long)w->verf_changes,
		       (unsigned long long)w->resent,
		       (unsigned long long)w->max_gap_ms,
		       (unsigned long long)w->errors,
		       (unsigned long long)w->badhandle, w->clean,
		       w->err[0] ? " err=" : "", w->err);
		ok += w->clean;
		acked += w->acked;
		commits += w->commits_ok;
		changes += w->verf_changes;
		resent += w->resent;
		errors += w->errors;
		bad += w->badhandle;
		if (w->max_gap_ms > gap) {
			gap = w->max_gap_ms;
			gap_end = w->gap_end_wall;
		}
		if (w->rec)
			fclose(w->rec);
		if (w->nfs)
			nfs_destroy_context(w->nfs);
		free(w->buf);
		free(w->pend);
	}
	printf("ha_writer: writers=%d ok=%d acked_bytes=%llu commits_ok=%llu verifier_changes=%llu resent_bytes=%llu max_stall_ms=%llu stall_end_ms=%llu errors=%llu badhandle=%llu\n",
	       g_n, ok, (unsigned long long)acked, (unsigned long long)commits,
	       (unsigned long long)changes, (unsigned long long)resent,
	       (unsigned long long)gap, (unsigned long long)gap_end,
	       (unsigned long long)errors, (unsigned long long)bad);
	free(ws);
	return ok == g_n ? 0 : 1;
}
